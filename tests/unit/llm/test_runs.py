"""Run statistics: RunStats adds (so tries and retries merge with ``sum``),
and joined runs keep the first batch's identity."""

import json

import pytest
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Response
from authbench.llm.runs import Run, RunStats, joined

ENGINE_X = json.dumps({"engine": "x"}, sort_keys=True)
ENGINE_Y = json.dumps({"engine": "y", "v": 1}, sort_keys=True)


def test_run_stats_add_sums_counts_and_pools_the_rest():
    a = RunStats(requests=2, unique=2, cache_hits=1, engine_calls=1, engine_seconds=0.25, load_seconds=1.5,
                 cache_problems={"torn_or_garbage_line": 1}, engines_used=(ENGINE_X,), cached=(True, False))
    b = RunStats(requests=3, unique=2, cache_hits=0, engine_calls=2, engine_seconds=0.1, load_seconds=0.2,
                 cache_problems={"torn_or_garbage_line": 1, "record_does_not_match_its_key": 2}, recomputed=2,
                 engine={"engine": "y"}, engines_used=(ENGINE_Y, ENGINE_X), cached=(False, False, True))
    c = RunStats(engine={"engine": "z"}, recomputed=1)
    total = a + b + c
    assert (total.requests, total.unique, total.cache_hits, total.engine_calls) == (5, 4, 1, 3)
    assert (total.engine_seconds, total.load_seconds) == (0.35, 1.7)  # rounded to the millisecond
    assert total.cache_problems == {"record_does_not_match_its_key": 2, "torn_or_garbage_line": 2}
    assert list(total.cache_problems) == sorted(total.cache_problems)
    assert total.engines_used == (ENGINE_X, ENGINE_Y)
    assert total.cached == (True, False, False, False, True)  # per request: concatenated in order, not pooled
    assert total.engine == {"engine": "y"}  # the first batch that loaded one
    assert total.recomputed == 3 and total.truncated_texts is None  # None: counted by no batch
    assert sum([a, b, c], RunStats()) == total and RunStats() + a == a
    with pytest.raises(TypeError):
        a + {"cache_hits": 1}


def test_joined_runs_keep_the_first_identity_and_add_the_stats():
    def batch(ids, seed, hits):
        return Run({"m": 1}, RunStats(requests=len(ids), cache_hits=hits), engine="instant",
                   generate=GenerateConfig(seed=seed), constrained=True,
                   requests=[{"request_id": i} for i in ids],
                   responses=[Response(i, "t", 1, 1, 0.0, "stop") for i in ids])

    run = joined([batch(["a", "b"], 10, 2), batch(["b#retry1"], 11, 0)])
    assert [r["request_id"] for r in run.requests] == [r.id for r in run.responses] == ["a", "b", "b#retry1"]
    assert run.generate.seed == 10 and run.stats == RunStats(requests=3, cache_hits=2)
