"""The typed copy: every documented command typed as written, in document
order, in one copy of the repository (tests/workflow/conftest.py's session
fixture ``typed``; tests/workflow/test_documented_commands.py says what is
checked of it). The copy is the one place a documented config runs: a test
of a documented config reads its results here (:func:`typed_run`) instead
of running the config again.

A command runs in a new ``bash -c`` with the PATH a user has after the
README's set-up (no environment activated; a bare ``snakemake`` or
``python`` after the activation the README's quick start gives). The copy
keeps the files' times and runs make with this suite's virtual environment
(``.venv`` there is a link to it: ``make -n install`` prints nothing, so
nothing is reinstalled); the one file edited in it is config.yaml, whose
models are set to ``engine: instant``. A test that edits a file of the copy
puts it back as it found it (:func:`edited`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml
from doccommands import ROOT, classify, documented_commands, fetches_from_the_web, readme_activation

VENV = Path(sys.prefix)
SKIP = shutil.ignore_patterns(".git", ".venv", ".venv-vllm", "results", "logs", ".snakemake", "__pycache__",
                              ".pytest_cache", "*.egg-info", "build")
TIMEOUT = 900


def user_env(copy: Path) -> dict:
    """A new shell's environment after the README's set-up: this one without
    any virtual environment or checkout on PATH, and without make's own
    variables; first on PATH a ``python`` without the package (as a system
    one), which says when it is run: no job may use it (every job runs the
    interpreter that runs Snakemake, authbench.env)."""
    drop = (str(VENV), str(ROOT), str(copy))
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not p.startswith(drop)]
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    env["PATH"] = os.pathsep.join([str(copy.parent / "bin"), *(path or ["/usr/bin", "/bin"])])
    return env


def bash(copy: Path, line: str, timeout: int = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", line], cwd=copy, env=user_env(copy), capture_output=True, text=True,
                          timeout=timeout)


def make_copy(dest: Path) -> Path:
    """The repository as a user's clone: file times kept, ``.venv`` this
    suite's environment, config.yaml's models instant."""
    shutil.copytree(ROOT, dest, ignore=SKIP, symlinks=True)
    (dest.parent / "bin").mkdir()
    python = dest.parent / "bin" / "python"
    python.write_text(f"#!/bin/sh\ntouch {dest.parent / 'python_on_path_was_run'}\n"
                      "echo \"No module named 'authbench'\" >&2\nexit 1\n")
    python.chmod(0o755)
    (dest / ".venv").symlink_to(VENV)
    if (ROOT / ".venv-vllm").exists():
        (dest / ".venv-vllm").symlink_to(ROOT / ".venv-vllm")
    cfg = yaml.safe_load((dest / "config.yaml").read_text())
    for spec in cfg["models"].values():
        spec["engine"] = "instant"
    (dest / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return dest


def type_every_command(dest: Path):
    """(copy, the copy's ``make -n install``, [(command, its process, seconds, a repeat)]) of every documented
    command typed in document order in a new copy at ``dest``."""
    copy = make_copy(dest)
    installed = bash(copy, "make -n install")
    ran, seen = [], {}
    for cmd in documented_commands():
        classify(cmd, activation=readme_activation())
        if cmd.line in seen:
            ran.append((cmd, seen[cmd.line], 0.0, True))
            continue
        start, proc = time.perf_counter(), None
        if cmd.probe:  # a config with web fetchers: its dry run says whether this command would fetch
            probe = bash(copy, cmd.probe)
            web = fetches_from_the_web(probe.stdout + probe.stderr)
            if web or probe.returncode != 0:  # the dry run is the command's run
                cmd.how, cmd.why, cmd.line, cmd.runs_jobs = "dry", f"would fetch from the web ({', '.join(web)})", \
                    cmd.probe, False
                proc = probe
        if proc is None:
            proc = bash(copy, cmd.line)
        seen[cmd.line] = proc
        ran.append((cmd, proc, time.perf_counter() - start, False))
    return copy, installed, ran


def typed_run(typed, config: str) -> tuple[str, Path]:
    """(its output, its results folder) of the documented ``make run CONFIG=<config>`` in the copy, after
    checking that the command ran and succeeded (a test reading it fails here, naming the command, when the
    docs stop running it)."""
    copy, _, ran = typed
    runs = [(cmd, proc) for cmd, proc, _, _ in ran if cmd.how == "run" and cmd.line == f"make run CONFIG={config}"]
    assert runs, f"no documented `make run CONFIG={config}`: the test that reads its results needs one"
    cmd, proc = runs[0]
    assert proc.returncode == 0, f"{cmd.source}: {cmd.line}\n{(proc.stdout + proc.stderr)[-3000:]}"
    return proc.stdout + proc.stderr, copy / yaml.safe_load((copy / config).read_text())["results"]


@contextlib.contextmanager
def edited(path: Path, text: str):
    """``path`` of the copy holding ``text`` inside the block; afterwards its content and times as before."""
    before, stat = path.read_bytes(), path.stat()
    try:
        path.write_text(text)
        yield path
    finally:
        path.write_bytes(before)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
