"""How a model's jobs are scheduled, decided once: which of a model's config
keys only schedule it (outside every cell's parameters), its jobs'
threads, memory, runtime and GPUs (growing with each retry), how often a
killed job is retried, their priority, and the conda environment of its
engine. ``rules/common.smk`` reads these; the defaults are the schema's
(``models.<m>.threads``, ``gpus``, ``mem_mb``, ``runtime``)."""

from __future__ import annotations

from typing import Any, Mapping

# a model's keys that only schedule its jobs (threads, resources), name it in tables or plan the run:
# not in a cell's params, so raising a time limit or a rate reruns none of the model's cells
SCHEDULING_KEYS = ("threads", "paper_name", "runtime", "mem_mb", "gpus", "rate", "tokenizer_proxy", "price", "hosted")
# a model job killed by its scheduler (a time limit, memory) is run again this often, with
# runtime and memory times the attempt; it resumes from the response cache
MODEL_RETRIES = 2
# model jobs, and the steps they wait on, first whenever one is ready: the light steps after them
# (evaluation, reports) then run two at a time at the end instead of one at a time between model jobs
MODEL_PRIORITY = 10
# a served model's judge cell only talks to the server (its group's resources are summed)
SERVED_CELL_MEM_MB = 500
# the conda environment of a model's jobs (--sdm conda), by engine
ENGINE_ENVS = {"vllm": "envs/vllm.yaml"}
DEFAULT_ENV = "envs/llamacpp.yaml"
# engines that compute no model: their jobs ask for one core whatever `threads` says (a judge job
# of the instant engine holding both cores of a laptop ran the rehearsal's cells one at a time)
ONE_CORE_ENGINES = ("instant",)


def cell_model_params(spec: Mapping[str, Any]) -> dict:
    """A model's config as its cells' params see it: without :data:`SCHEDULING_KEYS`."""
    return {k: v for k, v in spec.items() if k not in SCHEDULING_KEYS}


def model_threads(spec: Mapping[str, Any]) -> int:
    """The threads (cores) a model job asks for: ``threads``, or 1 for an engine that computes no model."""
    return 1 if spec["engine"] in ONE_CORE_ENGINES else int(spec["threads"])


def model_env(spec: Mapping[str, Any]) -> str:
    """The conda environment file of a model's jobs, relative to the repository."""
    return ENGINE_ENVS.get(spec["engine"], DEFAULT_ENV)


def model_resources(spec: Mapping[str, Any], attempt: int, served_cell: bool = False) -> dict:
    """``mem_mb``, ``runtime`` (minutes) and ``gpu`` of a model job at its
    ``attempt`` (1, 2, ...): memory and runtime grow with each attempt; a
    served model's judge cell asks for little memory and no GPU."""
    return {"mem_mb": SERVED_CELL_MEM_MB if served_cell else int(spec["mem_mb"]) * attempt,
            "runtime": int(spec["runtime"]) * attempt,
            "gpu": 0 if served_cell else int(spec["gpus"])}
