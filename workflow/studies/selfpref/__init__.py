"""The RAG self-preference study (Chen et al.): passage sets (``data``),
answer matching and attribution (``answers``), knowledge levels
(``knowledge``), generation, probing, reranking and comparison requests and
their judged rows (``requests``), the report's input rows and rates
(``rows``), tables (``passage_tables``: Table 1 and the perplexity tests;
``score_tables``: Tables 2 and 6-9; ``preference_tables``: Tables 3-5 and the
knowledge breakdown; ``table_common``: what they share), Figure 3
(``figures``) and the report folder (``report``), the data statistics beside
AuthorityBench's Table 7 (``statistics``, written by
:mod:`authbench.studies.statistics`) and which files a config produces
(``outputs``, the report declared once: ``SELFPREF``).

What other packages use is exported here (:func:`authbench.lazy_exports`)."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "data": ("drop_rows", "import_sources", "sample_questions"),
    "knowledge": ("knowledge_class", "rederive_knowledge"),
    "outputs": ("SELFPREF", "knowledge_authors", "other_authors"),
    "report": ("write_selfpref_report",),
    "requests": ("comparison_requests", "comparison_rows", "comparisons", "generated_passages", "generation_requests", "knowledge_requests", "knowledge_rows", "load_template", "rerank_requests", "rerank_rows"),
    "statistics": ("dataset_rows", "table_statistics"),
})
