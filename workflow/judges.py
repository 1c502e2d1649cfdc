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
import sys
from collections import Counter
from typing import Mapping, Sequence

from tqdm import tqdm

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


def run_cell(
    requests: Sequence[Mapping],
    engine: Engine,
    config: GenerateConfig,
    constrained: bool,
    order: str = "prefix",
) -> list[Response]:
    """Send every request through the engine; return responses in request order."""
    reqs = [
        Request(
            id=r["request_id"],
            prompt=r["prompt"],
            max_tokens=token_budget(r["output"], r["n"], constrained, config.max_tokens),
            grammar=grammar_for(r["output"], r["n"]) if constrained else None,
            slots=slots_for(r["output"], r["n"]) if constrained else None,
        )
        for r in requests
    ]
    idx = prefix_order(reqs) if order == "prefix" else list(range(len(reqs)))
    by_id: dict[str, Response] = {}
    stream = engine.generate([reqs[i] for i in idx], config)
    for resp in tqdm(stream, total=len(reqs), file=sys.stderr, desc="judge", mininterval=2.0):
        by_id[resp.id] = resp
    return [by_id[r.id] for r in reqs]


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def parse_responses(requests: Sequence[Mapping], responses: Sequence[Response]) -> list[dict]:
    """One judgment row per request: parsed value, status, detail."""
    rows = []
    for req, resp in zip(requests, responses):
        result = parse_reply(req["output"], resp.text, req["n"] if req["output"] in ("ranking", "list_scores") else None)
        value = result.value
        if isinstance(value, dict):
            value = {str(k): v for k, v in value.items()}
        rows.append({"request_id": req["request_id"], "value": value, "status": result.status, "detail": result.detail})
    return rows


def response_rows(requests: Sequence[Mapping], responses: Sequence[Response], engine_id: Mapping) -> list[dict]:
    return [
        {
            "request_id": resp.id,
            "prompt_sha256": prompt_hash(req["prompt"]),
            "text": resp.text,
            "prompt_tokens": resp.prompt_tokens,
            "completion_tokens": resp.completion_tokens,
            "seconds": round(resp.seconds, 4),
            "finish_reason": resp.finish_reason,
            "engine": engine_id.get("engine"),
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
