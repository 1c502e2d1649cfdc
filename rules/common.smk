# Config validation, the plans of every study, wildcard constraints and what
# all rules share (the results layout, a model's file, interpreter, conda
# environment and resources). Policy (which files a config produces, which
# baselines run, which file a model loads) is decided in the Python package
# (authbench.config, authbench.paths, authbench.llm.models and
# authbench.studies.*.outputs, each study's report declared once there and
# derived by authbench.render.catalog); each study's input/params functions are in its
# own .smk. Never `import workflow` here: that name is Snakemake's object.
import json
import os
import re
import sys

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger
from snakemake.utils import validate

try:  # the package's first import: a Snakemake whose Python lacks it stops here, saying what to run
    from authbench.env import SHELL as PYTHON, VARIABLE as PYTHON_VARIABLE, job_python
except ModuleNotFoundError as err:
    raise WorkflowError(
        f"this Snakemake's Python ({sys.executable}) cannot import authbench ({err}): run `make install` once, "
        "then from the repository root `make run CONFIG=<your overlay>` (or `.venv/bin/snakemake ...`)"
    ) from None
from authbench.config import SCHEMA_PATH, active_models, cells as config_cells, check_config, check_data
from authbench.config import Cell, cell_model_params, cell_template, check_renamed, split_model
from authbench.config import entity_datasets, entity_settings, rag_plan, selfpref_plan
from authbench.history import ENV as HISTORY_ENV
from authbench.joblogs import failure_summary, run_summary
from authbench.llm.models import is_served, model_file
from authbench.paths import Layout, cell_id, report_outdir
from authbench.render.catalog import DIFFS, VIEWER, diffs_entry, plan, provenance_entry, report_entry, report_files
from authbench.render.catalog import viewer_entry
from authbench.render.viewer import ASSETS as VIEWER_FILES
from authbench.studies.authority.outputs import DOMAINAUTH, ENTITYAUTH, baseline_plan, scales
from authbench.judges import SCORE_JUDGES, WILDCARD as JUDGE_WILDCARD
from authbench.studies.authority.outputs import check_labels, has_secondary, secondary_cells
from authbench.studies.ragauth.outputs import RAGAUTH
from authbench.studies.selfpref.outputs import (
    SELFPREF as SELFPREF_REPORT,
    SELFPREF_DATASETS,
    knowledge_authors,
    other_authors,
)
from authbench.studies.statistics import STATISTICS, authority_datasets, selfpref_datasets
from authbench.studies.scorecard import grid_params

# Every job's interpreter, $AUTHBENCH_PYTHON in each rule's shell (authbench.env): the one
# running Snakemake, checked here to import the package (or, with --sdm conda or
# apptainer, each job environment's own `python`).
os.environ[PYTHON_VARIABLE] = job_python(m.name for m in workflow.deployment_settings.deployment_method)

check_renamed(config)
validate(config, str(SCHEMA_PATH))
# what the user's --configfile overlays (and --config) set: an error about a
# value they left to config.yaml (the demo's) says so (authbench.config.origin)
OVERLAY = getattr(workflow.config_settings, "overwrite_config", None)
check_config(config, OVERLAY)
check_data(config, OVERLAY)
check_labels(config)

R = config["results"]
P = Layout(R)  # every path under results/ (authbench.paths)
LOGS = P.logs
# Every model cell keeps its earlier versions (by template hash) in P.history,
# outside all declared outputs (Snakemake deletes those before a rerun): the
# cell writer reads where, and how many, from this variable (authbench.history),
# so changing samples.versions reruns no cell.
os.environ[HISTORY_ENV] = json.dumps({"root": P.history, "versions": config["samples"]["versions"]})


# A failed run ends with each failed job's error (from its log: Snakemake
# itself only says "check log file(s)"), locally and on Slurm alike; a
# successful one with where its tables, HTML report and logs are.
onerror:
    summary = failure_summary(log)
    if summary:
        logger.error(summary)


onsuccess:
    settings = workflow.config_settings  # --configfile, --config: the report command repeats them
    logger.info(run_summary(get_final_output(), R, log, settings.configfiles, settings.config, MODELS))


PROMPTS = config["prompts"]
DA = P.study("domainauth")
EA = P.study("entityauth")
RA = P.study("ragauth")
CELLS = config_cells(config)
MODELS = active_models(config)
ENTITY_DATASETS = entity_datasets(config)
# the instance sets of every EntityAuth dataset: fine (N=10) and, unless
# entityauth.coarse_source is rescore, coarse (N=5)
ENTITY_SETTINGS = entity_settings(config)
STUDIES = config["studies"]
# RAGAuth runs when its file exists (or is built from the researcher's own data);
# otherwise it is left out of `all`, and the run log says why.
RAG = rag_plan(config, os.path.exists)
SELFPREF = selfpref_plan(config)
if RAG.note:
    logger.info(RAG.note)
if SELFPREF.evaluators:
    logger.info(
        "Self-preference: each evaluator's own passages are those of its 'self' author (selfpref.self): "
        + ", ".join(f"{m} -> {config['selfpref']['self'][m]}" for m in SELFPREF.evaluators)
    )
# Secondary labels (domainauth.secondary): their own step, so naming one
# reruns no judge cell; every cell with per-item scores then writes its
# predictions with them, and the report adds the secondary-label table.
SECONDARY = has_secondary(config)


wildcard_constraints:
    dataset="domainauth|entityauth/[a-z0-9_]+",
    entity_set="[a-z0-9_]+",
    # a configured model, or a prompt set's cell model <model>@<set> (authbench.config.split_model)
    model="|".join(re.escape(m) for m in sorted(set(MODELS) | {c.model for c in CELLS})),
    judge=JUDGE_WILDCARD,
    context="wo_text|w_text",
    setting="fine|coarse|pairs|bias",
    strategy="no_filter|relevance|utility|authority|pagerank_oracle|tld_prior",
    topk="all|k[0-9]+",


def _json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def entity_config(name):
    return config["entityauth"]["datasets"][name]


def outdir(wildcards, output):
    """--outdir of a report rule: the folder of the files it writes."""
    return report_outdir(output)


def model_config(wildcards):
    return MODELS[split_model(wildcards.model)[0]]


def _model_params(wildcards):
    return cell_model_params(model_config(wildcards))


def get_model_file(wildcards):
    return model_file(split_model(wildcards.model)[0], model_config(wildcards), P) or []


def model_file_arg(wildcards, input):
    return f"--model-file {input.model}" if input.model else ""


def model_python(wildcards):
    """The interpreter of a model's jobs: its `python:` key (e.g. the vLLM environment's), else every job's."""
    return model_config(wildcards).get("python") or PYTHON


def model_env(wildcards):
    """The conda environment of a model's jobs (--sdm conda): vLLM's or the embedded engine's."""
    return "../envs/vllm.yaml" if model_config(wildcards)["engine"] == "vllm" else "../envs/llamacpp.yaml"


# Threads and resources of every job that runs a model, from the model's config
# (schema: threads, gpus, mem_mb, runtime in minutes): `threads: model_threads`
# and `resources: **MODEL_RESOURCES` in each such rule. Memory and runtime grow
# with each retry (`retries:` of the model rules). On Slurm, gpu=N becomes
# `sbatch --gpus=N` (none when 0); CPU rules ask for no GPU. Locally these are
# only bookkeeping.
MODEL_RETRIES = 2
# Model jobs, and the steps they wait on, first whenever one is ready: the
# light steps after them (evaluation, reports) then run two at a time at the
# end instead of one at a time between model jobs, the other core idle.
MODEL_PRIORITY = 10


def model_threads(wildcards):
    return model_config(wildcards)["threads"]


MODEL_RESOURCES = {
    "mem_mb": lambda wildcards, attempt: model_config(wildcards).get("mem_mb", 4000) * attempt,
    "runtime": lambda wildcards, attempt: model_config(wildcards).get("runtime", 120) * attempt,
    "gpu": lambda wildcards: model_config(wildcards)["gpus"],
}


# --- reports and `all` -------------------------------------------------------------------

# Each study's report is declared once (authbench.studies.*.outputs, authbench.studies.statistics);
# its files, and its report step's plan, are derived by authbench.render.catalog.
REPORTS = {r.name: r for r in (DOMAINAUTH, ENTITYAUTH, RAGAUTH, SELFPREF_REPORT, SELFPREF_DATASETS, STATISTICS)}
# `snakemake --report`'s caption files, written from the definitions when the Snakefile is parsed
CAPTIONS = os.path.abspath(".snakemake/authbench/captions")


def domainauth_report_outputs():
    return report_files(DOMAINAUTH, f"{DA}/report", config)


def entityauth_report_outputs():
    return report_files(ENTITYAUTH, f"{EA}/report", config)


def ragauth_report_files(folder):
    return report_files(RAGAUTH, folder, config)


def selfpref_report_files(folder):
    return report_files(SELFPREF_REPORT, folder, config)


def selfpref_datasets_report_files():
    """The report of every dataset's tables, one block of rows each: only when two or more datasets run."""
    if len(SELFPREF.datasets) < 2:
        return []
    return report_files(SELFPREF_DATASETS, P.selfpref_datasets_report(), config)


# --- benchmark statistics (Table 7) ---------------------------------------------------


def statistics_outputs():
    return report_files(STATISTICS, f"{R}/statistics", config)


def reported(paths, category):
    """Flag each report item's file (a table's CSV, a figure's PNG) of the
    report ``category`` for `snakemake --report`, with the caption, subcategory
    and labels of its definition (authbench.render.catalog.report_entry)."""
    out = []
    for path in paths:
        entry = report_entry(REPORTS[category], path, CAPTIONS)
        out.append(path if entry is None else report(path, **entry))
    return out
