# Shared by the model steps (included by common.smk), per model: its
# config, file, interpreter, conda environment, threads and resources
# (authbench.scheduling, authbench.llm.models), and a served model's (rules/models.smk).
from authbench.llm.models import is_served


def model_config(wildcards):
    return MODELS[split_model(wildcards.model)[0]]


def _model_params(wildcards):
    return cell_model_params(model_config(wildcards))


def get_model_file(wildcards):
    return model_file(split_model(wildcards.model)[0], model_config(wildcards), P) or []


def model_file_arg(wildcards, input):
    return option("--model-file", input.model)


def model_python(wildcards):
    """The interpreter of a model's jobs, ready for the shell line: its `python:` key (e.g. the vLLM
    environment's), quoted, else every job's, the variable $AUTHBENCH_PYTHON (unquoted: the shell expands it)."""
    python = model_config(wildcards).get("python")
    return shlex.quote(python) if python else PYTHON


def model_env(wildcards):
    """The conda environment of a model's jobs (--sdm conda)."""
    return f"../{env_of(model_config(wildcards))}"


def model_threads(wildcards):
    return threads_of(model_config(wildcards))


# `resources: **MODEL_RESOURCES` of each model step (authbench.scheduling: memory and
# runtime grow with each retry; on Slurm gpu=N becomes `sbatch --gpus=N`; locally only bookkeeping)
MODEL_RESOURCES = {
    key: (lambda key: lambda wildcards, attempt: model_resources(model_config(wildcards), attempt)[key])(key)
    for key in ("mem_mb", "runtime", "gpu")
}


def get_model_spec_params(wildcards):
    return _json({"model": model_config(wildcards)["model"]})


# A model with `vllm.serve: true` serves its judge cells from one `vllm serve`
# (rule models_serve, a Snakemake service job grouped with every cell that
# reads its service file: one allocation on Slurm). A service group's
# resources are summed, so the cells ask for 0 threads, little memory, no GPU.
def served(wildcards):
    return is_served(model_config(wildcards))


def get_server(wildcards):
    return P.server(split_model(wildcards.model)[0]) if served(wildcards) else []


def server_arg(wildcards, input):
    return option("--server", input.server)


def judge_threads(wildcards):
    return 0 if served(wildcards) else model_threads(wildcards)


# a served model's cells only talk to its server (authbench.scheduling.model_resources)
JUDGE_RESOURCES = {
    key: (
        lambda key: lambda wildcards, attempt: model_resources(
            model_config(wildcards), attempt, served_cell=served(wildcards)
        )[key]
    )(key)
    for key in ("mem_mb", "runtime", "gpu")
}


def get_serve_params(wildcards):
    return _json({"model": _model_params(wildcards)})
