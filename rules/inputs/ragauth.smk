# Input and params functions of rules/ragauth.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.studies.ragauth.outputs import RAGAUTH
from authbench.studies.scorecard import coverage_params
from authbench.studies.ragauth import layout as rag_layout


def get_rag_dataset_params(wildcards):
    return _json({"topics": config["ragauth"].get("topics"), "k": config["ragauth"]["k"]})


def get_rag_build_labels(wildcards):
    labels = config["ragauth"]["build"].get("labels")
    return [labels] if labels else []


def get_rag_build_params(wildcards):
    return _json({"max_docs": config["ragauth"]["build"]["max_docs"]})


def get_rag_prior_params(wildcards):
    return _json({"strategy": wildcards.strategy, "tld_prior": config["baselines"].get("tld_prior")})


def rag_scores_arg(wildcards, input):
    return option("--scores", input.scores)


def get_rag_report_params(wildcards):
    cells = [[m, s, "all" if k == "all" else int(k[1:])] for m, s, k in RAG.cells]
    return _json(
        {
            "cells": cells,
            "intervals": config["intervals"],
            "seed": config["seed"],
            "scorecard": coverage_params(config, "ragauth"),
        }
    )
