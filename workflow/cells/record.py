"""A cell's record (:class:`CellRecord`): built once, when its step has
judged the replies, and the one source of every file the cell writes:
``responses.jsonl`` (:meth:`CellRecord.response_rows`), ``judgments.jsonl``,
``samples.parquet`` (:meth:`CellRecord.sample_rows`) and ``manifest.json``
(:meth:`CellRecord.manifest`). Its template files are hashed once here: the
manifest lists each file's SHA-256, the samples' metadata their combination
(:func:`templates_sha256`).

The manifests' key names predate the run's field names and are kept
(:data:`CELL_KEYS`, :data:`TEXT_KEYS`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from authbench import provenance
from authbench.cells.ids import base_id
from authbench.llm import expected
from authbench.llm.engines.base import Response
from authbench.llm.runs import Run
from authbench.records import file_sha256

# the manifest key of each RunStats field, for a model cell and for a scoring (perplexity) cell
CELL_KEYS = {"unique": "unique_requests", "cache_hits": "cache_hits", "engine_calls": "engine_calls",
             "engine_seconds": "engine_seconds_this_run", "load_seconds": "model_load_seconds",
             "cache_problems": "cache_problems", "recomputed": "recomputed_for_score_probs"}
TEXT_KEYS = {"requests": "n", "unique": "unique_texts", "cache_hits": "cache_hits", "engine_calls": "engine_calls",
             "engine_seconds": "seconds", "load_seconds": "model_load_seconds", "engine": "engine",
             "cache_problems": "cache_problems", "truncated_texts": "truncated_texts"}
# the sample columns a judgment row fills (authbench.cells.samples.SAMPLE_COLUMNS); the rest are the request's and reply's
JUDGMENT_COLUMNS = ("try", "status", "value", "expected", "gold", "correct")


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def templates_sha256(hashes: Sequence[tuple[str, str]], several: bool) -> str | None:
    """The version of a cell's template(s) (the samples' ``template_sha256``):
    one file's SHA-256; several files (the self-preference generation step):
    the SHA-256 of their SHA-256s, sorted by path, joined by newlines
    (ASCII); None for no template."""
    if not hashes:
        return None
    if not several:
        return hashes[0][1]
    joined = "\n".join(sha for _, sha in sorted(hashes, key=lambda h: h[0]))
    return hashlib.sha256(joined.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class CellRecord:
    """One cell, run and judged. ``run``: what the cache and the engine gave
    (a scoring cell, perplexity, has ``generate`` None); ``judgments``: one
    row per request or item; ``templates``: ``(path, sha256)`` of each
    template file and ``several`` whether the step reads a list of them;
    ``inputs``: name -> (path, info) of the files the cell read (hashed into
    the manifest); ``extra``: the step's own manifest entries (they win);
    ``grades``: the study's gold / correct per judgment request id (the
    samples')."""

    cell: str
    run: Run
    judgments: Sequence[Mapping] = ()
    templates: tuple[tuple[str, str], ...] = ()
    several: bool = False
    inputs: Mapping[str, tuple[str, Mapping]] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)
    grades: Mapping[str, Mapping] = field(default_factory=dict)

    @classmethod
    def of(cls, cell: str, run: Run, judgments: Sequence[Mapping] = (), template: str | Sequence[str] | None = None,
           inputs: Mapping | None = None, extra: Mapping | None = None,
           grades: Mapping[str, Mapping] | None = None) -> "CellRecord":
        """The record, the template file(s) hashed (once)."""
        several = not isinstance(template, str) and template is not None
        paths = [] if template is None else [template] if isinstance(template, str) else [str(t) for t in template]
        return cls(cell, run, list(judgments), tuple((p, file_sha256(p)) for p in paths), several,
                   dict(inputs or {}), dict(extra or {}), dict(grades or {}))

    @property
    def template_sha256(self) -> str | None:
        return templates_sha256(self.templates, self.several)

    def response_rows(self) -> list[dict]:
        """The raw replies. Deterministic: timings and cache hits are in the
        manifest, so a resumed or cached run writes the same bytes."""
        rows = []
        for req, resp in zip(self.run.requests, self.run.responses):
            row = {"request_id": resp.id, "prompt_sha256": prompt_hash(req["prompt"]), "text": resp.text,
                   "prompt_tokens": resp.prompt_tokens, "completion_tokens": resp.completion_tokens,
                   "finish_reason": resp.finish_reason}
            if resp.score_probs is not None:
                row["score_probs"] = resp.score_probs
            rows.append(row)
        return rows

    def sample_rows(self) -> list[dict]:
        """The cell's samples (:data:`authbench.cells.samples.SAMPLE_COLUMNS`): one row
        per request sent (every try of a retried cell: ``try`` from the id,
        :func:`authbench.cells.ids.base_id`), with its prompt, reply, token
        counts and ``cached`` (``run.stats.cached``).

        The judgment rows are joined by ``request_id``: a judgment of a retried
        request (whose id is the request's own) goes to its LAST try; the
        earlier tries get status ``retried`` and nothing else of the judgment.
        The judgment's :data:`JUDGMENT_COLUMNS` fill those sample columns; its
        other fields go to ``fields`` (so does a field named like a request or
        reply column, e.g. the rerank rows' ``prompt``). ``grades`` win over the
        judgment's own fields."""
        run = self.run
        cached = run.stats.cached if len(run.stats.cached) == len(run.requests) else (None,) * len(run.requests)
        ids = [base_id(r["request_id"]) for r in run.requests]
        last = {base: i for i, (base, _) in enumerate(ids)}
        judged = {j["request_id"]: j for j in self.judgments}
        rows = []
        for i, (req, resp, hit, (base, t)) in enumerate(zip(run.requests, run.responses, cached, ids, strict=True)):
            row = {"request_id": req["request_id"], "try": t, "prompt": req["prompt"],
                   "prompt_sha256": prompt_hash(req["prompt"]), "reply": resp.text, "finish_reason": resp.finish_reason,
                   "prompt_tokens": resp.prompt_tokens, "completion_tokens": resp.completion_tokens, "cached": hit,
                   "score_probs": resp.score_probs}
            if last[base] != i:
                row["status"] = "retried"
            elif (j := judged.get(base)) is not None:
                fields = {}
                for k, v in j.items():
                    if k == "request_id":
                        continue
                    if k in JUDGMENT_COLUMNS:
                        row[k] = v
                    else:
                        fields[k] = v
                row["fields"] = fields or None
                row.update(self.grades.get(j["request_id"], {}))
            rows.append(row)
        return rows

    def manifest(self) -> dict:
        """What was asked of which model with which settings, the hashes of
        the template(s) and inputs, the cache and engine counts of this run,
        :func:`cell_summary`, the step's ``extra`` and the ``provenance`` of
        this run (:func:`authbench.provenance.block`)."""
        run = self.run
        prov = {"provenance": provenance.block(run.stats.served)}
        if run.generate is None:  # a scoring cell: no sampling, template or replies
            return {"cell": self.cell, "model": run.model, **run.stats.named(TEXT_KEYS), **prov, **self.extra}
        stats = run.stats.named(CELL_KEYS)
        if not run.stats.engine_calls:  # nothing computed: the seconds are the integer 0
            stats["engine_seconds_this_run"] = 0
        entries = [{"path": p, "sha256": sha} for p, sha in self.templates]
        return {
            "cell": self.cell,
            "model": run.model,
            "engine": run.engine,
            "engines_used": [json.loads(e) for e in run.stats.engines_used],
            "generate": run.generate.__dict__,
            "constrained": run.constrained,
            "template": entries if self.several else entries[0],
            **{name: {"path": path, "sha256": file_sha256(path), **info} for name, (path, info) in self.inputs.items()},
            **stats,
            **cell_summary(self.judgments, run.responses),
            **prov,
            **self.extra,
        }


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
    cached = [r.cached_tokens for r in responses if r.cached_tokens is not None]
    if cached:  # the engine's own count of prompt tokens served by its prefix cache (vLLM)
        out["prefix_cached_tokens"] = sum(cached)
    scores = expected.summary(judgments, [r.score_probs for r in responses])
    if scores is not None:
        out["expected_scores"] = scores
    return out
