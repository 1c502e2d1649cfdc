"""What a self-preference config produces, decided once: the report files of
a dataset (``rules/common.smk`` asks for them; the report step writes them),
Table 1's knowledge rows and each evaluator's "other" authors. Light
imports only: the Snakefile loads this module on every run."""

from __future__ import annotations

from typing import Any, Mapping

TABLE_STEMS = (
    "table1_knowledge", "table2_rerank", "table3_preference", "table4_gen_by_qa", "table5_long",
    "table6_normal_true", "table7_normal_false", "table8_rag_true", "table9_rag_false",
    "table_knowledge_breakdown", "table_perplexity_anova",
)


def report_files(folder: str) -> list[str]:
    """Every file of a dataset's report folder."""
    return ([f"{folder}/rates.tsv", f"{folder}/rerank_summary.tsv", f"{folder}/figures/fig3_heatmaps.png"]
            + [f"{folder}/tables/{t}.{ext}" for t in TABLE_STEMS for ext in ("csv", "md", "tex")])


def knowledge_authors(config: Mapping[str, Any], dataset: str, evaluators: list[str]) -> list[str]:
    """Table 1's knowledge rows: released probes (re-derived), then each evaluator's own."""
    return list(config["selfpref"]["datasets"][dataset].get("knowledge", {})) + list(evaluators)


def other_authors(config: Mapping[str, Any], evaluator: str) -> list[str]:
    """The authors an evaluator's own passages are compared with: every
    configured author but its "self" (``selfpref.self``)."""
    own = config["selfpref"]["self"][evaluator]
    return [a for a in config["selfpref"]["authors"] if a != own]
