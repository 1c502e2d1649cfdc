"""Perplexity of texts under a causal LM, cached like judge responses.

The RAG self-preference paper (Section 3.2, Table 1) compares the perplexity
of human-written and model-written passages; it used GPT-2, we use the
configured model of an engine (by default the embedded Gemma 3 270M GGUF).
What exactly is scored (BOS, first token, texts longer than the context, the
empty text) is each engine's ``perplexity`` method's business; see
:class:`authbench.engines.base.PerplexityResult` and the engine modules.

:func:`score_texts` mirrors :func:`authbench.judges.run_cell`: with a
:class:`~authbench.cache.ResponseCache` a text already scored by the same model
is not scored again, identical texts are scored once, every result is stored
the moment it arrives, and the engine (the model loaded) is created only if
something is missing.

The cache key (:func:`perplexity_key`) is built here, in the spirit of
:func:`authbench.cache.request_key` but kept apart from it: SHA-256 of the
canonical JSON of ``{"v": cache.KEY_VERSION, "task": "perplexity", "model":
<identity>, "text": <text>}``. The ``task`` field means a perplexity entry can
never share a key with a generation entry in the same cache folder. The
identity is used exactly as given; :func:`perplexity_identity` is the one to
give: :func:`authbench.cache.model_identity` without the prompt format and the
slot decoding (raw text is scored, no template and no constraint) and, for the
embedded engine, with its context length (a text longer than ``n_ctx`` is
scored only up to it).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from typing import Any, Callable, Mapping, Sequence

from .cache import KEY_VERSION, ResponseCache
from .cache import model_identity as config_identity
from .engines.base import Engine, PerplexityResult


def perplexity_identity(model_config: Mapping[str, Any]) -> dict:
    """What identifies a model's perplexity scores, from its config alone."""
    ident = {k: v for k, v in config_identity(model_config).items() if k not in ("prompt_format", "constrain_with")}
    if model_config.get("engine", "llamacpp") == "llamacpp":
        ident["n_ctx"] = int(model_config.get("n_ctx", 2048))  # the engine's default
    return ident


def perplexity_key(model: Mapping[str, Any], text: str) -> str:
    payload = {"v": KEY_VERSION, "task": "perplexity", "model": dict(model), "text": text}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _record(result: PerplexityResult, engine: Mapping | None) -> dict:
    # perplexity is derived (it would be NaN, not JSON, for the empty text)
    return {"tokens": result.tokens, "nll": result.nll, "truncated_tokens": result.truncated_tokens,
            "seconds": round(result.seconds, 4), "engine": engine}


def _row(item_id: Any, rec: Mapping) -> dict:
    tokens, nll = int(rec["tokens"]), float(rec["nll"])
    return {"id": item_id, "tokens": tokens, "nll": nll,
            "perplexity": math.exp(nll / tokens) if tokens > 0 else math.nan,
            "truncated_tokens": int(rec.get("truncated_tokens", 0))}


def score_texts(
    items: Sequence[Mapping[str, Any]],
    engine_factory: Engine | Callable[[], Engine],
    model_identity: Mapping[str, Any] | None = None,
    cache: ResponseCache | None = None,
) -> tuple[list[dict], dict]:
    """Score every ``{"id", "text"}`` item; return one row per item, in item
    order (``id, tokens, nll, perplexity, truncated_tokens``: deterministic,
    no timings) and what it took.

    ``engine_factory`` is called (the model loaded) only if some text is not
    cached; an :class:`Engine` instance may be passed instead (it is then not
    closed). ``model_identity`` (see :func:`perplexity_identity`) keys the
    cache; it is required with a cache. Stats: ``n`` (items), ``unique_texts``,
    ``cache_hits`` and ``engine_calls`` (unique texts found / scored now),
    ``seconds`` (the engine's time for the texts scored now),
    ``model_load_seconds``, ``engine`` (identity of the engine used now, or
    None), ``truncated_texts`` (items not scored to their end).
    """
    texts = []
    for item in items:
        if not isinstance(item.get("text"), str) or "id" not in item:
            raise ValueError(f"every item needs an 'id' and a string 'text'; got keys {sorted(item)}")
        texts.append(item["text"])
    if cache is not None and model_identity is None:
        raise ValueError("score_texts needs the model identity to key the cache")
    keys = [perplexity_key(model_identity, t) if cache is not None else t for t in texts]
    records: dict[str, dict] = cache.get_many(keys) if cache is not None else {}
    hits = len(records)
    todo: dict[str, str] = {}  # key -> text, first occurrence order
    for key, text in zip(keys, texts):
        if key not in records and key not in todo:
            todo[key] = text
    stats = {"n": len(texts), "unique_texts": len(set(keys)), "cache_hits": hits, "engine_calls": len(todo),
             "seconds": 0.0, "model_load_seconds": 0.0, "engine": None}
    if todo:
        start = time.perf_counter()
        made = callable(engine_factory) and not isinstance(engine_factory, Engine)
        live = engine_factory() if made else engine_factory
        stats["model_load_seconds"] = round(time.perf_counter() - start, 3)
        stats["engine"] = live.identity()
        todo_keys = list(todo)
        try:
            for result in live.perplexity(list(todo.values())):
                rec = _record(result, stats["engine"])
                key = todo_keys[result.text_index]
                records[key] = rec
                stats["seconds"] += result.seconds
                if cache is not None:
                    cache.put(key, rec)
        finally:
            if made:
                live.close()
        missing = [k for k in todo_keys if k not in records]
        if missing:
            raise RuntimeError(f"engine {stats['engine'].get('engine')!r} returned no perplexity for "
                               f"{len(missing)} of {len(todo_keys)} texts")
        stats["seconds"] = round(stats["seconds"], 3)
    rows = [_row(item["id"], records[key]) for item, key in zip(items, keys)]
    stats["truncated_texts"] = sum(r["truncated_tokens"] > 0 for r in rows)
    return rows, stats
