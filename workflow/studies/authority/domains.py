"""DomainAuth dataset build: a URL table with Open PageRank integers -> labeled domains.

Rules (also in docs/decisions.md):

* The table has a ``url`` column, or a ``domain`` column instead (the label
  table the PageRank fetchers write, filtered on ``status == ok``).
* A URL without a scheme gets ``http://``. Its host is reduced to the registered
  domain with tldextract's *bundled* public-suffix snapshot (no network).
* Row-level drops, each counted with its reason: ``status_filter`` (the status
  column differs from the configured value), ``unparsable_url`` (no host, bad
  port, spaces in the host), ``ip_host`` (IPv4/IPv6 literal), ``no_registered_domain``
  (a bare suffix or a single label such as ``localhost``).
* Domain-level drops: ``conflicting_labels`` (URLs of one domain carry different
  PageRank values) and ``pagerank_10`` (excluded from DomainAuth, as in the paper).
* Punycode hosts are kept as written (``xn--...``); ports, userinfo, paths and
  subdomains are stripped by the reduction to the registered domain.
* Categories (Table 8): :func:`category_of`: listed domains / suffixes, else
  the public suffix's label nearest the TLD that names a category (``tlds`` for
  the TLD, ``labels`` below it), so ``vic.gov.au``, ``gob.mx``, ``ac.id`` and
  ``nsw.edu.au`` are found without listing every country.
* Broken input (missing column, non-integer or out-of-range label, bytes that are
  not UTF-8, an empty file) stops with :class:`InputError` naming file, line and column.
"""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from authbench.errors import InputError, excerpt
from authbench.net import registered_domain
from authbench.records import read_dataclass_tsv, read_utf8, write_dataclass_tsv, write_drop_table
from authbench.studies.authority.labels import coarse_level

REQUIRED_COLUMNS = ("url", "page_rank")  # `domain` may stand in for `url`
MAX_PAGERANK = 10  # Open PageRank integers run 0..10; 10 is dropped

@dataclass(frozen=True)
class Domain:
    domain: str
    suffix: str
    level: int
    coarse: int
    n_urls: int
    category: str
    text: str


def category_of(domain: str, suffix: str, categories: Mapping[str, Mapping]) -> str:
    """The category of a registered domain (Table 8), else ''. ``suffix`` is
    its public suffix (:func:`authbench.net.registered_domain`). The rule
    (:func:`describe_categories` words it for the table's caption):

    1. ``domains`` (the domain itself is listed) and ``suffixes`` (its public
       suffix is listed exactly) first, in config order;
    2. else the labels of the public suffix are read from the TLD leftwards
       (``vic.gov.au``: ``au``, ``gov``, ``vic``); the first label that names a
       category decides: the TLD through a category's ``tlds`` (``gov``,
       ``edu``; a country TLD such as ``ac`` never counts as a label), every
       label below it through ``labels`` (``gov``, ``gob``, ``go``, ``ac`` ...).
       A suffix in a category's ``exclude`` never matches that category
       (``go.it`` is the province of Gorizia, not a government).
       ``ac.gov.br`` (Acre's government) is therefore gov, not edu.
    """
    for name, spec in categories.items():
        if domain in spec.get("domains", ()) or suffix in spec.get("suffixes", ()):
            return name
    for depth, label in enumerate(reversed(suffix.split(".") if suffix else [])):
        for name, spec in categories.items():
            if suffix in spec.get("exclude", ()):
                continue
            if label in spec.get("tlds" if depth == 0 else "labels", ()):
                return name
    return ""


def describe_categories(categories: Mapping[str, Mapping]) -> str:
    """The category rule of :func:`category_of` in words, for Table 8's caption."""
    parts = []
    for name, spec in categories.items():
        terms = []
        if spec.get("tlds"):
            terms.append("TLD " + "/".join(f".{t}" for t in spec["tlds"]))
        if spec.get("labels"):
            terms.append("a suffix label below the TLD in {" + ", ".join(spec["labels"]) + "}")
        if spec.get("suffixes"):
            terms.append("suffix " + "/".join(spec["suffixes"]))
        if spec.get("domains"):
            n = len(spec["domains"])
            terms.append(f"{n} listed domain{'s' if n != 1 else ''}")
        rule = " or ".join(terms) or "nothing configured"
        if spec.get("exclude"):
            rule += " (except " + "/".join(spec["exclude"]) + ")"
        parts.append(f"{name}: {rule}")
    return ("Categories by public suffix (the label nearest the TLD decides; listed domains and suffixes first): "
            + "; ".join(parts) + ".")



def _parse_label(value: str, path: Path, line: int) -> int:
    try:
        number = float(value.strip())
    except ValueError:
        number = float("nan")
    if not number.is_integer():
        raise InputError(
            f"{path}: line {line}, column 'page_rank': {excerpt(value)} is not an integer (expected 0..{MAX_PAGERANK})"
        )
    if not 0 <= number <= MAX_PAGERANK:
        raise InputError(
            f"{path}: line {line}, column 'page_rank': {excerpt(value)} is out of range (expected 0..{MAX_PAGERANK})"
        )
    return int(number)


def read_texts(path: str | Path | None, max_words: int) -> dict[str, str]:
    """Optional page texts: TSV with columns domain and text; text cut to max_words."""
    if not path:
        return {}
    path = Path(path)
    reader = csv.DictReader(io.StringIO(read_utf8(path, "a TSV with columns domain and text")), delimiter="\t")
    missing = [c for c in ("domain", "text") if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{path}: line 1: missing column(s) {missing} (expected domain and text)")
    texts = {}
    for line, row in enumerate(reader, start=2):
        words = " ".join((row["text"] or "").split()).split(" ")
        text = " ".join(words[:max_words]).strip()
        if text:
            texts[(row["domain"] or "").strip().lower()] = text
    return texts


def build_domains(
    source: str | Path,
    status_filter: str | None,
    categories: Mapping[str, Mapping],
    texts: Mapping[str, str] | None = None,
) -> tuple[list[Domain], Counter]:
    """Read the URL table and return the labeled domains and the drop counts."""
    path = Path(source)
    reader = csv.DictReader(io.StringIO(read_utf8(path, "a CSV with columns url (or domain) and page_rank")))
    columns = reader.fieldnames or []
    # A label table from the PageRank fetchers names domains, not URLs.
    url_column = "url" if "url" in columns or "domain" not in columns else "domain"
    for column in (url_column, "page_rank"):
        if column not in columns:
            raise InputError(f"{path}: line 1: missing column '{column}' (found: {excerpt(', '.join(columns) or 'none', quote=False)})")
    if status_filter is not None and "status" not in columns:
        raise InputError(f"{path}: line 1: domainauth.status_filter is {status_filter!r} but there is no column "
                         f"'status' (found: {excerpt(', '.join(columns), quote=False)}); set "
                         "'domainauth.status_filter: null' to keep every row (an overlay that does not set it keeps "
                         "config.yaml's demo value)")

    drops: Counter = Counter()
    labels: dict[str, set[int]] = defaultdict(set)
    suffixes: dict[str, str] = {}
    n_urls: Counter = Counter()
    for line, row in enumerate(reader, start=2):
        if None in row:  # more fields than header columns
            raise InputError(f"{path}: line {line}: {len(columns) + len(row[None])} fields, header has {len(columns)}")
        if status_filter is not None and (row.get("status") or "").strip() != status_filter:
            drops["status_filter"] += 1
            continue
        if row["page_rank"] is None:
            raise InputError(f"{path}: line {line}, column 'page_rank': missing value (expected 0..{MAX_PAGERANK})")
        label = _parse_label(row["page_rank"], path, line)
        domain, suffix, reason = registered_domain(row[url_column] or "")
        if domain is None:
            drops[reason] += 1
            continue
        labels[domain].add(label)
        suffixes[domain] = suffix
        n_urls[domain] += 1

    texts = texts or {}
    out = []
    for domain in sorted(labels):
        values = labels[domain]
        if len(values) > 1:
            drops["conflicting_labels"] += 1
            continue
        (level,) = values
        if level == MAX_PAGERANK:
            drops["pagerank_10"] += 1
            continue
        if texts and domain not in texts:
            drops["no_text"] += 1
            continue
        out.append(
            Domain(
                domain=domain,
                suffix=suffixes[domain],
                level=level,
                coarse=coarse_level(level),
                n_urls=n_urls[domain],
                category=category_of(domain, suffixes[domain], categories),
                text=texts.get(domain, ""),
            )
        )
    return out, drops


DROP_UNITS = {
    "status_filter": "row",
    "unparsable_url": "row",
    "ip_host": "row",
    "no_registered_domain": "row",
    "conflicting_labels": "domain",
    "pagerank_10": "domain",
    "no_text": "domain",
}




def write_labels(domains: Iterable[Domain], path: str | Path) -> None:
    write_dataclass_tsv(domains, Domain, path)


def write_drops(drops: Counter, kept: int, path: str | Path) -> None:
    write_drop_table(drops, DROP_UNITS, kept, "domain", path)


def read_labels(path: str | Path) -> list[Domain]:
    return read_dataclass_tsv(path, Domain)
