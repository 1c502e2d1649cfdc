"""Paired comparisons of one study: the rows every study's report
builds (:func:`comparison_row`), Holm's adjustment inside each family and the
``comparisons.tsv`` / ``comparisons.md`` writer (:func:`write_comparisons`).

A row compares two cells (or a cell and a baseline, two prompt sets ...) that
judged the same units: ``a`` and ``b`` name them, ``what`` names the number
(e.g. ``DomainAuth fine ρ (direct)``), ``family`` the group its p-value is
adjusted in (Holm, :func:`authbench.stats.holm`; e.g. "vs baseline",
"w/ vs w/o text"). ``delta`` = a − b in display units, its paired-bootstrap
interval ``lo``/``hi``, ``p`` and ``test`` from the one test of the
pipeline (:func:`authbench.stats.paired_test`; a row against a constant,
:func:`authbench.stats.one_sample_test`): McNemar's exact p for pair
accuracies, the Wald p of the bootstrap standard error otherwise
(:data:`authbench.stats.TEST_RULE`); ``n`` the paired resampling units. ``distinct`` is ``yes`` when the Holm-adjusted p
is below 0.05, ``no`` otherwise, blank when there were too few units.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import pandas as pd
from authbench.records import write_frame, write_text
from authbench.render.formatting import MISSING, round2
from authbench.stats import ALPHA, TEST_RULE, IntervalSpec, holm, one_sample_test, paired_test

__all__ = ["COLUMNS", "comparison_row", "finish", "reference_row", "write_comparisons"]

COLUMNS = ("family", "what", "a", "b", "unit", "n", "delta", "lo", "hi", "p", "p_holm", "test", "distinct")


def comparison_row(family: str, what: str, a: str, b: str, unit: str, values_a: Sequence[float],
                   values_b: Sequence[float], spec: IntervalSpec, *, scale: float = 1.0,
                   clusters: Sequence | None = None, binary: bool = False) -> dict:
    """One comparison of paired unit values (same order on both sides).
    ``scale`` turns unit values into display units (100 for a fraction shown
    in percent); ``binary``: the values are correct (1) / wrong (0) (McNemar's
    exact p when each unit is its own resampling unit)."""
    res = paired_test(values_a, values_b, spec, scale=scale, clusters=clusters, binary=binary)
    return {"family": family, "what": what, "a": a, "b": b, "unit": unit, **res.as_dict()}


def reference_row(family: str, what: str, a: str, b: str, unit: str, values: Sequence[float], reference: float,
                  spec: IntervalSpec, *, scale: float = 1.0, clusters: Sequence | None = None) -> dict:
    """One comparison of unit values against a constant ``reference`` (in
    display units; ``b`` names it, e.g. ``50%``)."""
    res = one_sample_test(values, reference, spec, scale=scale, clusters=clusters)
    return {"family": family, "what": what, "a": a, "b": b, "unit": unit, **res.as_dict()}


def finish(rows: Iterable[Mapping]) -> pd.DataFrame:
    """The comparisons frame: Holm's adjustment per family, ``distinct``."""
    frame = pd.DataFrame(list(rows), columns=[c for c in COLUMNS if c not in ("p_holm", "distinct")])
    frame["test"] = frame["test"].astype(object)
    frame["p_holm"] = math.nan
    for _, idx in frame.groupby("family", sort=False).groups.items():
        frame.loc[idx, "p_holm"] = holm(frame.loc[idx, "p"].tolist())
    frame["distinct"] = ["" if math.isnan(p) else ("yes" if p < ALPHA else "no") for p in frame["p_holm"]]
    return frame[list(COLUMNS)]


def _num(x: float, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return MISSING
    return f"{round2(x):+.2f}" if digits == 2 else f"{x:.3g}"


def write_comparisons(frame: pd.DataFrame, stem: Path, title: str) -> list[Path]:
    """``stem.tsv`` (every column, full precision) and ``stem.md`` (one
    section per family: Δ [lo, hi], Holm-adjusted p and its test; a count of
    distinguishable rows first)."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    tsv, md = stem.with_suffix(".tsv"), stem.with_suffix(".md")
    write_frame(frame, tsv, sep="\t", index=False, lineterminator="\n", na_rep="")
    lines = [f"# {title}", "",
             f"{len(frame)} paired comparisons; {int((frame['distinct'] == 'yes').sum())} distinguishable "
             f"(Holm-adjusted p < {ALPHA} within each family), {int((frame['distinct'] == '').sum())} with too "
             "few units for a test. Δ = a − b in the tables' units, its 95% paired-bootstrap interval; "
             f"p: {TEST_RULE}; Holm-adjusted.", ""]
    for family, part in frame.groupby("family", sort=False):
        lines += [f"## {family}", "", "| number | a | b | units | Δ [95% interval] | p (Holm) | test |",
                  "|:---|:---|:---|---:|---:|---:|---:|"]
        for r in part.itertuples(index=False):
            interval = "" if math.isnan(r.lo) else f" [{_num(r.lo)}, {_num(r.hi)}]"
            star = " *" if r.distinct == "yes" else ""
            lines.append(f"| {r.what} | {r.a} | {r.b} | {r.n} | {_num(r.delta)}{interval} | "
                         f"{_num(r.p_holm, 3)}{star} | {r.test} |")
        lines.append("")
    write_text(md, "\n".join(lines))
    return [tsv, md]
