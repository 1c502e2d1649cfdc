# Input and params functions of rules/report.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
def get_domain_metrics(wildcards):
    return P.cell_files((c for c in CELLS if c.dataset == "domainauth" and c.setting != "bias"), "metrics.tsv")


def get_domain_units(wildcards):  # the paired comparisons read every cell's and the baselines' units
    cells = (c for c in CELLS if c.dataset == "domainauth" and c.setting != "bias")
    return P.cell_files(cells, "units.parquet") + [P.baseline_units("domainauth")]


def get_domain_manifests(wildcards):
    return P.cell_files((c for c in CELLS if c.dataset == "domainauth"), "manifest.json")


def get_point_predictions(wildcards):
    bias = (c for c in CELLS if c.dataset == "domainauth" and c.judge == "point" and c.setting == "bias")
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


def viewers():
    """Each study's viewer: (its step's name, its Report, its report folder = <the study's folder>/report)."""
    out = [("domainauth", DOMAINAUTH, f"{DA}/report")] if "domainauth" in STUDIES else []
    out += [("entityauth", ENTITYAUTH, f"{EA}/report")] if ENTITY_DATASETS else []
    out += [("ragauth", RAGAUTH, f"{RA}/report")] if RAG.cells else []
    for dataset in selfpref_datasets(config):
        name = re.sub(r"[^A-Za-z0-9]+", "_", dataset)
        out.append((f"selfpref_{name}", SELFPREF_REPORT, f"{P.selfpref(dataset)}/report"))
    return out


def viewer_costs(folder):
    """The judge-validity flags a viewer shows: an AuthorityBench report's costs.csv."""
    costs = f"{folder}/tables/costs.csv"
    return [costs] if costs in domainauth_report_outputs() + entityauth_report_outputs() else []


def viewer_root(wildcards, input):
    """The study's folder, whose cells the viewer step reads: the report folder's parent."""
    return os.path.dirname(os.path.dirname(input.contents))


def viewer_assets(wildcards, input):
    return os.path.dirname(input.assets[0])


def viewer_costs_arg(wildcards, input):
    return f"--costs {input.costs}" if input.costs else ""


def get_diff_samples(prefix):
    """The current samples of the judge cells of a study (dataset ``domainauth``, or every ``entityauth/`` one)."""
    return P.cell_files((c for c in CELLS if c.dataset.startswith(prefix)), "samples.parquet")


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
    out = statistics_outputs()
    if "domainauth" in STUDIES:
        out += domainauth_report_outputs() + [P.drops("domainauth"), P.reuse("domainauth"), f"{DA}/report/{DIFFS}"]
    if ENTITY_DATASETS:
        out += entityauth_report_outputs() + [P.drops(d) for d in ENTITY_DATASETS] + [f"{EA}/report/{DIFFS}"]
    if RAG.cells:
        out += ragauth_report_files(f"{RA}/report") + [P.rag_dataset(), f"{RA}/report/{DIFFS}"]
    for dataset in selfpref_datasets(config):
        folder = f"{P.selfpref(dataset)}/report"
        out += selfpref_report_files(folder) + [P.drops(f"selfpref/{dataset}"), f"{folder}/{DIFFS}"]
    return out + [f"{folder}/{VIEWER}" for *_, folder in viewers()]
