# Input and params functions of rules/selfpref.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.studies.registry import alternatives
from authbench.studies.scorecard import coverage_params
from authbench.studies.selfpref.outputs import SELFPREF as SELFPREF_REPORT, SELFPREF_DATASETS, knowledge_authors
from authbench.studies.selfpref.study import datasets_report_files
from authbench.studies.selfpref import layout as sp_layout

SP = sp_layout.folder(P, "{spds}")


def sp_config(wildcards):
    return config["selfpref"]["datasets"][wildcards.spds]


def sp_sources(wildcards):
    return [s["file"] for s in sp_config(wildcards)["sources"]]


def sp_params(wildcards, **extra):
    return _json(
        {
            "dataset": wildcards.spds,
            "seed": config["seed"],
            "cache": config.get("cache"),
            "constrained": config["constrained_decoding"],
            **extra,
        }
    )


def get_sp_import_params(wildcards):
    return sp_params(wildcards, sources=sp_config(wildcards)["sources"])


def get_sp_sample_params(wildcards):
    sp = config["selfpref"]
    return sp_params(wildcards, authors=sp["authors"], items=sp["items"], style_items=sp["style_items"])


def sp_knowledge_file(entry):
    """A released knowledge entry: a path, or {file, match} (match: that file's own rule)."""
    return entry["file"] if isinstance(entry, dict) else entry


def sp_released_knowledge(wildcards):
    """author -> released knowledge entry (null entries left out)."""
    return {a: e for a, e in (sp_config(wildcards).get("knowledge") or {}).items() if e}


def get_sp_shipped_knowledge(wildcards):
    return sp_knowledge_file(sp_config(wildcards)["knowledge"][wildcards.author])


def get_sp_shipped_knowledge_params(wildcards):
    entry = sp_config(wildcards)["knowledge"][wildcards.author]
    match = entry.get("match") if isinstance(entry, dict) else None
    return _json({"match": match or config["selfpref"]["knowledge"]["match"]})


def get_sp_released_perplexity(wildcards):
    spec = sp_config(wildcards).get("released_perplexity")
    return [spec["file"]] if spec else []


def get_sp_knowledge_levels(wildcards):
    shipped = [f"{sp_layout.folder(P, wildcards.spds)}/knowledge/{a}.jsonl" for a in sp_released_knowledge(wildcards)]
    return shipped + JOB_KINDS["selfpref_knowledge"].files_of(P, config, "levels", spds=wildcards.spds)


def get_sp_report_params(wildcards):
    return _json(
        {
            "dataset": wildcards.spds,
            "perplexity_model": SELFPREF.perplexity_model,
            "self": {m: config["selfpref"]["self"][m] for m in SELFPREF.evaluators},
            "knowledge_authors": knowledge_authors(config, wildcards.spds, SELFPREF.evaluators),
            "significance": config["selfpref"]["significance"],
            "scope": config["selfpref"]["rerank"]["scope"],
            "released": {
                "perplexity": sp_config(wildcards).get("released_perplexity"),
                "knowledge": {a: sp_knowledge_file(e) for a, e in sp_released_knowledge(wildcards).items()},
                "model": (
                    (config["models"].get(SELFPREF.perplexity_model) or {}).get("model")
                    if SELFPREF.perplexity_model
                    else None
                ),
            },
            "intervals": config["intervals"],
            "seed": config["seed"],
            "scorecard": coverage_params(config, "selfpref"),
        }
    )


def sp_datasets_in_order():
    """The datasets in the config's order (the paper's: NQ, then MS MARCO), for the report of all of them."""
    return [name for name in config["selfpref"]["datasets"] if name in SELFPREF.datasets]


def get_sp_datasets_report_params(wildcards):
    return _json({"datasets": sp_datasets_in_order(), "intervals": config["intervals"], "seed": config["seed"]})


def selfpref_datasets_report_files():
    """The report of every dataset's tables, one block of rows each: only when two or more datasets run."""
    return datasets_report_files(config, P)
