"""What running a cell took (:class:`RunStats`), what a cell is
(:class:`CellRun`) and the one manifest written from it (:func:`manifest`).

Every runner path (:func:`authbench.llm.runner.run_cached` and the
:func:`~authbench.llm.runner.run_cell`, :func:`~authbench.llm.runner.run_requests`
and :func:`~authbench.llm.runner.score_texts` above it) reports a
:class:`RunStats`; batches of one cell (tries, retries) add with ``+``. The
manifests' key names predate these fields and are kept (:data:`CELL_KEYS`,
:data:`TEXT_KEYS`), so manifests are written byte for byte as before.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from authbench import provenance
from authbench.config import GenerateConfig
from authbench.llm import expected
from authbench.llm.engines.base import Response
from authbench.records import file_sha256, write_text


@dataclass(frozen=True)
class RunStats:
    """The cache and engine counts of one run of a cell (or of several
    batches of it, added with ``+``: counts and seconds summed, cache problems
    pooled, ``engine`` the first batch's that loaded one).

    ``engine_seconds`` is the engine's time for what was computed in THIS run
    (the manifest's ``engine_seconds`` is the cell's cost: every reply's
    seconds, cached or not; see :func:`cell_summary`). ``recomputed``: cached
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


# the manifest key of each RunStats field, for a model cell and for a scoring (perplexity) cell
CELL_KEYS = {"unique": "unique_requests", "cache_hits": "cache_hits", "engine_calls": "engine_calls",
             "engine_seconds": "engine_seconds_this_run", "load_seconds": "model_load_seconds",
             "cache_problems": "cache_problems", "recomputed": "recomputed_for_score_probs"}
TEXT_KEYS = {"requests": "n", "unique": "unique_texts", "cache_hits": "cache_hits", "engine_calls": "engine_calls",
             "engine_seconds": "seconds", "load_seconds": "model_load_seconds", "engine": "engine",
             "cache_problems": "cache_problems", "truncated_texts": "truncated_texts"}


@dataclass(frozen=True)
class CellRun:
    """One cell, run: what its manifest is written from (:func:`manifest`).

    A model cell has its sampling config (``generate``), ``constrained``,
    the ``requests`` sent (all tries, in sending order), their
    ``responses``, the ``judgments`` (one row per request or item) and the
    ``template`` file(s). A scoring cell (perplexity) has ``generate`` None.
    ``inputs``: name -> (path, info) of the files the cell read (hashed into
    the manifest); ``extra``: the step's own manifest entries (they win).
    """

    cell: str
    model: Mapping  # the model identity (authbench.llm.cache.model_identity / runner.perplexity_identity)
    stats: RunStats
    engine: str | None = None  # the configured engine's name
    generate: GenerateConfig | None = None
    constrained: bool | None = None
    requests: Sequence[Mapping] = ()
    responses: Sequence[Response] = ()
    judgments: Sequence[Mapping] = ()
    template: str | Sequence[str] | None = None
    inputs: Mapping[str, tuple[str, Mapping]] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)


def joined(runs: Sequence[CellRun]) -> CellRun:
    """Several batches of one cell (tries, retries) as one run: requests,
    responses and judgments in sending order, stats added, the first batch's
    identity and sampling config."""
    return dataclasses.replace(runs[0], requests=[r for run in runs for r in run.requests],
                               responses=[r for run in runs for r in run.responses],
                               judgments=[j for run in runs for j in run.judgments],
                               stats=sum((run.stats for run in runs), RunStats()))


def cell_summary(judgments: Sequence[Mapping], responses: Sequence[Response]) -> dict:
    """What the cell's replies cost and how they parsed (every reply, cached or not)."""
    status = Counter(j["status"] for j in judgments)
    n = len(judgments)
    out = {
        "n_calls": n,
        "parse_status": dict(sorted(status.items())),
        "parse_failure_rate": (n - status.get("ok", 0)) / n if n else 0.0,
        "prompt_tokens": sum(r.prompt_tokens for r in responses),
        "completion_tokens": sum(r.completion_tokens for r in responses),
        "engine_seconds": round(sum(r.seconds for r in responses), 3),
    }
    scores = expected.summary(judgments, [r.score_probs for r in responses])
    if scores is not None:
        out["expected_scores"] = scores
    return out


def _file_entry(path: str) -> dict:
    return {"path": path, "sha256": file_sha256(path)}


def manifest(run: CellRun) -> dict:
    """The manifest of any cell: what was asked of which model with which
    settings, the hashes of the template(s) and inputs, the cache and engine
    counts of this run, :func:`cell_summary`, the step's ``extra`` and the
    ``provenance`` of this run (:func:`authbench.provenance.block`)."""
    prov = {"provenance": provenance.block(run.stats.served)}
    if run.generate is None:  # a scoring cell: no sampling, template or replies
        return {"cell": run.cell, "model": run.model, **run.stats.named(TEXT_KEYS), **prov, **run.extra}
    stats = run.stats.named(CELL_KEYS)
    if not run.stats.engine_calls:  # nothing computed: the seconds are the integer 0, as manifests always had
        stats["engine_seconds_this_run"] = 0
    template = run.template
    return {
        "cell": run.cell,
        "model": run.model,
        "engine": run.engine,
        "engines_used": [json.loads(e) for e in run.stats.engines_used],
        "generate": run.generate.__dict__,
        "constrained": run.constrained,
        "template": [_file_entry(t) for t in template] if isinstance(template, list) else _file_entry(template),
        **{name: {**_file_entry(path), **info} for name, (path, info) in run.inputs.items()},
        **stats,
        **cell_summary(run.judgments, run.responses),
        **prov,
        **run.extra,
    }


def write_manifest(run: CellRun, path: str | Path) -> dict:
    """Write :func:`manifest` to ``path`` (sorted keys, two-space indent); return it."""
    out = manifest(run)
    write_text(path, json.dumps(out, indent=2, sort_keys=True, default=str) + "\n")
    return out
