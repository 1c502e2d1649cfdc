"""What a model job sends to its engine at once, as the plan sees it
(:class:`Batch`): how many requests, which of them are the same prompt,
the order the engine sends them in, and the prompt of any one of them.

Two kinds: :class:`PromptBatch` holds its prompts (RAGAuth, the
self-preference steps); :class:`ItemBatch` holds an AuthorityBench cell's
calls (which items of which instance it shows, :func:`authbench.studies.
authority.requests.cell_calls`) and renders a prompt only when asked: the
paper grid's two million judge prompts are never all written out, only
the sampled ones (:mod:`authbench.plan.sample`).

Sending order: the engine sends a cell's prompts sorted
(:func:`authbench.llm.engines.base.prefix_order`). An :class:`ItemBatch`
sorts its calls by the values its template shows, in the order the template
shows them: the same order as the rendered prompts, except where one value
is a prefix of another and the template's next character sorts before the
longer value's (the two neighbours then swap, which moves a few tokens of
prefix reuse).
"""

from __future__ import annotations

import string
import copy
import itertools
from typing import Hashable, Mapping, Sequence

import numpy as np

from authbench.config import GenerateConfig
from authbench.llm.grammars import token_budget

_MASK = (1 << 64) - 1
_SERIAL = itertools.count()  # names each batch's shared cache (an id() may be reused once a batch is gone)


def _new_cache() -> dict:
    return {"serial": next(_SERIAL)}


def _u64(values) -> np.ndarray:
    return np.fromiter((v & _MASK for v in values), dtype=np.uint64)


class Batch:
    """Requests sent together, decoded with ``generate``; ``constrained``: the
    config's switch (free-text steps: False); ``name``: what seeds its sample
    (the same requests, the same sample, under every model)."""

    generate: GenerateConfig
    constrained: bool
    name: str
    _cache: dict  # what does not depend on the sampling settings, shared by :meth:`using`'s copies

    def using(self, generate: GenerateConfig) -> "Batch":
        """The same requests decoded with ``generate`` (another model's), sharing what was computed."""
        out = copy.copy(self)
        out.generate = generate
        return out

    def __len__(self) -> int:
        raise NotImplementedError

    def identities(self) -> Sequence[Hashable]:
        """Per request: equal exactly when the prompts are equal."""
        raise NotImplementedError

    def prompt(self, i: int) -> str:
        raise NotImplementedError

    def outputs(self) -> Sequence[tuple[str, int]]:
        """Per request: reply format and list size."""
        raise NotImplementedError

    def _sort_keys(self) -> Sequence:
        raise NotImplementedError

    def output_counts(self, indices: np.ndarray) -> dict[tuple[str, int], int]:
        """How many of the requests ``indices`` have each reply format and list size."""
        from collections import Counter

        outputs = self.outputs()
        return dict(Counter(outputs[i] for i in indices.tolist()))

    def order(self) -> np.ndarray:
        """Request indices in sending order (computed once)."""
        if "order" not in self._cache:
            keys = self._sort_keys()
            self._cache["order"] = np.asarray(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)
            self._settle()
        return self._cache["order"]

    def hashes(self) -> np.ndarray:
        """Per request, a 64-bit hash of its identity (computed once)."""
        if "hashes" not in self._cache:
            self._cache["hashes"] = _u64(hash(x) for x in self.identities())
            self._settle()
        return self._cache["hashes"]

    def _settle(self) -> None:
        """Once the order and the hashes are known, the identities are not needed: free them."""
        if "order" in self._cache and "hashes" in self._cache:
            self._cache.pop("identities", None)

    def budgets(self) -> np.ndarray:
        """Per request, the tokens it may generate (:func:`authbench.llm.grammars.token_budget`)."""
        cap, memo = self.generate.max_tokens, {}
        key = ("budgets", cap, self.constrained)
        if key in self._cache:
            return self._cache[key]
        out = np.empty(len(self), dtype=np.int64)
        for i, (fmt, n) in enumerate(self.outputs()):
            if (fmt, n) not in memo:
                memo[(fmt, n)] = token_budget(fmt, n, self.constrained, cap)
            out[i] = memo[(fmt, n)]
        self._cache[key] = out
        return out

    def keys(self) -> np.ndarray:
        """What the response cache keys a request by, besides the model:
        prompt, token budget, sampling and constraint (64-bit hashes)."""
        salt = hash((tuple(sorted(self.generate.__dict__.items())), self.constrained)) & _MASK
        budgets = self.budgets().astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        return self.hashes() ^ budgets ^ np.uint64(salt)


class PromptBatch(Batch):
    """Requests given as ``(prompt, output format, n)``."""

    def __init__(self, requests: list[tuple[str, str, int]], generate: GenerateConfig, constrained: bool,
                 name: str = ""):
        self.requests, self.generate, self.constrained, self.name = requests, generate, constrained, name
        self._cache = _new_cache()

    def __len__(self) -> int:
        return len(self.requests)

    def identities(self) -> list[str]:
        return [p for p, _, _ in self.requests]

    def prompt(self, i: int) -> str:
        return self.requests[i][0]

    def outputs(self) -> list[tuple[str, int]]:
        return [(o, n) for _, o, n in self.requests]

    def _sort_keys(self) -> list[str]:
        return self.identities()


def template_fields(text: str) -> list[str]:
    """The placeholders of a ``str.format`` template, in order, each once."""
    return list(dict.fromkeys(f for _, f, _, _ in string.Formatter().parse(text) if f))


class ItemBatch(Batch):
    """An AuthorityBench cell's calls ``(request id, instance index, item
    positions)`` over ``instances``, rendered by ``template`` on demand."""

    def __init__(self, template, judge: str, instances: Sequence[Mapping], calls: list, generate: GenerateConfig,
                 constrained: bool, name: str):
        from authbench.studies.authority.judges import judge_of
        from authbench.studies.authority.sampling import item_key

        self.template, self.judge, self.instances, self.calls = template, judge_of(judge), instances, calls
        self.generate, self.constrained, self.name = generate, constrained, name
        self.format = self.judge.output
        self._key = item_key
        self._cache = _new_cache()

    def __len__(self) -> int:
        return len(self.calls)

    def _items(self, call) -> list[Mapping]:
        items = self.instances[call[1]]["items"]
        return [items[p] for p in call[2]]

    def _keys(self) -> list[list[str]]:
        """Per instance, the key of each item (computed once)."""
        if "item_keys" not in self._cache:
            self._cache["item_keys"] = [[self._key(it) for it in inst["items"]] for inst in self.instances]
        return self._cache["item_keys"]

    def identities(self) -> list[tuple]:
        if "identities" not in self._cache:
            keys, path = self._keys(), self.template.path
            self._cache["identities"] = [(path, *(keys[k][p] for p in positions)) for _, k, positions in self.calls]
        return self._cache["identities"]

    def prompt(self, i: int) -> str:
        call = self.calls[i]
        return self.judge.render(self.template, self.instances[call[1]]["items"], call[2])

    def outputs(self) -> list[tuple[str, int]]:
        return [(self.format, len(c[2])) for c in self.calls]

    def output_counts(self, indices: np.ndarray) -> dict[tuple[str, int], int]:
        if "sizes" not in self._cache:
            self._cache["sizes"] = np.fromiter((len(c[2]) for c in self.calls), dtype=np.int64, count=len(self.calls))
        sizes, counts = np.unique(self._cache["sizes"][indices], return_counts=True)
        return {(self.format, int(n)): int(c) for n, c in zip(sizes, counts)}

    def _shape(self) -> list[tuple[int | None, str]]:
        """``(item slot, field)`` in the order the prompt shows them: a pair
        template's ``domain_a`` is slot 0's ``domain``; a list's item line is
        repeated for every slot (None: every slot in turn)."""
        t = self.template
        if self.judge.shape == "point":
            return [(0, f) for f in template_fields(t.template)]
        if self.judge.shape == "list":
            return [(None, f) for f in template_fields(t.item) if f != "id"]
        out = []
        for f in template_fields(t.template):
            base, _, side = f.rpartition("_")
            out.append((0 if side == "a" else 1, base))
        return out

    def _sort_keys(self) -> list[tuple]:
        shape = self._shape()
        key_field = "domain" if self.template.benchmark == "domainauth" else "entity"
        firsts = {}
        for slot, f in shape:
            firsts.setdefault(slot, f)
        if all(f == key_field for f in firsts.values()):
            # each item shows its key first, and its other fields follow from the key: sort by keys alone
            if self.judge.shape == "list" or shape[0][0] in (None, 0):
                return self.identities()  # (template, keys in the order shown)
            keys = self._keys()
            return [tuple(keys[k][p] for p in reversed(positions)) for _, k, positions in self.calls]
        keys = []
        for c in self.calls:
            items = self._items(c)
            if self.judge.shape == "list":
                keys.append(tuple(str(it.get(f, "")) for it in items for _, f in shape))
            else:
                keys.append(tuple(str(items[slot].get(f, "")) for slot, f in shape))
        return keys
