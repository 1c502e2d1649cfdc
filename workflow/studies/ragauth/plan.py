"""RAGAuth's cells as the plan sees them, before any model runs
(:attr:`authbench.studies.registry.Study.plan_jobs`): a rank cell per model
and LLM strategy, an answer cell per model, strategy and k. Answer cells
keep the top k documents of the model's scores: the plan keeps the first k
in retrieval order (same count, other documents), and says so.

The RAGAuth release is not redistributed: while it is not at
``ragauth.source`` (and no ``build`` makes one), :data:`RAG_QUESTIONS`
yes/no questions (the release's size, Table 5) with :data:`RAG_DOCS`
documents each (its retrieval depth) stand in, every document long enough
to be cut at ``ragauth.doc_tokens`` tokens (the cut is the per-document
figure). The run itself leaves RAGAuth out until the release is there: its
cells are planned apart (``plan.md`` gives them beside each model's total).
``benchmarks/standins.py`` writes the same file to disk."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any, Iterator, Mapping

from authbench.cells.planned import Estimated, PlanContext, PlanJob
from authbench.records import read_jsonl
from authbench.studies.authority.plan import STAND_IN, stand_in_text
from authbench.studies.ragauth.cell_list import rag_cells
from authbench.studies.ragauth import layout as rag_layout
from authbench.studies.ragauth.words import NO_FILTER

RAG_QUESTIONS, RAG_DOCS = 120, 10


def ragauth_missing(config: Mapping[str, Any], exists) -> bool:
    """Whether RAGAuth is studied but its release is not at ``ragauth.source`` (and no ``build`` makes one)."""
    rag = rag_cells(config, exists)
    return not rag.cells and bool(rag_cells(config, lambda _: True).cells)


def stand_in_ragauth(config: Mapping[str, Any], seed: int) -> list[dict]:
    """:data:`RAG_QUESTIONS` records in the release's format (Figure 5),
    each with :data:`RAG_DOCS` documents of ``ragauth.doc_tokens`` words and
    more (at least one token a word: every document reaches the cut)."""
    from authbench.studies.authority.domains import build_domains

    dom = config["domainauth"]
    domains, _ = build_domains(dom["source"], dom.get("status_filter"), dom["categories"])
    rng = random.Random(seed)
    words = int(config["ragauth"]["doc_tokens"])
    topics = list((config["ragauth"].get("topics") or {"MED": "medical"}).keys())
    records = []
    for i in range(RAG_QUESTIONS):
        docs = []
        for j, d in enumerate(rng.sample(domains, RAG_DOCS)):
            text = stand_in_text(f"document {j + 1} for question {i + 1}.", words + rng.randint(0, words))
            docs.append({"docid": f"doc_{j + 1:03d}", "url": f"https://www.{d.domain}/page/{i}-{j}",
                         "domain": d.domain, "PageRank": d.level, "authority": "high" if d.level >= 5 else "low",
                         "doc_text": text})
        records.append({"qid": f"{topics[i % len(topics)]}_EN_{i + 1:03d}",
                        "question": f"{STAND_IN} Is statement {i + 1} of this generated question set true?",
                        "question_type": "yes_no", "language": "en", "ground_truth": "Yes" if i % 2 == 0 else "No",
                        "documents": docs})
    return records


def rag_questions(config: Mapping[str, Any], estimated: Estimated) -> list[dict]:
    """RAGAuth's questions as the ``ragauth_dataset`` rule would read them from the stand-in release."""
    from authbench.studies.ragauth.dataset import load_ragauth

    rc = config["ragauth"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ragauth.json"
        path.write_text(json.dumps(stand_in_ragauth(config, config["seed"])))
        questions = load_ragauth(path, rc.get("topics"))
    estimated.notes.append(
        f"the RAGAuth release is not at ragauth.source ({rc['source']}): {RAG_QUESTIONS} yes/no questions (the "
        f"release's size) with {RAG_DOCS} documents each stand in, every document cut at ragauth.doc_tokens = "
        f"{rc['doc_tokens']} tokens (an upper bound per document); the run leaves RAGAuth out until the release is "
        "there, so its cells are planned apart from each model's total")
    return questions


class _CuttingMemo:
    """A tokenizer whose ``encode``/``decode`` remember their results: RAGAuth
    cuts the same documents in every cell of a model (and of every model
    sharing the vocabulary)."""

    def __init__(self, tokenizer):
        self._tok, self._enc, self._dec = tokenizer, {}, {}

    def encode(self, text: str):
        if text not in self._enc:
            self._enc[text] = self._tok.encode(text)
        return self._enc[text]

    def decode(self, tokens) -> str:
        key = tuple(tokens)
        if key not in self._dec:
            self._dec[key] = self._tok.decode(tokens)
        return self._dec[key]


def plan_jobs(config: Mapping[str, Any], ctx: PlanContext) -> Iterator[PlanJob]:
    """RAGAuth's rank and answer cells, with their batches; without its
    release, on the stand-in one and apart from the run (``in_run`` False)."""
    from authbench.studies.ragauth.kinds import ANSWER, RANK, answer_jobs, rank_jobs

    apart = ragauth_missing(config, ctx.exists)
    rag = rag_cells(config, (lambda _: True) if apart else ctx.exists)
    if not rag.cells:
        return
    questions = rag_questions(config, ctx.estimated) if apart else read_jsonl(rag_layout.questions(ctx.layout))
    cutters: dict[int, _CuttingMemo] = {}
    in_order = {q["qid"]: [float(len(q["documents"]) - i) for i in range(len(q["documents"]))] for q in questions}
    ranks, answers = rank_jobs(rag.cells), answer_jobs(rag.cells)
    for model in dict.fromkeys(m for m, _, _ in rag.cells):
        tokenizer = ctx.tokenizers.get(model)
        if tokenizer is not None:
            tokenizer = cutters.setdefault(id(tokenizer), _CuttingMemo(tokenizer))
        given = {"questions": questions, "tokenizer": tokenizer}
        for wc in (wc for wc in ranks if wc["model"] == model):
            yield RANK.plan_job("ragauth", config, wc, given, in_run=not apart)
        for wc in (wc for wc in answers if wc["model"] == model):
            scored = wc["strategy"] != NO_FILTER
            notes = (ANSWER_NOTE,) if scored else ()
            yield ANSWER.plan_job("ragauth", config, wc, {**given, "scores": in_order if scored else None},
                                  notes=notes, in_run=not apart)


ANSWER_NOTE = ("answer prompts keep the first k documents in retrieval order: the model's or the prior's ranking "
               "picks which k (same count)")


def plan_inputs(config: Mapping[str, Any], layout, exists) -> list[str]:
    """The files :func:`plan_jobs` reads: the questions (when the release is there) and the templates."""
    if not rag_cells(config, lambda _: True).cells:
        return []
    prompts = config["prompts"]
    out = [] if ragauth_missing(config, exists) else [rag_layout.questions(layout)]
    out += [f"{prompts}/ragauth/answer.yaml"]
    return out + [f"{prompts}/ragauth/{s}.yaml" for s in config["ragauth"]["strategies"]
                  if s in ("relevance", "utility", "authority")]


def why_empty(config: Mapping[str, Any]) -> str | None:
    """Why RAGAuth plans no cell (None: it plans some)."""
    return None if rag_cells(config, lambda _: True).cells else "ragauth: no strategy and k select a cell"
