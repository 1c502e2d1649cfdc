"""URL-log ingestion: a search/browse log -> registered domains with visit counts.

Researchers bring their own URL source (a list of visited URLs, or a session
export such as TianGong-ST's with clicked and shown result URLs); this module
turns it into the domain list that the homepage and label fetchers start from.

Rules:

* **Formats.** ``lines``: one URL per line; a line that is empty after trimming
  is dropped as ``blank``, a line whose first non-space character is ``#`` as
  ``comment``; the rest of the (trimmed) line is the URL. ``tsv``: a header row,
  then fields split on every tab (no quoting: a quote character is data).
  ``csv``: RFC 4180 (comma, double quotes, quoted newlines allowed). ``auto``
  picks ``tsv`` for ``.tsv``, ``csv`` for ``.csv`` and ``lines`` otherwise.
* **URL columns** (tsv/csv): every name in ``url_columns`` must be in the header
  (names are trimmed, case-sensitive). A cell may hold several URLs separated by
  ``separator`` (default: any whitespace); each URL counts as one visit. A cell
  with no URL is dropped as ``empty_cell``; an empty line as ``blank``. Other
  columns are ignored.
* **Reduction.** Each URL goes through :func:`authbench.net.registered_domain`
  (``http://`` added when there is no scheme; subdomains, ports, userinfo and
  paths stripped; punycode kept as written). Drops: ``unparsable_url``,
  ``ip_host``, ``no_registered_domain``.
* **Output rows** ``{domain, visits, distinct_urls}``: ``visits`` counts URL
  occurrences, ``distinct_urls`` distinct URL strings as written (after
  trimming). Sorted by visits (descending), then domain.
* **Broken input** stops with :class:`~authbench.records.InputError` naming file,
  line and column: a missing URL column (line 1), bytes that are not UTF-8
  (line, byte), a row whose field count differs from the header's. A UTF-8 BOM
  is ignored.
* **Large files** are streamed line by line; memory grows with the number of
  distinct URLs, not with the file size.
"""

from __future__ import annotations

import codecs
import csv
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

from authbench.errors import InputError, excerpt
from authbench.net import registered_domain
from authbench.records import atomic_write, csv_records

FORMATS = ("lines", "tsv", "csv")
DROP_REASONS = ("blank", "comment", "empty_cell", "unparsable_url", "ip_host", "no_registered_domain")
DOMAIN_COLUMNS = ("domain", "visits", "distinct_urls")


class _Tally:
    """Visit counts per registered domain plus drop counts."""

    def __init__(self, separator: str | None) -> None:
        self.separator = separator
        self.visits: Counter = Counter()
        self.urls: dict[str, set[str]] = defaultdict(set)
        self.drops: Counter = Counter()

    def url(self, url: str) -> None:
        domain, _suffix, reason = registered_domain(url)
        if domain is None:
            self.drops[reason] += 1
            return
        self.visits[domain] += 1
        self.urls[domain].add(url)

    def cell(self, cell: str) -> None:
        pieces = cell.split() if self.separator is None else [p.strip() for p in cell.split(self.separator)]
        pieces = [p for p in pieces if p]
        if not pieces:
            self.drops["empty_cell"] += 1
        for piece in pieces:
            self.url(piece)

    def rows(self) -> list[dict]:
        order = sorted(self.visits, key=lambda d: (-self.visits[d], d))
        return [{"domain": d, "visits": self.visits[d], "distinct_urls": len(self.urls[d])} for d in order]


def resolve_format(path: str | Path, fmt: str = "auto") -> str:
    """``auto`` -> by suffix (``.tsv``, ``.csv``, else ``lines``); others are checked."""
    if fmt == "auto":
        return {".tsv": "tsv", ".csv": "csv"}.get(Path(path).suffix.lower(), "lines")
    if fmt not in FORMATS:
        raise ValueError(f"unknown URL-log format {fmt!r} (expected auto, {', '.join(FORMATS)})")
    return fmt


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, decoded line with its newline), streamed; non-UTF-8 -> InputError."""
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            start = len(codecs.BOM_UTF8) if number == 1 and raw.startswith(codecs.BOM_UTF8) else 0
            try:
                yield number, raw[start:].decode("utf-8")
            except UnicodeDecodeError as err:
                at = start + err.start
                raise InputError(
                    f"{path}: line {number}, byte {at + 1}: bytes that are not UTF-8 ({raw[at:at + 4]!r}); "
                    "expected a UTF-8 file"
                ) from None


def _ingest_lines(path: Path, tally: _Tally) -> None:
    for _number, line in _lines(path):
        url = line.strip()
        if not url:
            tally.drops["blank"] += 1
        elif url.startswith("#"):
            tally.drops["comment"] += 1
        else:
            tally.url(url)


def _column_indexes(path: Path, header: list[str], url_columns: Sequence[str], line: int) -> list[int]:
    names = [name.strip() for name in header]
    indexes = []
    for column in url_columns:
        if column not in names:
            raise InputError(
                f"{path}: line {line}, column '{column}': missing URL column (found: {excerpt(', '.join(names) or 'none', quote=False)})"
            )
        indexes.append(names.index(column))
    return indexes


def _records(path: Path, fmt: str) -> Iterator[tuple[int, list[str]]]:
    """(line number where the record ends, fields) per record; [] for a blank line."""
    if fmt == "tsv":
        for number, line in _lines(path):
            text = line.rstrip("\r\n")
            yield number, (text.split("\t") if text.strip() else [])
        return
    for _start, end, fields in csv_records((line for _number, line in _lines(path)), path):
        blank = len(fields) <= 1 and not "".join(fields).strip()
        yield end, ([] if blank else fields)


def _ingest_table(path: Path, fmt: str, url_columns: Sequence[str], tally: _Tally) -> None:
    records = _records(path, fmt)
    first = next(records, None)
    if first is None or not first[1]:
        raise InputError(f"{path}: line 1: no header row (expected columns including {', '.join(url_columns)})")
    header_line, header = first
    indexes = _column_indexes(path, header, url_columns, header_line)
    for number, fields in records:
        if not fields:
            tally.drops["blank"] += 1
            continue
        if len(fields) != len(header):
            raise InputError(f"{path}: line {number}: {len(fields)} fields, header has {len(header)}")
        for index in indexes:
            tally.cell(fields[index])


def ingest_urllog(
    path: str | Path,
    *,
    fmt: str = "auto",
    url_columns: Sequence[str] = ("url",),
    separator: str | None = None,
) -> tuple[list[dict], Counter]:
    """Read a URL log; return domain rows (visits desc, domain) and drop counts by reason."""
    path = Path(path)
    fmt = resolve_format(path, fmt)
    if fmt != "lines" and not url_columns:
        raise ValueError("url_columns is empty: name at least one URL column")
    if separator == "":
        raise ValueError("separator must not be empty (None splits on whitespace)")
    tally = _Tally(separator)
    if fmt == "lines":
        _ingest_lines(path, tally)
    else:
        _ingest_table(path, fmt, url_columns, tally)
    return tally.rows(), tally.drops


def write_domains(rows: Sequence[dict], path: str | Path) -> None:
    """TSV with columns domain, visits, distinct_urls."""
    with atomic_write(path, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(DOMAIN_COLUMNS)
        for row in rows:
            writer.writerow([row[c] for c in DOMAIN_COLUMNS])


def write_drops(drops: Counter, path: str | Path) -> None:
    """TSV with columns reason, count: every known reason (zeros too), then any other, sorted."""
    extra = sorted(set(drops) - set(DROP_REASONS))
    with atomic_write(path, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(["reason", "count"])
        for reason in (*DROP_REASONS, *extra):
            writer.writerow([reason, drops.get(reason, 0)])
