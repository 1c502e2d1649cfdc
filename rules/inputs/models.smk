# Shared by the model steps (included by common.smk), per model: its
# config, file, interpreter, conda environment, threads and resources
# (authbench.scheduling, authbench.llm.models).


def model_config(wildcards):
    return MODELS[split_model(wildcards.model)[0]]


def _model_params(wildcards):
    return cell_model_params(model_config(wildcards))


def get_model_file(wildcards):
    return model_file(split_model(wildcards.model)[0], model_config(wildcards), P) or []


def model_file_arg(wildcards, input):
    return f"--model-file {input.model}" if input.model else ""


def model_python(wildcards):
    """The interpreter of a model's jobs: its `python:` key (e.g. the vLLM environment's), else every job's."""
    return model_config(wildcards).get("python") or PYTHON


def model_env(wildcards):
    """The conda environment of a model's jobs (--sdm conda)."""
    return f"../{env_of(model_config(wildcards))}"


def model_threads(wildcards):
    return model_config(wildcards)["threads"]


# `resources: **MODEL_RESOURCES` of each model step (authbench.scheduling: memory and
# runtime grow with each retry; on Slurm gpu=N becomes `sbatch --gpus=N`; locally only bookkeeping)
MODEL_RESOURCES = {
    key: (lambda key: lambda wildcards, attempt: model_resources(model_config(wildcards), attempt)[key])(key)
    for key in ("mem_mb", "runtime", "gpu")
}
