"""Benchmark: the demo's plan against its run, per model (the plan's
accuracy on this machine).

Each run starts from nothing in a folder of its own (no results, no
response cache): ``snakemake plan`` (its estimate per model: engine time
with prefix reuse at the reply-length estimate plus model loads, from
``plan.tsv``), then the whole workflow (its engine seconds and model loads,
over every cell manifest, as the run's last console lines count them:
:func:`authbench.joblogs.model_costs`). Prints per run and model the plan,
the run and the error, then the median of the runs; ``--cells`` adds, per
model and job kind, the plan's seconds beside the run's (what the estimate
misses). Run it on an otherwise idle machine: the plan calibrates the
embedded engine on this machine when it starts, and the run must see the
same machine.

    python benchmarks/plan_accuracy.py                  # two runs of the demo (about 8 minutes each here)
    python benchmarks/plan_accuracy.py --runs 1 --cells
    python benchmarks/plan_accuracy.py --results results --cells   # a finished `make demo`
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def snakemake(work: Path, *args: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(work),
                           "--cores", "2", *args], capture_output=True, text=True, cwd=work)
    if proc.returncode:
        sys.exit(f"snakemake {' '.join(args)} failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return time.perf_counter() - start


def one_run(work: Path, overlay: str | None) -> dict:
    work.mkdir(parents=True)
    (work / "resources").symlink_to(ROOT / "resources")
    (work / "config").symlink_to(ROOT / "config")
    shutil.copy(ROOT / "config.yaml", work / "config.yaml")
    extra = ["--configfile", overlay] if overlay else []
    plan_s = snakemake(work, "plan", *extra)
    run_s = snakemake(work, *extra)
    import yaml

    config = yaml.safe_load((work / "config.yaml").read_text())
    return {**measured(work / config["results"]), "plan_wall": plan_s, "run_wall": run_s}


def measured(results: Path) -> dict:
    """The plan (``plan.tsv``, ``plan_cells.tsv``) against the run (the cell
    manifests, the model jobs' logs) of one finished results folder."""
    with open(results / "plan.tsv", newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["study"] == "all"]
    from authbench.joblogs import model_costs

    costs = model_costs(results, [r["model"] for r in rows])
    out = {"plan_wall": math.nan, "run_wall": math.nan, "models": {}, "kinds": defaultdict(lambda: [0.0, 0.0])}
    for r in rows:
        if r["engine_hours_with_reuse"] == "":
            continue
        planned = (float(r["engine_hours_with_reuse"]) + float(r["load_hours"] or 0)) * 3600
        c = costs.get(r["model"], {})
        out["models"][r["model"]] = (planned, c.get("this_run", 0.0) + c.get("loads", 0.0))
    with open(results / "plan_cells.tsv", newline="", encoding="utf-8") as fh:
        planned_cells = {r["cell"]: r for r in csv.DictReader(fh, delimiter="\t") if r["in_run"] == "yes"}
    for path in results.rglob("manifest.json"):
        m = json.loads(path.read_text())
        cell = planned_cells.get(str(m.get("cell")))
        if cell is None or cell["engine_seconds"] == "":
            continue
        key = (cell["model"], cell["kind"])
        out["kinds"][key][0] += float(cell["engine_seconds"]) + float(cell["load_seconds"] or 0)
        out["kinds"][key][1] += float(m.get("engine_seconds_this_run", m.get("seconds", 0)) or 0) + float(
            m.get("model_load_seconds") or 0)
    return out


def pct(plan: float, actual: float) -> str:
    return f"{(plan - actual) / actual * 100:+.0f}%" if actual else "n/a"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--config", help="an overlay on config.yaml (default: the demo itself)")
    ap.add_argument("--workdir", help="keep the runs here (default: a temporary folder, removed)")
    ap.add_argument("--cells", action="store_true", help="also the plan against the run per model and job kind")
    ap.add_argument("--results", nargs="+", help="read these finished runs (e.g. make demo's results/, its plan "
                                                 "made first) instead of running the demo")
    args = ap.parse_args(argv)
    base = Path(args.workdir or tempfile.mkdtemp(prefix="plan-accuracy-")).resolve()
    if args.results:
        runs = [measured(Path(r)) for r in args.results]
    else:
        runs = [one_run(base / f"run{k + 1}", args.config) for k in range(args.runs)]
    models = list(runs[0]["models"])
    print(f"## The plan against the run ({args.config or 'the demo'}; {len(runs)} run(s), each from nothing)\n")
    head = "| model | " + " | ".join(f"run {k + 1}: plan s | actual s | error" for k in range(len(runs)))
    print(head + " | median plan s | median actual s | median error |")
    print("|---|" + "---:|---:|---:|" * len(runs) + "---:|---:|---:|")
    for model in models:
        cells = []
        for run in runs:
            plan, actual = run["models"][model]
            cells += [f"{plan:,.0f}", f"{actual:,.0f}", pct(plan, actual)]
        plan = statistics.median(r["models"][model][0] for r in runs)
        actual = statistics.median(r["models"][model][1] for r in runs)
        print(f"| {model} | " + " | ".join(cells) + f" | {plan:,.0f} | {actual:,.0f} | {pct(plan, actual)} |")
    if not args.results:
        print("\nWall time: " + "; ".join(f"run {k + 1}: plan step {r['plan_wall']:,.0f} s, workflow "
                                          f"{r['run_wall']:,.0f} s" for k, r in enumerate(runs)))
    if args.cells:
        print("\n| model | job kind | " + " | ".join(f"run {k + 1}: plan s | actual s" for k in range(len(runs)))
              + " |\n|---|---|" + "---:|---:|" * len(runs))
        for key in sorted(runs[0]["kinds"]):
            vals = " | ".join(f"{r['kinds'][key][0]:,.1f} | {r['kinds'][key][1]:,.1f}" for r in runs)
            print(f"| {key[0]} | {key[1]} | {vals} |")
    if not args.workdir:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
