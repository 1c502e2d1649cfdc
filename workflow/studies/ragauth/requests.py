"""RAGAuth prompts, document scores and requests (AuthorityBench 3.2.2, 4.4):
the strategy templates, non-LLM prior scores, top-k selection, the rank and
answer requests of a cell and the scored answer rows (the flow is described
in :mod:`authbench.studies.ragauth.dataset`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from authbench.errors import InputError, TemplateError
from authbench.llm.parse import parse_yes_no
from authbench.llm.prompts import check_placeholders, placeholders, read_template_file
from authbench.net import tld_prior_score
from authbench.studies.ragauth.words import PRIOR_STRATEGIES

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
        return "text" in placeholders(self.document, self.path)

    def render(self, question: str, docs: Sequence[Mapping]) -> str:
        lines = self.separator.join(
            self.document.format(id=i, url=d["url"], domain=d["domain"], text=d["text"]) for i, d in enumerate(docs)
        )
        return self.template.format(question=question, documents=lines, last_id=len(docs) - 1)


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
    needed = {"documents"} | ({"question"} if strategy != "authority" else set())
    check_placeholders(data["template"], path, needed, {"question", "documents", "last_id"})
    doc_found = check_placeholders(data["document"], path, {"id"}, _DOC_FIELDS, part="document line")
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
    from authbench.llm.engines.tokenize import truncate

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
