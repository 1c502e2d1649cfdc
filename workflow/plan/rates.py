"""The rates behind a plan's time estimate (:class:`Rate`): measured for the
embedded engine (:func:`calibrate`, a few seconds of llama.cpp on this
machine), taken from config for a cluster model (``models.<m>.rate``), or
none (the plan then gives no hours for that model, and says why; a hosted
model is priced instead, :mod:`authbench.plan.prices`).

The estimate (:func:`engine_seconds`): prompt tokens to evaluate / the prompt
rate + tokens generated one at a time / the completion rate + the embedded
engine's slot-decoding steps x the time of one step + requests x the
engine's own time per request; with prefix reuse the reusable prompt tokens
are not evaluated. Completion at the estimate takes the reply lengths of
:mod:`authbench.plan.replies`; at the cap, every request's token budget
decoded one token at a time (the old upper bound).

The embedded engine (slot decoding, :mod:`authbench.llm.engines.llamacpp`)
does not decode a constrained reply token by token: it appends the
format's literal text and evaluates it with the next choice, one forward
pass per choice (:func:`authbench.plan.tally.choice_steps`), so its
constrained replies cost steps, not completion tokens. :func:`calibrate`
times such a step (a few appended tokens evaluated at once) and the
engine's own time per request (tokenising a prompt and its chat template,
reading the logits) on this machine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Mapping, Sequence

from authbench.plan.count import Tally
from authbench.plan.sample import Estimate


@dataclass(frozen=True)
class Rate:
    """Tokens per second of one model's job: prompt evaluation (prefill) and
    completion (decoding); ``load_seconds`` per job; ``step_seconds``: one
    slot-decoding step, ``request_seconds``: the engine's own time per
    request (both the embedded engine's, calibrated); ``source`` says where
    the numbers come from, or why there are none."""

    prompt: float | None
    completion: float | None
    source: str
    load_seconds: float = 0.0
    gpus: int = 0
    step_seconds: float = 0.0
    request_seconds: float = 0.0

    @property
    def known(self) -> bool:
        return bool(self.prompt and self.completion)


def engine_seconds(t: Tally, rate: Rate, reuse: bool, at_cap: bool = False) -> Estimate | None:
    """Estimated engine seconds of ``t`` at ``rate`` (None without a rate),
    with the interval of its prompt tokens (module docstring)."""
    if not rate.known:
        return None
    prompt = (t.evaluated if reuse else t.prompt) + t.perplexity
    if at_cap:
        rest = t.completion_budget / rate.completion
    else:
        steps = t.choice_steps * (rate.step_seconds or 1 / rate.completion)
        rest = t.decoded / rate.completion + steps + t.sent * rate.request_seconds
    return Estimate(prompt.total / rate.prompt + rest, prompt.var / rate.prompt ** 2)


def configured_rate(name: str, spec: Mapping) -> Rate:
    """``models.<name>.rate`` (tokens/s of one job on its ``gpus``), or no rate and why."""
    if spec["engine"] == "instant":
        return Rate(float("inf"), float("inf"), "instant engine: no model, no time")
    rate = spec.get("rate")
    gpus = int(spec["gpus"])
    if not rate:
        return Rate(None, None, f"no rate configured (models.{name}.rate: prompt and completion tokens/s)", gpus=gpus)
    source = f"config models.{name}.rate" + (f" ({rate['source']})" if rate.get("source") else "")
    return Rate(float(rate["prompt"]), float(rate["completion"]), source, float(rate.get("load_seconds", 0.0)), gpus)


def calibrate(model_config: Mapping, model_path: str, prompts: Sequence[str], where: str,
              seconds: float = 4.0) -> Rate:
    """The embedded engine's rates on this machine, in about ``seconds``:
    load the GGUF as the engine does (its threads, ``n_batch`` of the reuse
    block); tokenize ``prompts`` (``where`` names them) as the engine does
    (its time per request); evaluate them each from an empty context, as the
    engine evaluates a prompt (the prompt rate); evaluate four appended
    tokens at a time, as slot decoding does at each choice (the step); then
    decode greedily through llama-cpp-python's completion, as free decoding
    does, sampling included (the completion rate)."""
    import llama_cpp

    from authbench.llm.engines.llamacpp import REUSE_BLOCK
    from authbench.llm.engines.tokenize import gguf_chat_formatter, gguf_prompt_tokens

    start = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(model_path), n_ctx=int(model_config["n_ctx"]),
                          n_threads=int(model_config["threads"]), n_batch=REUSE_BLOCK, n_ubatch=REUSE_BLOCK,
                          verbose=False)
    load = time.perf_counter() - start
    n_ctx = int(model_config["n_ctx"])
    try:
        chat = gguf_chat_formatter(llm, model_path) if model_config["prompt_format"] == "chat" else None
        t0 = time.perf_counter()
        token_lists = [gguf_prompt_tokens(llm, p, chat) for p in prompts]
        per_request = (time.perf_counter() - t0) / max(1, len(prompts))
        token_lists = [t[:n_ctx - 80] for t in token_lists if len(t) > 1]
        if not token_lists:
            raise ValueError(f"calibration of {model_path}: no prompt to evaluate")
        evaluated, spent, used = 0, 0.0, 0
        while used < len(token_lists) and (spent < 0.5 * seconds or used < 2):
            tokens = token_lists[used]
            llm.reset()
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            t0 = time.perf_counter()
            llm.eval(tokens)
            spent += time.perf_counter() - t0
            evaluated += len(tokens)
            used += 1
        four = (llm.tokenize(b" the", add_bos=False)[:1] or [llm.token_eos()]) * 4
        steps, t0 = 0, time.perf_counter()
        while steps < 32 and llm.n_tokens < n_ctx - 5 and (steps < 4 or time.perf_counter() - t0 < 0.15 * seconds):
            llm.eval(four)
            steps += 1
        step = (time.perf_counter() - t0) / steps
        decoded, decode = _decode(llm, token_lists[0], 0.3 * seconds, n_ctx)
    finally:
        llm.close()
    return Rate(evaluated / spent, decoded / decode,
                f"calibrated here: llama.cpp evaluated {used} prompts of {where} ({evaluated:,} tokens, each from an "
                f"empty context) at {evaluated / spent:,.0f} tok/s, a slot step of 4 tokens in {step * 1000:,.0f} ms, "
                f"decoded {decoded} tokens at {decoded / decode:,.0f} tok/s; tokenizing {per_request * 1000:,.1f} ms "
                f"a prompt; model load {load:.1f} s", round(load, 2), step_seconds=step, request_seconds=per_request)


def _decode(llm, tokens: list[int], budget: float, n_ctx: int) -> tuple[int, float]:
    """Tokens generated greedily after the start of ``tokens`` and their
    seconds, llama-cpp-python's sampling included; at least 8."""
    llm.reset()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    start = tokens[: max(2, min(64, len(tokens)))]
    llm.eval(start[:-1])
    decoded, t0 = 0, time.perf_counter()
    for token in llm.generate(start[-1:], temp=0.0, reset=False):
        decoded += 1
        if decoded >= 64 or llm.n_tokens >= n_ctx - 2 or (decoded >= 8 and time.perf_counter() - t0 > budget):
            break
    return decoded, time.perf_counter() - t0
