# Config validation, the cell grid and every input/params function.
# Never `import workflow` here: that name is Snakemake's workflow object.
import json
import os

from snakemake.utils import validate

from authbench.config import SCHEMA_PATH, check_config, cells as config_cells

validate(config, str(SCHEMA_PATH))
check_config(config)

R = config["results"]
PROMPTS = config["prompts"]
DA = f"{R}/domainauth"
CELL = f"{DA}/cells/{{model}}/{{judge}}/{{context}}/{{setting}}"
CELLS = config_cells(config)


wildcard_constraints:
    model="|".join(sorted(config["models"])),
    judge="point|list_rank|list_score|pair_rank|pair_score",
    context="wo_text|w_text",
    setting="fine|coarse|pairs|bias",


def _json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def model_config(wildcards):
    return config["models"][wildcards.model]


def get_model_file(wildcards):
    spec = model_config(wildcards)["model"]
    if spec.startswith("package:"):
        return f"{R}/models/{wildcards.model}.gguf"
    return spec


def get_assemble_params(wildcards):
    return _json({"model": model_config(wildcards)["model"]})


def get_build_params(wildcards):
    keys = ("status_filter", "text", "text_max_words", "categories")
    return _json({k: config["domainauth"].get(k) for k in keys})


def get_text_input(wildcards):
    text = config["domainauth"].get("text")
    return [text] if text else []


def get_sample_params(wildcards):
    return _json({"sampling": config["domainauth"]["sampling"], "seed": config["seed"]})


def get_judge_params(wildcards):
    return _json(
        {
            "cell": f"domainauth/{wildcards.model}/{wildcards.judge}/{wildcards.context}/{wildcards.setting}",
            "judge": wildcards.judge,
            "context": wildcards.context,
            "setting": wildcards.setting,
            "seed": config["seed"],
            "constrained": config["constrained_decoding"],
            "model": {k: v for k, v in model_config(wildcards).items() if k != "threads"},
        }
    )


def get_judge_threads(wildcards):
    return model_config(wildcards).get("threads", 2)


def get_cell_identity(wildcards):
    return _json(
        {
            "benchmark": "domainauth",
            "model": wildcards.model,
            "judge": wildcards.judge,
            "context": wildcards.context,
            "setting": wildcards.setting,
        }
    )


def get_baseline_params(wildcards):
    settings = [s for s in config["settings"] if s != "bias"]
    return _json(
        {
            "benchmark": "domainauth",
            "seed": config["seed"],
            "baselines": config["baselines"],
            "settings": settings,
            "contexts": config["contexts"],
        }
    )


def get_report_params(wildcards):
    return _json({"benchmark": "domainauth", "category_order": list(config["domainauth"]["categories"])})


def get_cell_metrics(wildcards):
    return [
        f"{DA}/cells/{c.model}/{c.judge}/{c.context}/{c.setting}/metrics.tsv"
        for c in CELLS
        if c.setting != "bias"
    ]


def get_point_predictions(wildcards):
    return [
        f"{DA}/cells/{c.model}/point/{c.context}/bias/predictions.tsv"
        for c in CELLS
        if c.judge == "point" and c.setting == "bias"
    ]


def report_outputs():
    """Every table and figure the config's grid produces."""
    out = [f"{DA}/report/metrics.tsv", f"{DA}/report/figures/fig3_label_distribution.png"]
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
    out += [f"{DA}/report/tables/{t}.{ext}" for t in tables for ext in ("csv", "md", "tex")]
    return out


def get_final_output():
    return report_outputs() + [f"{DA}/drops.tsv", f"{DA}/instances/reuse.tsv"]
