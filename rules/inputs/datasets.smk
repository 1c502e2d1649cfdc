# Input and params functions of rules/datasets.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.studies.authority.study import SETTINGS
from authbench.studies.authority import layout as authority_layout


def get_build_params(wildcards):
    keys = ("status_filter", "text", "text_max_words", "categories")
    label = config["domainauth"].get("label")
    return _json({**{k: config["domainauth"].get(k) for k in keys}, **({"label": label} if label else {})})


def get_secondary_params(wildcards):
    return _json(
        {"status_filter": config["domainauth"].get("status_filter"), "secondary": config["domainauth"]["secondary"]}
    )


def get_text_input(wildcards):
    text = config["domainauth"].get("text")
    return [text] if text else []


def get_sample_params(wildcards):
    return _json({"sampling": config["domainauth"]["sampling"], "seed": config["seed"]})


def get_entity_source(wildcards):
    return entity_config(wildcards.entity_set)["source"]


def get_entity_build_params(wildcards):
    label = entity_config(wildcards.entity_set).get("label")
    return _json(
        {
            "dataset": wildcards.entity_set,
            "corpus": entity_config(wildcards.entity_set).get("corpus"),
            "seed": config["seed"],
            **({"label": label} if label else {}),
        }
    )


def get_entity_sample_params(wildcards):
    ea = config["entityauth"]
    return _json(
        {
            "dataset": wildcards.entity_set,
            "lists": ea["lists"],
            "anchors": ea["anchors"],
            "coarse_lists": ea["coarse_lists"] if "coarse" in ENTITY_SETTINGS else None,
            "seed": config["seed"],
        }
    )
