"""Plain file records: JSON lines and tab-separated tables, written
deterministically; the one reader of user-supplied tables (CSV, TSV, JSON,
JSON lines, Parquet: :func:`read_records`) and of their text; file
hashes for manifests; the one test for a missing value."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import errno
import hashlib
import io
import json
import math
import os
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Mapping, Sequence

from authbench.errors import QUOTE_LIMIT, InputError, OutputError, excerpt


def mkparent(*paths: str | Path) -> None:
    """Create each path's parent folder (a step's outputs' folders, before it writes them)."""
    for p in paths:
        Path(p).parent.mkdir(parents=True, exist_ok=True)


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


def physical_lines(text: str) -> list[str]:
    """The lines of a file's text split at ``\n`` only (a ``\r`` before it is
    dropped): what a JSON-lines or TSV writer means by a line. Unlike
    ``str.splitlines()`` it does not split at U+2028, U+2029, U+0085 or the
    other separators Unicode knows, which a valid JSON string may hold raw
    (the pipeline writes them so, ``ensure_ascii=False``)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


# file name endings -> the format :func:`read_records` reads
FORMATS = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl",
           ".parquet": "parquet"}


@dataclasses.dataclass
class Records:
    """What :func:`read_records` read: the format, the columns (a table's
    header; JSON and Parquet: every key, in order of first appearance) and
    ``(where, record)`` per record, ``where`` naming it in error messages:
    ``line <n>`` (CSV, TSV, JSON lines; a record's first line), ``record <i>``
    (a JSON list, from 0), ``record '<key>'`` (a JSON object of records),
    ``row <n>`` (Parquet, from 1)."""

    format: str
    columns: list[str]
    rows: list[tuple[str, dict]]


def text_of(value: Any) -> str | None:
    """A cell as text, whatever the format gave: None (also NaN: a missing
    number) stays None, ``true``/``false`` for booleans, an integral float
    as Python writes it (``1.0``), lists and objects as JSON."""
    if is_missing(value):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def read_records(path: str | Path, expected: str, key: str | None = None, default: str = "csv",
                 quoted_tsv: bool = True, pad_short: bool = True) -> Records:
    """The records of a user-supplied table, by the file name's ending
    (:data:`FORMATS`): CSV (RFC 4180, strict), TSV (``quoted_tsv``: CSV
    quoting with tabs; else every tab splits and a quote is data), JSON (a
    list of records, or an object of records keyed by id: the key becomes
    column ``key``), JSON lines, Parquet (pyarrow, imported only here). Any
    other ending reads as ``default``: a format, ``sniff`` (TSV when the
    first line holds a tab, else CSV when it holds a comma, else TSV) or
    ``json-or-lines`` (a JSON list when the text starts with ``[``, else JSON
    lines). CSV and TSV cells are strings, blank lines skipped; a row with
    more fields than the header is an error, one with fewer has None in the
    missing columns (``pad_short=False``: an error too); JSON and Parquet
    values keep their type (:func:`text_of` gives the text).

    Every failure is an :class:`InputError` naming the file, where, what was
    ``expected`` and what was found (200 characters at most): invalid JSON or
    Parquet (a file that is not what its name says), a record that is not an
    object, an object of records whose values are not objects, or whose
    record holds ``key`` with another value than its key."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower(), default)
    if fmt == "parquet":
        return _read_parquet(path, expected)
    text = read_utf8(path, expected)
    if fmt == "sniff":
        first = next((line for line in physical_lines(text) if line.strip()), "")
        fmt = "tsv" if "\t" in first or "," not in first else "csv"
    if fmt in ("csv", "tsv"):
        return _read_table(path, text, fmt, quoted_tsv, pad_short)
    if fmt == "json-or-lines":
        fmt = "json" if text.lstrip().startswith("[") else "jsonl"
    rows = _json_lines(path, text, expected) if fmt == "jsonl" else _json_document(path, text, expected, key)
    for where, rec in rows:
        if not isinstance(rec, dict):
            raise InputError(f"{path}: {where}: expected a JSON object (a record: {expected}), found {excerpt(rec)}")
    return Records(fmt, list(dict.fromkeys(k for _, rec in rows for k in rec)), rows)


def _not_valid(path: Path, where: str, what: str, expected: str, text: str) -> InputError:
    return InputError(f"{path}: {where}: not valid {what}; expected {expected}; found {excerpt(text)}")


def _json_lines(path: Path, text: str, expected: str) -> list[tuple[str, object]]:
    out = []
    for n, line in enumerate(physical_lines(text), 1):
        if not line.strip():
            continue
        try:
            out.append((f"line {n}", json.loads(line)))
        except json.JSONDecodeError as err:
            raise _not_valid(path, f"line {n}, column {err.colno}", f"JSON ({err.msg})", expected,
                             line[:QUOTE_LIMIT]) from None
    return out


def _json_document(path: Path, text: str, expected: str, key: str | None) -> list[tuple[str, object]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        if err.msg == "Extra data" and text.lstrip().startswith("{"):
            return _json_lines(path, text, expected)  # JSON lines in a file named .json
        raise _not_valid(path, f"line {err.lineno}, column {err.colno}", f"JSON ({err.msg})", expected,
                         text[:QUOTE_LIMIT]) from None
    if isinstance(data, list):
        return [(f"record {i}", rec) for i, rec in enumerate(data)]
    if not isinstance(data, dict):
        raise InputError(f"{path}: line 1: expected {expected} (a JSON list of records, or an object of records "
                         f"keyed by id), found {excerpt(data)}")
    if key is None:
        raise InputError(f"{path}: line 1: a JSON object; expected {expected} as a JSON list of records")
    out = []
    for name, rec in data.items():
        where = f"record {excerpt(name, 80)}"
        if not isinstance(rec, dict):
            raise InputError(f"{path}: {where}: the file is a JSON object, read as records keyed by {key}, but "
                             f"this value is not an object (a record); found {excerpt(rec)}")
        if key in rec and text_of(rec[key]) != name:
            raise InputError(f"{path}: {where}: field '{key}' is {excerpt(rec[key])}, not the record's key "
                             f"(the key of an object of records is its '{key}')")
        out.append((where, {key: name, **{k: v for k, v in rec.items() if k != key}}))
    return out


def _read_table(path: Path, text: str, fmt: str, quoted_tsv: bool, pad_short: bool) -> Records:
    if fmt == "tsv" and not quoted_tsv:
        lines: Iterable = ((n, line.split("\t")) for n, line in enumerate(physical_lines(text), 1))
    else:
        lines = ((start, fields) for start, _end, fields in
                 csv_records(io.StringIO(text, newline=""), path, "\t" if fmt == "tsv" else ","))
    lines = ((n, fields) for n, fields in lines if any(cell.strip() for cell in fields))
    first = next(lines, None)
    if first is None:
        raise InputError(f"{path}: line 1: no header row")
    columns = first[1]
    if len(columns) == 1:
        _check_delimiter(path, columns[0], fmt)
    rows = []
    for n, fields in lines:
        if len(fields) > len(columns) or (len(fields) < len(columns) and not pad_short):
            raise InputError(f"{path}: line {n}: {len(fields)} fields, header has {len(columns)}")
        rows.append((f"line {n}", dict(zip(columns, fields + [None] * (len(columns) - len(fields))))))
    return Records(fmt, columns, rows)


# what another delimiter in a header of one column means (a column name holds none of them)
_DELIMITERS = {";": "semicolon", "\t": "tab", ",": "comma", "|": "pipe"}


def _check_delimiter(path: Path, header: str, fmt: str) -> None:
    """A header read as one column that holds another delimiter: the file is
    not in the format its name says (a spreadsheet saves "CSV" with semicolons
    where the decimal mark is a comma): an :class:`InputError` saying which."""
    found = [(d, name) for d, name in _DELIMITERS.items() if d in header and d != ("\t" if fmt == "tsv" else ",")]
    if not found:
        return
    d, name = max(found, key=lambda f: header.count(f[0]))
    fix = {"\t": "name it .tsv", ",": "name it .csv"}.get(d, "save it comma-separated (.csv) or tab-separated "
                                                              "(.tsv), with a point as the decimal mark")
    read = "TSV (tab-separated)" if fmt == "tsv" else "CSV (comma-separated)"
    raise InputError(f"{path}: line 1: the header is one column, {excerpt(header)}, which holds {name}s: the file "
                     f"looks {name}-separated, but it is read as {read}; {fix}")


def _read_parquet(path: Path, expected: str) -> Records:
    with open(path, "rb") as fh:
        head = fh.read(QUOTE_LIMIT)
    if not head.startswith(b"PAR1"):
        found = excerpt(head.decode("utf-8", errors="replace")) if head else "an empty file"
        raise InputError(f"{path}: not a Parquet file (no 'PAR1' magic bytes); expected {expected} in Parquet; "
                         f"found {found}")
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise InputError(f"{path}: unreadable Parquet ({excerpt(str(err), quote=False)}); expected {expected}") \
            from None
    return Records("parquet", list(table.column_names),
                   [(f"row {i}", rec) for i, rec in enumerate(table.to_pylist(), 1)])


def csv_records(lines: Iterable[str], path: str | Path, delimiter: str = ",") -> Iterator[tuple[int, int, list[str]]]:
    """(first line, last line, fields) of each CSV record of ``lines`` (a
    record may span lines inside quotes); a malformed record is an
    :class:`InputError` naming the file and line."""
    reader = csv.reader(lines, strict=True, delimiter=delimiter)
    while True:
        start = reader.line_num + 1
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise InputError(f"{path}: line {reader.line_num}: unreadable CSV ({err})") from None
        yield start, reader.line_num, fields


# errno values that mean "no space left": the message says "disk full"
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", **open_kw: Any) -> Iterator[IO]:
    """Open ``<path>.part`` (parent folders created) for the ``with`` block;
    at its end flush, fsync and rename it onto ``path``. So a writer killed
    mid-write never leaves a half-written file under the name (Snakemake
    would take it as complete), and the rename always makes a new file (a
    hard link to the old one, e.g. in a cell's history, keeps its bytes).
    On any exception the part file is removed and the file written before
    under ``path`` stays as it was; a full disk, or any failure of the final
    flush or rename, is an :class:`OutputError` naming the file. Text modes
    default to UTF-8."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    if "b" not in mode:
        open_kw.setdefault("encoding", "utf-8")
    try:
        with open(part, mode, **open_kw) as fh:
            try:
                yield fh
            except OSError as err:
                if err.errno not in _FULL:
                    raise
                raise _output_error(path, err) from None
            try:
                fh.flush()
                os.fsync(fh.fileno())
            except OSError as err:
                raise _output_error(path, err) from None
        try:
            os.replace(part, path)
        except OSError as err:
            raise _output_error(path, err) from None
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def _output_error(path: Path, err: OSError) -> OutputError:
    why = "disk full" if err.errno in _FULL else (err.strerror or str(err))
    return OutputError(f"{path}: cannot write ({why}); the file written before under this name is kept, "
                       "rerun once the cause is fixed")


def write_text(path: str | Path, text: str, **open_kw: Any) -> None:
    """``text`` into ``path`` through :func:`atomic_write` (UTF-8)."""
    with atomic_write(path, "w", **open_kw) as fh:
        fh.write(text)


def write_bytes(path: str | Path, data: bytes) -> None:
    """``data`` into ``path`` through :func:`atomic_write`."""
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def write_frame(frame: Any, path: str | Path, **to_csv: Any) -> None:
    """A pandas frame's ``to_csv(**to_csv)`` into ``path`` through :func:`atomic_write`."""
    with atomic_write(path, "w", newline="") as fh:
        frame.to_csv(fh, **to_csv)


def write_jsonl(rows: Iterable[Mapping], path: str | Path, seal: bool = False) -> None:
    """One JSON object a line (keys sorted), atomic. ``seal``: also write
    ``<path>.seal`` (lines, bytes, SHA-256 of what was written) that
    :func:`read_jsonl` checks, so a file cut between two jobs exactly at a
    line boundary (a lost write) is caught too."""
    lines = 0
    digest = hashlib.sha256()
    with atomic_write(path, "w") as fh:
        for row in rows:
            line = json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"
            fh.write(line)
            digest.update(line.encode("utf-8"))
            lines += 1
    if seal:
        write_text(seal_path(path), json.dumps({"bytes": Path(path).stat().st_size, "lines": lines,
                                                "sha256": digest.hexdigest()}, sort_keys=True) + "\n")
    else:  # a seal an earlier writer left would no longer describe the file
        seal_path(path).unlink(missing_ok=True)


def seal_path(path: str | Path) -> Path:
    return Path(f"{path}.seal")


def read_jsonl(path: str | Path) -> list[dict]:
    """The records of a JSON-lines file the pipeline wrote. A file cut short
    (a last line without its newline), a line that is not a JSON object, or
    a file that does not match its seal (see :func:`write_jsonl`) raises
    :class:`InputError` naming the file and the line."""
    data = Path(path).read_bytes()
    rows = []
    lines = data.split(b"\n")
    for n, line in enumerate(lines, 1):
        if n == len(lines):
            if line:
                raise InputError(f"{path}: line {n}: the file ends inside a line (no newline after "
                                 f"{excerpt(line.decode('utf-8', 'replace'))}): it was cut short; "
                                 "rerun the step that writes it")
            break
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise InputError(f"{path}: line {n}: not a JSON record ({excerpt(line.decode('utf-8', 'replace'))}); "
                             "the file is damaged, rerun the step that writes it") from None
        if not isinstance(row, dict):
            raise InputError(f"{path}: line {n}: expected a JSON object, found {excerpt(row)}")
        rows.append(row)
    _check_seal(path, data, len(lines) - 1)
    return rows


def _check_seal(path: str | Path, data: bytes, lines: int) -> None:
    try:
        seal = json.loads(seal_path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return
    except ValueError:
        raise InputError(f"{seal_path(path)}: line 1: unreadable seal; rerun the step that writes {path}") from None
    if lines < seal["lines"]:
        raise InputError(f"{path}: line {lines + 1}: missing: the file ends after line {lines} but the step that "
                         f"wrote it wrote {seal['lines']} lines (cut short, e.g. a lost write); rerun that step")
    if len(data) != seal["bytes"] or hashlib.sha256(data).hexdigest() != seal["sha256"]:
        raise InputError(f"{path}: {lines} lines, {len(data)} bytes differ from what the step that wrote it wrote "
                         f"({seal['lines']} lines, {seal['bytes']} bytes, recorded in {seal_path(path)}); "
                         "the file was changed or damaged after it was written: rerun that step")


def write_tsv(rows: Iterable[Mapping], path: str | Path, columns: Sequence[str]) -> None:
    """A TSV with exactly ``columns`` (extra keys ignored), parent folders created."""
    with atomic_write(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), delimiter="\t", lineterminator="\n",
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


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
