"""Result tables of the AuthorityBench paper (Tables 1, 2, 3, 8, 9, 10).

Every ``table_*`` function turns a long data frame into a :class:`TableSpec`:
the display cells, the numeric frame behind them (already in display units,
i.e. correlations and accuracies multiplied by 100 and rounded to two
decimals), the best / second-best marks and a few rendering hints.
:func:`write_table` renders one spec as ``.csv``, ``.md`` and ``.tex``.

Input 1 (Tables 1, 2, 3, 9, 10) is the long metrics table with one row per
number; columns ``benchmark, model, context, setting, judge, derivation,
difficulty, metric, value, n, n_constant, parse_failure_rate``.

Input 2 (Table 8) holds the PointJudge point predictions; columns
``model, context, domain, level, pred, category``.

Highlighting follows the paper: per row, separately inside each highlight
group (the ρ columns, the τ columns, the accuracy columns ...), the highest
displayed value is **bold** and the second-highest distinct displayed value is
underlined.  Ties share the mark, NaN is never marked, parse-failure and count
columns never take part, and non-LLM baseline rows are never marked.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from .ranking import is_missing

__all__ = [
    "METRIC_COLUMNS",
    "PRED_COLUMNS",
    "TableSpec",
    "context_label",
    "format_cell",
    "is_baseline",
    "latex_escape",
    "table_categories",
    "table_derivations",
    "table_main",
    "table_pairs",
    "stack_tables",
    "write_table",
]

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
PRED_COLUMNS = ("model", "context", "domain", "level", "pred", "category")

CONTEXT_ORDER = ("wo_text", "w_text")
CONTEXT_LABELS = {"wo_text": "w/o", "w_text": "w/"}
DIFFICULTY_ORDER = ("easy", "hard")
BASELINE_PREFIX = "baseline:"

MISSING = "–"  # en dash, as in the paper
FAIL = "fail%"
RHO = "ρ"
TAU = "τ"

# Default category labels: column header (as Table 8) and name in the note.
CATEGORY_HEADERS = {"gov": ".gov", "edu": ".edu", "social": "Social"}
CATEGORY_NAMES = {"gov": "Gov", "edu": "Edu", "social": "Social"}

# Cell kinds: how a value is formatted.
PCT = "pct"  # already x100, two decimals
NUM = "num"  # two decimals
SIGNED = "signed"  # two decimals with explicit sign
COUNT = "count"  # integer
TEXT = "text"  # the spec's ``cells`` text as is (mean±std, a † mark): see text_cell

# Labels that get nicer LaTeX than plain escaping.
_TEX_LABELS = {
    "PointScore_Bbl": r"PointScore$_{\mathrm{Bbl}}$",
    "PointScore_Pt": r"PointScore$_{\mathrm{Pt}}$",
    RHO: r"$\rho$",
    TAU: r"$\tau$",
}


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------
def is_baseline(model: str) -> bool:
    """True for the non-LLM baseline rows (model ``baseline:...``)."""
    return str(model).startswith(BASELINE_PREFIX)


def context_label(context: str) -> str:
    """``wo_text`` -> ``w/o``, ``w_text`` -> ``w/`` (others unchanged)."""
    return CONTEXT_LABELS.get(context, str(context))


def _round2(x, scale: int = 1) -> float:
    """Round ``x * scale`` half-up to two decimals, on the decimal repr.

    Working on ``repr(x)`` avoids binary artefacts: 0.71345 -> 71.35, not
    71.34.  Non-finite values and ``None`` become NaN.
    """
    if x is None:
        return math.nan
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return math.nan
    if not math.isfinite(xf):
        return math.nan
    d = Decimal(repr(xf)) * scale
    return float(d.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def text_cell(text: str, style: str = "md") -> str:
    """A :data:`TEXT` cell (already formatted, e.g. ``4.50±0.58``, ``+3.00†``,
    ``–0.22``) in ``style``: md as is; csv with missing empty, ASCII minus and
    no plus sign; tex escaped, with signs before a digit in math mode."""
    text = str(text)
    if style == "md":
        return text
    if text == MISSING:
        return "" if style == "csv" else "--"
    if style == "csv":
        return re.sub(r"(^|[\s/])\+(?=\d)", r"\1", re.sub(r"–(?=\d)", "-", text))
    signed = re.sub(r"–(?=\d)", "−", text)  # latex_escape: − -> $-$
    return "$+$".join(latex_escape(part) for part in re.split(r"\+(?=\d)", signed))


def format_cell(value: float, kind: str, style: str = "md") -> str:
    """Format one value (already in display units).

    ``style`` is ``"md"`` (plain text: missing as –, negative sign as –),
    ``"tex"`` (missing as ``--``, signs in math mode) or ``"csv"`` (no markup,
    missing as an empty string, ASCII minus, no plus sign).
    """
    if is_missing(value):
        return {"md": MISSING, "tex": "--", "csv": ""}[style]
    if kind == COUNT:
        return str(int(round(value)))
    if kind in (PCT, NUM):
        return f"{value:.2f}"
    if kind == SIGNED:
        mag = f"{abs(value):.2f}"
        if style == "csv":
            return f"{value:.2f}" if value != 0 else mag
        if value > 0:
            return f"$+${mag}" if style == "tex" else f"+{mag}"
        if value < 0:
            return f"$-${mag}" if style == "tex" else f"{MISSING}{mag}"
        return mag
    raise ValueError(f"unknown cell kind {kind!r}")


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "ρ": r"$\rho$",
    "τ": r"$\tau$",
    "–": "--",
    "−": "$-$",
    "±": r"$\pm$",
    "†": r"$^{\dagger}$",
    "<": "$<$",
    ">": "$>$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters (``_ % & $ # { } ~ ^ \\``) in a label."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in str(text))


def _tex_label(text: str) -> str:
    return _TEX_LABELS.get(text, latex_escape(text))


def _md_escape(text: str) -> str:
    return str(text).replace("|", r"\|")


# --------------------------------------------------------------------------
# the table spec
# --------------------------------------------------------------------------
@dataclass
class TableSpec:
    """A rendered-agnostic table.

    ``values``  numeric frame in display units (NaN = missing);
    ``cells``   the same shape as text (``–`` for missing, no markup);
    ``marks``   ``"best"`` / ``"second"`` / ``""`` per cell;
    ``kinds``   one cell kind per column (``pct``, ``num``, ``signed``, ``count``);
    ``highlight_groups`` group name -> column labels compared per row;
    ``baseline_rows`` row labels that are never highlighted;
    ``note``    extra caption text (Table 8's true means);
    ``caption`` a default caption in the paper's words.
    """

    values: pd.DataFrame
    cells: pd.DataFrame
    marks: pd.DataFrame
    kinds: tuple[str, ...]
    highlight_groups: dict[str, list[tuple]] = field(default_factory=dict)
    baseline_rows: list[tuple] = field(default_factory=list)
    note: str = ""
    caption: str = ""


@dataclass
class _Col:
    label: tuple[str, ...]
    kind: str
    group: str | None
    get: Callable[[tuple], float]


def _compute_marks(
    values: pd.DataFrame, groups: dict[str, list[int]], skip: Sequence[bool]
) -> pd.DataFrame:
    marks = np.full(values.shape, "", dtype=object)
    arr = values.to_numpy(dtype=float)
    for i in range(arr.shape[0]):
        if skip[i]:
            continue
        for positions in groups.values():
            vals = [arr[i, j] for j in positions if not math.isnan(arr[i, j])]
            distinct = sorted(set(vals), reverse=True)
            if not distinct:
                continue
            best = distinct[0]
            second = distinct[1] if len(distinct) > 1 else None
            for j in positions:
                v = arr[i, j]
                if math.isnan(v):
                    continue
                if v == best:
                    marks[i, j] = "best"
                elif second is not None and v == second:
                    marks[i, j] = "second"
    return pd.DataFrame(marks, index=values.index, columns=values.columns)


def _build(
    rows: list[tuple],
    row_labels: list[tuple],
    row_names: list[str],
    cols: list[_Col],
    baseline: list[bool],
    note: str = "",
    caption: str = "",
) -> TableSpec:
    index = pd.MultiIndex.from_tuples(row_labels, names=row_names)
    columns = pd.MultiIndex.from_tuples([c.label for c in cols])
    data = [[c.get(r) for c in cols] for r in rows]
    values = pd.DataFrame(data, index=index, columns=columns, dtype=float)
    kinds = tuple(c.kind for c in cols)
    cells = pd.DataFrame(
        [[format_cell(v, k, "md") for v, k in zip(row, kinds)] for row in data],
        index=index,
        columns=columns,
        dtype=object,
    )
    groups: dict[str, list[int]] = {}
    for j, c in enumerate(cols):
        if c.group is not None:
            groups.setdefault(c.group, []).append(j)
    marks = _compute_marks(values, groups, baseline)
    return TableSpec(
        values=values,
        cells=cells,
        marks=marks,
        kinds=kinds,
        highlight_groups={g: [cols[j].label for j in pos] for g, pos in groups.items()},
        baseline_rows=[lab for lab, b in zip(row_labels, baseline) if b],
        note=note,
        caption=caption,
    )


# --------------------------------------------------------------------------
# metrics lookup
# --------------------------------------------------------------------------
def _check_columns(df: pd.DataFrame, required: Iterable[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing}; expected {list(required)}")


def _select(metrics: pd.DataFrame, what: str, **filters) -> pd.DataFrame:
    _check_columns(metrics, METRIC_COLUMNS, what)
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
    difficulty, metric)."""

    KEY = ("model", "context", "judge", "derivation", "difficulty", "metric")

    def __init__(self, sub: pd.DataFrame):
        self._rows: dict[tuple, tuple[float, float, float]] = {}
        for rec in sub.to_dict("records"):
            key = tuple(str(rec[k]) for k in self.KEY)
            val = (
                _to_float(rec["value"]),
                _to_float(rec["parse_failure_rate"]),
                _to_float(rec["n_constant"]),
            )
            old = self._rows.get(key)
            if old is not None and not _same(old, val):
                raise ValueError(f"conflicting duplicate metrics rows for {dict(zip(self.KEY, key))}")
            self._rows[key] = val

    def get(self, model, context, judge, derivation, difficulty, metric):
        return self._rows.get((model, context, judge, derivation, difficulty, metric))

    def value(self, *key) -> float:
        hit = self.get(*key)
        return math.nan if hit is None else _round2(hit[0], 100)

    def fail(self, model, context, judge, derivation, difficulty, metrics) -> float:
        for m in metrics:
            hit = self.get(model, context, judge, derivation, difficulty, m)
            if hit is not None and not math.isnan(hit[1]):
                return _round2(hit[1], 100)
        return math.nan

    def constant(self, model, context, judge, derivation, difficulty, metrics) -> float:
        for m in metrics:
            hit = self.get(model, context, judge, derivation, difficulty, m)
            if hit is not None and not math.isnan(hit[2]):
                return float(hit[2])
        return math.nan


def _to_float(x) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v if math.isfinite(v) else math.nan


def _same(a: tuple, b: tuple) -> bool:
    return all((math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(a, b))


def _ordered(values: Iterable[str], order: Sequence[str]) -> list[str]:
    """Known values in ``order`` first, unknown ones after in appearance order."""
    seen = list(dict.fromkeys(str(v) for v in values))
    return [v for v in order if v in seen] + [v for v in seen if v not in order]


def _model_order(models: Iterable[str]) -> list[str]:
    seen = list(dict.fromkeys(str(m) for m in models))
    return [m for m in seen if not is_baseline(m)] + [m for m in seen if is_baseline(m)]


def _model_context_rows(sub: pd.DataFrame, *, baselines: bool = True) -> list[tuple[str, str]]:
    """(model, context) rows: LLMs on the full context grid, baselines only on
    the contexts they have."""
    llm_ctx = _ordered(sub.loc[~sub["model"].astype(str).map(is_baseline), "context"], CONTEXT_ORDER)
    rows = []
    for model in _model_order(sub["model"]):
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
# (judge, derivation, header level 0, header level 1, constant-lists label)
_MAIN_JUDGES = (
    ("point", "direct", "PointJudge", "", "Point"),
    ("list_rank", "direct", "ListJudge", "ListRank", "ListRank"),
    ("list_score", "direct", "ListJudge", "PointScore", "ListScore"),
    ("pair_rank", "bubble", "PairJudge", "PairRank", "PairRank"),
    ("pair_score", "average", "PairJudge", "PointScore", "PairScore"),
)
_SETTING_TEXT = {"fine": "fine-grained, 10-level", "coarse": "coarse-grained, 5-level"}


def table_main(metrics: pd.DataFrame, benchmark: str, setting: str) -> TableSpec:
    """Tables 1 (``setting="fine"``) and 2 (``setting="coarse"``).

    Rows model x context; per judge ρ, τ and the parse-failure rate (%), then a
    trailing group with the number of constant-prediction lists per judge.
    """
    what = f"table_main({benchmark!r}, {setting!r})"
    sub = _select(metrics, what, benchmark=benchmark, setting=setting)
    look = _Lookup(sub)
    rows = _model_context_rows(sub)

    cols: list[_Col] = []
    for judge, deriv, l0, l1, _ in _MAIN_JUDGES:
        for metric, sym in (("rho", RHO), ("tau", TAU)):
            cols.append(
                _Col(
                    (l0, l1, sym),
                    PCT,
                    metric,
                    lambda r, j=judge, d=deriv, m=metric: look.value(r[0], r[1], j, d, "all", m),
                )
            )
        cols.append(
            _Col(
                (l0, l1, FAIL),
                PCT,
                None,
                lambda r, j=judge, d=deriv: look.fail(r[0], r[1], j, d, "all", ("rho", "tau")),
            )
        )
    for judge, deriv, _, _, short in _MAIN_JUDGES:
        cols.append(
            _Col(
                ("constant lists", "", short),
                COUNT,
                None,
                lambda r, j=judge, d=deriv: look.constant(r[0], r[1], j, d, "all", ("rho", "tau")),
            )
        )
    caption = (
        f"Results on {benchmark} ({_SETTING_TEXT.get(setting, setting)}) reported as "
        "Spearman's ρ (%) and Kendall's τ (%). Bold: best; underline: second best, per row."
    )
    return _build(
        rows,
        [(m, context_label(c)) for m, c in rows],
        ["Model", "Ctx"],
        cols,
        [is_baseline(m) for m, _ in rows],
        caption=caption,
    )


# --------------------------------------------------------------------------
# Table 3
# --------------------------------------------------------------------------
_PAIR_JUDGES = (
    ("pair_rank", "PairJudge(PR)"),
    ("pair_score", "PairJudge(S)"),
    ("point", "PointJudge"),
)


def table_pairs(metrics: pd.DataFrame, benchmark: str) -> TableSpec:
    """Table 3: pairwise accuracy (%) on easy vs. hard pairs.

    Rows model x difficulty; columns judge x context (contexts absent from the
    data are not shown), each with accuracy and parse-failure rate.
    """
    what = f"table_pairs({benchmark!r})"
    sub = _select(metrics, what, benchmark=benchmark, setting="pairs")
    look = _Lookup(sub)
    contexts = _ordered(sub["context"], CONTEXT_ORDER)
    difficulties = _ordered(sub["difficulty"], DIFFICULTY_ORDER)

    rows = []
    for model in _model_order(sub["model"]):
        for diff in difficulties:
            if is_baseline(model):
                has = sub[(sub["model"].astype(str) == model) & (sub["difficulty"].astype(str) == diff)]
                if has.empty:
                    continue
            rows.append((model, diff))

    cols: list[_Col] = []
    for judge, l0 in _PAIR_JUDGES:
        for ctx in contexts:
            l1 = f"{context_label(ctx)} ctx"
            cols.append(
                _Col(
                    (l0, l1, "acc"),
                    PCT,
                    "acc",
                    lambda r, j=judge, c=ctx: look.value(r[0], c, j, "direct", r[1], "acc"),
                )
            )
            cols.append(
                _Col(
                    (l0, l1, FAIL),
                    PCT,
                    None,
                    lambda r, j=judge, c=ctx: look.fail(r[0], c, j, "direct", r[1], ("acc",)),
                )
            )
    caption = (
        f"Pairwise accuracy (%) on easy vs. hard pairs on {benchmark}. "
        "Bold: best; underline: second best, per row."
    )
    return _build(
        rows,
        [(m, d.capitalize()) for m, d in rows],
        ["Model", "Difficulty"],
        cols,
        [is_baseline(m) for m, _ in rows],
        caption=caption,
    )


# --------------------------------------------------------------------------
# Tables 9 and 10
# --------------------------------------------------------------------------
def table_derivations(metrics: pd.DataFrame, benchmark: str, setting: str) -> TableSpec:
    """Tables 9 (``"fine"``) / 10 (``"coarse"``): PairJudge ranking derivations.

    Columns PairRank (pair_rank/bubble), PointScore_Bbl (pair_score/bubble),
    PointScore_Pt (pair_score/average), all Spearman's ρ (%), plus the
    parse-failure rates of pair_rank and pair_score.  Baselines are left out.
    """
    what = f"table_derivations({benchmark!r}, {setting!r})"
    sub = _select(metrics, what, benchmark=benchmark, setting=setting)
    look = _Lookup(sub)
    rows = _model_context_rows(sub, baselines=False)
    if not rows:
        raise ValueError(f"{what}: only baseline rows found; expected LLM judge rows")
    spec = (
        ("PairRank", "pair_rank", "bubble"),
        ("PointScore_Bbl", "pair_score", "bubble"),
        ("PointScore_Pt", "pair_score", "average"),
    )
    cols: list[_Col] = [
        _Col(
            (label, RHO),
            PCT,
            "rho",
            lambda r, j=judge, d=deriv: look.value(r[0], r[1], j, d, "all", "rho"),
        )
        for label, judge, deriv in spec
    ]
    cols.append(
        _Col(
            (FAIL, "PairRank"),
            PCT,
            None,
            lambda r: look.fail(r[0], r[1], "pair_rank", "bubble", "all", ("rho", "tau")),
        )
    )
    cols.append(
        _Col(
            (FAIL, "PointScore"),
            PCT,
            None,
            lambda r: _first_finite(
                look.fail(r[0], r[1], "pair_score", "average", "all", ("rho", "tau")),
                look.fail(r[0], r[1], "pair_score", "bubble", "all", ("rho", "tau")),
            ),
        )
    )
    caption = (
        f"PairJudge ranking derivation methods on {benchmark} "
        f"({'fine-grained' if setting == 'fine' else 'coarse-grained' if setting == 'coarse' else setting}). "
        "Spearman's ρ (%). Bold: best; underline: second best, per row."
    )
    return _build(
        rows,
        [(m, context_label(c)) for m, c in rows],
        ["Model", "Ctx"],
        cols,
        [False] * len(rows),
        caption=caption,
    )


# --------------------------------------------------------------------------
# EntityAuth: one block of rows per entity domain (Tables 4, 6, 11, 12)
# --------------------------------------------------------------------------
def stack_tables(parts: Sequence[tuple[str, TableSpec]], level_name: str, caption: str = "") -> TableSpec:
    """Stack tables with identical columns under an extra first row level
    (EntityAuth's ``Domain``). Marks stay per row, as computed per part."""
    if not parts:
        raise ValueError("stack_tables: no tables given")
    columns = parts[0][1].values.columns
    for label, spec in parts:
        if not spec.values.columns.equals(columns):
            raise ValueError(f"stack_tables: the columns of {label!r} differ from those of {parts[0][0]!r}")
    keys = [label for label, _ in parts]

    def cat(attr: str) -> pd.DataFrame:
        return pd.concat([getattr(spec, attr) for _, spec in parts], keys=keys, names=[level_name])

    baseline_rows = [
        (label, *(row if isinstance(row, tuple) else (row,))) for label, spec in parts for row in spec.baseline_rows
    ]
    first = parts[0][1]
    return TableSpec(cat("values"), cat("cells"), cat("marks"), first.kinds, dict(first.highlight_groups),
                     baseline_rows, "", caption)


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
) -> TableSpec:
    """Table 8: mean predicted score and bias per domain category.

    Rows model x context; per category ``Pred`` (mean prediction), ``Bias``
    (mean of prediction − true level) and ``N`` (scored items), then
    ``unscored`` (items in the listed categories whose reply gave no score).
    The note gives the true mean level and N per category over the unique
    domains, e.g. ``True means: Gov 5.68 (N=378); ...``.  No highlighting.
    """
    what = "table_categories"
    _check_columns(pred, PRED_COLUMNS, what)
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

    rows = _model_context_rows(pred.assign(model=pred["model"].astype(str), context=pred["context"].astype(str)))

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
            return _round2(scored["pred"].mean())
        return _round2((scored["pred"] - scored["level"]).mean())

    def _unscored(r):
        g = df[(df["model"] == r[0]) & (df["context"] == r[1])]
        return float(g["pred"].isna().sum())

    cols: list[_Col] = []
    for raw, cat in zip(categories_order, cats):
        head = labels.get(raw, CATEGORY_HEADERS.get(cat, str(raw)))
        cols.append(_Col((head, "Pred"), NUM, None, lambda r, c=cat: _stat(r, c, "pred")))
        cols.append(_Col((head, "Bias"), SIGNED, None, lambda r, c=cat: _stat(r, c, "bias")))
        cols.append(_Col((head, "N"), COUNT, None, lambda r, c=cat: _stat(r, c, "n")))
    cols.append(_Col(("", "unscored"), COUNT, None, _unscored))

    domains = df.drop_duplicates("domain")
    parts = []
    for raw, cat in zip(categories_order, cats):
        name = labels.get(raw, CATEGORY_NAMES.get(cat, str(raw).capitalize()))
        d = domains[domains["cat"] == cat]
        mean = format_cell(_round2(d["level"].mean()) if len(d) else math.nan, NUM)
        parts.append(f"{name} {mean} (N={len(d)})")
    note = "True means: " + "; ".join(parts) + "."
    caption = (
        "Mean predicted score and scoring bias across domain categories. "
        "Bias = avg. (predicted − true PageRank)."
    )
    return _build(
        rows,
        [(m, context_label(c)) for m, c in rows],
        ["Model", "Ctx"],
        cols,
        [is_baseline(m) for m, _ in rows],
        note=note,
        caption=caption,
    )


# --------------------------------------------------------------------------
# writer
# --------------------------------------------------------------------------
def _flat_label(col: tuple) -> str:
    return " / ".join(str(p) for p in col if str(p))


def _row_display_labels(index: pd.MultiIndex) -> list[list[str]]:
    """Row labels with a repeated first-level label blanked (as the paper)."""
    out, prev = [], None
    for lab in index:
        lab = [str(x) for x in (lab if isinstance(lab, tuple) else (lab,))]
        shown = list(lab)
        if prev is not None and lab[0] == prev:
            shown[0] = ""
        prev = lab[0]
        out.append(shown)
    return out


def _shown(table: TableSpec, vals: np.ndarray, i: int, j: int, style: str) -> str:
    if table.kinds[j] == TEXT:
        return text_cell(table.cells.iat[i, j], style)
    return format_cell(vals[i, j], table.kinds[j], style)


def _render_csv(table: TableSpec, path: Path) -> None:
    names = [str(n) for n in table.values.index.names]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(names + [_flat_label(c) for c in table.values.columns])
        vals = table.values.to_numpy(dtype=float)
        for i, lab in enumerate(table.values.index):
            lab = lab if isinstance(lab, tuple) else (lab,)
            w.writerow([str(x) for x in lab] + [_shown(table, vals, i, j, "csv") for j in range(len(table.kinds))])


def _render_md(table: TableSpec, caption: str) -> str:
    names = [str(n) for n in table.values.index.names]
    heads = names + [_flat_label(c) for c in table.values.columns]
    lines = []
    cap = " ".join(s for s in (caption, table.note) if s)
    if cap:
        lines += [cap, ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in heads) + " |")
    lines.append("|" + "|".join([":---"] * len(names) + ["---:"] * table.values.shape[1]) + "|")
    marks = table.marks.to_numpy()
    vals = table.values.to_numpy(dtype=float)
    for i, lab in enumerate(_row_display_labels(table.values.index)):
        cells = []
        for j in range(len(table.kinds)):
            text = _md_escape(_shown(table, vals, i, j, "md"))
            if marks[i, j] == "best":
                text = f"**{text}**"
            elif marks[i, j] == "second":
                text = f"<u>{text}</u>"
            cells.append(text)
        lines.append("| " + " | ".join([_md_escape(x) for x in lab] + cells) + " |")
    return "\n".join(lines) + "\n"


def _render_tex(table: TableSpec, caption: str, label: str) -> str:
    columns = list(table.values.columns)
    nlev = max(len(c) for c in columns)
    columns = [tuple(c) + ("",) * (nlev - len(c)) for c in columns]
    names = [str(n) for n in table.values.index.names]
    nrow = len(names)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\caption{" + latex_escape(" ".join(s for s in (caption, table.note) if s)) + "}",
        r"\label{" + label + "}",
        r"\begin{tabular}{" + "l" * nrow + "r" * len(columns) + "}",
        r"\toprule",
    ]
    levels = [k for k in range(nlev) if any(c[k] for c in columns)]
    for pos, k in enumerate(levels):
        last = pos == len(levels) - 1
        cells = [latex_escape(n) for n in names] if last else [""] * nrow
        rules = []
        if last:
            cells += [_tex_label(c[k]) for c in columns]
        else:
            j = 0
            while j < len(columns):
                w = 1
                while j + w < len(columns) and columns[j + w][: k + 1] == columns[j][: k + 1]:
                    w += 1
                lab = columns[j][k]
                if lab:
                    cells.append(r"\multicolumn{%d}{c}{%s}" % (w, _tex_label(lab)))
                    rules.append(r"\cmidrule(lr){%d-%d}" % (nrow + j + 1, nrow + j + w))
                else:
                    cells.extend([""] * w)
                j += w
        lines.append(" & ".join(cells) + r" \\")
        if rules:
            lines.append(" ".join(rules))
    lines.append(r"\midrule")
    marks = table.marks.to_numpy()
    vals = table.values.to_numpy(dtype=float)
    baseline = set(table.baseline_rows)
    prev_lab, prev_base = None, False
    for i, (lab, shown) in enumerate(zip(table.values.index, _row_display_labels(table.values.index))):
        is_base = lab in baseline
        # stacked tables (stack_tables: an extra first level, e.g. Domain) get a rule between blocks
        new_block = isinstance(lab, tuple) and prev_lab is not None and lab[0] != prev_lab[0] and len(lab) > 2
        if i > 0 and (new_block or (is_base and not prev_base)):
            lines.append(r"\midrule")
        prev_lab, prev_base = lab, is_base
        cells = [latex_escape(x) for x in shown]
        for j in range(len(table.kinds)):
            text = _shown(table, vals, i, j, "tex")
            if marks[i, j] == "best":
                text = r"\textbf{" + text + "}"
            elif marks[i, j] == "second":
                text = r"\underline{" + text + "}"
            cells.append(text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def write_table(table: TableSpec, stem: Path, caption: str | None = None) -> list[Path]:
    """Write ``stem.csv``, ``stem.md`` and ``stem.tex``; return the three paths.

    ``caption`` defaults to the spec's own caption; Table 8's note (true
    means) is appended to it in the Markdown and LaTeX outputs.
    """
    if not isinstance(table, TableSpec):
        raise TypeError(f"write_table expects a TableSpec, got {type(table).__name__}")
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    caption = table.caption if caption is None else caption
    csv_path = stem.parent / f"{stem.name}.csv"
    md_path = stem.parent / f"{stem.name}.md"
    tex_path = stem.parent / f"{stem.name}.tex"
    _render_csv(table, csv_path)
    md_path.write_text(_render_md(table, caption), encoding="utf-8")
    label = "tab:" + re.sub(r"[^A-Za-z0-9_:.-]+", "-", stem.name)
    tex_path.write_text(_render_tex(table, caption, label), encoding="utf-8")
    return [csv_path, md_path, tex_path]
