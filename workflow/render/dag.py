"""Provenance to cite beside a table: the workflow's rule graph and job DAG
for a config, as Graphviz dot and SVG (rendered with Graphviz's ``dot`` when
installed, else the bundled ``graphviz-pure``)."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

from authbench.errors import InputError, excerpt

log = logging.getLogger("authbench")


def _render_svg(dot_text: str, svg_path: str) -> str:
    """Render with Graphviz's `dot` if installed, else the bundled graphviz-pure."""
    exe = shutil.which("dot") or shutil.which("graphviz-pure") or str(Path(sys.executable).parent / "graphviz-pure")
    proc = subprocess.run([exe, "-Tsvg", "-o", svg_path], input=dot_text, text=True, capture_output=True)
    if proc.returncode != 0:
        raise InputError(f"{exe} could not render {svg_path}: {excerpt(proc.stderr.strip(), quote=False)}")
    return Path(exe).name


def export_dag(outdir: str | Path, config: Mapping, snakefile: str, targets: Sequence[str]) -> None:
    """The workflow's rule graph and job DAG for ``config`` (written beside them
    as config.json), as dot and SVG, under ``outdir``."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    config_dump = out / "config.json"  # the merged config this run used
    config_dump.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    for kind, flag in (("rulegraph", "--rulegraph"), ("dag", "--dag")):
        proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", snakefile, "--directory", ".",
                               "--configfile", str(config_dump), flag, "--nolock", "--quiet", "all", *targets],
                              capture_output=True, text=True)
        start = proc.stdout.find("digraph")
        if proc.returncode != 0 or start < 0:
            raise InputError(f"snakemake {flag} failed: {(proc.stderr or proc.stdout).strip()[-500:]}")
        dot_text = proc.stdout[start:]
        (out / f"{kind}.dot").write_text(dot_text)
        renderer = _render_svg(dot_text, str(out / f"{kind}.svg"))
        log.info("%s: %d lines of dot, rendered with %s", kind, dot_text.count("\n"), renderer)
