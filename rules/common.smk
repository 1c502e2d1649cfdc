# Config validation, the plans of every study, the wildcard constraints and what
# all rules share (the results layout, a model's file, interpreter, environment
# and resources, the report entries). Policy lives in the package: the word lists
# (authbench.vocab), scheduling (authbench.scheduling), paths (authbench.paths),
# which files a config produces (authbench.render.catalog over each study's
# declared report). Each study's input/params functions are in rules/inputs/.
# Never `import workflow` here: that name is Snakemake's object.
import json
import os
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
from authbench.cells import HISTORY_ENV
from authbench.config import SCHEMA_PATH, active_models, cells as config_cells, check_config, check_data
from authbench.config import check_renamed, entity_datasets, entity_settings, rag_plan, selfpref_plan, split_model
from authbench.joblogs import failure_summary, run_summary
from authbench.plan.progress import progress_lines
from authbench.llm.models import model_file
from authbench.paths import Layout, report_outdir
from authbench.render.catalog import report_entry, report_files
from authbench.scheduling import MODEL_PRIORITY, MODEL_RETRIES, cell_model_params, model_env as env_of
from authbench.scheduling import model_resources
from authbench.studies.authority.outputs import DOMAINAUTH, ENTITYAUTH, check_labels, has_secondary
from authbench.studies.ragauth.outputs import RAGAUTH
from authbench.studies.selfpref.outputs import SELFPREF as SELFPREF_REPORT, SELFPREF_DATASETS
from authbench.studies.statistics import STATISTICS
from authbench.vocab import wildcard_constraints

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
# Every model cell keeps its earlier versions in P.history, outside all declared
# outputs: the cell (authbench.cells) reads where and how many from this
# variable, so changing samples.versions reruns no cell.
os.environ[HISTORY_ENV] = json.dumps({"root": P.history, "versions": config["samples"]["versions"]})


# A failed run ends with each failed job's error (from its log), locally and on
# Slurm alike, and where each model stands against the plan; a successful one
# with each model's engine time beside the plan, and where its tables, HTML
# report and logs are.
onerror:
    summary = failure_summary(log)
    if summary:
        logger.error(summary)
    if os.path.exists(P.plan_cells()):
        logger.error("\n".join(progress_lines(R)))


onsuccess:
    settings = workflow.config_settings  # --configfile, --config: the report command repeats them
    logger.info(run_summary(get_final_output(), R, log, settings.configfiles, settings.config, MODELS))


PROMPTS = config["prompts"]
DA, EA, RA = P.study("domainauth"), P.study("entityauth"), P.study("ragauth")
CELLS = config_cells(config)
MODELS = active_models(config)
ENTITY_DATASETS = entity_datasets(config)
ENTITY_SETTINGS = entity_settings(config)  # fine (N=10) and, unless coarse_source is rescore, coarse (N=5)
STUDIES = config["studies"]
# RAGAuth runs when its file exists (or is built from own data); else it is left out of `all`, with a note
RAG = rag_plan(config, os.path.exists)
SELFPREF = selfpref_plan(config)
if RAG.note:
    logger.info(RAG.note)
if SELFPREF.evaluators:
    logger.info(
        "Self-preference: each evaluator's own passages are those of its 'self' author (selfpref.self): "
        + ", ".join(f"{m} -> {config['selfpref']['self'][m]}" for m in SELFPREF.evaluators)
    )
# Secondary labels (domainauth.secondary): a step of their own, so naming one reruns no judge cell
SECONDARY = has_secondary(config)


wildcard_constraints:
    **wildcard_constraints(list(MODELS) + [c.model for c in CELLS]),


def _json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def entity_config(name):
    return config["entityauth"]["datasets"][name]


def outdir(wildcards, output):
    """--outdir of a report rule: the folder of the files it writes."""
    return report_outdir(output)


include: "inputs/models.smk"
include: "inputs/reports.smk"
