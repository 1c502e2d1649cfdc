# Config validation, the study registry and what every rule shares (the
# results layout, the models, the wildcard constraints, a model's file,
# interpreter, environment and resources, the report entries). Policy lives in
# the package: the registry (authbench.studies.registry: each study's rules,
# config block, words and reports), scheduling (authbench.scheduling), paths
# (authbench.paths), which files a config produces (authbench.render.catalog
# over each study's declared reports). Each study's own state (its grid) is set
# at the top of its rules file; input/params functions are in rules/inputs/.
# Never `import workflow` here: that name is Snakemake's object.
import json
import os
import shlex
import sys

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

try:  # the package's first import: a Snakemake whose Python lacks it stops here, saying what to run
    from authbench.env import SHELL as PYTHON, VARIABLE as PYTHON_VARIABLE, job_python
except ModuleNotFoundError as err:
    raise WorkflowError(
        f"this Snakemake's Python ({sys.executable}) cannot import authbench ({err}): run `make install` once, "
        "then from the repository root `make run CONFIG=<your overlay>` (or `.venv/bin/snakemake ...`)"
    ) from None
from authbench.cells import HISTORY_ENV
from authbench.config import (
    active_models,
    add_schema_block,
    check_overlay_paths,
    check_renamed,
    split_model,
    validate_schema,
)
from authbench.joblogs import failure_summary, run_summary
from authbench.plan.progress import progress_lines
from authbench.llm.models import model_file
from authbench.paths import Layout, report_outdir
from authbench.render.catalog import report_entry, report_files
from authbench.scheduling import MODEL_PRIORITY, MODEL_RETRIES, cell_model_params, model_env as env_of
from authbench.scheduling import model_resources, model_threads as threads_of
from authbench.studies.registry import active, check as check_config, environment, reports as study_reports
from authbench.studies.registry import job_kinds, rule_files, rule_params, schema_blocks, wildcard_constraints
from authbench.studies.statistics import statistics_report

# Every job's interpreter, $AUTHBENCH_PYTHON in each rule's shell (authbench.env): the one
# running Snakemake, checked here to import the package (or, with --sdm conda or
# apptainer, each job environment's own `python`).
os.environ[PYTHON_VARIABLE] = job_python(m.name for m in workflow.deployment_settings.deployment_method)

check_renamed(config)
# the registered studies (the shipped ones and config `more_studies`): their config blocks join the schema,
# and every job inherits where the studies of one's own are
for block in schema_blocks(config):
    add_schema_block(block)
os.environ.update(environment(config))
validate_schema(config)  # fills every default the schema (and each study's block) declares
# what the user's --configfile overlays (and --config) set: an error about a
# value they left to config.yaml (the demo's) says so (authbench.config.origin)
OVERLAY = getattr(workflow.config_settings, "overwrite_config", None)
check_config(config, OVERLAY)
check_overlay_paths(workflow.config_settings.configfiles)  # a relative path meant from another overlay's folder
STUDIES = [s.name for s in active(config)]  # the config's `studies`, each checked against the registry
STATISTICS = statistics_report(config)  # the benchmark statistics: every registered study's tables
JOB_KINDS = job_kinds(config)  # each model job kind (authbench.studies.jobs), by its rule's name
RULE_PARAMS = rule_params(config)  # the params of the studies' other rules, by rule name (called with the config)

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
MODELS = active_models(config)
STUDY_RULES = rule_files(config)  # the Snakefile includes them


wildcard_constraints:
    **wildcard_constraints(config, MODELS),


def _json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def option(flag, value):
    """`<flag> <path>...` quoted for the shell (a path with a space stays one
    argument), or "" when ``value`` (a path or a list of paths) is empty."""
    values = [value] if isinstance(value, str) else [str(v) for v in value or ()]
    return shlex.join([flag, *values]) if values and any(values) else ""


def outdir(wildcards, output):
    """--outdir of a report rule: the folder of the files it writes."""
    return report_outdir(output)


include: "inputs/models.smk"
include: "inputs/reports.smk"
