"""The engine interface: a batch of requests in, a batch of responses out.

Judges only ever see :class:`Request` and :class:`Response`; an engine (the
embedded llama.cpp model now; vLLM and OpenAI-compatible servers later) is
picked by the ``engine:`` key of a model's config through :data:`REGISTRY`.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Sequence

from ..config import GenerateConfig


@dataclass(frozen=True)
class Request:
    id: str
    prompt: str
    max_tokens: int
    grammar: str | None = None  # GBNF text, or None for free decoding
    slots: tuple | None = None  # the same shape as literal/choice slots (grammars.slots_for)


@dataclass(frozen=True)
class Response:
    id: str
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str


class Engine(abc.ABC):
    """Turns requests into responses. Subclasses register with :func:`register`."""

    name: str = "?"

    @abc.abstractmethod
    def identity(self) -> dict:
        """What identifies the model's outputs (file, hash, engine version)."""

    @abc.abstractmethod
    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        """Yield one response per request, in the order given."""

    def close(self) -> None:  # pragma: no cover - engines without resources
        pass


REGISTRY: dict[str, Callable[[Mapping], Engine]] = {}


def register(name: str):
    def wrap(factory):
        REGISTRY[name] = factory
        factory.name = name
        return factory

    return wrap


# engine name -> module under authbench.engines that registers it (imported
# only when that engine is used: vLLM and llama-cpp-python stay optional)
ENGINE_MODULES = {"llamacpp": "llamacpp", "vllm": "vllm_engine", "openai": "openai_compat"}


def create_engine(model_config: Mapping, model_path: str | None) -> Engine:
    """Build the engine named by ``model_config['engine']`` (imports lazily).
    ``model_path`` is the local model file for llamacpp, None for the others."""
    import importlib

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
