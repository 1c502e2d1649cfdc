"""What a batch of requests through the cache and an engine took
(:class:`RunStats`) and gave (:class:`Run`).

Every runner path (:func:`authbench.llm.runner.run_cached` and the
:func:`~authbench.llm.runner.generate_replies`, :func:`~authbench.llm.runner.run_requests`
and :func:`~authbench.llm.runner.score_texts` above it) reports a
:class:`RunStats`; batches of one cell (tries, retries) add with ``+``
(:func:`joined`). What a pipeline cell makes of a run (judgments, files,
manifest) is :mod:`authbench.cells`'.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from authbench.config import GenerateConfig
from authbench.llm.engines.base import Response


@dataclass(frozen=True)
class RunStats:
    """The cache and engine counts of one run of a cell (or of several
    batches of it, added with ``+``: counts and seconds summed, cache problems
    pooled, ``engine`` the first batch's that loaded one).

    ``engine_seconds`` is the engine's time for what was computed in THIS run
    (the manifest's ``engine_seconds`` is the cell's cost: every reply's
    seconds, cached or not; see :func:`authbench.cells.cell_summary`). ``recomputed``: cached
    records refused because they lack something the request needs (score
    distributions), None when no request needed anything more.
    ``truncated_texts``: texts not scored to their end (perplexity only).
    ``served``: what an OpenAI-compatible server said it ran, for the replies
    computed in this run (the manifest's ``provenance.served``).
    ``cached``: per request, in request order, whether its reply was served
    from the response cache in this run (a key computed now is False for
    every request that shares it); ``+`` concatenates, like the requests of
    :func:`joined`. Not in the manifest: the cell's ``samples.parquet`` has it.
    """

    requests: int = 0  # requests (or texts) asked
    unique: int = 0  # distinct cache keys among them
    cache_hits: int = 0
    engine_calls: int = 0  # distinct keys computed now
    engine_seconds: float = 0.0
    load_seconds: float = 0.0  # loading the model (0.0 when nothing was computed)
    cache_problems: Mapping[str, int] = field(default_factory=dict)
    recomputed: int | None = None
    truncated_texts: int | None = None
    engine: Mapping | None = None  # identity of the engine used now, or None
    engines_used: tuple[str, ...] = ()  # canonical JSON of every engine identity behind the replies
    served: tuple[str, ...] = ()  # canonical JSON of the model / system_fingerprint pairs servers returned now
    cached: tuple[bool, ...] = ()  # per request: served from the response cache in this run

    def __add__(self, other: "RunStats") -> "RunStats":
        if not isinstance(other, RunStats):
            return NotImplemented
        out = {}
        for f in dataclasses.fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if f.name == "engine":
                out[f.name] = a or b
            elif f.name == "cached":  # per request, in sending order
                out[f.name] = a + b
            elif a is None or b is None:  # counted by one path only
                out[f.name] = b if a is None else a
            elif isinstance(a, tuple):
                out[f.name] = tuple(sorted(set(a) | set(b)))
            elif isinstance(a, Mapping):
                out[f.name] = dict(sorted((Counter(a) + Counter(b)).items()))
            else:
                out[f.name] = round(a + b, 3)
        return RunStats(**out)

    def named(self, keys: Mapping[str, str]) -> dict:
        """``{manifest key: value}`` for the fields in ``keys``; a count no
        path made (None) is left out, a missing ``engine`` is written."""
        return {key: getattr(self, name) for name, key in keys.items()
                if getattr(self, name) is not None or name == "engine"}


@dataclass(frozen=True)
class Run:
    """Requests through the cache and an engine (:func:`authbench.llm.runner.run_requests`):
    the model identity (:func:`authbench.llm.cache.model_identity`), what it
    took, the configured engine's name, the sampling config and
    ``constrained``, the requests sent (in sending order) and their
    responses."""

    model: Mapping
    stats: RunStats
    engine: str | None = None
    generate: GenerateConfig | None = None
    constrained: bool | None = None
    requests: Sequence[Mapping] = ()
    responses: Sequence[Response] = ()


def joined(runs: Sequence[Run]) -> Run:
    """Several batches of one cell (tries, retries) as one run: requests and
    responses in sending order, stats added, the first batch's identity and
    sampling config."""
    return dataclasses.replace(runs[0], requests=[r for run in runs for r in run.requests],
                               responses=[r for run in runs for r in run.responses],
                               stats=sum((run.stats for run in runs), RunStats()))
