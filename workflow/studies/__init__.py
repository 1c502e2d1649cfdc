"""The studies, one package each, on top of the judging core (``authbench.llm``),
the renderers (``authbench.render``) and the shared base: ``authority``
(DomainAuth, EntityAuth), ``ragauth`` (RAGAuth) and ``selfpref`` (RAG
self-preference); ``statistics``: the benchmark statistics of every study
(Table 7 and the self-preference data table)."""
