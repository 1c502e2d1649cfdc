"""AuthorityBench's DomainAuth and EntityAuth: datasets (``domains``,
``entities``, ``labels``), sampling, the judges (``judges``: one class per
judge, one module per shape, the registry), judge templates and requests
(``prompts``, ``requests``), evaluation, baselines and metrics (``evaluate``,
``rows``, ``ranking``, ``metrics``), judge-validity diagnostics
(``diagnostics``), tables, figures, costs and reports, and which files a
config produces (``outputs``: the reports declared once). Table 7 (benchmark statistics of
every study) is :mod:`authbench.studies.statistics`.

What other packages use is exported here (:func:`authbench.lazy_exports`)."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "diagnostics": ("ValidityRule", "cell_diagnostics", "flagged_cells", "validity_frame"),
    "domains": ("build_domains", "read_labels", "read_texts", "write_drops", "write_labels"),
    "entities": ("build_entities", "entity_item", "read_entities", "write_entities", "write_entity_drops"),
    "evaluate": ("METRIC_COLUMNS", "baseline_scorer", "evaluate_cell", "evaluate_scores"),
    "outputs": ("DOMAINAUTH", "ENTITYAUTH", "baseline_inputs", "scales"),
    "prompts": ("load_template",),
    "report": ("write_domainauth_report", "write_entityauth_report"),
    "requests": ("build_requests",),
    "sampling": ("add_anchors", "reuse_report", "sample_all", "sample_entity_sets", "sample_lists"),
})
