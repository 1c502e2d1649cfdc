"""Per-item judge scores of one cell (``predictions.tsv``): what Table 8 and
Figure 6 read (the PointJudge bias cells) and what the secondary-label table
relates to a researcher's second label (every cell whose judge gives its
items a score or a position; docs/decisions/labels-from-any-score.md, "Secondary labels").

An item's value in a cell (``pred``; None when the judge gave it none) is
its judge's (``kind`` ``score`` or ``rank``; each shape's docstring in
:mod:`authbench.studies.authority.judges`): PointJudge's score (any
setting), ListScore's score, PairScore's AverageScore (lists and pairs), and
ListRank's and PairRank's position (lists only) as a score, the fraction of
the list's other items ranked below it (1 = first, 0 = last).

An item met more than once in a cell (lists reuse rare levels) gets the
mean of its values, with ``n_scores`` = how many there were. Parsing follows
:func:`authbench.studies.authority.rows.usable_value`: under ``strict`` a
failed reply gives no value (ranked items of a failed ListRank reply, items
without one parsed PairRank comparison), under ``lenient`` the parser's.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Sequence

from authbench.studies.authority.judges import judge_of
from authbench.studies.authority.sampling import item_key

# predictions.tsv of a DomainAuth cell; the secondary labels' columns follow
PREDICTION_COLUMNS = ("model", "context", "judge", "setting", "domain", "level", "pred", "kind", "n_scores",
                      "category")


def item_predictions(judge: str, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                     parse: str = "strict") -> list[dict]:
    """One row per distinct item of the cell, in order of first appearance:
    its key (``domain`` or ``entity``), true ``level``, ``category`` (DomainAuth;
    None when it has none), ``pred`` (mean value or None), ``kind`` (score or
    rank) and ``n_scores``; the values are the judge's
    (:meth:`~authbench.studies.authority.judges.base.Judge.item_values`)."""
    shaped = judge_of(judge)
    if not shaped.gives_item_scores(setting):
        raise ValueError(f"{judge} on {setting} gives no per-item score")
    got: dict[str, list[float]] = defaultdict(list)
    first: dict[str, Mapping] = {}
    for item, value in shaped.item_values(instances, judgments, parse):
        key = item_key(item)
        first.setdefault(key, item)
        got[key] += [] if value is None else [float(value)]
    rows = []
    for key, item in first.items():
        scores = got[key]
        row = {"domain" if "domain" in item else "entity": key, "level": item["level"],
               "pred": sum(scores) / len(scores) if scores else None, "kind": shaped.kind,
               "n_scores": len(scores)}
        if "domain" in item:
            row["category"] = item.get("category") or None
        rows.append(row)
    return rows
