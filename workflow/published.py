"""The two papers' published numbers, transcribed from their text versions:
``resources/published/authoritybench.tsv`` (AuthorityBench, submission
version, Tables 1-12) and ``resources/published/selfpref.tsv`` (the RAG
self-preference study, Tables 1-9); one row per printed number. The column
meanings, the vocabulary and every transcription decision are in
``resources/published/README.md``.

* :func:`load` -> one :class:`pandas.DataFrame` (``table`` an int, ``value``
  a float, every other column a string, ``""`` for an empty cell), each row
  checked; a bad row is an :class:`~authbench.errors.InputError` naming the
  file, the line, the column and what was expected.
* :func:`paper_models` -> the model names a paper's tables use.

The files are found relative to the repository (``resources/published/``
beside ``workflow/``), so this reads them from a checkout or an editable
install only."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from authbench.errors import InputError, excerpt
from authbench.records import read_records

__all__ = ["COLUMNS", "DIRECTORY", "KEY", "MARKS", "PAPERS", "load", "paper_models"]

DIRECTORY = Path(__file__).resolve().parents[1] / "resources" / "published"
PAPERS = {"authoritybench": "authoritybench.tsv", "selfpref": "selfpref.tsv"}
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
    return frame.astype({"table": int, "value": float})


def load(paper: str | None = None, directory: str | Path | None = None) -> pd.DataFrame:
    """The published numbers of ``paper`` (``"authoritybench"`` or
    ``"selfpref"``; None: both, AuthorityBench first), rows in file order.
    ``directory``: another folder holding the TSVs (tests); default
    :data:`DIRECTORY`."""
    if paper is not None and paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; expected one of {', '.join(PAPERS)}")
    folder = Path(directory) if directory is not None else DIRECTORY
    names = [paper] if paper is not None else list(PAPERS)
    return pd.concat([_read(folder / PAPERS[name], name) for name in names], ignore_index=True)


def paper_models(paper: str) -> list[str]:
    """The sorted model names of ``paper``'s rows (the evaluated or
    evaluating LLMs; the ``Average`` rows and the model-less corpus rows
    left out)."""
    frame = load(paper)
    return sorted(set(frame["model"]) - set(NOT_MODELS))
