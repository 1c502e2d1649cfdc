"""The engine interface: a batch of requests in, a batch of responses out.

The cell runner (:mod:`authbench.llm.runner`) only ever sees :class:`Request`
and :class:`Response`; an engine (``llamacpp``: the embedded GGUF model in
process; ``vllm``: offline ``vllm.LLM`` in the GPU job; ``openai``: any
OpenAI-compatible server) is picked by the ``engine:`` key of a model's
config through :data:`REGISTRY`.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Sequence

from authbench.config import GenerateConfig


@dataclass(frozen=True)
class Request:
    id: str
    prompt: str
    max_tokens: int
    grammar: str | None = None  # GBNF text, or None for free decoding
    slots: tuple | None = None  # the same shape as literal/choice slots (grammars.slots_for)
    output: str | None = None  # the reply format asked for (parse.OUTPUT_FORMATS, or "free")
    n: int | None = None  # items of a list format
    # report the score distribution of every score slot (authbench.llm.expected);
    # the reply's text does not depend on it (not part of the cache key)
    score_probs: bool = False


@dataclass(frozen=True)
class Response:
    id: str
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str
    # slot -> distribution entry (authbench.llm.expected), when the request asked for it
    score_probs: dict | None = None
    # prompt tokens the engine took from its prefix cache, where it says (vLLM's num_cached_tokens)
    cached_tokens: int | None = None


@dataclass(frozen=True)
class PerplexityResult:
    """How well the engine's model predicts one text (:meth:`Engine.perplexity`).

    ``tokens`` is the number of SCORED tokens: every token of the text given
    its prefix, except the first token of the sequence, which has no
    prediction (the BOS token where the model adds one; see each engine for
    its exact rule). ``nll`` is the sum of their negative log-likelihoods
    (natural log) and ``perplexity = exp(nll / tokens)``; with no scored token
    (the empty text) ``tokens`` is 0, ``nll`` 0.0 and ``perplexity`` NaN.
    ``truncated_tokens``: tokens at the end of the text that were NOT scored
    because the text is longer than the model's context (0 almost always).
    """

    text_index: int
    tokens: int
    nll: float
    perplexity: float
    seconds: float
    truncated_tokens: int = 0

    @classmethod
    def from_nll(cls, text_index: int, tokens: int, nll: float, seconds: float,
                 truncated_tokens: int = 0) -> "PerplexityResult":
        """Fill in ``perplexity`` (NaN when no token was scored)."""
        tokens = int(tokens)
        nll = float(nll)
        ppl = math.exp(nll / tokens) if tokens > 0 else math.nan
        return cls(int(text_index), tokens, nll, ppl, float(seconds), int(truncated_tokens))


class Engine(abc.ABC):
    """Turns requests into responses. Subclasses register with :func:`register`."""

    name: str = "?"

    @abc.abstractmethod
    def identity(self) -> dict:
        """What identifies the model's outputs (file, hash, engine version)."""

    @abc.abstractmethod
    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        """Yield one response per request, in the order given."""

    def perplexity(self, texts: Sequence[str]) -> Iterator[PerplexityResult]:
        """Yield one :class:`PerplexityResult` per text, in the order given
        (``text_index`` is the position in ``texts``). The raw text is scored
        as a completion prompt would be tokenized, never through a chat
        template. Engines that cannot score text raise NotImplementedError."""
        raise NotImplementedError(
            f"engine {self.name!r} ({type(self).__name__}) cannot score perplexity: it has no perplexity() "
            "implementation; use engine 'llamacpp', 'vllm' or 'openai'"
        )

    def close(self) -> None:  # pragma: no cover - engines without resources
        pass


REGISTRY: dict[str, Callable[[Mapping], Engine]] = {}


def register(name: str):
    def wrap(factory):
        REGISTRY[name] = factory
        factory.name = name
        return factory

    return wrap


# engine name -> module under authbench.llm.engines that registers it (imported
# only when that engine is used: vLLM and llama-cpp-python stay optional)
ENGINE_MODULES = {"llamacpp": "llamacpp", "vllm": "vllm_engine", "openai": "openai_compat", "instant": "instant"}


def create_engine(model_config: Mapping, model_path: str | None) -> Engine:
    """Build the engine named by ``model_config['engine']`` (imports lazily).
    ``model_path`` is the local model file for llamacpp, None for the others."""
    import importlib

    from authbench.config import model_spec

    model_config = model_spec(model_config)  # the schema's defaults (prompt_format, n_ctx, ...)
    name = model_config["engine"]
    if name in ENGINE_MODULES and name not in REGISTRY:
        importlib.import_module(f".{ENGINE_MODULES[name]}", __package__)
    if name not in REGISTRY:
        raise ValueError(f"unknown engine {name!r}; known: {sorted(REGISTRY)}")
    return REGISTRY[name](model_config, model_path)


def prefix_order(requests: Sequence[Request]) -> list[int]:
    """Indices of ``requests`` sorted by prompt, so consecutive prompts share
    their longest common prefix (llama.cpp keeps the previous prompt's KV cache
    and only evaluates the new suffix). ``benchmarks/engine_overhead.py`` measures it."""
    return sorted(range(len(requests)), key=lambda i: (requests[i].prompt, requests[i].id))
