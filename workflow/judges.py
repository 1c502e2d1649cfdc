"""Judges: instances -> engine requests -> raw responses -> parsed judgments.

One call of :func:`run_cell` is one cell (model x judge x context x setting).
Request ids name what was asked, so judgments can be joined back to instances:

* ``point``: one request per distinct item of the setting (``item:<key>``, the
  key being the domain or the entity name);
  lists and pairs are then ranked/compared by these scores.
* ``list_rank`` / ``list_score``: one request per list (``<instance_id>``).
* ``pair_rank`` / ``pair_score``: one request per comparison,
  ``<instance_id>:<a>-<b>`` where ``a`` is the list position shown as "A".
  Fine lists: each non-anchor vs every anchor plus every anchor pair (35 calls
  for 10 items and 5 anchors); coarse lists: every pair (10 calls for 5 items);
  the pairs setting: the pair as sampled. Which item sits in position A is a
  seeded coin flip per comparison, recorded in the id and the judgment.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
import time
from collections import Counter
from typing import Callable, Mapping, Sequence

from tqdm import tqdm

from .cache import ResponseCache, request_key
from .config import OUTPUT_FORMAT, GenerateConfig
from .engines.base import Engine, Request, Response, prefix_order
from .grammars import grammar_for, slots_for, token_budget
from .parse import parse_reply
from .prompts import PromptTemplate
from .sampling import item_key, rng


def _comparisons(inst: Mapping, setting: str) -> list[tuple[int, int]]:
    n = len(inst["items"])
    if setting == "pairs":
        return [(0, 1)]
    if setting == "coarse" or not inst.get("anchors"):
        return list(itertools.combinations(range(n), 2))
    anchors = inst["anchors"]
    others = [i for i in range(n) if i not in anchors]
    return [(x, a) for x in others for a in anchors] + list(itertools.combinations(anchors, 2))


def build_requests(
    judge: str, setting: str, instances: Sequence[Mapping], template: PromptTemplate, seed: int
) -> list[dict]:
    """Every request of a cell as a plain record (id, prompt, format, n, positions)."""
    fmt = OUTPUT_FORMAT[judge]
    out: list[dict] = []
    if judge == "point":
        seen = set()
        for inst in instances:
            for item in inst["items"]:
                key = item_key(item)
                if key in seen:
                    continue
                seen.add(key)
                out.append({"request_id": f"item:{key}", "output": fmt, "n": 1,
                            "prompt": template.render_point(item)})
    elif judge.startswith("list"):
        for inst in instances:
            out.append({"request_id": inst["instance_id"], "output": fmt, "n": len(inst["items"]),
                        "prompt": template.render_list(inst["items"])})
    else:
        for inst in instances:
            iid = inst["instance_id"]
            for i, j in _comparisons(inst, setting):
                a, b = (i, j)
                if setting != "pairs" and rng(seed, "position", iid, i, j).random() < 0.5:
                    a, b = j, i
                out.append({"request_id": f"{iid}:{a}-{b}", "output": fmt, "n": 2,
                            "prompt": template.render_pair(inst["items"][a], inst["items"][b])})
    return out


def engine_requests(requests: Sequence[Mapping], config: GenerateConfig, constrained: bool) -> list[Request]:
    return [
        Request(
            id=r["request_id"],
            prompt=r["prompt"],
            max_tokens=token_budget(r["output"], r["n"], constrained, config.max_tokens),
            grammar=grammar_for(r["output"], r["n"]) if constrained else None,
            slots=slots_for(r["output"], r["n"]) if constrained else None,
        )
        for r in requests
    ]


def run_cell(
    requests: Sequence[Mapping],
    engine: Engine | Callable[[], Engine],
    config: GenerateConfig,
    constrained: bool,
    order: str = "prefix",
    cache: ResponseCache | None = None,
    model: Mapping | None = None,
) -> tuple[list[Response], dict]:
    """Send every request through the engine; return responses in request order
    and what it took (cache hits, engine calls, engine identity, load time).

    With a ``cache`` (and the ``model`` identity of :func:`authbench.cache.model_identity`)
    cached requests are not sent, identical requests within the cell are sent
    once, and every response is stored the moment it arrives, so a killed job
    loses at most the request in flight. ``engine`` may be a factory: it is
    called (the model loaded) only if something is not cached.
    """
    reqs = engine_requests(requests, config, constrained)
    keys = [
        request_key(model or {}, config, r.prompt, r.max_tokens, r.grammar, r.slots) if cache is not None else r.id
        for r in reqs
    ]
    records: dict[str, dict] = cache.get_many(keys) if cache is not None else {}
    cached_keys = set(records)
    todo_first = {}
    for i, key in enumerate(keys):
        if key not in records and key not in todo_first:
            todo_first[key] = i
    todo = [reqs[i] for i in todo_first.values()]
    stats = {"n_requests": len(reqs), "unique_requests": len(set(keys)), "cache_hits": len(cached_keys),
             "engine_calls": len(todo), "engine": None, "model_load_seconds": 0.0}
    if todo:
        start = time.perf_counter()
        live = engine() if callable(engine) and not isinstance(engine, Engine) else engine
        stats["model_load_seconds"] = round(time.perf_counter() - start, 3)
        stats["engine"] = live.identity()
        key_of = {r.id: k for r, k in zip(todo, todo_first)}
        idx = prefix_order(todo) if order == "prefix" else list(range(len(todo)))
        try:
            stream = live.generate([todo[i] for i in idx], config)
            for resp in tqdm(stream, total=len(todo), file=sys.stderr, desc="judge", mininterval=2.0):
                rec = {"text": resp.text, "prompt_tokens": resp.prompt_tokens,
                       "completion_tokens": resp.completion_tokens, "seconds": round(resp.seconds, 4),
                       "finish_reason": resp.finish_reason, "engine": stats["engine"]}
                records[key_of[resp.id]] = rec
                if cache is not None:
                    cache.put(key_of[resp.id], rec)
        finally:
            if live is not engine:
                live.close()
    responses = [
        Response(id=r.id, text=records[k]["text"], prompt_tokens=records[k]["prompt_tokens"],
                 completion_tokens=records[k]["completion_tokens"], seconds=records[k]["seconds"],
                 finish_reason=records[k]["finish_reason"])
        for r, k in zip(reqs, keys)
    ]
    stats["engines_used"] = sorted({_canonical_engine(records[k].get("engine")) for k in set(keys)})
    stats["engine_seconds_new"] = round(sum(records[k]["seconds"] for k in todo_first), 3)
    return responses, stats


def _canonical_engine(identity: Mapping | None) -> str:
    return json.dumps(identity or {}, sort_keys=True)


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def parse_responses(requests: Sequence[Mapping], responses: Sequence[Response]) -> list[dict]:
    """One judgment row per request: parsed value, status, detail."""
    rows = []
    for req, resp in zip(requests, responses):
        result = parse_reply(req["output"], resp.text, req["n"] if req["output"] in ("ranking", "list_scores", "utility") else None)
        value = result.value
        if isinstance(value, dict):
            value = {str(k): v for k, v in value.items()}
        rows.append({"request_id": req["request_id"], "value": value, "status": result.status, "detail": result.detail})
    return rows


def response_rows(requests: Sequence[Mapping], responses: Sequence[Response]) -> list[dict]:
    """The raw replies of a cell. Deterministic: timings and cache hits are in
    the manifest, so a resumed or cached run writes the same bytes."""
    return [
        {
            "request_id": resp.id,
            "prompt_sha256": prompt_hash(req["prompt"]),
            "text": resp.text,
            "prompt_tokens": resp.prompt_tokens,
            "completion_tokens": resp.completion_tokens,
            "finish_reason": resp.finish_reason,
        }
        for req, resp in zip(requests, responses)
    ]


def cell_summary(judgments: Sequence[Mapping], responses: Sequence[Response]) -> dict:
    status = Counter(j["status"] for j in judgments)
    n = len(judgments)
    return {
        "n_calls": n,
        "parse_status": dict(sorted(status.items())),
        "parse_failure_rate": (n - status.get("ok", 0)) / n if n else 0.0,
        "prompt_tokens": sum(r.prompt_tokens for r in responses),
        "completion_tokens": sum(r.completion_tokens for r in responses),
        "engine_seconds": round(sum(r.seconds for r in responses), 3),
    }
