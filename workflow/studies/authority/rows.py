"""The metric rows and their units, shared by every judge shape
(:mod:`authbench.studies.authority.judges`) and the non-LLM baselines: the
columns of the long metrics table and of the units, the parse modes, the
label scale of each setting, and the builders of list rows (ρ, τ) and pair
rows (accuracy).

Policies (docs/decisions/metrics.md):

* Lists: ρ and τ per list against the list's true levels (fine level for
  ``fine``, coarse level for ``coarse``), averaged over lists. A list whose
  predictions are all equal counts ρ = τ = 0 and is counted in ``n_constant``.
* Unscored items (unparsable reply, score out of range) rank below every
  scored item, tied.
* Pairs: a tie in predicted scores, or an unparsable reply, counts as wrong.
* Parse modes (:data:`PARSE_MODES`, config ``parse``): ``strict`` (default)
  — a reply whose parse status is not ok contributes no prediction;
  ``lenient`` — the value the parser returned for a failed reply is used as
  it stands (:func:`usable_value`; what each shape then does with a missing
  value is its own docstring's).
* Units: every metric row is the mean over its units, one per list (ρ, τ)
  or pair (accuracy: 1.0 correct, 0.0 wrong); ``units`` (a list given to
  the builders) collects them with their details (:data:`UNIT_COLUMNS`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Mapping, Sequence

from authbench.records import is_missing
from authbench.studies.authority import metrics as M
from authbench.studies.authority import ranking as R
from authbench.studies.authority.sampling import item_key

__all__ = ["LABEL_KEY", "METRIC_COLUMNS", "PARSE_MODES", "PRED_COLUMNS", "ROW_KEY", "UNIT_COLUMNS",
           "evaluate_scores", "expected_derivation", "list_rows", "pair_outcome", "pair_rows", "row", "usable_value"]

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
# what identifies a metric row and its units (evaluate.with_intervals)
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


def row(setting: str, judge: str, derivation: str, difficulty: str, metric: str, value: float, n: int,
        n_constant: int = 0) -> dict:
    """One metric row without the cell's identity columns."""
    return {"setting": setting, "judge": judge, "derivation": derivation, "difficulty": difficulty,
            "metric": metric, "value": value, "n": n, "n_constant": n_constant}


def _json(values) -> str:
    return json.dumps(list(values), default=lambda v: v.item() if hasattr(v, "item") else str(v))


def list_rows(setting: str, judge: str, derivation: str, insts: Sequence[Mapping], pairs: list[tuple[list, list]],
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
        row(setting, judge, derivation, "all", "rho", res["rho"], res["n_lists"], res["n_constant"]),
        row(setting, judge, derivation, "all", "tau", res["tau"], res["n_lists"], res["n_constant"]),
    ]


def pair_outcome(inst: Mapping, key: str, a: int, pred: list, correct: bool) -> dict:
    """One pair's outcome: ``a`` the position of the item shown as A, ``pred``
    the judge's A and B scores (or its choice)."""
    items, order = inst["items"], (a, 1 - a)
    status = ("correct" if correct else "unparsed" if any(is_missing(p) for p in pred)
              else "tie" if len(pred) == 2 and pred[0] == pred[1] else "wrong")
    return {"difficulty": inst["difficulty"], "correct": bool(correct), "unit": inst["instance_id"],
            "items": _json(item_key(items[i]) for i in order), "truth": _json(items[i][key] for i in order),
            "pred": _json(pred), "status": status, "a_item": item_key(items[a])}


def pair_rows(setting: str, judge: str, outcomes: Sequence[Mapping], units: list | None = None) -> list[dict]:
    """Accuracy rows per difficulty; each pair a unit (1.0 correct, 0.0 wrong)."""
    by: dict[str, list[Mapping]] = defaultdict(list)
    for o in outcomes:
        by[o["difficulty"]].append(o)
    rows = []
    for difficulty in sorted(by):
        acc = M.accuracy(o["correct"] for o in by[difficulty])
        rows.append(row(setting, judge, "direct", difficulty, "acc", acc["acc"], acc["n"]))
        if units is not None:
            units += [{"setting": setting, "judge": judge, "derivation": "direct", "metric": "acc",
                       "value": float(o["correct"]), **{k: v for k, v in o.items() if k != "correct"}}
                      for o in by[difficulty]]
    return rows


def evaluate_scores(setting: str, judge: str, instances: Sequence[Mapping], score_of,
                    units: list | None = None) -> list[dict]:
    """Metric rows for any per-item scorer (PointJudge, baselines).
    ``score_of(instance, position)`` returns a number or None. ``setting`` names
    the label scale the rows are computed against (see
    :func:`authbench.studies.authority.evaluate.evaluate_cell`); ``units``
    collects the rows' units (module docstring)."""
    key = LABEL_KEY[setting]
    if setting == "pairs":
        outcomes = []
        for inst in instances:
            a, b = inst["items"]
            pa, pb = score_of(inst, 0), score_of(inst, 1)
            outcomes.append(pair_outcome(inst, key, 0, [pa, pb], M.pair_correct(a[key], b[key], pa, pb)))
        return pair_rows(setting, judge, outcomes, units)
    if setting == "bias":
        return []
    pairs = []
    for inst in instances:
        n = len(inst["items"])
        scores = {i: score_of(inst, i) for i in range(n)}
        pairs.append(([it[key] for it in inst["items"]], R.scores_to_predicted_values(scores, n)))
    return list_rows(setting, judge, "direct", instances, pairs, units)


def expected_derivation(derivation: str) -> str:
    """The derivation name of an E[s] row: ``direct`` -> ``expected``,
    ``average`` -> ``average_expected``, ``bubble`` -> ``bubble_expected``."""
    return "expected" if derivation == "direct" else f"{derivation}_expected"
