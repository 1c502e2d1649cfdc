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


def test_a_study_with_datasets_keeps_them_before_the_model_and_plans_its_own_kinds(config):
    """A pattern with a dataset before {model} (the self-preference kinds): its folder is the study's
    `<study>/<dataset>`'s cell; files_of narrows to one dataset; a kind planned by its study is not in
    plan_jobs, and plan_job takes what the plan stands in for, with the params' generate and the kind's
    constrained."""
    from dataclasses import replace

    kind = replace(KIND, pattern="mine/{ds}/{model}/ask",
                   jobs=lambda c: [{"ds": d, "model": "gemma3-270m"} for d in ("a", "b")],
                   params=lambda c, wc, shared: AskParams(numbers=2, **shared), planned_by_study=True,
                   constrained=False)
    layout = Layout("res")
    assert kind.outputs(layout)["manifest"] == "res/mine/{ds}/cells/{model}/ask/manifest.json"
    assert kind.files_of(layout, config, "judgments", ds="b") == ["res/mine/b/cells/gemma3-270m/ask/judgments.jsonl"]
    assert list(kind.plan_jobs("mine", config)) == []
    job = kind.plan_job("mine", config, {"ds": "b", "model": "gemma3-270m"}, {"template": "stood in"}, notes=("n",))
    assert (job.cell, job.notes) == ("mine/b/gemma3-270m/ask", ("n",))
    batch = job.batches[0]
    assert batch.prompt(1) == "stood in: 1?" and batch.constrained is False and batch.generate.max_tokens == 8


@dataclass(frozen=True)
class ProbeParams(AskParams):
    tries: int
    generate: dict


def test_a_probe_asked_several_times_plans_one_batch_a_try_and_writes_its_extra_output(config):
    """A kind with `tries` (the knowledge probes): one batch per try, try t with the params' seed + t; its `extra`
    outputs follow the cell step's four files, in the rule, in files_of and in the CLI step's options."""
    from dataclasses import replace

    kind = replace(KIND, params=lambda c, wc, shared: ProbeParams(numbers=2, tries=3, generate={"seed": 5}, **shared),
                   tries="tries", extra=(("levels", "levels.jsonl"),))
    assert list(kind.outputs(Layout("res"))) == ["responses", "samples", "judgments", "manifest", "levels"]
    assert kind.files_of(Layout("res"), config, "levels")[0] == "res/mine/cells/gemma3-270m/ask/levels.jsonl"
    assert kind.command()[1][-2:] == ["levels", "threads?"]
    batches = kind.plan_job("mine", config, {"model": "gemma3-270m"}).batches
    assert [(b.generate.seed, b.generate.max_tokens, len(b)) for b in batches] == [(5, 8, 2), (6, 8, 2), (7, 8, 2)]
    once = KIND.plan_job("mine", config, {"model": "gemma3-270m"}).batches
    assert [b.generate.seed for b in once] == [0]


def test_a_kind_outside_a_cell_folder_and_a_scored_text_kind(config):
    """`where` places a kind's files (the self-preference passage writers' and perplexity's folders), the rule's
    pattern included; `cell_files=False` leaves only its `extra` outputs; a `perplexity` kind plans its texts
    scored whole: one free batch, unconstrained, its PlanJob marked."""
    from dataclasses import replace

    kind = replace(KIND, pattern="mine/{ds}/{model}/score", jobs=lambda c: [{"ds": "a", "model": "gemma3-270m"}],
                   requests=lambda params, inputs: [{"id": "p1", "text": "some text"}, {"id": "p2", "text": "more"}],
                   where=lambda layout, wc: f"{layout.root}/mine/{wc['ds']}/scores/{wc['model']}", cell_files=False,
                   extra=(("scores", "scores.jsonl"), ("manifest", "manifest.json")), perplexity=True)
    layout = Layout("res")
    assert kind.outputs(layout) == {"scores": "res/mine/{ds}/scores/{model}/scores.jsonl",
                                    "manifest": "res/mine/{ds}/scores/{model}/manifest.json"}
    assert kind.files_of(layout, config, "scores") == ["res/mine/a/scores/gemma3-270m/scores.jsonl"]
    job = kind.plan_job("mine", config, {"ds": "a", "model": "gemma3-270m"})
    assert job.perplexity and job.cell == "mine/a/gemma3-270m/score" and job.kind == "score"
    (batch,) = job.batches
    assert batch.requests == [("some text", "free", 1), ("more", "free", 1)] and batch.constrained is False
