"""Provenance to cite beside a table: the workflow's rule graph and job DAG
for a config, as Graphviz dot and SVG (rendered with Graphviz's ``dot`` when
installed, else the bundled ``graphviz-pure``), and ``provenance.md``
(:func:`provenance_md`: commit, config hash, data hashes, models, how to
rerun; the Snakemake report shows it first)."""

from __future__ import annotations

import json
import logging
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

from authbench import provenance
from authbench.errors import InputError, excerpt
from authbench.records import atomic_write, file_sha256, write_text

log = logging.getLogger("authbench")


def _render_svg(dot_text: str, svg_path: str) -> str:
    """Render with Graphviz's `dot` if installed, else the bundled graphviz-pure."""
    exe = shutil.which("dot") or shutil.which("graphviz-pure") or str(Path(sys.executable).parent / "graphviz-pure")
    with atomic_write(svg_path, "wb") as fh:  # the renderer writes to stdout: never a half-written SVG
        proc = subprocess.run([exe, "-Tsvg"], input=dot_text.encode("utf-8"), stdout=fh, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            raise InputError(f"{exe} could not render {svg_path}: "
                             f"{excerpt(proc.stderr.decode('utf-8', 'replace').strip(), quote=False)}")
    return Path(exe).name


def _relative(path: str | Path) -> str:
    try:
        return str(Path(path).absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


MODEL_KEYS = ("engine", "model", "revision", "file")  # a model's entries provenance.md lists


def data_files(config: Mapping, prefix: str = "") -> list[tuple[str, str]]:
    """``(config key, path)`` of every string in ``config`` (outside
    ``models``: model files are named by their revision) that names an
    existing file, in key order."""
    out = []
    for key, value in sorted(config.items(), key=lambda kv: str(kv[0])):
        name = f"{prefix}{key}"
        if name == "models":
            continue
        if isinstance(value, Mapping):
            out += data_files(value, name + ".")
        elif isinstance(value, list):
            out += [f for i, v in enumerate(value) for f in data_files({str(i): v}, name + ".")]
        elif isinstance(value, str) and value and Path(value).is_file():
            out.append((name, value))
    return out


def provenance_md(config: Mapping, config_dump: str | Path, configfiles: Sequence[str] = ()) -> str:
    """One page for a reviewer: the pipeline's commit (and whether it was
    dirty), the SHA-256 of the merged config ``config_dump``, of every data
    file the config names (:func:`data_files`), the models with their
    revisions, and the command that reruns the workflow."""
    git = provenance.git_state()
    commit = (f"`{git['commit']}`" + (" (dirty: tracked files changed since that commit)" if git["dirty"] else "")
              if "commit" in git else git["git"])
    lines = ["# Provenance", "", f"- Pipeline commit: {commit}",
             f"- Config: `{_relative(config_dump)}`, SHA-256 `{file_sha256(config_dump)}`", "", "## Data files", ""]
    files = data_files(config)
    lines += ["| Config key | File | SHA-256 |", "|---|---|---|"] if files else ["(no data file named by the config exists)"]
    lines += [f"| {key} | `{path}` | `{file_sha256(path)}` |" for key, path in files]
    lines += ["", "## Models", "", "| Name | " + " | ".join(MODEL_KEYS) + " |", "|---|" + "---|" * len(MODEL_KEYS)]
    for name, spec in sorted(config["models"].items()):
        if spec:  # a model set to null is off
            lines.append(f"| {name} | " + " | ".join(f"`{spec[k]}`" if spec.get(k) is not None else "-"
                                                     for k in MODEL_KEYS) + " |")
    command = ["snakemake", "--cores", "all"]
    lines += ["", "## Rerun", "", "From the pipeline's checkout at that commit, with the data files above:", "",
              "    " + shlex.join(command + (["--configfile", *map(_relative, configfiles)] if configfiles else [])),
              "", "or with the merged config in one file:", "",
              "    " + shlex.join(command + ["--configfile", _relative(config_dump)]), ""]
    return "\n".join(lines)


def export_dag(outdir: str | Path, config: Mapping, snakefile: str, targets: Sequence[str],
               configfiles: Sequence[str] = ()) -> None:
    """The workflow's rule graph and job DAG for ``config`` (written beside them
    as config.json), as dot and SVG, and ``provenance.md`` (:func:`provenance_md`;
    ``configfiles``: the run's ``--configfile``s) under ``outdir``."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    config_dump = out / "config.json"  # the merged config this run used
    write_text(config_dump, json.dumps(config, indent=2, sort_keys=True) + "\n")
    write_text(out / "provenance.md", provenance_md(config, config_dump, configfiles))
    for kind, flag in (("rulegraph", "--rulegraph"), ("dag", "--dag")):
        proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", snakefile, "--directory", ".",
                               "--configfile", str(config_dump), flag, "--nolock", "--quiet", "all", *targets],
                              capture_output=True, text=True)
        start = proc.stdout.find("digraph")
        if proc.returncode != 0 or start < 0:
            raise InputError(f"snakemake {flag} failed: {(proc.stderr or proc.stdout).strip()[-500:]}")
        dot_text = proc.stdout[start:]
        write_text(out / f"{kind}.dot", dot_text)
        renderer = _render_svg(dot_text, str(out / f"{kind}.svg"))
        log.info("%s: %d lines of dot, rendered with %s", kind, dot_text.count("\n"), renderer)
