"""What the console shows when jobs fail (each failed job's error line) and
when a run succeeds (where its tables, HTML report and logs are).

Every rule sends its step's stderr to its ``log:`` file (under
``<results>/logs/``), where the command line ends a known failure with one
line ``error: <what, where>`` (:mod:`authbench.cli`). Snakemake itself only
prints "log: <path> (check log file(s) for error details)". The workflow's
``onerror`` handler (``rules/common.smk``) calls :func:`failure_summary` with
Snakemake's own run log, which names the log of every failed job in that
sentence, and prints each job's error: the same locally and on Slurm (the
logs are on the shared file system; a job's console output on a cluster is
not). Its ``onsuccess`` handler prints :func:`run_summary`. Nothing here
changes a rule's shell command or its outputs.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping

from authbench.errors import excerpt
from authbench.paths import REPORT_SUBFOLDERS, report_outdir

# Snakemake's line for a failed job's logs ("log: a.log, b.log (check log file(s) for error details)")
FAILED_LOGS = re.compile(r"^\s*log: (.+?) \(check log file\(s\) for error details\)\s*$", re.M)
ERROR_PREFIX = "error: "
TAIL_BYTES = 65536  # the end of a job log is read, never the whole file
MAX_LINES = 24  # an error that prints a mapping to paste (a long file mapped record-wise) fits


def failed_logs(snakemake_logs: Iterable[str | Path]) -> list[str]:
    """The logs of the failed jobs that Snakemake's run logs name, in order, once each."""
    out: dict[str, None] = {}
    for path in snakemake_logs:
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in FAILED_LOGS.finditer(text):
            out.update(dict.fromkeys(p.strip() for p in match.group(1).split(", ") if p.strip()))
    return list(out)


def error_lines(log: str | Path) -> list[str]:
    """A failed job's error, from its log: the command line's ``error: ...``
    line (the last one, and the lines that continue it); else, after a
    traceback, its last line (the exception); else the last line."""
    path = Path(log)
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, path.stat().st_size - TAIL_BYTES))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError as err:
        return [f"(log not readable: {err.strerror or err})"]
    lines = [line.rstrip() for line in re.split(r"[\r\n]+", text) if line.strip()]
    if not lines:
        return ["(the log is empty)"]
    starts = [i for i, line in enumerate(lines) if line.startswith(ERROR_PREFIX)]
    shown = lines[starts[-1]:][:MAX_LINES] if starts else lines[-1:]
    return [excerpt(line, 500, quote=False) for line in shown]


def failure_summary(snakemake_logs: Iterable[str | Path]) -> str:
    """The console text for a failed run: each failed job's log and its error
    (:func:`error_lines`); '' when Snakemake's logs name no failed job log."""
    logs = failed_logs(snakemake_logs)
    if not logs:
        return ""
    parts = [f"{log}:\n" + "\n".join(f"    {line}" for line in error_lines(log)) for log in logs]
    return "Failed job(s), the error in each log:\n" + "\n".join(parts)


def model_costs(results: str | Path, models: Iterable[str]) -> dict[str, dict]:
    """Per configured model, over every cell manifest under ``results``: the
    engine seconds of this run (``engine_seconds_this_run``; a perplexity
    step's ``seconds``), the model loads, and the tokens and engine seconds of
    all its replies (cached ones at the time they were computed)."""
    from authbench.config import split_model

    names = set(models)
    out: dict[str, dict] = {}
    for path in sorted(Path(results).rglob("manifest.json")):
        try:
            m = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        model = next((split_model(part)[0] for part in str(m.get("cell", "")).split("/")
                      if split_model(part)[0] in names), None)
        if model is None:
            continue
        row = out.setdefault(model, {"cells": 0, "this_run": 0.0, "loads": 0.0, "tokens": 0, "seconds": 0.0})
        row["cells"] += 1
        row["this_run"] += float(m.get("engine_seconds_this_run", m.get("seconds", 0)) or 0)
        row["loads"] += float(m.get("model_load_seconds") or 0)
        row["tokens"] += int(m.get("prompt_tokens") or 0) + int(m.get("completion_tokens") or 0)
        row["seconds"] += float(m.get("engine_seconds", m.get("seconds", 0)) or 0)
    return out


def cost_lines(results: str | Path, models: Iterable[str]) -> list[str]:
    """Each model's engine seconds and tokens/s beside the plan's estimate
    (``<results>/plan.tsv``, written by ``snakemake plan``), if there is one."""
    import csv

    costs = model_costs(results, models)
    if not costs:
        return []
    plan = {}
    plan_path = Path(results) / "plan.tsv"
    if plan_path.is_file():
        with open(plan_path, newline="", encoding="utf-8") as fh:
            plan = {r["model"]: r for r in csv.DictReader(fh, delimiter="\t") if r["study"] == "all"}
    lines = ["Engine time per model (this run; every reply's tokens/s; the plan's estimate):"]
    for model, c in costs.items():
        rate = f"{c['tokens'] / c['seconds']:,.0f} tokens/s" if c["seconds"] else "no engine time"
        p = plan.get(model)
        if p is None:
            est = "no plan (snakemake plan)"
        elif p.get("hosted") == "yes":
            est = f"plan: ${float(p['usd']):,.2f} at its list price" if p.get("usd") else "plan: no price"
        elif p["engine_hours_with_reuse"] == "":
            est = f"plan: no estimate ({p['rate_source']})"
        else:
            est = (f"plan: {float(p['engine_hours_with_reuse']) * 3600:,.0f} s engine + "
                   f"{float(p['load_hours'] or 0) * 3600:,.0f} s loads")
        lines.append(f"  {model}: {c['cells']} cells, engine {c['this_run']:,.0f} s + model loads "
                     f"{c['loads']:,.0f} s this run; {rate}; {est}")
    return lines


def run_summary(outputs: Iterable[str], results: str, snakemake_logs: Iterable[str | Path],
                configfiles: Iterable[str | Path] = (), overrides: Mapping[str, Any] | None = None,
                models: Iterable[str] = ()) -> str:
    """The console text after a successful run: each model's engine time
    beside the plan's estimate (:func:`cost_lines`), the report folders of
    ``outputs`` (the `all` targets: each folder with a ``contents.md`` or
    ``tables/``, ``figures/``) that exist, the one command that builds the
    HTML report of the same config (``--configfile``, ``--config``), and where
    the logs are."""
    folders = dict.fromkeys(report_outdir([f]) for f in outputs
                            if Path(f).name == "contents.md" or Path(f).parent.name in REPORT_SUBFOLDERS)
    shown = [f"  {d}/contents.md" if Path(d, "contents.md").is_file() else f"  {d}/"
             for d in folders if Path(d).is_dir()]
    script = Path(sys.executable).with_name("snakemake")  # this Snakemake's, beside its interpreter
    command = [_relative(script)] if script.is_file() else [sys.executable, "-m", "snakemake"]
    configfiles = [_relative(f) for f in configfiles]
    command += ["--configfile", *configfiles] if configfiles else []
    if overrides:  # --config key=value as Snakemake parses it back
        command += ["--config"] + [f"{k}={'' if v is None else json.dumps(v) if isinstance(v, (dict, list)) else v}"
                                   for k, v in overrides.items()]
    html = f"{results}/report.zip"
    lines = cost_lines(results, models)
    lines += ["Tables and figures (each report's contents.md lists its files):", *shown] if shown else []
    lines += [f"HTML report of every table and figure with its caption, and the sample viewers ({html}), built by:",
              "  " + shlex.join(command + ["--report", html]),
              f"Logs: every job's under {results}/logs/"
              + "".join(f"; this run's Snakemake log: {_relative(log)}" for log in snakemake_logs)]
    return "\n".join(lines)


def _relative(path: str | Path) -> str:
    try:
        return str(Path(path).absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
