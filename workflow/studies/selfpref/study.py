"""The RAG self-preference study (Chen et al.), declared for the study
registry (:mod:`authbench.studies.registry`): one report per dataset and,
with two or more datasets, one across them. Light: the Snakefile loads it
on every run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from authbench.render.catalog import report_files
from authbench.studies.registry import Study, lazy
from authbench.studies.selfpref.kinds import COMPARE, GENERATE, KNOWLEDGE, PERPLEXITY, PROMPTS, RERANK, RUNS
from authbench.studies.selfpref.outputs import SELFPREF as SELFPREF_REPORT, SELFPREF_DATASETS
from authbench.studies.selfpref import layout as sp_layout


selfpref_cells = lazy("authbench.studies.selfpref.cell_list:selfpref_cells")  # loaded when first asked


def reported_datasets(config: Mapping[str, Any]) -> list[str]:
    """The datasets with a report (the config's order: NQ, then MS MARCO); none without an evaluator."""
    cells = selfpref_cells(config)
    return [name for name in config["selfpref"]["datasets"] if name in cells.datasets] if cells.evaluators else []


def samples(config: Mapping[str, Any], layout, dataset: str) -> list[str]:
    """The samples of every model cell of a dataset: generation, knowledge, rerank, compare."""
    return (GENERATE.files_of(layout, config, "samples", spds=dataset)
            + KNOWLEDGE.files_of(layout, config, "samples", spds=dataset)
            + RERANK.files_of(layout, config, "samples", spds=dataset)
            + COMPARE.files_of(layout, config, "samples", spds=dataset))


def datasets_report_files(config: Mapping[str, Any], layout) -> list[str]:
    """The report of every dataset's tables, one block of rows each: only when two or more datasets run."""
    if len(selfpref_cells(config).datasets) < 2:
        return []
    return report_files(SELFPREF_DATASETS, sp_layout.datasets_report(layout), config)


def final(config: Mapping[str, Any], layout) -> list[str]:
    out = []
    for dataset in reported_datasets(config):
        out += report_files(SELFPREF_REPORT, f"{sp_layout.folder(layout, dataset)}/report", config)
        out.append(layout.drops(f"selfpref/{dataset}"))
    return out + datasets_report_files(config, layout)


def viewers(config: Mapping[str, Any], layout) -> list[tuple]:
    return [(f"selfpref_{re.sub(r'[^A-Za-z0-9]+', '_', d)}", SELFPREF_REPORT, f"{sp_layout.folder(layout, d)}/report",
             samples(config, layout, d), []) for d in reported_datasets(config)]


PLAN = "authbench.studies.selfpref.plan"
SELFPREF = Study("selfpref", paper="selfpref", title="RAG self-preference", rules=("rules/selfpref.smk",),
                 schema=Path(__file__).parent / "schema.yaml", reports=(SELFPREF_REPORT, SELFPREF_DATASETS),
                 words=lambda config: {"prompt": PROMPTS, "run": RUNS}, commands="authbench.studies.selfpref.cli",
                 prefixes=("selfpref",), final=final, viewers=viewers,
                 jobs=(GENERATE, PERPLEXITY, KNOWLEDGE, RERANK, COMPARE),
                 check=lazy("authbench.studies.selfpref.cell_list:check_selfpref"),
                 plan_jobs=lazy(f"{PLAN}:plan_jobs"),
                 plan_inputs=lazy(f"{PLAN}:plan_inputs"), plan_empty=lazy(f"{PLAN}:why_empty"),
                 plan_released=lazy(f"{PLAN}:released_replies"), dataset_level=True,
                 statistics="authbench.studies.selfpref.statistics")
STUDY = SELFPREF  # the registry finds a folder's STUDY (or its STUDIES)
