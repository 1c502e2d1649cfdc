"""Per-item judge scores of one cell (``predictions.tsv``): what Table 8 and
Figure 6 read (the PointJudge bias cells) and what the secondary-label table
relates to a researcher's second label (every cell whose judge gives its
items a score or a position; docs/decisions.md, "Secondary labels").

An item's value in a cell (``pred``; None when the judge gave it none):

* ``point``: its PointJudge score (0-9), any setting (the prompt depends
  only on the item, so every setting gives the same reply);
* ``list_score``: its score in the list's reply;
* ``pair_score``: its AverageScore, the mean of the scores it got in the
  comparisons of its list (fine, coarse) or its pair (pairs);
* ``list_rank`` and ``pair_rank`` (lists only): its position as a score,
  the fraction of the list's other items ranked below it (1 = first,
  0 = last; ``kind`` ``rank``): ListRank's ranking, PairRank's BubbleSort
  with the anchor rule. A pair's single PairRank choice is no position on a
  scale, so PairRank's pairs cells give no predictions.

An item met more than once in a cell (lists reuse rare levels) gets the
mean of its values, with ``n_scores`` = how many there were. Parsing follows
:func:`authbench.studies.authority.evaluate.usable_value`: under ``strict`` a
failed reply gives no value (ranked items of a failed ListRank reply, items
without one parsed PairRank comparison), under ``lenient`` the parser's.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Sequence

from authbench.judges import JUDGES
from authbench.studies.authority import ranking as R
from authbench.studies.authority.evaluate import comparisons_by_instance, usable_value
from authbench.studies.authority.outputs import gives_item_scores
from authbench.studies.authority.sampling import item_key

SCORE_KINDS = {j.name: "score" if j.scores else "rank" for j in JUDGES.values()}
# predictions.tsv of a DomainAuth cell; the secondary labels' columns follow
PREDICTION_COLUMNS = ("model", "context", "judge", "setting", "domain", "level", "pred", "kind", "n_scores",
                      "category")


def _rank_fractions(values: Sequence[float], n: int) -> dict[int, float | None]:
    """``ranking_to_values``' n-1 (first) .. 0 (last) -> 1 .. 0; a negative
    value (strict: no parsed comparison) is no value."""
    return {i: (None if v < 0 else v / (n - 1)) for i, v in enumerate(values)}


def _instance_values(judge: str, inst: Mapping, value, records) -> dict[int, float | None]:
    n = len(inst["items"])
    if judge == "list_score":
        if value is None:
            return {}
        return {int(k): (None if v is None else float(v)) for k, v in value.items()}
    if judge == "list_rank":
        return {} if value is None else _rank_fractions(R.ranking_to_values(value, n), n)
    if judge == "pair_score":
        return R.average_score(records, n)
    # pair_rank: BubbleSort over the list's comparisons (anchor rule); an item
    # without one usable comparison has no position
    ranking = R.bubble_ranking(records, n, "rank", inst.get("anchors"))
    values = R.ranking_to_values(ranking, n)
    seen = {i for r in records if r["choice"] is not None for i in (r["a"], r["b"])}
    return {i: (v / (n - 1) if i in seen else None) for i, v in enumerate(values)}


def item_predictions(judge: str, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                     parse: str = "strict") -> list[dict]:
    """One row per distinct item of the cell, in order of first appearance:
    its key (``domain`` or ``entity``), true ``level``, ``category`` (DomainAuth;
    None when it has none), ``pred`` (mean value or None), ``kind`` (score or
    rank) and ``n_scores``."""
    if not gives_item_scores(judge, setting):
        raise ValueError(f"{judge} on {setting} gives no per-item score")
    got: dict[str, list[float]] = defaultdict(list)
    first: dict[str, Mapping] = {}
    if judge == "point":
        by_key = {j["request_id"].split(":", 1)[1]: usable_value(j, parse) for j in judgments}
        for inst in instances:
            for item in inst["items"]:
                key = item_key(item)
                first.setdefault(key, item)
                if key not in got:
                    got[key] = [] if by_key.get(key) is None else [float(by_key[key])]
    else:
        by_id = {j["request_id"]: usable_value(j, parse) for j in judgments} if judge.startswith("list") else {}
        comps = comparisons_by_instance(judge, judgments, parse) if judge.startswith("pair") else {}
        for inst in instances:
            iid = inst["instance_id"]
            values = _instance_values(judge, inst, by_id.get(iid), comps.get(iid, []))
            for i, item in enumerate(inst["items"]):
                key = item_key(item)
                first.setdefault(key, item)
                v = values.get(i)
                got[key] += [] if v is None else [float(v)]
    rows = []
    for key, item in first.items():
        scores = got[key]
        row = {"domain" if "domain" in item else "entity": key, "level": item["level"],
               "pred": sum(scores) / len(scores) if scores else None, "kind": SCORE_KINDS[judge],
               "n_scores": len(scores)}
        if "domain" in item:
            row["category"] = item.get("category") or None
        rows.append(row)
    return rows
