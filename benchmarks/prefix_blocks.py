"""Slot decoding's engine time by the llama.cpp reuse block (``llamacpp.REUSE_BLOCK``).

The engine reuses only whole aligned blocks of ``B`` prompt tokens, so a reply
does not depend on what the process evaluated before
(:mod:`authbench.llm.engines.llamacpp`). The price is prompt tokens evaluated
again and smaller batches. This times the pipeline's own slot-decoding path
(``generate_replies``, no cache, prompts in prefix order as the runner sorts them) on
the first ``--limit`` requests of each DomainAuth judge's fine cell of the
demo config, for both demo models, once per ``--blocks`` value, and prints one
Markdown table of seconds (lower is better).

Run from a checkout whose engine has no ``REUSE_BLOCK`` (before whole-block
reuse), it times that engine's free prefix reuse instead, as the one column
``free``: the same script gives the before and after figures.

    PYTHONPATH=.shim .venv/bin/python benchmarks/prefix_blocks.py [--blocks 16 32 64] [--limit 10]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from engine_overhead import build_requests, via_workflow  # noqa: E402

JUDGES = ("point", "list_score", "list_rank", "pair_rank", "pair_score")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, nargs="+", default=[16, 32, 64])
    ap.add_argument("--limit", type=int, default=10, help="requests of each cell")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    from authbench.llm.engines import llamacpp
    from authbench.llm.models import resolve_model

    columns = [f"B={b}" for b in args.blocks] if hasattr(llamacpp, "REUSE_BLOCK") else ["free"]
    rows: dict[tuple[str, str], dict[str, float]] = {}
    tokens: dict[tuple[str, str], int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for column in columns:
            if column != "free":
                llamacpp.REUSE_BLOCK = int(column[2:])
            for judge in JUDGES:
                cfg, reqs = build_requests(judge, "fine", args.limit)
                for name, model in cfg["models"].items():
                    if model.get("engine") != "llamacpp":
                        continue
                    path = Path(tmp) / f"{name}.gguf"
                    if not path.exists():
                        resolve_model(model["model"], path)
                    engine = llamacpp.LlamaCppEngine({**model, "threads": args.threads, "constrain_with": "slots"},
                                                     path)
                    seconds, n = via_workflow(engine, reqs, "prefix", constrained=True, max_tokens=8)
                    engine.close()
                    rows.setdefault((judge, name), {})[column] = seconds
                    tokens[(judge, name)] = n
    print(f"\nslot decoding, prefix order, {args.limit} requests per cell, {args.threads} threads: seconds\n")
    print("| cell (fine) | model | prompt tokens | " + " | ".join(columns) + " |")
    print("|---|---|---:|" + "---:|" * len(columns))
    for (judge, name), row in rows.items():
        cells = " | ".join(f"{row[c]:.2f}" for c in columns)
        print(f"| {judge} | {name} | {tokens[(judge, name)]:,} | {cells} |")
    print("| all | | " + f"{sum(tokens.values()):,} | "
          + " | ".join(f"{sum(r[c] for r in rows.values()):.2f}" for c in columns) + " |")


if __name__ == "__main__":
    main()
