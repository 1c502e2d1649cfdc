# Input and params functions of rules/report.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.render.catalog import DIFFS, VIEWER, diffs_entry, provenance_entry, viewer_entry
from authbench.cells.viewer import ASSETS as VIEWER_FILES
from authbench.studies.registry import final_files, viewer_folders
from authbench.studies.statistics import statistics_inputs, statistics_params

# --- benchmark statistics (Table 7) ---------------------------------------------------


def get_statistics_inputs(wildcards):
    """The built datasets the benchmark statistics count: each study's
    (authbench.studies.statistics, the studies' hooks)."""
    return statistics_inputs(config, P)


def statistics_rag_arg(wildcards, input):
    return option("--rag", input.rag)


def get_statistics_params(wildcards):
    return _json(statistics_params(config))


# --- the sample viewers (authbench.cells.viewer) -------------------------------------
VIEWER_ASSETS = [
    os.path.join(os.path.dirname(os.path.abspath(workflow.main_snakefile)), "report", "viewer", name)
    for name in VIEWER_FILES
]


def shown_studies():
    """Each report folder the viewer and the prompt diffs show, of every study
    the config runs (authbench.studies.registry.viewer_folders): (its steps'
    name prefix, its Report, its report folder, the samples of its model
    cells, the cost table whose judge-validity flags the viewer shows). One
    viewer step and one prompt-diffs step per entry (rules/report.smk)."""
    return viewer_folders(config, P)


def viewer_root(wildcards, output):
    """The study's folder, under which the viewer names its cells: its report folder's parent."""
    return os.path.dirname(os.path.dirname(output[0]))


def viewer_assets(wildcards, input):
    return os.path.dirname(input.assets[0])


def viewer_costs_arg(wildcards, input):
    return option("--costs", input.costs)


def get_diffs_params(study):
    return _json(
        {
            "intervals": config["intervals"],
            "seed": config["seed"],
            "examples": config["samples"]["examples"],
            "title": study.name,
        }
    )


# --- `all` ---------------------------------------------------------------------------


def get_final_output():
    """The files of `all`: the benchmark statistics, each study's files
    (authbench.studies.registry.final_files) and each report folder's viewer
    and prompt diffs."""
    out = report_outputs(STATISTICS, P.statistics) + final_files(config, P)
    return out + [f"{folder}/{name}" for _, _, folder, _, _ in shown_studies() for name in (VIEWER, DIFFS)]
