"""AuthorityBench's result tables (Tables 1, 2, 3, 8, 9, 10; stacked per
entity domain with :func:`authbench.render.tables.stack_tables` for
EntityAuth's Tables 4, 6, 11, 12), built with
:func:`authbench.render.tables.build_table` and written with
:func:`authbench.render.table_writers.write_table`.

Every ``table_*`` function turns a long data frame into a
:class:`~authbench.render.tables.TableSpec`: the display cells, the numeric
frame behind them (already in display units, i.e. correlations and
accuracies multiplied by 100 and rounded to two decimals), the best /
second-best marks and a few rendering hints. The E[s] table is
:mod:`authbench.studies.authority.expected_table`'s; each judge's headers
(family, variant, Table 3's column, Tables 9-12's derivation columns) are
its class's (:mod:`authbench.studies.authority.judges`).

Input 1 (Tables 1, 2, 3, 9, 10) is the long metrics table with one row per
number; columns :data:`~authbench.studies.authority.rows.METRIC_COLUMNS`
(``benchmark, model, context, setting, judge, derivation, difficulty, metric,
value, n, n_constant, parse_failure_rate``).

Input 2 (Table 8) holds the PointJudge point predictions; columns
:data:`~authbench.studies.authority.rows.PRED_COLUMNS` (``model, context,
domain, level, pred, category``).

Judge validity: a value of a cell that the judge-validity rule flags
(:mod:`authbench.studies.authority.diagnostics`: it answers by presentation
position, copies the prompt's example or barely varies its scores) carries ``†``; every table takes the
rule as ``rule`` (None: the defaults of config ``judge_validity``).

Highlighting follows the paper: per row, separately inside each highlight
group (the ρ columns, the τ columns, Table 3's accuracy columns of one
context ...), the highest
displayed value is **bold** and the second-highest distinct displayed value is
underlined.  Ties share the mark, NaN is never marked, parse-failure and count
columns never take part, and non-LLM baseline rows are never marked.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import pandas as pd
from authbench.render.formatting import COUNT, FAIL, NUM, PCT, SIGNED, TEXT, format_entry, round2
from authbench.render.intervals import shown_interval
from authbench.render.tables import Column, TableSpec, baselines_last, build_table, is_baseline
from authbench.stats import IntervalSpec, finite_or_nan, mean_interval
from authbench.studies.authority.bradley_terry import DERIVATION as BT_DERIVATION
from authbench.studies.authority.diagnostics import DAGGER, DERIVATION, ValidityRule, flagged_cells
from authbench.studies.authority.judges import DERIVATION_COLUMNS, DERIVATION_JUDGES, JUDGES, PAIRS_TABLE_ORDER
from authbench.studies.authority.rows import METRIC_COLUMNS, PRED_COLUMNS

__all__ = [
    "CONTEXT_LABELS",
    "CONTEXT_ORDER",
    "TEX_LABELS",
    "context_label",
    "table_categories",
    "table_derivations",
    "table_main",
    "table_pairs",
]

CONTEXT_ORDER = ("wo_text", "w_text")
CONTEXT_LABELS = {"wo_text": "w/o", "w_text": "w/"}
DIFFICULTY_ORDER = ("easy", "hard")

RHO = "ρ"
TAU = "τ"

# Default category labels: column header (as Table 8) and name in the note.
CATEGORY_HEADERS = {"gov": ".gov", "edu": ".edu", "social": "Social"}
CATEGORY_NAMES = {"gov": "Gov", "edu": "Edu", "social": "Social"}

# Headers that get nicer LaTeX than plain escaping (TableSpec.tex_labels).
TEX_LABELS = {
    "PointScore_Bbl": r"PointScore$_{\mathrm{Bbl}}$",
    "PointScore_Pt": r"PointScore$_{\mathrm{Pt}}$",
    RHO: r"$\rho$",
    TAU: r"$\tau$",
}


def context_label(context: str) -> str:
    """``wo_text`` -> ``w/o``, ``w_text`` -> ``w/`` (others unchanged)."""
    return CONTEXT_LABELS.get(context, str(context))


# --------------------------------------------------------------------------
# metrics lookup
# --------------------------------------------------------------------------
def check_columns(df: pd.DataFrame, required: Iterable[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing}; expected {list(required)}")


def _select(metrics: pd.DataFrame, what: str, **filters) -> pd.DataFrame:
    check_columns(metrics, METRIC_COLUMNS, what)
    if metrics.empty:
        raise ValueError(
            f"{what}: the metrics table is empty; expected rows with columns "
            f"{list(METRIC_COLUMNS)} for " + ", ".join(f"{k}={v!r}" for k, v in filters.items())
        )
    mask = pd.Series(True, index=metrics.index)
    for col, val in filters.items():
        mask &= metrics[col].astype(str) == str(val)
    sub = metrics.loc[mask]
    if sub.empty:
        avail = (
            metrics[list(filters)].astype(str).drop_duplicates().to_dict("records")
        )
        raise ValueError(
            f"{what}: no metrics rows for "
            + ", ".join(f"{k}={v!r}" for k, v in filters.items())
            + f"; available combinations: {avail}"
        )
    return sub


class _Lookup:
    """Index of metrics rows keyed by (model, context, judge, derivation,
    difficulty, metric); with the rows' intervals (columns ``lo``, ``hi``)
    and paired-comparison tags (column ``tag``) where the metrics have them."""

    KEY = ("model", "context", "judge", "derivation", "difficulty", "metric")

    def __init__(self, sub: pd.DataFrame):
        self._rows: dict[tuple, tuple[float, float, float]] = {}
        self._extra: dict[tuple, tuple[float, float, str]] = {}
        self.has_intervals = "lo" in sub.columns  # a metrics file written without intervals has none
        for rec in sub.to_dict("records"):
            key = tuple(str(rec[k]) for k in self.KEY)
            val = (
                finite_or_nan(rec["value"]),
                finite_or_nan(rec["parse_failure_rate"]),
                finite_or_nan(rec["n_constant"]),
            )
            old = self._rows.get(key)
            if old is not None and not same_row(old, val):
                raise ValueError(f"conflicting duplicate metrics rows for {dict(zip(self.KEY, key))}")
            self._rows[key] = val
            self._extra[key] = (finite_or_nan(rec["lo"]) if "lo" in rec else math.nan,
                                finite_or_nan(rec["hi"]) if "hi" in rec else math.nan,
                                rec["tag"] if isinstance(rec.get("tag"), str) else "")

    def get(self, model, context, judge, derivation, difficulty, metric):
        return self._rows.get((model, context, judge, derivation, difficulty, metric))

    def value(self, *key) -> float:
        hit = self.get(*key)
        return math.nan if hit is None else round2(hit[0], 100)

    def interval(self, *key) -> tuple[float, float]:
        """The row's interval in display units (NaN: none, or too few units)."""
        lo, hi, _ = self._extra.get(key, (math.nan, math.nan, ""))
        return shown_interval(lo, hi, 100)

    def tag(self, *key) -> str:
        """The row's paired-comparison marks (° ≈; shown after a value only)."""
        return "" if math.isnan(self.value(*key)) else self._extra.get(key, (0, 0, ""))[2]

    def fail(self, model, context, judge, derivation, difficulty, metrics) -> float:
        for m in metrics:
            hit = self.get(model, context, judge, derivation, difficulty, m)
            if hit is not None and not math.isnan(hit[1]):
                return round2(hit[1], 100)
        return math.nan

    def constant(self, model, context, judge, derivation, difficulty, metrics) -> float:
        for m in metrics:
            hit = self.get(model, context, judge, derivation, difficulty, m)
            if hit is not None and not math.isnan(hit[2]):
                return float(hit[2])
        return math.nan


def same_row(a: tuple, b: tuple) -> bool:
    return all((math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(a, b))


def _ordered(values: Iterable[str], order: Sequence[str]) -> list[str]:
    """Known values in ``order`` first, unknown ones after in appearance order."""
    seen = list(dict.fromkeys(str(v) for v in values))
    return [v for v in order if v in seen] + [v for v in seen if v not in order]


def _flagged(sub: pd.DataFrame, rule: ValidityRule | None) -> set[tuple[str, str, str]]:
    """(model, context, judge) of the cells the judge-validity rule flags."""
    return {(model, context, judge) for _, model, context, _, judge in flagged_cells(sub, rule)}


def _judge_value(label: tuple, group: str, flags: set, judge: str, look: _Lookup, key, context=None) -> Column:
    """A judge's value column: the metric row ``key(row)`` of ``look`` (display
    units) with its interval and comparison tags; ``†`` on the values of a
    flagged cell (``context``: fixed, or the row's second key)."""

    def get(r):
        v = look.value(*key(r))
        flagged = (r[0], r[1] if context is None else context, judge) in flags
        return v, format_entry(v, PCT) + (DAGGER if flagged and not math.isnan(v) else "")

    return Column(label, TEXT, get, group=group, interval=(lambda r: look.interval(*key(r))) if look.has_intervals
                  else None, tag=lambda r: look.tag(*key(r)))


def model_context_rows(sub: pd.DataFrame, *, baselines: bool = True) -> list[tuple[str, str]]:
    """(model, context) rows: LLMs on the full context grid, baselines only on
    the contexts they have."""
    llm_ctx = _ordered(sub.loc[~sub["model"].astype(str).map(is_baseline), "context"], CONTEXT_ORDER)
    rows = []
    for model in baselines_last(sub["model"]):
        if is_baseline(model):
            if not baselines:
                continue
            ctxs = _ordered(sub.loc[sub["model"].astype(str) == model, "context"], CONTEXT_ORDER)
        else:
            ctxs = llm_ctx
        rows.extend((model, c) for c in ctxs)
    return rows


# --------------------------------------------------------------------------
# Tables 1 and 2
# --------------------------------------------------------------------------
# (judge, derivation, header level 0, header level 1, constant-lists label), from the registry
_MAIN_JUDGES = tuple((j.name, j.derivation, j.family, j.variant, j.short) for j in JUDGES.values())
_SETTING_TEXT = {"fine": "fine-grained, 10-level", "coarse": "coarse-grained, 5-level"}


def _model_context_table(rows: list[tuple[str, str]], cols: list[Column], caption: str, note: str = "") -> TableSpec:
    """A table with one row per (model, context), baselines never marked."""
    return build_table(rows, [(m, context_label(c)) for m, c in rows], ["Model", "Ctx"], cols,
                       [is_baseline(m) for m, _ in rows], note=note, caption=caption, tex_labels=TEX_LABELS)


def table_main(metrics: pd.DataFrame, benchmark: str, setting: str, rule: ValidityRule | None = None) -> TableSpec:
    """Tables 1 (``setting="fine"``) and 2 (``setting="coarse"``).

    Rows model x context; per judge ρ, τ and the parse-failure rate (%), then a
    trailing group with the number of constant-prediction lists per judge.
    ``†`` on the ρ and τ of a cell flagged by ``rule`` (judge validity).
    """
    what = f"table_main({benchmark!r}, {setting!r})"
    sub = _select(metrics, what, benchmark=benchmark, setting=setting)
    look = _Lookup(sub)
    rows = model_context_rows(sub)
    flags = _flagged(sub, rule)

    cols: list[Column] = []
    for judge, deriv, l0, l1, _ in _MAIN_JUDGES:
        for metric, sym in (("rho", RHO), ("tau", TAU)):
            cols.append(
                _judge_value(
                    (l0, l1, sym),
                    metric,
                    flags,
                    judge,
                    look,
                    lambda r, j=judge, d=deriv, m=metric: (r[0], r[1], j, d, "all", m),
                )
            )
        cols.append(
            Column(
                (l0, l1, FAIL),
                PCT,
                lambda r, j=judge, d=deriv: look.fail(r[0], r[1], j, d, "all", ("rho", "tau")),
            )
        )
    for judge, deriv, _, _, short in _MAIN_JUDGES:
        cols.append(
            Column(
                ("constant lists", "", short),
                COUNT,
                lambda r, j=judge, d=deriv: look.constant(r[0], r[1], j, d, "all", ("rho", "tau")),
            )
        )
    caption = (
        f"Results on {benchmark} ({_SETTING_TEXT.get(setting, setting)}) reported as "
        "Spearman's ρ (%) and Kendall's τ (%). Bold: best; underline: second best, per row."
    )
    return _model_context_table(rows, cols, caption)


# --------------------------------------------------------------------------
# Table 3
# --------------------------------------------------------------------------
def table_pairs(metrics: pd.DataFrame, benchmark: str, rule: ValidityRule | None = None) -> TableSpec:
    """Table 3: pairwise accuracy (%) on easy vs. hard pairs (``†``: a cell
    flagged by ``rule``, judge validity).

    Rows model x difficulty; columns judge x context (contexts absent from the
    data are not shown), each with accuracy and parse-failure rate. Best and
    second best are marked per row *per context* (the paper's "per LLM per
    difficulty level": the three judges' w/o accuracies compete, and
    separately their w/ accuracies).
    """
    what = f"table_pairs({benchmark!r})"
    sub = _select(metrics, what, benchmark=benchmark, setting="pairs")
    look = _Lookup(sub)
    flags = _flagged(sub, rule)
    contexts = _ordered(sub["context"], CONTEXT_ORDER)
    judged = sub[sub["derivation"].astype(str) != DERIVATION]  # the validity rows span the difficulties
    difficulties = _ordered(judged["difficulty"], DIFFICULTY_ORDER)

    rows = []
    for model in baselines_last(sub["model"]):
        for diff in difficulties:
            if is_baseline(model):
                has = sub[(sub["model"].astype(str) == model) & (sub["difficulty"].astype(str) == diff)]
                if has.empty:
                    continue
            rows.append((model, diff))

    cols: list[Column] = []
    for judge in PAIRS_TABLE_ORDER:
        l0 = JUDGES[judge].pairs_header
        for ctx in contexts:
            l1 = f"{context_label(ctx)} ctx"
            cols.append(
                _judge_value(
                    (l0, l1, "acc"),
                    f"acc:{ctx}",  # the paper marks per row (model x difficulty) per context
                    flags,
                    judge,
                    look,
                    lambda r, j=judge, c=ctx: (r[0], c, j, "direct", r[1], "acc"),
                    context=ctx,
                )
            )
            cols.append(
                Column(
                    (l0, l1, FAIL),
                    PCT,
                    lambda r, j=judge, c=ctx: look.fail(r[0], c, j, "direct", r[1], ("acc",)),
                )
            )
    caption = (
        f"Pairwise accuracy (%) on easy vs. hard pairs on {benchmark}. "
        "Bold: best; underline: second best, per row and context."
    )
    return build_table(
        rows,
        [(m, d.capitalize()) for m, d in rows],
        ["Model", "Difficulty"],
        cols,
        [is_baseline(m) for m, _ in rows],
        caption=caption,
        tex_labels=TEX_LABELS,
    )


# --------------------------------------------------------------------------
# Tables 9 and 10
# --------------------------------------------------------------------------
def table_derivations(metrics: pd.DataFrame, benchmark: str, setting: str,
                      rule: ValidityRule | None = None) -> TableSpec:
    """Tables 9 (``"fine"``) / 10 (``"coarse"``): PairJudge ranking derivations.

    Columns: the derivations of the judges with Tables 9-12 columns
    (:data:`~authbench.studies.authority.judges.DERIVATION_COLUMNS`: PairRank
    = PairRank's BubbleSort, PointScore_Bbl and PointScore_Pt = PairScore's
    BubbleSort and AverageScore; then, when the metrics hold them, the
    Bradley–Terry columns PairRank_BT and PointScore_BT, not ranked), all
    Spearman's ρ (%), plus each such judge's parse-failure rate.  Baselines
    are left out.
    ``†`` on the values of a cell flagged by ``rule`` (judge validity).
    """
    what = f"table_derivations({benchmark!r}, {setting!r})"
    sub = _select(metrics, what, benchmark=benchmark, setting=setting)
    look = _Lookup(sub)
    flags = _flagged(sub, rule)
    rows = model_context_rows(sub, baselines=False)
    if not rows:
        raise ValueError(f"{what}: only baseline rows found; expected LLM judge rows")
    fitted = bool((sub["derivation"].astype(str) == BT_DERIVATION).any())  # metrics from before the derivation: none
    cols: list[Column] = [
        _judge_value(
            (label, RHO),
            None if deriv == BT_DERIVATION else "rho",  # the paper's columns alone are ranked (bold, underline)
            flags,
            judge,
            look,
            lambda r, j=judge, d=deriv: (r[0], r[1], j, d, "all", "rho"),
        )
        for label, judge, deriv in DERIVATION_COLUMNS
        if fitted or deriv != BT_DERIVATION
    ]
    for judge in DERIVATION_JUDGES:  # its parse-failure rate: the main derivation's rows, else another's
        derivations = JUDGES[judge].fail_derivations
        cols.append(
            Column(
                (FAIL, JUDGES[judge].variant),
                PCT,
                lambda r, j=judge, ds=derivations: _first_finite(
                    *(look.fail(r[0], r[1], j, d, "all", ("rho", "tau")) for d in ds)),
            )
        )
    caption = (
        f"PairJudge ranking derivation methods on {benchmark} "
        f"({'fine-grained' if setting == 'fine' else 'coarse-grained' if setting == 'coarse' else setting}). "
        "Spearman's ρ (%). Bold: best; underline: second best, per row, among the paper's columns."
    )
    return build_table(
        rows,
        [(m, context_label(c)) for m, c in rows],
        ["Model", "Ctx"],
        cols,
        [False] * len(rows),
        caption=caption,
        tex_labels=TEX_LABELS,
    )


def _first_finite(*vals: float) -> float:
    for v in vals:
        if not math.isnan(v):
            return v
    return math.nan


# --------------------------------------------------------------------------
# Table 8
# --------------------------------------------------------------------------
def _norm_cat(c) -> str | None:
    if c is None or (isinstance(c, float) and math.isnan(c)) or c is pd.NA:
        return None
    return str(c).strip().lower().lstrip(".")


def table_categories(
    pred: pd.DataFrame,
    categories_order: Sequence[str],
    category_labels: dict[str, str] | None = None,
    intervals: IntervalSpec | None = None,
) -> TableSpec:
    """Table 8: mean predicted score and bias per domain category.

    Rows model x context; per category ``Pred`` (mean prediction), ``Bias``
    (mean of prediction − true level), each with its bootstrap interval over
    the scored items (``intervals``; None: no intervals), and ``N`` (scored items), then
    ``unscored`` (items in the listed categories whose reply gave no score).
    The note gives the true mean level and N per category over the unique
    domains, e.g. ``True means: Gov 5.68 (N=378); ...``.  No highlighting.
    """
    what = "table_categories"
    check_columns(pred, PRED_COLUMNS, what)
    if pred.empty:
        raise ValueError(f"{what}: the prediction table is empty; expected rows with columns {list(PRED_COLUMNS)}")
    if not categories_order:
        raise ValueError(f"{what}: categories_order is empty; expected e.g. ['gov', 'edu', 'social']")
    labels = dict(category_labels or {})
    cats = [_norm_cat(c) for c in categories_order]

    df = pd.DataFrame(
        {
            "model": pred["model"].astype(str).to_numpy(),
            "context": pred["context"].astype(str).to_numpy(),
            "domain": pred["domain"].astype(str).to_numpy(),
            "level": pd.to_numeric(pred["level"], errors="coerce").to_numpy(dtype=float),
            "pred": pd.to_numeric(pred["pred"], errors="coerce").to_numpy(dtype=float),
            "cat": [_norm_cat(c) for c in pred["category"]],
        }
    )
    df = df[df["cat"].isin(cats)]
    groups = {k: g for k, g in df.groupby(["model", "context", "cat"], sort=False)}

    rows = model_context_rows(pred.assign(model=pred["model"].astype(str), context=pred["context"].astype(str)))

    def _stat(r, cat, which):
        g = groups.get((r[0], r[1], cat))
        if g is None:
            return 0.0 if which == "n" else math.nan
        scored = g[g["pred"].notna()]
        if which == "n":
            return float(len(scored))
        if scored.empty:
            return math.nan
        if which == "pred":
            return round2(scored["pred"].mean())
        return round2((scored["pred"] - scored["level"]).mean())

    def _interval(r, cat, which):
        g = groups.get((r[0], r[1], cat))
        if g is None:
            return math.nan, math.nan
        scored = g[g["pred"].notna()]
        x = scored["pred"] if which == "pred" else scored["pred"] - scored["level"]
        lo, hi = mean_interval(x.to_numpy(dtype=float), intervals, ("table8", r[0], r[1], cat, which))
        return round2(lo), round2(hi)

    def _unscored(r):
        g = df[(df["model"] == r[0]) & (df["context"] == r[1])]
        return float(g["pred"].isna().sum())

    cols: list[Column] = []
    for raw, cat in zip(categories_order, cats):
        head = labels.get(raw, CATEGORY_HEADERS.get(cat, str(raw)))
        cols.append(Column((head, "Pred"), NUM, lambda r, c=cat: _stat(r, c, "pred"),
                           interval=(lambda r, c=cat: _interval(r, c, "pred")) if intervals else None))
        cols.append(Column((head, "Bias"), SIGNED, lambda r, c=cat: _stat(r, c, "bias"),
                           interval=(lambda r, c=cat: _interval(r, c, "bias")) if intervals else None))
        cols.append(Column((head, "N"), COUNT, lambda r, c=cat: _stat(r, c, "n")))
    cols.append(Column(("", "unscored"), COUNT, _unscored))

    domains = df.drop_duplicates("domain")
    parts = []
    for raw, cat in zip(categories_order, cats):
        name = labels.get(raw, CATEGORY_NAMES.get(cat, str(raw).capitalize()))
        d = domains[domains["cat"] == cat]
        mean = format_entry(round2(d["level"].mean()) if len(d) else math.nan, NUM)
        parts.append(f"{name} {mean} (N={len(d)})")
    note = "True means: " + "; ".join(parts) + "."
    caption = (
        "Mean predicted score and scoring bias across domain categories. "
        "Bias = avg. (predicted − true PageRank)."
    )
    return _model_context_table(rows, cols, caption, note)
