"""What a RAGAuth config produces, decided once: its report (:data:`RAGAUTH`:
every table declared once; :mod:`authbench.render.catalog` derives the files
``rules/common.smk`` asks for, contents.md and the report entries). The
answer cells themselves are :func:`authbench.config.rag_plan`'s."""

from __future__ import annotations

from authbench.render.catalog import SCORECARD, Report, Table, builders_caption


def _report():
    """The builders (:mod:`authbench.studies.ragauth.tables`, loaded when the report is written)."""
    from authbench.studies.ragauth import tables

    return tables


# every item is always written (the builders take the accuracy rows: authbench.studies.ragauth.report.accuracy_rows)
RAGAUTH = Report("RAGAuth", extra=("contents.md", "accuracy.tsv", *SCORECARD), items=(
    Table("table5_ragauth", "Table 5: RAGAuth answer accuracy per filtering strategy",
          "Table 5: RAGAuth answer accuracy (%) per model and k under each filtering strategy (w/o filter, relevance, "
          "utility, authority), plus two reference rankings the paper lacks (PageRank oracle, TLD prior) and the "
          "answers' parse-failure rate.", build=lambda rows: _report().table5(rows), caption_of=builders_caption),
    Table("table5_topics", "RAGAuth answer accuracy per topic",
          "RAGAuth answer accuracy (%) per model, strategy and k, overall and per question topic, with 95% "
          "percentile-bootstrap intervals over questions and the number of questions.",
          build=lambda rows: _report().topic_table(rows), caption_of=builders_caption),
))
