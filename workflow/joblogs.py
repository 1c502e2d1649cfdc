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
MAX_LINES = 12


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


def run_summary(outputs: Iterable[str], results: str, snakemake_logs: Iterable[str | Path],
                configfiles: Iterable[str | Path] = (), overrides: Mapping[str, Any] | None = None) -> str:
    """The console text after a successful run: the report folders of
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
    lines = ["Tables and figures (each report's contents.md lists its files):", *shown] if shown else []
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
