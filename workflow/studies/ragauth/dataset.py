"""RAGAuth questions: the release (or a built file) -> checked, normalised questions.

The flow of the whole RAGAuth study (the other steps are in
:mod:`authbench.studies.ragauth.requests` and ``report``):

1. :func:`load_ragauth` reads the release (Figure 5's format: a JSON list or
   JSON lines of ``{qid, question, question_type, language, ground_truth,
   documents: [{docid, url, domain, PageRank, doc_text, authority}]}``),
   checks every field and writes one normalised question per line. A
   ``.json`` file may also be an object of records keyed by qid; ``.parquet``
   (a ``documents`` list column) is read too
   (:func:`authbench.records.read_records`).
2. Each strategy gives every document of a question a score:
   ``relevance`` / ``utility`` / ``authority``: the model, ListJudge-PointScore
   over all documents in one prompt (Appendix A, strategies b-d; authority
   sees source URLs only); ``pagerank_oracle``: the documents' true PageRank
   (the ceiling of pure authority filtering); ``tld_prior``: the DomainAuth
   baseline's public-suffix prior. ``no_filter`` scores nothing.
3. :func:`~authbench.studies.ragauth.requests.top_k` keeps the k best documents: score descending, ties broken by
   retrieval order (the release's document order), unscored documents last.
   A question with fewer than k documents keeps all of them. The kept
   documents are shown to the generator in that ranked order, renumbered 0..k-1.
4. The generator answers yes/no from the kept documents (strategy a's prompt);
   :func:`~authbench.studies.ragauth.requests.answer_row` scores the answer (``parse.parse_yes_no``): anything
   that is not a leading yes/no is wrong and a parse failure.

Every document text in a prompt is cut to ``doc_tokens`` tokens of the
model's own tokenizer (:mod:`authbench.llm.engines.tokenize`); cut documents are
counted in the cell's manifest. A prompt that still exceeds the model's
``n_ctx`` stops the cell with an error naming the question.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from authbench.errors import InputError, excerpt
from authbench.net import registered_domain
from authbench.records import read_records

MAX_DOCS = 10  # the list-score reply formats index documents 0..9
MAX_PAGERANK = 10
_YES_NO = {"yes": "yes", "no": "no"}


# --- loading ---------------------------------------------------------------

ANSWER_PUNCTUATION = ".!?。！？"  # may trail a gold answer


def normalise_gold(value: object) -> str | None:
    """``"Yes"``, ``"no."``, ``" NO "`` -> ``"yes"``/``"no"``; anything else None."""
    if not isinstance(value, str):
        return None
    return _YES_NO.get(value.strip().rstrip(ANSWER_PUNCTUATION).strip().lower())


def topic_of(record: Mapping, topics: Mapping[str, str] | None) -> str | None:
    """The record's own ``topic`` field, else the topic its qid prefix (the
    text before the first ``_``: ``MED_EN_001`` -> ``MED``) maps to in config."""
    if isinstance(record.get("topic"), str) and record["topic"].strip():
        return record["topic"].strip()
    prefix = str(record.get("qid", "")).split("_", 1)[0]
    return (topics or {}).get(prefix)


def _pagerank(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or not 0 <= value <= MAX_PAGERANK:
        raise ValueError
    return value


def load_ragauth(path: str | Path, topics: Mapping[str, str] | None = None) -> list[dict]:
    """Every question of a RAGAuth file, checked and normalised.

    Errors (:class:`InputError`) name the file, the record (list index or
    line), its qid and the field: a missing or empty ``qid``/``question``, a
    ``question_type`` other than ``yes_no``, a ``ground_truth`` that is not
    yes/no, no documents or more than 10, a document without ``url`` or
    ``doc_text``, a ``PageRank`` that is not an integer 0-10 or null, a
    repeated qid or docid. ``domain`` is derived from ``url`` when absent.
    """
    path = Path(path)
    out: list[dict] = []
    seen: dict[str, str] = {}
    expected = "a RAGAuth file: a JSON list, JSON object keyed by qid or JSON lines of question records"
    for where, rec in read_records(path, expected, key="qid", default="json-or-lines").rows:
        def fail(field: str, expected: str, got: object = None) -> InputError:
            qid = rec.get("qid")
            who = f"{where}" + (f" (qid {qid})" if qid else "")
            shown = "" if got is None else f", got {excerpt(got)}"
            return InputError(f"{path}: {who}: field '{field}': expected {expected}{shown}")

        qid = rec.get("qid")
        if not isinstance(qid, str) or not qid.strip():
            raise fail("qid", "a non-empty string", qid)
        if qid in seen:
            raise fail("qid", f"a unique id (also used by {seen[qid]})", qid)
        seen[qid] = where
        question = rec.get("question")
        if not isinstance(question, str) or not question.strip():
            raise fail("question", "a non-empty string", question)
        if rec.get("question_type", "yes_no") != "yes_no":
            raise fail("question_type", "'yes_no' (answers are scored as yes/no)", rec.get("question_type"))
        gold = normalise_gold(rec.get("ground_truth"))
        if gold is None:
            raise fail("ground_truth", "'Yes' or 'No'", rec.get("ground_truth"))
        docs = rec.get("documents")
        if not isinstance(docs, list) or not docs:
            raise fail("documents", "a non-empty list of documents", docs)
        if len(docs) > MAX_DOCS:
            raise fail("documents", f"at most {MAX_DOCS} documents (reply formats index them 0-9)", len(docs))
        norm_docs, docids = [], set()
        for i, doc in enumerate(docs):
            field = f"documents[{i}]"
            if not isinstance(doc, dict):
                raise fail(field, "a JSON object", doc)
            url, text = doc.get("url"), doc.get("doc_text")
            if not isinstance(url, str) or not url.strip():
                raise fail(f"{field}.url", "a non-empty string", url)
            if not isinstance(text, str):
                raise fail(f"{field}.doc_text", "a string", text)
            docid = doc.get("docid", f"doc_{i:03d}")
            if not isinstance(docid, str) or not docid or docid in docids:
                raise fail(f"{field}.docid", "a string unique within the question", docid)
            docids.add(docid)
            try:
                pagerank = _pagerank(doc.get("PageRank"))
            except ValueError:
                raise fail(f"{field}.PageRank", "an integer 0-10 or null", doc.get("PageRank")) from None
            domain = doc.get("domain")
            if not isinstance(domain, str) or not domain.strip():
                domain = registered_domain(url)[0] or ""
            norm_docs.append({"docid": docid, "url": url.strip(), "domain": domain.strip().lower(),
                              "pagerank": pagerank, "text": text, "authority": doc.get("authority")})
        out.append({"qid": qid, "question": question.strip(), "gold": gold, "topic": topic_of(rec, topics),
                    "language": rec.get("language"), "documents": norm_docs})
    if not out:
        raise InputError(f"{path}: line 1: no question records (expected RAGAuth records in Figure 5's format)")
    return out


def dataset_report(questions: Sequence[Mapping], ks: Sequence[int]) -> list[dict]:
    """Counts a researcher checks before trusting Table 5."""
    docs = [d for q in questions for d in q["documents"]]
    rows = [{"what": "questions", "count": len(questions)},
            {"what": "documents", "count": len(docs)},
            {"what": "documents_without_pagerank", "count": sum(d["pagerank"] is None for d in docs)},
            {"what": "documents_without_domain", "count": sum(not d["domain"] for d in docs)}]
    rows += [{"what": f"questions_with_fewer_than_{k}_documents",
              "count": sum(len(q["documents"]) < k for q in questions)} for k in ks]
    for gold in ("yes", "no"):
        rows.append({"what": f"gold_{gold}", "count": sum(q["gold"] == gold for q in questions)})
    for topic in sorted({q["topic"] for q in questions if q["topic"]}):
        rows.append({"what": f"topic:{topic}", "count": sum(q["topic"] == topic for q in questions)})
    return rows
