"""Benchmark: one cell's prompts through the workflow's engine path vs. llama_cpp directly.

Builds the requests of one DomainAuth cell from the demo config (real data, real
prompts), then times, in one process and with the same loaded model file:

* ``direct/gbnf``   -- a bare loop over ``llama_cpp.Llama.create_completion`` with
  the GBNF grammar and token budget of each prompt;
* ``workflow/gbnf`` -- ``authbench.judges.run_cell`` through the ``llamacpp``
  engine with ``constrain_with: gbnf`` (the same decoding: this pair measures the
  workflow's overhead -- request objects, grammar cache, progress bar, records);
* ``workflow/slots`` -- the engine's default slot decoding (same reply shapes,
  literals appended, values picked from the logits);

each in the sampled order ("given") and sorted so consecutive prompts share
their prefix ("prefix"; llama.cpp re-evaluates only the differing suffix).
Prints a table: prompts/s, prompt tokens/s, and the overhead of each workflow
row over ``direct/gbnf`` in the same order. Target for workflow/gbnf: <= 10 %.

    python benchmarks/engine_overhead.py [--judge pair_score] [--setting fine] [--limit 120] [--repeats 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_requests(judge: str, setting: str, limit: int):
    from authbench.config import load_config
    from authbench.domains import build_domains
    from authbench.judges import build_requests as build
    from authbench.prompts import load_template
    from authbench.sampling import sample_all

    cfg = load_config(ROOT / "config.yaml")
    dom = cfg["domainauth"]
    domains, _ = build_domains(ROOT / dom["source"], dom["status_filter"], dom["categories"])
    instances = sample_all(domains, dom["sampling"], cfg["seed"])[setting]
    template = load_template(ROOT / cfg["prompts"] / "domainauth" / f"{judge}_wo_text.yaml")
    return cfg, build(judge, setting, instances, template, cfg["seed"])[:limit]


def direct(llm, llama_cpp, requests, order):
    from authbench.grammars import grammar_for, max_tokens_for

    grammars = {}
    tokens = 0
    start = time.perf_counter()
    for i in order:
        r = requests[i]
        key = (r["output"], r["n"])
        if key not in grammars:
            grammars[key] = llama_cpp.LlamaGrammar.from_string(grammar_for(*key), verbose=False)
        out = llm.create_completion(r["prompt"], max_tokens=max_tokens_for(*key), temperature=0.0, top_p=1.0,
                                    seed=0, grammar=grammars[key])
        tokens += out["usage"]["prompt_tokens"]
    return time.perf_counter() - start, tokens


def via_workflow(engine, requests, order_name):
    from authbench.config import GenerateConfig
    from authbench.judges import run_cell

    start = time.perf_counter()
    responses = run_cell(requests, engine, GenerateConfig(), constrained=True, order=order_name)
    return time.perf_counter() - start, sum(r.prompt_tokens for r in responses)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judge", default="point")
    ap.add_argument("--setting", default="fine")
    ap.add_argument("--limit", type=int, default=40, help="prompts of the cell to use")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    import llama_cpp

    from authbench.engines.base import Request, prefix_order
    from authbench.engines.llamacpp import LlamaCppEngine, resolve_model

    cfg, requests = build_requests(args.judge, args.setting, args.limit)
    model_cfg = {**cfg["models"]["gemma3-270m"], "threads": args.threads}
    with tempfile.TemporaryDirectory() as tmp:
        model_path = resolve_model(model_cfg["model"], Path(tmp) / "model.gguf")
        engines = {m: LlamaCppEngine({**model_cfg, "constrain_with": m}, model_path) for m in ("gbnf", "slots")}
        llm = llama_cpp.Llama(model_path=str(model_path), n_ctx=model_cfg["n_ctx"], n_threads=args.threads,
                              seed=0, verbose=False)
        given = list(range(len(requests)))
        prefix = prefix_order([Request(r["request_id"], r["prompt"], 1) for r in requests])
        results = {}
        # warm-up: one pass each so page cache and allocations are settled
        direct(llm, llama_cpp, requests, given[:5])
        for engine in engines.values():
            via_workflow(engine, requests[:5], "given")
        for _ in range(args.repeats):
            for order_name, order in (("given", given), ("prefix", prefix)):
                llm.reset()
                results.setdefault(("direct/gbnf", order_name), []).append(direct(llm, llama_cpp, requests, order))
                for method, engine in engines.items():
                    engine.llm.reset()
                    results.setdefault((f"workflow/{method}", order_name), []).append(
                        via_workflow(engine, requests, order_name))
        for engine in engines.values():
            engine.close()

    n = len(requests)
    print(f"\ncell: domainauth/{args.judge}/wo_text/{args.setting}, {n} prompts, "
          f"{args.threads} threads, median of {args.repeats} runs\n")
    header = f"{'path':<15} {'order':<7} {'seconds':>8} {'prompts/s':>10} {'prompt tok/s':>13} {'vs direct':>10}"
    print(header)
    print("-" * len(header))
    for order_name in ("given", "prefix"):
        base = statistics.median(s for s, _ in results[("direct/gbnf", order_name)])
        for path in ("direct/gbnf", "workflow/gbnf", "workflow/slots"):
            runs = results[(path, order_name)]
            secs = statistics.median(s for s, _ in runs)
            toks = runs[0][1]
            over = "" if path.startswith("direct") else f"{100 * (secs - base) / base:+.1f}%"
            print(f"{path:<15} {order_name:<7} {secs:>8.2f} {n / secs:>10.2f} {toks / secs:>13.1f} {over:>10}")
    for path in ("direct/gbnf", "workflow/gbnf", "workflow/slots"):
        g = statistics.median(s for s, _ in results[(path, "given")])
        p = statistics.median(s for s, _ in results[(path, "prefix")])
        print(f"prefix order vs given order, {path}: {100 * (p - g) / g:+.1f}% time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
