"""Running the real workflow in a test folder, and reading what it wrote."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def snakemake(workdir: Path, *args: str, overlays=(), timeout: int = 1800) -> subprocess.CompletedProcess:
    """``snakemake`` on the repository's Snakefile in ``workdir`` with its
    ``config.yaml`` (plus ``overlays``, merged on top), this interpreter first on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(workdir),
         "--configfile", str(workdir / "config.yaml"), *map(str, overlays), *args],
        capture_output=True, text=True, env=env, timeout=timeout,
    )


def read_tsv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]
