# Config validation, the cell grid and every input/params function.
# Never `import workflow` here: that name is Snakemake's workflow object.
import json
import os
import re

from snakemake.logging import logger
from snakemake.utils import validate

from authbench.config import SCHEMA_PATH, active_models, check_config, cells as config_cells, entity_datasets, rag_plan, selfpref_plan

validate(config, str(SCHEMA_PATH))
check_config(config)

R = config["results"]
PROMPTS = config["prompts"]
DA = f"{R}/domainauth"
EA = f"{R}/entityauth"
# {bench} is a benchmark dataset: "domainauth" or "entityauth/<name>".
CELL = f"{R}/{{bench}}/cells/{{model}}/{{judge}}/{{context}}/{{setting}}"
CELLS = config_cells(config)
MODELS = active_models(config)
ENTITY_BENCHES = entity_datasets(config)
BENCHMARKS = config["benchmarks"]
RA = f"{R}/ragauth"
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
    bench="domainauth|entityauth/[a-z0-9_]+",
    dataset="[a-z0-9_]+",
    model="|".join(re.escape(m) for m in sorted(MODELS)),
    judge="point|list_rank|list_score|pair_rank|pair_score",
    context="wo_text|w_text",
    setting="fine|coarse|pairs|bias",
    strategy="no_filter|relevance|utility|authority|pagerank_oracle|tld_prior",
    topk="all|k[0-9]+",


def _json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def model_config(wildcards):
    return MODELS[wildcards.model]


# Resources of every job that runs a model, from the model's config (schema:
# gpus, mem_mb, runtime in minutes). On Slurm, gpu=N becomes `sbatch --gpus=N`
# (none when 0); CPU rules ask for no GPU. Locally these are only bookkeeping.
def model_mem_mb(wildcards):
    return model_config(wildcards).get("mem_mb", 4000)


def model_runtime(wildcards):
    return model_config(wildcards).get("runtime", 120)


def model_gpus(wildcards):
    return model_config(wildcards).get("gpus", 0)


def model_threads(wildcards):
    return model_config(wildcards).get("threads", 2)


def model_file_arg(wildcards, input):
    return f"--model-file {input.model}" if input.model else ""


def entity_config(name):
    return config["entityauth"]["datasets"][name]


def get_model_file(wildcards):
    """The local GGUF of a llamacpp model (assembled from its package, or a
    path); other engines load by name and have no file input."""
    cfg = model_config(wildcards)
    if cfg["engine"] != "llamacpp":
        return []
    if cfg["model"].startswith("package:"):
        return f"{R}/models/{wildcards.model}.gguf"
    return cfg["model"]


def get_assemble_params(wildcards):
    return _json({"model": model_config(wildcards)["model"]})


# --- datasets ---------------------------------------------------------------

def get_build_params(wildcards):
    keys = ("status_filter", "text", "text_max_words", "categories")
    return _json({k: config["domainauth"].get(k) for k in keys})


def get_text_input(wildcards):
    text = config["domainauth"].get("text")
    return [text] if text else []


def get_sample_params(wildcards):
    return _json({"sampling": config["domainauth"]["sampling"], "seed": config["seed"]})


def get_entity_source(wildcards):
    return entity_config(wildcards.dataset)["source"]


def get_entity_build_params(wildcards):
    return _json({"dataset": wildcards.dataset, "corpus": entity_config(wildcards.dataset).get("corpus"),
                  "seed": config["seed"]})


def get_entity_sample_params(wildcards):
    ea = config["entityauth"]
    return _json({"dataset": wildcards.dataset, "lists": ea["lists"], "anchors": ea["anchors"], "seed": config["seed"]})


# --- cells -------------------------------------------------------------------

def get_template(wildcards):
    if wildcards.bench == "domainauth":
        return f"{PROMPTS}/domainauth/{wildcards.judge}_{wildcards.context}.yaml"
    name = wildcards.bench.split("/", 1)[1]
    folder = entity_config(name).get("prompts", name)
    return f"{PROMPTS}/entityauth/{folder}/{wildcards.judge}_{wildcards.context}.yaml"


def _cell_id(wildcards):
    return f"{wildcards.bench}/{wildcards.model}/{wildcards.judge}/{wildcards.context}/{wildcards.setting}"


def get_judge_params(wildcards):
    return _json(
        {
            "cell": _cell_id(wildcards),
            "judge": wildcards.judge,
            "context": wildcards.context,
            "setting": wildcards.setting,
            "seed": config["seed"],
            "constrained": config["constrained_decoding"],
            "cache": config.get("cache"),
            "model": _model_params(wildcards),
        }
    )


def _model_params(wildcards):
    return {k: v for k, v in model_config(wildcards).items() if k != "threads"}


def _scales(bench, setting):
    """Label scales a cell's judgments are scored against (evaluate.evaluate_cell)."""
    return ["fine", "coarse"] if bench.startswith("entityauth/") else [setting]


def get_cell_identity(wildcards):
    return _json(
        {
            "benchmark": wildcards.bench,
            "model": wildcards.model,
            "judge": wildcards.judge,
            "context": wildcards.context,
            "setting": wildcards.setting,
            "scales": _scales(wildcards.bench, wildcards.setting),
        }
    )


def get_baseline_instances(wildcards):
    settings = ["fine"] if wildcards.bench.startswith("entityauth/") else ["fine", "coarse", "pairs"]
    return [f"{R}/{wildcards.bench}/instances/{s}.jsonl" for s in settings]


def get_baseline_params(wildcards):
    if wildcards.bench.startswith("entityauth/"):
        evaluations = [["fine", "fine"], ["fine", "coarse"]]
        contexts = ["wo_text"]
        # tld_prior scores a domain by its public suffix: DomainAuth only
        baselines = {k: v for k, v in config["baselines"].items() if k != "tld_prior"}
    else:
        evaluations = [[s, s] for s in config["settings"] if s != "bias"]
        contexts = config["contexts"]
        baselines = config["baselines"]
    return _json({"benchmark": wildcards.bench, "seed": config["seed"], "baselines": baselines,
                  "evaluations": evaluations, "contexts": contexts})


# --- RAGAuth -------------------------------------------------------------------

def get_rag_dataset_params(wildcards):
    return _json({"topics": config["ragauth"].get("topics"), "k": config["ragauth"]["k"]})


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


def _rag_answer_dir(model, strategy, topk):
    return f"{RA}/cells/{model}/answer/{strategy}/{topk}"


def get_rag_report_inputs(wildcards):
    return [f"{_rag_answer_dir(*cell)}/judgments.jsonl" for cell in RAG.cells]


def get_rag_report_params(wildcards):
    cells = [[m, s, "all" if k == "all" else int(k[1:])] for m, s, k in RAG.cells]
    return _json({"cells": cells, "bootstrap": config["ragauth"]["bootstrap"], "seed": config["seed"]})


def rag_report_outputs():
    return [f"{RA}/report/accuracy.tsv"] + _table_files(f"{RA}/report", ["table5_ragauth", "table5_topics"])


# --- self-preference ------------------------------------------------------------

SELFPREF_TABLES = ["table1_knowledge", "table2_rerank", "table3_preference", "table4_gen_by_qa", "table5_long",
                   "table6_normal_true", "table7_normal_false", "table8_rag_true", "table9_rag_false",
                   "table_knowledge_breakdown"]


def selfpref_report_outputs(dataset):
    folder = f"{R}/selfpref/{dataset}/report"
    return ([f"{folder}/rates.tsv", f"{folder}/rerank_summary.tsv", f"{folder}/figures/fig3_heatmaps.png"]
            + _table_files(folder, SELFPREF_TABLES))


def selfpref_knowledge_authors(dataset):
    """Table 1's knowledge rows: released probes (re-derived), then each evaluator's own."""
    return list(config["selfpref"]["datasets"][dataset].get("knowledge", {})) + SELFPREF.evaluators


def get_selfpref_knowledge(wildcards):
    folder = f"{R}/selfpref/{wildcards.spds}"
    shipped = [f"{folder}/knowledge/{a}.jsonl" for a in config["selfpref"]["datasets"][wildcards.spds].get("knowledge", {})]
    return shipped + [f"{folder}/cells/{m}/knowledge/levels.jsonl" for m in SELFPREF.evaluators]


# --- reports -----------------------------------------------------------------

def get_report_params(wildcards):
    return _json({"benchmark": "domainauth", "category_order": list(config["domainauth"]["categories"])})


def _metrics_of(cells):
    return [f"{R}/{c.benchmark}/cells/{c.model}/{c.judge}/{c.context}/{c.setting}/metrics.tsv" for c in cells]


def get_cell_metrics(wildcards):
    return _metrics_of(c for c in CELLS if c.benchmark == "domainauth" and c.setting != "bias")


def _manifests_of(cells):
    return [f"{R}/{c.benchmark}/cells/{c.model}/{c.judge}/{c.context}/{c.setting}/manifest.json" for c in cells]


def get_domain_manifests(wildcards):
    return _manifests_of(c for c in CELLS if c.benchmark == "domainauth")


def get_point_predictions(wildcards):
    return [
        f"{DA}/cells/{c.model}/point/{c.context}/bias/predictions.tsv"
        for c in CELLS
        if c.benchmark == "domainauth" and c.judge == "point" and c.setting == "bias"
    ]


def get_entity_report_inputs(wildcards):
    return {
        "metrics": _metrics_of(c for c in CELLS if c.benchmark.startswith("entityauth/")),
        "baselines": [f"{R}/{b}/baselines/metrics.tsv" for b in ENTITY_BENCHES],
        "labels": [f"{R}/{b}/labels.tsv" for b in ENTITY_BENCHES],
        "reuse": [f"{R}/{b}/instances/reuse.tsv" for b in ENTITY_BENCHES],
        "manifests": _manifests_of(c for c in CELLS if c.benchmark.startswith("entityauth/")),
    }


def get_entity_report_params(wildcards):
    return _json({"datasets": [b.split("/", 1)[1] for b in ENTITY_BENCHES]})


def _cost_files(folder):
    return [f"{folder}/tables/costs.csv", f"{folder}/tables/costs.md", f"{folder}/figures/cost_vs_rho.png"]


def _table_files(folder, stems):
    return [f"{folder}/tables/{t}.{ext}" for t in stems for ext in ("csv", "md", "tex")]


def report_outputs():
    """Every DomainAuth table and figure the config's grid produces."""
    out = [f"{DA}/report/metrics.tsv", f"{DA}/report/figures/fig3_label_distribution.png"] + _cost_files(f"{DA}/report")
    tables = []
    settings, judges = set(config["settings"]), set(config["judges"])
    pair_judges = judges & {"pair_rank", "pair_score"}
    if "fine" in settings:
        tables.append("table1_fine")
        if pair_judges:
            tables.append("table9_derivations_fine")
    if "coarse" in settings:
        tables.append("table2_coarse")
        if pair_judges:
            tables.append("table10_derivations_coarse")
    if "pairs" in settings:
        tables.append("table3_pairs")
    if "bias" in settings and "point" in judges:
        tables.append("table8_categories")
        out.append(f"{DA}/report/figures/fig6_bias_heatmap.png")
    return out + _table_files(f"{DA}/report", tables)


def entity_report_outputs():
    """EntityAuth's Tables 4, 6 (and 11, 12 with pair judges) and its Fig. 3."""
    stems = ["table4_fine", "table6_coarse"]
    if set(config["judges"]) & {"pair_rank", "pair_score"}:
        stems += ["table11_derivations_fine", "table12_derivations_coarse"]
    return [f"{EA}/report/metrics.tsv", f"{EA}/report/reuse.tsv",
            f"{EA}/report/figures/fig3_entityauth_label_distribution.png"] + _table_files(f"{EA}/report", stems) \
        + _cost_files(f"{EA}/report")


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
    out = []
    if "domainauth" in BENCHMARKS:
        out += report_outputs() + [f"{DA}/drops.tsv", f"{DA}/instances/reuse.tsv"]
    if ENTITY_BENCHES:
        out += entity_report_outputs() + [f"{R}/{b}/drops.tsv" for b in ENTITY_BENCHES]
    if RAG.cells:
        out += rag_report_outputs() + [f"{RA}/dataset.tsv"]
    for dataset in SELFPREF.datasets if SELFPREF.evaluators else []:
        out += selfpref_report_outputs(dataset) + [f"{R}/selfpref/{dataset}/drops.tsv"]
    return out
