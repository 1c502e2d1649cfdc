# Input and params functions of rules/judge.smk (wiring only: paths from
# authbench.paths, policy in the package), included at its top.
from authbench.studies.authority.grid import GridEntry, entry_template
from authbench.cells.viewer import TWINS
from authbench.paths import cell_id
from authbench.studies.authority.consistency import ORDER_SUFFIX
from authbench.studies.authority.judges import judge_of
from authbench.studies.authority.outputs import baseline_inputs, scales
from authbench.studies.authority import layout as authority_layout

CELL = P.cell("{dataset}", "{model}", "{judge}", "{context}", "{setting}")
CELL_WILDCARDS = ("dataset", "model", "judge", "context", "setting")


def _cell_identity(wildcards):
    return {k: getattr(wildcards, k) for k in CELL_WILDCARDS}


def get_template(wildcards):
    return entry_template(config, GridEntry(**_cell_identity(wildcards)))


def get_judge_params(wildcards):
    return _json(_judge_params(wildcards))


def get_reversed_judge_params(wildcards):  # the cell's own, its id + /reversed, and the order
    p = _judge_params(wildcards)
    return _json({**p, "cell": p["cell"] + ORDER_SUFFIX, "reversed": True})


def _judge_params(wildcards):
    return {
        "cell": cell_id(*(getattr(wildcards, k) for k in CELL_WILDCARDS)),
        "judge": wildcards.judge,
        "context": wildcards.context,
        "setting": wildcards.setting,
        "seed": config["seed"],
        "constrained": config["constrained_decoding"],
        "cache": config.get("cache"),
        "model": _model_params(wildcards),
        # score judges: E[s] beside the argmax (authbench.llm.expected)
        "expected_scores": config["expected_scores"] and judge_of(wildcards.judge).scores,
    }


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
