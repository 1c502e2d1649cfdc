"""Command line of the pipeline: one subcommand per Snakemake rule, named
``<study>-<stage>`` like the rules (``domainauth-build``, ``authority-judge``,
``ragauth-rank``, ``selfpref-compare``, ``fetch-pagerank`` ...).

Rules call ``python -m authbench.cli <step> ...`` with files and a JSON
``--params`` string built by the rule (never the whole config), so Snakemake
sees every value that can change an output. Known errors
(:class:`authbench.errors.PipelineError`, a missing file) end with one line on
stderr and exit code 2, never a traceback. Nothing imports this package: it
is the front end over ``authbench.studies``, ``authbench.llm`` and the rest.

With ``AUTHBENCH_USAGE_LOG`` set to a file, every step appends one JSON line
to it when it ends: step, exit code, wall and CPU seconds, and the peak
resident memory of the step's process (the kernel's high-water mark, exact,
unlike a sampling monitor); benchmarks/paper_rehearsal.py reads it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import sys
import time

from authbench.records import mkparent
from authbench.errors import PipelineError
from authbench.studies.registry import lazy


def cmd_models_assemble(args, params) -> None:
    from authbench.llm.models import resolve_model

    mkparent(args.out)
    logging.getLogger("authbench").info("model ready at %s", resolve_model(params["model"], args.out))


def cmd_models_convert(args, params) -> None:
    from authbench.llm.models import PART_MODELS, convert_gguf

    spec = params["model"]
    known = PART_MODELS.get(spec.split(":", 1)[1]) if spec.startswith("parts:") else None
    out = convert_gguf(args.gguf, args.out, known.architecture if known else None)
    logging.getLogger("authbench").info("converted %s to %s", args.gguf, out)


def cmd_provenance_dag(args, params) -> None:
    from authbench.render.dag import export_dag

    export_dag(args.outdir, params["config"], params["snakefile"], params["targets"], params["configfiles"])


def cmd_study_viewer(args, params) -> None:
    """A study's sample viewer (:mod:`authbench.cells.viewer`): the model
    cells' ``--samples`` (shown by their path under ``--root``, the study's
    folder), the assets of ``--assets``, the judge-validity flags of
    ``--costs`` (AuthorityBench's costs.csv), ``params["study"]`` its title;
    under ``--outdir``."""
    from authbench.cells.viewer import read_flags, write_viewer

    catalog = write_viewer(args.outdir, args.samples, args.root, params["study"], args.assets,
                           read_flags(args.costs))
    for cell in catalog["cells"]:
        if not cell["available"]:
            logging.getLogger("authbench").warning("viewer: %s unavailable: %s", cell["cell"], cell["reason"])


def cmd_models_serve(args, params) -> None:
    from authbench.llm.serve import run_server

    run_server(args.model_dir, params["model"], args.out)


def cmd_benchmark_statistics(args, params) -> None:
    """The benchmark statistics of every study (:mod:`authbench.studies.statistics`):
    ``params["written"]`` its tables this config produces; each study's input
    files (its hook's ``ARGS``) and params; under ``--outdir``/tables."""
    from authbench.studies.statistics import write_statistics

    write_statistics(args.outdir, vars(args), params)


def cmd_prompt_diffs(args, params) -> None:
    """A study's prompt-edit diffs (:func:`authbench.cells.history.write_diffs`):
    each ``--samples`` (a judge cell's current samples) against its history
    under ``--history``; per-cell files under ``--folder``, the list ``--index``."""
    from authbench.cells.history import write_diffs
    from authbench.cells.viewer import TWINS
    from authbench.stats import IntervalSpec

    samples = [p for p in args.samples if os.path.basename(p) != TWINS]  # the viewer's pairing tables ride along
    write_diffs(samples, args.history, args.folder, args.index, IntervalSpec.from_config(params),
                params["examples"], params["title"])


def cmd_plan(args, params) -> None:
    """The run's plan (:mod:`authbench.plan`) of ``params["config"]``: ``--md``,
    ``--tsv`` and ``--cells``, and one line per model on stdout (the console);
    ``--workers``: processes for its heavy loops."""
    from authbench.plan import build_plan, plan_lines, write_plan

    plan = build_plan(params["config"], params.get("calibrate_seconds", 4.0), workers=int(args.workers or 1))
    write_plan(plan, args.md, args.tsv, args.cells, ", ".join(params.get("configfiles") or []))
    for line in plan_lines(plan):
        print(line, flush=True)


def cmd_progress(args, params) -> None:
    """A run against its plan (:mod:`authbench.plan.progress`): one line per
    model on stdout, from ``--results`` (default ``results``): its
    ``plan_cells.tsv``, the cell manifests and the model jobs' logs."""
    from authbench.plan.progress import progress_lines

    for line in progress_lines(args.results or "results"):
        print(line, flush=True)


GENERAL = {
    "plan": (cmd_plan, ["md", "tsv", "cells?", "workers?"]),
    "progress": (cmd_progress, ["results?"]),
    # its options: every study's statistics files (authbench.studies.statistics), asked when the parser is built
    "benchmark-statistics": (cmd_benchmark_statistics, lazy("authbench.studies.statistics:statistics_args")),
    "models-serve": (cmd_models_serve, ["model_dir", "out"]),
    "models-assemble": (cmd_models_assemble, ["out"]),
    "models-convert": (cmd_models_convert, ["gguf", "out"]),
    "provenance-dag": (cmd_provenance_dag, ["outdir"]),
    "study-viewer": (cmd_study_viewer, ["samples*", "root", "assets", "costs?", "outdir"]),
    "prompt-diffs": (cmd_prompt_diffs, ["samples*", "history", "folder", "index"]),
}
# the shared steps' modules by their names' first word; a study's steps are in its declaration's command module
# (authbench.studies.registry: Study.commands, Study.prefixes); only the invoked step's module is imported (a
# job's start: every rule runs one step)
SHARED_MODULES = {"fetch": "authbench.cli.fetch"}


def _commands(module: str | None) -> dict:
    import importlib
    import importlib.util

    if module is None:
        return GENERAL
    if module.endswith(".py"):  # a study of one's own: its command file
        from pathlib import Path

        name = f"authbench_commands_{abs(hash(str(Path(module).resolve()))):x}"
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, module)
            sys.modules[name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(sys.modules[name])
        return sys.modules[name].COMMANDS
    return importlib.import_module(module).COMMANDS


def _module_of(name: str) -> str | None:
    from authbench.studies.registry import command_module

    first = name.split("-", 1)[0]
    return SHARED_MODULES.get(first) or command_module(name)


def command(name: str) -> tuple:
    """``(function, options)`` of the step ``name``; KeyError for an unknown one."""
    return _commands(_module_of(name))[name]


def command_names() -> list[str]:
    """Every step's name (imports every registered study's command module)."""
    from authbench.studies.registry import command_modules

    modules = (None, *SHARED_MODULES.values(), *command_modules())
    return [name for module in dict.fromkeys(modules) for name in _commands(module)]


def build_parser(names=None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="authbench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in names or command_names():
        _, options = command(name)
        if callable(options):
            options = options()
        p = sub.add_parser(name)
        p.add_argument("--params", default="{}", help="JSON object of the rule's parameters")
        for opt in options:
            flag = "--" + opt.rstrip("?*+").replace("_", "-")
            if opt.endswith("+"):
                p.add_argument(flag, nargs="+", required=True)
            elif opt.endswith("*"):
                p.add_argument(flag, nargs="*", default=[])
            else:
                p.add_argument(flag, required=not opt.endswith("?"), default=None)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    # matplotlib's PDF backend subsets fonts through fontTools, which logs each glyph table at INFO:
    # 330 of a report log's 331 lines; its warnings still reach the log
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    argv = sys.argv[1:] if argv is None else argv
    step = next((a for a in argv if not a.startswith("-")), None)
    try:
        known = [step] if step is not None and command(step) else None
    except KeyError:
        known = None  # argparse names the unknown step
    args = build_parser(known).parse_args(argv)
    started, code = time.perf_counter(), 1
    try:
        params = json.loads(args.params)
        command(args.command)[0](args, params)
        code = 0
    except (PipelineError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        code = 2
    finally:
        if os.environ.get("AUTHBENCH_USAGE_LOG"):
            files = {k: v for k, v in vars(args).items() if k not in ("command", "params")}
            log_usage(os.environ["AUTHBENCH_USAGE_LOG"], args.command, code, time.perf_counter() - started, files)
    return code


def log_usage(path: str, step: str, code: int, wall: float, files: dict) -> None:
    """One JSON line (see the module docstring), appended with one write (O_APPEND: concurrent steps never mix lines)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    line = json.dumps({"step": step, "exit": code, "wall_s": round(wall, 3),
                       "cpu_s": round(own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime, 3),
                       "peak_rss_mb": round(max(own.ru_maxrss, children.ru_maxrss) / 1024, 1), "files": files})
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)
