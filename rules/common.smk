# Config validation, the plans of every study, wildcard constraints and every
# input/params function. Policy (which files a config produces, which
# baselines run, whose passages are "other") is decided in the Python package
# (authbench.config and authbench.studies.*.outputs); this file only wires.
# Never `import workflow` here: that name is Snakemake's workflow object.
import json
import os
import re

from snakemake.logging import logger
from snakemake.utils import validate

from authbench.config import SCHEMA_PATH, active_models, cells as config_cells, check_config, check_data
from authbench.config import check_renamed
from authbench.config import entity_datasets, entity_settings, rag_plan, selfpref_plan
from authbench.joblogs import failure_summary
from authbench.judges import SCORE_JUDGES, WILDCARD as JUDGE_WILDCARD
from authbench.studies.authority.outputs import baseline_plan, domainauth_report_files, entityauth_report_files, scales
from authbench.studies.authority.outputs import check_labels, has_secondary, secondary_cells
from authbench.studies.authority.outputs import statistics_files
from authbench.studies.ragauth.outputs import report_files as ragauth_report_files
from authbench.studies.selfpref.outputs import knowledge_authors, other_authors
from authbench.studies.selfpref.outputs import report_files as selfpref_report_files

check_renamed(config)
validate(config, str(SCHEMA_PATH))
# what the user's --configfile overlays (and --config) set: an error about a
# value they left to config.yaml (the demo's) says so (authbench.config.origin)
OVERLAY = getattr(workflow.config_settings, "overwrite_config", None)
check_config(config, OVERLAY)
check_data(config, OVERLAY)
check_labels(config)

R = config["results"]
# every rule's log, under the run's results folder (two configs never share logs)
LOGS = f"{R}/logs"


# A failed run ends with each failed job's error (from its log: Snakemake
# itself only says "check log file(s)"), locally and on Slurm alike.
onerror:
    summary = failure_summary(log)
    if summary:
        logger.error(summary)

PROMPTS = config["prompts"]
DA = f"{R}/domainauth"
EA = f"{R}/entityauth"
RA = f"{R}/ragauth"
SP = f"{R}/selfpref/{{spds}}"
FR = f"{R}/fetch"
FETCH = config.get("fetch", {})
# {dataset} is an AuthorityBench dataset: "domainauth" or "entityauth/<entity_set>".
CELL = f"{R}/{{dataset}}/cells/{{model}}/{{judge}}/{{context}}/{{setting}}"
CELLS = config_cells(config)
MODELS = active_models(config)
ENTITY_DATASETS = entity_datasets(config)
# the instance sets of every EntityAuth dataset: fine (N=10) and, unless
# entityauth.coarse_source is rescore, coarse (N=5)
ENTITY_SETTINGS = entity_settings(config)
STUDIES = config["studies"]
# RAGAuth runs when its file exists (or is built from the researcher's own data);
# otherwise it is left out of `all`, and the run log says why.
RAG = rag_plan(config, os.path.exists)
SELFPREF = selfpref_plan(config)
if RAG.note:
    logger.info(RAG.note)
if SELFPREF.evaluators:
    logger.info("Self-preference: each evaluator's own passages are those of its 'self' author (selfpref.self): "
                + ", ".join(f"{m} -> {config['selfpref']['self'][m]}" for m in SELFPREF.evaluators))


wildcard_constraints:
    dataset="domainauth|entityauth/[a-z0-9_]+",
    entity_set="[a-z0-9_]+",
    model="|".join(re.escape(m) for m in sorted(MODELS)),
    judge=JUDGE_WILDCARD,
    context="wo_text|w_text",
    setting="fine|coarse|pairs|bias",
    strategy="no_filter|relevance|utility|authority|pagerank_oracle|tld_prior",
    topk="all|k[0-9]+",


def _json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def model_config(wildcards):
    return MODELS[wildcards.model]


# Threads and resources of every job that runs a model, from the model's config
# (schema: threads, gpus, mem_mb, runtime in minutes): `threads: model_threads`
# and `resources: **MODEL_RESOURCES` in each such rule. On Slurm, gpu=N becomes
# `sbatch --gpus=N` (none when 0); CPU rules ask for no GPU. Locally these are
# only bookkeeping.
def model_threads(wildcards):
    return model_config(wildcards)["threads"]


MODEL_RESOURCES = {
    "mem_mb": lambda wildcards: model_config(wildcards).get("mem_mb", 4000),
    "runtime": lambda wildcards: model_config(wildcards).get("runtime", 120),
    "gpu": lambda wildcards: model_config(wildcards)["gpus"],
}


# A model with `vllm.serve: true` serves its judge cells from one `vllm serve`
# (rule models_serve, a Snakemake service job grouped with every cell that
# reads its service file: one allocation on Slurm). A service group's
# resources are summed, so the cells ask for 0 threads, little memory, no GPU.
def is_served(wildcards):
    cfg = model_config(wildcards)
    return cfg["engine"] == "vllm" and bool((cfg.get("vllm") or {}).get("serve"))


def get_server(wildcards):
    return f"{R}/servers/{wildcards.model}.json" if is_served(wildcards) else []


def server_arg(wildcards, input):
    return f"--server {input.server}" if input.server else ""


def judge_threads(wildcards):
    return 0 if is_served(wildcards) else model_threads(wildcards)


JUDGE_RESOURCES = {
    "mem_mb": lambda wildcards: 500 if is_served(wildcards) else MODEL_RESOURCES["mem_mb"](wildcards),
    "runtime": MODEL_RESOURCES["runtime"],
    "gpu": lambda wildcards: 0 if is_served(wildcards) else MODEL_RESOURCES["gpu"](wildcards),
}


def get_serve_params(wildcards):
    return _json({"model": _model_params(wildcards)})


def model_file_arg(wildcards, input):
    return f"--model-file {input.model}" if input.model else ""


def model_python(wildcards):
    """The interpreter of a model's jobs (its `python:` key; e.g. the vLLM environment's)."""
    return model_config(wildcards).get("python") or "python"


def get_model_file(wildcards):
    """What a model's jobs load: the local GGUF of a llamacpp model (assembled
    from its packages, or a path); the safetensors folder of a vllm model (the
    converted one of a package:/parts: spec, or a local folder; a hub id is
    loaded by vLLM itself); nothing for openai."""
    cfg = model_config(wildcards)
    packaged = cfg["model"].startswith(("package:", "parts:"))
    if cfg["engine"] == "llamacpp":
        return f"{R}/models/{wildcards.model}.gguf" if packaged else cfg["model"]
    if cfg["engine"] == "vllm" and packaged:
        return f"{R}/models/{wildcards.model}-hf"
    if cfg["engine"] == "vllm" and os.path.isdir(cfg["model"]):
        return cfg["model"]
    return []


def get_assemble_params(wildcards):
    return _json({"model": model_config(wildcards)["model"]})


def get_convert_params(wildcards):
    return _json({"model": model_config(wildcards)["model"]})


def _model_params(wildcards):
    return {k: v for k, v in model_config(wildcards).items() if k != "threads"}


# --- fetchers -------------------------------------------------------------------

def fetch_params(section, **extra):
    keep = {k: v for k, v in FETCH[section].items() if k not in ("input", "domains", "entities", "datasets", "bulk_file")}
    return _json({**keep, "user_agent": FETCH.get("user_agent"), "http": FETCH.get("http", {}), **extra})


def get_sitelinks_params(wildcards):
    spec = FETCH["wikidata"]["datasets"][wildcards.entity_set]
    return fetch_params("wikidata", question_pattern=spec.get("question_pattern"))


# --- AuthorityBench datasets ------------------------------------------------------

def entity_config(name):
    return config["entityauth"]["datasets"][name]


def get_build_params(wildcards):
    keys = ("status_filter", "text", "text_max_words", "categories")
    label = config["domainauth"].get("label")
    return _json({**{k: config["domainauth"].get(k) for k in keys}, **({"label": label} if label else {})})


# Secondary labels (domainauth.secondary): their own step, so naming one
# reruns no judge cell; every cell with per-item scores then writes its
# predictions with them, and the report adds the secondary-label table.
SECONDARY = has_secondary(config)


def get_secondary_params(wildcards):
    return _json({"status_filter": config["domainauth"].get("status_filter"),
                  "secondary": config["domainauth"]["secondary"]})


def get_prediction_secondary(wildcards):
    return [f"{DA}/secondary.tsv"] if SECONDARY and wildcards.dataset == "domainauth" else []


def prediction_secondary_arg(wildcards, input):
    return f"--secondary {input.secondary}" if input.secondary else ""


def get_secondary_predictions(wildcards):
    return _cell_files(secondary_cells(config, CELLS), "predictions.tsv")


def secondary_predictions_arg(wildcards, input):
    return ("--item-predictions " + " ".join(input.item_predictions)) if input.item_predictions else ""


def get_text_input(wildcards):
    text = config["domainauth"].get("text")
    return [text] if text else []


def get_sample_params(wildcards):
    return _json({"sampling": config["domainauth"]["sampling"], "seed": config["seed"]})


def get_entity_source(wildcards):
    return entity_config(wildcards.entity_set)["source"]


def get_entity_build_params(wildcards):
    label = entity_config(wildcards.entity_set).get("label")
    return _json({"dataset": wildcards.entity_set, "corpus": entity_config(wildcards.entity_set).get("corpus"),
                  "seed": config["seed"], **({"label": label} if label else {})})


def get_entity_sample_params(wildcards):
    ea = config["entityauth"]
    return _json({"dataset": wildcards.entity_set, "lists": ea["lists"], "anchors": ea["anchors"],
                  "coarse_lists": ea["coarse_lists"] if "coarse" in ENTITY_SETTINGS else None, "seed": config["seed"]})


# --- AuthorityBench cells ---------------------------------------------------------

def get_template(wildcards):
    if wildcards.dataset == "domainauth":
        return f"{PROMPTS}/domainauth/{wildcards.judge}_{wildcards.context}.yaml"
    name = wildcards.dataset.split("/", 1)[1]
    folder = entity_config(name).get("prompts", name)
    return f"{PROMPTS}/entityauth/{folder}/{wildcards.judge}_{wildcards.context}.yaml"


def get_judge_params(wildcards):
    return _json(
        {
            "cell": f"{wildcards.dataset}/{wildcards.model}/{wildcards.judge}/{wildcards.context}/{wildcards.setting}",
            "judge": wildcards.judge,
            "context": wildcards.context,
            "setting": wildcards.setting,
            "seed": config["seed"],
            "constrained": config["constrained_decoding"],
            "cache": config.get("cache"),
            "model": _model_params(wildcards),
            # score judges: E[s] beside the argmax (authbench.llm.expected)
            "expected_scores": config["expected_scores"] and wildcards.judge in SCORE_JUDGES,
        }
    )


def _cell_identity(wildcards):
    return {k: getattr(wildcards, k) for k in ("dataset", "model", "judge", "context", "setting")}


def get_cell_identity(wildcards):
    return _json(_cell_identity(wildcards))


def get_evaluate_params(wildcards):
    return _json({**_cell_identity(wildcards), "scales": scales(config, wildcards.dataset, wildcards.setting)})


def _baselines(wildcards):
    return baseline_plan(config, wildcards.dataset)


def get_baseline_instances(wildcards):
    return [f"{R}/{wildcards.dataset}/instances/{s}.jsonl" for s in _baselines(wildcards)["instance_sets"]]


def get_baseline_params(wildcards):
    return _json({"dataset": wildcards.dataset, "seed": config["seed"], **_baselines(wildcards)})


def _cell_files(cells, name):
    return [f"{R}/{c.dataset}/cells/{c.model}/{c.judge}/{c.context}/{c.setting}/{name}" for c in cells]


def get_domain_metrics(wildcards):
    return _cell_files((c for c in CELLS if c.dataset == "domainauth" and c.setting != "bias"), "metrics.tsv")


def get_domain_manifests(wildcards):
    return _cell_files((c for c in CELLS if c.dataset == "domainauth"), "manifest.json")


def get_point_predictions(wildcards):
    bias = (c for c in CELLS if c.dataset == "domainauth" and c.judge == "point" and c.setting == "bias")
    return _cell_files(bias, "predictions.tsv")


def get_prediction_params(wildcards):
    return _json({**{k: getattr(wildcards, k) for k in ("dataset", "model", "judge", "context", "setting")},
                  "parse": config["parse"]})


def get_domain_report_params(wildcards):
    secondary = {"secondary": config["domainauth"]["secondary"], "seed": config["seed"]} if SECONDARY else {}
    return _json({"settings": config["settings"], "judges": config["judges"], "contexts": config["contexts"],
                  "expected_scores": config["expected_scores"],
                  "category_order": list(config["domainauth"]["categories"]),
                  "categories": config["domainauth"]["categories"], "parse": config["parse"],
                  "judge_validity": config["judge_validity"], **secondary})


def get_entity_report_inputs(wildcards):
    entity_cells = [c for c in CELLS if c.dataset.startswith("entityauth/")]
    return {
        "metrics": _cell_files(entity_cells, "metrics.tsv"),
        "baselines": [f"{R}/{d}/baselines/metrics.tsv" for d in ENTITY_DATASETS],
        "labels": [f"{R}/{d}/labels.tsv" for d in ENTITY_DATASETS],
        "reuse": [f"{R}/{d}/instances/reuse.tsv" for d in ENTITY_DATASETS],
        "manifests": _cell_files(entity_cells, "manifest.json"),
    }


def get_entity_report_params(wildcards):
    names = [d.split("/", 1)[1] for d in ENTITY_DATASETS]
    # what each dataset's score is (Figure 3): sitelinks unless its label block names another key
    scores = {n: (entity_config(n).get("label") or {}).get("column") for n in names}
    scores = {n: c for n, c in scores.items() if c and c != "popularity"}
    return _json({"datasets": names, "judges": config["judges"],
                  "expected_scores": config["expected_scores"],
                  "coarse_source": config["entityauth"]["coarse_source"],
                  "parse": config["parse"], "judge_validity": config["judge_validity"],
                  **({"score_names": scores} if scores else {})})


# --- RAGAuth ----------------------------------------------------------------------

def get_rag_dataset_params(wildcards):
    return _json({"topics": config["ragauth"].get("topics"), "k": config["ragauth"]["k"]})


def get_rag_build_labels(wildcards):
    labels = config["ragauth"]["build"].get("labels")
    return [labels] if labels else []


def get_rag_build_params(wildcards):
    return _json({"max_docs": config["ragauth"]["build"]["max_docs"]})


def get_rag_prior_params(wildcards):
    return _json({"strategy": wildcards.strategy, "tld_prior": config["baselines"].get("tld_prior")})


def get_rag_scores(wildcards):
    """The document scores an answer cell filters by: its rank cell's, a
    prior's, or none (no filter)."""
    if wildcards.strategy == "no_filter":
        return []
    if wildcards.strategy in ("pagerank_oracle", "tld_prior"):
        return f"{RA}/scores/{wildcards.strategy}.jsonl"
    return f"{RA}/cells/{wildcards.model}/rank/{wildcards.strategy}/scores.jsonl"


def rag_scores_arg(wildcards, input):
    return f"--scores {input.scores}" if input.scores else ""


def _rag_params(wildcards, stage, k):
    return _json(
        {
            "cell": f"ragauth/{wildcards.model}/answer/{wildcards.strategy}/{wildcards.topk}" if stage == "answer"
            else f"ragauth/{wildcards.model}/rank/{wildcards.strategy}",
            "stage": stage,
            "strategy": wildcards.strategy,
            "k": k,
            "doc_tokens": config["ragauth"].get("doc_tokens"),
            "constrained": config["constrained_decoding"],
            "cache": config.get("cache"),
            "model": _model_params(wildcards),
        }
    )


def get_rag_rank_params(wildcards):
    return _rag_params(wildcards, wildcards.strategy, None)


def get_rag_answer_params(wildcards):
    k = None if wildcards.topk == "all" else int(wildcards.topk[1:])
    return _rag_params(wildcards, "answer", k)


def get_rag_report_inputs(wildcards):
    return [f"{RA}/cells/{m}/answer/{s}/{k}/judgments.jsonl" for m, s, k in RAG.cells]


def get_rag_report_params(wildcards):
    cells = [[m, s, "all" if k == "all" else int(k[1:])] for m, s, k in RAG.cells]
    return _json({"cells": cells, "bootstrap": config["ragauth"]["bootstrap"], "seed": config["seed"]})


# --- self-preference ------------------------------------------------------------------

def sp_config(wildcards):
    return config["selfpref"]["datasets"][wildcards.spds]


def sp_sources(wildcards):
    return [s["file"] for s in sp_config(wildcards)["sources"]]


def sp_params(wildcards, **extra):
    return _json({"dataset": wildcards.spds, "seed": config["seed"], "cache": config.get("cache"),
                  "constrained": config["constrained_decoding"], **extra})


def sp_cell_params(wildcards, cell, **extra):
    return sp_params(wildcards, cell=f"selfpref/{wildcards.spds}/{wildcards.model}/{cell}",
                     model=_model_params(wildcards), **extra)


def get_sp_import_params(wildcards):
    return sp_params(wildcards, sources=sp_config(wildcards)["sources"])


def get_sp_generate_templates(wildcards):
    return [f"{PROMPTS}/selfpref/{k}.yaml" for k in config["selfpref"]["generate"]["kinds"]]


def get_sp_generate_params(wildcards):
    gen = config["selfpref"]["generate"]
    return sp_cell_params(wildcards, "generate", author=wildcards.model, **{k: gen[k] for k in ("items", "kinds", "generate")})


def get_sp_sample_params(wildcards):
    sp = config["selfpref"]
    return sp_params(wildcards, authors=sp["authors"], items=sp["items"], style_items=sp["style_items"])


def get_sp_shipped_knowledge(wildcards):
    return sp_config(wildcards)["knowledge"][wildcards.author]


def get_sp_knowledge_params(wildcards):
    return sp_cell_params(wildcards, "knowledge", **config["selfpref"]["knowledge"])


def get_sp_perplexity_params(wildcards):
    return sp_cell_params(wildcards, "perplexity")


def get_sp_rerank_params(wildcards):
    rerank = config["selfpref"]["rerank"]
    return sp_cell_params(wildcards, f"rerank/{wildcards.prompt}", prompt=wildcards.prompt, evaluator=wildcards.model,
                          self_author=config["selfpref"]["self"][wildcards.model],
                          retries=rerank["retries"], false_answer=rerank["false_answer"],
                          generate=rerank.get("generate"))


def get_sp_compare_params(wildcards):
    return sp_cell_params(wildcards, f"generation/{wildcards.run}", run=wildcards.run, evaluator=wildcards.model,
                          self_author=config["selfpref"]["self"][wildcards.model],
                          others=other_authors(config, wildcards.model),
                          generate=config["selfpref"]["compare"]["generate"],
                          retries=config["selfpref"]["compare"]["retries"])


def get_sp_knowledge_levels(wildcards):
    folder = f"{R}/selfpref/{wildcards.spds}"
    shipped = [f"{folder}/knowledge/{a}.jsonl" for a in sp_config(wildcards).get("knowledge", {})]
    return shipped + [f"{folder}/cells/{m}/knowledge/levels.jsonl" for m in SELFPREF.evaluators]


def get_sp_report_params(wildcards):
    return _json({"dataset": wildcards.spds, "perplexity_model": SELFPREF.perplexity_model,
                  "self": {m: config["selfpref"]["self"][m] for m in SELFPREF.evaluators},
                  "knowledge_authors": knowledge_authors(config, wildcards.spds, SELFPREF.evaluators)})


# --- reports and `all` -------------------------------------------------------------------

def domainauth_report_outputs():
    return domainauth_report_files(f"{DA}/report", config["settings"], config["judges"], SECONDARY,
                                   config["expected_scores"])


def entityauth_report_outputs():
    return entityauth_report_files(f"{EA}/report", config["judges"], config["expected_scores"])


# --- benchmark statistics (Table 7) ---------------------------------------------------

def _statistics_datasets():
    return (["domainauth"] if "domainauth" in STUDIES else []) + list(ENTITY_DATASETS)


def _statistics_selfpref():
    return SELFPREF.datasets if SELFPREF.evaluators else []


def statistics_outputs():
    return statistics_files(f"{R}/statistics", bool(_statistics_datasets() or RAG.cells), bool(_statistics_selfpref()))


def get_statistics_inputs(wildcards):
    """The built datasets Table 7 counts: every AuthorityBench dataset's labels,
    drops and sampled instance sets (those its baselines read), RAGAuth's
    dataset report, and the self-preference imports."""
    ds = _statistics_datasets()
    return {
        "labels": [f"{R}/{d}/labels.tsv" for d in ds],
        "drops": [f"{R}/{d}/drops.tsv" for d in ds],
        "instances": [f"{R}/{d}/instances/{s}.jsonl" for d in ds for s in baseline_plan(config, d)["instance_sets"]],
        "rag": [f"{RA}/dataset.tsv"] if RAG.cells else [],
        "sp_questions": [f"{R}/selfpref/{d}/questions.jsonl" for d in _statistics_selfpref()],
        "sp_passages": [f"{R}/selfpref/{d}/imported.jsonl" for d in _statistics_selfpref()],
        "sp_drops": [f"{R}/selfpref/{d}/drops.tsv" for d in _statistics_selfpref()],
    }


def statistics_rag_arg(wildcards, input):
    return f"--rag {input.rag}" if input.rag else ""


def _label_block(dataset):
    """A dataset's config ``label:`` block (None: the dataset's default rule)."""
    if dataset == "domainauth":
        return config["domainauth"].get("label")
    return entity_config(dataset.split("/", 1)[1]).get("label")


def get_statistics_params(wildcards):
    sampling = config["domainauth"]["sampling"]
    return _json({"datasets": _statistics_datasets(), "labels": [_label_block(d) for d in _statistics_datasets()],
                  "instance_sets": [baseline_plan(config, d)["instance_sets"] for d in _statistics_datasets()],
                  "easy_min_delta": sampling["easy_min_delta"], "hard_max_delta": sampling["hard_max_delta"],
                  "selfpref": _statistics_selfpref(), "authors": config["selfpref"]["authors"] if _statistics_selfpref() else []})


def reported(paths, category):
    """Flag the CSV tables and PNG figures for `snakemake --report`, each with
    its caption from report/captions/<stem>.rst."""
    out = []
    for path in paths:
        stem, ext = os.path.splitext(os.path.basename(path))
        if ext in (".csv", ".png"):
            out.append(report(path, caption=f"../report/captions/{stem}.rst", category=category,
                              subcategory="figures" if ext == ".png" else "tables"))
        else:
            out.append(path)
    return out


def get_final_output():
    out = statistics_outputs()
    if "domainauth" in STUDIES:
        out += domainauth_report_outputs() + [f"{DA}/drops.tsv", f"{DA}/instances/reuse.tsv"]
    if ENTITY_DATASETS:
        out += entityauth_report_outputs() + [f"{R}/{d}/drops.tsv" for d in ENTITY_DATASETS]
    if RAG.cells:
        out += ragauth_report_files(f"{RA}/report") + [f"{RA}/dataset.tsv"]
    for dataset in SELFPREF.datasets if SELFPREF.evaluators else []:
        out += selfpref_report_files(f"{R}/selfpref/{dataset}/report") + [f"{R}/selfpref/{dataset}/drops.tsv"]
    return out
