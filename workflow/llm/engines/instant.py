"""``engine: instant``: answers every request at once, with no model, so the
pipeline itself can be rehearsed at full scale (benchmarks/paper_rehearsal.py).

A reply is deterministic (a function of the prompt's SHA-256) and parses for
its output format: the format's literal/choice slots
(:func:`authbench.llm.grammars.slots_for`) filled by hash, constrained or not;
a free-text request gets a fixed sentence that names passage 1 or 2. Its
identity says ``engine: instant`` and ``not_a_model: true``, and so does every
cache record and manifest built from it: its numbers can never be taken for
a model's. Perplexity: every whitespace word one token, a fixed per-word loss.
"""

from __future__ import annotations

import hashlib
from typing import Iterator, Mapping, Sequence

from authbench.config import GenerateConfig
from authbench.llm.engines.base import Engine, PerplexityResult, Request, Response, register
from authbench.llm.grammars import slots_for
from authbench.llm.parse import OUTPUT_FORMATS

FREE_REPLY = "Answer: instant reply; the answer is retrieved from passage {k}."


def instant_text(req: Request) -> str:
    digest = hashlib.sha256(req.prompt.encode("utf-8")).digest()
    if req.output not in OUTPUT_FORMATS:
        return FREE_REPLY.format(k=1 + digest[0] % 2)
    slots = req.slots or slots_for(req.output, req.n)
    text, taken = "", set()
    for i, (kind, value) in enumerate(slots):
        if kind == "lit":
            text += value
            continue
        options = [o for o in value if o not in taken] if kind == "choice_unique" else list(value)
        pick = options[digest[i % len(digest)] % len(options)]
        if kind == "choice_unique":
            taken.add(pick)
        text += pick
    return text


@register("instant")
class InstantEngine(Engine):
    cache_batch = 4096  # replies stored per fsync (every reply is ready at once)

    def __init__(self, model_config: Mapping, model_path: str | None = None):
        self.model = str(model_config.get("model", "instant"))

    def identity(self) -> dict:
        return {"engine": "instant", "engine_version": "1", "model": self.model, "not_a_model": True}

    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        for req in requests:
            text = instant_text(req)
            yield Response(req.id, text, len(req.prompt) // 4, max(1, len(text) // 4), 0.0, "stop")

    def perplexity(self, texts: Sequence[str]) -> Iterator[PerplexityResult]:
        for i, text in enumerate(texts):
            words = len(text.split())
            yield PerplexityResult.from_nll(i, max(0, words - 1), 2.0 * max(0, words - 1), 0.0)
