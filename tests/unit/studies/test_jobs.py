"""A study's job kind (authbench.studies.jobs.JobKind): its one cell id pattern gives the rule's outputs and every
job's folder, its params dataclass the rule's params JSON (bytes checked by hand), its requests the plan's batch;
a kind that breaks its own declaration is named."""

import json
from dataclasses import dataclass

import pytest
from authbench.config import load_config
from authbench.paths import Layout
from authbench.studies.jobs import CellParams, JobKind
from authbench.studies.registry import ROOT


@dataclass(frozen=True)
class AskParams(CellParams):
    numbers: int


def _requests(params, inputs):
    return [{"request_id": f"n{i}", "prompt": f"{inputs['template']}: {i}?", "output": "yes_no", "n": 1}
            for i in range(params["numbers"])]


KIND = JobKind("mine_ask", "mine/{model}/ask",
               jobs=lambda c: [{"model": "gemma3-270m"}, {"model": "gemma3-270m@b"}],
               params=lambda c, wc, shared: AskParams(numbers=3, **shared), requests=_requests, files=("template",),
               inputs=lambda c, wc: {"template": f"t-{wc['model']}"})


@pytest.fixture
def config():
    cfg = load_config(ROOT / "config.yaml")
    cfg["models"] = {"gemma3-270m": {"engine": "instant", "model": "instant-gemma", "threads": 2,
                                     "generate": {"max_tokens": 8}}}
    cfg.update(cache=None, constrained_decoding=True)
    return cfg


def test_the_pattern_names_every_file():
    layout = Layout("res")
    assert KIND.cell({"model": "q"}) == "mine/q/ask"
    assert KIND.outputs(layout) == {"responses": "res/mine/cells/{model}/ask/responses.jsonl",
                                    "samples": "res/mine/cells/{model}/ask/samples.parquet",
                                    "judgments": "res/mine/cells/{model}/ask/judgments.jsonl",
                                    "manifest": "res/mine/cells/{model}/ask/manifest.json"}


def test_the_params_json_is_the_dataclass_sorted_and_compact(config):
    got = KIND.params_function(config)({"model": "gemma3-270m"})
    model = {k: v for k, v in config["models"]["gemma3-270m"].items() if k != "threads"}
    assert got == ('{"cache":null,"cell":"mine/gemma3-270m/ask","constrained":true,"model":'
                   + json.dumps(model, sort_keys=True, separators=(",", ":")) + ',"numbers":3}')
    assert KIND.files_of(Layout("res"), config, "judgments") == ["res/mine/cells/gemma3-270m/ask/judgments.jsonl",
                                                                  "res/mine/cells/gemma3-270m@b/ask/judgments.jsonl"]


def test_the_plan_sends_the_requests_the_step_sends(config):
    jobs = list(KIND.plan_jobs("mine", config))
    assert [(j.study, j.model, j.cell, j.kind) for j in jobs] == [
        ("mine", "gemma3-270m", "mine/gemma3-270m/ask", "ask"),
        ("mine", "gemma3-270m", "mine/gemma3-270m@b/ask", "ask")]
    batch = jobs[1].batches[0]
    assert len(batch) == 3 and batch.prompt(0) == "t-gemma3-270m@b: 0?" and batch.generate.max_tokens == 8
    function, options = KIND.command()
    assert options == ["template", "model_file?", "responses", "samples", "judgments", "manifest", "threads?"]


def test_a_kind_that_breaks_its_declaration_is_named(config):
    from dataclasses import replace

    with pytest.raises(ValueError, match=r"job kind 'mine_ask': inputs gave \['other'\], its files are \['template'\]"):
        replace(KIND, inputs=lambda c, wc: {"other": "x"}).input_paths(config, {"model": "gemma3-270m"})
    with pytest.raises(TypeError, match=r"job kind 'mine_ask': params gave dict, expected a frozen dataclass"):
        replace(KIND, params=lambda c, wc, shared: dict(shared)).params_json(config, {"model": "gemma3-270m"})
