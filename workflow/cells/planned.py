"""A model job before it runs, as the plan sees it (:class:`PlanJob`): its
study, model, cell and kind, and what it sends to its engine at once
(:class:`Batch`): how many requests, which of them are the same prompt, the
order the engine sends them in, and the prompt of any one of them. Each
study builds its own jobs (:attr:`authbench.studies.registry.Study.plan_jobs`,
given a :class:`PlanContext`); the plan (:mod:`authbench.plan`) counts them.

:class:`PromptBatch` holds its prompts; a study may render its prompts only
when asked (AuthorityBench's judge cells:
:class:`authbench.studies.authority.plan.ItemBatch`): the paper grid's two
million judge prompts are never all written out, only the sampled ones
(:mod:`authbench.plan.sample`). The engine sends a cell's prompts sorted
(:func:`authbench.llm.engines.base.prefix_order`).

Inputs that do not exist yet when the plan runs are estimated by their
study, which says so (:class:`Estimated`, ``plan.md``).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import multiprocessing
from typing import Any, Callable, Hashable, Mapping, Sequence

import numpy as np

from authbench.config import GenerateConfig
from authbench.llm.grammars import token_budget

_MASK = (1 << 64) - 1
_SERIAL = itertools.count()  # names each batch's shared cache (an id() may be reused once a batch is gone)


def new_cache() -> dict:
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
        self._cache = new_cache()

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


def prompt_batch(requests: Sequence[Mapping], generate: GenerateConfig, constrained: bool, name: str) -> PromptBatch:
    """A batch of request records (``prompt``, ``output``, ``n``), as the studies' request builders make them."""
    return PromptBatch([(r["prompt"], r["output"], r["n"]) for r in requests], generate, constrained, name)


def generate_of(spec: Mapping, step: Mapping | None = None) -> GenerateConfig:
    """A model's sampling settings (``models.<m>.generate``) overlaid with a step's."""
    return GenerateConfig().merge(spec.get("generate")).merge(step)


@dataclasses.dataclass
class PlanJob:
    """One model job: its study, configured model, cell id and kind, its
    batches; ``perplexity``: texts scored whole (no reply); ``notes``: what
    stands in for model-made inputs; ``group``: jobs of one group send the
    same requests (default: the cell alone); ``in_run``: False for a cell the
    run leaves out until its input exists (RAGAuth without its release);
    ``retries``: how often an unsettled reply is asked again (each
    request's expected tries: :func:`authbench.plan.replies.expected_tries`),
    ``retries_key``: the config key that sets them (named in ``plan.md``)."""

    study: str
    model: str
    cell: str
    kind: str
    batches: list[Batch]
    perplexity: bool = False
    notes: tuple[str, ...] = dataclasses.field(default_factory=tuple)
    group: str = ""
    in_run: bool = True
    retries: int = 0
    retries_key: str = ""

    def __post_init__(self):
        self.group = self.group or self.cell


@dataclasses.dataclass
class Estimated:
    """What the plan stood in for: ``notes`` (one sentence each, for
    ``plan.md``). A job the run leaves out (an input is absent, e.g.
    RAGAuth's release) says so itself (:attr:`PlanJob.in_run`)."""

    notes: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class PlanContext:
    """What a study's :attr:`~authbench.studies.registry.Study.plan_jobs` is
    given besides the config: the results ``layout``, ``exists`` (os.path.exists,
    or a stand-in), per model its plan ``tokenizers`` (what cuts documents to a
    token count), the :class:`Estimated` collector and the processes its heavy
    loops may use (``workers``, :func:`fork_map`)."""

    layout: Any
    exists: Callable[[str], bool]
    tokenizers: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    estimated: Estimated = dataclasses.field(default_factory=Estimated)
    workers: int = 1


# --- spreading heavy loops over the cores the plan was given ------------------------------------------
# Forked processes inherit the parent's memory (the prompts and the loaded vocabularies are never
# pickled, only the results); llama.cpp's tokenizer is not safe to share between threads, so
# processes, not threads.
_WORK: tuple | None = None  # (function, items) while a pool runs: what its forked workers read


def fork_map(fn: Callable[[Any], Any], items: Sequence, workers: int) -> list:
    """``[fn(x) for x in items]``, in ``workers`` forked processes (in this
    one when ``workers`` <= 1, the items are few or the platform cannot fork)."""
    global _WORK
    if workers <= 1 or len(items) < 64 * workers or "fork" not in multiprocessing.get_all_start_methods():
        return [fn(x) for x in items]
    _WORK = (fn, items)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_part, [(k, workers) for k in range(workers)])
    finally:
        _WORK = None
    out: list = [None] * len(items)
    for k, part in enumerate(parts):
        out[k::workers] = part
    return out


def _part(share: tuple[int, int]) -> list:
    k, n = share
    fn, items = _WORK
    return [fn(x) for x in items[k::n]]
