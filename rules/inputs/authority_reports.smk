# Input and params functions of rules/authority_reports.smk (wiring only:
# paths from authbench.paths, policy in the package), included at its top.
from authbench.render.catalog import report_choice
from authbench.studies.authority.grid import reversed_entries
from authbench.studies.authority.kinds import JUDGE_REVERSED, cell_files
from authbench.studies.authority.outputs import DOMAINAUTH, ENTITYAUTH, secondary_cells
from authbench.studies.scorecard import coverage_params


def _domain_cells():
    return [c for c in GRID if c.dataset == "domainauth" and c.setting != "bias"]


def get_domain_metrics(wildcards):  # with position_consistency, the two-order rows of the pair and list cells
    cells = _domain_cells()
    return cell_files(P, cells, "metrics.tsv") + cell_files(
        P, reversed_entries(config, cells), "metrics.tsv", JUDGE_REVERSED
    )


def get_domain_units(wildcards):  # the paired comparisons read every cell's and the baselines' units
    cells = _domain_cells()
    return (
        cell_files(P, cells, "units.parquet")
        + cell_files(P, reversed_entries(config, cells), "units.parquet", JUDGE_REVERSED)
        + [P.baseline_units("domainauth")]
    )


def get_domain_manifests(wildcards):
    return cell_files(P, (c for c in GRID if c.dataset == "domainauth"), "manifest.json")


def get_point_predictions(wildcards):
    # the bias sample's cells: PointJudge's, the only judge on it (authbench.studies.authority.judges)
    bias = (c for c in GRID if c.dataset == "domainauth" and c.setting == "bias")
    return cell_files(P, bias, "predictions.tsv")


def get_secondary_predictions(wildcards):
    return cell_files(P, secondary_cells(config, GRID), "predictions.tsv")


def secondary_predictions_arg(wildcards, input):
    return option("--item-predictions", input.item_predictions)


def get_domain_report_params(wildcards):
    secondary = {"secondary": config["domainauth"]["secondary"], "seed": config["seed"]} if SECONDARY else {}
    return _json(
        {
            "settings": config["settings"],
            "judges": config["judges"],
            "contexts": config["contexts"],
            "plan": report_choice(DOMAINAUTH, config),
            "category_order": list(config["domainauth"]["categories"]),
            "categories": config["domainauth"]["categories"],
            "parse": config["parse"],
            "judge_validity": config["judge_validity"],
            "scorecard": coverage_params(config, "domainauth"),
            "intervals": config["intervals"],
            "seed": config["seed"],
            **secondary,
        }
    )


def get_entity_report_inputs(wildcards):
    entity_cells = [c for c in GRID if c.dataset.startswith("entityauth/")]
    both = reversed_entries(config, entity_cells)
    return {
        "metrics": cell_files(P, entity_cells, "metrics.tsv") + cell_files(P, both, "metrics.tsv", JUDGE_REVERSED),
        "baselines": [P.baselines(d) for d in ENTITY_DATASETS],
        "units": cell_files(P, entity_cells, "units.parquet")
        + cell_files(P, both, "units.parquet", JUDGE_REVERSED)
        + [P.baseline_units(d) for d in ENTITY_DATASETS],
        "labels": [P.labels(d) for d in ENTITY_DATASETS],
        "reuse": [P.reuse(d) for d in ENTITY_DATASETS],
        "manifests": cell_files(P, entity_cells, "manifest.json"),
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
            "plan": report_choice(ENTITYAUTH, config),
            "coarse_source": config["entityauth"]["coarse_source"],
            "parse": config["parse"],
            "judge_validity": config["judge_validity"],
            "scorecard": coverage_params(config, "entityauth"),
            "intervals": config["intervals"],
            "seed": config["seed"],
            **({"score_names": scores} if scores else {}),
        }
    )
