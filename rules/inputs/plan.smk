# Input and params functions of rules/plan.smk (wiring only: what the plan
# reads is decided in authbench.plan), included at its top.
from authbench.plan.jobs import plan_inputs


def get_plan_inputs():
    return plan_inputs(config, P, os.path.exists)


def plan_threads():
    # the embedded models' threads (their calibration), and two processes for the counting at least
    return max([m["threads"] for m in MODELS.values() if m["engine"] == "llamacpp"] + [2])


def get_plan_params(wildcards):
    return _json({"config": config, "configfiles": [str(f) for f in workflow.config_settings.configfiles]})
