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
