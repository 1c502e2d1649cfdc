"""The plan's arithmetic (authbench.plan): prefix reuse, tallies, estimates,
its stand-ins and how a model without a file or a rate is planned."""

import math

import pytest

from authbench.config import GenerateConfig
from authbench.paths import Layout
from authbench.plan import TokenCounter, _Measures, _ModelState, _tally, counter_for, plan_lines, plan_markdown
from authbench.plan.count import CharTokens, Tally, common_prefix, reusable
from authbench.plan.jobs import Batch, PlanJob, stand_in_passages
from authbench.plan.rates import Rate, configured_rate, engine_seconds


def test_common_prefix_by_hand():
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([], [1]) == 0
    long = list(range(200))
    assert common_prefix(long, long[:150] + [-1]) == 150  # past the 64-token strides
    assert common_prefix(long, long) == 200


@pytest.mark.parametrize("previous, tokens, block, expected", [
    (None, [1] * 100, 32, 0),                   # the first prompt reuses nothing
    ([1] * 100, [1] * 100, 32, 96),             # identical: at most len - 1 = 99, whole blocks: 96
    ([1] * 40, [1] * 100, 32, 32),              # the previous prompt filled one whole block (32 of 40)
    ([1] * 70 + [2], [1] * 70 + [3] * 30, 32, 64),  # 70 common -> 2 blocks
    ([1] * 70 + [2], [1] * 70 + [3] * 30, 16, 64),  # 70 common -> 4 blocks of 16
    ([1] * 31 + [2], [1] * 31 + [3], 32, 0),    # less than one block in common
    ([5, 6], [5], 1, 0),                        # a one-token prompt evaluates its token
])
def test_reusable_whole_blocks(previous, tokens, block, expected):
    assert reusable(previous, tokens, block) == expected


def test_char_proxy_counts_four_characters_a_token():
    chars = CharTokens("test")
    assert len(chars.prompt_tokens("x" * 10, chat=False)) == 3  # ceil(10 / 4)
    assert chars.decode(chars.encode("abcdefg")) == "abcdefg"


def _job(prompts, cell="c", budget_cap=8, perplexity=False, seed=0):
    gen = GenerateConfig(max_tokens=budget_cap, seed=seed)
    return PlanJob("domainauth", "m", cell, "judge", [Batch([(p, "free", 1) for p in prompts], gen, False)],
                   perplexity=perplexity)


def test_tally_dedupes_within_and_across_cells_and_counts_reuse():
    # characters/4: "aaaa..." prompts share their start; budgets are the cap (free text)
    state = _ModelState(TokenCounter("chars", CharTokens("t"), False), block=2)
    measures = _Measures()
    a, b = "a" * 40 + "x" * 8, "a" * 40 + "y" * 8  # 12 tokens each, 10 in common
    first = _tally(_job([b, a, a]), state, measures)
    # 3 requests, 2 distinct; sorted a, b: a reuses 0, b reuses 10 (min(common 10, held 12, 11) -> 10)
    assert (first.requests, first.unique, first.prompt_tokens, first.reusable_tokens,
            first.completion_budget) == (3, 2, 24, 10, 16)
    again = _tally(_job([a], cell="d"), state, measures)
    assert (again.requests, again.unique, again.prompt_tokens) == (1, 0, 0)  # the cache serves it
    other_seed = _tally(_job([a], cell="e", seed=1), state, measures)
    assert other_seed.unique == 1  # another seed is another cache key (knowledge tries)


def test_tally_of_perplexity_texts_has_no_reuse_or_budget():
    state = _ModelState(TokenCounter("chars", CharTokens("t"), False), block=2)
    t = _tally(_job(["a" * 40, "a" * 44], perplexity=True), state, _Measures())
    assert (t.unique, t.prompt_tokens, t.perplexity_tokens, t.reusable_tokens, t.completion_budget) == (2, 0, 21, 0, 0)


def test_engine_seconds_by_hand():
    t = Tally(prompt_tokens=1000, reusable_tokens=400, completion_budget=50, perplexity_tokens=100)
    rate = Rate(prompt=100.0, completion=10.0, source="test")
    assert engine_seconds(t, rate, reuse=False) == pytest.approx(1100 / 100 + 50 / 10)  # 16 s
    assert engine_seconds(t, rate, reuse=True) == pytest.approx(700 / 100 + 50 / 10)  # 12 s
    assert engine_seconds(t, Rate(None, None, "none"), reuse=True) is None


def test_configured_rate_and_its_absence():
    rate = configured_rate("q", {"engine": "vllm", "gpus": 2, "rate": {"prompt": 8000, "completion": 900,
                                                                       "source": "A100"}})
    assert (rate.prompt, rate.completion, rate.gpus) == (8000.0, 900.0, 2) and "A100" in rate.source
    none = configured_rate("q", {"engine": "vllm", "gpus": 1})
    assert not none.known and "models.q.rate" in none.source
    assert math.isinf(configured_rate("i", {"engine": "instant"}).prompt)


def test_absent_model_file_is_counted_with_the_character_proxy(tmp_path):
    spec = {"engine": "llamacpp", "model": str(tmp_path / "missing.gguf"), "prompt_format": "completion"}
    counter, gguf = counter_for("mine", spec, Layout(str(tmp_path)))
    assert gguf is None
    assert counter.name.startswith("proxy: characters/4") and "missing.gguf is absent" in counter.name


def test_plan_lines_say_why_there_are_no_hours():
    rows = [{"model": "qwen", "study": "all", "cells": 3, "unique_requests": 10, "prompt_tokens": 1000,
             "perplexity_tokens": 0, "reusable_tokens": 200, "engine_hours_with_reuse": "", "load_hours": "",
             "rate_source": "no rate configured (models.qwen.rate: prompt and completion tokens/s)",
             "engine": "vllm"}]
    (line,) = plan_lines(rows)
    assert line == ("plan: qwen: 3 cells, 10 unique requests, 1,000 prompt tokens (200 reusable); no estimate: "
                    "no rate configured (models.qwen.rate: prompt and completion tokens/s)")
    rows[0].update(engine_hours_with_reuse=0.05, load_hours=0.01, prompt_rate=500.0, engine="llamacpp")
    assert plan_lines(rows)[0].endswith("about 3.6 min of engine and model loads at 500 prompt tok/s (this machine)")


def test_plan_markdown_lists_every_row_and_the_stand_ins():
    row = {"model": "m", "study": "selfpref", "cells": 1, "requests": 2, "unique_requests": 2, "prompt_tokens": 10,
           "perplexity_tokens": 0, "reusable_tokens": 0, "completion_budget": 4, "engine_hours": 0.5,
           "engine_hours_with_reuse": 0.25, "gpu_hours": 1.0, "gpu_hours_with_reuse": 0.5,
           "tokens_counted_by": "own", "rate_source": "cfg", "load_hours": "", "engine": "vllm",
           "note": "first stand-in; second stand-in"}
    md = plan_markdown([row, {**row, "study": "all", "note": ""}])
    assert "| m | selfpref | 1 | 2 | 2 | 10 | 0 | 4 | 0.500 | 0.250 | 1.000 | 0.500 |" in md
    assert "- first stand-in." in md and "- second stand-in." in md


def test_stand_in_passages_take_the_human_passage_of_each_variant():
    passages = [{"pid": "q1:h:T", "qid": "q1", "author": "human", "variant": "normal", "factual": True,
                 "answer_in": "Paris", "text": "Paris is the capital."},
                {"pid": "q1:h:F", "qid": "q1", "author": "human", "variant": "normal", "factual": False,
                 "answer_in": "Rome", "text": "Rome is the capital."}]
    out = stand_in_passages("me", [{"qid": "q1", "answer": "Paris"}], passages, ["rewrite", "false_answer", "long"])
    assert [(p["variant"], p["factual"], p["text"]) for p in out] == [
        ("normal", True, "Paris is the capital."), ("normal", False, "Rome is the capital."),
        ("long", True, "Paris is the capital."), ("long", False, "Rome is the capital.")]
    assert {p["author"] for p in out} == {"me"} and out[1]["pid"] == "q1:me:normal:F"


def test_a_model_job_logs_its_progress_at_least_every_interval(caplog):
    from authbench.llm.runner import Progress

    now = [0.0]
    progress = Progress("cell x", total=4, every=20.0, clock=lambda: now[0])
    with caplog.at_level("INFO", logger="authbench"):
        for t in (5.0, 21.0, 30.0, 50.0):
            now[0] = t
            progress.step({"prompt_tokens": 90, "completion_tokens": 10})
    lines = [r.getMessage() for r in caplog.records]
    # logged at 21 s (20 s since the start) and at the last request; 100 tokens a request
    assert lines == ["cell x: 2/4 requests, 10 tokens/s over 21 s, about 21 s left",
                     "cell x: 4/4 requests, 8 tokens/s over 50 s"]
