"""The demo's time as a newcomer sees it: a fresh clone, an empty pip cache,
`make install` then `make demo`, and where the minutes go.

Prints, as Markdown tables:

* install: the whole `make install`, the llama-cpp-python compile inside it
  (from pip's own timestamped log) and the rest (downloads, other wheels);
* the workflow: wall time, and per rule the jobs, their summed job seconds and
  the span from the first start to the last finish (Snakemake's run log);
* per model: engine calls, prompt and completion tokens, engine seconds, model
  loads and prompt tokens/s over every cell's manifest;
* per model: the engine's bare rate on the same prompts: the prompts of the
  demo's DomainAuth PairJudge-Rank fine cell (rebuilt from the run's own
  instances and template) evaluated by llama.cpp alone, each from an empty
  context ("cold") and in prefix order reusing the previous prompt's KV cache
  (what the pipeline's slot decoding does), against the pipeline's own rate on
  that cell.

    python3 benchmarks/demo_time.py                         # clone HEAD, make install, make demo
    python3 benchmarks/demo_time.py --config config/demo_full.yaml   # the larger grid (make run CONFIG=...)
    python3 benchmarks/demo_time.py --workdir DIR --no-run  # the breakdown of a finished run in DIR

Only committed files are cloned. Uses no network beyond what pip needs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIP_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d),(\d+) (.*)$")
SNAKE_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
BARE_CELL = ("pair_rank", "fine")  # the cell whose prompts measure the bare rate


def run(cmd: list[str], cwd: Path, env: dict, log: Path) -> float:
    start = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.run(cmd, check=False, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): see {log}")
    return seconds


def compile_seconds(pip_log: Path, dist: str = "llama-cpp-python") -> float | None:
    """Seconds pip spent building ``dist``'s wheel, from its timestamped log."""
    start = end = None
    if not pip_log.exists():
        return None
    for line in pip_log.read_text(errors="replace").splitlines():
        m = PIP_STAMP.match(line)
        if not m or dist not in m.group(3):
            continue
        stamp = datetime.fromisoformat(m.group(1)).timestamp() + int(m.group(2)) / 1000
        if "Building wheel for" in m.group(3) and start is None:
            start = stamp
        elif start is not None and ("Created wheel for" in m.group(3) or "finished with status" in m.group(3)):
            end = stamp
    return end - start if start is not None and end is not None else None


def rule_spans(snakemake_log: Path) -> dict[str, dict]:
    """Per rule: jobs, summed job seconds, first start and last finish (epoch s)."""
    started: dict[str, tuple[str, float]] = {}
    out: dict[str, dict] = defaultdict(lambda: {"jobs": 0, "busy": 0.0, "first": None, "last": None})
    stamp, rule = None, None
    for line in snakemake_log.read_text(errors="replace").splitlines():
        m = SNAKE_STAMP.match(line.strip())
        if m:
            stamp = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y").timestamp()
            continue
        m = re.match(r"^(?:local)?rule (\w+):$", line.strip())
        if m:
            rule = m.group(1)
            continue
        m = re.match(r"^\s*jobid: (\d+)$", line)
        if m and rule and stamp is not None:
            started[m.group(1)] = (rule, stamp)
            rule = None
            continue
        m = re.match(r"^Finished jobid: (\d+)", line.strip())
        if m and m.group(1) in started and stamp is not None:
            name, begin = started.pop(m.group(1))
            row = out[name]
            row["jobs"] += 1
            row["busy"] += stamp - begin
            row["first"] = begin if row["first"] is None else min(row["first"], begin)
            row["last"] = stamp if row["last"] is None else max(row["last"], stamp)
    return dict(out)


def manifests(results: Path, models: list[str]) -> dict[str, dict]:
    """Per model: the sums over every model cell's manifest (the cell id names the model)."""
    per: dict[str, dict] = defaultdict(lambda: defaultdict(float))
    for path in results.rglob("manifest.json"):
        try:
            m = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if "engine_seconds" not in m or "cell" not in m:
            continue
        model = next((part for part in m["cell"].split("/") if part in models), None)
        if model is None:
            continue
        row = per[model]
        row["cells"] += 1
        for key in ("n_calls", "engine_calls", "cache_hits", "prompt_tokens", "completion_tokens", "engine_seconds",
                    "model_load_seconds"):
            row[key] += float(m.get(key) or 0)
    return {k: dict(v) for k, v in per.items()}


def bare_rates(work: Path, config: dict) -> list[dict]:
    """Each llama.cpp model's bare prompt rate on the demo's PairJudge-Rank fine prompts."""
    from authbench.llm.engines.base import Request, prefix_order
    from authbench.llm.engines.llamacpp import LlamaCppEngine
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests

    results = work / config["results"]
    judge, setting = BARE_CELL
    instances_file = results / "domainauth" / "instances" / f"{setting}.jsonl"
    if not instances_file.exists():
        return []
    instances = [json.loads(line) for line in instances_file.read_text().splitlines() if line.strip()]
    template = load_template(work / config["prompts"] / "domainauth" / f"{judge}_wo_text.yaml")
    requests = build_requests(judge, setting, instances, template, config["seed"])
    rows = []
    for name, model in config["models"].items():
        gguf = results / "models" / f"{name}.gguf"
        manifest = results / "domainauth" / "cells" / name / judge / "wo_text" / setting / "manifest.json"
        if model.get("engine") != "llamacpp" or not gguf.exists() or not manifest.exists():
            continue
        engine = LlamaCppEngine(model, gguf)
        prompts = [engine._prompt_tokens(r["prompt"]) for r in requests]
        llm = engine.llm
        start = time.perf_counter()
        for tokens in prompts:  # cold: every prompt from an empty context
            llm.reset()
            llm._ctx.kv_cache_clear()
            llm.eval(tokens)
        cold = time.perf_counter() - start
        order = prefix_order([Request(id=r["request_id"], prompt=r["prompt"], max_tokens=1) for r in requests])
        llm.reset()
        llm._ctx.kv_cache_clear()
        start = time.perf_counter()
        for i in order:  # the suffix that differs from the previous prompt only
            engine._logits_after(prompts[i])
        reuse = time.perf_counter() - start
        engine.close()
        n = sum(len(t) for t in prompts)
        m = json.loads(manifest.read_text())
        pipeline = m["prompt_tokens"] / m["engine_seconds"] if m.get("engine_seconds") else None
        rows.append({"model": name, "prompts": len(prompts), "tokens": n, "cold": n / cold, "reuse": n / reuse,
                     "pipeline": pipeline, "hits": m.get("cache_hits", 0)})
    return rows


def fmt_s(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s" if seconds >= 60 else f"{seconds:.1f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, help="clone here (default: a new temporary folder)")
    ap.add_argument("--config", help="an overlay run with `make run CONFIG=...` instead of `make demo`")
    ap.add_argument("--no-run", action="store_true", help="only report on the finished run in --workdir")
    ap.add_argument("--no-bare", action="store_true", help="skip the bare llama.cpp rate")
    ap.add_argument("--timings", default="{}", help=argparse.SUPPRESS)  # the run's timings, for the report step
    args = ap.parse_args()
    work = (args.workdir or Path(tempfile.mkdtemp(prefix="demo-time-")) / "clone").resolve()
    timings = json.loads(args.timings)
    if not args.no_run:
        if work.exists():
            sys.exit(f"{work} exists: give a new --workdir, or --no-run to report on it")
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(work)], check=True)
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        cache = Path(tempfile.mkdtemp(prefix="pip-cache-"))  # nothing cached: every wheel built or fetched
        env.update(PIP_CACHE_DIR=str(cache), PIP_NO_CACHE_DIR="1", PIP_LOG=str(work / "pip.log"),
                   AUTHBENCH_WHEEL_CACHE=str(cache / "authbench-wheels"))  # no llama-cpp-python build kept either
        timings["install"] = run(["make", "install"], work, env, work / "install.log")
        timings["compile"] = compile_seconds(work / "pip.log")
        shutil.rmtree(cache, ignore_errors=True)
        target = ["make", "run", f"CONFIG={args.config}"] if args.config else ["make", "demo"]
        timings["workflow"] = run(target, work, env, work / "demo.log")
    venv_python = work / ".venv" / "bin" / "python"
    if Path(sys.prefix).resolve() != (work / ".venv").resolve():  # report with the clone's own package
        again = [str(venv_python), str(Path(__file__).resolve()), "--workdir", str(work), "--no-run",
                 "--timings", json.dumps(timings)]
        again += (["--config", args.config] if args.config else []) + (["--no-bare"] if args.no_bare else [])
        os.execv(again[0], again)
    report(work, args.config, timings, bare=not args.no_bare)


def report(work: Path, overlay: str | None, timings: dict, bare: bool) -> None:
    import yaml

    config = yaml.safe_load((work / "config.yaml").read_text())
    if overlay:
        config.update(yaml.safe_load((work / overlay).read_text()))
    logs = sorted((work / ".snakemake" / "log").glob("*.snakemake.log"))
    spans = rule_spans(logs[-1]) if logs else {}
    print(f"\nDemo time: {work} ({os.cpu_count()} cores){' config ' + overlay if overlay else ''}\n")
    print("| step | wall |\n|---|---:|")
    if "install" in timings:
        print(f"| make install | {fmt_s(timings['install'])} |")
        print(f"| &nbsp; of it the llama-cpp-python compile | {fmt_s(timings['compile'])} |")
        print(f"| make {'run' if overlay else 'demo'} (the workflow) | {fmt_s(timings['workflow'])} |")
        print(f"| **total** | **{fmt_s(timings['install'] + timings['workflow'])}** |")
    if spans:
        first = min(r["first"] for r in spans.values())
        last = max(r["last"] for r in spans.values())
        print(f"| workflow, first job start to last finish | {fmt_s(last - first)} |")
        print(f"\n{sum(r['jobs'] for r in spans.values())} jobs\n")
        print("| rule | jobs | job seconds | span |\n|---|---:|---:|---:|")
        for name, r in sorted(spans.items(), key=lambda kv: -kv[1]["busy"]):
            print(f"| {name} | {r['jobs']} | {r['busy']:.0f} | {fmt_s(r['last'] - r['first'])} |")
    per = manifests(work / config["results"], [name for name, spec in config["models"].items() if spec])
    if per:
        print("\n| model | cells | engine calls | cache hits | prompt tokens | completion tokens | engine s | "
              "model loads s | prompt tok/s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        total: dict = defaultdict(float)
        for model, r in sorted(per.items()):
            for k, v in r.items():
                total[k] += v
            print(model_row(model, r))
        print(model_row("all", total))
    rows = bare_rates(work, config) if bare else []
    if rows:
        print(f"\nBare llama.cpp on the same prompts (DomainAuth {'/'.join(BARE_CELL)} cell, prompt evaluation "
              "only), tokens/s\n")
        print("| model | prompts | prompt tokens | bare, cold | bare, prefix reuse | pipeline (this cell) |\n"
              "|---|---:|---:|---:|---:|---:|")
        for r in rows:
            pipe = f"{r['pipeline']:,.0f}" if r["pipeline"] and not r["hits"] else "n/a (cached)"
            print(f"| {r['model']} | {r['prompts']} | {r['tokens']:,} | {r['cold']:,.0f} | {r['reuse']:,.0f} | "
                  f"{pipe} |")


def model_row(model: str, r: dict) -> str:
    rate = r["prompt_tokens"] / r["engine_seconds"] if r["engine_seconds"] else 0
    return (f"| {model} | {r['cells']:.0f} | {r['engine_calls']:,.0f} | {r['cache_hits']:,.0f} | "
            f"{r['prompt_tokens']:,.0f} | {r['completion_tokens']:,.0f} | {r['engine_seconds']:,.0f} | "
            f"{r['model_load_seconds']:.0f} | {rate:,.0f} |")


if __name__ == "__main__":
    main()
