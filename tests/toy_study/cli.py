"""The toy study's CLI steps (`python -m authbench.cli toy-judge ...`): the
registry routes a step whose name starts with `toy` here (study.py's
`commands` and `prefixes`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the study's own modules

import toy  # noqa: E402
from authbench.records import read_jsonl  # noqa: E402


def cmd_judge(args, params) -> None:
    from authbench.cells import CellStep

    asked = toy.requests(params["numbers"], args.template)
    CellStep.from_args(args, params).run_cell(
        asked, parse=lambda requests, replies: toy.judgments(requests, [r.text for r in replies]),
        inputs={"numbers": (args.template, {})})


def cmd_report(args, params) -> None:
    from authbench.render.catalog import report_choice, write_report
    from authbench.stats import IntervalSpec

    rows = {model: read_jsonl(path) for model, path in zip(params["models"], args.judgments)}
    data = toy.Data(rows, IntervalSpec.from_config(params), params.get("scorecard"))
    write_report(toy.TOY, data, args.outdir, report_choice(toy.TOY, {}), params["intervals"]["show"])


COMMANDS = {
    "toy-judge": (cmd_judge, ["template", "model_file?", "responses", "samples", "judgments", "manifest", "threads?"]),
    "toy-report": (cmd_report, ["judgments+", "outdir"]),
}
