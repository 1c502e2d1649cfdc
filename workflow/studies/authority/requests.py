"""AuthorityBench judge requests: sampled instances -> one request per call.

One cell (model x judge x context x setting) asks these requests through
:func:`authbench.llm.runner.run_cell`. Request ids name what was asked, so judgments can be joined back to instances:

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

import itertools
from typing import Mapping, Sequence

from authbench.judges import OUTPUT_FORMAT
from authbench.seeding import rng
from authbench.studies.authority.prompts import PromptTemplate
from authbench.studies.authority.sampling import item_key


def _comparisons(inst: Mapping, setting: str) -> list[tuple[int, int]]:
    n = len(inst["items"])
    if setting == "pairs":
        return [(0, 1)]
    if setting == "coarse" or not inst.get("anchors"):
        return list(itertools.combinations(range(n), 2))
    anchors = inst["anchors"]
    others = [i for i in range(n) if i not in anchors]
    return [(x, a) for x in others for a in anchors] + list(itertools.combinations(anchors, 2))


def cell_calls(judge: str, setting: str, instances: Sequence[Mapping], seed: int,
               flips: dict | None = None) -> list[tuple[str, int, tuple[int, ...]]]:
    """Every request of a cell as ``(request id, instance index, positions
    of the items shown, in order)``, before any prompt is rendered.
    ``flips``: a memo of the position coin flips (keyed by instance id and
    pair), for a caller that lists several cells of the same instances."""
    out: list[tuple[str, int, tuple[int, ...]]] = []
    if judge == "point":
        seen = set()
        for k, inst in enumerate(instances):
            for p, item in enumerate(inst["items"]):
                key = item_key(item)
                if key in seen:
                    continue
                seen.add(key)
                out.append((f"item:{key}", k, (p,)))
    elif judge.startswith("list"):
        for k, inst in enumerate(instances):
            out.append((inst["instance_id"], k, tuple(range(len(inst["items"])))))
    else:
        for k, inst in enumerate(instances):
            iid = inst["instance_id"]
            for i, j in _comparisons(inst, setting):
                a, b = (i, j)
                if setting != "pairs" and _flipped(seed, iid, i, j, flips):
                    a, b = j, i
                out.append((f"{iid}:{a}-{b}", k, (a, b)))
    return out


def position_flip(seed: int, iid: str, i: int, j: int) -> bool:
    """The seeded coin flip that shows item ``j`` of a comparison in position A."""
    return rng(seed, "position", iid, i, j).random() < 0.5


def flip_keys(setting: str, instances: Sequence[Mapping]) -> list[tuple[str, int, int]]:
    """The ``(instance id, i, j)`` of every comparison of a pair cell that is
    flipped by a coin (:func:`position_flip`): :func:`cell_calls`'s memo keys."""
    if setting == "pairs":
        return []
    return [(inst["instance_id"], i, j) for inst in instances for i, j in _comparisons(inst, setting)]


def _flipped(seed: int, iid: str, i: int, j: int, memo: dict | None) -> bool:
    """The seeded coin flip that puts item ``j`` of the pair in position A."""
    if memo is None:
        return position_flip(seed, iid, i, j)
    key = (iid, i, j)
    flip = memo.get(key)
    if flip is None:
        flip = memo[key] = position_flip(seed, iid, i, j)
    return flip


def render_call(template: PromptTemplate, judge: str, items: Sequence[Mapping], positions: Sequence[int]) -> str:
    """The prompt of one call of :func:`cell_calls` (the items of its instance, the positions it shows)."""
    if judge == "point":
        return template.render_point(items[positions[0]])
    if judge.startswith("list"):
        return template.render_list([items[p] for p in positions])
    return template.render_pair(items[positions[0]], items[positions[1]])


def build_requests(
    judge: str, setting: str, instances: Sequence[Mapping], template: PromptTemplate, seed: int
) -> list[dict]:
    """Every request of a cell as a plain record (id, prompt, format, n, positions)."""
    fmt = OUTPUT_FORMAT[judge]
    return [{"request_id": rid, "output": fmt, "n": len(positions),
             "prompt": render_call(template, judge, instances[k]["items"], positions)}
            for rid, k, positions in cell_calls(judge, setting, instances, seed)]
