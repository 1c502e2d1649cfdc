"""The one table writer: a :class:`~authbench.render.tables.TableSpec` as
``.csv``, ``.md`` and ``.tex`` (:func:`write_table`).

Markdown and LaTeX carry the caption (the spec's note appended), the marks
(best **bold**, second best underlined), the tags and the intervals in the
mode :func:`write_table` is given (:data:`INTERVAL_MODES`, config
``intervals.show``: ``inline`` ``26.11 [12.03, 40.20]``, ``columns`` lo / hi
columns, or ``off``); the CSV holds plain values and always a ``<column> lo``
and ``<column> hi`` column after a column with intervals.  LaTeX blanks a
repeated first row label and draws a rule between the blocks of a stacked
table and before the baseline rows.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pandas as pd
from authbench.records import atomic_write, is_missing, write_text
from authbench.render.formatting import COUNT, NUM, TEXT, format_entry, latex_escape, text_entry
from authbench.render.tables import TableSpec

__all__ = ["INTERVAL_MODES", "write_table"]

INTERVAL_MODES = ("inline", "columns", "off")


def _md_escape(text: str) -> str:
    return str(text).replace("|", r"\|")


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
        return text_entry(table.entries.iat[i, j], style)
    return format_entry(vals[i, j], table.kinds[j], style)


def _bound(table: TableSpec, frame: pd.DataFrame, i: int, j: int, style: str) -> str:
    kind = NUM if table.kinds[j] in (TEXT, COUNT) else table.kinds[j]
    return format_entry(frame.iat[i, j], kind, style)


def _inline_interval(table: TableSpec, i: int, j: int, style: str) -> str:
    """`` [lo, hi]`` after a value (blank bounds: nothing)."""
    if is_missing(table.lo.iat[i, j]) or is_missing(table.hi.iat[i, j]):
        return ""
    text = f"[{_bound(table, table.lo, i, j, style)}, {_bound(table, table.hi, i, j, style)}]"
    return r"\,{\scriptsize " + text + "}" if style == "tex" else " " + text


def _header_entries(table: TableSpec, mode: str) -> list[tuple[str, int, str]]:
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
    heads = _header_entries(table, "columns")
    with atomic_write(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(names + [h for h, _, _ in heads])
        vals = table.values.to_numpy(dtype=float)
        for i, lab in enumerate(table.values.index):
            lab = lab if isinstance(lab, tuple) else (lab,)
            w.writerow([str(x) for x in lab] + [_part(table, vals, i, j, part, "csv") for _, j, part in heads])


def _render_md(table: TableSpec, caption: str, mode: str = "inline") -> str:
    names = [str(n) for n in table.values.index.names]
    parts = _header_entries(table, mode)
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
        entries = []
        for _, j, part in parts:
            if part != "value":
                entries.append(_part(table, vals, i, j, part, "md"))
                continue
            text = _md_escape(_shown(table, vals, i, j, "md")) + table.tags.iat[i, j]
            if marks[i, j] == "best":
                text = f"**{text}**"
            elif marks[i, j] == "second":
                text = f"<u>{text}</u>"
            if mode == "inline" and table.with_interval[j]:
                text += _inline_interval(table, i, j, "md")
            entries.append(text)
        lines.append("| " + " | ".join([_md_escape(x) for x in lab] + entries) + " |")
    return "\n".join(lines) + "\n"


def _render_tex(table: TableSpec, caption: str, label: str, mode: str = "inline") -> str:
    parts = _header_entries(table, mode)
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
        entries = [latex_escape(n) for n in names] if last else [""] * nrow
        rules = []
        if last:
            entries += [_tex_label(table, c[k]) for c in columns]
        else:
            j = 0
            while j < len(columns):
                w = 1
                while j + w < len(columns) and columns[j + w][: k + 1] == columns[j][: k + 1]:
                    w += 1
                lab = columns[j][k]
                if lab:
                    entries.append(r"\multicolumn{%d}{c}{%s}" % (w, _tex_label(table, lab)))
                    rules.append(r"\cmidrule(lr){%d-%d}" % (nrow + j + 1, nrow + j + w))
                else:
                    entries.extend([""] * w)
                j += w
        lines.append(" & ".join(entries) + r" \\")
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
        entries = [latex_escape(x) for x in shown]
        for _, j, part in parts:
            if part != "value":
                entries.append(_part(table, vals, i, j, part, "tex"))
                continue
            text = _shown(table, vals, i, j, "tex") + latex_escape(table.tags.iat[i, j])
            if marks[i, j] == "best":
                text = r"\textbf{" + text + "}"
            elif marks[i, j] == "second":
                text = r"\underline{" + text + "}"
            if mode == "inline" and table.with_interval[j]:
                text += _inline_interval(table, i, j, "tex")
            entries.append(text)
        lines.append(" & ".join(entries) + r" \\")
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
