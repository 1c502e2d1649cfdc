"""The study-agnostic table model: :class:`TableSpec` (a table independent of
its output format), :class:`Column`, the one builder (:func:`build_table`),
stacking (:func:`stack_tables`), the baseline rows and a spec as JSON
(:func:`spec_to_json`, :func:`spec_from_json`).  How values are shown:
:mod:`authbench.render.formatting`; the ``.csv`` / ``.md`` / ``.tex`` files:
:mod:`authbench.render.table_writers`; what a caption says of the intervals:
:mod:`authbench.render.intervals`.  The studies' own tables are built on it:
:mod:`authbench.studies.authority.tables` (AuthorityBench), the
self-preference tables (:mod:`authbench.studies.selfpref.passage_tables` and
its siblings) and :mod:`authbench.studies.ragauth.tables`.

A :class:`TableSpec` holds the display entries (a table's text), the numeric
frame behind them (already in display units, e.g. correlations and accuracies multiplied by 100
and rounded to two decimals: :func:`~authbench.render.formatting.round2`), the
best / second-best marks and a few rendering hints.  :func:`build_table` makes
one from row keys and :class:`Column` getters; :func:`stack_tables` stacks
specs with the same columns under an extra row level.

Highlighting follows the paper: per row, separately inside each highlight
group (a :class:`Column`'s ``group``: the ρ columns, the τ columns, the
accuracy columns ...), the highest displayed value is **bold** and the
second-highest distinct displayed value is underlined.  Ties share the mark,
NaN is never marked, columns without a group (parse failures, counts) never
take part, and baseline rows (non-LLM ``baseline:...`` models) are never
marked.  A table may instead mark by a rule (``mark_rule``: every displayed
value it accepts is bold, e.g. "values greater than 50%").

Intervals: a :class:`Column` with an ``interval`` getter carries a 95%
interval ``(lo, hi)`` per cell, in display units (the spec's ``lo`` / ``hi``);
a column's ``tag`` getter carries short marks appended to the shown value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from authbench.render.formatting import MISSING, TEXT, format_entry

__all__ = [
    "BASELINE_PREFIX",
    "Column",
    "TableSpec",
    "baselines_last",
    "build_table",
    "is_baseline",
    "spec_from_json",
    "spec_to_json",
    "stack_tables",
]

BASELINE_PREFIX = "baseline:"


def is_baseline(model: str) -> bool:
    """True for the non-LLM baseline rows (model ``baseline:...``)."""
    return str(model).startswith(BASELINE_PREFIX)


def baselines_last(models: Iterable) -> list[str]:
    """The distinct model names (as ``str``) in order of first appearance,
    the non-LLM baselines after the LLMs."""
    seen = list(dict.fromkeys(str(m) for m in models))
    return [m for m in seen if not is_baseline(m)] + [m for m in seen if is_baseline(m)]


# --------------------------------------------------------------------------
# the table spec and its builder
# --------------------------------------------------------------------------
@dataclass
class TableSpec:
    """A renderer-agnostic table.

    ``values``  numeric frame in display units (NaN = missing);
    ``entries`` the same shape as text (``–`` for missing, no markup; ``tables.json``'s ``cells``);
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
    entries: pd.DataFrame
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
               which :func:`format_entry` formats;
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


def _entry(col: Column, row) -> tuple[Any, str]:
    got = col.get(row)
    if col.kind == TEXT:
        value, text = got
        return value, text
    return got, format_entry(got, col.kind, "md")


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
        got = [[_entry(c, r) for c in cols] for r in rows]
    else:
        labels = [tuple(MISSING for _ in names)]
        flags = [False]
        got = [[(math.nan, MISSING) for _ in cols]]
    if len(labels) != len(got) or len(flags) != len(got):
        raise ValueError(f"build_table: {len(got)} rows, {len(labels)} labels and {len(flags)} baseline flags")
    index = pd.MultiIndex.from_tuples(labels, names=list(names))
    header = pd.MultiIndex.from_tuples([c.label for c in cols])
    values = pd.DataFrame([[v for v, _ in row] for row in got], index=index, columns=header, dtype=float)
    entries = pd.DataFrame([[t for _, t in row] for row in got], index=index, columns=header, dtype=object)
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
        entries=entries,
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

    return TableSpec(frame("values", math.nan), frame("entries", MISSING), frame("marks", ""), tuple(kinds),
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
    return TableSpec(cat("values"), cat("entries"), cat("marks"), first.kinds, dict(first.highlight_groups),
                     baseline_rows, "", caption, dict(first.tex_labels), lo=cat("lo"), hi=cat("hi"),
                     with_interval=tuple(any(spec.with_interval[j] for _, spec in parts)
                                         for j in range(len(first.kinds))),
                     tags=cat("tags"))


# --------------------------------------------------------------------------
# a built table as JSON (a report's tables, read back by another report)
# --------------------------------------------------------------------------
# each frame of a TableSpec -> its key in a report's tables.json (persisted: entries keep the older word, cells)
_NUMERIC_FRAMES = {"values": "values", "lo": "lo", "hi": "hi"}
_TEXT_FRAMES = {"entries": "cells", "marks": "marks", "tags": "tags"}


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
    for name, key in {**_NUMERIC_FRAMES, **_TEXT_FRAMES}.items():
        out[key] = [[_scalar_json(v) for v in row]
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
    for name, key in {**_NUMERIC_FRAMES, **_TEXT_FRAMES}.items():
        rows = d[key]
        if len(rows) != len(index) or any(len(r) != len(columns) for r in rows):
            raise ValueError(f"{key}: expected {len(index)} rows of {len(columns)} values")
        numeric = name in _NUMERIC_FRAMES
        data = [[math.nan if v is None else float(v) for v in r] if numeric else list(r) for r in rows]
        frames[name] = pd.DataFrame(data, index=index, columns=columns, dtype=float if numeric else object)
    return TableSpec(frames["values"], frames["entries"], frames["marks"], tuple(d["kinds"]),
                     {g: [_label(c) for c in cols] for g, cols in d["highlight_groups"].items()},
                     [_label(r) for r in d["baseline_rows"]], d["note"], d["caption"], dict(d["tex_labels"]),
                     lo=frames["lo"], hi=frames["hi"], with_interval=tuple(bool(w) for w in d["with_interval"]),
                     tags=frames["tags"])
