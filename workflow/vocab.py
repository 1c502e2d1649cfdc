"""The pipeline's word lists, each declared once: the contexts and settings
of AuthorityBench cells, RAGAuth's filtering strategies, the
self-preference study's prompts and runs, and the rules' wildcard
constraints derived from them (:func:`wildcard_constraints`). The judges
are :mod:`authbench.judges`'. The schema's enums equal these lists (a test
checks it). A base module: it imports nothing of the package but the judges."""

from __future__ import annotations

import re
from typing import Iterable

from authbench.judges import JUDGE_NAMES

CONTEXTS = ("wo_text", "w_text")  # an AuthorityBench cell without / with the page text
SETTINGS = ("fine", "coarse", "pairs", "bias")  # its instance sets: N=10 lists, N=5 lists, pairs, the bias sample
NO_FILTER = "no_filter"  # RAGAuth: every retrieved document, in retrieval order
LLM_STRATEGIES = ("relevance", "utility", "authority")  # a model scores the documents (a rank cell)
PRIOR_STRATEGIES = ("pagerank_oracle", "tld_prior")  # scores from the data alone
STRATEGIES = (NO_FILTER, *LLM_STRATEGIES, *PRIOR_STRATEGIES)
PAPER_STRATEGIES = (NO_FILTER, *LLM_STRATEGIES)  # Table 5's columns
SELFPREF_PROMPTS = ("normal", "rag")  # the reranking prompts (Table 2's normal and RAG settings)
SELFPREF_RUNS = ("main", "style")  # the generation phase's runs: every author pair, the writing-style variants


def alternatives(words: Iterable[str]) -> str:
    """A wildcard constraint matching exactly one of ``words``."""
    return "|".join(re.escape(w) for w in words)


def wildcard_constraints(models: Iterable[str]) -> dict[str, str]:
    """The rules' global wildcard constraints: ``models`` the configured
    models and prompt-set cell models (``<model>@<set>``)."""
    return {
        "dataset": "domainauth|entityauth/[a-z0-9_]+",
        "entity_set": "[a-z0-9_]+",
        "model": alternatives(sorted(set(models))),
        "judge": alternatives(JUDGE_NAMES),
        "context": alternatives(CONTEXTS),
        "setting": alternatives(SETTINGS),
        "strategy": alternatives(STRATEGIES),
        "topk": "all|k[0-9]+",
        "prompt": alternatives(SELFPREF_PROMPTS),
        "run": alternatives(SELFPREF_RUNS),
    }
