"""Every model job a config runs, with the requests it will send, built
before any model runs (:func:`model_jobs`).

The requests are built by the same study functions the jobs call, from the
files the workflow writes before its first model job: AuthorityBench's
instances, RAGAuth's questions, the self-preference import. What only a
model's replies decide is stood in for, and each job says how
(:attr:`PlanJob.notes`):

* RAGAuth answer cells keep the top k documents of the model's scores: the
  plan keeps the first k in retrieval order (same count, other documents);
* passages a configured model writes (``selfpref.generate``) do not exist
  yet: each stands in as the human passage of its question and variant
  (same question, the human's length), so the sample, the rerank and
  compare cells and the perplexity texts have their real counts;
* retries (``selfpref.rerank/compare.retries``) re-ask only unsettled
  replies: the plan counts the first try, and says how many more may come.

A job's :class:`Batch` es are what it sends to the engine at once (a
knowledge cell's tries: one batch each, seed + try).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

from authbench.config import (GenerateConfig, cell_template, cells, models_for, rag_plan, selfpref_plan,
                              split_model)
from authbench.llm.grammars import token_budget
from authbench.paths import Layout, cell_id
from authbench.records import read_jsonl


@dataclass
class Batch:
    """Requests sent together: ``(prompt, output format, n)`` each, decoded
    with ``generate``; ``constrained``: the config's switch (free-text steps: False)."""

    requests: list[tuple[str, str, int]]
    generate: GenerateConfig
    constrained: bool

    def budgets(self) -> list[int]:
        return [token_budget(o, n, self.constrained, self.generate.max_tokens) for _, o, n in self.requests]

    def keys(self) -> list[bytes]:
        """What the response cache keys a request by, besides the model:
        prompt, token budget and sampling (a digest)."""
        gen = json.dumps(self.generate.__dict__, sort_keys=True)
        return [hashlib.blake2b(f"{p}\0{b}\0{gen}\0{self.constrained}".encode(), digest_size=16).digest()
                for (p, _, _), b in zip(self.requests, self.budgets())]


@dataclass
class PlanJob:
    """One model job: its study, configured model, cell id and kind, its
    batches; ``perplexity``: texts scored whole (no reply); ``notes``: what
    stands in for model-made inputs (module docstring)."""

    study: str
    model: str
    cell: str
    kind: str
    batches: list[Batch]
    perplexity: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def _gen(spec: Mapping, step: Mapping | None = None) -> GenerateConfig:
    return GenerateConfig().merge(spec.get("generate")).merge(step)


def model_jobs(config: Mapping[str, Any], tokenizers: Mapping[str, Any] | None = None) -> Iterator[PlanJob]:
    """Every model job of ``config``, study by study, with its batches.
    ``tokenizers``: per model, what cuts RAGAuth's documents to
    ``ragauth.doc_tokens`` (the plan's counter of that model)."""
    layout = Layout(config["results"])
    yield from _authority_jobs(config, layout)
    yield from _ragauth_jobs(config, layout, tokenizers or {})
    yield from _selfpref_jobs(config, layout)


def _authority_jobs(config, layout: Layout) -> Iterator[PlanJob]:
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests

    models = {**models_for(config, "domainauth"), **models_for(config, "entityauth")}
    by_prompts: dict[tuple, list] = defaultdict(list)  # cells with the same prompts share one build
    for cell in cells(config):
        by_prompts[(cell.dataset, cell.setting, cell.judge, cell.context, cell_template(config, cell))].append(cell)
    for (dataset, setting, judge, _context, template), group in by_prompts.items():
        instances = read_jsonl(layout.instances(dataset, setting))
        built = [(r["prompt"], r["output"], r["n"])
                 for r in build_requests(judge, setting, instances, load_template(template), config["seed"])]
        for cell in group:
            model = split_model(cell.model)[0]
            yield PlanJob(dataset.split("/", 1)[0], model, cell.id, "judge",
                          [Batch(built, _gen(models[model]), config["constrained_decoding"])])


def _ragauth_jobs(config, layout: Layout, tokenizers: Mapping[str, Any]) -> Iterator[PlanJob]:
    from authbench.studies.ragauth.requests import answer_requests, load_rag_template, rank_requests

    rag = rag_plan(config, os.path.exists)
    if not rag.cells:
        return
    rc = config["ragauth"]
    questions = read_jsonl(layout.rag_questions())
    prompts = config["prompts"]
    constrained = config["constrained_decoding"]
    models = models_for(config, "ragauth")
    ranked = {"relevance", "utility", "authority"}
    n_max = max(len(q["documents"]) for q in questions)
    answer = load_rag_template(f"{prompts}/ragauth/answer.yaml")
    in_order = {q["qid"]: [float(len(q["documents"]) - i) for i in range(len(q["documents"]))] for q in questions}
    for model in dict.fromkeys(m for m, _, _ in rag.cells):
        tokenizer, gen = tokenizers.get(model), _gen(models[model])
        for strategy in [s for s in rc["strategies"] if s in ranked]:
            template = load_rag_template(f"{prompts}/ragauth/{strategy}.yaml")
            reqs, _ = rank_requests(questions, template, tokenizer, rc["doc_tokens"], None,
                                    token_budget(template.output, n_max, constrained, gen.max_tokens))
            yield PlanJob("ragauth", model, cell_id("ragauth", model, "rank", strategy), "rank",
                          [Batch([(r["prompt"], r["output"], r["n"]) for r in reqs], gen, constrained)])
        for m, strategy, topk in rag.cells:
            if m != model:
                continue
            k = None if topk == "all" else int(topk[1:])
            scores = None if strategy == "no_filter" else in_order
            reqs, _, _ = answer_requests(questions, answer, scores, k, tokenizer, rc["doc_tokens"])
            notes = () if scores is None else (
                "answer prompts keep the first k documents in retrieval order: the model's or the prior's ranking "
                "picks which k (same count)",)
            yield PlanJob("ragauth", model, cell_id("ragauth", model, "answer", strategy, topk), "answer",
                          [Batch([(r["prompt"], r["output"], r["n"]) for r in reqs], gen, constrained)], notes=notes)


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


def _selfpref_jobs(config, layout: Layout) -> Iterator[PlanJob]:
    from authbench.studies.selfpref.data import (perplexity_passages, rerank_passages, sample_questions,
                                                 scoped_questions)
    from authbench.studies.selfpref.outputs import other_authors
    from authbench.studies.selfpref.requests import (comparison_requests, comparisons, evaluator_false_passages,
                                                     generation_inputs, generation_requests, knowledge_requests,
                                                     load_template, rerank_requests)

    plan = selfpref_plan(config)
    if not plan.datasets:
        return
    sp = config["selfpref"]
    models = config["models"]
    prompts = f"{config['prompts']}/selfpref"
    constrained = config["constrained_decoding"]
    for ds in plan.datasets:
        questions = read_jsonl(layout.selfpref_questions(ds))
        imported = read_jsonl(layout.selfpref_imported(ds))
        by_qid = {q["qid"]: q for q in questions}
        gen = sp["generate"]
        chosen, human = generation_inputs(questions, imported, gen["items"])
        stand_ins: list[dict] = []
        for model in plan.generators:
            templates = {k: load_template(f"{prompts}/{k}.yaml", k) for k in gen["kinds"]}
            reqs = generation_requests(chosen, human, templates, gen["kinds"])
            yield PlanJob("selfpref", model, cell_id(f"selfpref/{ds}", model, "generate"), "generate",
                          [Batch([(r["prompt"], r["output"], r["n"]) for r in reqs],
                                 _gen(models[model], gen.get("generate")), False)])
            stand_ins += stand_in_passages(model, chosen, imported, gen["kinds"])
        notes = (STAND_IN_NOTE,) if stand_ins else ()
        sample, passages = sample_questions(imported, stand_ins, sp["authors"], sp["items"], sp["style_items"],
                                            config["seed"], ds, layout.selfpref_imported(ds))
        scope = scoped_questions(sample, sp["rerank"]["scope"])
        main = [by_qid[q] for q in sample["main"]]
        if plan.perplexity_model:
            m = plan.perplexity_model
            texts = [(p["text"], "free", 1) for p in perplexity_passages(passages, scope)]
            yield PlanJob("selfpref", m, cell_id(f"selfpref/{ds}", m, "perplexity"), "perplexity",
                          [Batch(texts, _gen(models[m]), False)], perplexity=True, notes=notes)
        by_pid = {p["pid"]: p for p in passages}
        for model in plan.evaluators:
            spec, self_author = models[model], sp["self"][model]
            kn = sp["knowledge"]
            template = load_template(f"{prompts}/knowledge.yaml", "knowledge")
            probe = [(r["prompt"], r["output"], r["n"]) for r in knowledge_requests(main, template)]
            base = _gen(spec, kn.get("generate"))
            yield PlanJob("selfpref", model, cell_id(f"selfpref/{ds}", model, "knowledge"), "knowledge",
                          [Batch(probe, GenerateConfig(**{**base.__dict__, "seed": base.seed + t}), False)
                           for t in range(int(kn["tries"]))])
            retry_note = tuple(f"{step}: up to {sp[step]['retries']} more tries of each unsettled reply are not "
                               "counted" for step in ("rerank", "compare") if sp[step]["retries"])
            for prompt in ("normal", "rag"):
                scored = rerank_passages(passages, scope)
                if sp["rerank"]["false_answer"] == "evaluator":
                    scored, _ = evaluator_false_passages(scored, self_author)
                reqs = rerank_requests(by_qid, scored, load_template(f"{prompts}/rerank_{prompt}.yaml",
                                                                      f"rerank_{prompt}"), prompt)
                yield PlanJob("selfpref", model, cell_id(f"selfpref/{ds}", model, "rerank", prompt), "rerank",
                              [Batch([(r["prompt"], r["output"], r["n"]) for r in reqs],
                                     _gen(spec, sp["rerank"].get("generate")), constrained)],
                              notes=notes + tuple(n for n in retry_note if n.startswith("rerank")))
            template = load_template(f"{prompts}/generation.yaml", "generation")
            for run in ("main", "style"):
                qids = sample["style"] if run == "style" else sample["main"]
                comps = comparisons(qids, passages, self_author, other_authors(config, model), style=run == "style")
                reqs = comparison_requests(comps, by_qid, by_pid, template)
                yield PlanJob("selfpref", model, cell_id(f"selfpref/{ds}", model, "generation", run), "compare",
                              [Batch([(r["prompt"], r["output"], r["n"]) for r in reqs],
                                     _gen(spec, sp["compare"]["generate"]), False)],
                              notes=notes + tuple(n for n in retry_note if n.startswith("compare")))


def plan_inputs(config: Mapping[str, Any], layout: Layout, exists) -> list[str]:
    """The files :func:`model_jobs` reads, all written before any model job:
    the instances of every AuthorityBench cell, RAGAuth's questions, each
    self-preference dataset's import, every template, and the GGUF of each
    embedded model the workflow assembles (a model given as a path is read
    when present, never required: the plan then counts with a proxy)."""
    from authbench.config import active_models
    from authbench.llm.models import model_file

    grid = cells(config)
    out = [layout.instances(c.dataset, c.setting) for c in grid] + [cell_template(config, c) for c in grid]
    prompts = config["prompts"]
    rag = rag_plan(config, exists)
    if rag.cells:
        out += [layout.rag_questions(), f"{prompts}/ragauth/answer.yaml"]
        out += [f"{prompts}/ragauth/{s}.yaml" for s in config["ragauth"]["strategies"]
                if s in ("relevance", "utility", "authority")]
    sp = selfpref_plan(config)
    for ds in sp.datasets:
        out += [layout.selfpref_questions(ds), layout.selfpref_imported(ds)]
    if sp.datasets:
        sps = config["selfpref"]
        names = (["knowledge", "rerank_normal", "rerank_rag", "generation"] if sp.evaluators else [])
        names += list(sps["generate"]["kinds"]) if sp.generators else []
        out += [f"{prompts}/selfpref/{n}.yaml" for n in names]
    for name, spec in active_models(config).items():
        if spec["engine"] == "llamacpp" and spec["model"].startswith(("package:", "parts:")):
            out.append(model_file(name, spec, layout))
    return list(dict.fromkeys(out))
