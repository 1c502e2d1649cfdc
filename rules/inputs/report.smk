# Input and params functions of rules/report.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.render.catalog import DIFFS, VIEWER, diffs_entry, plan, provenance_entry, viewer_entry
from authbench.render.viewer import ASSETS as VIEWER_FILES
from authbench.studies.authority.outputs import baseline_plan, secondary_cells
from authbench.studies.scorecard import grid_params
from authbench.studies.statistics import authority_datasets, selfpref_datasets


def get_domain_metrics(wildcards):
    return P.cell_files((c for c in CELLS if c.dataset == "domainauth" and c.setting != "bias"), "metrics.tsv")


def get_domain_units(wildcards):  # the paired comparisons read every cell's and the baselines' units
    cells = (c for c in CELLS if c.dataset == "domainauth" and c.setting != "bias")
    return P.cell_files(cells, "units.parquet") + [P.baseline_units("domainauth")]


def get_domain_manifests(wildcards):
    return P.cell_files((c for c in CELLS if c.dataset == "domainauth"), "manifest.json")


def get_point_predictions(wildcards):
    # the bias sample's cells: PointJudge's, the only judge on it (authbench.judges)
    bias = (c for c in CELLS if c.dataset == "domainauth" and c.setting == "bias")
    return P.cell_files(bias, "predictions.tsv")


def get_secondary_predictions(wildcards):
    return P.cell_files(secondary_cells(config, CELLS), "predictions.tsv")


def secondary_predictions_arg(wildcards, input):
    return ("--item-predictions " + " ".join(input.item_predictions)) if input.item_predictions else ""


def get_domain_report_params(wildcards):
    secondary = {"secondary": config["domainauth"]["secondary"], "seed": config["seed"]} if SECONDARY else {}
    return _json(
        {
            "settings": config["settings"],
            "judges": config["judges"],
            "contexts": config["contexts"],
            "plan": plan(DOMAINAUTH, config),
            "category_order": list(config["domainauth"]["categories"]),
            "categories": config["domainauth"]["categories"],
            "parse": config["parse"],
            "judge_validity": config["judge_validity"],
            "scorecard": grid_params(config, "domainauth"),
            "intervals": config["intervals"],
            "seed": config["seed"],
            **secondary,
        }
    )


def get_entity_report_inputs(wildcards):
    entity_cells = [c for c in CELLS if c.dataset.startswith("entityauth/")]
    return {
        "metrics": P.cell_files(entity_cells, "metrics.tsv"),
        "baselines": [P.baselines(d) for d in ENTITY_DATASETS],
        "units": P.cell_files(entity_cells, "units.parquet") + [P.baseline_units(d) for d in ENTITY_DATASETS],
        "labels": [P.labels(d) for d in ENTITY_DATASETS],
        "reuse": [P.reuse(d) for d in ENTITY_DATASETS],
        "manifests": P.cell_files(entity_cells, "manifest.json"),
    }


def get_entity_report_params(wildcards):
    names = [d.split("/", 1)[1] for d in ENTITY_DATASETS]
    # what each dataset's score is (Figure 3): sitelinks unless its label block names another key
    scores = {n: (entity_config(n).get("label") or {}).get("column") for n in names}
    scores = {n: c for n, c in scores.items() if c and c != "popularity"}
    return _json(
        {
            "datasets": names,
            "judges": config["judges"],
            "plan": plan(ENTITYAUTH, config),
            "coarse_source": config["entityauth"]["coarse_source"],
            "parse": config["parse"],
            "judge_validity": config["judge_validity"],
            "scorecard": grid_params(config, "entityauth"),
            "intervals": config["intervals"],
            "seed": config["seed"],
            **({"score_names": scores} if scores else {}),
        }
    )


# --- benchmark statistics (Table 7) ---------------------------------------------------


def get_statistics_inputs(wildcards):
    """The built datasets Table 7 counts: every AuthorityBench dataset's labels,
    drops and sampled instance sets (those its baselines read), RAGAuth's
    dataset report, and the self-preference imports."""
    ds, sp = authority_datasets(config), selfpref_datasets(config)
    return {
        "labels": [P.labels(d) for d in ds],
        "drops": [P.drops(d) for d in ds],
        "instances": [P.instances(d, s) for d in ds for s in baseline_plan(config, d)["instance_sets"]],
        "rag": [P.rag_dataset()] if RAG.cells else [],
        "sp_questions": [f"{P.selfpref(d)}/questions.jsonl" for d in sp],
        "sp_passages": [f"{P.selfpref(d)}/imported.jsonl" for d in sp],
        "sp_drops": [P.drops(f"selfpref/{d}") for d in sp],
    }


def statistics_rag_arg(wildcards, input):
    return f"--rag {input.rag}" if input.rag else ""


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
            "written": plan(STATISTICS, config)["written"],
            "datasets": ds,
            "labels": [_label_block(d) for d in ds],
            "instance_sets": [baseline_plan(config, d)["instance_sets"] for d in ds],
            "easy_min_delta": sampling["easy_min_delta"],
            "hard_max_delta": sampling["hard_max_delta"],
            "selfpref": sp,
            "authors": config["selfpref"]["authors"] if sp else [],
            "scorecard": grid_params(config, "domainauth"),
        }
    )


# --- the sample viewers (authbench.render.viewer) -------------------------------------
VIEWER_ASSETS = [
    os.path.join(os.path.dirname(os.path.abspath(workflow.main_snakefile)), "report", "viewer", name)
    for name in VIEWER_FILES
]


def _authority_samples(prefix):
    """The samples of the judge cells of AuthorityBench datasets named ``prefix``
    (``domainauth``, or every ``entityauth/`` one)."""
    return P.cell_files((c for c in CELLS if c.dataset.startswith(prefix)), "samples.parquet")


def shown_studies():
    """Each study the viewer and the prompt diffs show: (its steps' name prefix,
    its Report, its report folder, the samples of its model cells). One viewer
    step and one prompt-diffs step per entry (rules/report.smk)."""
    out = (
        [("domainauth", DOMAINAUTH, f"{DA}/report", _authority_samples("domainauth"))]
        if "domainauth" in STUDIES
        else []
    )
    if ENTITY_DATASETS:
        out.append(("entityauth", ENTITYAUTH, f"{EA}/report", _authority_samples("entityauth/")))
    if RAG.cells:
        out.append(("ragauth", RAGAUTH, f"{RA}/report", rag_samples()))
    for dataset in selfpref_datasets(config):
        name = re.sub(r"[^A-Za-z0-9]+", "_", dataset)
        out.append((f"selfpref_{name}", SELFPREF_REPORT, f"{P.selfpref(dataset)}/report", sp_samples(dataset)))
    return out


def viewer_costs(folder):
    """The judge-validity flags a viewer shows: an AuthorityBench report's costs.csv."""
    costs = f"{folder}/tables/costs.csv"
    return (
        [costs]
        if costs in report_outputs(DOMAINAUTH, f"{DA}/report") + report_outputs(ENTITYAUTH, f"{EA}/report")
        else []
    )


def viewer_root(wildcards, output):
    """The study's folder, under which the viewer names its cells: its report folder's parent."""
    return os.path.dirname(os.path.dirname(output[0]))


def viewer_assets(wildcards, input):
    return os.path.dirname(input.assets[0])


def viewer_costs_arg(wildcards, input):
    return f"--costs {input.costs}" if input.costs else ""


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
    out = report_outputs(STATISTICS, P.statistics)
    if "domainauth" in STUDIES:
        out += report_outputs(DOMAINAUTH, f"{DA}/report") + [P.drops("domainauth"), P.reuse("domainauth")]
    if ENTITY_DATASETS:
        out += report_outputs(ENTITYAUTH, f"{EA}/report") + [P.drops(d) for d in ENTITY_DATASETS]
    if RAG.cells:
        out += report_outputs(RAGAUTH, f"{RA}/report") + [P.rag_dataset()]
    for dataset in selfpref_datasets(config):
        out += report_outputs(SELFPREF_REPORT, f"{P.selfpref(dataset)}/report") + [P.drops(f"selfpref/{dataset}")]
    out += selfpref_datasets_report_files()
    return out + [f"{folder}/{name}" for _, _, folder, _ in shown_studies() for name in (VIEWER, DIFFS)]
