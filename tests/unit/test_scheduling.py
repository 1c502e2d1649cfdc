"""authbench.scheduling: the cores, memory, runtime and GPUs a model's jobs ask for."""

from authbench.scheduling import model_resources, model_threads


def test_a_model_job_asks_for_its_threads_and_the_instant_engine_for_one():
    assert model_threads({"engine": "llamacpp", "threads": 8}) == 8
    assert model_threads({"engine": "vllm", "threads": "4"}) == 4
    # the instant engine computes no model: one core, whatever `threads` says
    assert model_threads({"engine": "instant", "threads": 8}) == 1


def test_memory_and_runtime_grow_with_each_attempt_and_a_served_cell_asks_for_no_gpu():
    spec = {"mem_mb": 4000, "runtime": 30, "gpus": 1}
    assert model_resources(spec, 1) == {"mem_mb": 4000, "runtime": 30, "gpu": 1}
    assert model_resources(spec, 3) == {"mem_mb": 12000, "runtime": 90, "gpu": 1}
    assert model_resources(spec, 2, served_cell=True) == {"mem_mb": 500, "runtime": 60, "gpu": 0}
