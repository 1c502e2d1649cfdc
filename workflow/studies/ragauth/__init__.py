"""AuthorityBench's RAGAuth: the question file (``dataset``, built from your
own data by ``build``), strategy templates, scores and requests
(``requests``), accuracy tables (``report``) and which files a config
produces (``outputs``).

What other packages use is exported here (:func:`authbench.lazy_exports`)."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "build": ("build_ragauth", "write_build_drops", "write_domain_list", "write_ragauth"),
    "dataset": ("dataset_report", "load_ragauth"),
    "outputs": ("RAGAUTH", "write_rag_report"),
    "report": ("accuracy_rows", "report_data", "write_accuracy"),
    "requests": ("answer_requests", "answer_row", "judged_scores", "load_rag_template", "prior_scores", "rank_requests"),
})
