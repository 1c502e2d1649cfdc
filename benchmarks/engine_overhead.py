"""Benchmark: one cell's prompts through the workflow's engine path vs. llama_cpp directly.

Builds the requests of one DomainAuth cell from the demo config (real data, real
prompts) and times, in one process with the same model file:

* overhead -- ``direct/free``: a bare loop over ``llama_cpp.Llama.create_completion``
  with each prompt's token budget, vs ``workflow/free``: the same prompts through
  ``authbench.llm.runner.generate_replies`` and the ``llamacpp`` engine (request objects,
  progress bar, response records). Same decoding, so the difference is the
  workflow's overhead. Target: <= 10 %.
* order -- each of those in the sampled order ("given") and sorted so that
  consecutive prompts share their prefix ("prefix"; llama.cpp re-evaluates only
  the differing suffix).
* constrained decoding -- ``workflow/slots`` (the engine's default: literals
  appended, values picked from the logits) in both orders, and ``direct/gbnf``
  (llama.cpp's grammar sampler) in prefix order for comparison.

Runs are interleaved and repeated; the table shows the fastest of the repeats
(the least disturbed by other load on the machine).

    python benchmarks/engine_overhead.py [--judge pair_rank] [--setting fine] [--limit 30] [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_requests(judge: str, setting: str, limit: int):
    from authbench.config import load_config
    from authbench.studies.authority.domains import build_domains
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests as build
    from authbench.studies.authority.sampling import sample_all

    cfg = load_config(ROOT / "config.yaml")
    dom = cfg["domainauth"]
    domains, _ = build_domains(ROOT / dom["source"], dom["status_filter"], dom["categories"])
    instances = sample_all(domains, dom["sampling"], cfg["seed"])[setting]
    template = load_template(ROOT / cfg["prompts"] / "domainauth" / f"{judge}_wo_text.yaml")
    return cfg, build(judge, setting, instances, template, cfg["seed"])[:limit]


def direct(llm, llama_cpp, requests, order, gbnf: bool, max_tokens: int):
    """The bare loop: what the workflow's free path does, minus the workflow."""
    from authbench.llm.grammars import grammar_for, token_budget

    grammars = {}
    tokens = 0
    start = time.perf_counter()
    for i in order:
        r = requests[i]
        key = (r["output"], r["n"])
        grammar = None
        if gbnf:
            if key not in grammars:
                grammars[key] = llama_cpp.LlamaGrammar.from_string(grammar_for(*key), verbose=False)
            grammar = grammars[key]
        out = llm.create_completion(r["prompt"], max_tokens=token_budget(*key, gbnf, max_tokens), temperature=0.0, top_p=1.0, seed=0,
                                    grammar=grammar)
        tokens += out["usage"]["prompt_tokens"]
    return time.perf_counter() - start, tokens


def via_workflow(engine, requests, order_name, constrained: bool, max_tokens: int):
    from authbench.config import GenerateConfig
    from authbench.llm.runner import generate_replies

    start = time.perf_counter()
    responses, _ = generate_replies(requests, engine, GenerateConfig(max_tokens=max_tokens), constrained=constrained,
                            order=order_name)  # no cache: every prompt reaches the engine
    return time.perf_counter() - start, sum(r.prompt_tokens for r in responses)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judge", default="pair_rank")
    ap.add_argument("--setting", default="fine")
    ap.add_argument("--limit", type=int, default=30, help="prompts of the cell to use")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=8,
                    help="free-decoding token cap (small, so prompt evaluation dominates as in constrained runs)")
    args = ap.parse_args()
    mt = args.max_tokens

    import llama_cpp
    from authbench.llm.engines.base import Request, prefix_order
    from authbench.llm.engines.llamacpp import LlamaCppEngine
    from authbench.llm.models import resolve_model

    cfg, requests = build_requests(args.judge, args.setting, args.limit)
    model_cfg = {**cfg["models"]["gemma3-270m"], "threads": args.threads}
    n = len(requests)
    results: dict[tuple[str, str], list[tuple[float, int]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        model_path = resolve_model(model_cfg["model"], Path(tmp) / "model.gguf")
        engine = LlamaCppEngine({**model_cfg, "constrain_with": "slots"}, model_path)
        llm = llama_cpp.Llama(model_path=str(model_path), n_ctx=model_cfg["n_ctx"], n_threads=args.threads,
                              seed=0, verbose=False)
        orders = {"given": list(range(n)),
                  "prefix": prefix_order([Request(r["request_id"], r["prompt"], 1) for r in requests])}
        direct(llm, llama_cpp, requests, orders["given"][:3], gbnf=False, max_tokens=mt)  # warm-up
        via_workflow(engine, requests[:3], "given", constrained=False, max_tokens=mt)
        runs = [(p, o) for p in ("direct/free", "workflow/free", "workflow/slots") for o in orders]
        for _ in range(args.repeats):
            for path, order_name in runs:
                llm.reset()
                engine.llm.reset()
                if path == "direct/free":
                    res = direct(llm, llama_cpp, requests, orders[order_name], gbnf=False, max_tokens=mt)
                else:
                    res = via_workflow(engine, requests, order_name, constrained=path.endswith("slots"),
                                       max_tokens=mt)
                results.setdefault((path, order_name), []).append(res)
        llm.reset()
        results[("direct/gbnf", "prefix")] = [direct(llm, llama_cpp, requests, orders["prefix"], gbnf=True,
                                                      max_tokens=mt)]
        engine.close()

    print(f"\ncell: domainauth/{args.judge}/wo_text/{args.setting}, {n} prompts, {args.threads} threads, "
          f"fastest of {args.repeats} interleaved runs (direct/gbnf: 1 run), free-decoding cap {mt} tokens\n")
    header = f"{'path':<15} {'order':<7} {'seconds':>8} {'prompts/s':>10} {'prompt tok/s':>13} {'vs direct':>10}"
    print(header)
    print("-" * len(header))
    best = {k: min(v) for k, v in results.items()}
    baseline = {"workflow/free": "direct/free", "workflow/slots": "direct/gbnf"}
    for (path, order_name), (secs, toks) in sorted(best.items()):
        ref = baseline.get(path)
        ref_secs = best.get((ref, order_name), (None,))[0]
        rel = f"{100 * (secs - ref_secs) / ref_secs:+.1f}%" if ref_secs else ""
        print(f"{path:<15} {order_name:<7} {secs:>8.2f} {n / secs:>10.2f} {toks / secs:>13.1f} {rel:>10}")
    for path in ("direct/free", "workflow/free", "workflow/slots"):
        g, p = best[(path, "given")][0], best[(path, "prefix")][0]
        print(f"prefix order vs given order, {path}: {100 * (p - g) / g:+.1f}% time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
