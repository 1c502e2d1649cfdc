# Input and params functions of rules/report.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.render.catalog import DIFFS, VIEWER, diffs_entry, provenance_entry, report_choice, viewer_entry
from authbench.cells.viewer import ASSETS as VIEWER_FILES
from authbench.studies.authority.outputs import baseline_inputs
from authbench.studies.registry import final_files, viewer_folders
from authbench.studies.scorecard import coverage_params
from authbench.studies.statistics import authority_datasets, rag_ran, selfpref_datasets

# --- benchmark statistics (Table 7) ---------------------------------------------------


def get_statistics_inputs(wildcards):
    """The built datasets Table 7 counts: every AuthorityBench dataset's labels,
    drops and sampled instance sets (those its baselines read), RAGAuth's
    dataset report, and the self-preference imports."""
    ds, sp = authority_datasets(config), selfpref_datasets(config)
    return {
        "labels": [P.labels(d) for d in ds],
        "drops": [P.drops(d) for d in ds],
        "instances": [P.instances(d, s) for d in ds for s in baseline_inputs(config, d)["instance_sets"]],
        "rag": [P.rag_dataset()] if rag_ran(config) else [],
        "sp_questions": [f"{P.selfpref(d)}/questions.jsonl" for d in sp],
        "sp_passages": [f"{P.selfpref(d)}/imported.jsonl" for d in sp],
        "sp_drops": [P.drops(f"selfpref/{d}") for d in sp],
    }


def statistics_rag_arg(wildcards, input):
    return option("--rag", input.rag)


def _label_block(dataset):
    """A dataset's config ``label:`` block (None: the dataset's default rule)."""
    if dataset == "domainauth":
        return config["domainauth"].get("label")
    return entity_config(dataset.removeprefix("entityauth/")).get("label")


def get_statistics_params(wildcards):
    sampling = config["domainauth"]["sampling"]
    ds, sp = authority_datasets(config), selfpref_datasets(config)
    return _json(
        {
            "written": report_choice(STATISTICS, config)["written"],
            "datasets": ds,
            "labels": [_label_block(d) for d in ds],
            "instance_sets": [baseline_inputs(config, d)["instance_sets"] for d in ds],
            "easy_min_delta": sampling["easy_min_delta"],
            "hard_max_delta": sampling["hard_max_delta"],
            "selfpref": sp,
            "authors": config["selfpref"]["authors"] if sp else [],
            "scorecard": coverage_params(config, "domainauth"),
        }
    )


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
