"""The self-preference study's model jobs as the plan sees them, before any
model runs (:attr:`authbench.studies.registry.Study.plan_jobs`): per
dataset the passage writers' generation cells, the perplexity cell and each
evaluator's knowledge, rerank and compare cells: the job kinds of
:mod:`authbench.studies.selfpref.kinds`, their requests built by the same
functions the jobs call, from the dataset's import and the sample drawn
here.

Passages a configured model writes (``selfpref.generate``) do not exist
yet: each stands in as the human passage of its question and variant (same
question, the human's length; :func:`stand_in_passages`), so the sample,
the rerank and compare cells and the perplexity texts have their real
counts. Retries (``selfpref.rerank/compare.retries``) re-ask only unsettled
replies: the jobs list the first try and their retries
(:attr:`~authbench.cells.planned.PlanJob.retries`); the plan counts the
expected tries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from authbench.cells.planned import PlanContext, PlanJob
from authbench.paths import Layout
from authbench.records import read_jsonl
from authbench.studies.selfpref.cell_list import selfpref_cells
from authbench.studies.selfpref import layout as sp_layout


def stand_in_passages(author: str, chosen: Sequence[Mapping], passages: Sequence[Mapping],
                      kinds: Sequence[str]) -> list[dict]:
    """What a passage writer will have written, before it has: for each
    chosen question and kind, the human passage of that question (its normal
    TRUE and FALSE text) under ``author``, in the variant the kind makes."""
    human = {(p["qid"], p["factual"]): p for p in passages
             if p["author"] == "human" and p["variant"] == "normal" and not p.get("for_self")}
    variants = [v for kind, v in (("rewrite", "normal"), ("long", "long"), ("gen_by_qa", "qa")) if kind in kinds]
    out = []
    for q in chosen:
        for variant in variants:
            for factual in (True, False) if "false_answer" in kinds else (True,):
                src = human.get((q["qid"], factual)) or human.get((q["qid"], True))
                out.append({"pid": f"{q['qid']}:{author}:{variant}:{'T' if factual else 'F'}", "qid": q["qid"],
                            "author": author, "variant": variant, "factual": factual,
                            "answer_in": src.get("answer_in", q["answer"]), "text": src["text"]})
    return out


STAND_IN_NOTE = ("passages the model writes (selfpref.generate) stand in as the human passage of the same question "
                 "and variant")


def plan_jobs(config: Mapping[str, Any], ctx: PlanContext) -> Iterator[PlanJob]:
    """Every self-preference model job of the config, dataset by dataset, with its batches."""
    from authbench.studies.selfpref.data import sample_questions
    from authbench.studies.selfpref.kinds import COMPARE, GENERATE, KNOWLEDGE, PERPLEXITY, RERANK
    from authbench.studies.selfpref.requests import generation_inputs

    plan = selfpref_cells(config)
    if not plan.datasets or not (plan.evaluators or plan.generators or plan.perplexity_model):
        return
    sp = config["selfpref"]
    jobs = {kind: kind.jobs(config) for kind in (GENERATE, PERPLEXITY, KNOWLEDGE, RERANK, COMPARE)}
    for ds in plan.datasets:
        questions = read_jsonl(sp_layout.questions(ctx.layout, ds))
        imported = read_jsonl(sp_layout.imported(ctx.layout, ds))
        by_qid = {q["qid"]: q for q in questions}
        gen = sp.get("generate") or {}  # null: no passage writers (as the grid reads it)
        chosen = generation_inputs(questions, imported, gen["items"])[0] if plan.generators else []
        stand_ins: list[dict] = []
        for wc in _of(jobs[GENERATE], ds):
            yield GENERATE.plan_job("selfpref", config, wc, {"questions": by_qid, "passages": imported})
            stand_ins += stand_in_passages(wc["model"], chosen, imported, gen["kinds"])
        notes = (STAND_IN_NOTE,) if stand_ins else ()
        sample, passages = sample_questions(imported, stand_ins, sp["authors"], sp["items"], sp["style_items"],
                                            config["seed"], ds, sp_layout.imported(ctx.layout, ds))
        drawn = {"questions": by_qid, "sample": sample, "passages": passages}
        for wc in _of(jobs[PERPLEXITY], ds):
            yield PERPLEXITY.plan_job("selfpref", config, wc, drawn, notes=notes)
        # the knowledge, rerank and compare jobs on the sample drawn here: what the sample step will write
        for model in plan.evaluators:
            for kind, details in ((KNOWLEDGE, {}), (RERANK, {"notes": notes, "retries_key": "selfpref.rerank.retries"}),
                                  (COMPARE, {"notes": notes, "retries_key": "selfpref.compare.retries"})):
                for wc in _of(jobs[kind], ds, model):
                    yield kind.plan_job("selfpref", config, wc, drawn, **details)


def _of(jobs: list[dict], dataset: str, model: str | None = None) -> list[dict]:
    """The jobs (a kind's wildcards, authbench.studies.selfpref.kinds) on one dataset (and of one model)."""
    return [wc for wc in jobs if wc["spds"] == dataset and model in (None, wc["model"])]


def plan_inputs(config: Mapping[str, Any], layout, exists) -> list[str]:
    """The files :func:`plan_jobs` reads: each dataset's import and questions, and the templates."""
    sp = selfpref_cells(config)
    out = []
    for ds in sp.datasets:
        out += [sp_layout.questions(layout, ds), sp_layout.imported(layout, ds)]
    if sp.datasets:
        prompts = f"{config['prompts']}/selfpref"
        names = ["knowledge", "rerank_normal", "rerank_rag", "generation"] if sp.evaluators else []
        names += list(config["selfpref"]["generate"]["kinds"]) if sp.generators else []
        out += [f"{prompts}/{n}.yaml" for n in names]
    return out


def why_empty(config: Mapping[str, Any]) -> str | None:
    """Why the study plans no model job (None: it plans some)."""
    sp = selfpref_cells(config)
    if sp.evaluators or sp.generators or sp.perplexity_model:
        return None
    return ("selfpref: no evaluator (every selfpref.self is null), no passage writer (selfpref.generate.models) "
            "and no perplexity model")


def released_replies(config: Mapping[str, Any], kind: str) -> tuple[str, list[str]]:
    """The authors' released GPT-3.5 texts of a job kind (what they are, the
    texts), the reply-length proxy of models without replies of their own
    (:class:`authbench.plan.replies.Replies`): the knowledge probes' answers
    (``ai_answers`` of each dataset's ``knowledge.gpt35`` file) or the
    import's ``gpt35`` passages (for ``generate``); none for another kind."""
    what = {"knowledge": "GPT-3.5's knowledge answers", "generate": "GPT-3.5's passages"}.get(kind)
    return (what, list(_released(config, kind))) if what else ("", [])


def _released(config: Mapping[str, Any], kind: str) -> Iterator[str]:
    sp = config.get("selfpref") or {}
    layout = Layout(config["results"])
    for ds, spec in (sp.get("datasets") or {}).items():
        if not spec:
            continue
        if kind == "knowledge":
            given = (spec.get("knowledge") or {}).get("gpt35")
            path = given.get("file") if isinstance(given, Mapping) else given
            if not path or not Path(path).is_file():
                continue
            try:
                data = json.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            for rec in data.get("ai_answers", []) if isinstance(data, Mapping) else []:
                if isinstance(rec, Mapping) and isinstance(rec.get("AI_answer"), str):
                    yield rec["AI_answer"]
        else:
            path = Path(sp_layout.imported(layout, ds))
            if not path.is_file():
                continue
            for p in read_jsonl(path):
                if p.get("author") == "gpt35" and isinstance(p.get("text"), str):
                    yield p["text"]
