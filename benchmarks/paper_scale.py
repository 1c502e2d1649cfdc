"""Benchmark: how big is the paper's grid (config/paper.yaml)?

Prints, as Markdown tables to paste into README:

1. planning -- wall time of ``snakemake -n --configfile config/paper.yaml``
   from an empty working folder (no results, no weights, no GPU; best of
   ``--repeats``; target < 20 s on the 2-core development VM) and its jobs by
   rule;
2. prompts -- every request of every cell at paper counts, built in-process
   with the package's own code on the real data in resources/ (the same
   ``build_domains``/``sample_all``/``build_entities``/``sample_entity_sets``
   calls and seeds as the workflow's rules, then
   ``authbench.llm.runner.build_requests`` per cell): total prompts vs unique
   prompts, unique = distinct (model, prompt, max_tokens, grammar) -- what
   the content-addressed response cache computes once (e.g. PointJudge cells
   of different settings ask about the same domains);
3. cost -- prompt tokens estimated as characters / 4, reply tokens as a
   complete reply's budget (``grammars.max_tokens_for``), and GPU-hours from
   2 x parameters x tokens FLOPs at a stated utilisation of a stated peak
   (default: 40 % of an A100's 312 TFLOP/s bf16) over the unique prompts.

Stated simplifications: the with-text condition needs homepage texts fetched
from the live web, which this script does not do: each domain gets a stand-in
text of ``text_max_words`` words (a real homepage often gives fewer, so the
w_text token counts are an upper bound; the number of prompts is exact if
every domain yields text). Chat-template tokens (~15-30 per prompt) are not
counted. Prefix caching (vLLM computes a cell's shared template prefix once)
is not credited, so prefill FLOPs are an upper bound; decoding is partly
memory-bound, so its share is a lower bound. The GPU-hour column is an order
of magnitude for budgeting, not a measurement.

    python benchmarks/paper_scale.py [--config config/paper.yaml] [--repeats 3]
        [--utilisation 0.4] [--peak-tflops 312]
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

# Parameter counts from the model cards (billions).
PARAMS_B = {
    "Qwen/Qwen3-8B": 8.2,
    "Qwen/Qwen3-14B": 14.8,
    "Qwen/Qwen3-32B": 32.8,
    "meta-llama/Meta-Llama-3-8B-Instruct": 8.03,
    "meta-llama/Llama-3.1-8B-Instruct": 8.03,
    "mistralai/Mistral-7B-Instruct-v0.3": 7.25,
}  # hosted evaluators (gpt-3.5-turbo, gpt-4o-mini, gemini-2.0-flash) use no GPU of yours: not counted
CHARS_PER_TOKEN = 4
STAND_IN_WORDS = (
    "welcome to our official site find news services products and support information about our organization "
    "read the latest updates contact us learn more about our history mission and team browse resources reports "
    "events and publications sign in to your account or create a new one to access member content"
).split()


def merged_config(path: Path) -> dict:
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    update_config(config, yaml.safe_load(path.read_text()))
    return config


# --- 1. planning -------------------------------------------------------------

def job_counts(out: str) -> dict[str, int]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Job stats:"))
    counts = {}
    for line in lines[start + 3:]:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            break
        counts[parts[0]] = int(parts[1])
    return counts


def time_dry_run(config_rel: str, repeats: int) -> tuple[list[float], dict[str, int]]:
    times, counts = [], {}
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("config.yaml", "resources", "profiles", "config"):
                (Path(tmp) / name).symlink_to(ROOT / name)
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", tmp,
                 "--configfile", config_rel, "-n", "--cores", "8"],
                capture_output=True, text=True, cwd=tmp)
            times.append(time.perf_counter() - start)
            if proc.returncode != 0:
                sys.exit(f"snakemake -n failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
            counts = job_counts(proc.stdout + proc.stderr)
    return times, counts


# --- 2. prompts -----------------------------------------------------------------

def stand_in_texts(domains, max_words: int) -> dict[str, str]:
    words = (STAND_IN_WORDS * (max_words // len(STAND_IN_WORDS) + 1))[: max_words - 2]
    return {d: " ".join([d, "-", *words]) for d in domains}


def instance_sets(config: dict) -> dict[str, dict[str, list[dict]]]:
    """benchmark dataset -> setting -> instances, as the workflow's rules build them."""
    from authbench.config import entity_datasets, entity_settings
    from authbench.studies.authority.domains import build_domains
    from authbench.studies.authority.entities import build_entities, entity_item
    from authbench.studies.authority.sampling import sample_all, sample_entity_sets

    seed = config["seed"]
    out = {}
    dom = config["domainauth"]
    if "domainauth" in config["studies"]:
        texts = None
        if "w_text" in config["contexts"]:
            plain, _ = build_domains(dom["source"], dom.get("status_filter"), dom["categories"])
            texts = stand_in_texts([d.domain for d in plain], dom.get("text_max_words", 100))
        domains, _ = build_domains(dom["source"], dom.get("status_filter"), dom["categories"], texts)
        out["domainauth"] = sample_all(domains, dom["sampling"], seed)
    ea = config.get("entityauth") or {}
    for bench in entity_datasets(config):
        name = bench.split("/", 1)[1]
        spec = ea["datasets"][name]
        entities, _ = build_entities(spec["source"], spec.get("corpus"), seed, name)
        items = [entity_item(e) for e in entities]
        coarse = ea["coarse_lists"] if "coarse" in entity_settings(config) else None
        out[bench] = sample_entity_sets(items, ea["lists"], coarse, ea["anchors"], seed, name)
    return out


def template_path(config: dict, bench: str, judge: str, context: str) -> Path:
    prompts = ROOT / config["prompts"]
    if bench == "domainauth":
        return prompts / "domainauth" / f"{judge}_{context}.yaml"
    name = bench.split("/", 1)[1]
    folder = config["entityauth"]["datasets"][name].get("prompts", name)
    return prompts / "entityauth" / folder / f"{judge}_{context}.yaml"


def count_prompts(config: dict) -> dict:
    """Per model: prompts, unique prompts, characters and reply tokens of the
    unique prompts, and the costliest cell. A cell's prompts do not depend on
    the model (same templates), so each (benchmark, judge, context, setting)
    is rendered once; its token budgets do (generate.max_tokens), so unique
    prompts are counted per budget cap (models with the same cap share a set)."""
    from authbench.config import GenerateConfig, active_models, cells
    from authbench.llm.grammars import max_tokens_for, token_budget
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests

    constrained = config["constrained_decoding"]
    instances = instance_sets(config)
    judges = {c.model for c in cells(config)}  # a model's `studies` key may keep it out of AuthorityBench
    models = {m: spec for m, spec in active_models(config).items() if m in judges}
    caps = {m: GenerateConfig().merge(spec.get("generate")).max_tokens for m, spec in models.items()}
    grid = cells(config)
    models_of: dict[tuple, list[str]] = defaultdict(list)
    for cell in grid:
        models_of[(cell.dataset, cell.judge, cell.context, cell.setting)].append(cell.model)
    stats = {m: Counter() for m in models}
    seen: dict[int, dict[tuple, None]] = defaultdict(dict)  # cap -> unique keys (insertion-ordered set)
    unique_by_cap: dict[int, Counter] = defaultdict(Counter)
    largest = (0.0, None)
    max_chars = 0
    for key, cell_models in models_of.items():
        bench, judge, context, setting = key
        template = load_template(template_path(config, bench, judge, context))
        reqs = build_requests(judge, setting, instances[bench][setting], template, config["seed"])
        cell_tokens = 0.0
        for cap in sorted({caps[m] for m in cell_models}):
            ukeys, uniq = seen[cap], unique_by_cap[cap]
            for r in reqs:
                fmt, n, chars = r["output"], r["n"], len(r["prompt"])
                budget = token_budget(fmt, n, constrained, cap)
                ukey = (hashlib.blake2b(r["prompt"].encode(), digest_size=16).digest(), budget,
                        (fmt, n) if constrained else None)
                if ukey not in ukeys:
                    ukeys[ukey] = None
                    uniq["unique"] += 1
                    uniq["unique_chars"] += chars
                    uniq["unique_reply"] += max_tokens_for(fmt, n)
        for r in reqs:
            chars = len(r["prompt"])
            max_chars = max(max_chars, chars)
            cell_tokens += chars / CHARS_PER_TOKEN + max_tokens_for(r["output"], r["n"])
        for m in cell_models:
            stats[m]["prompts"] += len(reqs)
            stats[m]["cells"] += 1
        if cell_tokens > largest[0]:
            largest = (cell_tokens, "/".join(key))
    for m in models:
        stats[m].update(unique_by_cap[caps[m]])
    return {"stats": stats, "largest": largest, "max_prompt_chars": max_chars, "cells": len(grid)}


# --- 3. report ------------------------------------------------------------------

def fmt_int(x: float) -> str:
    return f"{x:,.0f}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="config/paper.yaml", help="overlay on config.yaml, relative to the repository")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--utilisation", type=float, default=0.40, help="fraction of peak FLOP/s reached")
    ap.add_argument("--peak-tflops", type=float, default=312.0, help="per GPU, dense bf16 (A100: 312)")
    args = ap.parse_args(argv)

    import os

    os.chdir(ROOT)  # config paths are relative to the repository
    config = merged_config(ROOT / args.config)

    times, jobs = time_dry_run(args.config, args.repeats)
    start = time.perf_counter()
    counted = count_prompts(config)
    build_seconds = time.perf_counter() - start

    models = {m: config["models"][m] for m in counted["stats"]}  # the AuthorityBench judges
    flops_per_gpu = args.utilisation * args.peak_tflops * 1e12

    print(f"## Paper-scale grid ({args.config})\n")
    print(f"`snakemake -n --configfile {args.config}` from an empty folder, best of {args.repeats}: "
          f"**{min(times):.1f} s** (all runs: {', '.join(f'{t:.1f}' for t in times)} s; target < 20 s).\n")
    print("| rule | jobs |\n|---|---:|")
    for rule, n in jobs.items():
        if rule != "total":
            print(f"| {rule} | {n} |")
    print(f"| **total** | **{jobs.get('total', sum(jobs.values()))}** |\n")

    stats, largest = counted["stats"], counted["largest"]
    print(f"Prompts of all {counted['cells']} judge cells, built in-process at paper counts "
          f"({build_seconds:.0f} s). Tokens = characters / {CHARS_PER_TOKEN} (prompt) + a complete reply's "
          f"budget; GPU-hours = 2 x parameters x tokens of the unique prompts at "
          f"{args.utilisation:.0%} of {args.peak_tflops:g} TFLOP/s per GPU (A100 bf16 dense); "
          "largest cell = wall hours of the costliest cell on the model's GPUs with nothing cached.\n")
    print("| model | params | GPUs | prompts | unique prompts | saved by the cache | prompt tokens (unique) "
          "| reply tokens (unique) | GPU-hours | largest cell (h) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    total = Counter()
    total_gpu_h = 0.0
    for name, spec in models.items():
        st = stats[name]
        params = PARAMS_B.get(spec["model"])
        gpus = max(1, int(spec.get("gpus", 1)))
        tokens = st["unique_chars"] / CHARS_PER_TOKEN + st["unique_reply"]
        if params is None:
            gpu_h = cell_h = float("nan")
        else:
            gpu_h = 2 * params * 1e9 * tokens / flops_per_gpu / 3600
            cell_h = 2 * params * 1e9 * largest[0] / (flops_per_gpu * gpus) / 3600
            total_gpu_h += gpu_h
        saved = 1 - st["unique"] / st["prompts"] if st["prompts"] else 0.0
        print(f"| {name} | {params or '?'}B | {gpus} | {fmt_int(st['prompts'])} | {fmt_int(st['unique'])} | "
              f"{saved:.1%} | {fmt_int(st['unique_chars'] / CHARS_PER_TOKEN)} | {fmt_int(st['unique_reply'])} | "
              f"{gpu_h:,.1f} | {cell_h:.2f} |")
        total.update(st)
    saved = 1 - total["unique"] / total["prompts"] if total["prompts"] else 0.0
    print(f"| **all** | | | **{fmt_int(total['prompts'])}** | **{fmt_int(total['unique'])}** | **{saved:.1%}** | "
          f"**{fmt_int(total['unique_chars'] / CHARS_PER_TOKEN)}** | **{fmt_int(total['unique_reply'])}** | "
          f"**{total_gpu_h:,.1f}** | |\n")
    print(f"Largest cell: `{largest[1]}` (per model; the same prompts for every model). Longest prompt: "
          f"{counted['max_prompt_chars']:,} characters (~{counted['max_prompt_chars'] // CHARS_PER_TOKEN:,} tokens). "
          "w_text prompts use a stand-in text of `text_max_words` words per domain (an upper bound; "
          "the real texts come from the live fetch).")


if __name__ == "__main__":
    main()
