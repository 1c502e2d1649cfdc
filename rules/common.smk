# Config validation, the cell grid and every input/params function.
# Never `import workflow` here: that name is Snakemake's workflow object.
import json
import os
import re

from snakemake.utils import validate

from authbench.config import SCHEMA_PATH, active_models, check_config, cells as config_cells, entity_datasets

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


wildcard_constraints:
    bench="domainauth|entityauth/[a-z0-9_]+",
    dataset="[a-z0-9_]+",
    model="|".join(re.escape(m) for m in sorted(MODELS)),
    judge="point|list_rank|list_score|pair_rank|pair_score",
    context="wo_text|w_text",
    setting="fine|coarse|pairs|bias",


def _json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def model_config(wildcards):
    return MODELS[wildcards.model]


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
            "model": {k: v for k, v in model_config(wildcards).items() if k != "threads"},
        }
    )


def get_judge_threads(wildcards):
    return model_config(wildcards).get("threads", 2)


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
    return out
