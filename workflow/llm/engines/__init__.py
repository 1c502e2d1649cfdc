"""Engines behind one interface (``base``): ``llamacpp`` (in process, GGUF),
``vllm`` (offline ``vllm.LLM``), ``openai`` (any OpenAI-compatible server),
and the tokenizers that cut documents to a token budget (``tokenize``).

What other packages use is exported here (:func:`authbench.lazy_exports`)."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "base": ("Engine", "PerplexityResult", "Request", "Response", "create_engine", "prefix_order"),
    "tokenize": ("load_tokenizer", "truncate"),
})
