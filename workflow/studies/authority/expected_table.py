"""The E[s] table (config ``expected_scores``; not in the paper): each
score judge's argmax rows beside its E[s] rows
(:func:`authbench.studies.authority.evaluate.evaluate_expected`), built with
:func:`authbench.render.tables.build_table` like the results tables
(:mod:`authbench.studies.authority.tables`)."""

from __future__ import annotations

import math

import pandas as pd
from authbench.render.formatting import COUNT, NOT_BEST_TAG, PCT, round2
from authbench.render.tables import Column, TableSpec, build_table, is_baseline
from authbench.stats import finite_or_nan
from authbench.studies.authority.judges import JUDGES
from authbench.studies.authority.rows import METRIC_COLUMNS, expected_derivation
from authbench.studies.authority.tables import (
    DIFFICULTY_ORDER,
    RHO,
    TAU,
    TEX_LABELS,
    check_columns,
    context_label,
    model_context_rows,
    same_row,
)

__all__ = ["EXPECTED_MARK", "table_expected"]

# the score judges, each with its argmax derivation on lists (its main one); on pairs every argmax derivation is direct
_EXPECTED_JUDGES = tuple(j for j in JUDGES.values() if j.scores)
EXPECTED_MARK = "E[s]"
_LIST_SETTINGS = (("fine", "fine"), ("coarse", "coarse"))


def table_expected(metrics: pd.DataFrame, benchmark: str) -> TableSpec:
    """The E[s] table: per model x context, each score judge twice, its
    argmax row and its ``E[s]`` row (``PointJudge`` / ``PointJudge E[s]``),
    with Spearman's ρ, Kendall's τ (%) and the constant lists of the fine and
    coarse lists, the pairwise accuracy (%) of the easy and hard pairs (the
    settings present), and for the E[s] rows the share (%) of score slots
    whose E[s] fell back to the argmax (mean over the row's cells); the
    settings are those of the whole ``metrics`` (every part of a stacked
    table has the same columns). PairJudge
    PointScore is its AverageScore ranking (the paper's main number). No
    marks: the rows answer one question each (how E[s] changes a judge).
    Judges without E[s] rows (``expected_scores: false``) are left out."""
    what = f"table_expected({benchmark!r})"
    check_columns(metrics, METRIC_COLUMNS, what)
    sub = metrics[(metrics["benchmark"].astype(str) == benchmark)
                  & ~metrics["model"].astype(str).map(is_baseline)]
    cells: dict[tuple, tuple[float, float]] = {}
    extra: dict[tuple, tuple[float, float, str]] = {}  # interval, ° tag (no ≈: the columns mix judges)
    fallback: dict[tuple, list[float]] = {}
    has_fallback = "expected_fallback_rate" in sub.columns
    for rec in sub.to_dict("records"):
        key = tuple(str(rec[k]) for k in ("model", "context", "judge", "derivation", "setting", "difficulty",
                                          "metric"))
        val = (finite_or_nan(rec["value"]), finite_or_nan(rec["n_constant"]))
        if key in cells and not same_row(cells[key], val):
            raise ValueError(f"{what}: conflicting duplicate metrics rows for {key}")
        cells[key] = val
        extra[key] = (finite_or_nan(rec["lo"]) if "lo" in rec else math.nan, finite_or_nan(rec["hi"]) if "hi" in rec else
                      math.nan, rec["tag"].replace(NOT_BEST_TAG, "") if isinstance(rec.get("tag"), str) else "")
        if has_fallback and str(rec["derivation"]).endswith("expected"):
            fallback.setdefault(key[:4], []).append(finite_or_nan(rec["expected_fallback_rate"]))
    expected_judges = {(k[0], k[1], k[2]) for k in cells if k[3].endswith("expected")}
    # the columns follow the settings of the whole table (EntityAuth stacks one part per domain)
    settings = set(metrics.loc[~metrics["model"].astype(str).map(is_baseline), "setting"].astype(str))

    rows = []
    for model, context in model_context_rows(sub, baselines=False):
        for judge in _EXPECTED_JUDGES:
            if (model, context, judge.name) in expected_judges:
                name = judge.full_name
                rows += [(model, context, judge.name, False, name),
                         (model, context, judge.name, True, f"{name} {EXPECTED_MARK}")]

    def deriv(row, setting: str) -> str:
        base = "direct" if setting == "pairs" else JUDGES[row[2]].derivation
        return expected_derivation(base) if row[3] else base

    def key(row, setting, difficulty, metric) -> tuple:
        return row[0], row[1], row[2], deriv(row, setting), setting, difficulty, metric

    def cell(row, setting, difficulty, metric, which=0) -> float:
        hit = cells.get(key(row, setting, difficulty, metric))
        if hit is None or math.isnan(hit[which]):
            return math.nan
        return float(hit[1]) if which else round2(hit[0], 100)

    def value(setting, difficulty, metric) -> Column:
        """A value column with its interval and ° tag."""
        def bounds(r):
            lo, hi, _ = extra.get(key(r, setting, difficulty, metric), (math.nan, math.nan, ""))
            return round2(lo, 100), round2(hi, 100)

        def tag(r):
            got = extra.get(key(r, setting, difficulty, metric))
            return got[2] if got and not math.isnan(cell(r, setting, difficulty, metric)) else ""

        label = (setting, {"rho": RHO, "tau": TAU}[metric]) if metric != "acc" else ("pairs", f"{difficulty} acc")
        return Column(label, PCT, lambda r: cell(r, setting, difficulty, metric),
                      interval=bounds if "lo" in metrics.columns else None, tag=tag)

    cols: list[Column] = []
    for setting, label in _LIST_SETTINGS:
        if setting in settings:
            cols += [value(setting, "all", "rho"), value(setting, "all", "tau"),
                     Column((label, "constant lists"), COUNT, lambda r, s=setting: cell(r, s, "all", "rho", 1))]
    if "pairs" in settings:
        for diff in DIFFICULTY_ORDER:
            cols.append(value("pairs", diff, "acc"))

    def fallback_pct(row) -> float:
        got = [v for key, vals in fallback.items() if key[:3] == tuple(row[:3]) and row[3]
               for v in vals if not math.isnan(v)]
        return round2(sum(got) / len(got), 100) if got else math.nan

    cols.append(Column(("", "fallback%"), PCT, fallback_pct))
    caption = (f"Expected-score judging on {benchmark}: each score judge's argmax scores and its E[s] = Σ p(s)·s "
               "over the score tokens, as Spearman's ρ (%), Kendall's τ (%), constant lists and pairwise accuracy "
               "(%). fallback%: score slots whose E[s] is the argmax for want of a distribution.")
    return build_table(rows, [(m, context_label(c), name) for m, c, _, _, name in rows], ["Model", "Ctx", "Judge"],
                       cols, [False] * len(rows), caption=caption, tex_labels=TEX_LABELS)
