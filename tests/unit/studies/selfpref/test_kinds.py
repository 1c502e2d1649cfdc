"""The self-preference job kinds (passage writers, perplexity, knowledge, reranking, comparison) (authbench.studies.selfpref.kinds): their params JSON
(every key, pinned), their folders, and one request builder each that gives the CLI step (files) and the plan
(the sample it draws, in memory) the same requests."""

import json

import pytest
from authbench.config import load_config, validate_schema
from authbench.paths import Layout
from authbench.studies.registry import ROOT
from authbench.studies.selfpref.kinds import COMPARE, GENERATE, KNOWLEDGE, PERPLEXITY, RERANK

from .test_study import _passages


@pytest.fixture
def config():
    cfg = load_config(ROOT / "config.yaml")
    validate_schema(cfg)
    return cfg


def test_the_params_are_the_rules_params(config):
    wc = {"spds": "nq", "model": "gemma3-270m", "prompt": "rag"}
    got = json.loads(RERANK.params_json(config, wc))
    rerank = config["selfpref"]["rerank"]
    assert {k: v for k, v in got.items() if k != "model"} == {
        "cache": config["cache"], "cell": "selfpref/nq/gemma3-270m/rerank/rag", "constrained": True,
        "dataset": "nq", "seed": config["seed"], "prompt": "rag", "evaluator": "gemma3-270m", "self_author": "gpt35",
        "retries": rerank["retries"], "false_answer": rerank["false_answer"], "scope": rerank["scope"],
        "generate": rerank.get("generate")}
    got = json.loads(COMPARE.params_json(config, {"spds": "nq", "model": "qwen2.5-coder-0.5b", "run": "style"}))
    assert (got["cell"], got["self_author"], got["others"], got["run"]) == (
        "selfpref/nq/qwen2.5-coder-0.5b/generation/style", "llama", ["human", "gpt35"], "style")
    assert COMPARE.folder(Layout("res"), {"spds": "nq", "model": "m", "run": "main"}) == \
        "res/selfpref/nq/cells/m/generation/main"
    assert [wc["prompt"] for wc in RERANK.jobs(config) if wc["model"] == "gemma3-270m"] == ["normal", "rag"]
    got = json.loads(KNOWLEDGE.params_json(config, {"spds": "nq", "model": "gemma3-270m"}))
    knowledge = config["selfpref"]["knowledge"]
    assert {k: v for k, v in got.items() if k != "model"} == {
        "cache": config["cache"], "cell": "selfpref/nq/gemma3-270m/knowledge", "constrained": True, "dataset": "nq",
        "seed": config["seed"], "tries": knowledge["tries"], "match": knowledge["match"],
        "generate": knowledge["generate"]}
    assert KNOWLEDGE.outputs(Layout("res"))["levels"] == "res/selfpref/{spds}/cells/{model}/knowledge/levels.jsonl"
    generate = config["selfpref"]["generate"]
    got = json.loads(GENERATE.params_json(config, {"spds": "nq", "model": "gemma3-270m"}))
    assert {k: v for k, v in got.items() if k not in ("model", "cache", "constrained", "seed")} == {
        "cell": "selfpref/nq/gemma3-270m/generate", "dataset": "nq", "author": "gemma3-270m",
        "items": generate["items"], "kinds": generate["kinds"], "generate": generate["generate"]}
    got = json.loads(PERPLEXITY.params_json(config, {"spds": "nq", "model": "gemma3-270m"}))
    assert (got["cell"], got["scope"]) == ("selfpref/nq/gemma3-270m/perplexity", config["selfpref"]["rerank"]["scope"])
    # their files are not in a cell's folder: <dataset>/generated/<model>, <dataset>/perplexity/<model>
    assert GENERATE.outputs(Layout("res")) == {
        name: f"res/selfpref/{{spds}}/generated/{{model}}/{file}" for name, file in (
            ("responses", "responses.jsonl"), ("samples", "samples.parquet"), ("judgments", "judgments.jsonl"),
            ("manifest", "manifest.json"), ("passages", "passages.jsonl"), ("drops", "drops.tsv"))}
    assert PERPLEXITY.outputs(Layout("res")) == {"scores": "res/selfpref/{spds}/perplexity/{model}/perplexity.jsonl",
                                                 "manifest": "res/selfpref/{spds}/perplexity/{model}/manifest.json"}
    assert PERPLEXITY.files_of(Layout("res"), config, "scores", spds="nq") == [
        f"res/selfpref/nq/perplexity/{config['selfpref']['perplexity_model']}/perplexity.jsonl"]
    assert COMPARE.input_paths(config, {"spds": "nq", "model": "m", "run": "main"})["knowledge"] == \
        f"{config['results']}/selfpref/nq/cells/m/knowledge/levels.jsonl"


@pytest.mark.parametrize("kind, extra", [(RERANK, {"prompt": "normal"}), (COMPARE, {"run": "main"}),
                                         (KNOWLEDGE, {}), (GENERATE, {}), (PERPLEXITY, {})])
def test_files_and_the_plans_data_give_the_same_requests(config, tmp_path, kind, extra):
    questions = [{"qid": "q1", "question": "Who?", "answer": "Ann"}]
    sample = {"main": ["q1"], "style": ["q1"], "scope": ["q1"]}
    passages = _passages()
    files = {"questions": tmp_path / "questions.jsonl", "sample": tmp_path / "sample.json",
             "passages": tmp_path / "passages.jsonl", "knowledge": None}
    files["questions"].write_text("".join(json.dumps(q) + "\n" for q in questions))
    files["sample"].write_text(json.dumps(sample))
    files["passages"].write_text("".join(json.dumps(p) + "\n" for p in passages))
    wc = {"spds": "nq", "model": "gemma3-270m", **extra}
    params = json.loads(kind.params_json(config, wc))
    params.update(self_author="me", others=["human", "other"], scope="sample")
    templates = {k: v for k, v in kind.input_paths(config, wc).items() if k in ("template", "templates")}
    from_files = kind.requests(params, {**files, **templates})
    in_memory = kind.requests(params, {"questions": {"q1": questions[0]}, "sample": sample, "passages": passages,
                                       **templates})
    assert from_files == in_memory and len(from_files) > 0


def test_the_knowledge_probes_ask_the_main_run_in_the_questions_files_order(config):
    """The plan and the step alike: each question of the sample's main run once (the step asks them `tries`
    times), in the questions file's order, not the sample's."""
    from authbench.studies.selfpref.kinds import knowledge_job

    questions = {q: {"qid": q, "question": f"Who is {q}?", "answer": "Ann"} for q in ("q1", "q2", "q3")}
    params = json.loads(KNOWLEDGE.params_json(config, {"spds": "nq", "model": "gemma3-270m"}))
    template = KNOWLEDGE.input_paths(config, {"spds": "nq", "model": "gemma3-270m"})["template"]
    requests, probed = knowledge_job(params, {"questions": questions, "sample": {"main": ["q3", "q1"]},
                                              "template": template})
    assert [r["request_id"] for r in requests] == [q["qid"] for q in probed] == ["q1", "q3"]
    assert "Who is q3?" in requests[1]["prompt"] and requests[1]["output"] == "free"
