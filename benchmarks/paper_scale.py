"""Benchmark: how big is the paper's grid (config/paper.yaml), and what will
it cost?

Prints, as Markdown to paste into docs/cluster.md and benchmarks/README.md:

1. planning -- wall time of ``snakemake -n --configfile config/paper.yaml``
   from an empty working folder (no results, no weights, no GPU; best of
   ``--repeats``; target < 20 s on the 2-core development VM) and its jobs by
   rule;
2. the plan -- ``snakemake plan`` of the same config (``results/paper/plan.md``,
   :mod:`authbench.plan`) from a clean working folder, as a new user runs
   it: nothing fetched, no RAGAuth release (the plan estimates both and
   says how), the whole command timed (DAG, the dataset builds it needs, the
   plan step; target 2 minutes, the step itself 1 minute on 2 cores). Per
   model and study the cells, requests, unique requests, prompt tokens
   (Qwen3 counted with the embedded Qwen2.5 GGUF's vocabulary, the others by
   characters / 4: ``tokenizer_proxy`` in config/paper.yaml) with their 95%
   interval, the tokens a prefix cache reuses, completion at the estimate
   and at the cap, GPU-hours with and without prefix reuse at each model's
   ``rate`` (config/paper.yaml, sources in docs/cluster.md) and the hosted
   models' dollars.

    python benchmarks/paper_scale.py [--config config/paper.yaml] [--repeats 3] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from standins import job_counts, merged_config, snakemake  # noqa: E402


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


def plan(config_rel: str, work: Path, cores: int) -> tuple[float, float, str]:
    """``snakemake plan`` of the config in a clean ``work``: the command's
    seconds, the plan step's (from its log's first and last line) and plan.md."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for name in ("resources", "config"):
        (work / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "config.yaml", work / "config.yaml")
    os.chdir(work)
    config = merged_config(ROOT / config_rel)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    start = time.perf_counter()
    proc = snakemake(work, [work / "config.yaml", ROOT / config_rel], "--cores", str(cores), "plan", env=env)
    seconds = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"snakemake plan failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    results = Path(config["results"])
    log = results / "logs" / "plan.log"
    step = (results / "plan.md").stat().st_mtime - log.stat().st_ctime if log.exists() else float("nan")
    return seconds, step, (results / "plan.md").read_text()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="config/paper.yaml", help="overlay on config.yaml, relative to the repository")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--workdir", default="/tmp/authbench-paper-plan")
    args = ap.parse_args(argv)

    times, jobs = time_dry_run(args.config, args.repeats)
    print(f"## Paper-scale grid ({args.config})\n")
    print(f"`snakemake -n --configfile {args.config}` from an empty folder, best of {args.repeats}: "
          f"**{min(times):.1f} s** (all runs: {', '.join(f'{t:.1f}' for t in times)} s; target < 20 s).\n")
    print("| rule | jobs |\n|---|---:|")
    for rule, n in jobs.items():
        if rule != "total":
            print(f"| {rule} | {n} |")
    print(f"| **total** | **{jobs.get('total', sum(jobs.values()))}** |\n")

    seconds, step, md = plan(args.config, Path(args.workdir).resolve(), args.cores)
    print(f"`snakemake plan --configfile {args.config}` from a clean folder: {seconds:.0f} s for the command, "
          f"{step:.0f} s of it the plan step ({args.cores} cores).\n")
    print(md)


if __name__ == "__main__":
    main()
