"""DomainAuth dataset build: a URL (or domain) table with a score column -> labeled domains.

Rules (also in docs/decisions/domainauth-data.md):

* The table is read by its file name (:func:`authbench.records.read_records`:
  CSV, also any unknown ending; TSV, JSON list or object of records keyed by
  ``domain``, JSON lines, Parquet).
* The table has a ``url`` column, or a ``domain`` column instead (the label
  table the PageRank fetchers write, filtered on ``status == ok``), and the
  score column of the config's ``label`` block (default: ``page_rank``, Open
  PageRank integers 0-10, binned as they are with 10 dropped, as in the
  paper). Any other numeric column is binned by the block's rule
  (:mod:`authbench.studies.authority.labels`: integer, equal_width,
  quantile, log) over the domains that survive the row and conflict drops.
* Secondary label columns (config ``secondary.labels``) are read by
  :func:`read_secondary` into ``secondary.tsv`` (its own step, so adding one
  reruns no judge cell); values match as text or numerically, a value map
  turns codes into labels or "not labelled"; a value outside a categorical
  label's ``values``, or one domain with two different values, is a named
  error; rows and domains without a label are counted by reason
  (:func:`secondary_units`). Columns nothing reads are listed in the build log.
* A URL without a scheme gets ``http://``. Its host is reduced to the registered
  domain with tldextract's *bundled* public-suffix snapshot (no network).
* Row-level drops, each counted with its reason: ``status_filter`` (the status
  column differs from the configured value), ``unparsable_url`` (no host, bad
  port, spaces in the host), ``ip_host`` (IPv4/IPv6 literal), ``no_registered_domain``
  (a bare suffix or a single label such as ``localhost``).
* Domain-level drops: ``conflicting_labels`` (URLs of one domain carry different
  scores), ``nonpositive_score`` (log binning only: no logarithm), the top
  value under ``top: drop``: ``pagerank_10`` for Open PageRank integers
  (excluded from DomainAuth, as in the paper), ``above_top_level`` otherwise.
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
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from authbench.errors import InputError, LabelError, excerpt
from authbench.net import registered_domain
from authbench.records import atomic_write, read_records, text_of, write_drop_table, write_tsv
from authbench.studies.authority.labels import (
    BENCHMARK_LEVELS,
    OPEN_PAGERANK_COLUMN,
    LabelSpec,
    SecondarySpec,
    bin_scores,
    bin_table,
    coarse_level,
)

REQUIRED_COLUMNS = ("url", "page_rank")  # `domain` may stand in for `url`; page_rank: the default label column

@dataclass(frozen=True)
class Domain:
    domain: str
    suffix: str
    level: int
    coarse: int
    n_urls: int
    category: str
    text: str
    score: float | None = None  # the raw score that was binned (Open PageRank: the integer)


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



def _parse_score(value: object, spec: LabelSpec, path: Path, line: str) -> float | int:
    """A row's score (any format's cell: :func:`authbench.records.text_of`):
    an integer 0..levels under integer binning (Open PageRank's 0..10), else
    any finite number. ``line``: where the row is (``line 5``, ``record 3``)."""
    col = spec.column
    value = text_of(value)
    if spec.binning == "integer":
        top = spec.levels
        if value is None:
            raise InputError(f"{path}: {line}, column '{col}': missing value (expected 0..{top})")
        try:
            number = float(value.strip())
        except ValueError:
            number = float("nan")
        if not number.is_integer():
            raise InputError(f"{path}: {line}, column '{col}': {value!r} is not an integer (expected 0..{top})")
        if not 0 <= number <= top:
            raise InputError(f"{path}: {line}, column '{col}': {value!r} is out of range (expected 0..{top})")
        return int(number)
    if value is None or not value.strip():
        raise InputError(f"{path}: {line}, column '{col}': missing value (expected a number)")
    try:
        number = float(value.strip())
    except ValueError:
        number = float("nan")
    if not math.isfinite(number):
        raise InputError(f"{path}: {line}, column '{col}': {excerpt(value)} is not a number")
    return number


def read_texts(path: str | Path | None, max_words: int) -> dict[str, str]:
    """Optional page texts: a table with columns domain and text (a TSV, or
    any format of :func:`authbench.records.read_records`; a JSON object is
    keyed by domain); text cut to max_words."""
    if not path:
        return {}
    path = Path(path)
    table = read_records(path, "a table with columns domain and text", key="domain", default="tsv")
    missing = [c for c in ("domain", "text") if c not in table.columns]
    if missing:
        raise InputError(f"{path}: line 1: missing column(s) {missing} (expected domain and text)")
    texts = {}
    for _where, row in table.rows:
        words = " ".join((text_of(row.get("text")) or "").split()).split(" ")
        text = " ".join(words[:max_words]).strip()
        if text:
            texts[(text_of(row.get("domain")) or "").strip().lower()] = text
    return texts


@dataclass
class DomainBuild:
    """What :func:`build_domain_labels` returns: the labelled domains, the
    drop counts and their units (the reasons the configured rule can give),
    the bin table (:func:`authbench.studies.authority.labels.bin_table`), the
    rule, how many domains sat at the top value, and the source's columns
    that nothing reads (the build log lists them)."""

    domains: list[Domain]
    drops: Counter
    units: dict[str, str]
    bins: list[dict]
    spec: LabelSpec
    n_top: int
    unused_columns: list[str]


def drop_units(spec: LabelSpec) -> dict[str, str]:
    """The drop reasons (and their units) a build under ``spec`` can give, in
    the order of the build. The top value's reason (``pagerank_10`` for Open
    PageRank integers, else ``above_top_level``) exists only with ``top: drop``;
    ``nonpositive_score`` only with log binning."""
    units = {"status_filter": "row", "unparsable_url": "row", "ip_host": "row", "no_registered_domain": "row",
             "conflicting_labels": "domain"}
    if spec.binning == "log":
        units["nonpositive_score"] = "domain"
    if spec.top == "drop":
        units[spec.top_reason] = "domain"
    units["no_text"] = "domain"
    return units


def secondary_units(specs: Sequence[SecondarySpec]) -> dict[str, str]:
    """The reasons (and units) :func:`read_secondary` counts, in order: rows
    that give no label (the status filter, the URL reduction's reasons, a
    domain without a primary label), then per secondary label the rows whose
    cell is empty or that the value map sets to "not labelled", and the
    labelled domains left without a value."""
    units = {"status_filter": "row", "unparsable_url": "row", "ip_host": "row", "no_registered_domain": "row",
             "not_a_labelled_domain": "row"}
    for sec in specs:
        units |= {f"{sec.name}:empty_cell": "row", f"{sec.name}:mapped_to_unlabelled": "row",
                  f"{sec.name}:not_labelled": "domain"}
    return units


def read_secondary(source: str | Path, status_filter: str | None, specs: Sequence[SecondarySpec],
                   domains: Iterable[str], counts: Counter | None = None) -> dict[str, dict[str, str]]:
    """The secondary label columns (config ``secondary.labels``) of the
    source, per labelled domain (``domains``: those of ``labels.tsv``):
    ``{domain: {name: label}}``, the label as its ``values`` writes it
    (``0.0`` under ``values: [0, 1]`` is ``0``; the value map applied),
    ``""`` = not labelled. The source is read as the build reads it (any
    format of :func:`authbench.records.read_records`); rows are reduced to
    their registered domain and status-filtered as in the build. A missing
    column, a value outside a categorical label's ``values`` or a non-number
    for a numeric one (file, line, column, the allowed values), and two
    different labels for one domain are named errors. ``counts`` (if given)
    gets every reason of :func:`secondary_units`."""
    path = Path(source)
    table = read_records(path, "a table with the secondary label columns", key="domain")
    columns = table.columns
    url_column = _domain_column(path, columns)
    for column in (s.name for s in specs):
        if column not in columns:
            raise InputError(f"{_missing(path, column, columns)}; secondary.labels names the columns to carry")
    counts = Counter() if counts is None else counts
    wanted = set(domains)
    values: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for line, row in table.rows:
        if status_filter is not None and (text_of(row.get("status")) or "").strip() != status_filter:
            counts["status_filter"] += 1
            continue
        cells = {}
        for sec in specs:
            try:
                cells[sec.name] = sec.value(text_of(row.get(sec.name)))
            except LabelError as err:
                raise InputError(f"{path}: {line}, column '{sec.name}': {err}") from None
        domain, _, reason = registered_domain(text_of(row.get(url_column)) or "")
        if domain is None or domain not in wanted:
            counts[reason or "not_a_labelled_domain"] += 1
            continue
        for name, (label, mapped) in cells.items():
            if label:
                values[domain][name].add(label)
            else:
                counts[f"{name}:{'mapped_to_unlabelled' if mapped else 'empty_cell'}"] += 1
    out = {}
    for domain in sorted(wanted):
        row = {}
        for sec in specs:
            got = values[domain][sec.name]
            if len(got) > 1:
                raise InputError(f"{path}: domain {domain}: its rows carry different values of secondary label "
                                 f"'{sec.name}' ({', '.join(sorted(got))}); give each domain one value")
            row[sec.name] = next(iter(got)) if got else ""
            counts[f"{sec.name}:not_labelled"] += not got
        out[domain] = row
    return out


def write_secondary(labels: Mapping[str, Mapping[str, str]], specs: Sequence[SecondarySpec], path: str | Path) -> None:
    """``secondary.tsv``: ``domain`` and one column per secondary label."""
    names = [s.name for s in specs]
    write_tsv([{"domain": d, **row} for d, row in labels.items()], path, ["domain", *names])


def _missing(path: Path, column: str, columns: Sequence[str]) -> str:
    """A missing column's error: what was found, and the found column that differs only in case or spaces."""
    near = [c for c in columns if str(c).strip().lower() == column.lower()]
    hint = f"; column names match exactly: {excerpt(near[0])} is not {column!r}" if near else ""
    found = excerpt(", ".join(columns) or "none", quote=False)
    return f"{path}: line 1: missing column {column!r} (found: {found}){hint}"


def _domain_column(path: Path, columns: Sequence[str]) -> str:
    """The column of a domain table that names each row's URL or domain:
    ``url``, else ``domain`` (a label table from the PageRank fetchers names
    domains), else the one that reads ``url`` or ``domain`` in another case
    or with spaces around it (a spreadsheet's ``Domain``); none of them is an
    :class:`InputError` listing the columns found."""
    for name in ("url", "domain"):
        if name in columns:
            return name
    for name in ("url", "domain"):
        near = [c for c in columns if str(c).strip().lower() == name]
        if len(near) == 1:
            return near[0]
    raise InputError(f"{path}: line 1: missing column 'url' or 'domain' (found: "
                     f"{excerpt(', '.join(columns) or 'none', quote=False)})")


def _url_column(path: Path, columns: Sequence[str], spec: LabelSpec, status_filter: str | None) -> str:
    """The column that names each row's URL or domain (a label table from the
    PageRank fetchers names domains, not URLs), after checking the columns
    the build reads."""
    url_column = _domain_column(path, columns)
    if spec.column not in columns:
        raise InputError(_missing(path, spec.column, columns))
    if status_filter is not None and "status" not in columns:
        raise InputError(f"{path}: line 1: domainauth.status_filter is {status_filter!r} but there is no column "
                         f"'status' (found: {excerpt(', '.join(columns), quote=False)}); set "
                         "'domainauth.status_filter: null' to keep every row (an overlay that does not set it keeps "
                         "config.yaml's demo value)")
    return url_column


def _domain_scores(rows: Sequence[tuple[str, dict]], path: Path, url_column: str, spec: LabelSpec,
                   status_filter: str | None, drops: Counter) -> tuple[dict[str, set], dict[str, str], Counter]:
    """Every registered domain's scores (a set: rows of one domain may
    disagree), public suffix and number of rows; dropped rows counted in ``drops``."""
    scores: dict[str, set] = defaultdict(set)
    suffixes: dict[str, str] = {}
    n_urls: Counter = Counter()
    for line, row in rows:
        if status_filter is not None and (text_of(row.get("status")) or "").strip() != status_filter:
            drops["status_filter"] += 1
            continue
        score = _parse_score(row.get(spec.column), spec, path, line)
        domain, suffix, reason = registered_domain(text_of(row.get(url_column)) or "")
        if domain is None:
            drops[reason] += 1
            continue
        scores[domain].add(score)
        suffixes[domain] = suffix
        n_urls[domain] += 1
    return scores, suffixes, n_urls


def build_domain_labels(
    source: str | Path,
    status_filter: str | None,
    categories: Mapping[str, Mapping],
    texts: Mapping[str, str] | None = None,
    label: LabelSpec | None = None,
    secondary: Sequence[str] = (),
) -> DomainBuild:
    """Read the URL (or domain) table and bin its score column by ``label``
    (default: Open PageRank integers, 10 dropped). Order: row drops,
    conflicting scores, non-positive scores (log binning), binning over the
    remaining domains, the top value (``top: drop``), domains without text.
    ``secondary``: the secondary label columns (read by
    :func:`read_secondary`; here only kept off the list of unused columns)."""
    spec = label or DEFAULT_LABEL
    path = Path(source)
    table = read_records(path, f"a table with columns url (or domain) and {spec.column}", key="domain")
    columns = table.columns
    url_column = _url_column(path, columns, spec, status_filter)
    used = {url_column, spec.column, *secondary} | ({"status"} if status_filter is not None else set())
    drops: Counter = Counter()
    scores, suffixes, n_urls = _domain_scores(table.rows, path, url_column, spec, status_filter, drops)

    kept = []
    for domain in sorted(scores):
        if len(scores[domain]) > 1:
            drops["conflicting_labels"] += 1
            continue
        (score,) = scores[domain]
        if spec.binning == "log" and score <= 0:
            drops["nonpositive_score"] += 1
            continue
        kept.append((domain, score))
    try:
        binned = bin_scores([score for _, score in kept], spec)
    except LabelError as err:
        raise InputError(f"{path}: column '{spec.column}': cannot bin the domains' scores ({spec.binning}): "
                         f"{err}") from None
    bins = bin_table([score for _, score in kept], binned)

    texts = texts or {}
    out = []
    for (domain, score), level in zip(kept, binned.levels):
        if level is None:
            drops[spec.top_reason] += 1
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
                score=score,
            )
        )
    return DomainBuild(out, drops, drop_units(spec), bins, spec, binned.n_top,
                       [c for c in columns if c not in used])


def build_domains(
    source: str | Path,
    status_filter: str | None,
    categories: Mapping[str, Mapping],
    texts: Mapping[str, str] | None = None,
    label: LabelSpec | None = None,
) -> tuple[list[Domain], Counter]:
    """Read the URL table and return the labeled domains and the drop counts
    (:func:`build_domain_labels` without the bin table)."""
    built = build_domain_labels(source, status_filter, categories, texts, label)
    return built.domains, built.drops


DEFAULT_LABEL = LabelSpec(OPEN_PAGERANK_COLUMN, "integer", BENCHMARK_LEVELS, "drop")
# The drop reasons of the default rule (Open PageRank integers, 10 dropped).
DROP_UNITS = drop_units(DEFAULT_LABEL)


def write_labels(domains: Iterable[Domain], path: str | Path) -> None:
    """``labels.tsv``: one row per labelled domain, the :class:`Domain` fields
    as columns (an integral score written as an integer)."""
    names = [f.name for f in fields(Domain)]
    with atomic_write(path, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(names)
        for d in domains:
            score = "" if d.score is None else (int(d.score) if float(d.score).is_integer() else d.score)
            writer.writerow([*(getattr(d, n) for n in names[:-1]), score])


def write_drops(drops: Counter, kept: int, path: str | Path, units: Mapping[str, str] | None = None) -> None:
    write_drop_table(drops, units or DROP_UNITS, kept, "domain", path)


def read_labels(path: str | Path) -> list[Domain]:
    """:func:`write_labels`'s file (one written before the ``score`` column
    existed reads with ``score`` None)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [Domain(domain=r["domain"], suffix=r["suffix"], level=int(r["level"]), coarse=int(r["coarse"]),
                   n_urls=int(r["n_urls"]), category=r["category"], text=r["text"],
                   score=float(r["score"]) if r.get("score") not in (None, "") else None) for r in rows]
