"""What every command-line step shares: parent folders, and the bridge from a
rule's files and ``--params`` to the one cell runner (:mod:`authbench.llm.runner`)."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:  # the runner's imports are a step's own: build and report steps need none of them
    from authbench.llm.runner import Retried
    from authbench.llm.runs import CellRun

log = logging.getLogger("authbench")


def mkparent(*paths: str) -> None:
    for p in paths:
        Path(p).parent.mkdir(parents=True, exist_ok=True)


def index(rows, key: str = "pid") -> dict:
    return {r[key]: r for r in rows}


def run_cell_requests(args, params, requests: Sequence[Mapping], generate: Mapping | None = None,
                      constrained: bool | None = None, engine_config: Mapping | None = None,
                      expected_scores: bool = False) -> CellRun:
    """A cell's requests through the cache and the engine of ``params["model"]``
    (``constrained`` overrides the config's switch: free-text steps pass False;
    ``engine_config``: the model's server, see :mod:`authbench.llm.serve`;
    ``expected_scores``: score distributions, :mod:`authbench.llm.expected`: AuthorityBench's
    judge cells pass their ``params["expected_scores"]``)."""
    from authbench.llm.runner import run_requests

    return run_requests(requests, params["model"], args.model_file, params["cell"], cache_dir=params.get("cache"),
                        constrained=params["constrained"] if constrained is None else constrained,
                        threads=args.threads, generate=generate, engine_config=engine_config,
                        expected_scores=expected_scores)


def try_seed(params, generate: Mapping | None, t: int) -> dict:
    """``generate`` for try ``t`` of a step asked several times: seed = the
    step's seed (the model's ``generate`` overlaid with ``generate``, as the
    runner merges them) + ``t``, so every try has its own cache key."""
    from authbench.config import GenerateConfig

    base = GenerateConfig().merge(params["model"].get("generate")).merge(generate).seed
    return {**(generate or {}), "seed": base + t}


def run_cell_retried(args, params, requests: Sequence[Mapping], settled, retries: int,
                     generate: Mapping | None = None, constrained: bool | None = None) -> Retried:
    """:func:`run_cell_requests` under :func:`authbench.llm.runner.run_with_retries`:
    try ``t`` with seed + ``t`` (:func:`try_seed`)."""
    from authbench.llm.runner import run_with_retries

    return run_with_retries(requests, lambda batch, t: run_cell_requests(
        args, params, batch, generate=try_seed(params, generate, t), constrained=constrained), settled, retries)


def write_cell_files(args, run: CellRun, judgments: Sequence[Mapping], inputs: dict, extra: dict,
                     grades: Mapping[str, Mapping] | None = None) -> None:
    """The cell's responses.jsonl, judgments.jsonl, manifest.json and
    samples.parquet at the rule's paths, its template(s) ``args.template``;
    ``grades``: the study's gold / correct per request
    (:func:`authbench.llm.runner.sample_rows`)."""
    from authbench.llm.runner import write_cell

    write_cell({"responses": args.responses, "judgments": args.judgments, "manifest": args.manifest,
                "samples": args.samples},
               dataclasses.replace(run, judgments=judgments, template=args.template, inputs=inputs, extra=extra),
               grades)
