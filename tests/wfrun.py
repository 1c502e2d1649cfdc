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


def write_twins_example(tmp_path):
    """A pair cell with its reversed job and the twins table (authbench.cells.viewer.TWINS): request p0 a
    conflict (its twin retried once), p1 consistent, p2 without a twin row. Returns (study root, the viewer's
    samples list)."""
    from authbench.cells.samples import write_samples
    from authbench.cells.viewer import TWINS

    root = Path(tmp_path) / "domainauth"
    cell = root / "cells" / "m1" / "pair_rank" / "wo_text" / "pairs"
    seeded = [{"request_id": f"p{k}:0-1", "try": 0, "prompt": f"A=a{k} B=b{k}", "reply": "A", "status": "ok",
               "value": "A", "gold": "A", "correct": True, "cached": False} for k in range(3)]
    other = [{"request_id": f"p{k}:1-0", "try": t, "prompt": f"A=b{k} B=a{k}", "reply": r, "status": s,
              "value": r, "gold": "B", "correct": r == "B", "cached": False}
             for k, t, r, s in ((2, 0, "A", "ok"), (0, 0, "?", "retried"), (0, 1, "A", "ok"), (1, 0, "B", "ok"))]
    write_samples(seeded, cell / "samples.parquet", {"cell": "domainauth/m1/pair_rank/wo_text/pairs"})
    write_samples(other, cell / "reversed" / "samples.parquet",
                  {"cell": "domainauth/m1/pair_rank/wo_text/pairs/reversed"})
    (cell / "reversed" / TWINS).write_text("request_id\ttwin_request_id\toutcome\n"
                                           "p0:0-1\tp0:1-0\tconflict\np1:0-1\tp1:1-0\tconsistent\n")
    return root, [cell / "samples.parquet", cell / "reversed" / "samples.parquet", cell / "reversed" / TWINS]
