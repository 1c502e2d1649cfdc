"""``engine: instant``: answers every request at once, with no model, so the
pipeline itself can be rehearsed at full scale (benchmarks/paper_rehearsal.py).

A reply is deterministic (a function of the prompt's SHA-256) and parses for
its output format: each format's ``instant`` reply (:mod:`authbench.llm.formats`:
its literal/choice slots filled by hash, constrained or not; a free-text request
gets a fixed sentence that names passage 1 or 2). Its identity says ``engine:
instant`` and ``not_a_model: true``, and so does every cache record and manifest
built from it: its numbers can never be taken for a model's. Score
distributions (``Request.score_probs``): see :func:`instant_reply`. Perplexity:
every whitespace word one token, a fixed per-word loss.
"""

from __future__ import annotations

import hashlib
from typing import Iterator, Mapping, Sequence

from authbench.config import GenerateConfig
from authbench.llm import expected
from authbench.llm.engines.base import Engine, PerplexityResult, Request, Response, register
from authbench.llm.formats import FORMATS, OUTPUT_FORMATS


def instant_reply(req: Request) -> tuple[str, dict | None]:
    """The reply's text (the format's ``instant``: its slots filled by the
    prompt's hash, or a free-text sentence) and, when the request asks for
    them, its score distributions: at each score slot the picked score gets
    probability 1/2 and every other score a share of the other 1/2 in
    proportion to ``1 + byte % 7`` of the prompt's hash (so the pick is the
    argmax and E[s] is a deterministic number off the pick; ``mass`` 1)."""
    digest = hashlib.sha256(req.prompt.encode("utf-8")).digest()
    fmt = FORMATS[req.output] if req.output in OUTPUT_FORMATS else FORMATS["free"]
    text, picks = fmt.instant(digest, req.slots or (fmt.slots(req.n) if fmt.slots else None))
    if not (req.score_probs and expected.wants(req.output)):
        return text, None
    probs = {}
    for name, (i, pick, options) in zip(expected.slot_names(req.output, req.n), picks):
        weights = {o: 1 + digest[(7 * i + k) % len(digest)] % 7 for k, o in enumerate(options) if o != pick}
        total = sum(weights.values())
        probs[name] = expected.entry({pick: 0.5, **{o: 0.5 * w / total for o, w in weights.items()}})
    return text, probs


@register("instant")
class InstantEngine(Engine):
    cache_batch = 4096  # replies stored per fsync (every reply is ready at once)

    def __init__(self, model_config: Mapping, model_path: str | None = None):
        self.model = str(model_config.get("model", "instant"))

    def identity(self) -> dict:
        return {"engine": "instant", "engine_version": "1", "model": self.model, "not_a_model": True}

    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        for req in requests:
            text, probs = instant_reply(req)
            yield Response(req.id, text, len(req.prompt) // 4, max(1, len(text) // 4), 0.0, "stop", probs)

    def perplexity(self, texts: Sequence[str]) -> Iterator[PerplexityResult]:
        for i, text in enumerate(texts):
            words = len(text.split())
            yield PerplexityResult.from_nll(i, max(0, words - 1), 2.0 * max(0, words - 1), 0.0)
