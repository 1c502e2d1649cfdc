"""The one owner of a model cell: its step's inputs and params, how it asks
the model (cache, then engine; tries and retries under one id convention;
perplexity), its record, built once, and every file it writes (responses,
judgments, samples, manifest, history). A command-line step builds the
requests and judges the replies with its study's functions; the cell does
the rest. The judging core (``authbench.llm``) below it writes no pipeline file."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "ids": ("RETRY_MARK", "base_id", "retried_id", "tried_id"),
    "record": ("CellRecord", "cell_summary", "prompt_hash", "templates_sha256"),
    "step": ("CellStep", "HISTORY_ENV", "Retried", "tries_summary"),
})
