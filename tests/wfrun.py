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


def cell_samples(root):
    """Each cell's samples.parquet as the viewer step's rule declares them (a
    cell: a folder with a responses.jsonl; its samples may be missing)."""
    return [p.parent / "samples.parquet" for p in sorted(Path(root).rglob("responses.jsonl"))]


def read_tsv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def tiny_selfpref(cfg: dict, kinds=("rewrite", "false_answer"), compare_tokens: int = 12, generate_tokens: int = 48) -> dict:
    """The demo config's self-preference section with absolute paths and tiny
    counts: 2 questions, 1 style question, 2 knowledge tries, 1 generated item."""
    sp = cfg["selfpref"]
    for source in sp["datasets"]["nq"]["sources"]:
        source["file"] = str(ROOT / source["file"])
    sp["datasets"]["nq"]["knowledge"] = {a: str(ROOT / p) for a, p in sp["datasets"]["nq"]["knowledge"].items()}
    if sp["datasets"]["nq"].get("released_perplexity"):
        released = sp["datasets"]["nq"]["released_perplexity"]
        released["file"] = str(ROOT / released["file"])
    sp.update(items=2, style_items=1)
    sp["knowledge"]["tries"] = 2
    sp["compare"]["generate"]["max_tokens"] = compare_tokens
    sp["generate"].update(items=1, kinds=list(kinds), generate={"max_tokens": generate_tokens})
    return cfg


def write_ten_level_labels(path) -> None:
    """A DomainAuth labels.tsv of ten domains, d0.com .. d9.com, one per level (report tests)."""
    from authbench.records import write_tsv

    write_tsv([{"domain": f"d{lv}.com", "suffix": "com", "level": lv, "coarse": lv // 2, "n_urls": 1, "category": "",
                "text": ""} for lv in range(10)], path,
              ["domain", "suffix", "level", "coarse", "n_urls", "category", "text"])
