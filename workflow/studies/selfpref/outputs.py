"""What a self-preference config produces, decided once: a dataset's report
(:data:`SELFPREF`: every table and figure declared once; :data:`SELFPREF_DATASETS`:
its tables over every dataset, one block of rows each;
:mod:`authbench.render.catalog` derives the files ``rules/common.smk`` asks
for, contents.md and the report entries),
Table 1's knowledge rows and each evaluator's "other" authors. Light
imports only: the Snakefile loads this module on every run."""

from __future__ import annotations

from typing import Any, Mapping

from authbench.render.catalog import CLAIMS, SCORECARD, SCORECARD_MARKS, Figure, Listing, Report, Table


def _passage_tables():
    """The builders (:mod:`authbench.studies.selfpref.passage_tables` and its
    siblings: heavy imports, loaded when the report is written)."""
    from authbench.studies.selfpref import passage_tables

    return passage_tables


def _score_tables():
    from authbench.studies.selfpref import score_tables

    return score_tables


def _preference_tables():
    from authbench.studies.selfpref import preference_tables

    return preference_tables


def _figures():
    from authbench.studies.selfpref import figures

    return figures


def _rates(gen_rows):
    from authbench.studies.selfpref.rows import preference_rates

    return preference_rates(gen_rows)


def _dataset_caption(x, spec) -> str:
    """The written caption: the builder's (it names the data's authors and
    models), headed by the dataset (``[nq] ...``)."""
    return x.prefix + spec.caption


def _table(stem: str, title: str, caption: str, build) -> Table:
    return Table(stem, title, caption, build=build, caption_of=_dataset_caption)


def _raw(stem: str, n: int, prompt: str, facts: str, key: str) -> Table:
    return _table(stem, f"Table {n}: {prompt}-prompt scores of {facts} passages",
                  f"Self-preference Table {n}: {prompt}-prompt scores of {facts} passages per evaluator and author "
                  "(mean ± std, with its 95% interval).", lambda x: x.raw[key])


# a dataset's report (every item is always written: an empty input gives placeholder rows)
SELFPREF = Report("Self-preference", extra=("contents.md", "rates.tsv", "rerank_summary.tsv",
                                                      "perplexity_released.tsv", *SCORECARD,
                                                      SCORECARD_MARKS, *CLAIMS),
                  diffs=True, items=(
    _table("table1_knowledge", "Table 1: knowledge levels and passage statistics",
           "Self-preference Table 1: per evaluator, knowledge levels (No / Partial / Full, % of questions; probed "
           "here) and the statistics of its self author's passages (average length in words, perplexity under the "
           "configured causal LM, † = the configured t-test (selfpref.significance: paired per question by default) "
           "vs the human passages, p < 0.05); the Average of the evaluators; below a rule, outside the average, the "
           "released knowledge runs (re-derived from their probes) and the other passage authors.",
           lambda x: _passage_tables().table1(x.knowledge_levels, x.scored_passages, x.perplexity_rows,
                                              x.perplexity_model, x.iv, x.released_perplexity, x.self_map,
                                              x.significance)),
    _table("table2_rerank", "Table 2: reranking scores, human vs. model passages",
           "Self-preference Table 2: pointwise reranking scores (1-5, mean ± std) of human and model-written passages "
           "under the normal (writing quality) and RAG (suitability) prompts, TRUE and FALSE passages; Diff = Human − "
           "Model, † = the configured t-test (selfpref.significance: paired per question by default) p < 0.05.",
           lambda x: _score_tables().table2(x.rerank_rows, x.self_map, x.iv, x.significance)),
    _table("table3_preference", "Table 3: self / order / factual preference",
           "Self-preference Table 3: generation phase, per evaluator and other author: self / order / factual "
           "preference (%); Self pools all four factuality combinations (the paper's), Self (same fact.) beside it "
           "counts only the pairs whose two passages are both true or both false (TT, FF), where factuality cannot "
           "decide; values over 50% in bold.",
           lambda x: _preference_tables().table3(_rates(x.gen_rows), x.iv)),
    _table("table4_gen_by_qa", "Table 4: own Gen-by-QA passage vs. human",
           "Self-preference Table 4: preference for the evaluator's own Gen-by-QA passage over the human passage "
           "(true answers, both orders).", lambda x: x.style[0]),
    _table("table5_long", "Table 5: own long passage vs. normal length",
           "Self-preference Table 5: preference for the evaluator's own long passage over its normal-length passage "
           "(true answers, both orders).", lambda x: x.style[1]),
    _raw("table6_normal_true", 6, "normal", "TRUE", "normal_true"),
    _raw("table7_normal_false", 7, "normal", "FALSE", "normal_false"),
    _raw("table8_rag_true", 8, "RAG", "TRUE", "rag_true"),
    _raw("table9_rag_false", 9, "RAG", "FALSE", "rag_false"),
    _table("table_knowledge_breakdown", "Self-preference by prior knowledge",
           "Self-preference by the evaluator's prior knowledge of the question (no / partial / full) and factuality "
           "combination (Section 4.2.3).",
           lambda x: _preference_tables().knowledge_breakdown(x.gen_rows, x.passages, x.iv)),
    _table("table_perplexity_anova", "Perplexity across authors: ANOVA and Tukey HSD",
           "Perplexity of the normal TRUE passages across authors: one-way ANOVA and Tukey's HSD for every pair of "
           "authors (mean difference, 95% family-wise interval, adjusted p) beside the unadjusted Welch t-test of "
           "the same pair; † p < 0.05.",
           lambda x: _passage_tables().perplexity_anova_table(x.perplexity_rows, x.perplexity_model)),
    Figure("fig3_heatmaps", "Figure 3: preference heatmaps",
           "Self-preference Figure 3: per evaluator, self / order / factual preference (%) by factuality combination "
           "(self, other: TT, TF, FT, FF) and other author; colour = self preference.",
           build=lambda x, path: _figures().fig3_heatmaps(x.gen_rows, path)),
), closing=(
    Listing("units", "Per-unit records", "The records every number is computed from: each reranking score, "
            "generation comparison, knowledge probe, passage (its length) and perplexity, with its question.",
            tuple(f"units_{name}.parquet" for name in ("rerank", "comparisons", "knowledge", "passages",
                                                       "perplexity"))),
    Listing("comparisons", "Paired comparisons", "Reranking scores author vs author and model vs model, the "
            "preference rates vs 50%, author vs author and model vs model: Δ, its paired-bootstrap interval over "
            "questions and the Holm-adjusted p.", ("comparisons.tsv", "comparisons.md")),
))


def _stacked_caption(xs, spec) -> str:
    return spec.caption


def _stacked(item: Table) -> Table:
    """A dataset table of :data:`SELFPREF` over every dataset: one block of
    rows per dataset (the paper's layout: Table 1's dataset blocks, Table 2's
    per-dataset rows), built from the tables each dataset's report kept
    (``built``: dataset label -> stem -> (TableSpec, written caption))."""

    def build(xs):
        from authbench.render.tables import stack_tables

        parts = [(label, tables[item.stem][0]) for label, tables in xs.items() if item.stem in tables]
        stacked = stack_tables(parts, "Dataset", align=True)
        stacked.caption = (f"Datasets {', '.join(label for label, _ in parts)}, one block of rows each. "
                           + item.caption + " Each dataset's own caption (its counts, tests and notes): "
                           f"selfpref/<dataset>/report/tables/{item.stem}.md.")
        return stacked

    return Table(item.stem, item.title, item.caption + " One block of rows per dataset.", build=build,
                 caption_of=_stacked_caption)


# every dataset's tables in one report (written when two or more datasets are configured)
SELFPREF_DATASETS = Report("Self-preference, all datasets", extra=("contents.md", *CLAIMS), viewer=False,
                           items=tuple(_stacked(it) for it in SELFPREF.items if isinstance(it, Table)))


def knowledge_authors(config: Mapping[str, Any], dataset: str, evaluators: list[str]) -> list[str]:
    """Table 1's knowledge rows: released probes (re-derived), then each evaluator's own."""
    released = config["selfpref"]["datasets"][dataset].get("knowledge") or {}
    return [a for a, entry in released.items() if entry] + list(evaluators)


def other_authors(config: Mapping[str, Any], evaluator: str) -> list[str]:
    """The authors an evaluator's own passages are compared with: every
    configured author but its "self" (``selfpref.self``)."""
    own = config["selfpref"]["self"][evaluator]
    return [a for a in config["selfpref"]["authors"] if a != own]
