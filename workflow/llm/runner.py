"""Asking a model: requests -> response cache -> engine -> responses,
judgments and a manifest. Every study's model cells and the perplexity
scorer go through :func:`run_cached`; one cache-key recipe
(:func:`authbench.llm.cache.content_key`) keys them all.

Perplexity (the self-preference study's Table 1) goes through the same loop:
:func:`score_texts`. What exactly an engine scores (BOS, first token, texts
longer than the context, the empty text) is each engine's ``perplexity``
method's business; see :class:`authbench.llm.engines.base.PerplexityResult`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import time
from typing import Any, Callable, Iterable, Mapping, Sequence

from authbench.config import GenerateConfig, model_spec
from authbench.errors import EngineError
from authbench.llm import expected
from authbench.llm.cache import ResponseCache, model_identity, perplexity_key, request_key
from authbench.llm.engines.base import Engine, PerplexityResult, Request, Response, create_engine, prefix_order
from authbench.llm.grammars import grammar_for, slots_for, token_budget
from authbench.llm.parse import parse_reply
from authbench.llm.runs import Run, RunStats

log = logging.getLogger("authbench")

# a model job's progress line in its log: at least this often (and when it ends)
PROGRESS_SECONDS = 20.0


class Progress:
    """A model job's progress in its log: requests done of total, tokens/s
    and the estimated time left, every :data:`PROGRESS_SECONDS` and at the end
    (one line each: a log file, not a terminal)."""

    def __init__(self, desc: str, total: int, every: float = PROGRESS_SECONDS, clock=time.perf_counter):
        self.desc, self.total, self.every, self.clock = desc, total, every, clock
        self.start = self.last = clock()
        self.done = self.tokens = 0

    def line(self) -> str:
        elapsed = max(self.clock() - self.start, 1e-9)
        left = elapsed / self.done * (self.total - self.done) if self.done else float("nan")
        eta = "" if self.done == self.total else (
            f", about {_duration(left)} left" if self.done else ", time left not known yet")
        return (f"{self.desc}: {self.done}/{self.total} requests, {self.tokens / elapsed:,.0f} tokens/s"
                f" over {_duration(elapsed)}{eta}")

    def step(self, record: Mapping) -> None:
        self.done += 1
        self.tokens += int(record.get("prompt_tokens") or record.get("tokens") or 0) + int(
            record.get("completion_tokens") or 0)
        now = self.clock()
        if now - self.last >= self.every or self.done == self.total:
            self.last = now
            log.info(self.line())


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def engine_requests(requests: Sequence[Mapping], config: GenerateConfig, constrained: bool,
                    expected_scores: bool = False) -> list[Request]:
    """The engine's requests; with ``expected_scores`` those of a score format
    (:data:`authbench.llm.expected.SCORE_FORMATS`) ask for score distributions."""
    return [
        Request(
            id=r["request_id"],
            prompt=r["prompt"],
            max_tokens=token_budget(r["output"], r["n"], constrained, config.max_tokens),
            grammar=grammar_for(r["output"], r["n"]) if constrained else None,
            slots=slots_for(r["output"], r["n"]) if constrained else None,
            output=r["output"],
            n=r["n"],
            score_probs=bool(expected_scores) and expected.wants(r["output"]),
        )
        for r in requests
    ]


def run_cached(
    keys: Sequence[str],
    items: Sequence[Any],
    engine: Engine | Callable[[], Engine],
    compute: Callable[[Engine, dict[str, Any], dict], Iterable[tuple[str, dict]]],
    cache: ResponseCache | None = None,
    desc: str = "judge",
    accept: Callable[[str, dict], bool] | None = None,
) -> tuple[dict[str, dict], RunStats]:
    """The one cache-then-engine loop under every model cell.

    ``keys[i]`` keys ``items[i]``. Keys found in the ``cache`` are not
    computed; of the rest each distinct key is computed once (its first item).
    ``compute(engine, todo, identity)`` gets the live engine, ``{key: item}``
    of what is missing and the engine's identity, and yields ``(key, record)``
    as results arrive; each record is stored the moment it arrives, so a
    killed job loses at most what was in flight. ``engine`` may be a factory:
    it is called (the model loaded) only if something is missing, and closed
    after. Every record has the engine's ``seconds`` and identity
    (``engine``). Returns every key's record and the
    :class:`~authbench.llm.runs.RunStats` of the run. ``accept(key, record)``
    refuses cached records that lack something the request needs (see
    :meth:`authbench.llm.cache.ResponseCache.get_many`): those keys are
    computed again and counted in ``recomputed``. The stats' ``cached`` says,
    per key of ``keys``, whether it was a cache hit.
    """
    records: dict[str, dict] = cache.get_many(keys, accept) if cache is not None else {}
    refused = len(cache.refused) if cache is not None else 0
    hit = set(records)
    todo: dict[str, Any] = {}
    for key, item in zip(keys, items):
        if key not in records and key not in todo:
            todo[key] = item
    identity, load_seconds, served = None, 0.0, ()
    if todo:
        start = time.perf_counter()
        made = callable(engine) and not isinstance(engine, Engine)
        live = engine() if made else engine
        load_seconds = round(time.perf_counter() - start, 3)
        identity = live.identity()
        if cache is not None:  # one write + fsync per engine chunk
            cache.batch = max(1, int(getattr(live, "cache_batch", 1)))
        try:
            progress = Progress(desc, len(todo))
            log.info("%s: %d of %d requests to compute (%d from the cache); model loaded in %.1f s", desc,
                     len(todo), len(keys), len(hit), load_seconds)
            for key, rec in compute(live, todo, identity):
                progress.step(rec)
                records[key] = rec
                if cache is not None:
                    cache.put(key, rec)
        finally:
            served = tuple(sorted(getattr(live, "served", ())))  # an OpenAI-compatible server's own words
            if cache is not None:
                cache.close()
            if made:
                live.close()
        missing = [k for k in todo if k not in records]
        if missing:
            raise RuntimeError(f"engine {identity.get('engine')!r} returned no result for "
                               f"{len(missing)} of {len(todo)} {desc} requests")
    return records, RunStats(
        requests=len(keys), unique=len(set(keys)), cache_hits=len(hit), engine_calls=len(todo),
        engine_seconds=round(sum((records[k]["seconds"] for k in todo), 0.0), 3), load_seconds=load_seconds,
        cache_problems=dict(sorted(cache.problems.items())) if cache is not None else {},
        recomputed=refused if accept is not None else None, engine=identity,
        engines_used=tuple(sorted({json.dumps(records[k].get("engine") or {}, sort_keys=True) for k in set(keys)})),
        served=served, cached=tuple(k in hit for k in keys))


def generate_replies(
    requests: Sequence[Mapping],
    engine: Engine | Callable[[], Engine],
    config: GenerateConfig,
    constrained: bool,
    order: str = "prefix",
    cache: ResponseCache | None = None,
    model: Mapping | None = None,
    expected_scores: bool = False,
    desc: str = "judge",
) -> tuple[list[Response], RunStats]:
    """Send every request through the engine; return responses in request order
    and what it took (:class:`~authbench.llm.runs.RunStats`).

    ``expected_scores``: requests of a score format also ask for each score
    slot's distribution (:mod:`authbench.llm.expected`); it is stored in the
    record (``score_probs``, filled with ``engine_gives_none`` where the engine
    has none) and returned in ``Response.score_probs``. Keys are unchanged; a
    cached record without distributions is computed again for such a request
    (``recomputed_for_score_probs``).

    With a ``cache`` (and the ``model`` identity of :func:`authbench.llm.cache.model_identity`)
    cached requests are not sent, identical requests within the cell are sent
    once, and every response is stored the moment it arrives (:func:`run_cached`).
    Missing requests go to the engine in prefix order (``order="prefix"``).
    """
    reqs = engine_requests(requests, config, constrained, expected_scores)
    # the key does not say whether score distributions were asked for (they do not
    # change the reply): a request that asks takes only a record that has them
    keys = [
        request_key(model or {}, config, r.prompt, r.max_tokens, r.grammar, r.slots) if cache is not None else r.id
        for r in reqs
    ]
    needs = {k for r, k in zip(reqs, keys) if r.score_probs}

    def compute(live: Engine, todo: dict[str, Request], identity: dict):
        key_of = {req.id: key for key, req in todo.items()}
        by_id = {req.id: req for req in todo.values()}
        pending = list(todo.values())
        idx = prefix_order(pending) if order == "prefix" else list(range(len(pending)))
        for resp in live.generate([pending[i] for i in idx], config):
            req = by_id[resp.id]
            # output, n, constrained: what the plan reads measured reply lengths by (not part of the key)
            rec = {"text": resp.text, "prompt_tokens": resp.prompt_tokens,
                   "completion_tokens": resp.completion_tokens, "seconds": round(resp.seconds, 4),
                   "finish_reason": resp.finish_reason, "engine": identity, "output": req.output, "n": req.n,
                   "constrained": req.grammar is not None or req.slots is not None}
            if resp.cached_tokens is not None:  # the engine's prefix cache (the plan's reuse estimate checks on it)
                rec["cached_tokens"] = resp.cached_tokens
            if req.score_probs:
                rec["score_probs"] = (resp.score_probs if resp.score_probs is not None
                                      else expected.unavailable(req.output, req.n, "engine_gives_none"))
            yield key_of[resp.id], rec

    records, stats = run_cached(keys, reqs, engine, compute, cache, desc=desc,
                                accept=(lambda key, rec: key not in needs or "score_probs" in rec) if needs else None)
    responses = [
        Response(id=r.id, text=records[k]["text"], prompt_tokens=records[k]["prompt_tokens"],
                 completion_tokens=records[k]["completion_tokens"], seconds=records[k]["seconds"],
                 finish_reason=records[k]["finish_reason"],
                 score_probs=records[k]["score_probs"] if r.score_probs else None,
                 cached_tokens=records[k].get("cached_tokens"))
        for r, k in zip(reqs, keys)
    ]
    return responses, stats


def parse_responses(requests: Sequence[Mapping], responses: Sequence[Response]) -> list[dict]:
    """One judgment row per request: parsed value, status, detail; with score
    distributions also ``expected`` (E[s], the shape of ``value``) and
    ``expected_fallback`` (slot -> why E[s] is the argmax there)."""
    rows = []
    for req, resp in zip(requests, responses):
        result = parse_reply(req["output"], resp.text, req["n"])  # n: read by the list formats only
        value = result.value
        if isinstance(value, dict):
            value = {str(k): v for k, v in value.items()}
        row = {"request_id": req["request_id"], "value": value, "status": result.status, "detail": result.detail}
        if resp.score_probs is not None:  # E[s] beside the argmax (authbench.llm.expected)
            row["expected"], row["expected_fallback"] = expected.expected_judgment(req["output"], value,
                                                                                   resp.score_probs)
        rows.append(row)
    return rows


# --- one batch of a model's requests, from its config ------------------------------------


def run_requests(requests: Sequence[Mapping], model_config: Mapping, model_file: str | None, cell: str, *,
                 cache_dir: str | None, constrained: bool, threads: int | None = None,
                 generate: Mapping | None = None,
                 engine_config: Mapping | None = None,
                 expected_scores: bool = False) -> Run:
    """Send requests through the response cache and (only for what is
    missing) the configured engine; ``cell`` names them in the log, the
    errors and the cache's shard files. Returns the :class:`~authbench.llm.runs.Run`:
    the model identity, the sampling config (the model's ``generate``
    overlaid with this step's ``generate``), the requests, responses and run
    stats. ``engine_config`` builds the engine instead of ``model_config`` (a
    model served by :mod:`authbench.llm.serve`); the cache key stays
    ``model_config``'s. ``expected_scores``: see :func:`generate_replies`."""
    if threads:
        model_config = {**model_config, "threads": int(threads)}
    gen = GenerateConfig().merge(model_config.get("generate")).merge(generate)
    log.info("cell %s: %d requests", cell, len(requests))
    model = model_identity(model_config)
    cache = ResponseCache(cache_dir, writer=cell) if cache_dir else None
    try:
        responses, stats = generate_replies(requests, lambda: create_engine(engine_config or model_config, model_file),
                                            gen, constrained, cache=cache, model=model,
                                            expected_scores=expected_scores, desc=cell)
    except EngineError as err:  # name the cell: the engine knows the model and the request only
        raise type(err)(f"cell {cell}: {err}") from None
    return Run(model, stats, engine=model_config["engine"], generate=gen, constrained=constrained,
                requests=list(requests), responses=responses)


# --- perplexity -------------------------------------------------------------------

def perplexity_identity(model_config: Mapping[str, Any]) -> dict:
    """What identifies a model's perplexity scores, from its config alone:
    :func:`authbench.llm.cache.model_identity` without the prompt format and
    the slot decoding (raw text is scored, no template and no constraint) and,
    for the embedded engine, with its context length (a text longer than
    ``n_ctx`` is scored only up to it)."""
    ident = {k: v for k, v in model_identity(model_config).items() if k not in ("prompt_format", "constrain_with")}
    if model_config.get("engine", "llamacpp") == "llamacpp":
        ident["n_ctx"] = int(model_spec(model_config)["n_ctx"])  # the schema's default when unset
    return ident


def _perplexity_record(result: PerplexityResult, engine: Mapping | None) -> dict:
    # perplexity is derived (it would be NaN, not JSON, for the empty text)
    return {"tokens": result.tokens, "nll": result.nll, "truncated_tokens": result.truncated_tokens,
            "seconds": round(result.seconds, 4), "engine": engine}


def _perplexity_row(item_id: Any, rec: Mapping) -> dict:
    tokens, nll = int(rec["tokens"]), float(rec["nll"])
    return {"id": item_id, "tokens": tokens, "nll": nll,
            "perplexity": math.exp(nll / tokens) if tokens > 0 else math.nan,
            "truncated_tokens": int(rec.get("truncated_tokens", 0))}


def score_texts(
    items: Sequence[Mapping[str, Any]],
    engine_factory: Engine | Callable[[], Engine],
    model_identity: Mapping[str, Any] | None = None,
    cache: ResponseCache | None = None,
) -> tuple[list[dict], RunStats]:
    """Score every ``{"id", "text"}`` item through :func:`run_cached`; return
    one row per item, in item order (``id, tokens, nll, perplexity,
    truncated_tokens``: deterministic, no timings) and what it took.

    ``model_identity`` (see :func:`perplexity_identity`) keys the cache
    (:func:`authbench.llm.cache.perplexity_key`); it is required with a cache.
    Stats (:class:`~authbench.llm.runs.RunStats`): ``requests`` (items),
    ``unique`` texts, ``cache_hits`` and ``engine_calls`` (unique texts found
    / scored now), ``engine_seconds`` (the engine's time for the texts scored
    now), ``load_seconds``, ``engine`` (identity of the engine used now, or
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

    def compute(live: Engine, todo: dict[str, str], identity: dict):
        todo_keys = list(todo)
        for result in live.perplexity(list(todo.values())):
            yield todo_keys[result.text_index], _perplexity_record(result, identity)

    records, stats = run_cached(keys, texts, engine_factory, compute, cache, desc="perplexity")
    rows = [_perplexity_row(item["id"], records[key]) for item, key in zip(items, keys)]
    return rows, dataclasses.replace(stats, truncated_texts=sum(r["truncated_tokens"] > 0 for r in rows))
