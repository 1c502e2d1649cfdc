"""DomainAuth and EntityAuth, AuthorityBench's first two studies, declared
for the study registry (:mod:`authbench.studies.registry`): their rules,
config block, reports, wildcard words, CLI steps, files of ``all``, viewer
folders and plan hooks. Light: the Snakefile loads it on every run."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from authbench.cells.viewer import TWINS
from authbench.render.catalog import report_files
from authbench.studies.authority.judges import JUDGE_NAMES
from authbench.studies.authority.kinds import JUDGE, JUDGE_REVERSED, cell_files
from authbench.studies.authority.outputs import DOMAINAUTH as DOMAINAUTH_REPORT, ENTITYAUTH as ENTITYAUTH_REPORT
from authbench.studies.registry import Study, lazy

CONTEXTS = ("wo_text", "w_text")  # an AuthorityBench cell without / with the page text
SETTINGS = ("fine", "coarse", "pairs", "bias")  # its instance sets: N=10 lists, N=5 lists, pairs, the bias sample
SCHEMA = Path(__file__).parent / "schema.yaml"
RULES = ("rules/authority.smk",)  # both studies' rules: fetchers, datasets, judge cells, reports


# the grid and its checks (authbench.studies.authority.grid), loaded when first asked
grid = lazy("authbench.studies.authority.grid:grid")
entity_datasets = lazy("authbench.studies.authority.grid:entity_datasets")
reversed_entries = lazy("authbench.studies.authority.grid:reversed_entries")
check = lazy("authbench.studies.authority.grid:check_authority")  # both studies' checks, once a run


def words(config: Mapping[str, Any]) -> dict[str, Any]:
    """The rules' wildcards of a judge cell: dataset, judge, context, setting,
    and the models of the cells (``<model>@<set>`` of a prompt set too)."""
    return {"dataset": "domainauth|entityauth/[a-z0-9_]+", "entity_set": "[a-z0-9_]+", "judge": JUDGE_NAMES,
            "context": CONTEXTS, "setting": SETTINGS, "model": tuple(dict.fromkeys(c.model for c in grid(config)))}


def _samples(config: Mapping[str, Any], layout, prefix: str) -> list[str]:
    """The cells' samples, and with config ``position_consistency`` their
    reversed jobs' (setting ``<setting>/reversed``) and the pairing tables
    (:data:`authbench.cells.viewer.TWINS`)."""
    cells = [c for c in grid(config) if c.dataset.startswith(prefix)]
    both = reversed_entries(config, cells)
    return (cell_files(layout, cells, "samples.parquet") + cell_files(layout, both, "samples.parquet", JUDGE_REVERSED)
            + cell_files(layout, both, TWINS, JUDGE_REVERSED))


def _costs(config: Mapping[str, Any], report, folder: str) -> list[str]:
    """The judge-validity flags a viewer shows: the report's cost table, when the report writes one."""
    costs = f"{folder}/tables/costs.csv"
    return [costs] if costs in report_files(report, folder, config) else []


def domain_final(config: Mapping[str, Any], layout) -> list[str]:
    return report_files(DOMAINAUTH_REPORT, layout.report("domainauth"), config) + [layout.drops("domainauth"),
                                                                                   layout.reuse("domainauth")]


def domain_viewers(config: Mapping[str, Any], layout) -> list[tuple]:
    folder = layout.report("domainauth")
    return [("domainauth", DOMAINAUTH_REPORT, folder, _samples(config, layout, "domainauth"),
             _costs(config, DOMAINAUTH_REPORT, folder))]


def entity_final(config: Mapping[str, Any], layout) -> list[str]:
    datasets = entity_datasets(config)
    if not datasets:
        return []
    return report_files(ENTITYAUTH_REPORT, layout.report("entityauth"), config) + [layout.drops(d) for d in datasets]


def entity_viewers(config: Mapping[str, Any], layout) -> list[tuple]:
    if not entity_datasets(config):
        return []
    folder = layout.report("entityauth")
    return [("entityauth", ENTITYAUTH_REPORT, folder, _samples(config, layout, "entityauth/"),
             _costs(config, ENTITYAUTH_REPORT, folder))]


def entity_check(config: Mapping[str, Any], overlay=None) -> None:
    if "domainauth" not in config.get("studies", ()):  # else DomainAuth's declaration checks both
        check(config, overlay)


def _plan(study: str) -> dict:
    """The plan's hooks of ``study`` (:mod:`authbench.studies.authority.plan`, loaded when the plan runs)."""
    module = "authbench.studies.authority.plan"
    return dict(plan_jobs=lazy(f"{module}:plan_jobs", study), plan_inputs=lazy(f"{module}:plan_inputs", study),
                plan_empty=lazy(f"{module}:why_empty", study))


_COMMON = dict(paper="authoritybench", rules=RULES, schema=SCHEMA, words=words, jobs=(JUDGE, JUDGE_REVERSED),
               commands="authbench.studies.authority.cli",
               prefixes=("domainauth", "entityauth", "authority"),
               coverage=lazy("authbench.studies.authority.grid:coverage"),
               statistics="authbench.studies.authority.statistics")
DOMAINAUTH = Study("domainauth", title="DomainAuth", reports=(DOMAINAUTH_REPORT,), final=domain_final,
                   viewers=domain_viewers, check=check, **_plan("domainauth"), **_COMMON)
ENTITYAUTH = Study("entityauth", title="EntityAuth", reports=(ENTITYAUTH_REPORT,), final=entity_final,
                   viewers=entity_viewers, check=entity_check, dataset_level=True, **_plan("entityauth"), **_COMMON)
STUDIES = (DOMAINAUTH, ENTITYAUTH)  # the registry's, in this order
