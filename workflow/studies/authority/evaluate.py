"""Parsed judgments of a cell -> metric rows (the long metrics table), the
samples' grades, the E[s] rows, the rows' intervals, the units file, and the
non-LLM baselines.

Each judge evaluates its own cell
(:meth:`authbench.studies.authority.judges.base.Judge.evaluate`: its shape's
derivations, how a failed reply counts); the columns, parse modes and row
builders every shape shares are :mod:`authbench.studies.authority.rows`'.

* Expected scores (config ``expected_scores``): PointJudge, ListJudge-PointScore
  and PairJudge-PointScore cells also get rows computed from E[s] (the
  probability-weighted score of each score slot, falling back to the argmax
  where the engine gave no distribution) under the same rules, as derivations
  of their own (:func:`~authbench.studies.authority.rows.expected_derivation`:
  ``expected``, ``average_expected``, ``bubble_expected``), so the argmax rows
  are unchanged.
* Units: every metric row is the mean over its units, one per list
  (ρ, τ) or pair (accuracy: 1.0 correct, 0.0 wrong); ``units`` (a list given
  to :func:`evaluate_cell` / :func:`evaluate_scores`) collects them with
  their details (:data:`~authbench.studies.authority.rows.UNIT_COLUMNS`,
  written as ``units.parquet``), and :func:`with_intervals` adds each row's
  bootstrap interval over them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from authbench.errors import InputError
from authbench.records import atomic_write
from authbench.seeding import rng
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.authority.judges import judge_of
from authbench.studies.authority.rows import (
    METRIC_COLUMNS,
    PARSE_MODES,
    ROW_KEY,
    UNIT_COLUMNS,
    evaluate_scores,
    expected_derivation,
)

# METRIC_COLUMNS, PARSE_MODES and evaluate_scores are the evaluate and baseline steps' (authbench.studies.authority.cli)
__all__ = ["METRIC_COLUMNS", "PARSE_MODES", "baseline_scorer", "comparisons_by_instance", "evaluate_cell",
           "evaluate_expected", "evaluate_scores", "sample_grades", "with_intervals", "write_units"]


def comparisons_by_instance(judge: str, judgments: Iterable[Mapping], parse: str = "strict") -> dict[str, list[dict]]:
    """A pair judge's judgments grouped per instance as comparison records
    (:meth:`authbench.studies.authority.judges.pairwise.PairJudge.comparisons`)."""
    return judge_of(judge).comparisons(judgments, parse)


def sample_grades(judge: str, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                  parse: str = "strict") -> dict[str, dict]:
    """Per judgment request id, its ``gold`` and ``correct`` for the cell's
    samples (:meth:`authbench.cells.record.CellRecord.sample_rows`), on the setting's own
    label scale (:data:`~authbench.studies.authority.rows.LABEL_KEY`), as the
    judge grades them (:meth:`~authbench.studies.authority.judges.base.Judge.grades`:
    point and lists gold only, pairs gold and the evaluation's verdict)."""
    return judge_of(judge).grades(setting, instances, judgments, parse)


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
    return judge_of(judge).evaluate(setting, instances, judgments, parse, units)


# --- expected scores (E[s], authbench.llm.expected) ---------------------------


def evaluate_expected(judge: str, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                      parse: str = "strict", units: list | None = None) -> list[dict]:
    """The E[s] rows of a score judge's cell: :func:`evaluate_cell`'s rows
    with every judgment's ``expected`` (E[s] per score slot) in place of its
    argmax ``value`` (the same parse modes, unscored-item, tie and BubbleSort
    rules), under derivation :func:`expected_derivation`. No rows for other
    judges or judgments without ``expected`` (``expected_scores: false``)."""
    if not judge_of(judge).scores:
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
