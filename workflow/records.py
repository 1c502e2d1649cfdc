"""Plain file records: JSON lines and tab-separated tables, written
deterministically; the one checked reader of user-supplied text files; file
hashes for manifests; the one test for a missing value."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import math
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence, TypeVar

from authbench.errors import InputError

T = TypeVar("T")


def read_utf8(path: str | Path, expected: str) -> str:
    """The whole text of a user-supplied file (a UTF-8 BOM is dropped). An empty
    file, or bytes that are not UTF-8, raise :class:`InputError` naming the file,
    line and byte, and ``expected`` (what the file should hold)."""
    path = Path(path)
    data = path.read_bytes()
    if not data.strip():
        raise InputError(f"{path}: line 1: the file is empty (expected {expected})")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise InputError(
            f"{path}: line {line}, byte {col}: bytes that are not UTF-8 ({data[err.start:err.start + 4]!r}); "
            f"expected {expected} in UTF-8"
        ) from None


def read_json_records(path: str | Path, expected: str) -> list[tuple[str, object]]:
    """(where, record) pairs of a JSON list (``record <i>``) or a JSON-lines
    file (``line <n>``, blank lines skipped); invalid JSON is an
    :class:`InputError` naming the file, line and column."""
    text = read_utf8(path, expected)
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise InputError(f"{path}: line {err.lineno}, column {err.colno}: not valid JSON ({err.msg})") from None
        return [(f"record {i}", rec) for i, rec in enumerate(data)]
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((f"line {n}", json.loads(line)))
        except json.JSONDecodeError as err:
            raise InputError(f"{path}: line {n}, column {err.colno}: not valid JSON ({err.msg})") from None
    return out


def csv_records(lines: Iterable[str], path: str | Path) -> Iterator[tuple[int, int, list[str]]]:
    """(first line, last line, fields) of each CSV record of ``lines`` (a
    record may span lines inside quotes); a malformed record is an
    :class:`InputError` naming the file and line."""
    reader = csv.reader(lines, strict=True)
    while True:
        start = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise InputError(f"{path}: line {reader.line_num}: unreadable CSV ({err})") from None
        yield start, reader.line_num, fields


def write_jsonl(rows: Iterable[Mapping], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


def read_jsonl(path: str | Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def write_tsv(rows: Iterable[Mapping], path: str | Path, columns: Sequence[str]) -> None:
    """A TSV with exactly ``columns`` (extra keys ignored), parent folders created."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), delimiter="\t", lineterminator="\n",
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def write_dataclass_tsv(rows: Iterable, cls: type, path: str | Path) -> None:
    """One row per dataclass instance, its fields as columns (csv quoting
    keeps tabs and quotes in values intact)."""
    names = [f.name for f in dataclasses.fields(cls)]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow([getattr(row, n) for n in names])


def read_dataclass_tsv(path: str | Path, cls: type[T]) -> list[T]:
    """Read :func:`write_dataclass_tsv`'s file back; ``int`` fields are converted."""
    fields = dataclasses.fields(cls)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [cls(**{f.name: int(r[f.name]) if f.type in ("int", int) else r[f.name] for f in fields}) for r in rows]


def write_drop_table(drops: Mapping[str, int], units: Mapping[str, str], kept: int, kept_unit: str,
                     path: str | Path) -> None:
    """``reason, unit, count`` for every known reason (zeros included), then ``kept``."""
    write_tsv([{"reason": r, "unit": u, "count": drops.get(r, 0)} for r, u in units.items()]
              + [{"reason": "kept", "unit": kept_unit, "count": kept}], path, ["reason", "unit", "count"])


def is_missing(value: Any) -> bool:
    """True for ``None`` and float NaN (pandas turns missing numbers into NaN)."""
    if value is None:
        return True
    try:
        return math.isnan(value)
    except TypeError:
        return False


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
