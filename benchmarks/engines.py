"""The same judge cells through four paths, one table:

  (a) raw ``vllm.LLM.chat`` on the pipeline's prompts (one batched call, the
      same SamplingParams and structured outputs);
  (b) the pipeline's ``vllm`` engine (generate_replies: request building, chunks,
      response records; no cache, so every prompt is computed);
  (c) the pipeline's ``openai`` engine against ``vllm serve`` of the same
      environment on 127.0.0.1 (load = server start until /health answers;
      RSS = the server's);
  (d) the pipeline's ``llamacpp`` engine on the GGUF (chat template, slot decoding).

Prompts: DomainAuth cells of the demo data with the instruct model
(Qwen2.5-Coder-0.5B-Instruct; bfloat16 safetensors for vLLM, Q4_K_M GGUF for
llama.cpp): a PointJudge cell over ``--domains`` domains and a PairJudge-
PointScore cell over fine lists (35 comparisons each), constrained.

Needs .venv-vllm (``make vllm-env``) and the converted model folder (the
models_convert rule, e.g. ``snakemake results/models/<model>-hf`` with a vllm
model in the config); pass them with --model-dir and --gguf.

    .venv/bin/python benchmarks/engines.py --model-dir results/models/qwen-hf --gguf results/models/qwen.gguf
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VLLM_PY = ROOT / ".venv-vllm" / "bin" / "python"
CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
OPTIONS = {"dtype": "bfloat16", "max_model_len": 1024, "engine_args": {"enforce_eager": True}, "env": CPU_ENV,
           "chunk_size": 512}


def build_requests(n_domains: int, n_lists: int) -> list[dict]:
    from authbench.studies.authority.domains import build_domains
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests as cell_requests
    from authbench.studies.authority.sampling import sample_all

    domains, _ = build_domains(ROOT / "resources/data/domainauth/urls_openpagerank.csv", "legitimate", {}, {})
    sets = sample_all(domains, {"fine_lists": n_lists, "coarse_lists": 1, "easy_pairs": 1, "hard_pairs": 1,
                                "easy_min_delta": 5, "hard_max_delta": 2, "anchors": 5, "bias_per_level": n_domains // 10,
                                "bias_per_category": 0}, 13)
    prompts = ROOT / "resources/prompts/domainauth"
    point = cell_requests("point", "bias", sets["bias"], load_template(prompts / "point_wo_text.yaml"), 13)
    pair = cell_requests("pair_score", "fine", sets["fine"], load_template(prompts / "pair_score_wo_text.yaml"), 13)
    return point[:n_domains] + pair


# --- the paths (each runs in its own process, for its peak RSS) -------------------

RAW = r"""
import json, os, resource, sys, time
for k, v in json.loads(sys.argv[3]).items(): os.environ[k] = v
import vllm
from vllm.sampling_params import SamplingParams, StructuredOutputsParams
from authbench.llm.grammars import grammar_for, token_budget
reqs = json.load(open(sys.argv[2]))
t = time.perf_counter()
llm = vllm.LLM(model=sys.argv[1], dtype="bfloat16", max_model_len=1024, enforce_eager=True, enable_prefix_caching=True, seed=0)
load = time.perf_counter() - t
params, shared = [], {}
for r in reqs:
    key = (token_budget(r["output"], r["n"], True, 48), grammar_for(r["output"], r["n"]))
    if key not in shared:
        shared[key] = SamplingParams(temperature=0.0, top_p=1.0, seed=0, max_tokens=key[0],
                                     structured_outputs=StructuredOutputsParams(grammar=key[1]))
    params.append(shared[key])
t = time.perf_counter()
outs = llm.chat([[{"role": "user", "content": r["prompt"]}] for r in reqs], sampling_params=params, use_tqdm=False,
                chat_template_kwargs={"enable_thinking": False})
wall = time.perf_counter() - t
print("RESULT " + json.dumps({"load": load, "wall": wall, "prompt_tokens": sum(len(o.prompt_token_ids) for o in outs),
      "texts": [o.outputs[0].text for o in outs], "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

PIPELINE = r"""
import json, resource, sys, time
from authbench.config import GenerateConfig
from authbench.llm.engines.base import create_engine
from authbench.llm.runner import generate_replies
cfg, model_path, reqs = json.loads(sys.argv[1]), sys.argv[2] or None, json.load(open(sys.argv[3]))
t = time.perf_counter()
engine = create_engine(cfg, model_path)
load = time.perf_counter() - t
t = time.perf_counter()
responses, stats = generate_replies(reqs, engine, GenerateConfig(max_tokens=48), True, cache=None)
wall = time.perf_counter() - t
print("RESULT " + json.dumps({"load": load, "wall": wall, "prompt_tokens": sum(r.prompt_tokens for r in responses),
      "texts": [r.text for r in responses], "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(python: Path, script: str, *args: str, env: dict | None = None) -> dict:
    proc = subprocess.run([str(python), "-c", script, *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=3600)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if proc.returncode != 0 or line is None:
        raise SystemExit(f"path failed:\n{proc.stderr[-3000:]}")
    return json.loads(line[7:])


def vm_hwm_mb(pid: int) -> float:
    """Peak resident memory of a process and its children (VmHWM, summed)."""
    total = 0.0
    pids = [pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                                  text=True).stdout.split()]
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1]) / 1024
        except FileNotFoundError:
            pass
    return total


def served(model_dir: str, reqs_path: str) -> dict:
    from authbench.llm.serve import free_port, wait_healthy

    port = free_port()
    cmd = [str(VLLM_PY), "-m", "vllm.entrypoints.openai.api_server", "--model", model_dir, "--host", "127.0.0.1",
           "--port", str(port), "--served-model-name", "model", "--dtype", "bfloat16", "--max-model-len", "1024",
           "--enforce-eager", "--seed", "0"]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env={**os.environ, **CPU_ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc, timeout=1200)
        load = time.perf_counter() - t
        cfg = {"engine": "openai", "model": "model", "prompt_format": "chat",
               "openai": {"base_url": f"http://127.0.0.1:{port}/v1", "grammar_field": "structured_outputs",
                          "concurrency": 16, "extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}}
        out = run(Path(sys.executable), PIPELINE, json.dumps(cfg), "", reqs_path)
        out.update(load=load, rss_mb=vm_hwm_mb(proc.pid), client_rss_mb=out["rss_mb"])
        return out
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", required=True, help="the converted safetensors folder (models_convert)")
    ap.add_argument("--gguf", required=True, help="the same model's GGUF (models_assemble)")
    ap.add_argument("--domains", type=int, default=60)
    ap.add_argument("--lists", type=int, default=2)
    args = ap.parse_args()
    reqs = build_requests(args.domains, args.lists)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(reqs, fh)
    vllm_cfg = {"engine": "vllm", "model": "parts:qwen2.5-coder-0.5b-instruct-q4_k_m", "prompt_format": "chat",
                "vllm": OPTIONS}
    llama_cfg = {"engine": "llamacpp", "model": "parts:qwen2.5-coder-0.5b-instruct-q4_k_m", "prompt_format": "chat",
                 "constrain_with": "slots", "n_ctx": 2048, "threads": os.cpu_count()}
    paths = {
        "(a) raw vllm.LLM.chat": lambda: run(VLLM_PY, RAW, args.model_dir, fh.name, json.dumps(CPU_ENV)),
        "(b) pipeline vllm engine": lambda: run(VLLM_PY, PIPELINE, json.dumps(vllm_cfg), args.model_dir, fh.name),
        "(c) pipeline openai -> vllm serve": lambda: served(args.model_dir, fh.name),
        "(d) pipeline llamacpp (GGUF)": lambda: run(Path(sys.executable), PIPELINE, json.dumps(llama_cfg), args.gguf, fh.name),
    }
    results = {}
    for name, fn in paths.items():
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results[name] = fn()
    raw = results["(a) raw vllm.LLM.chat"]
    print(f"\n{len(reqs)} prompts ({args.domains} PointJudge + {len(reqs) - args.domains} PairJudge-PointScore), "
          f"constrained, {os.cpu_count()} CPU cores\n")
    print("| path | prompts/s | prompt tokens/s | model load s | peak RSS GB | vs raw vLLM | same replies as (a) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        rate = len(reqs) / r["wall"]
        rel = "" if r is raw else f"{100 * (raw['wall'] / r['wall'] - 1):+.1f} %"
        same = sum(a == b for a, b in zip(r["texts"], raw["texts"]))
        print(f"| {name} | {rate:.2f} | {r['prompt_tokens'] / r['wall']:.0f} | {r['load']:.1f} | "
              f"{r['rss_mb'] / 1024:.2f} | {rel} | {same}/{len(reqs)} |")
    os.unlink(fh.name)


if __name__ == "__main__":
    main()
