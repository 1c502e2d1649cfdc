# Input and params functions of rules/ragauth.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.paths import cell_id
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


def rag_rank_cell(model, strategy):
    return P.cell("ragauth", model, "rank", strategy)


def rag_answer_cell(model, strategy, topk):
    return P.cell("ragauth", model, "answer", strategy, topk)


def get_rag_scores(wildcards):
    """The document scores an answer cell filters by: its rank cell's, a
    prior's, or none (no filter)."""
    if wildcards.strategy == "no_filter":
        return []
    if wildcards.strategy in ("pagerank_oracle", "tld_prior"):
        return rag_layout.prior(P, wildcards.strategy)
    return f"{rag_rank_cell(wildcards.model, wildcards.strategy)}/scores.jsonl"


def rag_scores_arg(wildcards, input):
    return option("--scores", input.scores)


def _rag_params(wildcards, stage, k, *cell):
    return _json(
        {
            "cell": cell_id("ragauth", wildcards.model, *cell),
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
    return _rag_params(wildcards, wildcards.strategy, None, "rank", wildcards.strategy)


def get_rag_answer_params(wildcards):
    k = None if wildcards.topk == "all" else int(wildcards.topk[1:])
    return _rag_params(wildcards, "answer", k, "answer", wildcards.strategy, wildcards.topk)


def get_rag_report_inputs(wildcards):
    return [f"{rag_answer_cell(m, s, k)}/judgments.jsonl" for m, s, k in RAG.cells]


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


RANK = rag_rank_cell("{model}", "{strategy}")
ANSWER = rag_answer_cell("{model}", "{strategy}", "{topk}")
