"""A run's cost before it starts: ``results/plan.md`` and ``plan.tsv``
(``snakemake plan``, ``make plan``).

Per model and study: cells, requests, unique requests (what the response
cache computes once), prompt tokens (the model's own tokenizer where its
file is present, else a stated proxy, :func:`counter_for`), the prompt
tokens a prefix cache can reuse (:mod:`authbench.plan.count`), the
completion-token budget, and estimated engine hours with and without prefix
reuse at the model's rate (:mod:`authbench.plan.rates`: calibrated here for
the embedded engine, from ``models.<m>.rate`` for a cluster model; none, and
why, otherwise). The requests are the ones the jobs will send
(:mod:`authbench.plan.jobs`, with its stated stand-ins for what only a
model's replies decide).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from authbench.config import active_models, model_spec
from authbench.plan.count import ENGINE_BLOCKS, CharTokens, Tally, reusable
from authbench.plan.jobs import PlanJob, model_jobs
from authbench.plan.rates import Rate, calibrate, configured_rate, engine_seconds
from authbench.records import write_text, write_tsv

log = logging.getLogger("authbench")

PLAN_COLUMNS = ["model", "study", "engine", "cells", "requests", "unique_requests", "prompt_tokens",
                "reusable_tokens", "perplexity_tokens", "completion_budget", "tokens_counted_by", "prompt_rate",
                "completion_rate", "rate_source", "gpus", "engine_hours", "engine_hours_with_reuse", "gpu_hours",
                "gpu_hours_with_reuse", "load_hours", "note"]
CALIBRATION_PROMPTS = 16


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
    family: ``package:``/``parts:``/a path), else characters / 4."""
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
    return TokenCounter(f"proxy: characters/4 ({'; '.join(why) or 'no tokenizer for ' + engine})",
                   CharTokens("no tokenizer"), chat), None


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
class _ModelState:
    counter: TokenCounter
    block: int
    seen: set = field(default_factory=set)
    tallies: dict = field(default_factory=lambda: defaultdict(Tally))  # study -> Tally
    notes: dict = field(default_factory=lambda: defaultdict(dict))  # study -> {note: None}
    jobs: int = 0
    costliest: tuple = (0, "", ())  # (prompt tokens, cell, sample prompts) of the largest cell


class _Measures:
    """Per distinct prompt of a batch, under one counter: (tokens, reusable
    tokens after the prompt before it in sending order). A batch is measured
    once per tokenizer and prompt format: models counted with the same
    vocabulary (the paper's three Qwen3 sizes, one proxy) share the counts of
    the batches they all send. Kept: the batch's digest and one pair of ints
    per prompt, not the prompts."""

    def __init__(self):
        self._memo: dict = {}

    def get(self, requests: list, counter: TokenCounter, block: int, perplexity: bool) -> dict[str, tuple[int, int]]:
        prompts = sorted({p for p, _, _ in requests})
        digest = hashlib.blake2b(digest_size=16)
        for prompt in prompts:
            digest.update(prompt.encode("utf-8"))
            digest.update(b"\0")
        key = (id(counter.tokenizer), counter.chat, block, perplexity, digest.digest())
        counts = self._memo.get(key)
        if counts is None:
            counts, previous = [], None
            for prompt in prompts:
                tokens = counter.tokens(prompt, raw=perplexity)
                counts.append((len(tokens), 0 if perplexity else reusable(previous, tokens, block)))
                previous = tokens
            self._memo[key] = counts
        return dict(zip(prompts, counts))


def _tally(job: PlanJob, state: _ModelState, measures: _Measures) -> Tally:
    t = Tally(cells=1)
    for batch in job.batches:
        measured = measures.get(batch.requests, state.counter, state.block, job.perplexity)
        mine = {}
        for (prompt, _, _), budget, key in zip(batch.requests, batch.budgets(), batch.keys()):
            t.requests += 1
            mine.setdefault(key, (prompt, budget))
        for key, (prompt, budget) in mine.items():
            short = int.from_bytes(key[:8], "little")
            if short in state.seen:
                continue
            state.seen.add(short)
            n, share = measured[prompt]
            t.unique += 1
            if job.perplexity:
                t.perplexity_tokens += n
            else:
                t.prompt_tokens += n
                t.reusable_tokens += share
                t.completion_budget += budget
    return t


def build_plan(config: Mapping[str, Any], calibrate_seconds: float = 4.0) -> list[dict]:
    """The plan's rows (:data:`PLAN_COLUMNS`): per model and study, then per model ``all``."""
    from authbench.paths import Layout

    layout = Layout(config["results"])
    models = {name: model_spec(spec) for name, spec in active_models(config).items()}
    states: dict[str, _ModelState] = {}
    gguf: dict[str, str | None] = {}
    for name, spec in models.items():
        counter, gguf[name] = counter_for(name, spec, layout)
        states[name] = _ModelState(counter, ENGINE_BLOCKS[spec["engine"]])
    measures = _Measures()
    for job in model_jobs(config, {m: s.counter.tokenizer for m, s in states.items()}):
        state = states[job.model]
        t = _tally(job, state, measures)
        state.tallies[job.study] += t
        state.jobs += 1
        for note in job.notes:
            state.notes[job.study][note] = None
        if t.prompt_tokens > state.costliest[0] and not job.perplexity:
            prompts = sorted({p for b in job.batches for p, _, _ in b.requests})
            step = max(1, len(prompts) // CALIBRATION_PROMPTS)
            state.costliest = (t.prompt_tokens, job.cell, tuple(prompts[::step][:CALIBRATION_PROMPTS]))
    rows = []
    for name, state in states.items():
        if not state.tallies:
            continue
        rate = _rate(name, models[name], gguf[name], state, calibrate_seconds)
        total = Tally()
        for study, t in state.tallies.items():
            total += t
            rows.append(_row(name, study, models[name], t, state.counter, rate, 0, "; ".join(state.notes[study])))
        rows.append(_row(name, "all", models[name], total, state.counter, rate, state.jobs, ""))
    return rows


def _rate(name: str, spec: Mapping, gguf: str | None, state: _ModelState, seconds: float) -> Rate:
    if spec["engine"] != "llamacpp":
        return configured_rate(name, spec)
    if gguf is None:
        return Rate(None, None, f"no calibration: the model's file is absent ({state.counter.name})")
    _, cell, prompts = state.costliest
    if not prompts:
        return Rate(None, None, "no calibration: the model sends no prompt")
    log.info("plan: calibrating %s on %d prompts of %s", name, len(prompts), cell)
    return calibrate(spec, gguf, prompts, f"cell {cell}", seconds)


def _hours(seconds: float | None) -> float | str:
    return "" if seconds is None else round(seconds / 3600, 4)


def _row(model: str, study: str, spec: Mapping, t: Tally, counter: TokenCounter, rate: Rate, jobs: int,
         note: str) -> dict:
    plain, reuse = engine_seconds(t, rate, False), engine_seconds(t, rate, True)
    gpus = rate.gpus
    return {"model": model, "study": study, "engine": spec["engine"], "cells": t.cells, "requests": t.requests,
            "unique_requests": t.unique, "prompt_tokens": t.prompt_tokens, "reusable_tokens": t.reusable_tokens,
            "perplexity_tokens": t.perplexity_tokens, "completion_budget": t.completion_budget,
            "tokens_counted_by": counter.name,
            "prompt_rate": "" if not rate.known else round(rate.prompt, 1),
            "completion_rate": "" if not rate.known else round(rate.completion, 1),
            "rate_source": rate.source, "gpus": gpus,
            "engine_hours": _hours(plain), "engine_hours_with_reuse": _hours(reuse),
            "gpu_hours": _hours(None if plain is None or not gpus else plain * gpus),
            "gpu_hours_with_reuse": _hours(None if reuse is None or not gpus else reuse * gpus),
            "load_hours": _hours(rate.load_seconds * jobs) if jobs and rate.known else "",
            "note": note}


def _int(x) -> str:
    return f"{int(x):,}"


def _minutes(row: Mapping, key: str) -> str:
    return "–" if row[key] == "" else f"{float(row[key]) * 60:,.1f}"


def plan_lines(rows: list[dict]) -> list[str]:
    """One line per model (its ``all`` row): cells, prompt tokens, estimated minutes."""
    out = []
    for r in rows:
        if r["study"] != "all":
            continue
        if r["engine_hours_with_reuse"] == "":
            when = f"no estimate: {r['rate_source']}"
        else:
            minutes = (float(r["engine_hours_with_reuse"]) + float(r["load_hours"] or 0)) * 60
            when = (f"about {minutes:,.1f} min of engine and model loads at {float(r['prompt_rate']):,.0f} prompt "
                    f"tok/s ({'this machine' if r['engine'] == 'llamacpp' else r['rate_source']})")
        out.append(f"plan: {r['model']}: {r['cells']} cells, {_int(r['unique_requests'])} unique requests, "
                   f"{_int(r['prompt_tokens'] + r['perplexity_tokens'])} prompt tokens "
                   f"({_int(r['reusable_tokens'])} reusable); {when}")
    return out


def plan_markdown(rows: list[dict], config_files: str = "") -> str:
    lines = ["# Plan: what this config will ask, before it runs", ""]
    if config_files:
        lines += [f"Config: {config_files}.", ""]
    lines += ["| model | study | cells | requests | unique | prompt tokens | reusable by prefix cache | "
              "completion budget | engine h | engine h with reuse | GPU h | GPU h with reuse |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        bold = "**" if r["study"] == "all" else ""
        cells = [r["model"], r["study"], _int(r["cells"]), _int(r["requests"]), _int(r["unique_requests"]),
                 _int(r["prompt_tokens"] + r["perplexity_tokens"]), _int(r["reusable_tokens"]),
                 _int(r["completion_budget"])]
        cells += [("–" if r[k] == "" else f"{float(r[k]):,.3f}") for k in
                  ("engine_hours", "engine_hours_with_reuse", "gpu_hours", "gpu_hours_with_reuse")]
        lines.append("| " + " | ".join(f"{bold}{c}{bold}" if c else c for c in cells) + " |")
    lines += ["", "## How each model is counted", ""]
    for r in rows:
        if r["study"] == "all":
            load = f"; model loads {_minutes(r, 'load_hours')} min over its jobs" if r["load_hours"] != "" else ""
            lines.append(f"- **{r['model']}** ({r['engine']}): tokens by {r['tokens_counted_by']}; rate: "
                         f"{r['rate_source']}{load}.")
    notes = {r["note"]: None for r in rows if r["note"]}
    if notes:
        lines += ["", "## Stand-ins (what only a model's replies decide)", ""]
        lines += [f"- {n}." for note in notes for n in note.split("; ")]
    lines += ["", "Prompt tokens are those of the unique requests (a request an earlier cell of the same model asked "
              "is served by the response cache). Reusable: the prompt tokens a prefix cache need not evaluate, in "
              "the order each cell sends its prompts (sorted), in whole KV blocks (llama.cpp 32, vLLM 16 tokens). "
              "Completion budget: every request's token budget, an upper bound of what is generated. Hours: prompt "
              "tokens / prompt rate + completion budget / completion rate; GPU hours: times the model's `gpus`. "
              "Perplexity texts count as prompt tokens (evaluated whole, no reuse).", ""]
    return "\n".join(lines)


def write_plan(rows: list[dict], md: str | Path, tsv: str | Path, config_files: str = "") -> None:
    write_tsv(rows, tsv, PLAN_COLUMNS)
    write_text(md, plan_markdown(rows, config_files))

