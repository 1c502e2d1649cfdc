"""What a RAGAuth config produces, decided once: its report (:data:`RAGAUTH`:
every table declared once; :mod:`authbench.render.catalog` derives the files
``rules/common.smk`` asks for, contents.md and the report entries). The
answer cells themselves are :func:`authbench.studies.ragauth.cell_list.rag_cells`'s."""

from __future__ import annotations

from authbench.render.catalog import CLAIMS, SCORECARD, Listing, Report, Table, builders_caption


def _report():
    """The builders (:mod:`authbench.studies.ragauth.tables`, loaded when the report is written)."""
    from authbench.studies.ragauth import tables

    return tables


# every item is always written (the builders take authbench.studies.ragauth.report.RagauthData: the accuracy rows ...)
RAGAUTH = Report("RAGAuth", extra=("contents.md", "accuracy.tsv", *SCORECARD, *CLAIMS), diffs=True, items=(
    Table("table5_ragauth", "Table 5: RAGAuth answer accuracy per filtering strategy",
          "Table 5: RAGAuth answer accuracy (%) per model and k under each filtering strategy (w/o filter, relevance, "
          "utility, authority), plus two reference rankings the paper lacks (PageRank oracle, TLD prior) and the "
          "answers' parse-failure rate, each with its 95% interval over questions; ° = not distinguishable from w/o "
          "Filter (comparisons.md).", build=lambda x: _report().table5(x.rows, x.units, x.spec, x.tags),
          caption_of=builders_caption),
    Table("table5_topics", "RAGAuth answer accuracy per topic",
          "RAGAuth answer accuracy (%) per model, strategy and k, overall and per question topic, with 95% "
          "percentile-bootstrap intervals over questions and the number of questions.",
          build=lambda x: _report().topic_table(x.rows, x.spec, x.tags), caption_of=builders_caption),
), closing=(
    Listing("units", "Per-question records of every answer cell", "One row per model, strategy, k and question: the "
            "topic, gold and parsed answer, status, correct and parse failure (what every number is computed from).",
            ("units.parquet",)),
    Listing("comparisons", "Paired comparisons", "Each filtering strategy vs w/o Filter per model and k, and model vs "
            "model per strategy and k: Δ accuracy, its paired-bootstrap interval over questions, Holm-adjusted p and "
            "McNemar's exact p.", ("comparisons.tsv", "comparisons.md")),
))


def write_rag_report(cells, spec, outdir, intervals: str = "inline", scorecard=None) -> list:
    """RAGAuth's report folder (:func:`authbench.render.catalog.write_report` of
    :data:`RAGAUTH`, every item written): ``units.parquet``, ``accuracy.tsv``,
    ``comparisons.tsv/.md``, the tables (``intervals``: how Markdown and
    LaTeX show the intervals), ``contents.md`` and ``scorecard.md/.tsv``
    (``scorecard``: :func:`authbench.studies.scorecard.coverage_params`; None: no
    model is named)."""
    from authbench.render.catalog import report_choice, write_report
    from authbench.studies.ragauth.report import report_data

    return write_report(RAGAUTH, report_data(cells, spec, outdir, scorecard), outdir, report_choice(RAGAUTH, {}),
                        intervals)
