"""The interpreter of every job, decided once when the Snakefile is parsed.

Each rule runs ``$AUTHBENCH_PYTHON -m authbench.cli ...`` (a model's jobs:
its ``python:`` key, e.g. the vLLM environment's, else the same).
``rules/common.smk`` sets :data:`VARIABLE` to :func:`job_python` in the
environment the jobs inherit: the interpreter running Snakemake, checked to
import the package, so a job never falls back to a ``python`` on PATH that
lacks it (a new shell, a cluster node). A Slurm job re-parses the Snakefile on
the node with the same interpreter path. With ``--sdm conda`` or
``apptainer`` every job runs in its own environment, which installs the
package: there it is that environment's ``python``. The variable, not the
path, is in the rules' shell commands and params, so moving the clone or the
virtual environment reruns no job. Light imports only."""

from __future__ import annotations

import subprocess
import sys
from typing import Iterable

from authbench.errors import SetupError

VARIABLE = "AUTHBENCH_PYTHON"
SHELL = f"${VARIABLE}"  # how a rule's shell names the interpreter
OWN_ENVIRONMENTS = {"conda", "apptainer"}  # deployment methods whose jobs bring their own python
FIX = ("run `make install` once, then from the repository root `make run CONFIG=<your overlay>` "
       "(or `.venv/bin/snakemake --cores N --configfile <your overlay>`)")


def job_python(deployment: Iterable[str] = (), python: str = sys.executable) -> str:
    """The interpreter of the jobs: ``python`` (the one running Snakemake)
    after :func:`check_python`, or ``"python"`` when the jobs run in their
    own conda environments or containers (``deployment``: Snakemake's
    deployment methods, lower case)."""
    if OWN_ENVIRONMENTS & {m.lower() for m in deployment}:
        return "python"
    check_python(python)
    return python


def check_python(python: str) -> None:
    """:class:`SetupError` (one line: the interpreter, why, what to run)
    unless ``python`` imports the package in the jobs' environment."""
    if any(c.isspace() for c in python):
        raise SetupError(f"the jobs' interpreter {python!r} has a space in its path, which shell commands split: "
                         "put the repository and its .venv in a folder without one")
    try:
        proc = subprocess.run([python, "-c", "import authbench"], capture_output=True, text=True, timeout=120)
        why = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1] if proc.returncode else ""
    except (OSError, subprocess.SubprocessError) as err:
        why = str(err)
    if why:
        raise SetupError(f"the jobs' interpreter {python} cannot import authbench ({why}): {FIX}")

