"""Every model job a config runs, with the requests it will send, built
before any model runs (:func:`model_jobs`): each study the config runs
lists its own (its job kinds' :meth:`~authbench.studies.jobs.JobKind.plan_jobs`,
:attr:`authbench.studies.registry.Study.jobs`, or its
:attr:`~authbench.studies.registry.Study.plan_jobs`, as
:class:`~authbench.cells.planned.PlanJob` s), from the files the workflow
writes before its first model job; where such a file cannot exist yet the
study estimates it and says so (:class:`~authbench.cells.planned.Estimated`).
What only a model's replies decide is stood in for, and each job says how
(:attr:`~authbench.cells.planned.PlanJob.notes`)."""

from __future__ import annotations

import os
from typing import Any, Iterator, Mapping

from authbench.cells.planned import Estimated, PlanContext, PlanJob
from authbench.paths import Layout


def model_jobs(config: Mapping[str, Any], tokenizers: Mapping[str, Any] | None = None,
               estimated: Estimated | None = None, exists=os.path.exists, workers: int = 1) -> Iterator[PlanJob]:
    """Every model job of ``config``, study by study (registry order), with
    its batches. ``tokenizers``: per model, the plan's counter's tokenizer
    (what cuts documents to a token count); ``estimated`` collects what was
    stood in for; ``workers``: the processes heavy loops may use."""
    from authbench.studies.registry import active

    ctx = PlanContext(Layout(config["results"]), exists, tokenizers or {},
                      estimated if estimated is not None else Estimated(), workers)
    for study in active(config):
        for kind in study.jobs:
            yield from kind.plan_jobs(study.name, config)
        if study.plan_jobs is not None:
            yield from study.plan_jobs(config, ctx)


def plan_inputs(config: Mapping[str, Any], layout: Layout, exists) -> list[str]:
    """The files :func:`model_jobs` reads, all written before any model job
    and none from the web: each study's (:attr:`~authbench.studies.registry.Study.plan_inputs`),
    and the GGUF of each embedded model the workflow assembles (a model given
    as a path is read when present, never required: the plan then counts
    with a proxy)."""
    from authbench.config import active_models
    from authbench.llm.models import model_file
    from authbench.studies.registry import active

    out: list[str] = []
    for study in active(config):
        if study.plan_inputs is not None:
            out += study.plan_inputs(config, layout, exists)
    for name, spec in active_models(config).items():
        if spec["engine"] == "llamacpp" and spec["model"].startswith(("package:", "parts:")):
            out.append(model_file(name, spec, layout))
    return list(dict.fromkeys(out))


def why_empty(config: Mapping[str, Any]) -> str:
    """Why a config asks no model anything (an empty grid): each listed study's reason."""
    from authbench.config import models_for
    from authbench.studies.registry import active

    if not config.get("studies"):
        return "no study is listed in 'studies'"
    why = []
    for study in active(config):
        if not models_for(config, study.name):
            why.append(f"{study.name}: no active model runs it (each model's 'studies' leaves it out)")
        elif study.plan_empty is not None and (reason := study.plan_empty(config)):
            why.append(reason)
    return "; ".join(why) or "the config selects no model cell"
