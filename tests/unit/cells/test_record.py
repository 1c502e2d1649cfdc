"""A cell's record (authbench.cells.record): the manifest dict every cell's
manifest.json is written from, for a model cell, a cached one, one of
several templates and a scoring (perplexity) cell."""

import hashlib
import json

from authbench.cells.record import CellRecord, templates_sha256
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Response
from authbench.llm.runs import Run, RunStats
from authbench.provenance import block
from authbench.records import file_sha256

ENGINE_X = json.dumps({"engine": "x"}, sort_keys=True)


def _cell(tmp_path, stats, **kw):
    template, instances = tmp_path / "t.yaml", tmp_path / "i.jsonl"
    template.write_text("template")
    instances.write_text("{}\n")
    responses = [Response("r0", "7", 10, 2, 0.5, "stop"), Response("r1", "x", 12, 3, 0.25, "length")]
    run = Run({"model": "m"}, stats, engine="instant", generate=GenerateConfig(seed=3), constrained=True,
              requests=[{}, {}], responses=responses)
    return (CellRecord.of("domainauth/m/point/wo_text/fine", run, [{"status": "ok"}, {"status": "no_number"}],
                          str(template), {"instances": (str(instances), {"n": 1})}, **kw), template, instances)


def test_a_cell_run_gives_exactly_its_manifest(tmp_path):
    stats = RunStats(requests=2, unique=2, cache_hits=1, engine_calls=1, engine_seconds=0.5, load_seconds=1.25,
                     cache_problems={"torn_or_garbage_line": 1}, engine={"engine": "instant"},
                     engines_used=(ENGINE_X,))
    record, template, instances = _cell(tmp_path, stats, extra={"server": {"pid": 1}})
    assert record.manifest() == {
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
    assert record.template_sha256 == file_sha256(template)  # hashed once, for the samples' metadata too


def test_manifest_of_a_cached_cell_and_of_several_templates(tmp_path):
    """Nothing computed: the seconds of this run are the integer 0 (as every
    manifest had); score distributions asked: ``recomputed_for_score_probs``;
    the step's ``extra`` wins over the runner's entries."""
    record, template, _ = _cell(tmp_path, RunStats(requests=2, unique=1, cache_hits=1, recomputed=0),
                                extra={"constrained": False})
    out = record.manifest()
    assert out["engine_seconds_this_run"] == 0 and isinstance(out["engine_seconds_this_run"], int)
    assert out["model_load_seconds"] == 0.0 and out["recomputed_for_score_probs"] == 0
    assert out["constrained"] is False and out["engines_used"] == []
    two = CellRecord.of(record.cell, record.run, record.judgments, [str(template), str(template)]).manifest()
    assert two["template"] == [{"path": str(template), "sha256": file_sha256(template)}] * 2


def test_manifest_of_a_scoring_cell(tmp_path):
    stats = RunStats(requests=5, unique=4, cache_hits=0, engine_calls=4, engine_seconds=0.04, load_seconds=0.5,
                     engine={"engine": "fake"}, truncated_texts=1, engines_used=(ENGINE_X,))
    assert CellRecord.of("selfpref/nq/perplexity/m", Run({"model": "m"}, stats)).manifest() == {
        "cell": "selfpref/nq/perplexity/m", "model": {"model": "m"}, "n": 5, "unique_texts": 4, "cache_hits": 0,
        "engine_calls": 4, "seconds": 0.04, "model_load_seconds": 0.5, "engine": {"engine": "fake"},
        "cache_problems": {}, "truncated_texts": 1, "provenance": block()}
    cached = CellRecord.of("p", Run({}, RunStats(requests=1, unique=1, cache_hits=1, truncated_texts=0))).manifest()
    assert cached["engine"] is None and cached["seconds"] == 0.0 and isinstance(cached["seconds"], float)


def test_template_sha256_of_one_and_several_files(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("one")
    b.write_text("two")
    ha, hb = hashlib.sha256(b"one").hexdigest(), hashlib.sha256(b"two").hexdigest()
    assert templates_sha256([(str(a), ha)], several=False) == ha and templates_sha256([], False) is None
    both = hashlib.sha256(f"{ha}\n{hb}".encode()).hexdigest()  # sorted by path, joined by newlines
    assert templates_sha256([(str(b), hb), (str(a), ha)], True) == both
    run = Run({}, RunStats())
    assert CellRecord.of("c", run, template=[str(b), str(a)]).template_sha256 == both
