"""engine: instant — a deterministic reply that parses, for every format,
constrained or free, marked as no model."""

import pytest

from authbench.config import GenerateConfig
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.grammars import slots_for
from authbench.llm.parse import OUTPUT_FORMATS, parse_reply

LISTS = ("ranking", "list_scores", "utility")


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
@pytest.mark.parametrize("constrained", [True, False])
def test_every_format_parses_and_is_deterministic(fmt, constrained):
    engine = create_engine({"engine": "instant", "model": "rehearsal"}, None)
    n = 10 if fmt in LISTS else None
    reqs = [Request(f"r{i}", f"prompt {i} of {fmt}", 64, slots=slots_for(fmt, n) if constrained else None,
                    output=fmt, n=n) for i in range(30)]
    first = [r.text for r in engine.generate(reqs, GenerateConfig())]
    again = [r.text for r in engine.generate(reqs, GenerateConfig())]
    assert first == again and len(set(first)) > 1  # deterministic, and not one reply for every prompt
    assert all(parse_reply(fmt, text, n).status == "ok" for text in first)


def test_free_text_and_identity():
    engine = create_engine({"engine": "instant", "model": "rehearsal"}, None)
    (resp,) = engine.generate([Request("q", "which passage?", 24, output="free")], GenerateConfig())
    assert resp.text.startswith("Answer: instant reply") and resp.text.rstrip(".")[-1] in "12"
    assert engine.identity()["not_a_model"] is True and engine.identity()["engine"] == "instant"
    (ppl,) = engine.perplexity(["four words in here"])
    assert ppl.tokens == 3
