"""Study-agnostic result tables: cell kinds and formatting, the one table
builder (:func:`build_table`) and the ``.csv`` / ``.md`` / ``.tex`` writer
(:func:`write_table`).  The studies' own tables are built on it:
:mod:`authbench.studies.authority.tables` (AuthorityBench),
:mod:`authbench.studies.selfpref.tables` and :mod:`authbench.studies.ragauth.tables`.

A :class:`TableSpec` holds the display cells, the numeric frame behind them
(already in display units, e.g. correlations and accuracies multiplied by 100
and rounded to two decimals: :func:`round2`), the best / second-best marks and
a few rendering hints.  :func:`build_table` makes one from row keys and
:class:`Column` getters; :func:`stack_tables` stacks specs with the same
columns under an extra row level.

Highlighting follows the paper: per row, separately inside each highlight
group (a :class:`Column`'s ``group``: the ρ columns, the τ columns, the
accuracy columns ...), the highest displayed value is **bold** and the
second-highest distinct displayed value is underlined.  Ties share the mark,
NaN is never marked, columns without a group (parse failures, counts) never
take part, and baseline rows (non-LLM ``baseline:...`` models) are never
marked.  A table may instead mark by a rule (``mark_rule``: every displayed
value it accepts is bold, e.g. "values greater than 50%").

Intervals: a :class:`Column` with an ``interval`` getter carries a
95% interval ``(lo, hi)`` per cell, in display units.  The CSV always gets a
``<column> lo`` and ``<column> hi`` column after it; Markdown and LaTeX show
it by the mode :func:`write_table` is given (config ``intervals.show``):
``inline`` (``26.11 [12.03, 40.20]``), ``columns`` (lo / hi columns, as the
CSV) or ``off``.  A column's ``tag`` getter appends short marks to the shown
value in Markdown and LaTeX (:data:`NOT_RANDOM_TAG`, :data:`NOT_BEST_TAG`:
not distinguishable from ``baseline:random`` / from the column's best); the
CSV keeps plain numbers.  Every study says the same of its intervals through
one helper: :func:`shown_interval` (a cell's ``(lo, hi)``),
:func:`interval_words` (the caption's sentence) and
:func:`blank_interval_words` (why a shown value has no interval).
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from authbench.records import atomic_write, is_missing, write_text

__all__ = [
    "BASELINE_PREFIX",
    "COUNT",
    "FAIL",
    "INTERVAL_MODES",
    "NOT_BEST_TAG",
    "NOT_RANDOM_TAG",
    "MISSING",
    "NUM",
    "PCT",
    "SIGNED",
    "TEXT",
    "Column",
    "TableSpec",
    "baselines_last",
    "build_table",
    "format_cell",
    "has_blank_interval",
    "is_baseline",
    "latex_escape",
    "round2",
    "round_half_up",
    "stack_tables",
    "text_cell",
    "write_table",
]

BASELINE_PREFIX = "baseline:"

MISSING = "–"  # en dash, as in the paper
FAIL = "fail%"  # header of a parse-failure column

# Cell kinds: how a value is formatted.
PCT = "pct"  # already x100, two decimals
NUM = "num"  # two decimals
SIGNED = "signed"  # two decimals with explicit sign
COUNT = "count"  # integer
TEXT = "text"  # the spec's ``cells`` text as is (mean±std, a † mark): see text_cell

INTERVAL_MODES = ("inline", "columns", "off")
NOT_RANDOM_TAG = "°"  # paired comparison: not distinguishable from baseline:random
NOT_BEST_TAG = "≈"  # paired comparison: not distinguishable from the column's best


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------
def is_baseline(model: str) -> bool:
    """True for the non-LLM baseline rows (model ``baseline:...``)."""
    return str(model).startswith(BASELINE_PREFIX)


def baselines_last(models: Iterable) -> list[str]:
    """The distinct model names (as ``str``) in order of first appearance,
    the non-LLM baselines after the LLMs."""
    seen = list(dict.fromkeys(str(m) for m in models))
    return [m for m in seen if not is_baseline(m)] + [m for m in seen if is_baseline(m)]


def round_half_up(x, ndigits: int = 2, scale: float = 1) -> float:
    """Round ``x * scale`` half-up to ``ndigits`` decimals, on the decimal repr.

    Working on ``repr(x)`` avoids binary artefacts: 0.71345 -> 71.35, not
    71.34.  Non-finite and non-numeric values and ``None`` become NaN.
    """
    if x is None:
        return math.nan
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return math.nan
    if not math.isfinite(xf):
        return math.nan
    d = Decimal(repr(xf)) * (scale if isinstance(scale, int) else Decimal(repr(float(scale))))
    return float(d.quantize(Decimal(1).scaleb(-ndigits), rounding=ROUND_HALF_UP))


def round2(x, scale: float = 1) -> float:
    """:func:`round_half_up` to two decimals: ``round2(0.71345, 100) == 71.35``."""
    return round_half_up(x, 2, scale)


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
    "°": r"$^{\circ}$",
    "≈": r"$^{\approx}$",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters (``_ % & $ # { } ~ ^ \\``) in a label."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in str(text))


def _md_escape(text: str) -> str:
    return str(text).replace("|", r"\|")


# --------------------------------------------------------------------------
# the table spec and its builder
# --------------------------------------------------------------------------
@dataclass
class TableSpec:
    """A renderer-agnostic table.

    ``values``  numeric frame in display units (NaN = missing);
    ``cells``   the same shape as text (``–`` for missing, no markup);
    ``marks``   ``"best"`` / ``"second"`` / ``""`` per cell;
    ``kinds``   one cell kind per column (``pct``, ``num``, ``signed``, ``count``, ``text``);
    ``highlight_groups`` group name -> column labels compared per row;
    ``baseline_rows`` row labels that are never highlighted;
    ``note``    extra caption text (e.g. Table 8's true means);
    ``caption`` a default caption in the paper's words;
    ``tex_labels`` header text -> LaTeX to use instead of the escaped text;
    ``lo`` / ``hi`` the interval bounds per cell (NaN: none), in display units;
    ``with_interval`` per column: whether it carries intervals;
    ``tags``    short marks appended to a shown value (Markdown and LaTeX).
    """

    values: pd.DataFrame
    cells: pd.DataFrame
    marks: pd.DataFrame
    kinds: tuple[str, ...]
    highlight_groups: dict[str, list[tuple]] = field(default_factory=dict)
    baseline_rows: list[tuple] = field(default_factory=list)
    note: str = ""
    caption: str = ""
    tex_labels: dict[str, str] = field(default_factory=dict)
    lo: pd.DataFrame | None = None
    hi: pd.DataFrame | None = None
    with_interval: tuple[bool, ...] = ()
    tags: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        nan = pd.DataFrame(math.nan, index=self.values.index, columns=self.values.columns, dtype=float)
        if self.lo is None:
            self.lo = nan
        if self.hi is None:
            self.hi = nan.copy()
        if not self.with_interval:
            self.with_interval = (False,) * len(self.kinds)
        if self.tags is None:
            self.tags = pd.DataFrame("", index=self.values.index, columns=self.values.columns, dtype=object)


@dataclass(frozen=True)
class Column:
    """One table column.

    ``label``  the header, one string per header level;
    ``kind``   the cell kind.  For :data:`TEXT`, ``get(row)`` returns
               ``(value, text)``: the number behind the cell (rounded as
               shown) and its Markdown text (e.g. ``4.50±0.58``, ``+3.00†``);
               for every other kind it returns the value in display units,
               which :func:`format_cell` formats;
    ``get``    row key -> cell, as above;
    ``group``  the highlight group the column is ranked in, per row (``None``:
               never ranked);
    ``interval`` row key -> ``(lo, hi)`` in display units (NaN: blank), or
               ``None`` for a column without intervals;
    ``tag``    row key -> short marks appended to the shown value (``""``: none).
    """

    label: tuple[str, ...]
    kind: str
    get: Callable[[Any], Any]
    group: str | None = None
    interval: Callable[[Any], tuple[float, float]] | None = None
    tag: Callable[[Any], str] | None = None


def shown_interval(lo: float, hi: float, scale: float = 1) -> tuple[float, float]:
    """A value cell's interval in display units (:func:`round2`; NaN: none)."""
    return round2(lo, scale), round2(hi, scale)


def interval_words(intervals: Any, units: str, show: str = "inline", clusters: bool = False) -> str:
    """The caption's sentence on a table's intervals (``intervals``: an
    :class:`~authbench.stats.IntervalSpec`; ``show``: config ``intervals.show``,
    ``off`` points at the CSV; ``clusters``: the ``units`` are resampled as
    clusters of several values each)."""
    where = "in the CSV (lo, hi)" if show == "off" else "[lo, hi]"
    how = f", {units} resampled as clusters" if clusters else f" over the {units}"
    return f" {where}: {intervals.level:.0%} percentile-bootstrap interval{how} ({intervals.resamples} resamples, seeded)."


def blank_interval_words(table: TableSpec, intervals: Any, units: str) -> str:
    """Why a shown value of ``table`` has no interval ("" when each has one)."""
    if not has_blank_interval(table):
        return ""
    return f" No interval: fewer than {intervals.min_units} {units} behind the value."


def with_blank_note(table: TableSpec, intervals: Any, units: str) -> TableSpec:
    """``table`` with :func:`blank_interval_words` at the end of its note."""
    table.note = (table.note + blank_interval_words(table, intervals, units)).strip()
    return table


def has_blank_interval(table: TableSpec) -> bool:
    """Whether a shown value of a column with intervals has none (too few
    units behind it): the caption must then say why."""
    shown = np.isfinite(table.values.to_numpy(dtype=float)) & np.asarray(table.with_interval, dtype=bool)[None, :]
    return bool((shown & (np.isnan(table.lo.to_numpy(dtype=float)) | np.isnan(table.hi.to_numpy(dtype=float)))).any())


def _rank_marks(
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


def _rule_marks(values: pd.DataFrame, rule: Callable[[float], bool], skip: Sequence[bool]) -> pd.DataFrame:
    marks = np.full(values.shape, "", dtype=object)
    arr = values.to_numpy(dtype=float)
    for i in range(arr.shape[0]):
        if skip[i]:
            continue
        for j in range(arr.shape[1]):
            if math.isfinite(arr[i, j]) and rule(arr[i, j]):
                marks[i, j] = "best"
    return pd.DataFrame(marks, index=values.index, columns=values.columns)


def _cell(col: Column, row) -> tuple[Any, str]:
    got = col.get(row)
    if col.kind == TEXT:
        value, text = got
        return value, text
    return got, format_cell(got, col.kind, "md")


_PLACEHOLDER = Column(("",), TEXT, lambda _row: (math.nan, MISSING))


def build_table(
    rows: Sequence,
    labels: Sequence[tuple],
    names: Sequence[str],
    columns: Sequence[Column],
    baseline: Sequence[bool] | None = None,
    *,
    mark_rule: Callable[[float], bool] | None = None,
    note: str = "",
    caption: str = "",
    tex_labels: Mapping[str, str] | None = None,
) -> TableSpec:
    """A :class:`TableSpec`: one row per key in ``rows`` (each column's getter
    is called with it), shown under the matching tuple of ``labels`` (row
    levels named ``names``).

    ``baseline`` flags the rows that are never marked (the spec's
    ``baseline_rows``; default none).  Marks: per row, best / second best
    inside each highlight group (:class:`Column` ``group``); or, with
    ``mark_rule`` (then no column may have a group), ``"best"`` on every
    finite value ``v`` with ``mark_rule(v)``.  No rows give one placeholder row
    of ``–`` (so that every declared file exists); no columns, one column with
    an empty header.
    """
    cols = list(columns) or [_PLACEHOLDER]
    if mark_rule is not None and any(c.group is not None for c in cols):
        raise ValueError("build_table: mark either by highlight groups or by mark_rule, not both")
    if rows:
        labels = [tuple(str(x) for x in lab) for lab in labels]
        flags = [bool(b) for b in baseline] if baseline is not None else [False] * len(rows)
        got = [[_cell(c, r) for c in cols] for r in rows]
    else:
        labels = [tuple(MISSING for _ in names)]
        flags = [False]
        got = [[(math.nan, MISSING) for _ in cols]]
    if len(labels) != len(got) or len(flags) != len(got):
        raise ValueError(f"build_table: {len(got)} rows, {len(labels)} labels and {len(flags)} baseline flags")
    index = pd.MultiIndex.from_tuples(labels, names=list(names))
    header = pd.MultiIndex.from_tuples([c.label for c in cols])
    values = pd.DataFrame([[v for v, _ in row] for row in got], index=index, columns=header, dtype=float)
    cells = pd.DataFrame([[t for _, t in row] for row in got], index=index, columns=header, dtype=object)
    bounds = [[c.interval(r) if (c.interval is not None and rows) else (math.nan, math.nan) for c in cols]
              for r in (rows or [None])]
    lo = pd.DataFrame([[b[0] for b in row] for row in bounds], index=index, columns=header, dtype=float)
    hi = pd.DataFrame([[b[1] for b in row] for row in bounds], index=index, columns=header, dtype=float)
    tags = pd.DataFrame([[(c.tag(r) if (c.tag is not None and rows) else "") for c in cols] for r in (rows or [None])],
                        index=index, columns=header, dtype=object)
    groups: dict[str, list[int]] = {}
    for j, c in enumerate(cols):
        if c.group is not None:
            groups.setdefault(c.group, []).append(j)
    if mark_rule is not None:
        marks = _rule_marks(values, mark_rule, flags)
    else:
        marks = _rank_marks(values, groups, flags)
    return TableSpec(
        values=values,
        cells=cells,
        marks=marks,
        kinds=tuple(c.kind for c in cols),
        highlight_groups={g: [cols[j].label for j in pos] for g, pos in groups.items()},
        baseline_rows=[lab for lab, b in zip(labels, flags) if b],
        note=note,
        caption=caption,
        tex_labels=dict(tex_labels or {}),
        lo=lo,
        hi=hi,
        with_interval=tuple(c.interval is not None for c in cols),
        tags=tags,
    )


# --------------------------------------------------------------------------
# stacking: one block of rows per part (e.g. EntityAuth's entity domains)
# --------------------------------------------------------------------------
def _aligned(spec: TableSpec, columns: pd.Index, kinds: Sequence[str], with_interval: Sequence[bool]) -> TableSpec:
    """``spec`` with the columns ``columns`` (a column it lacks: missing
    values, ``–`` cells, no interval)."""
    def frame(attr: str, fill) -> pd.DataFrame:
        return getattr(spec, attr).reindex(columns=columns, fill_value=fill)

    return TableSpec(frame("values", math.nan), frame("cells", MISSING), frame("marks", ""), tuple(kinds),
                     dict(spec.highlight_groups), list(spec.baseline_rows), spec.note, spec.caption,
                     dict(spec.tex_labels), lo=frame("lo", math.nan), hi=frame("hi", math.nan),
                     with_interval=tuple(with_interval), tags=frame("tags", ""))


def stack_tables(parts: Sequence[tuple[str, TableSpec]], level_name: str, caption: str = "",
                 align: bool = False) -> TableSpec:
    """Stack tables with identical columns under an extra first row level
    (e.g. EntityAuth's ``Domain``). Marks stay per row, as computed per part.
    ``align``: parts whose columns differ (e.g. one dataset has a released
    perplexity column another lacks) are stacked over the union of their
    columns in first-seen order, a column a part lacks shown as missing."""
    if not parts:
        raise ValueError("stack_tables: no tables given")
    columns = parts[0][1].values.columns
    for label, spec in parts:
        if not spec.values.columns.equals(columns):
            if not align:
                raise ValueError(f"stack_tables: the columns of {label!r} differ from those of {parts[0][0]!r}")
            columns = columns.append(spec.values.columns.difference(columns, sort=False))
    if align and any(not spec.values.columns.equals(columns) for _, spec in parts):
        kinds, with_interval = {}, {}
        for _, spec in parts:
            for j, col in enumerate(spec.values.columns):
                kinds.setdefault(col, spec.kinds[j])
                with_interval[col] = with_interval.get(col, False) or spec.with_interval[j]
        parts = [(label, _aligned(spec, columns, [kinds[c] for c in columns], [with_interval[c] for c in columns]))
                 for label, spec in parts]
    keys = [label for label, _ in parts]

    def cat(attr: str) -> pd.DataFrame:
        return pd.concat([getattr(spec, attr) for _, spec in parts], keys=keys, names=[level_name])

    baseline_rows = [
        (label, *(row if isinstance(row, tuple) else (row,))) for label, spec in parts for row in spec.baseline_rows
    ]
    first = parts[0][1]
    return TableSpec(cat("values"), cat("cells"), cat("marks"), first.kinds, dict(first.highlight_groups),
                     baseline_rows, "", caption, dict(first.tex_labels), lo=cat("lo"), hi=cat("hi"),
                     with_interval=tuple(any(spec.with_interval[j] for _, spec in parts)
                                         for j in range(len(first.kinds))),
                     tags=cat("tags"))


# --------------------------------------------------------------------------
# a built table as JSON (a report's tables, read back by another report)
# --------------------------------------------------------------------------
_NUMERIC_FRAMES = ("values", "lo", "hi")
_TEXT_FRAMES = ("cells", "marks", "tags")


def _label_json(label):
    return list(label) if isinstance(label, tuple) else label


def _label(label):
    return tuple(label) if isinstance(label, list) else label


def _scalar_json(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    return v if v is None or isinstance(v, str) else str(v)


def _index_json(index: pd.Index) -> dict:
    return {"labels": [_label_json(tuple(_scalar_json(x) for x in i) if isinstance(i, tuple) else _scalar_json(i))
                       for i in index], "names": [_scalar_json(n) for n in index.names],
            "levels": index.nlevels if isinstance(index, pd.MultiIndex) else 0}


def _index(d: Mapping) -> pd.Index:
    if d["levels"]:
        return pd.MultiIndex.from_tuples([tuple(x) for x in d["labels"]], names=d["names"])
    return pd.Index(d["labels"], name=d["names"][0])


def spec_to_json(spec: TableSpec) -> dict:
    """A :class:`TableSpec` as plain JSON data (NaN as null, tuples as
    lists); :func:`spec_from_json` reads it back equal."""
    out: dict[str, Any] = {"index": _index_json(spec.values.index), "columns": _index_json(spec.values.columns)}
    for name in _NUMERIC_FRAMES + _TEXT_FRAMES:
        out[name] = [[_scalar_json(v) for v in row]
                     for row in getattr(spec, name).itertuples(index=False, name=None)]
    out.update(kinds=list(spec.kinds), with_interval=list(spec.with_interval), note=spec.note, caption=spec.caption,
               tex_labels=dict(spec.tex_labels), baseline_rows=[_label_json(r) for r in spec.baseline_rows],
               highlight_groups={g: [_label_json(c) for c in cols] for g, cols in spec.highlight_groups.items()})
    return out


def spec_from_json(d: Mapping) -> TableSpec:
    """The :class:`TableSpec` :func:`spec_to_json` wrote (a ``KeyError`` or
    ``ValueError`` when ``d`` is not one)."""
    index, columns = _index(d["index"]), _index(d["columns"])
    frames = {}
    for name in _NUMERIC_FRAMES + _TEXT_FRAMES:
        rows = d[name]
        if len(rows) != len(index) or any(len(r) != len(columns) for r in rows):
            raise ValueError(f"{name}: expected {len(index)} rows of {len(columns)} values")
        numeric = name in _NUMERIC_FRAMES
        data = [[math.nan if v is None else float(v) for v in r] if numeric else list(r) for r in rows]
        frames[name] = pd.DataFrame(data, index=index, columns=columns, dtype=float if numeric else object)
    return TableSpec(frames["values"], frames["cells"], frames["marks"], tuple(d["kinds"]),
                     {g: [_label(c) for c in cols] for g, cols in d["highlight_groups"].items()},
                     [_label(r) for r in d["baseline_rows"]], d["note"], d["caption"], dict(d["tex_labels"]),
                     lo=frames["lo"], hi=frames["hi"], with_interval=tuple(bool(w) for w in d["with_interval"]),
                     tags=frames["tags"])


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


def _bound(table: TableSpec, frame: pd.DataFrame, i: int, j: int, style: str) -> str:
    kind = NUM if table.kinds[j] in (TEXT, COUNT) else table.kinds[j]
    return format_cell(frame.iat[i, j], kind, style)


def _inline_interval(table: TableSpec, i: int, j: int, style: str) -> str:
    """`` [lo, hi]`` after a value (blank bounds: nothing)."""
    if is_missing(table.lo.iat[i, j]) or is_missing(table.hi.iat[i, j]):
        return ""
    text = f"[{_bound(table, table.lo, i, j, style)}, {_bound(table, table.hi, i, j, style)}]"
    return r"\,{\scriptsize " + text + "}" if style == "tex" else " " + text


def _header_cells(table: TableSpec, mode: str) -> list[tuple[str, int, str]]:
    """Per rendered column: (flat header, source column, part: value / lo / hi)."""
    out = []
    for j, col in enumerate(table.values.columns):
        out.append((_flat_label(col), j, "value"))
        if table.with_interval[j] and mode == "columns":
            out += [(_flat_label(col) + " lo", j, "lo"), (_flat_label(col) + " hi", j, "hi")]
    return out


def _check_mode(mode: str) -> None:
    if mode not in INTERVAL_MODES:
        raise ValueError(f"intervals must be one of {', '.join(INTERVAL_MODES)}, got {mode!r}")


def _tex_label(table: TableSpec, text: str) -> str:
    return table.tex_labels.get(text, latex_escape(text))


def _part(table: TableSpec, vals: np.ndarray, i: int, j: int, part: str, style: str) -> str:
    if part == "value":
        return _shown(table, vals, i, j, style)
    return _bound(table, table.lo if part == "lo" else table.hi, i, j, style)


def _render_csv(table: TableSpec, path: Path) -> None:
    names = [str(n) for n in table.values.index.names]
    heads = _header_cells(table, "columns")
    with atomic_write(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(names + [h for h, _, _ in heads])
        vals = table.values.to_numpy(dtype=float)
        for i, lab in enumerate(table.values.index):
            lab = lab if isinstance(lab, tuple) else (lab,)
            w.writerow([str(x) for x in lab] + [_part(table, vals, i, j, part, "csv") for _, j, part in heads])


def _render_md(table: TableSpec, caption: str, mode: str = "inline") -> str:
    names = [str(n) for n in table.values.index.names]
    parts = _header_cells(table, mode)
    heads = names + [h for h, _, _ in parts]
    lines = []
    cap = " ".join(s for s in (caption, table.note) if s)
    if cap:
        lines += [cap, ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in heads) + " |")
    lines.append("|" + "|".join([":---"] * len(names) + ["---:"] * len(parts)) + "|")
    marks = table.marks.to_numpy()
    vals = table.values.to_numpy(dtype=float)
    for i, lab in enumerate(_row_display_labels(table.values.index)):
        cells = []
        for _, j, part in parts:
            if part != "value":
                cells.append(_part(table, vals, i, j, part, "md"))
                continue
            text = _md_escape(_shown(table, vals, i, j, "md")) + table.tags.iat[i, j]
            if marks[i, j] == "best":
                text = f"**{text}**"
            elif marks[i, j] == "second":
                text = f"<u>{text}</u>"
            if mode == "inline" and table.with_interval[j]:
                text += _inline_interval(table, i, j, "md")
            cells.append(text)
        lines.append("| " + " | ".join([_md_escape(x) for x in lab] + cells) + " |")
    return "\n".join(lines) + "\n"


def _render_tex(table: TableSpec, caption: str, label: str, mode: str = "inline") -> str:
    parts = _header_cells(table, mode)
    columns = [tuple(table.values.columns[j]) + (() if part == "value" else (part,)) for _, j, part in parts]
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
            cells += [_tex_label(table, c[k]) for c in columns]
        else:
            j = 0
            while j < len(columns):
                w = 1
                while j + w < len(columns) and columns[j + w][: k + 1] == columns[j][: k + 1]:
                    w += 1
                lab = columns[j][k]
                if lab:
                    cells.append(r"\multicolumn{%d}{c}{%s}" % (w, _tex_label(table, lab)))
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
        for _, j, part in parts:
            if part != "value":
                cells.append(_part(table, vals, i, j, part, "tex"))
                continue
            text = _shown(table, vals, i, j, "tex") + latex_escape(table.tags.iat[i, j])
            if marks[i, j] == "best":
                text = r"\textbf{" + text + "}"
            elif marks[i, j] == "second":
                text = r"\underline{" + text + "}"
            if mode == "inline" and table.with_interval[j]:
                text += _inline_interval(table, i, j, "tex")
            cells.append(text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def write_table(table: TableSpec, stem: Path, caption: str | None = None, intervals: str = "inline") -> list[Path]:
    """Write ``stem.csv``, ``stem.md`` and ``stem.tex``; return the three paths.

    ``caption`` defaults to the spec's own caption; the spec's note (e.g.
    Table 8's true means) is appended to it in the Markdown and LaTeX outputs.
    ``intervals``: how Markdown and LaTeX show the columns' intervals
    (:data:`INTERVAL_MODES`; the CSV always has lo / hi columns).
    """
    if not isinstance(table, TableSpec):
        raise TypeError(f"write_table expects a TableSpec, got {type(table).__name__}")
    _check_mode(intervals)
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    caption = table.caption if caption is None else caption
    csv_path = stem.parent / f"{stem.name}.csv"
    md_path = stem.parent / f"{stem.name}.md"
    tex_path = stem.parent / f"{stem.name}.tex"
    _render_csv(table, csv_path)
    write_text(md_path, _render_md(table, caption, intervals))
    label = "tab:" + re.sub(r"[^A-Za-z0-9_:.-]+", "-", stem.name)
    write_text(tex_path, _render_tex(table, caption, label, intervals))
    return [csv_path, md_path, tex_path]
