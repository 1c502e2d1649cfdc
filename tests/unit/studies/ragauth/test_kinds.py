"""RAGAuth's rank and answer job kinds (authbench.studies.ragauth.kinds): their params JSON (every key, pinned),
the rank job's five outputs in the rule's order, the scores each answer reads, and one request builder each that
gives the CLI step (files) and the plan (in memory) the same requests."""

import json

import pytest
from authbench.config import load_config, validate_schema
from authbench.llm.engines.tokenize import WordTokenizer
from authbench.paths import Layout
from authbench.studies.ragauth.kinds import ANSWER, RANK, answer_job, answer_jobs, rank_job, rank_jobs
from authbench.studies.registry import ROOT

from .test_dataset import _questions


@pytest.fixture
def config():
    cfg = load_config(ROOT / "config.yaml")
    validate_schema(cfg)
    cfg["ragauth"]["doc_tokens"] = 10
    return cfg


def test_the_params_are_the_rules_params(config):
    got = json.loads(RANK.params_json(config, {"model": "gemma3-270m", "strategy": "utility"}))
    assert {k: v for k, v in got.items() if k != "model"} == {
        "cache": config["cache"], "cell": "ragauth/gemma3-270m/rank/utility", "constrained": True,
        "doc_tokens": 10, "k": None, "stage": "utility", "strategy": "utility"}
    got = json.loads(ANSWER.params_json(config, {"model": "gemma3-270m", "strategy": "authority", "topk": "k3"}))
    assert (got["cell"], got["stage"], got["strategy"], got["k"]) == (
        "ragauth/gemma3-270m/answer/authority/k3", "answer", "authority", 3)
    assert json.loads(ANSWER.params_json(config, {"model": "gemma3-270m", "strategy": "no_filter",
                                                  "topk": "all"}))["k"] is None


def test_the_rank_job_writes_its_scores_before_its_manifest_and_each_answer_reads_its_scores(config):
    layout = Layout("res")
    assert list(RANK.outputs(layout)) == ["responses", "samples", "judgments", "scores", "manifest"]
    assert RANK.outputs(layout)["scores"] == "res/ragauth/cells/{model}/rank/{strategy}/scores.jsonl"
    root = config["results"]

    def scores(strategy):
        return ANSWER.input_paths(config, {"model": "m", "strategy": strategy, "topk": "k3"})["scores"]

    assert scores("no_filter") == []
    assert scores("tld_prior") == f"{root}/ragauth/scores/tld_prior.jsonl"
    assert scores("relevance") == f"{root}/ragauth/cells/m/rank/relevance/scores.jsonl"
    cells = [("a", "no_filter", "all"), ("a", "utility", "k3"), ("a", "utility", "k5"), ("a", "tld_prior", "k3"),
             ("b", "utility", "k3")]
    assert rank_jobs(cells) == [{"model": "a", "strategy": "utility"}, {"model": "b", "strategy": "utility"}]
    assert answer_jobs(cells)[1] == {"model": "a", "strategy": "utility", "topk": "k3"}


@pytest.mark.parametrize("kind, wc", [(RANK, {"model": "gemma3-270m", "strategy": "relevance"}),
                                      (ANSWER, {"model": "gemma3-270m", "strategy": "utility", "topk": "k2"}),
                                      (ANSWER, {"model": "gemma3-270m", "strategy": "no_filter", "topk": "all"})])
def test_files_and_the_plans_data_give_the_same_requests(config, tmp_path, kind, wc):
    questions = _questions()
    by_qid = {"Q1": [0.1, 0.9, 0.5], "Q2": [0.7, 0.2]}
    files = {"questions": tmp_path / "questions.jsonl", "scores": tmp_path / "scores.jsonl"}
    files["questions"].write_text("".join(json.dumps(q) + "\n" for q in questions))
    files["scores"].write_text("".join(json.dumps({"qid": q, "scores": s}) + "\n" for q, s in by_qid.items()))
    params = json.loads(kind.params_json(config, wc))
    template = kind.input_paths(config, wc)["template"]
    scored = wc["strategy"] != "no_filter"
    common = {"template": template, "tokenizer": WordTokenizer()}
    from_files = kind.requests(params, {**common, "questions": files["questions"],
                                        "scores": files["scores"] if scored else []})
    in_memory = kind.requests(params, {**common, "questions": questions, "scores": by_qid if scored else None})
    assert from_files == in_memory and [r["request_id"] for r in from_files] == ["Q1", "Q2"]
    assert "alpha " * 11 not in from_files[0]["prompt"]  # cut at doc_tokens = 10 words
    if kind is ANSWER and scored:  # the top 2 by score: beta (0.9), gamma (0.5)
        assert answer_job(params, {**common, "questions": questions, "scores": by_qid})[1]["Q1"] == ["b", "c"]
    if kind is RANK:
        assert rank_job(params, {**common, "questions": questions})[1]["documents_shown"] == 5
