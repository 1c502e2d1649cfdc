"""Homepage text for DomainAuth's with-text condition (``domainauth.text``).

For every registered domain the fetcher asks for the homepage, keeps the first
``max_words`` words of its readable text and writes the TSV (columns ``domain``,
``text``) that :func:`authbench.studies.authority.domains.read_texts` reads. Rules:

* **URLs and fallback.** ``https://<domain>/`` first, then ``http://<domain>/``
  (``schemes`` sets the order). The next scheme is tried only when the previous
  attempt ended in a *transport* failure after the client's retries (connection
  refused/reset, TLS error, DNS failure, timeout, a body read that broke off);
  an HTTP status (404, or 429/5xx until retries ran out) is an answer and ends
  the domain. ``base_url`` (for tests and local mirrors only)
  replaces both with the single URL ``f"{base_url}/{domain}/"`` so one loopback
  server can play many sites.
* **Retries and timeouts** come from the :class:`~authbench.net.HttpClient` policy
  (connect/read timeout, retries on 429/5xx/timeouts honouring ``Retry-After``).
  On top, a wall-clock **deadline per page** (``page_deadline`` seconds, default
  60, over every scheme, hop and body read of one domain): a site that trickles
  bytes is cut off there with reason ``timeout`` (transient, not cached). The
  body is read with ``read1`` (whatever arrived), so the deadline is checked
  between arrivals; a single wait is still bounded by the read timeout.
* **Addresses** (:class:`~authbench.net.AddressGuard`, docs/security.md): every
  hop's host, the first included, is resolved and checked, and the connection
  goes to the checked address; loopback, private, shared, link-local,
  unique-local, IPv4-mapped and numeric-literal hosts are refused with reason
  ``refused_address`` (definitive: cached), counted in the stats' ``errors``. Only
  ``allow_private_addresses=True`` (the config's
  ``fetch.webtext.allow_private_addresses``: a mirror on one's own network,
  the tests' loopback servers) lets private addresses through.
* **Redirects** are followed by hand (``allow_redirects=False``), across hosts
  and schemes (http/https only), at most ``max_redirects`` hops; one more is the
  error ``too many redirects`` (this catches loops). A 301/302/303/307/308
  without a usable http(s) ``Location`` is ``bad redirect``; any other status
  >= 300 is the error ``HTTP <status>``. ``final_url`` is the last URL asked.
* **Size cap.** The body is streamed in chunks (after content decoding) and
  reading stops after ``max_bytes``: what was read is kept and the row is marked
  ``truncated``. No body is ever loaded whole.
* **Content types.** ``text/html``, ``application/xhtml+xml`` and ``text/plain``
  are extracted; anything else is the error ``unsupported content type <type>``
  (checked from the header, before the body is read). With no Content-Type the
  first bytes are sniffed for HTML tags, else ``unsupported content type (none)``.
* **Charset order** (:func:`decode_body`): a byte-order mark; the ``charset`` of
  the Content-Type header; for HTML, ``<meta charset>`` / ``<meta http-equiv=
  Content-Type content="...charset=...">`` or an XML declaration's ``encoding``
  within the first 4096 bytes; if the bytes are valid UTF-8, UTF-8; else
  detection with ``charset_normalizer`` on the first 64 KiB (exact ties broken
  by how common the encoding is on the web; a guess, weak on short pages); else UTF-8. Labels
  Python does not know are skipped. As browsers do, ``iso-8859-1``/``us-ascii``
  decode as windows-1252, ``gb2312``/``gbk`` as gb18030, ``shift_jis`` as cp932,
  ``euc-kr`` as cp949, and a ``utf-16`` *meta* label as UTF-8. Undecodable bytes
  become U+FFFD.
* **Readable text** (:func:`extract_text`, stdlib ``html.parser``): the first
  ``<title>`` comes first, then the document's text. Dropped: ``script``,
  ``style``, ``noscript``, ``template``, ``svg``, ``head`` (and comments). A
  ``<body>`` tag or any tag that cannot live in ``<head>`` closes an unclosed
  head. Entities are unescaped; block-level elements are separated by a space,
  inline ones are not; all whitespace runs (``&nbsp;`` included) collapse to one
  space. ``text/plain`` bodies only get the whitespace collapse. The first
  ``max_words`` whitespace-separated words are kept; no words is the error ``no text``.
* **Cache** (:class:`~.cache.ProgressCache`, key = domain). Every finished
  domain is appended as soon as it finishes, by the main thread: ``ok`` rows and
  *definitive* errors (HTTP status >= 400 other than 429/5xx-after-retries,
  ``too many redirects``, ``bad redirect``, unsupported content type, ``no
  text``, invalid domain). Transport failures (reasons ``timeout``,
  ``connection_failed``, ``read_failed``, ``http_429``/``http_5xx`` after
  retries, and ``unexpected_error`` for an exception that is not a network
  failure, logged with its traceback) are *not* cached, so a rerun tries them again. Cached domains are
  never fetched again; a cached text is re-cut to the current ``max_words``
  (delete the cache to fetch with a larger one).
* **Concurrency.** ``workers`` threads share the client's session; a tqdm bar
  on stderr counts finished domains. Rows come back in input order; domains are
  lower-cased, stripped and de-duplicated (first occurrence wins).
"""

from __future__ import annotations

import codecs
import csv
import logging
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, fields
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from authbench.errors import FetchError
from authbench.fetch.cache import ProgressCache
from authbench.net import RETRY_STATUS, AddressGuard, AddressRefused, HttpClient, safe_url
from authbench.records import atomic_write
from tqdm import tqdm

log = logging.getLogger("authbench.fetch.webtext")

TEXT_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1"
CHUNK = 64 * 1024
META_SCAN_BYTES = 4096
DETECT_BYTES = 64 * 1024

# failures that move on to the next scheme
FALLBACK_REASONS = frozenset({"timeout", "connection_failed", "read_failed"})
# failures that are not cached (a rerun asks again); so are http_429 and http_5xx after retries
TRANSIENT_REASONS = FALLBACK_REASONS | {"unexpected_error"}
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
PAGE_DEADLINE = 60.0  # seconds per domain (fetch.webtext.page_deadline)


class _PastDeadline(Exception):
    """The page's wall-clock deadline passed while its body was read."""


# ---------------------------------------------------------------- rows


@dataclass
class TextRow:
    domain: str
    status: str  # "ok" | "error"
    text: str = ""
    words: int = 0
    final_url: str = ""
    http_status: int | None = None
    truncated: bool = False
    error: str = ""
    reason: str = ""  # short error code for stats ("http_404", "no_text", "timeout", ...); "" when ok

    @property
    def transient(self) -> bool:
        return is_transient(self.reason)


@dataclass
class TextOutcome:
    rows: list[TextRow]
    stats: dict = field(default_factory=dict)


ROW_FIELDS = [f.name for f in fields(TextRow)]


def is_transient(reason: str) -> bool:
    """True for failures a rerun should retry (never cached)."""
    if reason in TRANSIENT_REASONS:
        return True
    match = re.fullmatch(r"http_(\d{3})", reason)
    return bool(match) and int(match.group(1)) in RETRY_STATUS


def _error(domain: str, reason: str, error: str, *, final_url: str = "", http_status: int | None = None,
           truncated: bool = False) -> TextRow:
    return TextRow(domain, "error", final_url=final_url, http_status=http_status, truncated=truncated,
                   error=error, reason=reason)


# ---------------------------------------------------------------- charset


_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:+-]+)""", re.IGNORECASE)
_META_CHARSET = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:+-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml\b[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:+-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
# legacy encodings by how common they are on the web (breaks exact detector ties)
WEB_ENCODINGS = ("utf_8", "cp1252", "cp1251", "cp932", "euc_jp", "gb18030", "cp949", "big5", "cp1250",
                 "cp1253", "cp1254", "cp1255", "cp1256", "cp874", "cp1257", "cp1258", "koi8_r")
# what browsers (WHATWG Encoding) actually use for these labels, by Python codec name
_BROWSER_CODEC = {"iso8859-1": "cp1252", "ascii": "cp1252", "gb2312": "gb18030", "gbk": "gb18030",
                  "shift_jis": "cp932", "euc_kr": "cp949"}


def media_type(content_type: str | None) -> str:
    """``"text/html; charset=x"`` -> ``"text/html"`` (lower case); "" when absent."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def _codec(label: str | None) -> str | None:
    """Python codec for a charset label (browser mapping applied), None if unknown."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except LookupError:
        return None
    return _BROWSER_CODEC.get(name, name)


def _header_charset(content_type: str | None) -> str | None:
    match = _CHARSET_PARAM.search(content_type or "")
    return _codec(match.group(1)) if match else None


def _declared_charset(content: bytes) -> str | None:
    head = content[:META_SCAN_BYTES]
    for pattern in (_XML_ENCODING, _META_CHARSET):
        match = pattern.search(head)
        codec = _codec(match.group(1).decode("ascii")) if match else None
        if codec:
            # a document whose <meta> can be read as ASCII is not UTF-16 (WHATWG rule)
            return "utf-8" if codec.startswith("utf-16") else codec
    return None


def _detected_charset(content: bytes) -> str | None:
    try:
        content.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - installed with requests
        return None
    matches = list(from_bytes(content[:DETECT_BYTES]))
    if not matches:
        return None
    best = matches[0]
    tied = {m.encoding for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)}
    common = next((name for name in WEB_ENCODINGS if name in tied), best.encoding)
    return _codec(common)


def sniff_encoding(content: bytes, content_type: str | None) -> tuple[str, str]:
    """(codec, source) with source in bom, header, meta, detected, fallback."""
    for bom, codec in _BOMS:
        if content.startswith(bom):
            return codec, "bom"
    codec = _header_charset(content_type)
    if codec:
        return codec, "header"
    if media_type(content_type) != "text/plain":
        codec = _declared_charset(content)
        if codec:
            return codec, "meta"
    codec = _detected_charset(content)
    if codec:
        return codec, "detected"
    return "utf-8", "fallback"


def decode_body(content: bytes, content_type: str | None) -> str:
    """Decode a page body by the charset order in the module docstring."""
    codec, source = sniff_encoding(content, content_type)
    if source == "bom":
        content = content[len(codecs.BOM_UTF8) if codec == "utf-8" else 2:]
    return content.decode(codec, errors="replace")


# ---------------------------------------------------------------- extraction


SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "head"})
HEAD_TAGS = frozenset({"title", "meta", "link", "style", "script", "noscript", "base", "template"})
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details", "dialog", "div",
    "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "html", "img", "input", "legend", "li", "main", "menu", "nav", "ol", "option", "p",
    "pre", "section", "select", "summary", "table", "tbody", "td", "textarea", "tfoot", "th", "thead",
    "title", "tr", "ul", "button", "label", "iframe",
})


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip: list[str] = []     # open elements whose text is dropped
        self.title: list[str] = []
        self.in_title = False
        self.title_done = False
        self.parts: list[str] = []

    def _close(self, tag: str) -> None:
        if tag in self.skip:
            index = len(self.skip) - 1 - self.skip[::-1].index(tag)
            del self.skip[index:]

    def handle_starttag(self, tag: str, attrs) -> None:
        if "head" in self.skip and (tag == "body" or (self.skip[-1] == "head" and tag not in HEAD_TAGS)):
            self._close("head")  # an unclosed <head> ends where the body starts
        if tag == "title" and not self.title_done and set(self.skip) <= {"head"}:
            self.in_title = True
        elif tag in SKIP_TAGS:
            self.skip.append(tag)
        if tag in BLOCK_TAGS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self.in_title:
            self.in_title = False
            self.title_done = True
        self._close(tag)
        if tag in BLOCK_TAGS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
        elif not self.skip:
            self.parts.append(data)


def collapse(text: str) -> str:
    """All whitespace runs (tabs, newlines, NBSP, ...) to one space; trimmed."""
    return " ".join(text.split())


def extract_text(html: str) -> str:
    """Readable text of an HTML page: title first, then the body (rules in the module docstring)."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    return collapse(" ".join(["".join(parser.title), "".join(parser.parts)]))


def first_words(text: str, max_words: int) -> tuple[str, int]:
    words = text.split()[:max_words]
    return " ".join(words), len(words)


# ---------------------------------------------------------------- fetching


_HOST_OK = re.compile(r"^[^\s/\\:@?#\[\]]+\.[^\s/\\:@?#\[\]]+$")


def normalize_domain(domain: str) -> str:
    return domain.strip().lower().rstrip(".")


def candidate_urls(domain: str, schemes: Sequence[str] = ("https", "http"), base_url: str | None = None) -> list[str]:
    """URLs to try in order: one per scheme, or only ``{base_url}/{domain}/`` (tests, mirrors)."""
    if base_url:
        return [f"{base_url.rstrip('/')}/{domain}/"]
    return [f"{scheme}://{domain}/" for scheme in schemes]


def _fetch_error_row(domain: str, url: str, err: FetchError) -> TextRow:
    """Classify the client's FetchError (retries exhausted): always transient."""
    message = str(err)
    status = re.search(r": HTTP (\d{3}) after", message)
    if status:
        code = int(status.group(1))
        return _error(domain, f"http_{code}", message, final_url=url, http_status=code)
    reason = "timeout" if "timed out" in message else "connection_failed"
    return _error(domain, reason, message, final_url=url)


def _read_capped(response: requests.Response, max_bytes: int,
                 deadline: float | None = None) -> tuple[bytes, bool]:
    """Up to max_bytes of the (content-decoded) body and whether more was there.
    ``read1`` returns what has arrived, so ``deadline`` (``time.monotonic()``)
    is checked between arrivals: :class:`_PastDeadline` once it passed."""
    buf = bytearray()
    raw = response.raw
    while True:
        if deadline is not None and time.monotonic() > deadline:
            raise _PastDeadline
        chunk = raw.read1(CHUNK, decode_content=True)
        if not chunk:
            return bytes(buf), False
        buf += chunk
        if len(buf) > max_bytes:
            return bytes(buf[:max_bytes]), True


def _looks_like_html(head: bytes) -> bool:
    head = head[:1024].lower()
    return any(tag in head for tag in (b"<!doctype html", b"<html", b"<head", b"<body", b"<title", b"<p>"))


def _deadline_row(domain: str, url: str, page_deadline: float, http_status: int | None = None) -> TextRow:
    return _error(domain, "timeout", f"{safe_url(url)}: page deadline of {page_deadline:g} s passed",
                  final_url=url, http_status=http_status)


def _page_row(domain: str, url: str, response: requests.Response, max_words: int, max_bytes: int,
              deadline: float | None = None, page_deadline: float = PAGE_DEADLINE) -> TextRow:
    """Turn a final 2xx response into a row (content type, capped body, charset, text)."""
    header = response.headers.get("Content-Type")
    mtype = media_type(header)
    if mtype and mtype not in TEXT_TYPES:
        return _error(domain, "unsupported_content_type", f"unsupported content type {mtype}",
                      final_url=url, http_status=response.status_code)
    try:
        body, truncated = _read_capped(response, max_bytes, deadline)
    except _PastDeadline:
        return _deadline_row(domain, url, page_deadline, response.status_code)
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as err:
        return _error(domain, "read_failed", f"{safe_url(url)}: body read failed ({type(err).__name__})",
                      final_url=url, http_status=response.status_code)
    if not mtype:
        if not _looks_like_html(body):
            return _error(domain, "unsupported_content_type", "unsupported content type (none)",
                          final_url=url, http_status=response.status_code, truncated=truncated)
        mtype = "text/html"
    decoded = decode_body(body, header)
    text = collapse(decoded) if mtype == "text/plain" else extract_text(decoded)
    text, words = first_words(text, max_words)
    if not words:
        return _error(domain, "no_text", "no text", final_url=url, http_status=response.status_code,
                      truncated=truncated)
    return TextRow(domain, "ok", text=text, words=words, final_url=url, http_status=response.status_code,
                   truncated=truncated)


def _redirect_target(url: str, response: requests.Response) -> str | None:
    location = response.headers.get("Location", "").strip()
    if not location:
        return None
    target = urljoin(url, location)
    try:
        parts = urlsplit(target)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return target.split("#", 1)[0]


def fetch_url(domain: str, url: str, client: HttpClient, *, max_words: int = 100, max_bytes: int = 2_000_000,
              max_redirects: int = 5, page_deadline: float = PAGE_DEADLINE, deadline: float | None = None) -> TextRow:
    """Fetch one start URL, following redirects by hand; never raises for network trouble.
    ``deadline`` (``time.monotonic()``; default: ``page_deadline`` from now) bounds the whole page."""
    if deadline is None:
        deadline = time.monotonic() + page_deadline
    for _hop in range(max_redirects + 1):
        left = deadline - time.monotonic()
        if left <= 0:
            return _deadline_row(domain, url, page_deadline)
        try:
            response = client.request("GET", url, stream=True, allow_redirects=False,
                                      headers={"Accept": ACCEPT}, timeout=min(client.policy.timeout, left))
        except AddressRefused as err:
            return _error(domain, "refused_address", str(err), final_url=url)
        except FetchError as err:
            return _fetch_error_row(domain, url, err)
        with response:
            if response.status_code in REDIRECT_STATUS:
                target = _redirect_target(url, response)
                if target is None:
                    return _error(domain, "bad_redirect", "bad redirect", final_url=url,
                                  http_status=response.status_code)
                url = target
                continue
            if response.status_code >= 300:
                code = response.status_code
                return _error(domain, f"http_{code}", f"HTTP {code}", final_url=url, http_status=code)
            return _page_row(domain, url, response, max_words, max_bytes, deadline, page_deadline)
    return _error(domain, "too_many_redirects", "too many redirects", final_url=url)


def fetch_one(domain: str, client: HttpClient, urls: Sequence[str], *, max_words: int = 100,
              max_bytes: int = 2_000_000, max_redirects: int = 5, page_deadline: float = PAGE_DEADLINE) -> TextRow:
    """Try ``urls`` in order; move on only after a connection/TLS/timeout/read failure,
    all within one ``page_deadline``."""
    if not _HOST_OK.match(domain):
        return _error(domain, "invalid_domain", f"invalid domain {domain!r}")
    deadline = time.monotonic() + page_deadline
    failures: list[str] = []
    row = _error(domain, "connection_failed", "no URL to try")
    for url in urls:
        row = fetch_url(domain, url, client, max_words=max_words, max_bytes=max_bytes, max_redirects=max_redirects,
                        page_deadline=page_deadline, deadline=deadline)
        if row.reason not in FALLBACK_REASONS or time.monotonic() > deadline:
            if row.reason in FALLBACK_REASONS:
                failures.append(row.error)
            break
        failures.append(row.error)
    if len(failures) > 1:
        row.error = "; ".join(failures)
    return row


def _fetch_one_safely(domain: str, client: HttpClient, urls: Sequence[str], **limits) -> TextRow:
    """fetch_one, but a bug-shaped exception for one site becomes a (not cached) error row."""
    try:
        return fetch_one(domain, client, urls, **limits)
    except Exception as err:  # one odd site must not stop the batch
        log.exception("%s: unexpected error", domain)
        return _error(domain, "unexpected_error", f"unexpected error ({type(err).__name__})")


# ---------------------------------------------------------------- the batch


def _from_cache(record: dict, max_words: int) -> TextRow:
    row = TextRow(**{k: record[k] for k in ROW_FIELDS if k in record})
    if row.status == "ok":
        row.text, row.words = first_words(row.text, max_words)
    return row


def _unique(domains: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for domain in domains:
        name = normalize_domain(domain)
        if name:
            seen.setdefault(name, None)
    return list(seen)


def _stats(rows: list[TextRow], fetched: int, cached: int) -> dict:
    errors = Counter(row.reason for row in rows if row.status == "error")
    return {"fetched": fetched, "cached": cached, "ok": sum(row.status == "ok" for row in rows),
            "errors": dict(sorted(errors.items()))}


def fetch_texts(
    domains: Iterable[str],
    client: HttpClient,
    cache: ProgressCache,
    *,
    max_words: int = 100,
    max_bytes: int = 2_000_000,
    max_redirects: int = 5,
    schemes: Sequence[str] = ("https", "http"),
    workers: int = 4,
    progress: bool = True,
    base_url: str | None = None,
    page_deadline: float = PAGE_DEADLINE,
    allow_private_addresses: bool = False,
) -> TextOutcome:
    """Homepage texts for ``domains`` (input order), resuming from ``cache``.
    A client without an :class:`~authbench.net.AddressGuard` gets one
    (``allow_private_addresses``); a client's own guard is kept."""
    if client.guard is None:
        client.set_guard(AddressGuard(allow_private=allow_private_addresses))
    names = _unique(domains)
    done = {key: _from_cache(rec, max_words) for key, rec in cache.load().items()}
    results: dict[str, TextRow] = {name: done[name] for name in names if name in done}
    todo = [name for name in names if name not in results]
    limits = {"max_words": max_words, "max_bytes": max_bytes, "max_redirects": max_redirects,
              "page_deadline": page_deadline}
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="webtext")
    try:
        futures = {pool.submit(_fetch_one_safely, name, client, candidate_urls(name, schemes, base_url),
                               **limits): name for name in todo}
        with tqdm(total=len(todo), desc="homepage texts", unit="site", file=sys.stderr,
                  disable=not progress) as bar:
            for future in as_completed(futures):
                row = future.result()
                results[futures[future]] = row
                if not row.transient:  # main thread only: the cache has one writer
                    cache.add([{"key": row.domain, **asdict(row), "fetched_at": round(time.time(), 3)}])
                bar.update(1)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # Ctrl-C: drop the queue, finish what is in flight
    rows = [results[name] for name in names]
    return TextOutcome(rows, _stats(rows, fetched=len(todo), cached=len(names) - len(todo)))


# ---------------------------------------------------------------- outputs


def _one_line(value: str) -> str:
    return value.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def write_texts(rows: Iterable[TextRow], path: str | Path) -> int:
    """TSV ``domain``, ``text`` of the ok rows (the file ``domainauth.text`` names). Returns rows written."""
    n = 0
    with atomic_write(path, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(["domain", "text"])
        for row in rows:
            if row.status == "ok":
                writer.writerow([row.domain, _one_line(row.text)])
                n += 1
    return n


def write_failures(rows: Iterable[TextRow], path: str | Path) -> int:
    """TSV ``domain``, ``error``, ``http_status``, ``final_url`` of the error rows. Returns rows written."""
    n = 0
    with atomic_write(path, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(["domain", "error", "http_status", "final_url"])
        for row in rows:
            if row.status == "error":
                status = "" if row.http_status is None else row.http_status
                writer.writerow([row.domain, _one_line(row.error), status, row.final_url])
                n += 1
    return n
