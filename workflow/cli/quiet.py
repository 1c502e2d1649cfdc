"""``python -m authbench.cli.quiet <command ...>``: run a command (the plan
step of ``make demo``/``run``/``plan``: Snakemake with the target ``plan``)
showing only what it prints on standard output (the plan's lines), and,
when it fails, why: each failed job's log and its ``error:`` lines as the
run-end failure summary prints them (:func:`authbench.joblogs.failure_summary`,
at most :data:`~authbench.joblogs.MAX_LINES` lines a job), or, when no
job failed (an error before any job: a config check, a missing file),
Snakemake's own message. Snakemake's standard error is kept in a temporary
file and shown only then; the exit code is the command's.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from authbench.joblogs import failure_summary

# Snakemake's lines that say nothing about an error (progress, the DAG, job headers)
NOISE = re.compile(r"^(Building DAG of jobs|Using shell|Provided cores|Rules claiming|Select jobs|Execute \d+ jobs|"
                   r"Job stats|job\s+count|-+\s+-+|total\s+\d+|\[\w{3} \w{3} +\d+ [\d:]+ \d{4}\]|localrule |rule |"
                   r"\s+(input|output|log|jobid|reason|wildcards|resources|threads|priority): |"
                   r"\d+ of \d+ steps|Finished job|Complete log|Assuming unrestricted|Nothing to be done|"
                   r"host:|Shutting down|Removing output files of failed job|Using workflow specific profile|"
                   r"Config file \S+ is extended by|  File \"|\s*$)")
OWN_ERROR_LINES = 30


def own_error(stderr: str) -> str:
    """Snakemake's message for a run that failed before any job: its lines
    past the progress and job noise, the last :data:`OWN_ERROR_LINES`."""
    lines = [line.rstrip() for line in stderr.splitlines() if not NOISE.match(line)]
    return "\n".join(lines[-OWN_ERROR_LINES:])


def run_quiet(argv: list[str]) -> int:
    """Run ``argv``; its stdout passes through, its stderr is shown only as
    :func:`failure_summary` or :func:`own_error` when it exits non-zero."""
    with tempfile.TemporaryDirectory(prefix="authbench-quiet-") as tmp:
        err_path = Path(tmp) / "stderr.log"
        with open(err_path, "w", encoding="utf-8") as err:
            try:
                code = subprocess.call(argv, stdout=sys.stdout, stderr=err)
            except OSError as exc:
                print(f"error: cannot start {argv[0]!r}: {exc.strerror or exc}", file=sys.stderr)
                return 2
        if code == 0:
            return 0
        summary = failure_summary([err_path])
        text = summary or own_error(err_path.read_text(encoding="utf-8", errors="replace"))
        print(text or f"{argv[0]} exited with code {code} and printed no error", file=sys.stderr, flush=True)
        return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("usage: python -m authbench.cli.quiet <command> [args ...]", file=sys.stderr)
        return 2
    return run_quiet(argv)


if __name__ == "__main__":
    sys.exit(main())
