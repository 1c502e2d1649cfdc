"""Parsed judgments of a cell -> metric rows (the long metrics table).

Policies (docs/decisions.md):

* Lists: ρ and τ per list against the list's true levels (fine level for
  ``fine``, coarse level for ``coarse``), averaged over lists. A list whose
  predictions are all equal counts ρ = τ = 0 and is counted in ``n_constant``.
* Unscored items (unparsable reply, score out of range) rank below every scored
  item, tied; a ListRank reply that is not a clean permutation is repaired
  (first mention kept, missing ids appended in presentation order) and counted
  as a parse failure.
* Pairs: a tie in predicted scores, or an unparsable reply, counts as wrong.
* Parse modes (:data:`PARSE_MODES`, config ``parse``): ``strict`` (default) —
  a reply whose parse status is not ok contributes no prediction: its items
  are unscored (rank last, tied; a failed ListRank/ListScore reply leaves the
  whole list constant, ρ = τ = 0, counted in ``n_constant``), its pair counts
  as wrong, and in a BubbleSort ranking an item without one parsed comparison
  ranks last. ``lenient`` — the value the parser returned for a failed reply
  is used as it stands (last verdict wins; a repaired ranking, i.e. missing
  ids appended in presentation order; a loose ``Score: 7``). The evaluate
  step writes both (column ``parse``); the report shows the configured one.
* PairJudge rankings: PairRank by BubbleSort; PointScore by AverageScore (the
  paper's main number) and by BubbleSort (Tables 9/10). BubbleSort starts from
  the presentation order and uses the anchor rule where a pair was not compared.
* Expected scores (config ``expected_scores``): PointJudge, ListJudge-PointScore
  and PairJudge-PointScore cells also get rows computed from E[s] (the
  probability-weighted score of each score slot, falling back to the argmax
  where the engine gave no distribution) under the same rules, as derivations
  of their own (:func:`expected_derivation`: ``expected``,
  ``average_expected``, ``bubble_expected``), so the argmax rows are unchanged.
* Units: every metric row is the mean over its units, one per list
  (ρ, τ) or pair (accuracy: 1.0 correct, 0.0 wrong); ``units`` (a list given
  to :func:`evaluate_cell` / :func:`evaluate_scores`) collects them with
  their details (:data:`UNIT_COLUMNS`, written as ``units.parquet``), and
  :func:`with_intervals` adds each row's bootstrap interval over them.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from authbench.errors import InputError
from authbench.judges import SCORE_JUDGES
from authbench.records import atomic_write, is_missing
from authbench.seeding import rng
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.authority import metrics as M
from authbench.studies.authority import ranking as R
from authbench.studies.authority.sampling import item_key

# The long metrics table: one row per number (cli's evaluate and baseline
# commands write it; studies.authority.tables reads it).
METRIC_COLUMNS = (
    "benchmark",
    "model",
    "context",
    "setting",
    "judge",
    "derivation",
    "difficulty",
    "metric",
    "value",
    "n",
    "n_constant",
    "parse_failure_rate",
)
# The units behind the metric rows (units.parquet: the evaluate and baseline
# commands write them; the reports' intervals and paired comparisons read
# them): the row's identity, the unit (the instance id of a list or pair) and
# its value (ρ or τ of the list; 1.0 / 0.0 for a correct / wrong pair), then
# JSON details: the item keys in presentation order (pairs: A then B), their
# true levels and the predictions (a list's predicted values; a pair's A and B
# scores, or its choice), the status (lists: ok / constant; pairs: correct /
# wrong / tie / unparsed) and the item shown as A (pairs).
UNIT_COLUMNS = ("benchmark", "model", "context", "setting", "judge", "derivation", "difficulty", "metric", "parse",
                "unit", "value", "items", "truth", "pred", "status", "a_item")
# what identifies a metric row and its units (with_intervals)
ROW_KEY = ("benchmark", "model", "context", "setting", "judge", "derivation", "difficulty", "metric", "parse")
# PointJudge point predictions (Table 8, Figure 6).
PRED_COLUMNS = ("model", "context", "domain", "level", "pred", "category")

LABEL_KEY = {"fine": "level", "coarse": "coarse", "pairs": "level", "bias": "level"}
PARSE_MODES = ("strict", "lenient")


def usable_value(judgment: Mapping, parse: str):
    """The value a judgment contributes: its parsed value, or under ``strict``
    parsing None when its status is not ok (see the module docstring)."""
    if parse not in PARSE_MODES:
        raise ValueError(f"parse mode must be one of {PARSE_MODES}, got {parse!r}")
    if parse == "lenient" or judgment["status"] == "ok":
        return judgment["value"]
    return None


def _pair_ids(request_id: str) -> tuple[str, int, int]:
    instance_id, positions = request_id.rsplit(":", 1)
    a, b = positions.split("-")
    return instance_id, int(a), int(b)


def comparisons_by_instance(judge: str, judgments: Iterable[Mapping], parse: str = "strict") -> dict[str, list[dict]]:
    """Pair judgments grouped per instance as comparison records for ranking.py
    (``ok``: the reply parsed cleanly)."""
    out: dict[str, list[dict]] = defaultdict(list)
    for j in judgments:
        iid, a, b = _pair_ids(j["request_id"])
        value = usable_value(j, parse)
        rec = {"a": a, "b": b, "choice": None, "score_a": None, "score_b": None, "ok": j["status"] == "ok"}
        if judge == "pair_rank":
            rec["choice"] = value
        elif value is not None:
            rec["score_a"], rec["score_b"] = value["A"], value["B"]
        out[iid].append(rec)
    return out


def _strict_bubble_values(values: list[float], records: Sequence[Mapping]) -> list[float]:
    """Strict parsing: an item without one parsed comparison has no prediction
    and ranks last (tied) instead of keeping its presentation-order place."""
    seen = {i for r in records if r["ok"] for i in (r["a"], r["b"])}
    return [v if i in seen else -1.0 for i, v in enumerate(values)]


def _row(setting: str, judge: str, derivation: str, difficulty: str, metric: str, value: float, n: int,
         n_constant: int = 0) -> dict:
    return {"setting": setting, "judge": judge, "derivation": derivation, "difficulty": difficulty,
            "metric": metric, "value": value, "n": n, "n_constant": n_constant}


def _json(values) -> str:
    return json.dumps(list(values), default=lambda v: v.item() if hasattr(v, "item") else str(v))


def _list_rows(setting: str, judge: str, derivation: str, insts: Sequence[Mapping], pairs: list[tuple[list, list]],
               units: list | None = None) -> list[dict]:
    """ρ and τ rows of lists ``pairs`` (true levels, predicted values) of
    ``insts``; their per-list units appended to ``units``."""
    per_list: list[dict] = []
    res = M.mean_list_correlation(pairs, per_list)
    if units is not None:
        for inst, (truth, pred), r in zip(insts, pairs, per_list, strict=True):
            detail = {"unit": inst["instance_id"], "items": _json(item_key(it) for it in inst["items"]),
                      "truth": _json(truth), "pred": _json(pred), "status": "constant" if r["constant"] else "ok",
                      "a_item": ""}
            units += [{"setting": setting, "judge": judge, "derivation": derivation, "difficulty": "all",
                       "metric": m, "value": r[m], **detail} for m in ("rho", "tau")]
    return [
        _row(setting, judge, derivation, "all", "rho", res["rho"], res["n_lists"], res["n_constant"]),
        _row(setting, judge, derivation, "all", "tau", res["tau"], res["n_lists"], res["n_constant"]),
    ]


def _pair_outcome(inst: Mapping, key: str, a: int, pred: list, correct: bool) -> dict:
    """One pair's outcome: ``a`` the position of the item shown as A, ``pred``
    the judge's A and B scores (or its choice)."""
    items, order = inst["items"], (a, 1 - a)
    status = ("correct" if correct else "unparsed" if any(is_missing(p) for p in pred)
              else "tie" if len(pred) == 2 and pred[0] == pred[1] else "wrong")
    return {"difficulty": inst["difficulty"], "correct": bool(correct), "unit": inst["instance_id"],
            "items": _json(item_key(items[i]) for i in order), "truth": _json(items[i][key] for i in order),
            "pred": _json(pred), "status": status, "a_item": item_key(items[a])}


def _pair_rows(setting: str, judge: str, outcomes: Sequence[Mapping], units: list | None = None) -> list[dict]:
    """Accuracy rows per difficulty; each pair a unit (1.0 correct, 0.0 wrong)."""
    by: dict[str, list[Mapping]] = defaultdict(list)
    for o in outcomes:
        by[o["difficulty"]].append(o)
    rows = []
    for difficulty in sorted(by):
        acc = M.accuracy(o["correct"] for o in by[difficulty])
        rows.append(_row(setting, judge, "direct", difficulty, "acc", acc["acc"], acc["n"]))
        if units is not None:
            units += [{"setting": setting, "judge": judge, "derivation": "direct", "metric": "acc",
                       "value": float(o["correct"]), **{k: v for k, v in o.items() if k != "correct"}}
                      for o in by[difficulty]]
    return rows


def pair_verdict(judge: str, true_a: float, true_b: float, rec: Mapping) -> tuple[list, bool]:
    """A pair judge's prediction for one comparison record
    (:func:`comparisons_by_instance`) and whether it is correct: PairRank's
    choice (:func:`~authbench.studies.authority.metrics.choice_correct`),
    PairScore's A and B scores (:func:`~authbench.studies.authority.metrics.pair_correct`)."""
    if judge == "pair_rank":
        return [rec["choice"]], M.choice_correct(true_a, true_b, rec["choice"])
    pred = [rec["score_a"], rec["score_b"]]
    return pred, M.pair_correct(true_a, true_b, *pred)


def sample_grades(judge: str, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                  parse: str = "strict") -> dict[str, dict]:
    """Per judgment request id, its ``gold`` and ``correct`` for the cell's
    samples (:meth:`authbench.cells.CellRecord.sample_rows`), on the setting's own
    label scale (:data:`LABEL_KEY`). Point: gold = the item's level, correct
    null. Lists: gold = the true levels in the order shown, correct null (ρ
    and τ are per list). Pairs: gold = ``"A"`` / ``"B"`` (the one with the
    higher level) or ``"tie"``; correct = :func:`pair_verdict` under ``parse``
    (the evaluation's verdict; null for a tie, which no pair metric counts)."""
    key = LABEL_KEY[setting]
    if judge == "point":
        level = {item_key(it): it[key] for inst in instances for it in inst["items"]}
        return {j["request_id"]: {"gold": level[j["request_id"].split(":", 1)[1]], "correct": None}
                for j in judgments}
    by_id = {inst["instance_id"]: inst for inst in instances}
    if judge.startswith("list"):
        return {j["request_id"]: {"gold": [it[key] for it in by_id[j["request_id"]]["items"]], "correct": None}
                for j in judgments}
    out = {}
    for iid, records in comparisons_by_instance(judge, judgments, parse).items():
        items = by_id[iid]["items"]
        for rec in records:
            la, lb = items[rec["a"]][key], items[rec["b"]][key]
            tie = la == lb
            out[f"{iid}:{rec['a']}-{rec['b']}"] = {"gold": "tie" if tie else "A" if la > lb else "B",
                                                   "correct": None if tie else pair_verdict(judge, la, lb, rec)[1]}
    return out


def evaluate_scores(setting: str, judge: str, instances: Sequence[Mapping], score_of,
                    units: list | None = None) -> list[dict]:
    """Metric rows for any per-item scorer (PointJudge, baselines).
    ``score_of(instance, position)`` returns a number or None. ``setting`` names
    the label scale the rows are computed against (see :func:`evaluate_cell`);
    ``units`` collects the rows' units (module docstring)."""
    key = LABEL_KEY[setting]
    if setting == "pairs":
        outcomes = []
        for inst in instances:
            a, b = inst["items"]
            pa, pb = score_of(inst, 0), score_of(inst, 1)
            outcomes.append(_pair_outcome(inst, key, 0, [pa, pb], M.pair_correct(a[key], b[key], pa, pb)))
        return _pair_rows(setting, judge, outcomes, units)
    if setting == "bias":
        return []
    pairs = []
    for inst in instances:
        n = len(inst["items"])
        scores = {i: score_of(inst, i) for i in range(n)}
        pairs.append(([it[key] for it in inst["items"]], R.scores_to_predicted_values(scores, n)))
    return _list_rows(setting, judge, "direct", instances, pairs, units)


def evaluate_cell(judge: str, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                  parse: str = "strict", units: list | None = None) -> list[dict]:
    """Metric rows of one LLM cell (without the cell's identity columns).

    ``setting`` is the label scale the rows are computed against and written
    as: fine lists against fine labels and coarse lists against coarse labels
    (DomainAuth and EntityAuth); with ``entityauth.coarse_source: rescore``
    EntityAuth's fine lists are evaluated once with ``"fine"`` and once with
    ``"coarse"`` (:func:`authbench.studies.authority.outputs.scales`). The
    anchor rule of BubbleSort applies whenever the lists carry anchors.
    ``parse``: what a failed reply contributes (:data:`PARSE_MODES`);
    ``units``: collects the rows' units (module docstring)."""
    key = LABEL_KEY[setting]
    if judge == "point":
        by_key = {j["request_id"].split(":", 1)[1]: usable_value(j, parse) for j in judgments}
        return evaluate_scores(setting, judge, instances, lambda inst, i: by_key[item_key(inst["items"][i])], units)

    if judge.startswith("list"):
        by_id = {j["request_id"]: usable_value(j, parse) for j in judgments}
        pairs = []
        for inst in instances:
            n = len(inst["items"])
            value = by_id[inst["instance_id"]]
            if value is None:  # strict: a failed reply ranks nothing
                pred = R.scores_to_predicted_values({}, n)
            elif judge == "list_rank":
                pred = R.ranking_to_values(value, n)
            else:
                pred = R.scores_to_predicted_values({int(k): v for k, v in value.items()}, n)
            pairs.append(([it[key] for it in inst["items"]], pred))
        return _list_rows(setting, judge, "direct", instances, pairs, units)

    comps = comparisons_by_instance(judge, judgments, parse)
    if setting == "pairs":
        outcomes = []
        for inst in instances:
            (rec,) = comps[inst["instance_id"]]
            pred, ok = pair_verdict(judge, inst["items"][rec["a"]][key], inst["items"][rec["b"]][key], rec)
            outcomes.append(_pair_outcome(inst, key, rec["a"], pred, ok))
        return _pair_rows(setting, judge, outcomes, units)

    mode = "rank" if judge == "pair_rank" else "score"
    bubble, average = [], []
    for inst in instances:
        n = len(inst["items"])
        truth = [it[key] for it in inst["items"]]
        records = comps[inst["instance_id"]]
        ranking = R.bubble_ranking(records, n, mode, inst.get("anchors"))
        values = R.ranking_to_values(ranking, n)
        bubble.append((truth, _strict_bubble_values(values, records) if parse == "strict" else values))
        if mode == "score":
            average.append((truth, R.scores_to_predicted_values(R.average_score(records, n), n)))
    rows = _list_rows(setting, judge, "bubble", instances, bubble, units)
    if average:
        rows += _list_rows(setting, judge, "average", instances, average, units)
    return rows


# --- expected scores (E[s], authbench.llm.expected) ---------------------------


def expected_derivation(derivation: str) -> str:
    """The derivation name of an E[s] row: ``direct`` -> ``expected``,
    ``average`` -> ``average_expected``, ``bubble`` -> ``bubble_expected``."""
    return "expected" if derivation == "direct" else f"{derivation}_expected"


def evaluate_expected(judge: str, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                      parse: str = "strict", units: list | None = None) -> list[dict]:
    """The E[s] rows of a score judge's cell: :func:`evaluate_cell`'s rows
    with every judgment's ``expected`` (E[s] per score slot) in place of its
    argmax ``value`` (the same parse modes, unscored-item, tie and BubbleSort
    rules), under derivation :func:`expected_derivation`. No rows for other
    judges or judgments without ``expected`` (``expected_scores: false``)."""
    if judge not in SCORE_JUDGES:
        return []
    have = sum("expected" in j for j in judgments)
    if have == 0:
        return []
    if have < len(judgments):
        raise InputError(f"{judge}/{setting}: {len(judgments) - have} of {len(judgments)} judgments have no "
                         "'expected' field (a judgments file of mixed runs?); rerun the cell")
    swapped = [{**j, "value": j["expected"]} for j in judgments]
    mine: list[dict] = []
    rows = evaluate_cell(judge, setting, instances, swapped, parse, mine)
    if units is not None:
        units += [{**u, "derivation": expected_derivation(u["derivation"])} for u in mine]
    return [{**row, "derivation": expected_derivation(row["derivation"])} for row in rows]


def with_intervals(rows: Sequence[Mapping], units: Sequence[Mapping], spec: IntervalSpec) -> list[dict]:
    """``rows`` (with their :data:`ROW_KEY` columns) with ``lo`` / ``hi``: the
    percentile-bootstrap interval of the mean over each row's units
    (:func:`authbench.stats.mean_interval`, seeded by the row's identity, so it
    does not depend on job order); NaN for rows without units (the
    judge-validity diagnostics) or with fewer than ``spec.min_units``."""
    by: dict[tuple, list[float]] = defaultdict(list)
    for u in units:
        by[tuple(str(u[k]) for k in ROW_KEY)].append(u["value"])
    out = []
    for r in rows:
        key = tuple(str(r[k]) for k in ROW_KEY)
        lo, hi = mean_interval(by[key], spec, key) if key in by else (math.nan, math.nan)
        out.append({**r, "lo": lo, "hi": hi})
    return out


def write_units(units: Sequence[Mapping], path: str) -> None:
    """The units as Parquet (:data:`UNIT_COLUMNS`; pyarrow)."""
    import pandas as pd

    frame = pd.DataFrame(list(units), columns=list(UNIT_COLUMNS))
    frame["value"] = frame["value"].astype(float)
    with atomic_write(path, "wb") as fh:
        frame.to_parquet(fh, engine="pyarrow", index=False)


def point_predictions(instances: Sequence[Mapping], judgments: Sequence[Mapping], parse: str = "strict") -> list[dict]:
    """Per distinct domain: true level, predicted score (None if unparsable,
    or under ``strict`` parsing a failed reply), category."""
    by_domain = {j["request_id"].split(":", 1)[1]: usable_value(j, parse) for j in judgments}
    seen, rows = set(), []
    for inst in instances:
        for item in inst["items"]:
            if item["domain"] in seen:
                continue
            seen.add(item["domain"])
            rows.append({"domain": item["domain"], "level": item["level"], "category": item["category"] or None,
                         "pred": by_domain.get(item["domain"])})
    return rows


# --- non-LLM baselines -----------------------------------------------------

def baseline_scorer(name: str, seed: int, tld_config: Mapping | None):
    if name == "random":
        return lambda inst, i: rng(seed, "baseline-random", inst["instance_id"], i).random()
    if name == "position":  # presentation order: the first item shown is the most authoritative (pairs: A)
        return lambda inst, i: float(len(inst["items"]) - i)
    if name == "tld_prior":
        scores, default = tld_config["scores"], tld_config["default"]
        from authbench.net import tld_prior_score

        return lambda inst, i: tld_prior_score(inst["items"][i]["domain"], scores, default)
    raise ValueError(f"unknown baseline {name!r}")
