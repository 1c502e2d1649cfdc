# Input and params functions of rules/judge.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.cells.viewer import TWINS
from authbench.studies.authority.outputs import baseline_inputs, scales
from authbench.studies.authority import layout as authority_layout

# the cells and their reversed jobs (authbench.studies.authority.kinds): outputs, inputs, params
AUTHORITY_JUDGE = JOB_KINDS["authority_judge"]
AUTHORITY_JUDGE_REVERSED = JOB_KINDS["authority_judge_reversed"]
CELL = AUTHORITY_JUDGE.folder(P)  # a cell's folder, its evaluation's, predictions' and consistency's files too
CELL_WILDCARDS = ("dataset", "model", "judge", "context", "setting")


def _cell_identity(wildcards):
    return {k: getattr(wildcards, k) for k in CELL_WILDCARDS}


def get_template(wildcards):  # the cell's own
    return AUTHORITY_JUDGE.input_paths(config, wildcards)["template"]


def get_evaluate_params(wildcards):
    return _json(
        {
            **_cell_identity(wildcards),
            "scales": scales(config, wildcards.dataset, wildcards.setting),
            "near_constant": config["judge_validity"]["near_constant"],
            "intervals": config["intervals"],
            "seed": config["seed"],
        }
    )


def get_prediction_secondary(wildcards):
    return [authority_layout.secondary(P)] if SECONDARY and wildcards.dataset == "domainauth" else []


def prediction_secondary_arg(wildcards, input):
    return option("--secondary", input.secondary)


def get_prediction_params(wildcards):
    return _json({**_cell_identity(wildcards), "parse": config["parse"]})


def _baselines(wildcards):
    return baseline_inputs(config, wildcards.dataset)


def get_baseline_instances(wildcards):
    return [P.instances(wildcards.dataset, s) for s in _baselines(wildcards)["instance_sets"]]


def get_baseline_params(wildcards):
    return _json(
        {
            "dataset": wildcards.dataset,
            "seed": config["seed"],
            "intervals": config["intervals"],
            **_baselines(wildcards),
        }
    )
