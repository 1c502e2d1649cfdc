"""A researcher's own entity list in, the EntityAuth benchmark's files out:
:func:`read_entities` reads the list (JSONL or TSV/CSV) that
:func:`~authbench.fetch.wikidata.fetch_sitelinks` resolves;
:func:`write_entities` writes the resolved rows as the benchmark's JSONL (Ni
et al. 2025 format: one object per entity, ``question``, ``reference``,
``popularity``, ``question_entity``, plus ``qid`` and ``resolved_by``) and
:func:`write_unresolved` the names left unresolved or failed as a TSV.

Input rules (:func:`read_entities`)
  * JSONL: one object per line with ``question_entity`` (or ``name``), optional
    ``question`` (string), ``reference`` (list of strings, or one string) and
    ``qid``. TSV/CSV (chosen by extension, else sniffed): a header with ``name``
    (or ``question_entity``) and optional ``question``, ``reference`` (values
    separated by ``|``) and ``qid``.
  * Names are stripped. A blank name is dropped as ``blank_name``; a name seen
    before (exact, case-sensitive) is dropped as ``duplicate``.
  * Broken input stops with :class:`InputError` naming file, line and field:
    empty file, bytes that are not UTF-8, an invalid JSON line or a line that is
    not an object, a missing name key/column, a row with more fields than the
    header, a field of the wrong type, a ``qid`` that is not a Wikibase item id
    (``Q`` + 1-10 digits without a leading zero, the form Wikibase's ``ItemId``
    parser accepts; anything else makes wbgetentities fail the whole batch).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from authbench.errors import InputError, excerpt
from authbench.fetch.wikidata_api import QID_RE
from authbench.records import atomic_write, physical_lines, read_utf8


def _input_format(path: Path, text: str) -> str:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if suffix in (".tsv", ".tab"):
        return "tsv"
    if suffix == ".csv":
        return "csv"
    first = text.lstrip()
    if first.startswith("{"):
        return "jsonl"
    header = physical_lines(first)[0] if first else ""
    return "tsv" if "\t" in header else "csv"


def _check_qid(value: Any, path: Path, line: int, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(f"{path}: line {line}, {where} 'qid': {excerpt(value)} is not a string (expected e.g. Q42)")
    value = value.strip()
    if not value:
        return None
    if not QID_RE.fullmatch(value):
        raise InputError(
            f"{path}: line {line}, {where} 'qid': {excerpt(value)} is not a Wikidata item id (expected Q followed by digits, e.g. Q42)"
        )
    return value


def _reference_list(value: Any, path: Path, line: int) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InputError(f"{path}: line {line}, field 'reference': expected a list of strings, got {excerpt(value)}")


def _jsonl_records(path: Path, text: str) -> Iterator[tuple[int, dict]]:
    for line, raw in enumerate(physical_lines(text), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError as err:
            raise InputError(f"{path}: line {line}, column {getattr(err, 'colno', '?')}: invalid JSON ({err})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}: line {line}: expected a JSON object, got {type(obj).__name__}")
        key = "question_entity" if "question_entity" in obj else "name" if "name" in obj else None
        if key is None:
            raise InputError(f"{path}: line {line}, field 'question_entity': missing (expected 'question_entity' or 'name')")
        name, question = obj[key], obj.get("question")
        if not isinstance(name, str):
            raise InputError(f"{path}: line {line}, field '{key}': expected a string, got {excerpt(name)}")
        if question is not None and not isinstance(question, str):
            raise InputError(f"{path}: line {line}, field 'question': expected a string, got {excerpt(question)}")
        yield line, {
            "name": name.strip(),
            "question": question or "",
            "reference": _reference_list(obj.get("reference"), path, line),
            "qid": _check_qid(obj.get("qid"), path, line, "field"),
        }


def _table_records(path: Path, text: str, delimiter: str) -> Iterator[tuple[int, dict]]:
    # TSV is read without quoting (a name may start with a quote: "Heroes" (song)); CSV uses RFC 4180 quoting
    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter, quoting=quoting)
    columns = [c.strip() if c else c for c in (reader.fieldnames or [])]
    reader.fieldnames = columns
    key = "name" if "name" in columns else "question_entity" if "question_entity" in columns else None
    if key is None:
        raise InputError(f"{path}: line 1: missing column 'name' (found: {excerpt(', '.join(c for c in columns if c) or 'none', quote=False)})")
    for row in reader:
        line = reader.line_num
        if None in row:
            raise InputError(f"{path}: line {line}: {len(columns) + len(row[None])} fields, header has {len(columns)}")
        refs = row.get("reference") or ""
        yield line, {
            "name": (row.get(key) or "").strip(),
            "question": (row.get("question") or "").strip(),
            "reference": [r.strip() for r in refs.split("|") if r.strip()],
            "qid": _check_qid(row.get("qid"), path, line, "column"),
        }


def read_entities(path: str | Path) -> tuple[list[dict], Counter]:
    """Entities ``{name, question, reference, qid}`` in input order, and drop counts."""
    path = Path(path)
    text = read_utf8(path, "JSON lines or a table with a 'name' column")
    fmt = _input_format(path, text)
    records = _jsonl_records(path, text) if fmt == "jsonl" else _table_records(path, text, "\t" if fmt == "tsv" else ",")
    entities: list[dict] = []
    drops: Counter = Counter()
    seen: set[str] = set()
    for _line, rec in records:
        if not rec["name"]:
            drops["blank_name"] += 1
        elif rec["name"] in seen:
            drops["duplicate"] += 1
        else:
            seen.add(rec["name"])
            entities.append(rec)
    return entities, drops


# ------------------------------------------------------------------------ output


def write_entities(rows: Iterable[Mapping], path: str | Path) -> None:
    """JSONL in the Ni et al. format plus ``qid`` and ``resolved_by``; keys sorted."""
    keys = ("question", "reference", "popularity", "question_entity", "qid", "resolved_by")
    with atomic_write(path, "w") as fh:
        fh.writelines(json.dumps({k: row[k] for k in keys}, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)


def write_unresolved(unresolved: Iterable[Mapping], failed: Iterable[Mapping], path: str | Path) -> None:
    """TSV ``name, reason, candidates``; failed names get reason ``fetch_failed: <why>``."""
    lines = [("name", "reason", "candidates")]
    lines += [(row["name"], row["reason"], row.get("candidates", "")) for row in unresolved]
    lines += [(row["name"], f"fetch_failed: {row['reason']}", "") for row in failed]
    with atomic_write(path, "w", newline="") as fh:
        fh.writelines("\t".join(_tsv_field(f) for f in fields) + "\n" for fields in lines)


def _tsv_field(value: Any) -> str:
    """Plain TSV, no quoting: tabs and line breaks inside a value become spaces."""
    return re.sub(r"[\t\r\n]+", " ", str(value))
