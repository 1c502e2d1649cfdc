"""Every model job a config runs, with the requests it will send, built
before any model runs (:func:`model_jobs`).

The requests are built by the same study functions the jobs call, from the
files the workflow writes before its first model job: AuthorityBench's
instances, RAGAuth's questions, the self-preference import; where such a
file cannot exist yet (homepage texts not fetched, the RAGAuth release
absent) from the estimate of :mod:`authbench.plan.estimate`. What only a
model's replies decide is stood in for, and each job says how
(:attr:`PlanJob.notes`):

* RAGAuth answer cells keep the top k documents of the model's scores: the
  plan keeps the first k in retrieval order (same count, other documents);
* passages a configured model writes (``selfpref.generate``) do not exist
  yet: each stands in as the human passage of its question and variant
  (same question, the human's length), so the sample, the rerank and
  compare cells and the perplexity texts have their real counts;
* retries (``selfpref.rerank/compare.retries``) re-ask only unsettled
  replies: the jobs list the first try; :mod:`authbench.plan.replies`
  counts the expected tries.

A job's :class:`~authbench.plan.batches.Batch` es are what it sends to the
engine at once (a knowledge cell's tries: one batch each, seed + try).
AuthorityBench cells with the same prompts (every model's cell of one
dataset, setting, judge and template) share one batch and one ``group``.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

from authbench.config import (GenerateConfig, cell_template, cells, models_for, rag_plan, selfpref_plan,
                              split_model)
from authbench.llm.grammars import token_budget
from authbench.paths import Layout, cell_id
from authbench.plan.batches import Batch, ItemBatch, PromptBatch
from authbench.plan.estimate import Estimated, domain_instances, rag_questions, ragauth_missing, texts_missing
from authbench.plan.workers import fork_map
from authbench.records import read_jsonl


@dataclass
class PlanJob:
    """One model job: its study, configured model, cell id and kind, its
    batches; ``perplexity``: texts scored whole (no reply); ``notes``: what
    stands in for model-made inputs (module docstring); ``group``: jobs of
    one group send the same requests (default: the cell alone); ``in_run``:
    False for a cell the run leaves out until its input exists (RAGAuth
    without its release)."""

    study: str
    model: str
    cell: str
    kind: str
    batches: list[Batch]
    perplexity: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)
    group: str = ""
    in_run: bool = True

    def __post_init__(self):
        self.group = self.group or self.cell


def _flip(args: tuple) -> bool:
    from authbench.studies.authority.judges.pairwise import position_flip

    return position_flip(*args)


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


def _batch(requests: Sequence[Mapping], gen: GenerateConfig, constrained: bool, name: str) -> PromptBatch:
    return PromptBatch([(r["prompt"], r["output"], r["n"]) for r in requests], gen, constrained, name)


def _gen(spec: Mapping, step: Mapping | None = None) -> GenerateConfig:
    return GenerateConfig().merge(spec.get("generate")).merge(step)


def model_jobs(config: Mapping[str, Any], tokenizers: Mapping[str, Any] | None = None,
               estimated: Estimated | None = None, exists=os.path.exists, workers: int = 1) -> Iterator[PlanJob]:
    """Every model job of ``config``, study by study, with its batches.
    ``tokenizers``: per model, what cuts RAGAuth's documents to
    ``ragauth.doc_tokens`` (the plan's counter of that model);
    ``estimated`` collects what was stood in for (:mod:`authbench.plan.estimate`)."""
    layout = Layout(config["results"])
    estimated = estimated if estimated is not None else Estimated()
    yield from _authority_jobs(config, layout, estimated, exists, workers)
    yield from _ragauth_jobs(config, layout, tokenizers or {}, estimated, exists)
    yield from _selfpref_jobs(config, layout)


def _authority_jobs(config, layout: Layout, estimated: Estimated, exists, workers: int) -> Iterator[PlanJob]:
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.judges import judge_of
    from authbench.studies.authority.judges.pairwise import flip_keys

    models = {**models_for(config, "domainauth"), **models_for(config, "entityauth")}
    by_prompts: dict[tuple, list] = defaultdict(list)  # cells with the same prompts share one batch
    for cell in cells(config):
        by_prompts[(cell.dataset, cell.setting, cell.judge, cell.context, cell_template(config, cell))].append(cell)
    estimate_domains = texts_missing(config, exists)
    instance_sets: dict[tuple, list] = {}
    flips: dict[str, dict] = defaultdict(dict)  # the position coin flips of one instance file's pairs
    for (dataset, setting, judge, context, template), group in by_prompts.items():
        if (dataset, setting) not in instance_sets:
            if dataset == "domainauth" and estimate_domains:
                if not any(k[0] == "domainauth" for k in instance_sets):
                    for s, rows in domain_instances(config, estimated).items():
                        instance_sets[("domainauth", s)] = rows
            else:
                instance_sets[(dataset, setting)] = read_jsonl(layout.instances(dataset, setting))
        instances = instance_sets[(dataset, setting)]
        memo = flips[f"{dataset}/{setting}"]
        if judge_of(judge).shape == "pair" and not memo:  # every pair judge of these instances shares their flips
            keys = flip_keys(setting, instances)
            memo.update(zip(keys, fork_map(_flip, [(config["seed"], *k) for k in keys], workers)))
        calls = judge_of(judge).calls(setting, instances, config["seed"], memo)
        shared = ItemBatch(load_template(template), judge, instances, calls, GenerateConfig(),
                           config["constrained_decoding"], f"{dataset}/{setting}/{judge}/{context}/{template}")
        for cell in group:
            model = split_model(cell.model)[0]
            yield PlanJob(dataset.split("/", 1)[0], model, cell.id, "judge", [shared.using(_gen(models[model]))],
                          group=shared.name)


def _ragauth_jobs(config, layout: Layout, tokenizers: Mapping[str, Any], estimated: Estimated,
                  exists) -> Iterator[PlanJob]:
    from authbench.studies.ragauth.requests import answer_requests, load_rag_template, rank_requests

    apart = ragauth_missing(config, exists)
    rag = rag_plan(config, (lambda _: True) if apart else exists)
    if not rag.cells:
        return
    rc = config["ragauth"]
    questions = rag_questions(config, estimated) if apart else read_jsonl(layout.rag_questions())
    cutters: dict[int, _CuttingMemo] = {}
    prompts = config["prompts"]
    constrained = config["constrained_decoding"]
    models = models_for(config, "ragauth")
    ranked = {"relevance", "utility", "authority"}
    n_max = max(len(q["documents"]) for q in questions)
    answer = load_rag_template(f"{prompts}/ragauth/answer.yaml")
    in_order = {q["qid"]: [float(len(q["documents"]) - i) for i in range(len(q["documents"]))] for q in questions}
    for model in dict.fromkeys(m for m, _, _ in rag.cells):
        tokenizer, gen = tokenizers.get(model), _gen(models[model])
        if tokenizer is not None:
            tokenizer = cutters.setdefault(id(tokenizer), _CuttingMemo(tokenizer))
        for strategy in [s for s in rc["strategies"] if s in ranked]:
            template = load_rag_template(f"{prompts}/ragauth/{strategy}.yaml")
            reqs, _ = rank_requests(questions, template, tokenizer, rc["doc_tokens"], None,
                                    token_budget(template.output, n_max, constrained, gen.max_tokens))
            cell = cell_id("ragauth", model, "rank", strategy)
            yield PlanJob("ragauth", model, cell, "rank", [_batch(reqs, gen, constrained, cell)], in_run=not apart)
        for m, strategy, topk in rag.cells:
            if m != model:
                continue
            k = None if topk == "all" else int(topk[1:])
            scores = None if strategy == "no_filter" else in_order
            reqs, _, _ = answer_requests(questions, answer, scores, k, tokenizer, rc["doc_tokens"])
            notes = () if scores is None else (
                "answer prompts keep the first k documents in retrieval order: the model's or the prior's ranking "
                "picks which k (same count)",)
            cell = cell_id("ragauth", model, "answer", strategy, topk)
            yield PlanJob("ragauth", model, cell, "answer", [_batch(reqs, gen, constrained, cell)], notes=notes,
                          in_run=not apart)


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
    if not plan.datasets or not (plan.evaluators or plan.generators or plan.perplexity_model):
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
            cell = cell_id(f"selfpref/{ds}", model, "generate")
            yield PlanJob("selfpref", model, cell, "generate",
                          [_batch(reqs, _gen(models[model], gen.get("generate")), False, cell)])
            stand_ins += stand_in_passages(model, chosen, imported, gen["kinds"])
        notes = (STAND_IN_NOTE,) if stand_ins else ()
        sample, passages = sample_questions(imported, stand_ins, sp["authors"], sp["items"], sp["style_items"],
                                            config["seed"], ds, layout.selfpref_imported(ds))
        scope = scoped_questions(sample, sp["rerank"]["scope"])
        main = [by_qid[q] for q in sample["main"]]
        if plan.perplexity_model:
            m = plan.perplexity_model
            texts = [(p["text"], "free", 1) for p in perplexity_passages(passages, scope)]
            cell = cell_id(f"selfpref/{ds}", m, "perplexity")
            yield PlanJob("selfpref", m, cell, "perplexity", [PromptBatch(texts, _gen(models[m]), False, cell)],
                          perplexity=True, notes=notes)
        by_pid = {p["pid"]: p for p in passages}
        for model in plan.evaluators:
            spec, self_author = models[model], sp["self"][model]
            kn = sp["knowledge"]
            template = load_template(f"{prompts}/knowledge.yaml", "knowledge")
            probe = knowledge_requests(main, template)
            base = _gen(spec, kn.get("generate"))
            cell = cell_id(f"selfpref/{ds}", model, "knowledge")
            yield PlanJob("selfpref", model, cell, "knowledge",
                          [_batch(probe, GenerateConfig(**{**base.__dict__, "seed": base.seed + t}), False, cell)
                           for t in range(int(kn["tries"]))])
            scored = rerank_passages(passages, scope)
            if sp["rerank"]["false_answer"] == "evaluator":
                scored, _ = evaluator_false_passages(scored, self_author)
            for prompt in ("normal", "rag"):
                reqs = rerank_requests(by_qid, scored, load_template(f"{prompts}/rerank_{prompt}.yaml",
                                                                      f"rerank_{prompt}"), prompt)
                cell = cell_id(f"selfpref/{ds}", model, "rerank", prompt)
                yield PlanJob("selfpref", model, cell, "rerank",
                              [_batch(reqs, _gen(spec, sp["rerank"].get("generate")), constrained, cell)],
                              notes=notes)
            template = load_template(f"{prompts}/generation.yaml", "generation")
            for run in ("main", "style"):
                qids = sample["style"] if run == "style" else sample["main"]
                comps = comparisons(qids, passages, self_author, other_authors(config, model), style=run == "style")
                reqs = comparison_requests(comps, by_qid, by_pid, template)
                cell = cell_id(f"selfpref/{ds}", model, "generation", run)
                yield PlanJob("selfpref", model, cell, "compare",
                              [_batch(reqs, _gen(spec, sp["compare"]["generate"]), False, cell)], notes=notes)


def plan_inputs(config: Mapping[str, Any], layout: Layout, exists) -> list[str]:
    """The files :func:`model_jobs` reads, all written before any model job
    and none from the web: the instances of every AuthorityBench cell (not
    DomainAuth's while its homepage texts are not fetched: the plan draws
    them itself, :mod:`authbench.plan.estimate`), RAGAuth's questions (when
    its release is there), each self-preference dataset's import, every
    template, and the GGUF of each embedded model the workflow assembles (a
    model given as a path is read when present, never required: the plan
    then counts with a proxy)."""
    from authbench.config import active_models
    from authbench.llm.models import model_file

    grid = cells(config)
    no_texts = texts_missing(config, exists)
    out = [layout.instances(c.dataset, c.setting) for c in grid if not (no_texts and c.dataset == "domainauth")]
    out += [cell_template(config, c) for c in grid]
    prompts = config["prompts"]
    rag = rag_plan(config, lambda _: True)
    if rag.cells:
        out += [] if ragauth_missing(config, exists) else [layout.rag_questions()]
        out += [f"{prompts}/ragauth/answer.yaml"]
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
