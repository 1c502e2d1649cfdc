"""Reply lengths and tries (authbench.plan.replies): where each estimate
comes from, in order, and the expected tries of a retried step."""

import hashlib
import json

import pytest

from authbench.llm.cache import ResponseCache
from authbench.paths import split_cell_id
from authbench.plan import TokenCounter
from authbench.plan.count import CharTokens
from authbench.plan.replies import Replies, cell_step, expected_tries, percentile
from authbench.studies.registry import dataset_level


def test_expected_tries_by_hand():
    assert expected_tries(0.0, 19) == 1.0
    assert expected_tries(0.5, 2) == pytest.approx(1.75)  # 1 + 0.5 + 0.25
    assert expected_tries(0.1, 4) == pytest.approx(1.1111)  # 1 + 0.1 + 0.01 + 0.001 + 0.0001
    assert expected_tries(1.0, 4) == 5.0  # every try fails: all five
    assert expected_tries(0.3, 0) == 1.0


def test_percentile_interpolates_like_numpy():
    values = [1, 2, 3, 4, 10]
    assert percentile(values, 0.95) == pytest.approx(8.8)  # position 3.8: 4 + 0.8 * (10 - 4)
    assert percentile(values, 0.5) == 3


def test_the_step_of_a_cache_writer():
    # the job kind the plan's jobs name: the cell id's first part after the model
    assert cell_step("domainauth/m/pair_rank/wo_text/fine") == "pair_rank"
    assert cell_step("entityauth/songs/m/point/wo_text/fine") == "point"
    assert cell_step("selfpref/nq/m/generation/main") == "generation"
    assert cell_step("selfpref/nq/m/rerank/rag") == "rerank"
    assert cell_step("ragauth/m/answer/no_filter/all") == "answer"

    # a study's cell ids carry a dataset when its declaration says so (Study.dataset_level), not by a list of names
    assert dataset_level() == ("entityauth", "selfpref")
    assert cell_step("mystudy/set1/m/point/x") == "m"  # unregistered: no dataset level
    assert cell_step("mystudy/set1/m/point/x", ("mystudy",)) == "point"
    assert split_cell_id("mystudy/set1/m/point/x", ("mystudy",)) == ("mystudy/set1", "m", ("point", "x"))


def _cache(tmp_path, writer, records):
    cache = ResponseCache(tmp_path / "cache", writer=writer)
    for i, rec in enumerate(records):
        cache.put(hashlib.sha256(f"{writer}/{i}".encode()).hexdigest(), rec)
    cache.close()


def _rec(tokens, text="###3***", fmt="hash_rating", constrained=False):
    return {"text": text, "prompt_tokens": 10, "completion_tokens": tokens, "seconds": 0.1, "finish_reason": "stop",
            "engine": {}, "output": fmt, "n": 1, "constrained": constrained}


def _config(tmp_path, **extra):
    return {"results": str(tmp_path / "results"), "cache": str(tmp_path / "cache"), "selfpref": {}, **extra}


def test_lengths_in_order_grammar_measured_proxy_format_cap(tmp_path):
    _cache(tmp_path, "selfpref/nq/own/rerank/normal", [_rec(t) for t in (4, 6, 8, 10)] + [_rec(9, "no score")])
    _cache(tmp_path, "selfpref/nq/other/generation/main", [_rec(t, "Answer: x. 1", "free") for t in (12, 20)])
    replies = Replies(_config(tmp_path), {})
    assert replies.length("own", "rerank", "hash_rating", 1, True, 128).source.startswith("grammar")
    own = replies.length("own", "rerank", "hash_rating", 1, False, 128)
    assert (own.mean, own.n) == (7.4, 5) and own.source.startswith("measured")  # (4+6+8+10+9)/5
    proxy = replies.length("own", "generation", "free", 1, False, 64)
    assert (proxy.mean, proxy.source) == (16.0, "proxy: other's replies (2)")
    fmt = replies.length("new", "pair_rank", "pair_choice", 2, False, 128)
    assert (fmt.mean, fmt.source) == (3.0, "format: a well-formed reply (nothing measured)")
    cap = replies.length("new", "answer", "free", 1, False, 24)
    assert (cap.mean, cap.source) == (24.0, "cap: generate.max_tokens (nothing measured)")
    assert cap.capped(10).mean == 10  # never past the request's budget
    # reranking: the parse failures of its own replies ("no score" does not settle): 1 of 5
    assert replies.failure("own", "rerank") == (0.2, "1 of 5 first replies did not settle")
    assert replies.failure("other", "rerank") is None


def test_released_gpt35_lengths(tmp_path):
    knowledge = tmp_path / "k.json"
    knowledge.write_text(json.dumps({"ai_answers": [{"AI_answer": "x" * 8}, {"AI_answer": "x" * 16}]}))
    config = _config(tmp_path, studies=["selfpref"], selfpref={"datasets": {"nq": {"knowledge": {"gpt35": str(knowledge)}}}})
    replies = Replies(config, {"m": TokenCounter("chars", CharTokens("t"), True)})
    got = replies.length("m", "knowledge", "free", 1, False, 512)
    assert (got.mean, got.source) == (3.0, "released: GPT-3.5's knowledge answers (2 counted)")  # 2 and 4 tokens


def test_tries_from_an_earlier_runs_manifest(tmp_path):
    replies = Replies(_config(tmp_path), {})
    replies.read_manifests([{"cell": "selfpref/nq/m/generation/main",
                             "tries": {"tries_used": {"1": 30, "2": 8, "5": 2}}}])
    assert replies.failure("m", "generation") == (0.25, "10 of 40 first replies did not settle")
