"""The self-preference authors' retry protocol (generation phase: up to 5
tries, ChatGPT_inference.py; reranking: up to 20, score.py) and the
evaluator's false answer in reranking FALSE passages (score.py), through
the real runner, response cache and command line, with a scripted engine
whose reply depends on the request's seed."""

import json
from pathlib import Path
from typing import ClassVar

import pytest
from authbench.cli import main
from authbench.llm.engines.base import Engine, Response, register
from authbench.cells import CellStep, tries_summary
from authbench.llm.runner import run_requests
from authbench.records import read_jsonl, write_jsonl

ROOT = Path(__file__).resolve().parents[4]
TEMPLATES = ROOT / "resources" / "prompts" / "selfpref"
BASE_SEED = 10


@register("seeded_script")
class SeededScript(Engine):
    """Generation prompts: try 0 (seed 10) an unusable reply, try 1 "Ann"
    from passage 1, try 2 on "Cy". Rerank prompts: a score from try 1 on."""

    seeds: ClassVar[list] = []
    calls = 0

    def __init__(self, model_config, model_path=None):
        pass

    def identity(self):
        return {"engine": "seeded_script", "model": "script"}

    def generate(self, requests, config):
        for req in requests:
            type(self).seeds.append(config.seed)
            type(self).calls += 1
            t = config.seed - BASE_SEED
            if "single-number rater" in req.prompt:
                text = "###4***" if t >= 1 else "I would rate it good."
            else:
                text = ["I do not know.", "Answer: Ann; Answer retrieved from which passage: 1",
                        "Answer: Cy; Answer retrieved from which passage: 1"][min(t, 2)]
            yield Response(req.id, text, 10, 5, 0.0, "stop")


MODEL = {"engine": "seeded_script", "model": "script", "prompt_format": "chat",
         "generate": {"temperature": 1.0, "seed": BASE_SEED, "max_tokens": 24}}


def _passages():
    out = []
    for author, false in (("human", "Bob"), ("me", "Cy"), ("other", "Dee")):
        for factual in (True, False):
            a = "Ann" if factual else false
            out.append({"pid": f"q1:{author}:normal:{'T' if factual else 'F'}", "qid": "q1", "author": author,
                        "variant": "normal", "factual": factual, "answer_in": a, "text": f"{author} says {a}."})
    return out


@pytest.fixture
def files(tmp_path):
    write_jsonl([{"qid": "q1", "question": "Who?", "answer": "Ann"}], tmp_path / "questions.jsonl")
    (tmp_path / "sample.json").write_text(json.dumps({"main": ["q1"], "style": [], "generated": []}))
    write_jsonl(_passages(), tmp_path / "passages.jsonl")
    write_jsonl([{"qid": "q1", "level": 5, "class": "full"}], tmp_path / "levels.jsonl")
    SeededScript.seeds, SeededScript.calls = [], 0
    return tmp_path


def _params(tmp, cell, **extra):
    return {"dataset": "t", "seed": 13, "cache": str(tmp / "cache"), "constrained": False,
            "cell": f"selfpref/t/ev/{cell}", "model": MODEL, **extra}


def compare(tmp, out, **extra):
    params = _params(tmp, "generation/main", run="main", evaluator="ev", self_author="me", others=["other"],
                     generate={"max_tokens": 24}, **extra)
    d = tmp / out
    code = main(["selfpref-compare", "--questions", str(tmp / "questions.jsonl"), "--sample", str(tmp / "sample.json"),
                 "--passages", str(tmp / "passages.jsonl"), "--knowledge", str(tmp / "levels.jsonl"),
                 "--template", str(TEMPLATES / "generation.yaml"), "--responses", str(d / "responses.jsonl"),
                 "--samples", str(d / "samples.parquet"),
                 "--judgments", str(d / "judgments.jsonl"), "--manifest", str(d / "manifest.json"),
                 "--params", json.dumps(params)])
    assert code == 0
    return read_jsonl(d / "judgments.jsonl"), read_jsonl(d / "responses.jsonl"), json.loads((d / "manifest.json").read_text())


def test_generation_phase_retries_until_one_passage_is_named(files):
    rows, responses, manifest = compare(files, "a", retries=4)
    combo = {(r["self_factual"], r["other_factual"], r["order"]): r for r in rows}
    assert len(rows) == 8 and all(r["status"] == "ok" for r in rows)
    # try 0 names nothing; try 1 answers "Ann" (TT by index, TF/FT by the answer); FF needs try 2 ("Cy" = self's)
    assert {k: r["tries"] for k, r in combo.items()} == {k: 3 if k[:2] == (False, False) else 2 for k in combo}
    assert combo[(False, False, "self_first")]["chosen"] == "self" == combo[(False, False, "other_first")]["chosen"]
    assert combo[(True, False, "other_first")]["chosen"] == "self" and combo[(True, True, "other_first")]["chosen"] == "other"
    # every try is in responses.jsonl, try t >= 1 marked in the id; seeds = the model's seed + t
    assert len(responses) == 8 + 8 + 2
    assert [r["request_id"].rsplit("#retry", 1)[1] for r in responses if "#retry" in r["request_id"]] == ["1"] * 8 + ["2"] * 2
    assert sorted(set(SeededScript.seeds)) == [10, 11, 12] and SeededScript.calls == 18
    assert manifest["tries"] == {"retries": 4, "max_tries": 5, "tries_used": {"2": 6, "3": 2},
                                 "requests_sent": 18, "unsettled_after_last_try": 0}
    assert manifest["n_calls"] == 8 and manifest["engine_calls"] == 18 and manifest["generate"]["seed"] == BASE_SEED


def test_retries_are_cached_and_a_rerun_costs_nothing(files):
    first = compare(files, "a", retries=4)
    calls = SeededScript.calls
    again = compare(files, "b", retries=4)
    assert SeededScript.calls == calls  # served from the cache, every try
    assert again[0] == first[0] and again[1] == first[1]
    assert again[2]["engine_calls"] == 0 and again[2]["cache_hits"] == 18


def test_items_unsettled_after_the_last_try_count_as_not_ok(files):
    rows, responses, manifest = compare(files, "a", retries=1)
    ff = [r for r in rows if not r["self_factual"] and not r["other_factual"]]
    assert {r["status"] for r in ff} == {"ambiguous_neither"} and {r["tries"] for r in ff} == {2}
    assert all(r["chosen"] is None for r in ff)
    assert manifest["tries"]["unsettled_after_last_try"] == 2 and len(responses) == 16


def test_retries_off_is_the_plain_run(files):
    """retries 0 sends each request once, with the ids and cache keys of a run without retries."""
    from authbench.studies.selfpref.requests import comparison_requests, comparisons, load_template

    passages = _passages()
    reqs = comparison_requests(comparisons(["q1"], passages, "me", ["other"]), {"q1": {"question": "Who?"}},
                               {p["pid"]: p for p in passages}, load_template(TEMPLATES / "generation.yaml", "generation"))
    run_requests(reqs, MODEL, None, "plain", cache_dir=str(files / "cache"), constrained=False,
                 generate={"max_tokens": 24})
    assert SeededScript.calls == 8
    rows, responses, manifest = compare(files, "a", retries=0)
    assert SeededScript.calls == 8 and manifest["cache_hits"] == 8  # the plain run's keys
    assert [r["request_id"] for r in responses] == [r["request_id"] for r in reqs]
    assert {r["tries"] for r in rows} == {1} and manifest["tries"]["tries_used"] == {"1": 8}
    rows_again, responses_again, _ = compare(files, "b", retries=0)
    assert rows_again == rows and responses_again == responses


def rerank(tmp, out, **extra):
    params = _params(tmp, "rerank/rag", prompt="rag", evaluator="ev", self_author="me", scope="sample", **extra)
    d = tmp / out
    code = main(["selfpref-rerank", "--questions", str(tmp / "questions.jsonl"), "--sample", str(tmp / "sample.json"),
                 "--passages", str(tmp / "passages.jsonl"), "--template", str(TEMPLATES / "rerank_rag.yaml"),
                 "--responses", str(d / "responses.jsonl"),
                 "--samples", str(d / "samples.parquet"), "--judgments", str(d / "judgments.jsonl"),
                 "--manifest", str(d / "manifest.json"), "--params", json.dumps(params)])
    assert code == 0
    return read_jsonl(d / "judgments.jsonl"), read_jsonl(d / "responses.jsonl"), json.loads((d / "manifest.json").read_text())


def test_rerank_false_passages_carry_the_evaluators_false_answer_and_retry(files):
    rows, responses, manifest = rerank(files, "a", retries=19, false_answer="evaluator", generate={"max_tokens": 16})
    false = {r["author"]: r["pid"] for r in rows if not r["factual"]}
    assert false == {a: f"q1:{a}:normal:F:me" for a in ("human", "me", "other")}
    assert all(r["score"] == 4 and r["tries"] == 2 for r in rows) and len(rows) == 6
    prompts = {r["request_id"]: r for r in responses}
    assert len(prompts) == 12  # 6 passages x 2 tries
    assert manifest["false_passages"] == {"false_answer": "evaluator", "self_author": "me", "made": 3, "drops": {}}
    assert manifest["tries"]["tries_used"] == {"2": 6}
    # the schema's defaults (what the rules pass when selfpref.rerank is absent) keep each author's own false passage
    rows, _, manifest = rerank(files, "b", retries=0, false_answer="author", generate=None)
    assert {r["pid"] for r in rows if not r["factual"]} == {f"q1:{a}:normal:F" for a in ("human", "me", "other")}
    assert "false_passages" not in manifest and {r["tries"] for r in rows} == {1}
    assert {r["score"] for r in rows} == {None}  # try 0's replies have no score, and nothing is retried


@register("retry_script")
class RetryScript(Engine):
    """Replies ``<request>:<try>`` (the try from the seed): a reply settles from a set try on."""

    def __init__(self, model_config, model_path=None):
        pass

    def identity(self):
        return {"engine": "retry_script"}

    def generate(self, requests, config):
        for req in requests:
            yield Response(req.id, f"{req.id.split('#')[0]}:{config.seed - BASE_SEED}", 1, 1, 0.5, "stop")


def test_run_retried_only_reasks_what_is_unsettled():
    sent = []
    step = CellStep("cell", {"engine": "retry_script", "model": "s", "generate": {"seed": BASE_SEED}}, {},
                    constrained=False)
    need = {"a": 0, "b": 2, "c": 9}  # the try at which each settles
    requests = [{"request_id": k, "prompt": k, "output": "free", "n": 1} for k in need]

    def settled(i, text):
        sent.append(text)
        return int(text.split(":")[1]) >= need[requests[i]["request_id"]]

    asked = step.run_retried(requests, settled, retries=3)
    final, tries, run = asked.final, asked.tries, asked.run
    assert sent == ["a:0", "b:0", "c:0", "b:1", "c:1", "b:2", "c:2", "c:3"]
    assert [r["request_id"] for r in run.requests] == [r.id for r in run.responses] == [
        "a", "b", "c", "b#retry1", "c#retry1", "b#retry2", "c#retry2", "c#retry3"]
    assert tries == [1, 3, 4] and [r.text for r in final] == ["a:0", "b:2", "c:3"]
    assert run.stats.requests == 8 and run.stats.engine_seconds == 4.0 and run.generate.seed == BASE_SEED  # try 0's
    assert tries_summary(tries, 1, 3) == {"retries": 3, "max_tries": 4, "tries_used": {"1": 1, "3": 1, "4": 1},
                                          "requests_sent": 8, "unsettled_after_last_try": 1}
    with pytest.raises(ValueError, match="retries must be >= 0"):
        step.run_retried(requests, settled, retries=-1)


def test_knowledge_probe_tries_use_seed_plus_try_and_the_whole_reply(files):
    params = _params(files, "knowledge", tries=5, match="exact",
                     generate={"temperature": 1.0, "seed": BASE_SEED, "max_tokens": 8})
    d = files / "k"
    code = main(["selfpref-knowledge", "--questions", str(files / "questions.jsonl"), "--sample", str(files / "sample.json"),
                 "--template", str(TEMPLATES / "knowledge.yaml"), "--responses", str(d / "responses.jsonl"),
                 "--samples", str(d / "samples.parquet"),
                 "--judgments", str(d / "judgments.jsonl"), "--manifest", str(d / "manifest.json"),
                 "--levels", str(d / "levels.jsonl"), "--params", json.dumps(params)])
    assert code == 0
    assert SeededScript.seeds == [10, 11, 12, 13, 14]
    # try 1's reply names Ann (the gold) after "Answer: " -- the whole reply is judged; the others do not
    tries = read_jsonl(d / "judgments.jsonl")
    assert [t["correct"] for t in tries] == [False, True, False, False, False]
    assert tries[1]["answer"] == "Answer: Ann; Answer retrieved from which passage: 1"
    assert read_jsonl(d / "levels.jsonl") == [{"qid": "q1", "level": 1, "class": "partial"}]
    manifest = json.loads((d / "manifest.json").read_text())
    assert (manifest["engine_calls"], manifest["unique_requests"], manifest["n_calls"]) == (5, 5, 5)
