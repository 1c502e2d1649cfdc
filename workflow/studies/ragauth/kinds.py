"""RAGAuth's rank and answer jobs, each declared once
(:class:`authbench.studies.jobs.JobKind`): the rules ``ragauth_rank`` and
``ragauth_answer`` take their outputs, inputs and params from here, the
report's inputs and the sample viewer list their files, and the CLI steps
and the plan build their requests with the same functions
(:func:`rank_job`, :func:`answer_job`). The documents are cut with the
model's tokenizer, which the step loads and the plan is given: both pass
it with the inputs (``tokenizer``, and ``n_ctx``: the context the prompts
must fit, None in the plan, whose per-document cut is an upper bound).
Without the RAGAuth release the run leaves RAGAuth out and the plan plans
these jobs apart, on a stand-in release (``planned_by_study``:
:func:`authbench.studies.ragauth.plan.plan_jobs`). Light: the Snakefile
loads it on every run."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from authbench.cells.step import FILES
from authbench.paths import Layout
from authbench.studies.jobs import CellParams, JobKind
from authbench.studies.ragauth import layout as rag_layout
from authbench.studies.ragauth.words import LLM_STRATEGIES, NO_FILTER, PRIOR_STRATEGIES


@dataclass(frozen=True)
class RagParams(CellParams):
    """A RAGAuth model job's params: its stage (``answer``, or the strategy a rank job scores by), strategy, k
    (None: every document) and the per-document token cut."""

    stage: str
    strategy: str
    k: Any
    doc_tokens: Any


def rank_jobs(cells) -> list[dict]:
    """The rank jobs the answer cells ``cells`` (``RagCells.cells``) read: one per model and LLM strategy, in the
    cells' order."""
    return [{"model": m, "strategy": s} for m, s in dict.fromkeys((m, s) for m, s, _ in cells if s in LLM_STRATEGIES)]


def answer_jobs(cells) -> list[dict]:
    return [{"model": m, "strategy": s, "topk": k} for m, s, k in cells]


def _cells(config: Mapping[str, Any]):
    from authbench.studies.ragauth.cell_list import rag_cells

    return rag_cells(config, os.path.exists).cells


def _k(topk: str) -> int | None:
    return None if topk == "all" else int(topk[1:])


def _params(config: Mapping[str, Any], shared: dict, stage: str, strategy: str, k: int | None) -> RagParams:
    return RagParams(**shared, stage=stage, strategy=strategy, k=k, doc_tokens=config["ragauth"].get("doc_tokens"))


def _load(data: Mapping[str, Any]) -> tuple[list[dict], Any]:
    """The questions and the template of a job's inputs (a value that is not a path is kept as it is)."""
    from authbench.records import read_jsonl
    from authbench.studies.ragauth.requests import load_rag_template

    questions, template = data["questions"], data["template"]
    questions = read_jsonl(questions) if isinstance(questions, (str, Path)) else questions
    template = load_rag_template(template) if isinstance(template, (str, Path)) else template
    return questions, template


def _reply_budget(params: Mapping[str, Any], output: str, n: int) -> int:
    from authbench.cells.planned import generate_of
    from authbench.llm.grammars import token_budget

    return token_budget(output, n, params["constrained"], generate_of(params["model"]).max_tokens)


# --- rank: a model scores every document of a question --------------------------------------


def rank_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, str]:
    return {"questions": rag_layout.questions(Layout(config["results"])),
            "template": f"{config['prompts']}/ragauth/{wildcards['strategy']}.yaml"}


def rank_job(params: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[list[dict], dict]:
    """(requests, the documents shown and cut) of one rank job: each question with all its documents in one
    prompt, each document cut at ``doc_tokens`` with ``data["tokenizer"]``."""
    from authbench.studies.ragauth.requests import rank_requests

    questions, template = _load(data)
    n_max = max(len(q["documents"]) for q in questions)
    return rank_requests(questions, template, data.get("tokenizer"), params["doc_tokens"], data.get("n_ctx"),
                         _reply_budget(params, template.output, n_max))


RANK = JobKind("ragauth_rank", "ragauth/{model}/rank/{strategy}", jobs=lambda config: rank_jobs(_cells(config)),
               params=lambda config, wc, shared: _params(config, shared, wc["strategy"], wc["strategy"], None),
               requests=lambda params, data: rank_job(params, data)[0], files=("questions", "template"),
               inputs=rank_inputs, kind="rank", planned_by_study=True, cell_files=False,
               extra=(*((n, f) for n, f in FILES.items() if n != "manifest"), ("scores", "scores.jsonl"),
                      ("manifest", FILES["manifest"])))


# --- answer: a yes/no answer over the kept documents ------------------------------------------


def answer_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, Any]:
    """The questions, the scores the answer filters by (its rank job's, a prior's, or none: no filter) and the
    template."""
    layout, strategy = Layout(config["results"]), wildcards["strategy"]
    if strategy == NO_FILTER:
        scores: Any = []
    elif strategy in PRIOR_STRATEGIES:
        scores = rag_layout.prior(layout, strategy)
    else:
        scores = f"{RANK.folder(layout, {'model': wildcards['model'], 'strategy': strategy})}/scores.jsonl"
    return {"questions": rag_layout.questions(layout), "scores": scores,
            "template": f"{config['prompts']}/ragauth/answer.yaml"}


def answer_job(params: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[list[dict], dict, dict]:
    """(requests, the kept docids per question, the counts) of one answer job: each question over its top k
    documents by ``data["scores"]`` (a scores file, ``{qid: scores}``, or none: every document)."""
    from authbench.records import read_jsonl
    from authbench.studies.ragauth.requests import answer_requests

    questions, template = _load(data)
    scores = data.get("scores") or None
    if isinstance(scores, (str, Path)):
        scores = {r["qid"]: r["scores"] for r in read_jsonl(scores)}
    return answer_requests(questions, template, scores, params["k"], data.get("tokenizer"), params["doc_tokens"],
                           data.get("n_ctx"), _reply_budget(params, "yes_no", 1))


ANSWER = JobKind("ragauth_answer", "ragauth/{model}/answer/{strategy}/{topk}",
                 jobs=lambda config: answer_jobs(_cells(config)),
                 params=lambda config, wc, shared: _params(config, shared, "answer", wc["strategy"], _k(wc["topk"])),
                 requests=lambda params, data: answer_job(params, data)[0], files=("questions", "scores", "template"),
                 inputs=answer_inputs, kind="answer", planned_by_study=True)
