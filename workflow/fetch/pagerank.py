"""Open PageRank labels for a domain list: the live API or the bulk top-10M file.

Domain lists (:func:`read_domain_list`)
    Either a table whose header has a ``domain`` column (the delimiter is
    sniffed from the header line: a tab makes it TSV, else a comma makes it
    CSV), or a plain file with one domain or URL per line and no header. A first
    line holding a tab or a comma is a table header; without a ``domain`` column
    it is an error. Every value is reduced to its registered domain with
    :func:`authbench.net.registered_domain`; drops are counted by reason
    (``unparsable_url``, ``ip_host``, ``no_registered_domain``, ``duplicate``).
    Blank lines are skipped silently; a non-blank row with an empty ``domain``
    cell counts as ``unparsable_url``. Order is kept (first occurrence). An empty
    file, bytes that are not UTF-8 or a row with more fields than the header
    raise :class:`~authbench.records.InputError` naming file and line.

API (:func:`fetch_openpagerank`)
    ``GET {url}?domains[]=a.com&domains[]=b.com`` with the key in the request
    header ``API-OPR``. The answer (format of the official documentation)::

        {"status_code": 200, "last_updated": "...", "response": [
          {"status_code": 200, "error": "", "page_rank_integer": 8,
           "page_rank_decimal": 7.63, "rank": "40", "domain": "apple.com"},
          {"status_code": 404, "error": "Domain not found", "page_rank_integer": 0,
           "page_rank_decimal": 0, "rank": null, "domain": "unknowndomain.com"}]}

    ``rank`` is a string (the global position) or null. A bad key is answered
    with a different envelope, ``{"status": false, "error": "Invalid API key"}``.

    * Batching: at most 100 domains per request (the API's limit); a larger
      ``batch_size`` is a :class:`ValueError`. Domains are lower-cased and
      de-duplicated; answer entries are matched to requested domains
      case-insensitively.
    * Per-domain answers: ``status_code`` 200 -> ``status`` "ok" with
      ``page_rank`` = ``page_rank_integer`` (0..10), ``page_rank_decimal`` and
      ``rank``. Any other per-domain ``status_code`` -> ``status`` "error" with
      the API's ``error`` text and EMPTY ``page_rank``/``page_rank_decimal``/
      ``rank`` (the 0 the API puts there is not a label).
    * Cached: every answered domain (ok or per-domain error) is appended to the
      :class:`~authbench.fetch.cache.ProgressCache` (``key`` = domain) right after
      its batch. A domain already in the cache is never requested again (delete
      the cache file to refresh).
    * Failed (reported in ``outcome.failed`` as ``{domain, reason}``, NOT cached,
      so a rerun asks again; the fetch continues with the next batch): a batch
      whose request still fails after the client's retries (HTTP 429/5xx,
      timeouts and connection errors are retried by
      :class:`~authbench.net.HttpClient`, which honours ``Retry-After``;
      other 4xx are not retried), whose body stays malformed JSON, or whose
      top-level ``status_code`` is not 200 / ``status`` is false / ``response``
      is not a list; a requested domain absent from the answer
      ("missing from answer"); an entry whose ``status_code`` or (for 200)
      ``page_rank_integer`` is unusable ("malformed entry: ..."). Entries for
      domains that were not asked are ignored and counted
      (``unexpected_entries``).
    * Secrets: the key travels only in the ``API-OPR`` header, only over https
      (an ``http://`` ``url`` is a :class:`~authbench.errors.ConfigError` unless
      ``allow_http``, the config's ``fetch.pagerank.allow_http``: a test server
      or a mirror on one's own machine), and the request follows no redirect (a
      3xx fails the batch with :class:`~authbench.net.SecretRedirectError`,
      naming only the target's address without query). Headers are never
      logged; the client's errors strip query strings; any text taken from an
      answer (error messages) has the key masked as ``***`` before it reaches a
      log line, an exception, the cache or an output row.

Bulk file (:func:`bulk_pagerank`)
    Open PageRank's "top 10 million domains" CSV, header
    ``"Rank","Domain","Open Page Rank"``, every value quoted, the score with two
    decimals (``"1","fonts.googleapis.com","10.00"``). It is streamed with
    :mod:`csv`; only rows for the wanted domains are kept. The file lists hosts:
    a row labels registered domain D only when its host, lower-cased and without
    a leading ``www.``, *is* D (a subdomain such as ``fonts.googleapis.com`` has
    its own score and does not label ``googleapis.com``). When two rows give the
    same domain (``facebook.com`` and ``www.facebook.com``) the first one, i.e.
    the better ranked, wins. ``domains=None`` keeps every row whose host is a
    registered domain (subdomain rows are counted in ``subdomain_rows``); this
    normalizes every host and takes minutes on the full file. Wanted domains not
    in the file get ``status`` "error", ``error`` "not in bulk file"; wanted values
    that are not registered domains go to ``failed``. A row with the wrong field
    count, a non-integer ``Rank`` or a ``Open Page Rank`` that is not a number in
    0..10 raises InputError naming file, line and column.

    Decimal -> integer rule: ``round`` (half up, ``7.50`` -> 8) is the default
    because it is what the API's own ``page_rank_integer`` does: the official
    documentation's example answer pairs ``page_rank_decimal`` 7.63 with
    ``page_rank_integer`` 8 (floor would give 7), and no published answer pairs
    a fraction >= .5 with the lower integer (5.56 -> 6, 6.85 -> 7; 6.4 -> 6,
    4.27 -> 4). ``floor`` is available for studies that define the levels as
    lower bounds. Both work on the exact two-decimal string (:mod:`decimal`), so
    there is no binary-float surprise at ``.50``; ``10.00`` -> 10.

Output (:func:`write_pagerank`)
    A comma-separated CSV with exactly :data:`PAGERANK_COLUMNS`; missing values
    are empty cells. The DomainAuth builder reads ``domain`` and ``page_rank`` and
    keeps rows whose ``status`` is "ok".
"""

from __future__ import annotations

import csv
import io
import logging
import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from authbench.errors import ConfigError, FetchError, InputError, excerpt
from authbench.fetch.cache import ProgressCache
from authbench.net import HttpClient, clean_key, registered_domain
from authbench.records import atomic_write, physical_lines, read_utf8
from tqdm import tqdm

log = logging.getLogger("authbench.fetch.pagerank")

API_URL = "https://openpagerank.com/api/v1.0/getPageRank"
API_KEY_HEADER = "API-OPR"
MAX_BATCH = 100  # the API answers at most 100 domains per request
MAX_PAGERANK = 10
API_SOURCE = "openpagerank_api"
MISSING = "missing from answer"
NOT_IN_BULK = "not in bulk file"
ROUNDING_RULES = ("round", "floor")
BULK_COLUMNS = ("rank", "domain", "open page rank")  # matched case-insensitively

PAGERANK_COLUMNS = ("domain", "page_rank", "page_rank_decimal", "rank", "status", "status_code", "error", "source")

DROP_REASONS = ("unparsable_url", "ip_host", "no_registered_domain", "duplicate")


@dataclass
class PageRankOutcome:
    rows: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)


# --------------------------------------------------------------------------- #
# domain lists



def _first_content_line(text: str) -> str:
    for line in physical_lines(text):
        if line.strip():
            return line
    return ""


def _table_values(text: str, path: Path, delimiter: str) -> Iterator[tuple[int, str]]:
    """(line, domain cell) for every non-blank row of a table with a 'domain' column."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header: list[str] | None = None
    index = -1
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = [cell.strip().lower() for cell in row]
            if "domain" not in header:
                raise InputError(f"{path}: line {reader.line_num}: the header has no 'domain' column "
                                 f"(found: {excerpt(', '.join(header), quote=False)}); a first line with a "
                                 f"{'tab' if delimiter == chr(9) else 'comma'} is read as a table header")
            index = header.index("domain")
            continue
        if len(row) > len(header):
            raise InputError(f"{path}: line {reader.line_num}: {len(row)} fields, header has {len(header)}")
        yield reader.line_num, row[index] if index < len(row) else ""


def _plain_values(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(physical_lines(text), start=1):
        if line.strip():
            yield number, line.strip()


def read_domain_list(path: str | Path) -> tuple[list[str], Counter]:
    """Registered domains of a domain list (table with 'domain' column or one per line) and drop counts."""
    path = Path(path)
    text = read_utf8(path, "domains, one per line, or a table with a 'domain' column")
    first = _first_content_line(text)
    if "\t" in first:
        values = _table_values(text, path, "\t")
    elif "," in first:
        values = _table_values(text, path, ",")
    else:
        values = _plain_values(text)
    drops: Counter = Counter()
    seen: set[str] = set()
    domains: list[str] = []
    for _line, value in values:
        domain, _suffix, reason = registered_domain(value)
        if domain is None:
            drops[reason] += 1
        elif domain in seen:
            drops["duplicate"] += 1
        else:
            seen.add(domain)
            domains.append(domain)
    return domains, drops


# --------------------------------------------------------------------------- #
# API


def api_key_from_env(var_name: str) -> str:
    """The API key from an environment variable, stripped; FetchError naming the
    variable when unset/empty, :class:`~authbench.errors.KeyFormatError` (naming only
    the variable) when it holds a character outside printable ASCII."""
    value = os.environ.get(var_name, "").strip()
    if not value:
        raise FetchError(f"environment variable {var_name} is not set or empty; it must hold the Open PageRank "
                         "API key (the variable is config key 'fetch.pagerank.api_key_env'). Start the run with it "
                         f"set, e.g. {var_name}=<your key> make run CONFIG=<your overlay>")
    return clean_key(value, var_name)


def _mask(text: Any, secret: str) -> str:
    text = "" if text is None else str(text)
    return text.replace(secret, "***") if secret else text


def _norm(domain: Any) -> str:
    return str(domain).strip().lower().rstrip(".")


def _unique(domains: Iterable[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for domain in domains:
        key = _norm(domain)
        if key and key not in seen:
            seen.add(key)
            out.append(key)
    return out


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if number.is_integer() else None


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def _as_rank(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip()
    return text or None


def _row(domain: str, *, page_rank=None, decimal=None, rank=None, status: str, status_code=None,
         error: str = "", source: str) -> dict:
    return {"domain": domain, "page_rank": page_rank, "page_rank_decimal": decimal, "rank": rank,
            "status": status, "status_code": status_code, "error": error, "source": source}


def _entry_row(domain: str, entry: Mapping, secret: str) -> tuple[dict | None, str]:
    """The row for one answer entry, or (None, reason) when the entry is unusable."""
    code = _as_int(entry.get("status_code"))
    if code is None:
        return None, f"malformed entry: status_code {_mask(entry.get('status_code'), secret)[:40]!r}"
    if code != 200:
        error = _mask(entry.get("error"), secret).strip() or f"status_code {code}"
        return _row(domain, status="error", status_code=code, error=error, source=API_SOURCE), ""
    level = _as_int(entry.get("page_rank_integer"))
    if level is None or not 0 <= level <= MAX_PAGERANK:
        shown = _mask(entry.get("page_rank_integer"), secret)[:40]
        return None, f"malformed entry: page_rank_integer {shown!r} (expected 0..{MAX_PAGERANK})"
    return _row(domain, page_rank=level, decimal=_as_float(entry.get("page_rank_decimal")),
                rank=_as_rank(entry.get("rank")), status="ok", status_code=code, source=API_SOURCE), ""


def _batch_error(payload: Any, secret: str) -> str:
    """Why a whole answer is unusable ('' when it is fine)."""
    if not isinstance(payload, dict):
        return f"malformed answer: a JSON {type(payload).__name__}, expected an object"
    message = _mask(payload.get("error") or payload.get("message") or "", secret).strip()[:200]
    if payload.get("status") is False:
        return f"API error: {message or 'status false'}"
    code = _as_int(payload.get("status_code"))
    if code != 200:
        return f"API status_code {_mask(payload.get('status_code'), secret)[:40]}: {message or 'no error message'}"
    if not isinstance(payload.get("response"), list):
        return "malformed answer: no 'response' list"
    return ""


@dataclass
class _BatchResult:
    rows: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    unexpected: int = 0


def _parse_answer(batch: Sequence[str], payload: Any, secret: str) -> _BatchResult:
    result = _BatchResult()
    reason = _batch_error(payload, secret)
    if reason:
        result.failed = [{"domain": d, "reason": reason} for d in batch]
        return result
    wanted = set(batch)
    entries: dict[str, Mapping] = {}
    for entry in payload["response"]:
        key = _norm(entry.get("domain", "")) if isinstance(entry, dict) else ""
        if key not in wanted or key in entries:
            result.unexpected += 1
            continue
        entries[key] = entry
    for domain in batch:
        entry = entries.get(domain)
        if entry is None:
            result.failed.append({"domain": domain, "reason": MISSING})
            continue
        row, why = _entry_row(domain, entry, secret)
        if row is None:
            result.failed.append({"domain": domain, "reason": why})
        else:
            result.rows.append(row)
    return result


def _cached_row(domain: str, record: Mapping) -> dict:
    values = {column: record.get(column) for column in PAGERANK_COLUMNS}
    values["domain"] = domain
    values["error"] = values["error"] or ""
    values["source"] = values["source"] or API_SOURCE
    return values


def _batches(items: Sequence[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def _check_batch_size(batch_size: int) -> None:
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if batch_size > MAX_BATCH:
        raise ValueError(f"batch_size {batch_size} exceeds the Open PageRank API limit of "
                         f"{MAX_BATCH} domains per request")


def check_api_url(url: str, allow_http: bool = False) -> None:
    """The Open PageRank ``api_url`` carries the key: https, unless ``allow_http``
    (``fetch.pagerank.allow_http``); no userinfo. A :class:`ConfigError` names the key only."""
    parts = urlsplit(str(url))
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ConfigError("config key 'fetch.pagerank.api_url' is not an http(s) URL")
    if parts.username is not None or parts.password is not None:
        raise ConfigError("config key 'fetch.pagerank.api_url' holds a user name or password (user:pass@host): "
                          "the key goes in the variable named by 'fetch.pagerank.api_key_env'")
    if parts.scheme != "https" and not allow_http:
        raise ConfigError("config key 'fetch.pagerank.api_url' is http://: the API key would travel in clear. Use "
                          "https, or set 'fetch.pagerank.allow_http: true' for a server on your own machine")


def _request_batch(client: HttpClient, url: str, batch: Sequence[str], api_key: str) -> Any:
    params = [("domains[]", domain) for domain in batch]
    return client.get_json(url, params=params, headers={API_KEY_HEADER: api_key}, secret=True)


def fetch_openpagerank(
    domains: Iterable[str],
    client: HttpClient,
    api_key: str,
    cache: ProgressCache,
    *,
    url: str = API_URL,
    batch_size: int = MAX_BATCH,
    progress: bool = True,
    allow_http: bool = False,
) -> PageRankOutcome:
    """Open PageRank for every domain not yet in ``cache``; see the module docstring for the rules."""
    _check_batch_size(batch_size)
    check_api_url(url, allow_http)
    if not api_key or not api_key.strip():
        raise FetchError("the Open PageRank API key is empty")
    wanted = _unique(domains)
    done = cache.load()
    todo = [d for d in wanted if d not in done]
    stats = {"requested_batches": 0, "cached": len(wanted) - len(todo), "answered": 0,
             "per_domain_errors": 0, "failed": 0, "unexpected_entries": 0}
    answered: dict[str, dict] = {}
    failed: list[dict] = []
    n_batches = -(-len(todo) // batch_size)
    with tqdm(total=len(todo), unit="domain", desc="Open PageRank", file=sys.stderr,
              disable=not progress) as bar:
        for number, batch in enumerate(_batches(todo, batch_size), start=1):
            stats["requested_batches"] += 1
            try:
                payload = _request_batch(client, url, batch, api_key)
            except FetchError as err:
                result = _BatchResult(failed=[{"domain": d, "reason": _mask(err, api_key)} for d in batch])
            else:
                result = _parse_answer(batch, payload, api_key)
            cache.add({"key": row["domain"], **row} for row in result.rows)
            for row in result.rows:
                answered[row["domain"]] = row
            failed.extend(result.failed)
            stats["answered"] += len(result.rows)
            stats["per_domain_errors"] += sum(row["status"] == "error" for row in result.rows)
            stats["unexpected_entries"] += result.unexpected
            if result.failed:
                log.warning("Open PageRank batch %d/%d: %d of %d domains failed (%s)", number, n_batches,
                            len(result.failed), len(batch), result.failed[0]["reason"])
            bar.update(len(batch))
    stats["failed"] = len(failed)
    rows = [answered[d] if d in answered else _cached_row(d, done[d])
            for d in wanted if d in answered or d in done]
    log.info("Open PageRank: %d domains, %d from cache, %d answered (%d per-domain errors), %d failed",
             len(wanted), stats["cached"], stats["answered"], stats["per_domain_errors"], stats["failed"])
    return PageRankOutcome(rows=rows, failed=failed, stats=stats)


# --------------------------------------------------------------------------- #
# bulk file


def to_level(value: str, rounding: str = "round") -> int:
    """A 0..10 decimal score (as written in the file) -> integer level by ``round`` (half up) or ``floor``."""
    mode = {"round": ROUND_HALF_UP, "floor": ROUND_FLOOR}[rounding]
    return int(Decimal(value.strip()).to_integral_value(rounding=mode))


def _parse_score(value: str, path: Path, line: int, column: str) -> Decimal:
    try:
        number = Decimal(value.strip())
    except InvalidOperation:
        number = Decimal("NaN")
    if not number.is_finite() or not 0 <= number <= MAX_PAGERANK:
        raise InputError(f"{path}: line {line}, column '{column}': {excerpt(value)} is not a number in 0..{MAX_PAGERANK}")
    return number


def _parse_rank(value: str, path: Path, line: int, column: str) -> str:
    text = value.strip()
    if not text.isdigit():
        raise InputError(f"{path}: line {line}, column '{column}': {excerpt(value)} is not a positive integer rank")
    return text


def _bulk_header(row: list[str] | None, path: Path) -> tuple[list[str], dict[str, int]]:
    if row is None:
        raise InputError(f"{path}: line 1: the file is empty (expected the header \"Rank\",\"Domain\",\"Open Page Rank\")")
    header = [cell.strip() for cell in row]
    lowered = [cell.lower() for cell in header]
    missing = [name for name in BULK_COLUMNS if name not in lowered]
    if missing:
        raise InputError(f"{path}: line 1: missing column(s) {', '.join(missing)} "
                         f"(found: {excerpt(', '.join(header) or 'none', quote=False)}; expected \"Rank\",\"Domain\",\"Open Page Rank\")")
    return header, {name: lowered.index(name) for name in BULK_COLUMNS}


def _decoded_lines(fh: Iterable[bytes], path: Path) -> Iterator[str]:
    """Decode line by line so a bad byte is reported on its own line."""
    for number, raw in enumerate(fh, start=1):
        try:
            yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as err:
            raise InputError(f"{path}: line {number}, byte {err.start + 1}: bytes that are not UTF-8 "
                             f"({raw[err.start:err.start + 4]!r}); expected a UTF-8 CSV") from None


def _bulk_rows(path: Path) -> Iterator[tuple[int, list[str], list[str], dict[str, int]]]:
    """(line, fields, header, column index) for every data row, streamed."""
    with open(path, "rb") as fh:
        reader = csv.reader(_decoded_lines(fh, path))
        header, index = _bulk_header(next(reader, None), path)
        for row in reader:
            if row:
                yield reader.line_num, row, header, index


def _host_key(host: str) -> str:
    return _norm(host).removeprefix("www.")


def _wanted_domains(domains: Iterable[str]) -> tuple[list[str], list[dict]]:
    wanted: list[str] = []
    seen: set[str] = set()
    failed: list[dict] = []
    for raw in domains:
        domain, _suffix, reason = registered_domain(str(raw))
        if domain is None:
            failed.append({"domain": str(raw), "reason": f"not a registered domain ({reason})"})
        elif domain not in seen:
            seen.add(domain)
            wanted.append(domain)
    return wanted, failed


def bulk_pagerank(csv_path: str | Path, domains: list[str] | None, *, rounding: str = "round") -> PageRankOutcome:
    """Labels from Open PageRank's top-10M CSV for ``domains`` (None: every registered domain in the file)."""
    if rounding not in ROUNDING_RULES:
        raise ValueError(f"rounding must be one of {', '.join(ROUNDING_RULES)}, got {rounding!r}")
    path = Path(csv_path)
    source = f"bulk:{path.name}"
    wanted, failed = _wanted_domains(domains) if domains is not None else ([], [])
    wanted_set = set(wanted)
    found: dict[str, dict] = {}
    stats = Counter({"requested_batches": 0, "cached": 0, "answered": 0, "per_domain_errors": 0,
                     "failed": 0, "unexpected_entries": 0, "rows_read": 0, "duplicate_rows": 0,
                     "subdomain_rows": 0})
    for line, row, header, index in _bulk_rows(path):
        if len(row) != len(header):
            raise InputError(f"{path}: line {line}: {len(row)} fields, header has {len(header)}")
        stats["rows_read"] += 1
        rank = _parse_rank(row[index["rank"]], path, line, header[index["rank"]])
        score = _parse_score(row[index["open page rank"]], path, line, header[index["open page rank"]])
        key = _host_key(row[index["domain"]])
        if domains is None:
            if registered_domain(key)[0] != key:
                stats["subdomain_rows"] += 1
                continue
        elif key not in wanted_set:
            continue
        if key in found:
            stats["duplicate_rows"] += 1
            continue
        found[key] = _row(key, page_rank=to_level(str(score), rounding), decimal=float(score), rank=rank,
                          status="ok", source=source)
    order = wanted if domains is not None else list(found)
    rows = [found.get(d) or _row(d, status="error", error=NOT_IN_BULK, source=source) for d in order]
    stats["answered"] = len(found)
    stats["per_domain_errors"] = len(rows) - len(found)
    stats["failed"] = len(failed)
    return PageRankOutcome(rows=rows, failed=failed, stats=dict(stats))


# --------------------------------------------------------------------------- #
# output


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def write_pagerank(rows: Iterable[Mapping], path: str | Path) -> None:
    """Comma-separated CSV with exactly PAGERANK_COLUMNS (empty cell for a missing value); atomic."""
    with atomic_write(path, "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(PAGERANK_COLUMNS)
        for row in rows:
            writer.writerow([_cell(row.get(column)) for column in PAGERANK_COLUMNS])
