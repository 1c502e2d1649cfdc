"""A run's cost before it starts: ``results/plan.md``, ``plan.tsv`` and
``plan_cells.tsv`` (``snakemake plan``, ``make plan``).

Per model and study: cells, requests, unique requests (what the response
cache computes, :mod:`authbench.plan.tally`), prompt tokens (the model's own
tokenizer where its file is present, else a stated proxy, :func:`counter_for`;
counted on a seeded sample and extrapolated with a 95% interval,
:mod:`authbench.plan.sample`), the prompt tokens a prefix cache can reuse
(:mod:`authbench.plan.count`), completion tokens at the estimate and at the
cap (:mod:`authbench.plan.replies`), estimated engine hours with and
without prefix reuse at the model's rate (:mod:`authbench.plan.rates`:
calibrated here for the embedded engine, from ``models.<m>.rate`` for a
cluster model) and dollars for a hosted one (:mod:`authbench.plan.prices`).
The requests are the ones the jobs will send (:mod:`authbench.plan.jobs`,
with its stated stand-ins for what only a model's replies decide, and
:class:`authbench.cells.planned.Estimated`: inputs a study estimates because they do not exist yet). The
writing is :mod:`authbench.plan.report`'s.
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from authbench.config import active_models, is_hosted, model_spec
from authbench.plan.count import CharTokens, Tally, reuse_rule
from authbench.cells.planned import Estimated
from authbench.plan.jobs import model_jobs, why_empty
from authbench.plan.prices import Price, dollars, price_of
from authbench.plan.rates import Rate, calibrate, configured_rate, engine_seconds
from authbench.plan.replies import Length, Replies, expected_tries
from authbench.plan.report import CELL_COLUMNS, PLAN_COLUMNS, plan_lines, plan_markdown, write_plan  # noqa: F401
from authbench.plan.tally import Dedup, ModelContext, TokenMemo, batch_signature, tally_job

log = logging.getLogger("authbench")

CALIBRATION_PROMPTS = 16
CHARS = CharTokens("no tokenizer")  # one instance: every model counted by characters shares its counts


@dataclass
class TokenCounter:
    """How one model's prompts are counted: ``tokens(prompt)`` as the model
    sees it, ``name`` (own tokenizer or which proxy, and why)."""

    name: str
    tokenizer: Any  # what RAGAuth's document cut counts with (encode/decode)
    chat: bool

    def tokens(self, prompt: str, raw: bool = False):
        return self.tokenizer.prompt_tokens(prompt, self.chat and not raw)


@functools.lru_cache(maxsize=None)
def _gguf_tokenizer(path: str):
    """One vocabulary per GGUF: models counted with the same file share it (and its counts)."""
    from authbench.llm.engines.tokenize import LlamaCppTokenizer

    return LlamaCppTokenizer(path)


def _gguf_counter(path: str, how: str, chat: bool) -> TokenCounter:
    return TokenCounter(how, _gguf_tokenizer(str(path)), chat)


def counter_for(name: str, spec: Mapping, layout, exists=Path.exists) -> tuple[TokenCounter, str | None]:
    """The counter of model ``name`` and, for the embedded engine, the GGUF
    its calibration loads (None when absent). Order: the model's own
    tokenizer (a llamacpp model's GGUF when its file is present; a Hugging
    Face tokenizer when ``transformers`` is installed and the model's folder
    or ``tokenizer`` is at hand), else ``tokenizer_proxy`` (a GGUF of the same
    family: ``package:``/``parts:``/a path), else characters / 4. No model's
    weights are loaded."""
    from authbench.llm.models import model_file

    chat = spec.get("prompt_format") == "chat"
    engine = spec["engine"]
    why = []
    if engine == "llamacpp":
        path = model_file(name, spec, layout)
        if path and exists(Path(path)):
            return _gguf_counter(path, "own tokenizer (its GGUF)", chat), path
        why.append(f"its file {path} is absent")
    elif engine in ("vllm", "openai"):
        hf = spec.get("tokenizer") or (model_file(name, spec, layout) if engine == "vllm" else None)
        try:
            from authbench.llm.engines.tokenize import HFTokenizer
            import transformers  # noqa: F401

            if hf and (exists(Path(hf)) or spec.get("tokenizer")):
                tok = HFTokenizer(hf, spec.get("revision"))
                return TokenCounter("own tokenizer (Hugging Face)", _HFPrompts(tok), chat), None
            why.append("no local tokenizer folder")
        except Exception as err:  # no transformers here, or the tokenizer is not at hand offline
            why.append(f"its tokenizer is not loadable here ({type(err).__name__})")
    proxy = spec.get("tokenizer_proxy")
    if proxy:
        path = _proxy_file(proxy, layout)
        return _gguf_counter(str(path), f"proxy: {proxy}'s vocabulary ({'; '.join(why) or engine})", chat), None
    return TokenCounter(f"proxy: characters/4 ({'; '.join(why) or 'no tokenizer for ' + engine})", CHARS, chat), None


class _HFPrompts:
    """A Hugging Face tokenizer as a plan counter: the chat template when the prompt is a chat message."""

    def __init__(self, tok):
        self._tok = tok._tok
        self.encode, self.decode = tok.encode, tok.decode

    def prompt_tokens(self, prompt: str, chat: bool) -> list[int]:
        if chat and getattr(self._tok, "chat_template", None):
            return self._tok.apply_chat_template([{"role": "user", "content": prompt}], tokenize=True,
                                                 add_generation_prompt=True)
        return self._tok.encode(prompt)


def _proxy_file(spec: str, layout) -> Path:
    """The GGUF of a ``tokenizer_proxy`` spec (a parts: model is assembled under results/models/)."""
    from authbench.llm.models import resolve_model

    target = layout.gguf(f"tokenizer-{spec.split(':', 1)[1]}") if spec.startswith("parts:") else None
    return resolve_model(spec, target)


@dataclass
class CellPlan:
    """One job's tally, as ``plan_cells.tsv`` lists it."""

    model: str
    study: str
    cell: str
    kind: str
    in_run: bool
    tally: Tally | None


@dataclass
class Plan:
    """Everything the plan writes: ``rows`` (per model and study, then per
    model ``all``), ``cells`` (per job), what was estimated, the reply
    lengths used (per model: kind -> :class:`~authbench.plan.replies.Length`),
    the tries counted and the sample size."""

    rows: list[dict]
    cells: list[dict]
    estimated: Estimated
    lengths: dict[str, dict[str, Length]] = field(default_factory=dict)
    tries: dict[str, list[str]] = field(default_factory=dict)
    sample: int | None = None
    empty: str = ""


class _Model:
    """One model's running state while its jobs are tallied."""

    def __init__(self, name: str, spec: Mapping, counter: TokenCounter, gguf: str | None, replies: Replies):
        self.name, self.spec, self.counter, self.gguf = name, spec, counter, gguf
        self.hosted = is_hosted(spec)
        self.lengths: dict[str, Length] = {}
        slots = spec["engine"] == "llamacpp" and spec["constrain_with"] == "slots"

        def length(kind, fmt, n, constrained, cap):
            got = replies.length(name, kind, fmt, n, constrained, cap)
            label = f"{kind} ({fmt}{'' if n in (None, 1) else f', n={n}'}{', constrained' if constrained else ''})"
            self.lengths[label] = got
            return got

        self.ctx = ModelContext(name, counter, reuse_rule(spec, self.hosted), slots,
                                functools.lru_cache(None)(length), {})
        self.tallies: dict[tuple[str, bool], Tally] = defaultdict(Tally)  # (study, in run) -> tally
        self.notes: dict[tuple[str, bool], dict] = defaultdict(dict)
        self.loads: dict[bool, int] = defaultdict(int)  # in run -> jobs that load the model
        self.costliest: tuple = (0, "", None, None)  # its largest cell: (unique requests, cell, batch, new requests)


def build_plan(config: Mapping[str, Any], calibrate_seconds: float = 4.0, sample: Any = "config",
               workers: int = 1) -> Plan:
    """The plan of ``config`` (:class:`Plan`); ``sample``: requests counted
    per batch (default ``plan.sample``; None: every one); ``workers``: the
    processes its heavy loops may use (:func:`authbench.cells.planned.fork_map`)."""
    from authbench.paths import Layout

    layout = Layout(config["results"])
    sample = config["plan"]["sample"] if sample == "config" else sample
    specs = {name: model_spec(spec) for name, spec in active_models(config).items()}
    counters, gguf = {}, {}
    for name, spec in specs.items():
        counters[name], gguf[name] = counter_for(name, spec, layout)
    replies = Replies(config, counters)
    replies.read_manifests(_manifests(layout))
    tries_notes: dict[str, list[str]] = defaultdict(list)
    models = {name: _Model(name, spec, counters[name], gguf[name], replies) for name, spec in specs.items()}
    estimated = Estimated()
    dedup, memo = Dedup(), TokenMemo(immediate=sample is None)
    cells: list[CellPlan] = []
    pending: list = []
    jobs = model_jobs(config, {m: c.tokenizer for m, c in counters.items()}, estimated, workers=workers)
    for _, group in itertools.groupby(jobs, key=lambda j: j.group):
        group = list(group)
        news = [dedup.step([(job.model, batch_signature(job.batches[b]), job.batches[b].keys) for job in group])
                for b in range(len(group[0].batches))]
        for k, job in enumerate(group):
            if job.retries and job.kind not in models[job.model].ctx.tries:
                models[job.model].ctx.tries[job.kind] = _tries(job, replies, tries_notes[job.model])
            waiting = tally_job(job, [new[k] for new in news], models[job.model].ctx, memo, sample, config["seed"])
            pending.append((CellPlan(job.model, job.study, job.cell, job.kind, job.in_run, None), job.notes, waiting))
            m = models[job.model]
            first = news[0][k] if news else None
            if job.in_run and not job.perplexity and first is not None and first.count > m.costliest[0]:
                m.costliest = (first.count, job.cell, job.batches[0], first)
    memo.count(workers)
    for cell, notes, waiting in pending:  # the jobs themselves (and their prompts) are gone
        cell.tally = t = waiting.finish(memo)
        m = models[cell.model]
        m.tallies[(cell.study, cell.in_run)] += t
        m.loads[cell.in_run] += t.unique > 0
        for note in notes:
            m.notes[(cell.study, cell.in_run)][note] = None
        cells.append(cell)
    rows, rates = [], {}
    for name, m in models.items():
        if not m.tallies:
            continue
        rates[name] = rate = _rate(m, calibrate_seconds)
        price = price_of(m.spec) if m.hosted else None
        total = Tally()
        for (study, in_run), t in sorted(m.tallies.items(), key=lambda kv: not kv[0][1]):
            if in_run:
                total += t
            rows.append(_row(m, study, in_run, t, rate, price, m.loads[in_run] if not in_run else 0,
                             "; ".join(m.notes[(study, in_run)])))
        if any(in_run for _, in_run in m.tallies):
            rows.append(_row(m, "all", True, total, rate, price, m.loads[True], ""))
    cell_rows = [_cell_row(c, rates.get(c.model), models[c.model]) for c in cells if c.model in rates]
    empty = "" if rows else why_empty(config)
    return Plan(rows, cell_rows, estimated, {n: m.lengths for n, m in models.items() if m.tallies},
                dict(tries_notes), sample, empty)


def _manifests(layout) -> list[dict]:
    """Every cell manifest under the results folder that records tries (an earlier run's)."""
    import json

    out = []
    for path in Path(layout.root).rglob("manifest.json") if Path(layout.root).is_dir() else []:
        try:
            m = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(m, dict) and m.get("tries"):
            out.append(m)
    return out


def _tries(job, replies: Replies, notes: list[str]) -> float:
    """Expected tries per request of a retried job kind (:func:`authbench.plan.replies.expected_tries`)."""
    known = replies.failure(job.model, job.kind)
    if known is None:
        notes.append(f"{job.retries_key or job.kind}: first tries only (no failure rate known; up to "
                     f"{job.retries} more tries of each unsettled reply, {job.retries + 1}x at most)")
        return 1.0
    tries = expected_tries(known[0], job.retries)
    notes.append(f"{job.retries_key or job.kind}: {tries:.3f} tries per request ({known[1]}; {job.retries} retries "
                 "at most)")
    return tries


def _rate(m: _Model, seconds: float) -> Rate:
    if m.spec["engine"] != "llamacpp":
        return configured_rate(m.name, m.spec)
    if m.gguf is None:
        return Rate(None, None, f"no calibration: the model's file is absent ({m.counter.name})")
    _, cell, batch, new = m.costliest
    if batch is None:
        return Rate(None, None, "no calibration: the model sends no prompt")
    sent = new.sent(batch)
    step = max(1, len(sent) // CALIBRATION_PROMPTS)
    prompts = [batch.prompt(int(i)) for i in sent[::step][:CALIBRATION_PROMPTS]]
    log.info("plan: calibrating %s on %d prompts of %s", m.name, len(prompts), cell)
    return calibrate(m.spec, m.gguf, prompts, f"cell {cell}", seconds)


def _hours(e) -> float | str:
    return "" if e is None else round(e.total / 3600, 4)


def _ci_hours(e) -> float | str:
    return "" if e is None else round(e.half_width / 3600, 4)


def _row(m: _Model, study: str, in_run: bool, t: Tally, rate: Rate, price: Price | None, jobs: int,
         note: str) -> dict:
    seconds = {(reuse, cap): engine_seconds(t, rate, reuse, cap) for reuse in (False, True) for cap in (False, True)}
    gpus = rate.gpus

    def gpu(e):
        return "" if e is None or not gpus else round(e.total * gpus / 3600, 4)

    money = dollars(t, price) if price else None
    cap_money = dollars(t, price, at_cap=True) if price else None
    batch_money = dollars(t, price, batch=True) if price else None
    return {"model": m.name, "study": study, "engine": m.spec["engine"], "hosted": "yes" if m.hosted else "no",
            "in_run": "yes" if in_run else "no", "cells": t.cells, "requests": t.requests,
            "unique_requests": t.unique, "counted_requests": t.counted,
            "prompt_tokens": round(t.prompt.total), "prompt_tokens_ci": round(t.prompt.half_width),
            "reusable_tokens": round(t.reused.total), "reusable_tokens_ci": round(t.reused.half_width),
            "perplexity_tokens": round(t.perplexity.total), "perplexity_tokens_ci": round(t.perplexity.half_width),
            "completion_budget": round(t.completion_budget), "completion_estimate": round(t.completion),
            "completion_p95": round(t.completion_p95), "sent_requests": round(t.sent, 1),
            "tokens_counted_by": m.counter.name,
            "prompt_rate": "" if not rate.known else round(rate.prompt, 1),
            "completion_rate": "" if not rate.known else round(rate.completion, 1),
            "rate_source": rate.source if not m.hosted else "hosted: priced, not timed", "gpus": gpus,
            "engine_hours": _hours(seconds[(False, False)]),
            "engine_hours_with_reuse": _hours(seconds[(True, False)]),
            "engine_hours_with_reuse_ci": _ci_hours(seconds[(True, False)]),
            "engine_hours_at_cap": _hours(seconds[(False, True)]),
            "engine_hours_at_cap_with_reuse": _hours(seconds[(True, True)]),
            "gpu_hours": gpu(seconds[(False, False)]), "gpu_hours_with_reuse": gpu(seconds[(True, False)]),
            "gpu_hours_at_cap": gpu(seconds[(False, True)]),
            "gpu_hours_at_cap_with_reuse": gpu(seconds[(True, True)]),
            "load_hours": round(rate.load_seconds * jobs / 3600, 4) if jobs and rate.known else "",
            "usd": "" if money is None else round(money.total, 2),
            "usd_ci": "" if money is None else round(money.half_width, 2),
            "usd_at_cap": "" if cap_money is None else round(cap_money.total, 2),
            "usd_batch": "" if batch_money is None else round(batch_money.total, 2),
            "price_source": ("no price (models.%s.price)" % m.name if m.hosted and price is None
                             else (price.source if price else "")),
            "note": note}


def _cell_row(c: CellPlan, rate: Rate, m: _Model) -> dict:
    seconds = engine_seconds(c.tally, rate, True) if rate is not None else None
    return {"model": c.model, "study": c.study, "cell": c.cell, "kind": c.kind,
            "in_run": "yes" if c.in_run else "no", "requests": c.tally.requests,
            "unique_requests": c.tally.unique, "prompt_tokens": round(c.tally.prompt.total),
            "evaluated_tokens": round(c.tally.evaluated.total + c.tally.perplexity.total),
            "completion_estimate": round(c.tally.completion),
            "engine_seconds": "" if seconds is None else round(seconds.total, 2),
            "load_seconds": round(rate.load_seconds, 2) if rate is not None and rate.known and c.tally.unique else ""}
