"""A paper's published numbers, transcribed from its text: one TSV per paper
(:attr:`authbench.papers.Paper.published`; the two shipped ones are
``resources/published/authoritybench.tsv`` and ``selfpref.tsv``), one row
per printed number. The column meanings, the vocabulary and every
transcription decision are in ``resources/published/README.md``.

A file's columns are ``paper``, ``table``, the paper's own key parts (any
names: ``model``, ``prompt``, ``dataset`` ...), then ``metric``, ``value``,
``mark``, ``where``, ``note``. The 11-column layout (:data:`COLUMNS`:
``model``, ``judge``, ``context`` and ``setting``, ``key=value`` parts
joined by ``;``) is one such header and still loads; a paper's
:attr:`~authbench.papers.Paper.legacy` renames the columns of it that hold
another part.

* :func:`load` -> one :class:`pandas.DataFrame` (``table`` an int, ``value``
  a float, every other column a string, ``""`` for an empty cell or a part
  another paper's file has), each row checked; a bad row is an
  :class:`~authbench.errors.InputError` naming the file, the line, the
  column and what was expected.
* :func:`as_columns` -> the same rows in the 11-column layout the run's
  persisted files (``scorecard.tsv``, ``units_keyed.parquet``) and the
  derived rows (:func:`authbench.papers.derived_numbers`) write.
* :func:`paper_models` -> the model names a paper's tables use."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from authbench.errors import InputError, excerpt
from authbench.records import read_records

__all__ = ["COLUMNS", "KEY", "MARKS", "as_columns", "load", "load_text", "paper_models"]

LEAD = ("paper", "table")  # a TSV's first columns; its key part columns follow, then TAIL
TAIL = ("metric", "value", "mark", "where", "note")
COLUMNS = ("paper", "table", "model", "judge", "context", "setting", "metric", "value", "mark", "where", "note")
# the 11-column layout's key (the first papers' parts; the run's persisted files keep it): no two rows share it
KEY = ("paper", "table", "model", "judge", "context", "setting", "metric")
MARKS = ("bold", "underline", "dagger")  # a row's mark: "" or some of these joined by "+"
REQUIRED = ("metric", "where")  # never empty (paper, table, value: checked below)
NOT_MODELS = ("", "Average")  # model cells that name no model (Table 7-8 corpus rows, the Average rows)


def _check(path: Path, where: str, column: str, value: str, ok: bool, expected: str) -> None:
    if not ok:
        raise InputError(f"{path}: {where}, column {column!r}: found {excerpt(value)}; expected {expected}")


def _is_number(text: str) -> bool:
    try:
        return text == text.strip() and math.isfinite(float(text))
    except ValueError:
        return False


def _parts_of(path: Path, columns: tuple[str, ...]) -> tuple[str, ...]:
    """The key part columns of a header (between ``table`` and ``metric``), checked."""
    from authbench.claims.keys import NOT_PARTS

    parts = columns[len(LEAD):len(columns) - len(TAIL)]
    ok = (columns[:len(LEAD)] == LEAD and columns[len(columns) - len(TAIL):] == TAIL and len(parts) == len(set(parts))
          and all(c and c not in NOT_PARTS for c in parts))
    if not ok:
        header = excerpt("\t".join(columns), quote=False)
        raise InputError(f"{path}: line 1: header {header}; expected the columns {', '.join(LEAD)}, then the "
                         f"paper's key parts (each once, e.g. model), then {', '.join(TAIL)} "
                         f"(the 11-column layout: {', '.join(COLUMNS)})")
    return parts


def _setting_ok(text: str) -> bool:
    from authbench.claims.keys import parse_setting

    try:
        parse_setting(text)
        return True
    except ValueError:
        return False


def _read(path: Path, paper: str) -> pd.DataFrame:
    """The checked rows of one shipped TSV (plain tab-separated, no quoting),
    each column the paper's :attr:`~authbench.papers.Paper.legacy` maps
    renamed to its part."""
    from authbench.claims.keys import SETTING, Key, from_columns
    from authbench.papers.registry import paper_of

    info = paper_of(paper)
    records = read_records(path, "the published numbers (resources/published/README.md)", default="tsv",
                           quoted_tsv=False, pad_short=False)
    parts = _parts_of(path, tuple(records.columns))
    seen: dict[Key, str] = {}
    for where, row in records.rows:
        for column in REQUIRED:
            _check(path, where, column, row[column], row[column] != "", "a value (the column is never empty)")
        _check(path, where, "paper", row["paper"], row["paper"] == paper, f"{paper!r} (the file's paper)")
        _check(path, where, "table", row["table"], row["table"].isdigit() and int(row["table"]) > 0,
               "the table number (a positive integer)")
        for column in parts:
            if column != SETTING:  # the 11-column layout packs parts joined by ';' (as_columns, to_columns)
                _check(path, where, column, row[column], ";" not in row[column], "a value without ';'")
            part = info.legacy.get(column, column)
            allowed = info.values.get(part)
            if allowed is not None:
                _check(path, where, column, row[column], row[column] in allowed,
                       "one of " + ", ".join(map(repr, allowed)))
        if SETTING in parts:
            _check(path, where, SETTING, row[SETTING], _setting_ok(row[SETTING]),
                   "key=value pairs joined by ';' (e.g. dataset=NQ;k=1), or empty")
        _check(path, where, "value", row["value"], _is_number(row["value"]), "a number, e.g. 41.97 or -0.06")
        marks = row["mark"].split("+") if row["mark"] else []
        _check(path, where, "mark", row["mark"], all(m in MARKS for m in marks) and len(set(marks)) == len(marks),
               "empty or " + ", ".join(MARKS) + " joined by '+'")
        key = from_columns(row, info.legacy)
        if key in seen:
            columns = ("paper", "table", *parts, "metric")
            found = excerpt("\t".join(row[c] for c in columns), quote=False)
            raise InputError(f"{path}: {where}, columns {', '.join(columns)}: found {found}, the key of {seen[key]} "
                             "too; expected each number once")
        seen[key] = where
    frame = pd.DataFrame([row for _, row in records.rows], columns=list(records.columns))
    frame = frame.rename(columns={c: p for c, p in info.legacy.items() if c in parts})
    return frame.astype({"table": int})  # value: the printed text (checked to parse as a number)


def as_columns(frame: pd.DataFrame, paper: str | None = None) -> pd.DataFrame:
    """Published rows (:func:`load`, several papers' at once too) in the
    11-column layout (:data:`COLUMNS`) the run's persisted files write: per
    row, ``model``, ``judge`` and ``context`` the parts its paper's
    :attr:`~authbench.papers.Paper.legacy` maps them to, every other
    non-empty part ``key=value`` in ``setting`` (in the file's column
    order; an 11-column file's ``setting`` text as written). ``paper``: of
    the rows without a ``paper`` column."""
    from authbench.claims.keys import NOT_PARTS, SETTING
    from authbench.papers.registry import paper_of

    parts = [c for c in frame.columns if c not in NOT_PARTS]
    papers = frame["paper"] if "paper" in frame.columns else [paper] * len(frame)
    # per paper: each of the layout's model, judge and context columns -> the part it shows
    fixed_of = {p: {c: paper_of(p).legacy.get(c, c) for c in COLUMNS[2:5]} for p in set(papers)}
    out = []
    for record, name in zip(frame.to_dict("records"), papers):
        record["paper"] = name
        fixed = fixed_of[name]
        row = {c: record.get(part, "") for c, part in fixed.items()}
        rest = [(c, record[c]) for c in parts if c not in fixed.values() and record[c] != ""]
        row[SETTING] = ";".join(str(v) if c == SETTING else f"{c}={v}" for c, v in rest)
        out.append({c: row[c] if c in row else record.get(c, "") for c in COLUMNS})
    return pd.DataFrame(out, columns=list(COLUMNS)).astype({"table": int})


def load_text(paper: str | None = None, directory: str | Path | None = None) -> pd.DataFrame:
    """:func:`load` with ``value`` the printed text (its digits give the rounding)."""
    from authbench.papers.registry import paper_of, papers

    names = [paper_of(paper).name] if paper is not None else list(papers())
    frames = [_read(Path(directory) / paper_of(name).published.name if directory is not None
                    else paper_of(name).published, name) for name in names]
    return pd.concat(frames, ignore_index=True).fillna("")  # a part column of another paper's file: empty


def load(paper: str | None = None, directory: str | Path | None = None) -> pd.DataFrame:
    """The published numbers of ``paper`` (a registered paper's name,
    :func:`authbench.papers.papers`; None: every paper, in registry order),
    rows in file order. ``directory``: another folder holding the TSVs
    (tests)."""
    return load_text(paper, directory).astype({"value": float})


def paper_models(paper: str) -> list[str]:
    """The sorted model names of ``paper``'s rows (the evaluated or
    evaluating LLMs; the ``Average`` rows and the model-less corpus rows
    left out)."""
    frame = load(paper)
    return sorted(set(frame["model"] if "model" in frame.columns else ()) - set(NOT_MODELS))
