"""AuthorityBench's judge jobs, each declared once
(:class:`authbench.studies.jobs.JobKind`): a cell (:class:`JUDGE`, one per
grid entry, :func:`authbench.studies.authority.grid.grid`) and, with config
``position_consistency``, its reversed job (:class:`JUDGE_REVERSED`, its
pair and list cells shown in the other order; its id the cell's and
``/reversed``, its folder in the cell's). The rules ``authority_judge`` and ``authority_judge_reversed``
take their outputs, inputs and params from here, and the CLI step builds
their requests with :func:`judge_job`. The plan plans them itself
(``planned_by_study``: :func:`authbench.studies.authority.plan.plan_jobs`),
from the same jobs and inputs: it lists each cell's calls and renders only
the ones it samples, one batch shared by every model's cell with the same
prompts. Light: the Snakefile loads it on every run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from authbench.paths import Layout
from authbench.studies.authority.consistency import ORDER_SUFFIX
from authbench.studies.jobs import CellParams, JobKind

PATTERN = "{dataset}/{model}/{judge}/{context}/{setting}"  # authbench.paths.cell_id of a grid entry


@dataclass(frozen=True)
class JudgeParams(CellParams):
    """A judge cell's params: its judge, context and setting, the seed of its samples and position flips, and
    whether a score judge writes E[s] beside the argmax (:mod:`authbench.llm.expected`)."""

    judge: str
    context: str
    setting: str
    seed: int
    expected_scores: bool


@dataclass(frozen=True)
class ReversedParams(JudgeParams):
    """A cell's reversed job's: the cell's, its id + ``/reversed``, and the order."""

    reversed: bool


def _entries(config: Mapping[str, Any], both: bool) -> list[dict]:
    """Every grid entry's wildcards, or (``both``) those of the entries shown in both orders."""
    from authbench.studies.authority.grid import grid, reversed_entries

    entries = grid(config)
    return [dict(vars(e)) for e in (reversed_entries(config, entries) if both else entries)]


def _params(config: Mapping[str, Any], wc: Mapping[str, str], shared: dict) -> dict:
    from authbench.studies.authority.judges import judge_of

    return dict(**shared, judge=wc["judge"], context=wc["context"], setting=wc["setting"], seed=config["seed"],
                expected_scores=config["expected_scores"] and judge_of(wc["judge"]).scores)


def judge_inputs(config: Mapping[str, Any], wildcards: Mapping[str, str]) -> dict[str, str]:
    """A cell's instances and template."""
    from authbench.studies.authority.grid import GridEntry, entry_template

    entry = GridEntry(**{k: wildcards[k] for k in ("dataset", "model", "judge", "context", "setting")})
    return {"instances": Layout(config["results"]).instances(entry.dataset, entry.setting),
            "template": entry_template(config, entry)}


def order(params: Mapping[str, Any]) -> str:
    """The order a job shows its calls in: ``seeded`` (a cell's) or ``reversed`` (its reversed job's)."""
    return "reversed" if params.get("reversed") else "seeded"


def judge_job(params: Mapping[str, Any], data: Mapping[str, Any]) -> list[dict]:
    """A job's requests: its instances (a list, or a path) shown by its template (a
    :class:`~authbench.studies.authority.prompts.PromptTemplate`, or a path) in its :func:`order`."""
    from authbench.records import read_jsonl
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests

    instances, template = data["instances"], data["template"]
    instances = read_jsonl(instances) if isinstance(instances, (str, Path)) else instances
    template = load_template(template) if isinstance(template, (str, Path)) else template
    return build_requests(params["judge"], params["setting"], instances, template, params["seed"], order(params))


_COMMON = dict(requests=judge_job, files=("instances", "template"), inputs=judge_inputs, planned_by_study=True)
JUDGE = JobKind("authority_judge", PATTERN, jobs=lambda config: _entries(config, False),
                params=lambda config, wc, shared: JudgeParams(**_params(config, wc, shared)), kind="judge", **_COMMON)
JUDGE_REVERSED = JobKind("authority_judge_reversed", PATTERN + ORDER_SUFFIX, jobs=lambda config: _entries(config, True),
                         params=lambda config, wc, shared: ReversedParams(**_params(config, wc, shared), reversed=True),
                         kind="judge", **_COMMON)


def cell_files(layout: Layout, entries: Iterable, name: str, kind: JobKind = JUDGE) -> list[str]:
    """``name`` in the folder of each grid entry's (:class:`~authbench.studies.authority.grid.GridEntry`) job of
    ``kind``: its cell's, or (:data:`JUDGE_REVERSED`) its reversed job's."""
    return [f"{kind.folder(layout, vars(e))}/{name}" for e in entries]
