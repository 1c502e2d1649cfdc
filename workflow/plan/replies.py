"""How long the replies will be, and how often a reply is asked again
(:class:`Replies`).

A request's completion is estimated, per model and reply kind (the job's
step and the reply format, with its list size), from the first of:

1. **grammar**: a reply constrained to its format is at most the format's
   full reply (:func:`authbench.llm.grammars.max_tokens_for`), the grammar's
   own bound;
2. **measured**: the model's own replies of that kind in the response cache
   (:func:`authbench.llm.cache.stored_replies`; each shard names the cell
   that wrote it): their mean and 95th percentile;
3. **released**: replies a paper's authors released, which a study offers
   for a job kind (:attr:`authbench.studies.registry.Study.plan_released`;
   the self-preference study: GPT-3.5's knowledge answers, the proxy of
   every model's knowledge probes, and its passages, the proxy of every
   passage writer), counted with the model's counter;
4. **proxy**: other models' replies of the same kind and decoding in the
   cache (e.g. the embedded chat model's, under the same prompt template);
5. **format**: with free decoding, a well-formed reply (the format's full
   reply, as constrained); free text: the cap (``generate.max_tokens``).

Every estimate is cut to the request's budget, and the plan names its
source per model and kind (``plan.md``, "Reply lengths").

Retries (a job's :attr:`~authbench.cells.planned.PlanJob.retries`, e.g.
``selfpref.rerank.retries``): a reply that does not settle is asked again,
up to ``retries`` more times.
With a first-try failure rate ``f`` the expected tries are
``1 + f + f^2 + ... + f^retries`` (:func:`expected_tries`: each try fails
independently at the same rate). ``f`` is known where the model's own
replies of that step are in the cache (a reply of a parsed format that
does not parse, e.g. a reranking reply without a well-formed ``###<1-5>***``
score) or in the cells' manifests of an earlier run, which count the tries
each reply used (free-text steps, e.g. comparisons); elsewhere the plan
counts one try and says how many more may come.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from authbench.llm.formats import FORMATS
from authbench.llm.grammars import max_tokens_for
from authbench.paths import split_cell_id

PER_SHARD = 5000  # records read of one cache shard (a paper run's shards hold many more)
RELEASED_SAMPLE = 500  # released texts counted (a seeded sample of the ~10,000)


@dataclass(frozen=True)
class Length:
    """A reply kind's estimated completion tokens: ``mean`` and ``p95`` per
    request, ``source`` (which rule of the module docstring, and what), ``n``
    replies behind a measurement."""

    mean: float
    p95: float
    source: str
    n: int = 0

    def capped(self, budget: int) -> "Length":
        return Length(min(self.mean, budget), min(self.p95, budget), self.source, self.n)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation between order statistics (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    pos = (len(ordered) - 1) * q
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summarise(values: list[float], source: str) -> Length:
    return Length(sum(values) / len(values), percentile(values, 0.95), source, len(values))


def expected_tries(failure: float, retries: int) -> float:
    """``1 + f + ... + f^retries``: the expected tries of a request that is
    asked again while it fails, each try failing with probability ``f``."""
    if retries <= 0:
        return 1.0
    if failure >= 1:
        return float(retries + 1)
    return (1 - failure ** (retries + 1)) / (1 - failure)


def cell_step(cell: str, dataset_level: Iterable[str] | None = None) -> str | None:
    """The job kind of the cell that wrote a cache shard (:attr:`authbench.cells.planned.PlanJob.kind`:
    the cell id's first part after the model, e.g. a judge's name, ``rerank``, ``generation``);
    ``dataset_level``: :func:`authbench.studies.registry.dataset_level` (None: of the registered studies)."""
    if dataset_level is None:
        from authbench.studies.registry import dataset_level as registered

        dataset_level = registered()
    _, _, parts = split_cell_id(cell, dataset_level)
    return parts[0] if parts else None


class Replies:
    """Reply lengths and first-try failure rates of a config's models
    (module docstring). ``counters``: per model, what counts a released
    text's tokens (the plan's counter)."""

    def __init__(self, config: Mapping[str, Any], counters: Mapping[str, Any]):
        from authbench.config import split_model
        from authbench.studies.registry import dataset_level

        self.config, self.counters = config, counters
        self._levels = dataset_level(config)  # the studies whose cell ids carry a dataset
        self._measured: dict[tuple, list[float]] = defaultdict(list)  # (model, step, fmt, n, constrained) -> tokens
        self._failed: dict[tuple, list[bool]] = defaultdict(list)  # (model, step) -> settled? per reply
        self._split = split_model
        self._released: dict[tuple, Length] = {}
        self._texts: dict[str, tuple[str, list[str]]] = {}
        if config.get("cache"):
            self._read_cache(config["cache"])

    # --- what exists ---------------------------------------------------------
    def _read_cache(self, root: str) -> None:
        from authbench.llm.cache import stored_replies
        from authbench.llm.parse import parse_reply

        for writer, rec in stored_replies(root, PER_SHARD):
            if not writer or "output" not in rec or "completion_tokens" not in rec:
                continue
            _, model, _ = split_cell_id(writer, self._levels)
            step = cell_step(writer, self._levels)
            if not model or step is None:
                continue
            model = self._split(model)[0]
            fmt, n, constrained = rec["output"], rec.get("n"), bool(rec.get("constrained"))
            self._measured[(model, step, fmt, n, constrained)].append(float(rec["completion_tokens"]))
            if fmt in FORMATS and FORMATS[fmt].parse is not None:
                self._failed[(model, step)].append(parse_reply(fmt, rec.get("text") or "", n).status != "ok")

    def read_manifests(self, manifests: Iterable[Mapping]) -> None:
        """First-try failures of retried steps from earlier runs' cell manifests (their ``tries`` record)."""
        for m in manifests:
            tries = m.get("tries") if isinstance(m, Mapping) else None
            cell = str(m.get("cell", "")) if isinstance(m, Mapping) else ""
            if not isinstance(tries, Mapping) or not cell:
                continue
            _, model, _ = split_cell_id(cell, self._levels)
            step = cell_step(cell, self._levels)
            used = {int(k): int(v) for k, v in (tries.get("tries_used") or {}).items()}
            total = sum(used.values())
            if step and model and total and (self._split(model)[0], step) not in self._failed:
                once = used.get(1, 0)
                self._failed[(self._split(model)[0], step)] = [True] * (total - once) + [False] * once

    def _released_lengths(self, model: str, step: str) -> Length | None:
        """Released replies of ``step`` (each study's offer), counted with ``model``'s counter."""
        key = (model, step)
        if key not in self._released:
            if step not in self._texts:  # a seeded sample: the mean and p95 of a few hundred are close enough
                from authbench.studies.registry import active

                what, texts = "", []
                for study in active(self.config):
                    if study.plan_released is not None:
                        label, found = study.plan_released(self.config, step)
                        if found:
                            what, texts = what or label, texts + list(found)
                sample = random.Random(13).sample(texts, RELEASED_SAMPLE) if len(texts) > RELEASED_SAMPLE else texts
                self._texts[step] = (what, sample)
            what, texts = self._texts[step]
            counter = self.counters.get(model)
            if not texts or counter is None:
                self._released[key] = None
            else:
                lengths = [float(len(counter.tokenizer.encode(t))) for t in texts]
                self._released[key] = summarise(lengths, f"released: {what} ({len(texts):,} counted)")
        return self._released[key]

    # --- estimates -----------------------------------------------------------
    def length(self, model: str, step: str, fmt: str, n: int | None, constrained: bool, cap: int) -> Length:
        """Estimated completion tokens of one request (module docstring), not yet cut to its budget."""
        has_grammar = fmt in FORMATS and FORMATS[fmt].grammar is not None
        if constrained and has_grammar:
            full = float(max_tokens_for(fmt, n))
            return Length(full, full, "grammar: the format's full reply")
        own = self._measured.get((model, step, fmt, n, constrained))
        if own:
            return summarise(own, f"measured: its own replies ({len(own):,})")
        released = self._released_lengths(model, step)
        if released is not None:
            return released
        others = sorted(m for (m, s, f, k, c), v in self._measured.items()
                        if v and m != model and (s, f, k, c) == (step, fmt, n, constrained))
        if others:
            values = [x for m in others for x in self._measured[(m, step, fmt, n, constrained)]]
            return summarise(values, f"proxy: {', '.join(others)}'s replies ({len(values):,})")
        if has_grammar:
            full = float(max_tokens_for(fmt, n))
            return Length(full, full, "format: a well-formed reply (nothing measured)")
        return Length(float(cap), float(cap), "cap: generate.max_tokens (nothing measured)")

    def failure(self, model: str, step: str) -> tuple[float, str] | None:
        """The first-try failure rate of a retried step, and its source; None: not known."""
        seen = self._failed.get((model, step))
        if not seen:
            return None
        return sum(seen) / len(seen), f"{sum(seen):,} of {len(seen):,} first replies did not settle"
