"""The OpenAI-compatible engine: scripted loopback servers (bodies, order,
concurrency, retries, key handling). llama-cpp-python's real server:
tests/workflow/test_engine_openai_real_server.py."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time

import pytest
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.engines.openai_compat import OpenAICompatEngine, OpenAIEngineError
from loopback import Loopback, Reply, jittered

KEY = "sk-test-Zq81xVw3secret"
AB = 'root ::= "A" | "B"'


def completion(text, usage=True, finish="stop"):
    body = {"id": "cmpl-1", "object": "text_completion", "model": "m",
            "choices": [{"index": 0, "text": text, "finish_reason": finish}]}
    if usage:
        body["usage"] = {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
    return body


def chat(text, usage=True):
    body = {"id": "chat-1", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}]}
    if usage:
        body["usage"] = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    return body


def prompt_of(seen):
    body = json.loads(seen.body)
    return body["prompt"] if "prompt" in body else body["messages"][0]["content"]


def engine(url, prompt_format="completion", **openai):
    cfg = {"engine": "openai", "model": "served-model", "prompt_format": prompt_format,
           "openai": {"base_url": url + "/v1", **openai}}
    return OpenAICompatEngine(cfg, None, backoff=0.01, max_backoff=5.0)


# --- bodies and parsing ----------------------------------------------------
def test_completion_body_usage_and_grammar():
    with Loopback(lambda s: Reply(200, completion("<" + prompt_of(s) + ">"))) as srv:
        eng = engine(srv.url)
        reqs = [Request("r1", "Rate nasa.gov:", 5, grammar=AB, slots=(("choice", ("A", "B")),)),
                Request("r2", "Free text:", 9)]
        out = list(eng.generate(reqs, GenerateConfig(temperature=0.5, top_p=0.9, seed=7, max_tokens=48)))
    assert [r.id for r in out] == ["r1", "r2"]
    assert [r.text for r in out] == ["<Rate nasa.gov:>", "<Free text:>"]
    assert all(r.prompt_tokens == 7 and r.completion_tokens == 2 and r.finish_reason == "stop" for r in out)
    assert all(r.seconds > 0 for r in out)
    assert {s.path for s in srv.seen} == {"/v1/completions"} and all(s.method == "POST" for s in srv.seen)
    bodies = {json.loads(s.body)["prompt"]: json.loads(s.body) for s in srv.seen}
    assert bodies["Rate nasa.gov:"] == {"model": "served-model", "prompt": "Rate nasa.gov:", "temperature": 0.5,
                                        "top_p": 0.9, "seed": 7, "max_tokens": 5, "n": 1, "grammar": AB}
    assert "grammar" not in bodies["Free text:"] and bodies["Free text:"]["max_tokens"] == 9
    assert all("authorization" not in {k.lower() for k in s.headers} for s in srv.seen)


def test_chat_body_and_missing_usage():
    with Loopback(lambda s: Reply(200, chat("reply to " + prompt_of(s), usage=False))) as srv:
        eng = engine(srv.url, prompt_format="chat")
        out = list(eng.generate([Request("c1", "Hello?", 3, grammar=AB)], GenerateConfig()))
    assert srv.seen[0].path == "/v1/chat/completions"
    body = json.loads(srv.seen[0].body)
    assert body["messages"] == [{"role": "user", "content": "Hello?"}] and "prompt" not in body
    assert body["model"] == "served-model" and body["max_tokens"] == 3 and body["temperature"] == 0.0
    assert body["grammar"] == AB and body["n"] == 1
    assert out[0].text == "reply to Hello?" and out[0].finish_reason == "length"
    assert (out[0].prompt_tokens, out[0].completion_tokens) == (0, 0)


def test_registered_and_identity(monkeypatch):
    monkeypatch.setenv("AB_TEST_KEY", KEY)
    cfg = {"engine": "openai", "model": "qwen", "prompt_format": "chat",
           "openai": {"base_url": "http://user:pw@127.0.0.1:9/v1?token=x", "api_key_env": "AB_TEST_KEY"}}
    eng = create_engine(cfg, None)
    assert isinstance(eng, OpenAICompatEngine)
    ident = eng.identity()
    assert ident["engine"] == "openai" and ident["model"] == "qwen" and ident["prompt_format"] == "chat"
    assert ident["base_url"] == "http://127.0.0.1:9/v1" and ident["engine_version"]
    assert KEY not in json.dumps(ident) and KEY not in repr(eng)
    assert (eng.concurrency, eng.retries, eng.timeout) == (4, 5, 120.0)


def test_extra_body_is_sent_and_part_of_identity():
    with Loopback(lambda s: Reply(200, completion("x"))) as srv:
        cfg = {"engine": "openai", "model": "m", "openai": {"base_url": srv.url + "/v1"}}
        plain = OpenAICompatEngine(cfg, None)
        eng = OpenAICompatEngine(cfg, None, extra_body={"repeat_penalty": 1.0})
        list(eng.generate([Request("r", "p", 2)], GenerateConfig()))
    assert json.loads(srv.seen[0].body)["repeat_penalty"] == 1.0
    assert eng.identity()["extra_body"] == {"repeat_penalty": 1.0} and "extra_body" not in plain.identity()


def test_missing_key_variable_is_named(monkeypatch):
    monkeypatch.delenv("AB_ABSENT_KEY", raising=False)
    with pytest.raises(ValueError, match="AB_ABSENT_KEY"):
        engine("http://127.0.0.1:9", api_key_env="AB_ABSENT_KEY")


# --- order, concurrency, streaming -------------------------------------------
def test_order_kept_and_concurrency_bounded():
    n, limit = 9, 3
    lock = threading.Lock()
    state = {"now": 0, "max": 0}
    finished = []

    def handler(seen):
        k = int(prompt_of(seen).split()[-1])
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.03 * (n - k))  # earlier requests answer later
        with lock:
            state["now"] -= 1
            finished.append(k)
        return Reply(200, completion(f"answer {k}"))

    with Loopback(handler) as srv:
        out = list(engine(srv.url, concurrency=limit).generate(
            [Request(f"id{k}", f"prompt {k}", 4) for k in range(n)], GenerateConfig()))
    assert [r.id for r in out] == [f"id{k}" for k in range(n)]
    assert [r.text for r in out] == [f"answer {k}" for k in range(n)]
    assert state["max"] == limit
    assert finished != sorted(finished)  # the server really answered out of order


def test_yields_before_slow_requests_finish():
    def handler(seen):
        return Reply(200, completion("x"), delay=0.0 if prompt_of(seen) == "p0" else 1.2)

    with Loopback(handler) as srv:
        gen = engine(srv.url, concurrency=4).generate([Request(f"r{k}", f"p{k}", 2) for k in range(4)],
                                                        GenerateConfig())
        start = time.perf_counter()
        first = next(gen)
        first_at = time.perf_counter() - start
        rest = list(gen)
        total = time.perf_counter() - start
    assert first.id == "r0" and first_at < 0.6
    assert [r.id for r in rest] == ["r1", "r2", "r3"] and total < 2.4  # the slow three ran together


def test_stopping_early_cancels_the_rest():
    with Loopback(lambda s: Reply(200, completion("x"), delay=0.0 if prompt_of(s) == "p0" else 0.4)) as srv:
        gen = engine(srv.url, concurrency=1).generate([Request(f"r{k}", f"p{k}", 2) for k in range(20)],
                                                        GenerateConfig())
        assert next(gen).id == "r0"
        start = time.perf_counter()
        gen.close()
        assert time.perf_counter() - start < 1.0
        time.sleep(0.5)
    assert len(srv.seen) <= 3


# --- retries ---------------------------------------------------------------
def scripted(*replies):
    """A handler answering with ``replies`` in turn, then the last one forever."""
    it = iter(replies)
    last = [None]

    def handler(seen):
        last[0] = next(it, last[0])
        return last[0]

    return handler


def test_429_retry_after_is_honoured():
    ok = Reply(200, completion("done"))
    with Loopback(scripted(Reply(429, {"error": "slow down"}, {"Retry-After": "0.3"}), ok)) as srv:
        eng = engine(srv.url)
        eng.backoff = 3.0  # proves the wait came from Retry-After, not the backoff
        start = time.perf_counter()
        out = list(eng.generate([Request("q", "p", 2)], GenerateConfig()))
        took = time.perf_counter() - start
    assert out[0].text == "done" and len(srv.seen) == 2
    assert eng.waits == [0.3] and 0.3 <= took < 2.0


def test_500_then_success_with_backoff():
    with Loopback(scripted(Reply(500, "boom"), Reply(502, "bad gateway"), Reply(200, completion("ok")))) as srv:
        eng = engine(srv.url)
        out = list(eng.generate([Request("q", "p", 2)], GenerateConfig()))
    assert out[0].text == "ok" and len(srv.seen) == 3 and jittered(eng.waits, [0.01, 0.02])


def test_timeout_then_success():
    with Loopback(scripted(Reply(200, completion("late"), delay=1.5), Reply(200, completion("fast")))) as srv:
        eng = engine(srv.url, timeout=0.3)
        start = time.perf_counter()
        out = list(eng.generate([Request("q", "p", 2)], GenerateConfig()))
        took = time.perf_counter() - start
    assert out[0].text == "fast" and len(srv.seen) == 2 and len(eng.waits) == 1 and took < 1.2


def test_connection_refused_names_request():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    eng = engine(f"http://127.0.0.1:{port}", retries=1)
    with pytest.raises(OpenAIEngineError, match=r"request 'gone'.*connection failed.*2 attempts"):
        list(eng.generate([Request("gone", "p", 2)], GenerateConfig()))


def test_persistent_failure_names_request_after_earlier_responses(monkeypatch, caplog):
    monkeypatch.setenv("AB_TEST_KEY", KEY)

    def handler(seen):
        if prompt_of(seen) == "bad":
            return Reply(503, f"overloaded; your header was {seen.headers.get('Authorization')}")
        return Reply(200, completion("fine"))

    with Loopback(handler) as srv, caplog.at_level(logging.WARNING, logger="authbench.llm.engines.openai"):
        eng = engine(srv.url, api_key_env="AB_TEST_KEY", retries=2, concurrency=1)
        got = []
        with pytest.raises(OpenAIEngineError) as info:
            for resp in eng.generate([Request("first", "ok", 2), Request("doomed-7", "bad", 2),
                                      Request("third", "never", 2)], GenerateConfig()):
                got.append(resp.id)
    msg = str(info.value)
    assert got == ["first"]
    assert "'doomed-7'" in msg and "HTTP 503" in msg and "3 attempts" in msg
    assert KEY not in msg and "Bearer ***" in msg  # the server echoed the key; it is scrubbed
    assert KEY not in caplog.text and "doomed-7" in caplog.text
    assert [prompt_of(s) for s in srv.seen] == ["ok", "bad", "bad", "bad"]  # 'third' never sent
    assert all(s.headers.get("Authorization") == f"Bearer {KEY}" for s in srv.seen)


def test_client_error_is_not_retried_and_hides_key(monkeypatch):
    monkeypatch.setenv("AB_TEST_KEY", KEY)
    with Loopback(lambda s: Reply(401, {"error": f"invalid key {KEY}"})) as srv:
        eng = engine(srv.url, api_key_env="AB_TEST_KEY")
        with pytest.raises(OpenAIEngineError) as info:
            list(eng.generate([Request("auth-1", "p", 2)], GenerateConfig()))
    assert len(srv.seen) == 1 and srv.seen[0].headers["Authorization"] == f"Bearer {KEY}"
    assert "'auth-1'" in str(info.value) and "HTTP 401" in str(info.value) and KEY not in str(info.value)


def test_answer_without_choices_fails_clearly():
    with Loopback(lambda s: Reply(200, {"object": "error"})) as srv:
        with pytest.raises(OpenAIEngineError, match=r"request 'r'.*choices"):
            list(engine(srv.url).generate([Request("r", "p", 2)], GenerateConfig()))


# --- what the server says it ran: the manifest's provenance ---------------------
def test_served_model_and_fingerprint_reach_the_manifest_without_the_key(monkeypatch, tmp_path):
    """The ``model`` and ``system_fingerprint`` of the answers are the cell's
    ``provenance.served`` (distinct pairs of the replies computed now; a cached
    rerun has none); a key the server echoes is scrubbed, and the key in the
    environment is nowhere in the manifest."""
    from authbench.cells import CellStep
    from authbench.llm.runner import run_requests

    template = tmp_path / "t.yaml"
    template.write_text("template")
    monkeypatch.setenv("AB_TEST_KEY", KEY)
    fingerprints = iter(["fp_1", "fp_2", "fp_1", f"fp_{KEY}"])

    def handler(seen):
        return Reply(200, {**completion("A"), "model": "served-real", "system_fingerprint": next(fingerprints)})

    cfg = {"engine": "openai", "model": "served-model", "prompt_format": "completion",
           "openai": {"base_url": "", "api_key_env": "AB_TEST_KEY", "concurrency": 1}}
    requests = [{"request_id": f"r{i}", "prompt": f"p{i}", "output": "pair_choice", "n": 2} for i in range(4)]
    out = {name: str(tmp_path / f"{name}.json") for name in ("responses", "judgments", "manifest")}
    with Loopback(handler) as srv:
        cfg["openai"]["base_url"] = srv.url + "/v1"
        run = run_requests(requests, cfg, None, "c", cache_dir=str(tmp_path / "cache"), constrained=False)
        CellStep("c", cfg, out, str(template)).write(run)
        text = (tmp_path / "manifest.json").read_text()
        assert KEY not in text and KEY not in json.dumps(run.stats.served)
        assert json.loads(text)["provenance"]["served"] == [
            {"model": "served-real", "system_fingerprint": fp} for fp in ("fp_***", "fp_1", "fp_2")]
        cached = run_requests(requests, cfg, None, "c", cache_dir=str(tmp_path / "cache"), constrained=False)
    assert len(srv.seen) == 4 and cached.stats.cache_hits == 4
    CellStep("c", cfg, out, str(template)).write(cached)
    assert "served" not in json.loads((tmp_path / "manifest.json").read_text())["provenance"]
