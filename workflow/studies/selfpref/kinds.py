"""The self-preference study's model jobs (passage writers, perplexity,
knowledge probes, reranking, comparison), each declared once
(:class:`authbench.studies.jobs.JobKind`): their rules take their outputs,
inputs and params from here, the sample step's and the report's inputs,
the comparison's knowledge input and the sample viewer list their files with
:meth:`~authbench.studies.jobs.JobKind.files_of`, and the CLI steps and the
plan build their requests with the same functions (:func:`generate_job`,
:func:`perplexity_job`, :func:`knowledge_job`, :func:`rerank_job`,
:func:`compare_job`). Most inputs include the run's question sample, which
the sample step writes during the run: the study's plan hook
(:func:`authbench.studies.selfpref.plan.plan_jobs`) plans them
(``planned_by_study``), with the sample and passages it stands in for.
Light: the Snakefile loads it on every run."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from authbench.paths import Layout
from authbench.studies.jobs import CellParams, JobKind
from authbench.studies.selfpref import layout as sp_layout

PROMPTS = ("normal", "rag")  # the reranking prompts (Table 2's normal and RAG settings)
RUNS = ("main", "style")  # the generation phase's runs: every author pair, the writing-style variants


@dataclass(frozen=True)
class SelfPrefParams(CellParams):
    """What every self-preference model job's params carry besides a cell's: its dataset and the run's seed."""

    dataset: str
    seed: int


@dataclass(frozen=True)
class GenerateParams(SelfPrefParams):
    author: str
    items: int
    kinds: list
    generate: Any


@dataclass(frozen=True)
class PerplexityParams(SelfPrefParams):
    scope: str


@dataclass(frozen=True)
class KnowledgeParams(SelfPrefParams):
    tries: int
    match: str
    generate: Any


@dataclass(frozen=True)
class RerankParams(SelfPrefParams):
    prompt: str
    evaluator: str
    self_author: str
    retries: int
    false_answer: str
    scope: str
    generate: Any


@dataclass(frozen=True)
class CompareParams(SelfPrefParams):
    run: str
    evaluator: str
    self_author: str
    others: list
    generate: Any
    retries: int


def _jobs(config: Mapping[str, Any], role: str, name: str = "", values: tuple[str, ...] = ("",)) -> list[dict]:
    """Every dataset's models of ``role`` (``evaluators``, ``generators``: the passage writers, ``perplexity``: the
    perplexity model), each with every value of the wildcard ``name`` (none: one job each)."""
    from authbench.studies.selfpref.cell_list import selfpref_cells

    cells = selfpref_cells(config)
    models = {"evaluators": cells.evaluators, "generators": cells.generators,
              "perplexity": [cells.perplexity_model] if cells.perplexity_model else []}[role]
    return [{"spds": ds, "model": m, **({name: v} if name else {})} for ds in cells.datasets for m in models
            for v in values]


def _dataset_folder(name: str):
    """The folder ``<dataset>/<name>/<model>`` of a kind whose files are not in a cell's folder."""
    return lambda layout, wc: f"{sp_layout.folder(layout, wc['spds'])}/{name}/{wc['model']}"


def _shared(config: Mapping[str, Any], wildcards: Mapping[str, str], shared: dict) -> dict:
    return {**shared, "dataset": wildcards["spds"], "seed": config["seed"]}


def _sample_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, str]:
    layout, dataset = Layout(config["results"]), wildcards["spds"]
    folder = sp_layout.folder(layout, dataset)
    return {"questions": sp_layout.questions(layout, dataset), "sample": f"{folder}/sample.json",
            "passages": f"{folder}/passages.jsonl"}


def load_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A job's input files read: the questions by id, the sample, the passages
    (a list), the template (its path: each kind loads its own); a value that
    is not a path (the plan's stand-in sample and passages) is kept as it is."""
    from authbench.records import read_jsonl

    out = dict(inputs)
    if isinstance(out.get("questions"), (str, Path)):
        out["questions"] = {q["qid"]: q for q in read_jsonl(out["questions"])}
    if isinstance(out.get("sample"), (str, Path)):
        out["sample"] = json.loads(Path(out["sample"]).read_text())
    if isinstance(out.get("passages"), (str, Path)):
        out["passages"] = read_jsonl(out["passages"])
    return out


# --- passage writers (before the sample) ---------------------------------------------------


def generate_params(config: Mapping[str, Any], wildcards: Mapping[str, str], shared: dict) -> GenerateParams:
    gen = config["selfpref"]["generate"]
    return GenerateParams(**_shared(config, wildcards, shared), author=wildcards["model"], items=gen["items"],
                          kinds=gen["kinds"], generate=gen["generate"])


def generate_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, Any]:
    layout = Layout(config["results"])
    return {"questions": sp_layout.questions(layout, wildcards["spds"]),
            "passages": sp_layout.imported(layout, wildcards["spds"]),
            "templates": [f"{config['prompts']}/selfpref/{k}.yaml" for k in config["selfpref"]["generate"]["kinds"]]}


def generate_job(params: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[list[dict], list[dict]]:
    """(requests, the questions they ask about) of one passage writer: the first ``items`` questions of the
    dataset with a human normal TRUE passage, one request per question and kind (its ``templates`` in the order
    of ``kinds``)."""
    from authbench.studies.selfpref.requests import generation_inputs, generation_requests, load_template

    data = load_inputs(data)
    kinds = params["kinds"]
    chosen, human = generation_inputs(list(data["questions"].values()), data["passages"], params["items"])
    templates = {k: load_template(path, k) for k, path in zip(kinds, data["templates"])}
    return generation_requests(chosen, human, templates, kinds), chosen


GENERATE = JobKind("selfpref_generate", "selfpref/{spds}/{model}/generate",
                   jobs=lambda config: _jobs(config, "generators"), params=generate_params,
                   requests=lambda params, data: generate_job(params, data)[0],
                   files=("questions", "passages", "templates"), inputs=generate_inputs, planned_by_study=True,
                   constrained=False, extra=(("passages", "passages.jsonl"), ("drops", "drops.tsv")),
                   where=_dataset_folder("generated"))


# --- perplexity (Table 1) ------------------------------------------------------------------


def perplexity_params(config: Mapping[str, Any], wildcards: Mapping[str, str], shared: dict) -> PerplexityParams:
    return PerplexityParams(**_shared(config, wildcards, shared), scope=config["selfpref"]["rerank"]["scope"])


def perplexity_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, str]:
    sample = _sample_inputs(config, wildcards)
    return {"passages": sample["passages"], "sample": sample["sample"]}


def perplexity_job(params: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[list[dict], list[dict]]:
    """(texts scored, their passages) of the perplexity job: Table 1 reports the normal TRUE passages of the
    questions in scope only; nothing else is scored."""
    from authbench.studies.selfpref.data import perplexity_passages, scoped_questions

    data = load_inputs(data)
    passages = perplexity_passages(data["passages"], scoped_questions(data["sample"], params["scope"]))
    return [{"id": p["pid"], "text": p["text"]} for p in passages], passages


PERPLEXITY = JobKind("selfpref_perplexity", "selfpref/{spds}/{model}/perplexity",
                     jobs=lambda config: _jobs(config, "perplexity"), params=perplexity_params,
                     requests=lambda params, data: perplexity_job(params, data)[0], files=("passages", "sample"),
                     inputs=perplexity_inputs, planned_by_study=True, cell_files=False,
                     extra=(("scores", "perplexity.jsonl"), ("manifest", "manifest.json")),
                     where=_dataset_folder("perplexity"), perplexity=True)


# --- knowledge probes --------------------------------------------------------------------


def knowledge_params(config: Mapping[str, Any], wildcards: Mapping[str, str], shared: dict) -> KnowledgeParams:
    kn = config["selfpref"]["knowledge"]
    return KnowledgeParams(**_shared(config, wildcards, shared), tries=kn["tries"], match=kn["match"],
                           generate=kn["generate"])


def knowledge_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, str]:
    sample = _sample_inputs(config, wildcards)
    return {"questions": sample["questions"], "sample": sample["sample"],
            "template": f"{config['prompts']}/selfpref/knowledge.yaml"}


def knowledge_job(params: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[list[dict], list[dict]]:
    """(requests, the questions they probe) of one knowledge job: each question of the sample's main run, in the
    questions file's order; the job asks them ``tries`` times (seed + try)."""
    from authbench.studies.selfpref.requests import knowledge_requests, load_template

    data = load_inputs(data)
    chosen = set(data["sample"]["main"])
    questions = [q for q in data["questions"].values() if q["qid"] in chosen]
    return knowledge_requests(questions, load_template(data["template"], "knowledge")), questions


KNOWLEDGE = JobKind("selfpref_knowledge", "selfpref/{spds}/{model}/knowledge",
                    jobs=lambda config: _jobs(config, "evaluators"),
                    params=knowledge_params, requests=lambda params, data: knowledge_job(params, data)[0],
                    files=("questions", "sample", "template"), inputs=knowledge_inputs, planned_by_study=True,
                    constrained=False, extra=(("levels", "levels.jsonl"),), tries="tries")


# --- reranking --------------------------------------------------------------------------


def rerank_params(config: Mapping[str, Any], wildcards: Mapping[str, str], shared: dict) -> RerankParams:
    rerank = config["selfpref"]["rerank"]
    return RerankParams(**_shared(config, wildcards, shared), prompt=wildcards["prompt"], evaluator=wildcards["model"],
                        self_author=config["selfpref"]["self"][wildcards["model"]], retries=rerank["retries"],
                        false_answer=rerank["false_answer"], scope=rerank["scope"], generate=rerank.get("generate"))


def rerank_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, str]:
    return {**_sample_inputs(config, wildcards),
            "template": f"{config['prompts']}/selfpref/rerank_{wildcards['prompt']}.yaml"}


def rerank_job(params: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[list[dict], list[dict], dict]:
    """(requests, the passages they score, what the manifest says of the
    FALSE passages) of one reranking job: every normal passage of the
    sample's questions in ``scope``; with ``false_answer: evaluator`` the
    FALSE passages carry the evaluator's own false answer (requests.py)."""
    from authbench.studies.selfpref.data import rerank_passages, scoped_questions
    from authbench.studies.selfpref.requests import evaluator_false_passages, load_template, rerank_requests

    prompt = params["prompt"]
    data = load_inputs(data)
    passages = rerank_passages(data["passages"], scoped_questions(data["sample"], params["scope"]))
    extra: dict = {}
    if params["false_answer"] == "evaluator":
        passages, drops = evaluator_false_passages(passages, params["self_author"])
        extra = {"false_answer": "evaluator", "self_author": params["self_author"],
                 "made": sum(not p["factual"] for p in passages), "drops": drops}
    template = load_template(data["template"], f"rerank_{prompt}")
    return rerank_requests(data["questions"], passages, template, prompt), passages, extra


RERANK = JobKind("selfpref_rerank", "selfpref/{spds}/{model}/rerank/{prompt}",
                 jobs=lambda config: _jobs(config, "evaluators", "prompt", PROMPTS), params=rerank_params,
                 requests=lambda params, data: rerank_job(params, data)[0],
                 files=("questions", "sample", "passages", "template"), inputs=rerank_inputs, kind="rerank",
                 planned_by_study=True)


# --- comparison (the generation phase) ---------------------------------------------------


def compare_params(config: Mapping[str, Any], wildcards: Mapping[str, str], shared: dict) -> CompareParams:
    from authbench.studies.selfpref.outputs import other_authors

    sp = config["selfpref"]
    return CompareParams(**_shared(config, wildcards, shared), run=wildcards["run"], evaluator=wildcards["model"],
                         self_author=sp["self"][wildcards["model"]], others=other_authors(config, wildcards["model"]),
                         generate=sp["compare"]["generate"], retries=sp["compare"]["retries"])


def compare_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, str]:
    knowledge = KNOWLEDGE.folder(Layout(config["results"]), {"spds": wildcards["spds"], "model": wildcards["model"]})
    return {**_sample_inputs(config, wildcards), "knowledge": f"{knowledge}/levels.jsonl",
            "template": f"{config['prompts']}/selfpref/generation.yaml"}


def compare_job(params: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[list[dict], list[dict], dict]:
    """(requests, the comparisons they ask, the passages by id) of one
    comparison job (the main run: every author pair; the style run: the
    writing-style variants)."""
    from authbench.studies.selfpref.requests import comparison_requests, comparisons, load_template

    data = load_inputs(data)
    style = params["run"] == "style"
    qids = data["sample"]["style"] if style else data["sample"]["main"]
    comps = comparisons(qids, data["passages"], params["self_author"], params["others"], style=style)
    by_pid = {p["pid"]: p for p in data["passages"]}
    template = load_template(data["template"], "generation")
    return comparison_requests(comps, data["questions"], by_pid, template), comps, by_pid


COMPARE = JobKind("selfpref_compare", "selfpref/{spds}/{model}/generation/{run}",
                  jobs=lambda config: _jobs(config, "evaluators", "run", RUNS), params=compare_params,
                  requests=lambda params, data: compare_job(params, data)[0],
                  files=("questions", "sample", "passages", "knowledge", "template"), inputs=compare_inputs,
                  kind="generation", planned_by_study=True, constrained=False)
