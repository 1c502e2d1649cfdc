"""Benchmark: the paper's whole grid (config/paper.yaml) run end to end on this
machine with ``engine: instant`` (no model), to measure the pipeline itself.

What it does, in a fresh working folder (``--workdir``, default
``/tmp/authbench-rehearsal``):

1. writes an overlay on ``config.yaml`` + ``config/paper.yaml`` that changes
   only what a machine without GPUs, weights or internet cannot do:
   * every model of the paper's grid -> ``engine: instant`` (same names, so
     the same cells and jobs; every reply marked ``not_a_model`` in the
     manifests and the cache);
   * DomainAuth's homepage texts: the real offline ``fetch_urllog`` runs,
     then a **stand-in** ``texts.tsv`` (``text_max_words`` words per
     legitimate domain, each text starting ``[rehearsal stand-in]``) is put
     where ``fetch_webtext`` writes it, and that one job is marked done with
     ``snakemake --touch`` (it needs the live web);
   * self-preference: instant replies never contain a gold answer, so the
     passages evaluators write here are all dropped; the study's ``authors``
     and each evaluator's "self" become the released authors (stand-ins),
     same jobs;
   * RAGAuth: a **generated stand-in** of 120 questions x 10 documents
     (``ragauth_standin.json``, questions say so; domains and PageRanks drawn
     from the real DomainAuth table), because the release is not here;
2. plans the run (``snakemake -n``) and runs it (``--cores``), every step
   appending its wall time, CPU time and exact peak RSS to a usage log
   (``AUTHBENCH_USAGE_LOG``, see :mod:`authbench.cli`); Snakemake's own
   process is sampled with psutil;
3. prints Markdown tables: jobs and time per stage (rule), peak RSS per job
   kind, files and bytes in the cache and in ``results/``, the pipeline's own
   cost per prompt against the GPU-hours the same prompts would take
   (``2 x parameters x tokens`` at ``--utilisation`` of ``--peak-tflops``, as
   benchmarks/paper_scale.py), and model loads per model with and without
   ``vllm.serve`` with estimated load hours (``--load-fixed-s`` engine
   start-up + bf16 weights read at ``--load-gbps``).

    python benchmarks/paper_rehearsal.py [--workdir DIR] [--cores 2] [--keep]

Numbers from this machine are in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Mapping

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from standins import RAG_DOCS, RAG_QUESTIONS, job_counts, merged_config, prepare_inputs, snakemake  # noqa: E402

# Parameter counts from the model cards (billions), for the GPU time of the computed prompts.
PARAMS_B = {
    "Qwen/Qwen3-8B": 8.2,
    "Qwen/Qwen3-14B": 14.8,
    "Qwen/Qwen3-32B": 32.8,
    "meta-llama/Meta-Llama-3-8B-Instruct": 8.03,
    "meta-llama/Llama-3.1-8B-Instruct": 8.03,
    "mistralai/Mistral-7B-Instruct-v0.3": 7.25,
}  # hosted evaluators (gpt-3.5-turbo, gpt-4o-mini, gemini-2.0-flash) use no GPU of yours: not counted
# Rules whose jobs load their model (MODEL_RESOURCES/JUDGE_RESOURCES in rules/).
MODEL_RULES = ("authority_judge", "models_serve", "ragauth_rank", "ragauth_answer", "selfpref_generate",
               "selfpref_knowledge", "selfpref_perplexity", "selfpref_rerank", "selfpref_compare")


# --- 1. the rehearsal's inputs ---------------------------------------------------

def overlay(config: dict, workdir: Path) -> dict:
    # the context limit prompts must fit stays the paper's (vllm.max_model_len)
    models = {name: ({"engine": "instant", "threads": 1, "gpus": 0, "mem_mb": 1000,
                      "n_ctx": (spec.get("vllm") or {}).get("max_model_len") or spec.get("n_ctx") or 4096}
                     if spec else None)
              for name, spec in config["models"].items()}
    over = {"models": models, "ragauth": {"source": str(workdir / "ragauth_standin.json")}}
    sp = config.get("selfpref") or {}
    released = {p["author"] for d in (sp.get("datasets") or {}).values() if d
                for src in d["sources"] for p in src["passages"]}
    if sp and not set(sp["authors"]) <= released:
        # instant replies never contain the gold, so every passage an evaluator
        # writes is dropped: the self-preference authors and "self"s become the
        # released ones (same jobs; the generate jobs still run and are measured)
        stand_in = sorted(released - {"human"})
        evaluators = [m for m, author in sp["self"].items() if author is not None]
        over["selfpref"] = {"authors": ["human"] + stand_in, "self": {
            m: sp["self"][m] if sp["self"][m] in released else stand_in[i % len(stand_in)]
            for i, m in enumerate(evaluators)}}
    return over


# --- 2. running ------------------------------------------------------------------

def planned_jobs(out: str) -> list[tuple[str, dict]]:
    """(rule, wildcards) of every job in ``snakemake -n``'s listing."""
    jobs, rule = [], None
    for line in out.splitlines():
        s = line.strip()
        if s.startswith(("rule ", "localrule ")) and s.endswith(":"):
            rule = s.split()[1].rstrip(":")
            jobs.append((rule, {}))
        elif s.startswith("wildcards:") and rule:
            jobs[-1][1].update(kv.strip().split("=", 1) for kv in s[len("wildcards:"):].split(",") if "=" in kv)
    return jobs


class PeakSampler(threading.Thread):
    """Peak RSS of one process (Snakemake's own), sampled every ``interval`` s."""

    def __init__(self, pid: int, interval: float = 0.5):
        super().__init__(daemon=True)
        import psutil

        self.proc, self.interval, self.peak, self.stop = psutil.Process(pid), interval, 0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, self.proc.memory_info().rss)
            except Exception:  # the process ended
                return
            time.sleep(self.interval)


def tree_size(path: Path) -> tuple[int, int]:
    files = size = 0
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            files += 1
            size += p.stat().st_size
    return files, size


# --- 3. report ----------------------------------------------------------------------

def cached_records(cache: Path):
    """Every reply record in the shard cache (each computed prompt once)."""
    for shard in sorted((cache / "shards").glob("*.jsonl")):
        with open(shard, encoding="utf-8") as fh:
            next(fh, None)
            for line in fh:
                try:
                    yield json.loads(line)["r"]
                except (ValueError, KeyError):
                    continue


def fmt(x: float, digits: int = 0) -> str:
    return f"{x:,.{digits}f}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="config/paper.yaml")
    ap.add_argument("--workdir", default="/tmp/authbench-rehearsal")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="reuse the working folder (a resumed run)")
    ap.add_argument("--report-only", action="store_true",
                    help="print the tables again from a finished rehearsal in --workdir (plans are redone)")
    ap.add_argument("--utilisation", type=float, default=0.40)
    ap.add_argument("--peak-tflops", type=float, default=312.0)
    ap.add_argument("--load-fixed-s", type=float, default=90.0,
                    help="vLLM start-up besides reading weights (CUDA init, graph capture, warm-up)")
    ap.add_argument("--load-gbps", type=float, default=1.0, help="weights read from the cluster filesystem, GB/s")
    ap.add_argument("--overlay", action="append", default=[], type=Path,
                    help="a further configfile after the rehearsal's (a reduced rehearsal, e.g. one study or model; "
                         "the paper plan is then not the same: say so where you quote its numbers)")
    args = ap.parse_args(argv)
    args.overlay = [p.resolve() for p in args.overlay]  # before the chdir into the working folder

    work = Path(args.workdir).resolve()
    if args.report_only:
        report(work, args)
        return
    locks = work / ".snakemake" / "locks"
    if locks.is_dir() and any(locks.iterdir()):
        sys.exit(f"{work} is locked by a running Snakemake (or one that was killed: `snakemake --unlock` there); "
                 "choose another --workdir")
    if work.exists() and not args.keep:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    for name in ("resources", "config"):
        if not (work / name).exists():
            (work / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "config.yaml", work / "config.yaml")
    os.chdir(work)
    config = merged_config(ROOT / args.config)
    over = overlay(config, work)
    (work / "rehearsal.yaml").write_text(yaml.safe_dump(over, sort_keys=False))
    configs = [work / "config.yaml", ROOT / args.config, work / "rehearsal.yaml", *args.overlay]
    usage = work / "usage.jsonl"
    env = {**os.environ, "AUTHBENCH_USAGE_LOG": str(usage),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

    stage_wall: dict[str, float] = {}
    t0 = time.perf_counter()
    n_texts = prepare_inputs(work, configs, config, args.cores, env)
    stage_wall["inputs (stand-ins, fetch_urllog)"] = time.perf_counter() - t0

    # the plan of the paper's config with the stand-in RAGAuth file (no instant overlay), made in report()
    (work / "plan.yaml").write_text(yaml.safe_dump({"ragauth": over["ragauth"]}))

    t = time.perf_counter()
    log = open(work / "snakemake.log", "w")
    sm = subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(work),
                           "--configfile", *map(str, configs), "--cores", str(args.cores), "--keep-going"],
                          stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work)
    sampler = PeakSampler(sm.pid)
    sampler.start()
    code = sm.wait()
    sampler.stop.set()
    run_wall = time.perf_counter() - t
    stage_wall["snakemake run"] = run_wall
    if code:
        sys.exit(f"the rehearsal failed (exit {code}); see {work / 'snakemake.log'}")

    (work / "rehearsal_state.json").write_text(json.dumps(
        {"inputs_s": stage_wall["inputs (stand-ins, fetch_urllog)"], "run_s": run_wall,
         "snakemake_peak_rss": sampler.peak, "n_texts": n_texts}) + "\n")
    report(work, args)


def analysis_layer(results: Path, by_step: Mapping[str, list[dict]]) -> None:
    """The analysis layer at paper counts: the per-unit Parquet files,
    the comparisons, and the CPU time and peak RSS of the steps that compute
    the intervals (evaluate: every cell's; the report steps: tables and
    paired comparisons)."""
    import pyarrow.parquet as pq

    files = sorted(results.rglob("*.parquet"))
    rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    size = sum(f.stat().st_size for f in files)
    in_cells = [f for f in files if "/cells/" in str(f)]
    print("Analysis layer: per-unit records and intervals.\n")
    print("| what | files | rows | MB |\n|---|---:|---:|---:|")
    print(f"| per-unit Parquet, cells | {len(in_cells):,} | "
          f"{sum(pq.ParquetFile(f).metadata.num_rows for f in in_cells):,} | "
          f"{sum(f.stat().st_size for f in in_cells) / 1e6:,.1f} |")
    print(f"| per-unit Parquet, all | {len(files):,} | {rows:,} | {size / 1e6:,.1f} |")
    comparisons = sorted(results.rglob("comparisons.tsv"))
    n_comp = sum(max(0, len(f.read_text().splitlines()) - 1) for f in comparisons)
    print(f"| comparisons.tsv | {len(comparisons)} | {n_comp:,} | "
          f"{sum(f.stat().st_size for f in comparisons) / 1e6:,.2f} |\n")
    print("| steps | jobs | CPU s (sum) | CPU s per job (max) | peak RSS MB (max) |\n|---|---:|---:|---:|---:|")
    for rule in sorted(r for r in by_step if r.endswith(("_evaluate", "_report", "_baselines"))):
        steps = by_step[rule]
        print(f"| {rule} | {len(steps)} | {fmt(sum(s['cpu_s'] for s in steps), 1)} | "
              f"{fmt(max(s['cpu_s'] for s in steps), 1)} | {fmt(max(s['peak_rss_mb'] for s in steps))} |")
    print()


def report(work: Path, args) -> None:
    """The tables, from a finished rehearsal in ``work`` (the two plans are made again)."""
    os.chdir(work)
    config = merged_config(ROOT / args.config)
    configs = [work / "config.yaml", ROOT / args.config, work / "rehearsal.yaml", *args.overlay]
    results, cache = Path(config["results"]), Path(config["cache"])
    state = json.loads((work / "rehearsal_state.json").read_text()) if (work / "rehearsal_state.json").is_file() else {}
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("AUTHBENCH_USAGE_LOG", None)
    t = time.perf_counter()
    paper_plan = snakemake(work, configs[:2] + [work / "plan.yaml"] + configs[3:], "-n", "--cores", "8", "--forceall",
                           env=env)
    paper_dry = time.perf_counter() - t
    t = time.perf_counter()
    plan = snakemake(work, configs, "-n", "--cores", str(args.cores), "--forceall", env=env)
    dry = time.perf_counter() - t
    for p in (paper_plan, plan):
        if p.returncode:
            sys.exit(f"snakemake -n failed:\n{(p.stdout + p.stderr)[-3000:]}")
    paper_jobs, jobs = job_counts(paper_plan.stdout + paper_plan.stderr), job_counts(plan.stdout + plan.stderr)
    listing = planned_jobs(plan.stdout + plan.stderr)
    steps = [json.loads(line) for line in (work / "usage.jsonl").read_text().splitlines()]
    failed = [s for s in steps if s["exit"]]
    if failed:
        sys.exit(f"{len(failed)} steps failed: {failed[:3]}")
    run_wall = state.get("run_s", float("nan"))
    n_texts = state.get("n_texts", 0)

    # --- plan
    print(f"## Paper rehearsal ({args.config}, engine: instant, {args.cores} cores)\n")
    print(f"`snakemake -n` of the paper config (with the RAGAuth stand-in present): {paper_dry:.1f} s; of the "
          f"rehearsal overlay: {dry:.1f} s. Jobs by rule, paper plan vs rehearsal plan "
          f"(fetch_webtext is stood in: marked done with `--touch`):\n")
    print("| rule | paper plan | rehearsal |\n|---|---:|---:|")
    for rule in sorted(set(paper_jobs) | set(jobs), key=lambda r: (r == "total", r)):
        print(f"| {rule} | {paper_jobs.get(rule, 0)} | {jobs.get(rule, 0)} |")
    same = {k: v for k, v in paper_jobs.items()} == jobs
    print(f"\nSame jobs: **{'yes' if same else 'NO'}**. Inputs: {n_texts:,} stand-in homepage texts, "
          f"{RAG_QUESTIONS} x {RAG_DOCS} stand-in RAGAuth questions.\n")

    # --- stages and memory
    by_step: dict[str, list[dict]] = defaultdict(list)
    for s in steps:
        by_step[s["step"].replace("-", "_")].append(s)
    print(f"Wall time: inputs {state.get('inputs_s', float('nan')):.0f} s, Snakemake run "
          f"**{run_wall / 60:.1f} min** ({len(steps)} steps). Peak RSS of Snakemake itself: "
          f"{state.get('snakemake_peak_rss', float('nan')) / 2**20:,.0f} MB (sampled every 0.5 s).\n")
    print("Per job kind (exact peak RSS of each step's process, the kernel's high-water mark; goal < 1 GB):\n")
    print("| rule | jobs | wall s (sum) | wall s (max) | CPU s (sum) | peak RSS MB (max) | largest job |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for rule, rows in sorted(by_step.items(), key=lambda kv: -sum(r["wall_s"] for r in kv[1])):
        top = max(rows, key=lambda r: r["peak_rss_mb"])
        where = next((str(v[0] if isinstance(v, list) else v) for k, v in top["files"].items()
                      if k in ("responses", "judgments", "out", "outdir") and v), "")
        where = where.replace(str(results) + "/", "")
        print(f"| {rule} | {len(rows)} | {fmt(sum(r['wall_s'] for r in rows), 1)} | {fmt(max(r['wall_s'] for r in rows), 1)} "
              f"| {fmt(sum(r['cpu_s'] for r in rows), 1)} | {fmt(top['peak_rss_mb'])} | `{where}` |")
    worst = max(steps, key=lambda r: r["peak_rss_mb"])
    print(f"\nLargest peak RSS of any step: **{worst['peak_rss_mb']:,.0f} MB** ({worst['step']}).\n")

    # --- files
    cache_files, cache_bytes = tree_size(cache)
    res_files, res_bytes = tree_size(results)
    manifest_paths = sorted(results.rglob("manifest.json"))
    manifests = [json.loads(p.read_text()) for p in manifest_paths]
    cells = [m for m in manifests if "engine_calls" in m]
    not_marked = [str(p) for p, m in zip(manifest_paths, manifests) if "engine_calls" in m and m.get("engine_calls")
                  and not all(e.get("not_a_model") for e in m.get("engines_used", []))]
    prompts = sum(m.get("n_calls", m.get("n", 0)) for m in cells)
    print("| where | files | MB |\n|---|---:|---:|")
    print(f"| cache (`{cache}`) | {cache_files:,} | {cache_bytes / 1e6:,.1f} |")
    print(f"| results (`{results}`) | {res_files:,} | {res_bytes / 1e6:,.1f} |")
    print(f"\nModel cells that wrote a manifest: {len(cells)}; cache files per cell: "
          f"{cache_files / max(1, len(cells)):.2f} (goal <= 2). Bad cache records counted: "
          f"{sum(sum(m.get('cache_problems', {}).values()) for m in cells)}. Manifests of computed cells "
          f"whose engines are not all marked `not_a_model`: {len(not_marked)} {not_marked[:3]}.\n")

    analysis_layer(results, by_step)

    # --- cost per prompt vs GPU hours
    models = {name: spec for name, spec in config["models"].items() if spec}
    flops = args.utilisation * args.peak_tflops * 1e12
    gpu_s, computed, gpu_s_of = 0.0, 0, Counter()
    for rec in cached_records(cache):
        identity = rec.get("engine") or {}
        params = PARAMS_B.get(identity.get("model"))
        if params and "prompt_tokens" in rec:
            sec = 2 * params * 1e9 * (rec["prompt_tokens"] + rec.get("completion_tokens", 0)) / flops
            gpu_s += sec
            gpu_s_of[identity["model"]] += sec
            computed += 1
    cpu_all = sum(s["cpu_s"] for s in steps)
    judge_cpu = sum(s["cpu_s"] for s in by_step.get("authority_judge", []))
    judge_prompts = sum(m.get("n_calls", 0) for m in cells if str(m.get("cell", "")).count("/") >= 4
                        and "ragauth" not in str(m.get("cell")) and "selfpref" not in str(m.get("cell")))
    print(f"Prompts answered by the model cells: {prompts:,} ({computed:,} computed once, the rest from the cache). "
          f"GPU time of the computed prompts at paper models' sizes: **{gpu_s / 3600:,.1f} GPU-hours** "
          f"(2 x parameters x (prompt + reply tokens), {args.utilisation:.0%} of {args.peak_tflops:g} TFLOP/s).\n")
    print("| pipeline cost | seconds | per prompt (µs) | share of the GPU-hours |\n|---|---:|---:|---:|")
    for label, sec, n in (("every step's CPU time", cpu_all, prompts),
                          ("authority_judge steps' CPU time", judge_cpu, judge_prompts),
                          (f"rehearsal wall x {args.cores} cores", run_wall * args.cores, prompts)):
        print(f"| {label} | {fmt(sec)} | {fmt(1e6 * sec / max(1, n))} | {100 * sec / max(gpu_s, 1e-9):.3f} % |")
    print()

    # --- model loads
    per_model: dict[str, Counter] = defaultdict(Counter)
    for rule, wc in listing:
        if rule in MODEL_RULES and wc.get("model") in models:
            per_model[wc["model"]][rule] += 1
    loaded = Counter(next((part for part in p.parts if part in models), None)
                     for p, m in zip(manifest_paths, manifests) if m.get("engine_calls"))
    print(f"Model loads of a Slurm run of this plan (one per job that runs the model; with `vllm.serve: true` "
          f"all of a model's authority_judge cells share one `vllm serve`). Load time estimated as "
          f"{args.load_fixed_s:g} s + bf16 weights (2 bytes x parameters) at {args.load_gbps:g} GB/s.\n")
    print("| model | jobs that load it | loads, in-process vllm | loads, vllm.serve | est. s per load "
          "| load hours, in-process | load hours, serve | GPU-hours of its prompts | serve group wall h |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    tot = Counter()
    for name, spec in models.items():
        c = per_model.get(name, Counter())
        params = PARAMS_B.get(spec["model"], 0)
        hosted = spec.get("engine") == "openai"  # an API: nothing to load on your GPUs
        per_load = 0.0 if hosted else args.load_fixed_s + 2 * params / args.load_gbps
        plain = sum(c.values())
        served = plain - c["authority_judge"] + (1 if c["authority_judge"] else 0)
        detail = ", ".join(f"{r} {n}" for r, n in sorted(c.items()))
        own_h = gpu_s_of[spec["model"]] / 3600
        print(f"| {name} | {detail} | {plain} | {served} | {per_load:.0f} | {plain * per_load / 3600:.2f} | "
              f"{served * per_load / 3600:.2f} | {own_h:.1f} | {own_h / max(1, int(spec.get('gpus', 1))):.1f} |")
        tot.update({"plain": plain, "served": served, "plain_h": plain * per_load / 3600,
                    "served_h": served * per_load / 3600})
    print(f"| **all** | | **{tot['plain']}** | **{tot['served']}** | | **{tot['plain_h']:.2f}** | "
          f"**{tot['served_h']:.2f}** | **{gpu_s / 3600:.1f}** | |\n")
    print("Serve group wall h: a served model's judge cells run in ONE allocation (a Snakemake service group), "
          "so it must be granted about the model's GPU-hours / its GPUs of wall time (upper bound: the cells "
          "of other studies are outside the group); compare with the partition's time limit.\n")
    if any(loaded.values()):
        print("Cells that computed anything in this rehearsal (the others were answered from the cache): "
              + ", ".join(f"{k}: {v}" for k, v in sorted(loaded.items(), key=str)) + "\n")


if __name__ == "__main__":
    main()
