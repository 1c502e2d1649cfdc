"""RAGAuth: authority-guided document filtering for RAG (AuthorityBench 3.2.2, 4.4).

Flow (each step a rule, see rules/ragauth.smk):

1. :func:`load_ragauth` reads the release (Figure 5's format: a JSON list or
   JSON lines of ``{qid, question, question_type, language, ground_truth,
   documents: [{docid, url, domain, PageRank, doc_text, authority}]}``),
   checks every field and writes one normalised question per line.
2. Each strategy gives every document of a question a score:
   ``relevance`` / ``utility`` / ``authority``: the model, ListJudge-PointScore
   over all documents in one prompt (Appendix A, strategies b-d; authority
   sees source URLs only); ``pagerank_oracle``: the documents' true PageRank
   (the ceiling of pure authority filtering); ``tld_prior``: the DomainAuth
   baseline's public-suffix prior. ``no_filter`` scores nothing.
3. :func:`top_k` keeps the k best documents: score descending, ties broken by
   retrieval order (the release's document order), unscored documents last.
   A question with fewer than k documents keeps all of them. The kept
   documents are shown to the generator in that ranked order, renumbered 0..k-1.
4. The generator answers yes/no from the kept documents (strategy a's prompt);
   :func:`answer_row` scores the answer (``parse.parse_yes_no``): anything
   that is not a leading yes/no is wrong and a parse failure.

Every document text in a prompt is cut to ``doc_tokens`` tokens of the
model's own tokenizer (:mod:`authbench.engines.tokenize`); cut documents are
counted in the cell's manifest. A prompt that still exceeds the model's
``n_ctx`` stops the cell with an error naming the question.
"""

from __future__ import annotations

import json
import math
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .domains import registered_domain
from .evaluate import tld_prior_score
from .parse import parse_yes_no
from .prompts import TemplateError, read_template_file
from .records import InputError, read_json_records

NO_FILTER = "no_filter"
LLM_STRATEGIES = ("relevance", "utility", "authority")
PRIOR_STRATEGIES = ("pagerank_oracle", "tld_prior")
STRATEGIES = (NO_FILTER, *LLM_STRATEGIES, *PRIOR_STRATEGIES)
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
    for where, rec in read_json_records(path, "a RAGAuth file: a JSON list or JSON lines of question records"):
        def fail(field: str, expected: str, got: object = None) -> InputError:
            qid = rec.get("qid") if isinstance(rec, dict) else None
            who = f"{where}" + (f" (qid {qid})" if qid else "")
            shown = "" if got is None else f", got {json.dumps(got, ensure_ascii=False)[:80]}"
            return InputError(f"{path}: {who}: field '{field}': expected {expected}{shown}")

        if not isinstance(rec, dict):
            raise fail("(record)", "a JSON object", rec)
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


# --- prompts ---------------------------------------------------------------

STAGE_OUTPUT = {"answer": "yes_no", "relevance": "list_scores", "utility": "utility", "authority": "list_scores"}
_DOC_FIELDS = {"id", "url", "domain", "text"}


@dataclass(frozen=True)
class RagTemplate:
    """A RAGAuth prompt file: ``strategy`` (answer, relevance, utility or
    authority), ``output``, ``source``, ``document`` (one line per document:
    ``{id}``, ``{url}``, ``{domain}``, ``{text}``), ``separator`` between
    documents and ``template`` (``{question}``, ``{documents}``, ``{last_id}``)."""

    path: str
    strategy: str
    output: str
    template: str
    document: str
    separator: str

    @property
    def uses_text(self) -> bool:
        return "text" in _names(self.document)

    def render(self, question: str, docs: Sequence[Mapping]) -> str:
        lines = self.separator.join(
            self.document.format(id=i, url=d["url"], domain=d["domain"], text=d["text"]) for i, d in enumerate(docs)
        )
        return self.template.format(question=question, documents=lines, last_id=len(docs) - 1)


def _names(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def load_rag_template(path: str | Path) -> RagTemplate:
    path = Path(path)
    data = read_template_file(path, ("strategy", "output", "document", "template"))
    if not isinstance(data.get("separator", "\n\n"), str):
        raise TemplateError(f"{path}: 'separator' must be a string (the text between documents)")
    strategy = data["strategy"]
    if strategy not in STAGE_OUTPUT:
        raise TemplateError(f"{path}: unknown strategy {strategy!r}; expected one of {sorted(STAGE_OUTPUT)}")
    if data["output"] != STAGE_OUTPUT[strategy]:
        raise TemplateError(f"{path}: {strategy} replies in format {STAGE_OUTPUT[strategy]!r}, not {data['output']!r}")
    try:
        found, doc_found = _names(data["template"]), _names(data["document"])
    except ValueError as err:
        raise TemplateError(f"{path}: template is not valid format syntax: {err}") from None
    needed = {"documents"} | ({"question"} if strategy != "authority" else set())
    if needed - found:
        raise TemplateError(f"{path}: template lacks placeholder(s) {sorted(needed - found)}")
    if found - {"question", "documents", "last_id"}:
        raise TemplateError(f"{path}: unknown placeholder(s) {sorted(found - {'question', 'documents', 'last_id'})}")
    if doc_found - _DOC_FIELDS or "id" not in doc_found:
        raise TemplateError(f"{path}: document line uses {sorted(doc_found)}; allowed {sorted(_DOC_FIELDS)}, "
                            "and {id} is required")
    if strategy == "authority" and "text" in doc_found:
        raise TemplateError(f"{path}: the authority filter sees source URLs only, not {{text}}")
    return RagTemplate(str(path), strategy, data["output"], data["template"], data["document"],
                       data.get("separator", "\n\n"))


# --- scores and selection -----------------------------------------------------

def prior_scores(questions: Sequence[Mapping], strategy: str, tld_config: Mapping | None = None) -> list[dict]:
    """Per question, one score per document from a non-LLM prior:
    ``pagerank_oracle`` = the document's PageRank (null when unknown: ranks
    last); ``tld_prior`` = the DomainAuth baseline's suffix score."""
    rows = []
    for q in questions:
        if strategy == "pagerank_oracle":
            scores = [d["pagerank"] for d in q["documents"]]
        elif strategy == "tld_prior":
            if not tld_config:
                raise ValueError("the tld_prior strategy needs baselines.tld_prior in the config")
            scores = [tld_prior_score(d["domain"], tld_config["scores"], tld_config["default"]) if d["domain"] else None
                      for d in q["documents"]]
        else:
            raise ValueError(f"{strategy!r} is not a prior strategy; expected one of {PRIOR_STRATEGIES}")
        rows.append({"qid": q["qid"], "scores": scores, "status": "ok"})
    return rows


def judged_scores(value: object, n: int) -> list[int | None]:
    """Per-document scores from a parsed list-score or utility reply."""
    if isinstance(value, dict) and "scores" in value and isinstance(value["scores"], dict):
        value = value["scores"]
    if not isinstance(value, dict):
        return [None] * n
    return [value.get(str(i), value.get(i)) for i in range(n)]


def top_k(scores: Sequence[float | None], k: int | None) -> list[int]:
    """Document indices ranked by score (descending), ties in retrieval order,
    unscored (None/NaN) documents last; the first ``k`` of them (all when k is
    None or larger than the list)."""
    def key(i: int):
        s = scores[i]
        missing = s is None or (isinstance(s, float) and math.isnan(s))
        return (missing, 0.0 if missing else -float(s), i)

    order = sorted(range(len(scores)), key=key)
    return order if k is None else order[:k]


# --- requests ------------------------------------------------------------------

def cut_documents(docs: Sequence[Mapping], budget: int | None, tokenizer) -> tuple[list[dict], int]:
    """The documents with ``text`` cut to ``budget`` tokens; how many were cut."""
    from .engines.tokenize import truncate

    out, n_cut = [], 0
    for d in docs:
        text, cut = truncate(d["text"], budget, tokenizer)
        n_cut += cut
        out.append({**d, "text": text})
    return out, n_cut


def _check_fits(prompt: str, qid: str, tokenizer, n_ctx: int | None, reserve: int) -> None:
    if n_ctx is None:
        return
    n = len(tokenizer.encode(prompt))
    if n + reserve > n_ctx:
        raise InputError(f"question {qid}: the prompt is {n} tokens, {reserve} more are needed for the reply and "
                         f"the model's n_ctx is {n_ctx}: lower ragauth.doc_tokens or raise the model's n_ctx")


def rank_requests(questions: Sequence[Mapping], template: RagTemplate, tokenizer, budget: int | None,
                  n_ctx: int | None = None, reserve: int = 0) -> tuple[list[dict], dict]:
    """One scoring request per question (all its documents in one prompt)."""
    reqs, cut, total = [], 0, 0
    for q in questions:
        docs, n_cut = cut_documents(q["documents"], budget if template.uses_text else None, tokenizer)
        cut, total = cut + n_cut, total + len(docs)
        prompt = template.render(q["question"], docs)
        _check_fits(prompt, q["qid"], tokenizer, n_ctx, reserve)
        reqs.append({"request_id": q["qid"], "output": template.output, "n": len(docs), "prompt": prompt})
    return reqs, {"documents_shown": total, "documents_truncated": cut}


def answer_requests(questions: Sequence[Mapping], template: RagTemplate, scores: Mapping[str, Sequence] | None,
                    k: int | None, tokenizer, budget: int | None, n_ctx: int | None = None,
                    reserve: int = 0) -> tuple[list[dict], dict[str, list[str]], dict]:
    """One yes/no request per question over its kept documents (all of them,
    in retrieval order, when ``scores`` is None: no filter). Returns the
    requests, the kept docids per question (in prompt order) and the counts."""
    reqs, kept, cut, total, short = [], {}, 0, 0, 0
    for q in questions:
        docs = q["documents"]
        if scores is not None:
            if q["qid"] not in scores:
                raise InputError(f"the scores file has no row for question {q['qid']}")
            qs = scores[q["qid"]]
            if len(qs) != len(docs):
                raise InputError(f"question {q['qid']}: {len(qs)} scores for {len(docs)} documents")
            short += k is not None and len(docs) < k
            docs = [docs[i] for i in top_k(qs, k)]
        docs, n_cut = cut_documents(docs, budget, tokenizer)
        cut, total = cut + n_cut, total + len(docs)
        prompt = template.render(q["question"], docs)
        _check_fits(prompt, q["qid"], tokenizer, n_ctx, reserve)
        reqs.append({"request_id": q["qid"], "output": template.output, "n": 1, "prompt": prompt})
        kept[q["qid"]] = [d["docid"] for d in docs]
    return reqs, kept, {"documents_shown": total, "documents_truncated": cut, "questions_with_fewer_than_k": short}


def answer_row(question: Mapping, reply: str, kept: Sequence[str]) -> dict:
    """One scored answer: parsed value, status, and whether it matches the gold."""
    result = parse_yes_no(reply)
    return {"request_id": question["qid"], "qid": question["qid"], "topic": question["topic"],
            "gold": question["gold"], "answer": result.value, "status": result.status, "detail": result.detail,
            "correct": result.value is not None and result.value == question["gold"],
            "n_docs": len(kept), "selected": list(kept)}
