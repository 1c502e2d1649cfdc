"""The judging core, study-agnostic: engines (``engines/``), the response cache
(``cache``), the reply formats (``formats``: one module each, read by the
decoding constraints in ``grammars`` and the parser dispatcher in ``parse``),
the template reader and placeholder checker (``prompts``), the runner
(``runner``: requests -> cache -> engine -> responses; perplexity goes
through it too) and what a run took and gave (``runs``: ``RunStats``,
``Run``). It writes no pipeline file: a cell's files are
:mod:`authbench.cells`'.

What other packages use is exported here (:func:`authbench.lazy_exports`)."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "models": ("resolve_model", "convert_gguf", "PART_MODELS"),
    "cache": ("ResponseCache", "content_key", "model_identity", "perplexity_key", "request_key"),
    "grammars": ("token_budget",),
    "parse": ("normalise", "parse_reply", "parse_yes_no", "to_text"),
    "prompts": ("check_placeholders", "placeholders", "read_template_file"),
    "runner": ("parse_responses", "perplexity_identity", "run_cached", "generate_replies", "run_requests", "score_texts"),
    "runs": ("Run", "RunStats", "joined"),
})
