"""Integration: the self-preference branch of the real workflow, real embedded
model, real NQ passages (tiny counts)."""

import json
from pathlib import Path

import pytest
from dryrun import job_counts
from typedcopy import typed_run
from wfrun import jsonl, read_tsv, snakemake

ROOT = Path(__file__).resolve().parents[2]
MODEL = "gemma3-270m"
TABLES = ["table1_knowledge", "table2_rerank", "table3_preference", "table4_gen_by_qa", "table5_long",
          "table6_normal_true", "table7_normal_false", "table8_rag_true", "table9_rag_false",
          "table_knowledge_breakdown", "table_perplexity_anova"]


@pytest.fixture(scope="module")
def run(real_run):
    """The self-preference branch of the one real-model run (tests/workflow/conftest.py)."""
    return real_run


def test_every_table_and_figure(run):
    report = run / "results" / "selfpref" / "nq" / "report"
    for stem in TABLES:
        for ext in ("csv", "md", "tex"):
            assert (report / "tables" / f"{stem}.{ext}").stat().st_size > 0, stem
    assert (report / "figures" / "fig3_heatmaps.png").read_bytes()[:4] == b"\x89PNG"
    assert read_tsv(report / "rates.tsv")
    # the per-unit records, the comparisons, an interval where there are enough questions
    for name in ("rerank", "comparisons", "knowledge", "passages", "perplexity"):
        assert (report / f"units_{name}.parquet").stat().st_size > 0, name
    assert "| Paired comparisons | comparisons.tsv, comparisons.md | written |" in (report / "contents.md").read_text()
    assert read_tsv(report / "comparisons.tsv")
    gpt35 = next(ln for ln in (report / "tables" / "table1_knowledge.md").read_text().splitlines()
                 if ln.startswith("| gpt35 (released run) | gpt35 |"))
    assert gpt35.count(" [") >= 3  # GPT-3.5's released probes: hundreds of questions
    assert "No interval: fewer than 5 questions" in (report / "tables" / "table2_rerank.md").read_text()  # 2 questions


def test_shipped_knowledge_is_rederived_exactly(run):
    check = {r["what"]: r["value"] for r in read_tsv(run / "results/selfpref/nq/knowledge/gpt35_check.tsv")}
    assert check["level_mismatches_vs_file"] == "0"
    assert json.loads(check["distribution_derived"]) == [356, 97, 51, 56, 89, 351]
    assert check["match"] == "exact"
    # the release's Llama-2-70B-chat run, re-derived too (groups of 5, placed by gold)
    llama = {r["what"]: r["value"] for r in read_tsv(run / "results/selfpref/nq/knowledge/llama_check.tsv")}
    assert json.loads(llama["distribution_derived"]) == [524, 48, 31, 29, 39, 329]
    assert llama["grouping"] == "consecutive groups of 5" and llama["level_mismatches_vs_file"] == "0"
    report = run / "results" / "selfpref" / "nq" / "report"
    assert "PPL (released GPT-2)" in (report / "tables" / "table1_knowledge.md").read_text()
    card = read_tsv(report / "scorecard.tsv")
    runs = [r for r in card if r["ours"].startswith("released run")]
    assert {(r["model"], r["metric"]) for r in runs} >= {("GPT-3.5", "knowledge_no"), ("LLaMA", "knowledge_full"),
                                                         ("GPT-3.5", "perplexity"), ("LLaMA", "perplexity")}
    assert all(r["kind"] == "data" for r in runs)
    ppl = {r["author"]: r for r in read_tsv(report / "perplexity_released.tsv")}
    assert set(ppl) == {"human", "gpt35", "llama"} and ppl["gpt35"]["status"].startswith("not compared")


def test_cells_cover_the_design(run):
    cells = run / "results" / "selfpref" / "nq" / "cells" / MODEL
    sample = json.loads((run / "results/selfpref/nq/sample.json").read_text())
    assert len(sample["main"]) == 2 and len(sample["style"]) == 1
    rerank = jsonl(cells / "rerank" / "rag" / "judgments.jsonl")
    authors = {r["author"] for r in rerank}
    assert {"human", "gpt35", "llama"} <= authors
    assert not [r for r in rerank if ":for-" in r["pid"]]  # per-self human false passages are for generation only
    assert all(r["status"] == "ok" and 1 <= r["score"] <= 5 for r in rerank)  # constrained ###n***
    gen = jsonl(cells / "generation" / "main" / "judgments.jsonl")
    # self (gpt35) vs human and vs llama, 4 factuality combinations, 2 orders, 2 questions
    assert len(gen) == 2 * 2 * 4 * 2
    assert {(r["self_factual"], r["other_factual"]) for r in gen} == {(True, True), (True, False), (False, True),
                                                                      (False, False)}
    assert {r["method"] for r in gen if r["chosen"]} <= {"substring", "index"}
    # a GPT-self evaluator is shown the human false passage with Llama's false answer (false_for: [gpt35])
    human_false = [r["request_id"].split("|")[1] for r in gen if r["other_author"] == "human" and not r["other_factual"]]
    assert human_false and all(pid.endswith(":human:normal:F:for-gpt35") for pid in human_false)
    knowledge = jsonl(cells / "knowledge" / "levels.jsonl")
    assert len(knowledge) == 2 and all(0 <= k["level"] <= 2 for k in knowledge)
    manifest = json.loads((cells / "knowledge" / "manifest.json").read_text())
    assert manifest["n_calls"] == 4 and manifest["tries"] == 2


def test_rerun_is_free(run):
    proc = snakemake(run, "-n", "--cores", "2")
    assert proc.returncode == 0 and "Nothing to be done" in proc.stdout + proc.stderr
    # the run says which passages count as the evaluator's own
    assert "(selfpref.self): gemma3-270m -> gpt35" in proc.stdout + proc.stderr


def test_own_dataset_overlay_needs_no_code(typed):
    """examples/own_selfpref.yaml: a file in another schema, read through its
    mapping alone; the demo's nq dataset is left out (null). The typed copy's
    documented `make run CONFIG=examples/own_selfpref.yaml`."""
    out, results = typed_run(typed, "examples/own_selfpref.yaml")
    # the run's jobs (the import ran before them, for the plan, which reads it): one evaluator, no writer
    jobs = job_counts(out)
    assert jobs["selfpref_rerank"] == 2 and jobs["selfpref_compare"] == 2
    assert "selfpref_shipped_knowledge" not in jobs and "selfpref_generate" not in jobs
    assert "authority_judge" not in jobs
    assert [p.name for p in (results / "selfpref").iterdir() if p.is_dir()] == ["mine"]  # one import; no nq
    folder = results / "selfpref" / "mine"
    passages = jsonl(folder / "imported.jsonl")
    # 12 records x (human, llama3) x (true, false made by substitution)
    assert len(passages) == 48 and {p["author"] for p in passages} == {"human", "llama3"}
    assert sum(int(r["count"]) for r in read_tsv(folder / "drops.tsv")) == 0
    assert len(jsonl(folder / "questions.jsonl")) == 12
