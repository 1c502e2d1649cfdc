"""engine: instant — a deterministic reply that parses, for every format,
constrained or free, marked as no model."""

import pytest

from authbench.config import GenerateConfig
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.grammars import slots_for
from authbench.llm.parse import OUTPUT_FORMATS, parse_reply

LISTS = ("ranking", "list_scores", "utility")


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
@pytest.mark.parametrize("constrained", [True, False])
def test_every_format_parses_and_is_deterministic(fmt, constrained):
    engine = create_engine({"engine": "instant", "model": "rehearsal"}, None)
    n = 10 if fmt in LISTS else None
    reqs = [Request(f"r{i}", f"prompt {i} of {fmt}", 64, slots=slots_for(fmt, n) if constrained else None,
                    output=fmt, n=n) for i in range(30)]
    first = [r.text for r in engine.generate(reqs, GenerateConfig())]
    again = [r.text for r in engine.generate(reqs, GenerateConfig())]
    assert first == again and len(set(first)) > 1  # deterministic, and not one reply for every prompt
    assert all(parse_reply(fmt, text, n).status == "ok" for text in first)


def test_free_text_and_identity():
    engine = create_engine({"engine": "instant", "model": "rehearsal"}, None)
    (resp,) = engine.generate([Request("q", "which passage?", 24, output="free")], GenerateConfig())
    assert resp.text.startswith("Answer: instant reply") and resp.text.rstrip(".")[-1] in "12"
    assert engine.identity()["not_a_model"] is True and engine.identity()["engine"] == "instant"
    (ppl,) = engine.perplexity(["four words in here"])
    assert ppl.tokens == 3


def test_its_replies_never_meet_a_models_in_the_cache():
    from authbench.llm.cache import model_identity, request_key

    spec = {"model": "some/model", "revision": "abc", "prompt_format": "chat"}
    keys = {engine: request_key(model_identity({**spec, "engine": engine}), GenerateConfig(), "p", 8, None, None)
            for engine in ("instant", "llamacpp", "openai")}
    assert keys["instant"] not in (keys["llamacpp"], keys["openai"]) and keys["llamacpp"] == keys["openai"]


def test_usage_log_records_every_step_even_a_failed_one(tmp_path, monkeypatch):
    import json

    from authbench.cli import main

    log = tmp_path / "usage.jsonl"
    monkeypatch.setenv("AUTHBENCH_USAGE_LOG", str(log))
    assert main(["fetch-urllog", "--input", str(tmp_path / "missing.csv"), "--domains", str(tmp_path / "d.tsv"),
                 "--drops", str(tmp_path / "drops.tsv"), "--params", '{"format": "csv", "url_columns": ["url"]}']) == 2
    (line,) = [json.loads(x) for x in log.read_text().splitlines()]
    assert line["step"] == "fetch-urllog" and line["exit"] == 2 and line["peak_rss_mb"] > 10
    assert line["files"]["input"].endswith("missing.csv") and line["cpu_s"] >= 0 and line["wall_s"] >= 0
