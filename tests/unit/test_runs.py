"""Run statistics and the manifest: RunStats adds (so tries and retries merge
with ``sum``), and a CellRun gives exactly the manifest dict every cell's
manifest.json is written from."""

import json

import pytest
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Response
from authbench.llm.runs import CellRun, RunStats, joined, manifest, write_manifest
from authbench.provenance import block
from authbench.records import file_sha256

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
        return CellRun("c", {"m": 1}, RunStats(requests=len(ids), cache_hits=hits), engine="instant",
                       generate=GenerateConfig(seed=seed), constrained=True,
                       requests=[{"request_id": i} for i in ids],
                       responses=[Response(i, "t", 1, 1, 0.0, "stop") for i in ids])

    run = joined([batch(["a", "b"], 10, 2), batch(["b#retry1"], 11, 0)])
    assert [r["request_id"] for r in run.requests] == [r.id for r in run.responses] == ["a", "b", "b#retry1"]
    assert run.generate.seed == 10 and run.stats == RunStats(requests=3, cache_hits=2)


def _cell(tmp_path, stats, **kw):
    template, instances = tmp_path / "t.yaml", tmp_path / "i.jsonl"
    template.write_text("template")
    instances.write_text("{}\n")
    responses = [Response("r0", "7", 10, 2, 0.5, "stop"), Response("r1", "x", 12, 3, 0.25, "length")]
    return CellRun("domainauth/m/point/wo_text/fine", {"model": "m"}, stats, engine="instant",
                   generate=GenerateConfig(seed=3), constrained=True, requests=[{}, {}], responses=responses,
                   judgments=[{"status": "ok"}, {"status": "no_number"}], template=str(template),
                   inputs={"instances": (str(instances), {"n": 1})}, **kw), template, instances


def test_a_cell_run_gives_exactly_its_manifest(tmp_path):
    stats = RunStats(requests=2, unique=2, cache_hits=1, engine_calls=1, engine_seconds=0.5, load_seconds=1.25,
                     cache_problems={"torn_or_garbage_line": 1}, engine={"engine": "instant"},
                     engines_used=(ENGINE_X,))
    run, template, instances = _cell(tmp_path, stats, extra={"server": {"pid": 1}})
    assert manifest(run) == {
        "cell": "domainauth/m/point/wo_text/fine", "model": {"model": "m"}, "engine": "instant",
        "engines_used": [{"engine": "x"}],
        "generate": {"temperature": 0.0, "top_p": 1.0, "seed": 3, "max_tokens": 48}, "constrained": True,
        "template": {"path": str(template), "sha256": file_sha256(template)},
        "instances": {"path": str(instances), "sha256": file_sha256(instances), "n": 1},
        "unique_requests": 2, "cache_hits": 1, "engine_calls": 1, "engine_seconds_this_run": 0.5,
        "model_load_seconds": 1.25, "cache_problems": {"torn_or_garbage_line": 1},
        "n_calls": 2, "parse_status": {"no_number": 1, "ok": 1}, "parse_failure_rate": 0.5,
        "prompt_tokens": 22, "completion_tokens": 5, "engine_seconds": 0.75,
        "provenance": block(), "server": {"pid": 1},
    }
    path = tmp_path / "manifest.json"
    assert write_manifest(run, path) == manifest(run)
    assert path.read_text() == json.dumps(manifest(run), indent=2, sort_keys=True) + "\n"


def test_manifest_of_a_cached_cell_and_of_several_templates(tmp_path):
    """Nothing computed: the seconds of this run are the integer 0 (as every
    manifest had); score distributions asked: ``recomputed_for_score_probs``;
    the step's ``extra`` wins over the runner's entries."""
    run, template, _ = _cell(tmp_path, RunStats(requests=2, unique=1, cache_hits=1, recomputed=0),
                             extra={"constrained": False})
    out = manifest(run)
    assert out["engine_seconds_this_run"] == 0 and isinstance(out["engine_seconds_this_run"], int)
    assert out["model_load_seconds"] == 0.0 and out["recomputed_for_score_probs"] == 0
    assert out["constrained"] is False and out["engines_used"] == []
    two = manifest(CellRun(**{**run.__dict__, "template": [str(template), str(template)]}))
    assert two["template"] == [{"path": str(template), "sha256": file_sha256(template)}] * 2


def test_manifest_of_a_scoring_cell(tmp_path):
    stats = RunStats(requests=5, unique=4, cache_hits=0, engine_calls=4, engine_seconds=0.04, load_seconds=0.5,
                     engine={"engine": "fake"}, truncated_texts=1, engines_used=(ENGINE_X,))
    assert manifest(CellRun("selfpref/nq/perplexity/m", {"model": "m"}, stats)) == {
        "cell": "selfpref/nq/perplexity/m", "model": {"model": "m"}, "n": 5, "unique_texts": 4, "cache_hits": 0,
        "engine_calls": 4, "seconds": 0.04, "model_load_seconds": 0.5, "engine": {"engine": "fake"},
        "cache_problems": {}, "truncated_texts": 1, "provenance": block()}
    cached = manifest(CellRun("p", {}, RunStats(requests=1, unique=1, cache_hits=1, truncated_texts=0)))
    assert cached["engine"] is None and cached["seconds"] == 0.0 and isinstance(cached["seconds"], float)
