"""RAGAuth, AuthorityBench's third study, declared for the study registry
(:mod:`authbench.studies.registry`). It runs when its file exists (or is
built from own data): :func:`authbench.studies.ragauth.cell_list.rag_cells`. Light: the
Snakefile loads it on every run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from authbench.render.catalog import report_files
from authbench.studies.ragauth.outputs import RAGAUTH as RAGAUTH_REPORT
from authbench.studies.registry import Study, lazy
from authbench.studies.ragauth.kinds import ANSWER, RANK
from authbench.studies.ragauth.words import STRATEGIES
from authbench.studies.ragauth import layout as rag_layout


rag_cells = lazy("authbench.studies.ragauth.cell_list:rag_cells")  # (config, exists), loaded when first asked


def samples(config: Mapping[str, Any], layout) -> list[str]:
    """The samples of every RAGAuth model cell: the answer cells, then the rank cells they read (by model and
    strategy)."""
    ranked = sorted(RANK.jobs(config), key=lambda wc: (wc["model"], wc["strategy"]))
    return ANSWER.files_of(layout, config, "samples") + [f"{RANK.folder(layout, wc)}/samples.parquet" for wc in ranked]


def final(config: Mapping[str, Any], layout) -> list[str]:
    if not rag_cells(config, os.path.exists).cells:
        return []
    return report_files(RAGAUTH_REPORT, layout.report("ragauth"), config) + [rag_layout.dataset(layout)]


def viewers(config: Mapping[str, Any], layout) -> list[tuple]:
    if not rag_cells(config, os.path.exists).cells:
        return []
    return [("ragauth", RAGAUTH_REPORT, layout.report("ragauth"), samples(config, layout), [])]


PLAN = "authbench.studies.ragauth.plan"
RAGAUTH = Study("ragauth", paper="authoritybench", title="RAGAuth", rules=("rules/ragauth.smk",),
                schema=Path(__file__).parent / "schema.yaml", reports=(RAGAUTH_REPORT,),
                words=lambda config: {"strategy": STRATEGIES, "topk": "all|k[0-9]+"}, commands="authbench.studies.ragauth.cli",
                prefixes=("ragauth",), final=final, viewers=viewers, jobs=(RANK, ANSWER),
                plan_jobs=lazy(f"{PLAN}:plan_jobs"),
                plan_inputs=lazy(f"{PLAN}:plan_inputs"), plan_empty=lazy(f"{PLAN}:why_empty"),
                coverage=lazy("authbench.studies.ragauth.cell_list:coverage"),
                statistics="authbench.studies.authority.statistics")  # Table 7 counts RAGAuth's queries
STUDY = RAGAUTH  # the registry finds a folder's STUDY (or its STUDIES)
