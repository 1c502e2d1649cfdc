"""Benchmark: vLLM's prefix cache against the plan's reuse count, on one
judge cell's prompts (run it with .venv-vllm's Python, where vLLM is).

The plan counts, per prompt of a cell sent in sorted order, the tokens a
prefix cache holds from the prompt before it, in whole 16-token blocks
(:func:`authbench.plan.count.reusable`). vLLM reports per request the
prompt tokens it took from its cache (``RequestOutput.num_cached_tokens``;
the engine keeps it, and a cell's manifest sums it as
``prefix_cached_tokens``). This script sends the cell's prompts three ways
(all in one call, in chunks of 8 as the CPU tests' engine does, one per
call) with a fresh cache each, and prints vLLM's cached tokens beside the
plan's count; on a GPU the same script is the check of the paper grid's
reuse estimate.

    .venv-vllm/bin/python benchmarks/vllm_prefix_cache.py --model-dir results/models/qwen2.5-coder-0.5b-hf \\
        --instances results/domainauth/instances/fine.jsonl --judge pair_rank --setting fine
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", required=True, help="a Hugging Face folder (the models_convert rule's output)")
    ap.add_argument("--instances", required=True, help="the cell's instances (results/domainauth/instances/<setting>.jsonl)")
    ap.add_argument("--judge", default="pair_rank")
    ap.add_argument("--setting", default="fine")
    ap.add_argument("--context", default="wo_text")
    ap.add_argument("--dtype", default="float32", help="float32 on a CPU without native bfloat16; bfloat16 on a GPU")
    args = ap.parse_args(argv)
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    from transformers import AutoTokenizer
    from vllm import LLM, SamplingParams

    from authbench.plan.count import reusable
    from authbench.records import read_jsonl
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests

    template = load_template(ROOT / "resources" / "prompts" / "domainauth" / f"{args.judge}_{args.context}.yaml")
    prompts = sorted({r["prompt"] for r in build_requests(args.judge, args.setting, read_jsonl(args.instances),
                                                          template, 13)})
    tok = AutoTokenizer.from_pretrained(args.model_dir)

    def ids(prompt):
        got = tok.apply_chat_template([{"role": "user", "content": prompt}], tokenize=True, add_generation_prompt=True)
        return list(got["input_ids"] if hasattr(got, "keys") else got)

    token_lists = [ids(p) for p in prompts]
    planned = sum(reusable(a, b, 16) for a, b in zip([None, *token_lists[:-1]], token_lists))
    llm = LLM(model=args.model_dir, dtype=args.dtype, enforce_eager=True, max_model_len=2048,
              enable_prefix_caching=True, seed=0)
    print(f"\n{args.judge}/{args.context}/{args.setting}: {len(prompts)} prompts, "
          f"{sum(map(len, token_lists)):,} prompt tokens; the plan's reusable tokens (16-token blocks): {planned:,}\n")
    print("| sent | prompt tokens (vLLM) | cached tokens (vLLM) | seconds |\n|---|---:|---:|---:|")
    for label, size in (("all in one call", len(prompts)), ("chunks of 8", 8), ("one prompt a call", 1)):
        llm.reset_prefix_cache()
        cached, n, start = [], 0, time.perf_counter()
        for k in range(0, len(prompts), size):
            outs = llm.chat([[{"role": "user", "content": p}] for p in prompts[k:k + size]],
                            SamplingParams(max_tokens=3, temperature=0), use_tqdm=False,
                            chat_template_kwargs={"enable_thinking": False})
            cached += [getattr(o, "num_cached_tokens", None) for o in outs]
            n += sum(len(o.prompt_token_ids) for o in outs)
        shown = "not reported" if None in cached else f"{sum(cached):,}"
        print(f"| {label} | {n:,} | {shown} | {time.perf_counter() - start:,.1f} |")


if __name__ == "__main__":
    main()
