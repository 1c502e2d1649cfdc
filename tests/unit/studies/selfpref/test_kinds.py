"""The self-preference reranking and comparison job kinds (authbench.studies.selfpref.kinds): their params JSON
(every key, pinned), their folders, and one request builder each that gives the CLI step (files) and the plan
(the sample it draws, in memory) the same requests."""

import json

import pytest
from authbench.config import load_config, validate_schema
from authbench.paths import Layout
from authbench.studies.registry import ROOT
from authbench.studies.selfpref.kinds import COMPARE, RERANK

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


@pytest.mark.parametrize("kind, extra", [(RERANK, {"prompt": "normal"}), (COMPARE, {"run": "main"})])
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
    template = kind.input_paths(config, wc)["template"]
    from_files = kind.requests(params, {**files, "template": template})
    in_memory = kind.requests(params, {"questions": {"q1": questions[0]}, "sample": sample, "passages": passages,
                                       "template": template})
    assert from_files == in_memory and len(from_files) > 0
