"""Benchmark: what ``samples.parquet`` (:mod:`authbench.cells.samples`)
adds to ``results/`` on the paper grid's prompts.

Reads the DomainAuth cells of a paper rehearsal (``benchmarks/paper_rehearsal.py
--overlay benchmarks/rehearsal_domainauth.yaml``: paper counts, ``engine:
instant``), re-renders every cell's prompts through the real request builder
(:func:`authbench.studies.authority.requests.build_requests`, the cell's own
template and instances), checks each prompt's SHA-256 against the cell's
``responses.jsonl``, and writes the cell's samples with the real writer
(:meth:`authbench.cells.CellRecord.sample_rows`, the study's grades,
:func:`authbench.cells.samples.write_samples`) to a scratch folder. Prints per cell
and in total: rows, ``samples.parquet`` bytes, ``responses.jsonl`` bytes,
bytes per sample and per million samples.

The rehearsal's homepage texts (``w_text`` cells) are stand-ins: one word
sequence repeated for every domain, which compresses far better than real
pages. ``--texts vocab`` replaces each domain's text by as many words drawn
at random (seeded by the domain) from the vocabulary of this repository's
README and docs: unigram-random text compresses worse than real pages, so
the two runs bracket the paper's ``w_text`` size (the prompts then differ
from the rehearsal's responses.jsonl by design: the hash check is skipped).

    python benchmarks/samples_size.py --workdir /tmp/rehearsal21 [--model Qwen3-8B] [--texts vocab]

Numbers from this machine are in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import time
from pathlib import Path

import yaml
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Response
from authbench.cells import CellRecord, prompt_hash
from authbench.llm.runs import Run, RunStats
from authbench.records import read_jsonl
from authbench.cells.samples import write_samples
from authbench.studies.authority.evaluate import sample_grades
from authbench.studies.authority.prompts import load_template
from authbench.studies.authority.requests import build_requests

ROOT = Path(__file__).resolve().parents[1]


def vocabulary() -> list[str]:
    text = " ".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    return sorted({w for w in re.findall(r"[a-z]{2,}", text.lower())})


def vocab_texts(instances: list[dict], words: list[str]) -> list[dict]:
    """Every item's text as many random vocabulary words (seeded by its domain) as its stand-in had."""
    def text(item):
        n = len(item["text"].split())
        return " ".join([item["domain"], "-", *random.Random(item["domain"]).choices(words, k=max(0, n - 2))])

    return [{**inst, "items": [{**it, "text": text(it)} if it.get("text") else it for it in inst["items"]]}
            for inst in instances]


def cell_samples(work: Path, cell: Path, seed: int, out: Path, words: list[str] | None) -> dict:
    manifest = json.loads((cell / "manifest.json").read_text())
    _, _model, judge, _context, setting = manifest["cell"].split("/")
    instances = read_jsonl(work / manifest["instances"]["path"])
    if words is not None:
        instances = vocab_texts(instances, words)
    template = work / manifest["template"]["path"]
    requests = build_requests(judge, setting, instances, load_template(template), seed)
    responses = read_jsonl(cell / "responses.jsonl")
    judgments = read_jsonl(cell / "judgments.jsonl")
    if len(requests) != len(responses):
        raise SystemExit(f"{cell}: {len(requests)} requests rendered, {len(responses)} responses")
    mismatched = (None if words is not None
                  else sum(prompt_hash(q["prompt"]) != r["prompt_sha256"] for q, r in zip(requests, responses)))
    run = Run(manifest["model"], RunStats(requests=len(requests)), engine="instant", generate=GenerateConfig(),
              constrained=True, requests=requests,
              responses=[Response(r["request_id"], r["text"], r["prompt_tokens"], r["completion_tokens"], 0.0,
                                  r["finish_reason"], r.get("score_probs")) for r in responses])
    record = CellRecord.of(manifest["cell"], run, judgments, str(template),
                           grades=sample_grades(judge, setting, instances, judgments))
    path = out / manifest["cell"] / "samples.parquet"
    n = write_samples(record.sample_rows(), path,
                      {"cell": record.cell, "study": "domainauth", "template_sha256": record.template_sha256})
    return {"cell": manifest["cell"], "rows": n, "parquet": path.stat().st_size,
            "responses": (cell / "responses.jsonl").stat().st_size,
            "prompt_chars": sum(len(q["prompt"]) for q in requests), "mismatched": mismatched}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default="/tmp/rehearsal21", type=Path)
    ap.add_argument("--model", default="Qwen3-8B", help="the model whose cells are measured")
    ap.add_argument("--out", default="/tmp/samples_size", type=Path)
    ap.add_argument("--texts", choices=("rehearsal", "vocab"), default="rehearsal",
                    help="the w_text cells' homepage texts: the rehearsal's stand-ins, or random vocabulary words")
    args = ap.parse_args()
    work = args.workdir
    seed = int(yaml.safe_load((work / "config.yaml").read_text())["seed"])
    cells = sorted(p.parent for p in work.glob(f"results/*/domainauth/cells/{args.model}/*/*/*/responses.jsonl"))
    if not cells:
        raise SystemExit(f"no DomainAuth cells of {args.model} under {work}/results")
    shutil.rmtree(args.out, ignore_errors=True)
    start, rows = time.process_time(), []
    words = vocabulary() if args.texts == "vocab" else None
    print("| cell | samples | samples.parquet bytes | bytes / sample | responses.jsonl bytes | prompt MB (text) |")
    print("|---|---:|---:|---:|---:|---:|")
    for cell in cells:
        r = cell_samples(work, cell, seed, args.out, words)
        rows.append(r)
        print(f"| {r['cell']} | {r['rows']:,} | {r['parquet']:,} | {r['parquet'] / r['rows']:.1f} | "
              f"{r['responses']:,} | {r['prompt_chars'] / 1e6:.1f} |", flush=True)
    n, pq, resp = (sum(r[k] for r in rows) for k in ("rows", "parquet", "responses"))
    text = sum(r["prompt_chars"] for r in rows)
    print(f"| **all {len(rows)} cells** | {n:,} | {pq:,} | {pq / n:.1f} | {resp:,} | {text / 1e6:.1f} |")
    print(f"\nper million samples: {pq / n:.1f} MB samples.parquet (responses.jsonl: {resp / n:.1f} MB; prompt text "
          f"uncompressed: {text / n:.1f} MB); samples.parquet / responses.jsonl = {pq / resp:.2f}")
    if args.texts == "rehearsal":
        print(f"prompts whose re-rendered SHA-256 differs from responses.jsonl: {sum(r['mismatched'] for r in rows)}")
    print(f"CPU: {time.process_time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
