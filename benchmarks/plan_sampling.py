"""Benchmark: the plan's sampled totals against the exact ones
(``plan.sample``; :mod:`authbench.plan.sample`).

For a config whose inputs are built (``--workdir``: a folder where
``snakemake plan`` ran, or one this script prepares), the plan is made
once counting every request (``sample: null``) and once per ``--samples``
size, in process; per model the table sets prompt tokens, reusable tokens
and engine hours with reuse (at the reply-length estimate; for a model
with a configured rate: a calibrated one changes from one plan to the
next) of each sampled plan beside the exact ones, with the sampled 95% interval and whether the
exact total lies inside it, and each plan's wall time.

    python benchmarks/plan_sampling.py --demo                 # the demo (builds its inputs first)
    python benchmarks/plan_sampling.py --paper                # the paper grid with stand-in texts and RAGAuth file
    python benchmarks/plan_sampling.py --paper --workdir DIR --samples 50 10
    python benchmarks/plan_sampling.py --paper --without Qwen3-8B Qwen3-14B Qwen3-32B   # an exact count in minutes

``--without`` leaves models out of both plans (their cells are the other
models' prompts; the Qwen3 sizes, counted with the Qwen2.5 GGUF's
vocabulary, take most of an exact count's time).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def prepare(work: Path, paper: bool, cores: int) -> list[Path]:
    """The config files of ``work``, after building what the plan reads (unless built)."""
    from standins import merged_config, prepare_inputs, snakemake

    configs = [work / "config.yaml"] + ([ROOT / "config" / "paper.yaml", work / "standin.yaml"] if paper else [])
    if (work / "config.yaml").exists():
        return configs
    work.mkdir(parents=True, exist_ok=True)
    for name in ("resources", "config"):
        (work / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "config.yaml", work / "config.yaml")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    os.chdir(work)
    if paper:
        config = merged_config(ROOT / "config" / "paper.yaml")
        (work / "standin.yaml").write_text(yaml.safe_dump({"ragauth": {"source": str(work / "ragauth_standin.json")}}))
        prepare_inputs(work, configs, config, cores, env)
    proc = snakemake(work, configs, "--cores", str(cores), "plan", env=env)
    if proc.returncode:
        sys.exit(f"snakemake plan failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return configs


def load(configs: list[Path]) -> dict:
    from snakemake.utils import update_config

    from authbench.config import check_config, validate_schema

    config: dict = {}
    for path in configs:
        update_config(config, yaml.safe_load(path.read_text()))
    validate_schema(config)
    check_config(config)
    return config


def totals(plan) -> dict[str, dict]:
    out = {}
    for r in plan.rows:
        if r["study"] == "all":
            out[r["model"]] = r
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--demo", action="store_true")
    which.add_argument("--paper", action="store_true")
    ap.add_argument("--workdir", help="default: /tmp/authbench-plan-sampling-{demo,paper}")
    ap.add_argument("--samples", type=int, nargs="+", default=[50, 5], help="sample sizes to compare (per batch)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--without", nargs="*", default=[], help="models left out of both plans")
    args = ap.parse_args(argv)
    work = Path(args.workdir or f"/tmp/authbench-plan-sampling-{'paper' if args.paper else 'demo'}").resolve()
    configs = prepare(work, args.paper, args.cores)
    os.chdir(work)
    config = load(configs)
    for model in args.without:
        config["models"][model] = None
    from authbench.plan import build_plan

    start = time.perf_counter()
    exact = totals(build_plan(config, sample=None))
    seconds = {"exact": time.perf_counter() - start}
    sampled = {}
    for size in args.samples:
        start = time.perf_counter()
        sampled[size] = totals(build_plan(config, sample=size, workers=args.cores))
        seconds[size] = time.perf_counter() - start
    print(f"## Sampled against exact: {'the paper grid (stand-in texts and RAGAuth file)' if args.paper else 'the demo'}"
          + (f", without {', '.join(args.without)}" if args.without else "") + "\n")
    print("Plan wall time: " + ", ".join(f"{'every request' if k == 'exact' else f'sample {k}'} {v:,.0f} s"
                                         for k, v in seconds.items()) + f" ({os.cpu_count()} cores).\n")
    print("| model | quantity | exact | sample | sampled ± 95% | inside |\n|---|---|---:|---:|---:|:---:|")
    outside = 0
    for model, ex in exact.items():
        for label, key, ci, scale in (("prompt tokens", "prompt_tokens", "prompt_tokens_ci", 1),
                                      ("reusable tokens", "reusable_tokens", "reusable_tokens_ci", 1),
                                      ("engine h with reuse", "engine_hours_with_reuse",
                                       "engine_hours_with_reuse_ci", 1)):
            if ex[key] == "" or (key.startswith("engine") and not ex["rate_source"].startswith("config")):
                continue  # hours only at a configured rate: a calibrated one differs from one plan to the next
            for size, rows in sampled.items():
                got = rows[model]
                value, half = float(got[key]), float(got[ci] or 0)
                inside = abs(value - float(ex[key])) <= half + 1e-9 * max(1.0, abs(value))
                outside += not inside
                fmt = (lambda x: f"{x:,.0f}") if key.endswith("tokens") else (lambda x: f"{x:,.4f}")
                print(f"| {model} | {label} | {fmt(float(ex[key]))} | {size} | {fmt(value)} ± {fmt(half)} | "
                      f"{'yes' if inside else '**no**'} |")
    print(f"\n{outside} exact total(s) outside the sampled 95% interval.")


if __name__ == "__main__":
    main()
