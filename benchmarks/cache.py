"""The response cache at cluster scale: replies written per second (one fsync
per chunk), keys looked up per second across many shards, files per cell.

    .venv/bin/python benchmarks/cache.py --cells 40 --per-cell 5000 --chunk 512
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from pathlib import Path

from authbench.llm.cache import ResponseCache


def key(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=int, default=40)
    ap.add_argument("--per-cell", type=int, default=5000)
    ap.add_argument("--chunk", type=int, default=512)
    ap.add_argument("--root", default=None, help="cache folder (default: a temporary one)")
    args = ap.parse_args()
    root = Path(args.root or tempfile.mkdtemp(prefix="cache-bench-"))
    reply = {"text": '{"A": 7, "B": 4}', "prompt_tokens": 180, "completion_tokens": 13, "seconds": 0.25,
             "finish_reason": "stop", "engine": {"engine": "vllm", "engine_version": "0.32.0"}}
    n = args.cells * args.per_cell
    fsyncs = 0
    start = time.perf_counter()
    for c in range(args.cells):
        cache = ResponseCache(root, writer=f"domainauth/model/pair_score/w_text/cell{c}", batch=args.chunk)
        for i in range(c * args.per_cell, (c + 1) * args.per_cell):
            cache.put(key(i), reply)
        cache.close()
        fsyncs += cache.fsyncs
    write = time.perf_counter() - start
    # a cell that looks up its own keys plus half of another cell's (cross-cell hits) and unknown ones
    wanted = [key(i) for i in range(args.per_cell * 2, args.per_cell * 3 + args.per_cell // 2)]
    wanted += [key(n + i) for i in range(args.per_cell // 2)]
    start = time.perf_counter()
    found = ResponseCache(root).get_many(wanted)
    look = time.perf_counter() - start
    files = sum(1 for p in root.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    print(f"\n{args.cells} cells x {args.per_cell} replies, chunk {args.chunk}, cache in {root}\n")
    print("| what | value |")
    print("|---|---:|")
    print(f"| replies written per second | {n / write:,.0f} |")
    print(f"| fsyncs | {fsyncs:,} ({n / fsyncs:.0f} replies each) |")
    print(f"| keys looked up per second (of {len(wanted):,}: {len(found):,} hits, {args.cells} shards) | "
          f"{len(wanted) / look:,.0f} |")
    print(f"| files in the cache | {files} ({files / args.cells:.1f} per cell) |")
    print(f"| bytes in the cache | {size:,} ({size / n:.0f} per reply) |")
    assert len(found) == args.per_cell * 3 // 2 and all(r["text"] == reply["text"] for r in found.values())
    print(json.dumps({"written_per_s": round(n / write), "looked_up_per_s": round(len(wanted) / look)}))


if __name__ == "__main__":
    main()
