"""The benchmark statistics of every study (``results/statistics/``): one
report and one step (the ``benchmark_statistics`` rule, CLI
``benchmark-statistics``) that count the datasets a run built, no model
job first. Each study gives its part through its hook
(:attr:`authbench.studies.registry.Study.statistics`): a module that defines

* ``TABLES``: its report items (:class:`authbench.render.catalog.Table`),
  built from what its ``load`` returns;
* ``ARGS``: the step's input files it reads, as CLI options (``name*``: a
  list, ``name?``: one file or none);
* ``inputs(config, layout) -> {name: [file]}``: those files (no file I/O);
* ``params(config) -> dict``: the plain values its ``load`` reads (the step's
  params: every hook's, and ``written``);
* ``load(files, params)``: what its tables build from (``files``: its ARGS
  by name);
* optionally ``write(outdir, written, loaded) -> [Path]``: more files (a
  scorecard).

Studies that share a hook module (DomainAuth, EntityAuth and RAGAuth share
Table 7) use it once; this module loops over the hooks and names no study.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping

from authbench.render.catalog import Report, report_choice, write_tables

TITLE = "Benchmark statistics"


def hooks(config: Mapping[str, Any] | None = None) -> list[ModuleType]:
    """The statistics hook module of every registered study, each once, in registry order."""
    from authbench.studies.registry import studies

    names = dict.fromkeys(s.statistics for s in studies(config).values() if s.statistics)
    return [importlib.import_module(name) for name in names]


def statistics_report(config: Mapping[str, Any] | None = None) -> Report:
    """The report of every hook's tables (its folder: ``Layout.statistics``)."""
    return Report(TITLE, items=tuple(item for hook in hooks(config) for item in hook.TABLES))


def statistics_args(config: Mapping[str, Any] | None = None) -> list[str]:
    """The step's CLI options: every hook's input files, and ``outdir``."""
    return [arg for hook in hooks(config) for arg in hook.ARGS] + ["outdir"]


def statistics_inputs(config: Mapping[str, Any], layout) -> dict[str, list[str]]:
    """The step's named input files, every hook's."""
    return {name: files for hook in hooks(config) for name, files in hook.inputs(config, layout).items()}


def statistics_params(config: Mapping[str, Any]) -> dict[str, Any]:
    """The step's params: the tables this config writes (``written``) and every hook's params."""
    out = {"written": report_choice(statistics_report(config), config)["written"]}
    for hook in hooks(config):
        out.update(hook.params(config))
    return out


def write_statistics(outdir: str | Path, files: Mapping[str, Any], params: Mapping[str, Any]) -> list[Path]:
    """Every hook's tables of ``params["written"]`` under ``outdir/tables``, and its more files."""
    paths: list[Path] = []
    for hook in hooks():
        written = [item.stem for item in hook.TABLES if item.stem in params["written"]]
        if not written:
            continue
        names = [arg.rstrip("?*+") for arg in hook.ARGS]
        loaded = hook.load({name: files[name] for name in names}, params)
        paths += write_tables(Report(TITLE, items=hook.TABLES), written, loaded, outdir)
        if hasattr(hook, "write"):
            paths += hook.write(outdir, written, loaded)
    return paths

