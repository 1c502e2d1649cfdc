"""RAGAuth dataset build: your own questions, retrieved documents and PageRank labels
-> records in the released RAGAuth format (paper, Fig. 5).

Researchers who bring their own data write three plain tables; this module joins
them into one record per question (``qid``, ``question``, ``question_type``
"yes_no", ``language``, ``ground_truth`` "Yes"/"No", optional ``topic``,
``documents``: ``[{docid, url, domain, PageRank, doc_text, authority}]``), which
the RAGAuth loader (:mod:`authbench.studies.ragauth.dataset`) reads. The Snakemake chain is
documents -> :func:`write_domain_list` -> the ``fetch_pagerank`` rule (API or
bulk file) -> labels CSV -> :func:`build_ragauth`.

Rules:

* **Tables.** ``.csv`` files are RFC 4180 CSV (comma, double quotes, quoted
  newlines allowed); ``.tsv`` files are split on every tab (no quoting: a quote
  character is data, so a TSV text cannot hold a tab or a newline -- use CSV).
  ``.json`` (a list of records, or an object of records keyed by id: ``qid``
  for questions, ``docid`` for documents, ``domain`` for labels),
  ``.jsonl`` and ``.parquet`` are read as records
  (:func:`authbench.records.read_records`); a row with fewer or more fields
  than the header is an error.
  Any other name: TSV when the header line holds a tab, else CSV when it holds
  a comma, else TSV. Header names are trimmed and matched case-insensitively;
  other columns are ignored. Blank lines are skipped. A UTF-8 BOM is dropped.
  Cells are trimmed.
* **Questions** (``qid``, ``question``, ``answer``; optional ``topic``,
  ``language``): ``answer`` is yes or no in any case with optional trailing
  punctuation (``Yes``, ``no.``, ``YES!``), or a boolean (JSON ``true`` /
  ``false``, or those words in any case: BoolQ's and StrategyQA's answers,
  true = yes), and becomes ``ground_truth`` "Yes" or "No". ``language``
  defaults to "en" (missing column or empty cell); ``topic`` is written only
  when the cell is non-empty. Records keep the questions file's
  order.
* **Documents** (``qid``, ``url``, ``text``; optional ``docid``): a question's
  documents keep file order (= retrieval order). ``url`` is written as given
  (trimmed); ``domain`` is the URL's
  registered domain by :func:`authbench.net.registered_domain` (tldextract
  with its bundled suffix list, never the network; ``http://`` added when there
  is no scheme). ``docid`` is the cell when non-empty, else ``doc_<nnn>``, ``nnn``
  the document's position (from 001) among *all* rows of its question in the
  file, dropped rows included -- ids may have gaps but always point back to the
  row. Two kept documents of one question with the same docid: InputError.
* **Document drops** (unit: document), checked in this order, each counted:
  ``unknown_question`` (qid not in the questions file, an empty qid included),
  ``unparsable_url`` / ``ip_host`` / ``no_registered_domain`` (the URL
  reduction's reasons), ``no_text`` (empty text), ``duplicate_url`` (the same URL
  string, trimmed, already kept for the question; the first wins),
  ``over_max_docs`` (beyond the first ``max_docs`` kept documents of the
  question; ``max_docs`` is 1..10, the RAGAuth loader's limit). **Question
  drop** (unit: question): ``no_documents`` (no document left). A question with
  fewer than ``max_docs`` documents is kept; the report counts questions with
  fewer than k documents for k in 1, 3, 5 and ``max_docs`` (top-k then keeps
  them all).
* **Labels** (``labels_path``; None: every ``PageRank`` is null). One of:
  the PageRank fetcher's CSV (the header holds every column of
  :data:`authbench.fetch.pagerank.PAGERANK_COLUMNS`): only rows whose ``status``
  is "ok" count, other rows are ignored (their ``page_rank`` is empty);
  any table with ``domain`` and ``page_rank`` (a ``status`` column there is NOT
  a filter: DomainAuth's own table says "legitimate"/"phishing"); or a URL table
  with ``url`` and ``page_rank`` (``url`` wins when both ``url`` and ``domain``
  are present, as in :mod:`authbench.studies.authority.domains`). Every value is reduced to its
  registered domain; rows whose value is rejected are ignored and counted in
  ``report["label_rows"]``. ``page_rank`` must be an integer 0..10 (10 is kept:
  RAGAuth, unlike DomainAuth, keeps every level). **Conflicting labels** (two
  counted rows giving one registered domain different values, e.g. URLs on
  subdomains with their own scores) stop with InputError naming both lines:
  each document carries its domain's single PageRank, so the table must say
  which one is meant (repeats of the same value are fine).
* **Join** on the registered domain. A document whose domain has no label is
  KEPT with ``PageRank: null`` and ``authority: null`` and counted as
  ``no_pagerank_label`` (unit "document (kept, PageRank null)"): in the report
  and as a row of the drop table, but it is not a drop.
* **Authority** (informational; the loader does not use it): ``high`` for
  PageRank >= 6, ``medium`` for 3..5, ``low`` for 0..2, null when PageRank is
  null (Fig. 5 pairs PageRank 0 with "low").
* **Broken input** stops with :class:`~authbench.records.InputError` naming
  file, line and column: a missing column, an empty qid or question, an answer
  that is not yes/no, a duplicate qid (both lines named), a ``page_rank`` that is
  not an integer 0..10, a row whose field count differs from the header's,
  bytes that are not UTF-8, an empty file.
* **Output**: :func:`write_ragauth` writes a JSON list (indent 2, UTF-8 as is,
  keys in Fig. 5 order, newline at the end): the same inputs give the same
  bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from authbench.errors import InputError, excerpt
from authbench.fetch.pagerank import PAGERANK_COLUMNS
from authbench.net import registered_domain
from authbench.records import Records, read_records, text_of, write_drop_table, write_text
from authbench.studies.ragauth.dataset import MAX_DOCS, MAX_PAGERANK, normalise_gold

QUESTION_COLUMNS = ("qid", "question", "answer")
QUESTION_OPTIONAL = ("topic", "language")
DOCUMENT_COLUMNS = ("qid", "url", "text")
DOCUMENT_OPTIONAL = ("docid",)
DEFAULT_LANGUAGE = "en"
URL_REASONS = ("unparsable_url", "ip_host", "no_registered_domain")
FEWER_THAN = (1, 3, 5)

DOCUMENT_UNIT = "document"
NO_LABEL_UNIT = "document (kept, PageRank null)"
DROP_UNITS = {
    "unknown_question": DOCUMENT_UNIT,
    "unparsable_url": DOCUMENT_UNIT,
    "ip_host": DOCUMENT_UNIT,
    "no_registered_domain": DOCUMENT_UNIT,
    "no_text": DOCUMENT_UNIT,
    "duplicate_url": DOCUMENT_UNIT,
    "over_max_docs": DOCUMENT_UNIT,
    "no_documents": "question",
    "no_pagerank_label": NO_LABEL_UNIT,
}
DROP_REASONS = tuple(DROP_UNITS)


def authority(page_rank: int | None) -> str | None:
    """The informational authority word for a PageRank: high >= 6, medium 3..5, low <= 2, None for None."""
    if page_rank is None:
        return None
    if page_rank >= 6:
        return "high"
    if page_rank >= 3:
        return "medium"
    return "low"


# --------------------------------------------------------------------------- #
# tables


def _records(path: Path, expected: str, key: str | None) -> Records:
    """A table by the rules of the module docstring: CSV, plain TSV (or by the header line), JSON, Parquet."""
    return read_records(path, expected, key=key, default="sniff", quoted_tsv=False, pad_short=False)


def _read_table(path: str | Path, required: Sequence[str], optional: Sequence[str] = (), expected: str = "",
                key: str | None = None, table: Records | None = None
                ) -> tuple[Path, list[str], Iterator[tuple[str, dict[str, str]]]]:
    """(path, header, rows): each row is (where: ``line <n>``, ``record <i>``
    ..., {known column: trimmed cell}); absent optional columns are ''. A
    JSON object of records is keyed by ``key``. ``table``: the file, read already."""
    path = Path(path)
    expected = expected or f"a table with columns {', '.join(required)}"
    table = table or _records(path, expected, key)
    header = [str(cell).strip().lower() for cell in table.columns]
    for column in required:
        if column not in header:
            raise InputError(f"{path}: line 1, column '{column}': missing column "
                             f"(expected {expected}; found: {excerpt(', '.join(header) or 'none', quote=False)})")
    wanted = [c for c in (*required, *optional) if c in header]
    for column in wanted:
        if header.count(column) > 1:
            raise InputError(f"{path}: line 1, column '{column}': the header names it twice")

    def rows() -> Iterator[tuple[str, dict[str, str]]]:
        for where, record in table.rows:
            cells = {str(name).strip().lower(): value for name, value in record.items()}
            row = {column: (text_of(cells.get(column)) or "").strip() for column in wanted}
            for column in optional:
                row.setdefault(column, "")
            yield where, row

    return path, header, rows()


# --------------------------------------------------------------------------- #
# questions


BOOLEAN_ANSWERS = {"true": "Yes", "false": "No"}  # a yes/no question's answer as a boolean (BoolQ, StrategyQA)


def _answer(value: str, path: Path, line: str) -> str:
    if value.strip().lower() in BOOLEAN_ANSWERS:
        return BOOLEAN_ANSWERS[value.strip().lower()]
    word = normalise_gold(value)
    if word is None:
        raise InputError(f"{path}: {line}, column 'answer': {excerpt(value)} is not yes or no "
                         "(expected Yes or No in any case, optional trailing punctuation such as 'no.', "
                         "or true / false)")
    return word.capitalize()


def read_questions(path: str | Path) -> list[dict]:
    """Question records without documents, in file order (see the module docstring)."""
    path, _header, rows = _read_table(
        path, QUESTION_COLUMNS, QUESTION_OPTIONAL,
        "a table with columns qid, question, answer (optional: topic, language)", key="qid")
    out: list[dict] = []
    seen: dict[str, str] = {}
    for line, row in rows:
        qid = row["qid"]
        if not qid:
            raise InputError(f"{path}: {line}, column 'qid': empty qid")
        if qid in seen:
            raise InputError(f"{path}: {line}, column 'qid': duplicate qid {excerpt(qid)} "
                             f"(first on {seen[qid]})")
        seen[qid] = line
        if not row["question"]:
            raise InputError(f"{path}: {line}, column 'question': empty question")
        record = {
            "qid": qid,
            "question": row["question"],
            "question_type": "yes_no",
            "language": row["language"] or DEFAULT_LANGUAGE,
            "ground_truth": _answer(row["answer"], path, line),
        }
        if row["topic"]:
            record["topic"] = row["topic"]
        out.append(record)
    return out


# --------------------------------------------------------------------------- #
# labels


def _label_value(value: str, path: Path, line: str) -> int:
    if not value:
        raise InputError(f"{path}: {line}, column 'page_rank': missing value (expected 0..{MAX_PAGERANK})")
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not number.is_integer():
        raise InputError(f"{path}: {line}, column 'page_rank': {excerpt(value)} is not an integer "
                         f"(expected 0..{MAX_PAGERANK})")
    if not 0 <= number <= MAX_PAGERANK:
        raise InputError(f"{path}: {line}, column 'page_rank': {excerpt(value)} is out of range "
                         f"(expected 0..{MAX_PAGERANK})")
    return int(number)


def read_labels(labels_path: str | Path) -> tuple[dict[str, int], dict[str, Any]]:
    """PageRank per registered domain and what was read (``kind``, row counts); see the module docstring."""
    path = Path(labels_path)
    expected = ("the PageRank fetcher's CSV, or a table with columns domain (or url) and page_rank")
    table = _records(path, expected, "domain")
    header = [str(cell).strip().lower() for cell in table.columns]
    fetcher = all(column in header for column in PAGERANK_COLUMNS)
    key = "url" if "url" in header or "domain" not in header else "domain"
    optional = ("status",) if fetcher else ()
    path, _header, rows = _read_table(path, (key, "page_rank"), optional, expected, table=table)

    counts: Counter = Counter({"used": 0, "status_not_ok": 0, **{r: 0 for r in URL_REASONS}})
    labels: dict[str, int] = {}
    first_line: dict[str, str] = {}
    for line, row in rows:
        if fetcher and row["status"] != "ok":
            counts["status_not_ok"] += 1
            continue
        value = _label_value(row["page_rank"], path, line)
        domain, _suffix, reason = registered_domain(row[key])
        if domain is None:
            counts[reason] += 1
            continue
        counts["used"] += 1
        if domain in labels and labels[domain] != value:
            raise InputError(
                f"{path}: {line}, column 'page_rank': {domain} gets PageRank {value} here but "
                f"{labels[domain]} on {first_line[domain]} (one PageRank per registered domain is "
                "needed; remove or fix one of the rows)")
        labels.setdefault(domain, value)
        first_line.setdefault(domain, line)
    kind = "pagerank_fetcher" if fetcher else f"{key}_table"
    if not fetcher:
        del counts["status_not_ok"]
    return labels, {"kind": kind, "rows": dict(counts), "domains": len(labels)}


# --------------------------------------------------------------------------- #
# documents


def _document_rows(documents_path: str | Path) -> tuple[Path, Iterator[tuple[str, dict[str, str]]]]:
    path, _header, rows = _read_table(documents_path, DOCUMENT_COLUMNS, DOCUMENT_OPTIONAL,
                                      "a table with columns qid, url, text (optional: docid)", key="docid")
    return path, rows


def domains_of_documents(documents_path: str | Path) -> list[str]:
    """The distinct registered domains of every row of the documents file whose URL is usable, sorted.

    Rows are not checked against a questions file here (a few unused domains may
    be fetched; harmless)."""
    _path, rows = _document_rows(documents_path)
    found = set()
    for _line, row in rows:
        domain, _suffix, _reason = registered_domain(row["url"])
        if domain is not None:
            found.add(domain)
    return sorted(found)


def write_domain_list(records_or_documents_path: str | Path | Iterable[Mapping], path: str | Path) -> list[str]:
    """One registered domain per line (sorted, no header), the plain format of
    :func:`authbench.fetch.pagerank.read_domain_list`; returns the domains.

    The argument is a documents file (:func:`domains_of_documents`) or built
    records (the domains of their documents). No domain at all is an error: the
    fetcher refuses an empty list."""
    if isinstance(records_or_documents_path, (str, Path)):
        domains = domains_of_documents(records_or_documents_path)
        if not domains:
            raise InputError(f"{records_or_documents_path}: no row has a URL with a registered domain "
                             "(nothing to fetch PageRank for)")
    else:
        domains = sorted({doc["domain"] for record in records_or_documents_path for doc in record["documents"]})
        if not domains:
            raise ValueError("the records hold no document: no domain to write")
    write_text(path, "".join(f"{d}\n" for d in domains), newline="\n")
    return domains


# --------------------------------------------------------------------------- #
# build


def build_ragauth(
    questions_path: str | Path,
    documents_path: str | Path,
    labels_path: str | Path | None,
    max_docs: int = 10,
) -> tuple[list[dict], Counter, dict]:
    """Join questions, documents and labels into RAGAuth records; return (records, drops, report)."""
    if not isinstance(max_docs, int) or isinstance(max_docs, bool) or not 1 <= max_docs <= MAX_DOCS:
        raise ValueError(f"max_docs must be an integer 1..{MAX_DOCS} (the RAGAuth loader's limit), "
                         f"got {max_docs!r}")
    questions = read_questions(questions_path)
    labels, label_info = read_labels(labels_path) if labels_path is not None else ({}, {"kind": "none"})

    by_qid = {q["qid"]: q for q in questions}
    docs: dict[str, list[dict]] = {qid: [] for qid in by_qid}
    doc_lines: dict[str, dict[str, str]] = {qid: {} for qid in by_qid}
    urls: dict[str, set[str]] = {qid: set() for qid in by_qid}
    position: Counter = Counter()
    drops: Counter = Counter()
    path, rows = _document_rows(documents_path)
    for line, row in rows:
        qid = row["qid"]
        if qid not in by_qid:
            drops["unknown_question"] += 1
            continue
        position[qid] += 1
        domain, _suffix, reason = registered_domain(row["url"])
        if domain is None:
            drops[reason] += 1
            continue
        if not row["text"]:
            drops["no_text"] += 1
            continue
        if row["url"] in urls[qid]:
            drops["duplicate_url"] += 1
            continue
        if len(docs[qid]) >= max_docs:
            drops["over_max_docs"] += 1
            continue
        docid = row["docid"] or f"doc_{position[qid]:03d}"
        if docid in doc_lines[qid]:
            raise InputError(f"{path}: {line}, column 'docid': docid {excerpt(docid)} is used twice for "
                             f"question {excerpt(qid)} (first on {doc_lines[qid][docid]})")
        doc_lines[qid][docid] = line
        urls[qid].add(row["url"])
        page_rank = labels.get(domain)
        if page_rank is None:
            drops["no_pagerank_label"] += 1
        docs[qid].append({"docid": docid, "url": row["url"], "domain": domain, "PageRank": page_rank,
                          "doc_text": row["text"], "authority": authority(page_rank)})

    records = []
    for question in questions:
        documents = docs[question["qid"]]
        if not documents:
            drops["no_documents"] += 1
            continue
        records.append({**question, "documents": documents})

    kept_docs = [d for r in records for d in r["documents"]]
    sizes = [len(r["documents"]) for r in records]
    report = {
        "questions": len(records),
        "documents": len(kept_docs),
        "documents_without_pagerank": sum(d["PageRank"] is None for d in kept_docs),
        "max_docs": max_docs,
        "questions_with_fewer_than": {k: sum(n < k for n in sizes) for k in sorted({*FEWER_THAN, max_docs})},
        "documents_by_authority": {level: sum(d["authority"] == level for d in kept_docs)
                                   for level in ("high", "medium", "low")}
        | {"null": sum(d["authority"] is None for d in kept_docs)},
        "labels": label_info,
    }
    return records, drops, report


# --------------------------------------------------------------------------- #
# output


def write_ragauth(records: Sequence[Mapping], path: str | Path) -> None:
    """The records as one JSON list (indent 2, non-ASCII kept, record key order as built); atomic."""
    write_text(path, json.dumps(list(records), indent=2, ensure_ascii=False) + "\n", newline="\n")


def write_build_drops(drops: Mapping[str, int], kept: int, path: str | Path, kept_unit: str = "question") -> None:
    """``reason, unit, count`` for every reason (zeros included), then ``kept`` (questions by default).

    ``no_pagerank_label`` is listed with unit "document (kept, PageRank null)": those documents are in the output."""
    write_drop_table(drops, DROP_UNITS, kept, kept_unit, path)
