"""RAGAuth's filtering strategies, declared once (the rules' ``{strategy}``
words, Table 5's columns, the schema's enum)."""

NO_FILTER = "no_filter"  # every retrieved document, in retrieval order
LLM_STRATEGIES = ("relevance", "utility", "authority")  # a model scores the documents (a rank cell)
PRIOR_STRATEGIES = ("pagerank_oracle", "tld_prior")  # scores from the data alone
STRATEGIES = (NO_FILTER, *LLM_STRATEGIES, *PRIOR_STRATEGIES)
PAPER_STRATEGIES = (NO_FILTER, *LLM_STRATEGIES)  # Table 5's columns
