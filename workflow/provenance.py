"""Where and with what a cell ran, for a reviewer: the ``provenance`` block of
every cell's manifest (:func:`block`) and the pieces of ``provenance.md``
(:func:`git_state`, written by :mod:`authbench.render.dag`).

Nothing here fails a job: git, nvidia-smi or /proc/cpuinfo missing (or slow:
a short timeout) leave their entry out or say why. No environment variable
is read but Slurm's job id and node and CUDA_VISIBLE_DEVICES, so no secret
can reach a manifest through it. Host fields (CPU, GPU, Slurm job) are like a
manifest's seconds: they describe this run, not the cell's outputs.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterable

# the engine stack whose versions a manifest records (absent ones are left out)
ENGINE_PACKAGES = ("llama-cpp-python", "vllm", "torch", "transformers")
TIMEOUT = 5.0  # seconds for git and nvidia-smi
NOT_A_CHECKOUT = "not a git checkout"


def repo_root() -> Path:
    """The folder holding the package's ``workflow/`` (the pipeline's checkout)."""
    return Path(__file__).resolve().parent.parent


def _run(cmd: list[str], cwd: Path | None = None) -> str | None:
    """A command's stdout, or None when it is missing, fails or times out."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def git_state(root: Path | None = None) -> dict:
    """``{"commit", "dirty"}`` of the checkout at ``root`` (default
    :func:`repo_root`; dirty: tracked files changed), or ``{"git": "not a git
    checkout"}`` when it is none (or git is missing)."""
    root = repo_root() if root is None else Path(root)
    top = _run(["git", "-C", str(root), "rev-parse", "--show-toplevel"]) if shutil.which("git") else None
    commit = _run(["git", "-C", str(root), "rev-parse", "HEAD"]) if top else None
    if not top or not commit or Path(top.strip()).resolve() != root.resolve():
        return {"git": NOT_A_CHECKOUT}
    status = _run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"])
    return {"commit": commit.strip(), "dirty": status is None or bool(status.strip())}


def package_versions(names: Iterable[str]) -> dict[str, str]:
    """Installed versions of ``names`` (importlib.metadata: nothing imported)."""
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def cpu_model(cpuinfo: str = "/proc/cpuinfo") -> str | None:
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def gpu_names() -> list[str]:
    """The GPUs nvidia-smi lists, restricted to CUDA_VISIBLE_DEVICES' indices
    when it names some; [] without nvidia-smi or when it is set empty."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and not visible.strip() or not shutil.which("nvidia-smi"):
        return []
    out = _run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"])
    names = [n.strip() for n in (out or "").splitlines() if n.strip()]
    if visible and all(v.strip().isdigit() for v in visible.split(",")):
        names = [names[int(v)] for v in visible.split(",") if int(v) < len(names)]
    return names


def slurm() -> dict[str, str]:
    """The Slurm job id and node of this job, where present."""
    node = os.environ.get("SLURMD_NODENAME") or os.environ.get("SLURM_JOB_NODELIST")
    out = {"job_id": os.environ.get("SLURM_JOB_ID"), "node": node}
    return {k: v for k, v in out.items() if v}


@functools.lru_cache(maxsize=1)
def _host() -> str:
    """Everything of :func:`block` but the servers' replies, as JSON (once a process)."""
    out: dict = {"pipeline": git_state(), "packages": package_versions(ENGINE_PACKAGES)}
    torch = sys.modules.get("torch")  # never imported just for this
    cuda = getattr(getattr(torch, "version", None), "cuda", None)
    if cuda:
        out["cuda"] = str(cuda)
    out.update(cpu=cpu_model(), gpus=gpu_names(), slurm=slurm())
    return json.dumps({k: v for k, v in out.items() if v}, sort_keys=True)


def block(served: Iterable[str] = ()) -> dict:
    """A manifest's ``provenance``: the pipeline's git commit and dirty flag,
    the engine stack's versions (and CUDA's, when torch is loaded), CPU and
    GPU names, the Slurm job and node, and ``served``: the distinct ``model``
    / ``system_fingerprint`` pairs an OpenAI-compatible server returned for
    the replies computed in this run (canonical JSON strings, as
    :attr:`authbench.llm.runs.RunStats.served` holds them)."""
    out = json.loads(_host())
    if served:
        out["served"] = [json.loads(s) for s in sorted(set(served))]
    return out
