"""What every command-line step shares: parent folders, and the bridge from a
rule's files and ``--params`` to the one cell runner (:mod:`authbench.llm.runner`)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

from authbench.llm.runner import run_requests, write_cell

log = logging.getLogger("authbench")


def mkparent(*paths: str) -> None:
    for p in paths:
        Path(p).parent.mkdir(parents=True, exist_ok=True)


def index(rows, key: str = "pid") -> dict:
    return {r[key]: r for r in rows}


def run_cell_requests(args, params, requests: Sequence[Mapping], generate: Mapping | None = None,
                      constrained: bool | None = None, engine_config: Mapping | None = None):
    """A cell's requests through the cache and the engine of ``params["model"]``
    (``constrained`` overrides the config's switch: free-text steps pass False;
    ``engine_config``: the model's server, see :mod:`authbench.llm.serve`)."""
    return run_requests(requests, params["model"], args.model_file, params["cell"], cache_dir=params.get("cache"),
                        constrained=params["constrained"] if constrained is None else constrained,
                        threads=args.threads, generate=generate, engine_config=engine_config)


def write_cell_files(args, params, requests, responses, judgments, run, model, gen, inputs: dict, extra: dict) -> None:
    """The cell's responses.jsonl, judgments.jsonl and manifest.json at the rule's paths."""
    write_cell({"responses": args.responses, "judgments": args.judgments, "manifest": args.manifest},
               params["cell"], params["model"]["engine"], args.template, params["constrained"],
               requests, responses, judgments, run, model, gen, inputs, extra)
