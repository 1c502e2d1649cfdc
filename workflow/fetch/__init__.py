"""Fetchers of a researcher's own data: URL logs (``urllog``), Open PageRank
(``pagerank``), homepage texts (``webtext``), Wikidata sitelinks
(``wikidata``, through the API client ``wikidata_api``, for the entity lists
of ``entity_lists``), each resumable through a progress cache (``cache``).

What other packages use is exported here (:func:`authbench.lazy_exports`)."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "cache": ("ProgressCache",),
    "pagerank": ("PAGERANK_COLUMNS", "api_key_from_env", "bulk_pagerank", "fetch_openpagerank", "read_domain_list", "write_pagerank"),
    "urllog": ("ingest_urllog", "write_domains", "write_drops"),
    "webtext": ("fetch_texts", "write_failures", "write_texts"),
    "entity_lists": ("read_entities", "write_entities", "write_unresolved"),
    "wikidata": ("fetch_sitelinks",),
})
