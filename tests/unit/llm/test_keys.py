"""Issue 46: API keys (M1: a key with a stray newline or another character
outside printable ASCII; L5: the per-service key of ``vllm serve``). Only
loopback servers; the served model is a stand-in for vLLM's server that
does what it does with ``VLLM_API_KEY`` (401 without the key, ``/health``
open); tests/vllm/test_vllm.py checks the real server's 401."""

from __future__ import annotations

import json
import logging
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from authbench.config import GenerateConfig
from authbench.errors import KeyFormatError
from authbench.fetch.pagerank import api_key_from_env
from authbench.llm.engines.base import Request
from authbench.llm.engines.openai_compat import OpenAICompatEngine, OpenAIEngineError
from authbench.llm.serve import key_file, served_engine_config, wait_for_server
from loopback import Loopback, Reply

ROOT = Path(__file__).resolve().parents[3]
KEY = "sk-test-46-Vq7rKey"
COMPLETION = {"choices": [{"index": 0, "text": "ok", "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


def engine(url: str, **openai) -> OpenAICompatEngine:
    cfg = {"engine": "openai", "model": "m", "prompt_format": "completion",
           "openai": {"base_url": url + "/v1", "retries": 3, **openai}}
    return OpenAICompatEngine(cfg, None, backoff=0.01, max_backoff=0.05)


# ------------------------------------------------------------------ M1


@pytest.mark.parametrize("ending", ["\n", "\t", "\r\n", " \n"])
def test_M1_a_key_with_a_trailing_newline_is_stripped(monkeypatch, ending):
    monkeypatch.setenv("AB_TEST_KEY", KEY + ending)
    with Loopback(lambda seen: Reply(200, COMPLETION)) as srv:
        out = list(engine(srv.url, api_key_env="AB_TEST_KEY").generate([Request("r", "p", 2)], GenerateConfig()))
    assert out[0].text == "ok" and srv.seen[0].headers["Authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("bad", ["sk-\n-inner", "sk-\x01-soh", "sk-ключ", "sk-\x7f-del"])
def test_M1_a_key_outside_printable_ascii_is_a_named_error_naming_only_the_variable(monkeypatch, bad):
    monkeypatch.setenv("AB_TEST_KEY", bad)
    with pytest.raises(KeyFormatError) as err:
        engine("http://127.0.0.1:9", api_key_env="AB_TEST_KEY")
    assert "AB_TEST_KEY" in str(err.value) and "sk-" not in str(err.value)
    monkeypatch.setenv("OPR_TEST_KEY", bad)  # the Open PageRank key too
    with pytest.raises(KeyFormatError) as err:
        api_key_from_env("OPR_TEST_KEY")
    assert "OPR_TEST_KEY" in str(err.value) and "sk-" not in str(err.value)


def test_M1_a_request_that_cannot_be_sent_is_not_retried_and_names_only_its_type(monkeypatch, caplog):
    """httpx/h11 reject an illegal header with a message that quotes it: one
    attempt, no retry log, the error names the exception's type only."""
    monkeypatch.setenv("AB_TEST_KEY", KEY)
    with Loopback(lambda seen: Reply(200, COMPLETION)) as srv, \
            caplog.at_level(logging.WARNING, logger="authbench.llm.engines.openai"):
        eng = engine(srv.url, api_key_env="AB_TEST_KEY")
        eng._key = KEY + "\n"  # what the engine sent before the key was stripped
        with pytest.raises(OpenAIEngineError) as err:
            list(eng.generate([Request("r", "p", 2)], GenerateConfig()))
    assert srv.seen == [] and eng.waits == [] and "retry" not in caplog.text
    assert "LocalProtocolError" in str(err.value) and KEY not in str(err.value)
    assert "Bearer" not in str(err.value) and KEY not in caplog.text


# ------------------------------------------------------------------ L5

FAKE_VLLM = r'''
"""A stand-in for vLLM's OpenAI server: --port, VLLM_API_KEY, 401 without it."""
import json, os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

port = int(sys.argv[sys.argv.index("--port") + 1])
key = os.environ.get("VLLM_API_KEY")

class H(BaseHTTPRequestHandler):
    def _reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._reply(200, {}) if self.path == "/health" else self._reply(404, {})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if key and self.headers.get("Authorization") != f"Bearer {key}":
            return self._reply(401, {"error": "Unauthorized"})
        self._reply(200, {"model": "model", "choices": [{"index": 0, "text": "served", "finish_reason": "stop"}],
                          "usage": {"prompt_tokens": 1, "completion_tokens": 1}})

    def log_message(self, *a):
        pass

HTTPServer(("127.0.0.1", port), H).serve_forever()
'''


def fake_vllm(folder: Path) -> Path:
    pkg = folder / "vllm" / "entrypoints" / "openai"
    pkg.mkdir(parents=True)
    for part in (folder / "vllm", folder / "vllm" / "entrypoints", pkg):
        (part / "__init__.py").write_text("")
    (pkg / "api_server.py").write_text(FAKE_VLLM)
    return folder


def test_L5_vllm_serve_gets_a_per_service_key_that_cells_read_from_a_0600_file(tmp_path):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    service = tmp_path / "servers" / "m.json"
    model = {"engine": "vllm", "model": str(model_dir), "prompt_format": "completion", "vllm": {"serve": True},
             "generate": {"max_tokens": 4}}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake_vllm(tmp_path / "fake")),
                                                         os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "authbench.cli", "models-serve", "--model-dir", str(model_dir),
                             "--out", str(service), "--params", json.dumps({"model": model})],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        info = wait_for_server(service, timeout=60)
        keyfile = key_file(service)
        assert keyfile == service.with_name("m.key") and keyfile.is_file()
        assert stat.S_IMODE(keyfile.stat().st_mode) == 0o600
        key = keyfile.read_text().strip()
        assert len(key) >= 32 and key not in service.read_text()
        server_argv = Path(f"/proc/{info['pid']}/cmdline").read_bytes().decode()
        assert key not in server_argv and "--api-key" not in server_argv
        # without the key: 401; the cells' engine reads it from the file and is served
        answer = httpx.post(info["base_url"] + "/completions", json={"model": "model", "prompt": "p"}, timeout=5)
        assert answer.status_code == 401
        config = served_engine_config(model, info, service)
        assert key not in json.dumps(config) and config["openai"]["api_key_file"] == str(keyfile)
        out = list(OpenAICompatEngine(config).generate([Request("r", "p", 2)], GenerateConfig()))
        assert out[0].text == "served"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert not key_file(service).exists()  # removed when the service stops
    assert key not in err and json.loads(service.read_text())["status"] == "stopped"


def test_L5_a_cell_without_its_server_key_file_is_a_named_error(tmp_path):
    config = served_engine_config({"prompt_format": "completion", "generate": {}}, {"served_model_name": "model",
                                                                   "base_url": "http://127.0.0.1:9/v1"},
                                  tmp_path / "servers" / "gone.json")
    with pytest.raises(Exception, match="API key file .*gone.key cannot be read"):
        OpenAICompatEngine(config)


def test_L5_the_key_file_is_created_0600_from_the_start(tmp_path, monkeypatch):
    from authbench.llm import serve

    modes = []
    real_open = os.open

    def spy(path, flags, mode=0o777, *args, **kwargs):
        modes.append(mode)
        return real_open(path, flags, mode, *args, **kwargs)

    monkeypatch.setattr(serve.os, "open", spy)
    old = tmp_path / "m.key"
    old.write_text("stale")
    old.chmod(0o644)
    key = serve.write_key(old)
    assert modes == [0o600] and stat.S_IMODE(old.stat().st_mode) == 0o600 and old.read_text() == key + "\n"
