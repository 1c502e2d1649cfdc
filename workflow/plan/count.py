"""Counting a cell's prompt work before it runs: each prompt's tokens (with
the model's own tokenizer where its file is present, else a stated proxy),
the tokens a prefix cache can reuse in the order the cell sends its requests,
and what a job adds up to (:class:`Tally`).

Prefix reuse (:func:`reusable`): an engine keeps the previous prompt's KV
cache (llama.cpp: the context of the one process; vLLM: its automatic prefix
cache) and evaluates only what follows the common prefix, in whole blocks:
llama.cpp's engine here reuses whole 32-token blocks it evaluated
(:data:`authbench.llm.engines.llamacpp.REUSE_BLOCK`), vLLM whole KV blocks
of 16 tokens (its default ``block_size``). The last token of a prompt is
always evaluated (fresh logits). Cells send their prompts sorted
(:func:`authbench.llm.engines.base.prefix_order`), so a prompt's longest
common prefix with any earlier one is, up to the tokenization, the one with
the prompt before it: that is what is counted (vLLM may reuse a little more,
from prompts further back, while their blocks are still cached). Only the
requests the cache does not serve are sent: a prompt's predecessor is the
one before it among the cell's unique requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from authbench.plan.sample import Estimate

# KV-cache block of each engine: only whole blocks are reused
ENGINE_BLOCKS = {"llamacpp": 32, "vllm": 16, "openai": 16, "instant": 1}
# a hosted API's prompt cache (OpenAI's rule: prompts of 1,024 tokens and more, in steps of 128)
HOSTED_BLOCK, HOSTED_MINIMUM = 128, 1024
CHARS_PER_TOKEN = 4


def reuse_rule(spec: Mapping, hosted: bool) -> tuple[int, int]:
    """``(block, minimum)`` of a model's prefix reuse: its engine's KV block
    (an OpenAI-compatible server of one's own: vLLM's), or a hosted API's
    prompt cache (:data:`HOSTED_BLOCK`, reused only from
    :data:`HOSTED_MINIMUM` common tokens on)."""
    if hosted:
        return HOSTED_BLOCK, HOSTED_MINIMUM
    return ENGINE_BLOCKS[spec["engine"]], 0


def common_prefix(a: Sequence, b: Sequence) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = min(len(a), len(b))
    i = 0
    # compare in strides first: prompts of one cell share long template prefixes
    step = 64
    while i + step <= n and a[i:i + step] == b[i:i + step]:
        i += step
    while i < n and a[i] == b[i]:
        i += 1
    return i


def reusable(previous: Sequence | None, tokens: Sequence, block: int, minimum: int = 0) -> int:
    """Tokens of ``tokens`` a prefix cache reuses after ``previous`` was
    evaluated: the common prefix, cut to the whole blocks ``previous`` filled
    and to ``len(tokens) - 1`` (the last token is evaluated), rounded down to
    a multiple of ``block``; nothing below ``minimum`` tokens."""
    if not previous or len(tokens) < 2:
        return 0
    held = len(previous) - len(previous) % block
    common = min(common_prefix(previous, tokens), held, len(tokens) - 1)
    common -= common % block
    return common if common >= minimum else 0


class CharTokens:
    """The proxy of last resort: a token is 4 characters (a chunk, so that
    common prefixes can be counted on it too)."""

    def __init__(self, why: str):
        self.name = f"characters/{CHARS_PER_TOKEN}"
        self.why = why

    def prompt_tokens(self, prompt: str, chat: bool) -> list[str]:
        return [prompt[i:i + CHARS_PER_TOKEN] for i in range(0, len(prompt), CHARS_PER_TOKEN)]

    def encode(self, text: str) -> list[str]:  # RAGAuth's document cut counts with it
        return self.prompt_tokens(text, False)

    def decode(self, tokens: Sequence) -> str:
        return "".join(tokens)


@dataclass
class Tally:
    """What a model's cells ask, summed with ``+=``. Counts of requests are
    exact; token totals are :class:`~authbench.plan.sample.Estimate` s
    (extrapolated from the counted sample, :mod:`authbench.plan.sample`);
    completions are the reply-length estimates of :mod:`authbench.plan.replies`.
    Everything counts the unique requests (those the response cache
    computes), each tried ``tries`` times on average."""

    cells: int = 0
    requests: int = 0
    unique: int = 0  # requests the cache computes (not an earlier request of the same model)
    counted: int = 0  # of those, counted token by token (the sample)
    prompt: Estimate = field(default_factory=Estimate)  # prompt tokens
    reused: Estimate = field(default_factory=Estimate)  # of those, the ones a prefix cache holds
    evaluated: Estimate = field(default_factory=Estimate)  # prompt - reused (its own interval)
    perplexity: Estimate = field(default_factory=Estimate)  # texts scored for perplexity (no reuse, no reply)
    completion_budget: float = 0.0  # every request's token budget: the cap
    completion: float = 0.0  # the estimate (mean reply lengths)
    completion_p95: float = 0.0  # at each kind's 95th-percentile reply length
    sent: float = 0.0  # requests sent, retries included (expected)
    decoded: float = 0.0  # of the completion, the tokens generated one at a time (all but slot decoding's)
    choice_steps: float = 0.0  # slot decoding: forward passes that pick a constrained value

    def __iadd__(self, other: "Tally") -> "Tally":
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self
