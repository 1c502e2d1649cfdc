"""The records of a self-preference source and the fields its mapping names,
shared by both mapping forms (record-wise: :mod:`authbench.studies.selfpref.data`;
one row per passage: :mod:`authbench.studies.selfpref.longform`)."""

from __future__ import annotations

import difflib
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from authbench.errors import ConfigError, InputError, excerpt
from authbench.records import read_records, text_of

_BOOLEAN_WORDS = {"true": "true", "yes": "true", "on": "true", "1": "true",
                  "false": "false", "no": "false", "off": "false", "0": "false"}


def map_key(value: Any) -> str:
    """A value-map key or a file's value as the normalised string they are
    compared as: whitespace collapsed, case folded, an integral number
    without its ``.0``, and the boolean words (true/yes/on/1,
    false/no/off/0: YAML 1.1's booleans, 0/1, either case) as ``true`` /
    ``false``; null and a missing value as ``""``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = " ".join(str(value).split()).casefold()
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None and number.is_integer():
        text = str(int(number))
    return _BOOLEAN_WORDS.get(text, text)


def value_map(values: Mapping[Any, Any], where: str) -> dict[str, Any]:
    """A long-form value map with its keys normalised (:func:`map_key`); two
    keys that normalise alike but map to different values (``yes`` and
    ``"true"``) are a :class:`ConfigError`."""
    out: dict[str, Any] = {}
    given: dict[str, Any] = {}
    for key, value in values.items():
        norm = map_key(key)
        if norm in out and out[norm] != value:
            raise ConfigError(f"{where}: keys {given[norm]!r} and {key!r} are the same value once normalised "
                              f"({norm!r}: case, whitespace, 1/0, yes/no and true/false are compared alike) but map "
                              f"to {out[norm]!r} and {value!r}")
        out[norm], given[norm] = value, key
    return out

VARIANTS = ("normal", "long", "qa")


def clean(text: str) -> str:
    """``text`` with its whitespace collapsed: how questions are joined."""
    return " ".join(text.split())


def read_passage_records(path: str | Path) -> list[tuple[str, dict]]:
    """(where, record) of a source file: by its name a CSV, TSV, JSON (a list
    of records, or an object of records keyed by id: the key becomes field
    ``id``), JSON lines or Parquet file; any other name a JSON list or JSON
    lines (:func:`authbench.records.read_records`)."""
    return read_records(path, "records with the fields the mapping names", key="id", default="json-or-lines").rows


def field(rec: Mapping, name: str | None, path: Path, where: str, nullable: bool = False,
          answer: bool = False) -> str | None:
    """The string a mapped field holds; None when nothing is mapped, or when
    ``nullable`` (``false_answer``: counted as ``no_false_answer``) and the
    value is null; an ``answer`` (the gold, a false answer) may also be a
    JSON number, read as its text (a year: ``1989``). A record without the
    field, or with a value that is not a string, is an :class:`InputError`
    naming the file, record and field (a list: say that one answer is read)."""
    if name is None:
        return None
    if name not in rec:
        raise InputError(f"{path}: {where}: no field '{name}' (the mapping names it; other records of the file "
                         "have it)")
    value = rec[name]
    if value is None and nullable:
        return None
    if answer and isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return text_of(value)  # a JSON number (a year as the answer: 1989) is its text
    if not isinstance(value, str):
        hint = ("; a list of answers is not read: map a field holding the one answer to substitute"
                if answer and isinstance(value, (list, tuple)) else "")
        raise InputError(f"{path}: {where}: field '{name}': expected a string, got {excerpt(value)}{hint}")
    return value


def file_fields(records: Sequence[tuple[str, Mapping]]) -> list[str]:
    """Every field of the records, in order of first appearance."""
    fields: dict[str, None] = {}
    for _, rec in records:
        fields.update(dict.fromkeys(rec))
    return list(fields)


def check_fields(where: str, records: Sequence[tuple[str, Mapping]], mapped: Sequence[tuple[str, str]]) -> None:
    """A field the mapping names (``mapped``: mapping key, field name) that
    no record of the file has (a misspelt or wrong name) is a
    :class:`ConfigError` naming the mapping key, the file and its fields
    (close matches first): never a silent fallback to substitution."""
    if not records:
        return
    fields = file_fields(records)
    for key, name in mapped:
        if name not in fields:
            close = difflib.get_close_matches(name, fields, n=3, cutoff=0.6)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            raise ConfigError(f"{where}, {key}: field '{name}' is in no record of the file{hint}. The file's fields: "
                              f"{excerpt(', '.join(fields), quote=False)}")
