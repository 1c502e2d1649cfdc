"""Integration: the RAGAuth branch of the real workflow with the real embedded
model, on the TEST FIXTURE tests/fixtures/ragauth/ (hand-written in Figure 5's
format; its numbers only show that the branch runs and are never results)."""

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from dryrun import job_counts
from typedcopy import bash, typed_run
from wfrun import jsonl, read_tsv, snakemake

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "ragauth" / "ragauth_fixture.json"
MODEL = "gemma3-270m"
STRATEGIES = ["no_filter", "relevance", "utility", "authority", "pagerank_oracle", "tld_prior"]




def rag_config(work: Path, source) -> dict:
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["models"]["qwen2.5-coder-0.5b"] = None  # the embedded base model is enough here
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    cfg["studies"] = ["ragauth"]
    cfg["ragauth"].update(source=str(source), k=[1, 3], doc_tokens=40)
    return cfg


@pytest.fixture(scope="module")
def run(real_run):
    """The RAGAuth branch of the one real-model run (tests/workflow/conftest.py, the fixture's file)."""
    return real_run


def cell(run, *parts):
    return run / "results" / "ragauth" / "cells" / MODEL / Path(*parts)


def test_every_cell_and_table(run):
    rows = read_tsv(run / "results" / "ragauth" / "report" / "accuracy.tsv")
    overall = {(r["strategy"], r["k"]) for r in rows if r["topic"] == "all"}
    assert overall == {("no_filter", "all")} | {(s, k) for s in STRATEGIES[1:] for k in ("1", "3")}
    for r in rows:
        if r["topic"] == "all":
            assert int(r["n"]) == 4
            assert 0 <= float(r["accuracy"]) <= 100 and r["lo"] == r["hi"] == ""  # 4 < min_units questions
    # topics from qid prefixes (MED, SCI, NEWS) and from a topic field (Q004)
    topics = {r["topic"]: int(r["n"]) for r in rows if r["strategy"] == "no_filter"}
    assert topics == {"all": 4, "medical": 1, "science": 2, "current affairs": 1}
    tables = run / "results" / "ragauth" / "report" / "tables"
    md = (tables / "table5_ragauth.md").read_text()
    for label in ("w/o Filter", "Relevance", "Utility", "Authority", "PageRank oracle", "TLD prior", "fail%"):
        assert label in md
    assert "science" in (tables / "table5_topics.md").read_text()
    assert "No interval: fewer than 5 questions behind the value." in md and "°: not distinguishable" in md
    folder = run / "results" / "ragauth" / "report"
    units = pd.read_parquet(folder / "units.parquet")
    assert len(units) == 4 * len(overall) and units["qid"].nunique() == 4
    comp = read_tsv(folder / "comparisons.tsv")
    assert len([c for c in comp if c["family"].startswith("vs w/o Filter")]) == len(overall) - 1
    assert all(c["distinct"] == "" for c in comp)  # 4 questions: no test
    assert "| Paired comparisons | comparisons.tsv, comparisons.md | written |" in (folder / "contents.md").read_text()
    assert (tables / "table5_ragauth.tex").read_text().count("\\\\") >= 2
    report = {r["what"]: int(r["count"]) for r in read_tsv(run / "results" / "ragauth" / "dataset.tsv")}
    assert report["questions"] == 4 and report["documents"] == 13
    assert report["documents_without_pagerank"] == 1 and report["questions_with_fewer_than_3_documents"] == 1


def test_constrained_replies_parse_and_are_scored(run):
    for strategy in ("relevance", "utility", "authority"):
        judgments = jsonl(cell(run, "rank", strategy, "judgments.jsonl"))
        assert [j["status"] for j in judgments] == ["ok"] * 4, judgments
        scores = jsonl(cell(run, "rank", strategy, "scores.jsonl"))
        assert [len(s["scores"]) for s in scores] == [4, 3, 4, 2]
        assert all(isinstance(x, int) and 0 <= x <= 9 for s in scores for x in s["scores"])
    answers = jsonl(cell(run, "answer", "no_filter", "all", "judgments.jsonl"))
    assert [a["qid"] for a in answers] == ["MED_EN_001", "SCI_EN_002", "NEWS_EN_003", "Q004"]
    for a in answers:
        assert a["status"] == "ok" and a["answer"] in ("yes", "no")
        assert a["correct"] == (a["answer"] == a["gold"])
    manifest = json.loads((cell(run, "answer", "no_filter", "all", "manifest.json")).read_text())
    assert manifest["n_calls"] == 4 and manifest["parse_failure_rate"] == 0.0
    assert manifest["accuracy"] == sum(a["correct"] for a in answers) / 4


def test_oracle_keeps_the_highest_pagerank_ties_in_retrieval_order(run):
    k1 = {a["qid"]: a["selected"] for a in jsonl(cell(run, "answer", "pagerank_oracle", "k1", "judgments.jsonl"))}
    assert k1["MED_EN_001"] == ["doc_002"]  # PageRank 8 twice: the earlier document wins
    k3 = {a["qid"]: a["selected"] for a in jsonl(cell(run, "answer", "pagerank_oracle", "k3", "judgments.jsonl"))}
    assert k3["NEWS_EN_003"] == ["doc_003", "doc_001", "doc_002"]  # 9, 7, 0; PageRank null last
    assert k3["Q004"] == ["doc_002", "doc_001"]  # fewer documents than k: all kept
    manifest = json.loads(cell(run, "answer", "pagerank_oracle", "k3", "manifest.json").read_text())
    assert manifest["questions_with_fewer_than_k"] == 1 and manifest["k"] == 3


def test_truncation_is_counted_in_the_manifest(run):
    relevance = json.loads(cell(run, "rank", "relevance", "manifest.json").read_text())
    assert relevance["doc_tokens"] == 40 and relevance["tokenizer"] == "llamacpp-vocab"
    assert relevance["documents_truncated"] == 1 and relevance["documents_shown"] == 13  # MED_EN_001 doc_002
    authority = json.loads(cell(run, "rank", "authority", "manifest.json").read_text())
    assert authority["documents_truncated"] == 0  # URLs only
    prompt_texts = cell(run, "rank", "relevance", "responses.jsonl")
    assert prompt_texts.exists()


def test_rerun_is_free_and_cache_shared(run):
    proc = snakemake(run, "-n", "--cores", "2")
    assert proc.returncode == 0 and "Nothing to be done" in proc.stdout + proc.stderr
    # a longer time limit or more memory (what a job killed by its scheduler asks for) reruns nothing
    overlay = run / "more_time.yaml"
    overlay.write_text(yaml.safe_dump({"models": {MODEL: {"runtime": 600, "mem_mb": 16000, "gpus": 1}}}))
    proc = snakemake(run, "-n", "--cores", "2", overlays=[overlay])
    assert proc.returncode == 0 and "Nothing to be done" in proc.stdout + proc.stderr, proc.stdout[-3000:]
    # the same kept documents give the same answer prompt: tld_prior and the
    # oracle select identical sets for some questions, answered once
    calls = sum(json.loads(m.read_text())["engine_calls"]
                for m in (run / "results" / "ragauth" / "cells" / MODEL / "answer").rglob("manifest.json"))
    hits = sum(json.loads(m.read_text())["cache_hits"]
               for m in (run / "results" / "ragauth" / "cells" / MODEL / "answer").rglob("manifest.json"))
    assert calls + hits == 4 * 11 and hits > 0


def test_without_the_file_ragauth_is_left_out_with_a_note(tmp_path):
    cfg = rag_config(tmp_path, tmp_path / "missing" / "ragauth.json")
    cfg["studies"] = ["domainauth", "ragauth"]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path, "-n", "--cores", "1")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "RAGAuth is left out of this run" in out and "missing/ragauth.json" in out
    jobs = job_counts(out)
    assert jobs["authority_judge"] > 0 and not any(rule.startswith(("ragauth", "ragauth_report")) for rule in jobs)


def test_own_data_overlay_builds_a_ragauth_file(typed):
    """examples/own_rag.yaml: questions + documents + labels -> the Figure 5
    file -> the normalised questions; the typed copy's documented `make run
    CONFIG=examples/own_rag.yaml`."""
    out, results = typed_run(typed, "examples/own_rag.yaml")
    rag = results / "ragauth"
    # one more target in the copy: the fetcher's domain list, which the run's `all` does not need (its labels
    # come from the file)
    listed = bash(typed[0], ".venv/bin/snakemake --cores 1 --configfile=examples/own_rag.yaml "
                            "results/own_rag/ragauth/build/domains.txt", timeout=300)
    assert listed.returncode == 0, listed.stderr[-3000:]
    questions = jsonl(rag / "questions.jsonl")
    assert [q["qid"] for q in questions] == ["MED_EN_001", "MED_EN_002", "SCI_EN_001", "NEWS_EN_001"]
    assert {q["topic"] for q in questions} == {"medicine", "science", "current affairs"}
    drops = {r["reason"]: int(r["count"]) for r in read_tsv(rag / "build" / "drops.tsv")}
    assert drops["unparsable_url"] == 1 and drops["kept"] == 4
    unlabelled = [d["url"] for q in questions for d in q["documents"] if d["pagerank"] is None]
    assert len(unlabelled) == 2
    domains = (rag / "build" / "domains.txt").read_text().split()
    assert "nih.gov" in domains
    # the whole branch is planned from the built file: per model, 1 + 5 x 3 answer cells
    models = yaml.safe_load((typed[0] / "config.yaml").read_text())["models"]
    assert job_counts(out)["ragauth_answer"] == 16 * len(models)
