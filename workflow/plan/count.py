"""Counting a cell's prompt work before it runs: each prompt's tokens (with
the model's own tokenizer where its file is present, else a stated proxy),
the tokens a prefix cache can reuse in the order the cell sends its requests,
and the completion-token budget.

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
from prompts further back, while their blocks are still cached).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

# KV-cache block of each engine: only whole blocks are reused
ENGINE_BLOCKS = {"llamacpp": 32, "vllm": 16, "openai": 16, "instant": 1}
CHARS_PER_TOKEN = 4


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


def reusable(previous: Sequence | None, tokens: Sequence, block: int) -> int:
    """Tokens of ``tokens`` a prefix cache reuses after ``previous`` was
    evaluated: the common prefix, cut to the whole blocks ``previous`` filled
    and to ``len(tokens) - 1`` (the last token is evaluated), rounded down to
    a multiple of ``block``."""
    if not previous or len(tokens) < 2:
        return 0
    held = len(previous) - len(previous) % block
    common = min(common_prefix(previous, tokens), held, len(tokens) - 1)
    return common - common % block


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
    """What a model's cells of one study ask (:func:`authbench.plan._tally`, one per job), summed with ``+=``."""

    cells: int = 0
    requests: int = 0
    unique: int = 0  # requests the cache computes (not an earlier request of the same model)
    prompt_tokens: int = 0  # of the unique requests
    reusable_tokens: int = 0  # of those, reusable by a prefix cache
    completion_budget: int = 0  # of the unique requests
    perplexity_tokens: int = 0  # texts scored for perplexity (no prefix reuse, no completion)

    def __iadd__(self, other: "Tally") -> "Tally":
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self

