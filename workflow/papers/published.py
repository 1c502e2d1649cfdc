"""A paper's published numbers, transcribed from its text: one TSV per paper
(:attr:`authbench.papers.Paper.published`; the two shipped ones are
``resources/published/authoritybench.tsv`` and ``selfpref.tsv``), one row
per printed number. The column meanings, the vocabulary and every
transcription decision are in ``resources/published/README.md``.

* :func:`load` -> one :class:`pandas.DataFrame` (``table`` an int, ``value``
  a float, every other column a string, ``""`` for an empty cell), each row
  checked; a bad row is an :class:`~authbench.errors.InputError` naming the
  file, the line, the column and what was expected.
* :func:`paper_models` -> the model names a paper's tables use."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from authbench.errors import InputError, excerpt
from authbench.records import read_records

__all__ = ["COLUMNS", "KEY", "MARKS", "load", "load_text", "paper_models"]

COLUMNS = ("paper", "table", "model", "judge", "context", "setting", "metric", "value", "mark", "where", "note")
# the columns that name one number: no two rows of a file share them
KEY = ("paper", "table", "model", "judge", "context", "setting", "metric")
CONTEXTS = ("", "wo_text", "w_text")
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


def _read(path: Path, paper: str) -> pd.DataFrame:
    """The checked rows of one shipped TSV (plain tab-separated, no quoting)."""
    records = read_records(path, "the published numbers (resources/published/README.md)", default="tsv",
                           quoted_tsv=False, pad_short=False)
    if tuple(records.columns) != COLUMNS:
        header = excerpt("\t".join(records.columns), quote=False)
        raise InputError(f"{path}: line 1: header {header}; "
                         f"expected the columns {', '.join(COLUMNS)} in this order")
    seen: dict[tuple, str] = {}
    for where, row in records.rows:
        for column in REQUIRED:
            _check(path, where, column, row[column], row[column] != "", "a value (the column is never empty)")
        _check(path, where, "paper", row["paper"], row["paper"] == paper, f"{paper!r} (the file's paper)")
        _check(path, where, "table", row["table"], row["table"].isdigit() and int(row["table"]) > 0,
               "the table number (a positive integer)")
        _check(path, where, "context", row["context"], row["context"] in CONTEXTS,
               "one of " + ", ".join(map(repr, CONTEXTS)))
        _check(path, where, "value", row["value"], _is_number(row["value"]), "a number, e.g. 41.97 or -0.06")
        marks = row["mark"].split("+") if row["mark"] else []
        _check(path, where, "mark", row["mark"], all(m in MARKS for m in marks) and len(set(marks)) == len(marks),
               "empty or " + ", ".join(MARKS) + " joined by '+'")
        key = tuple(row[c] for c in KEY)
        if key in seen:
            found = excerpt("\t".join(key), quote=False)
            raise InputError(f"{path}: {where}, columns {', '.join(KEY)}: found {found}, the key of {seen[key]} too; "
                             "expected each number once")
        seen[key] = where
    frame = pd.DataFrame([row for _, row in records.rows], columns=list(COLUMNS))
    return frame.astype({"table": int})  # value: the printed text (checked to parse as a number)


def load_text(paper: str | None = None, directory: str | Path | None = None) -> pd.DataFrame:
    """:func:`load` with ``value`` the printed text (its digits give the rounding)."""
    from authbench.papers.registry import paper_of, papers

    names = [paper_of(paper).name] if paper is not None else list(papers())
    return pd.concat([_read(Path(directory) / paper_of(name).published.name if directory is not None
                            else paper_of(name).published, name) for name in names], ignore_index=True)


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
    return sorted(set(frame["model"]) - set(NOT_MODELS))
