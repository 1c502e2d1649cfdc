"""A study of one's own, registered from outside the package (tests/toy_study,
named only in this test's config: `more_studies`), runs through every shared
layer without a line of them naming it: its config block is validated and
filled, the plan counts its cells, the instant engine runs them through its
rules and CLI steps, its report writes its table, the scorecard sets its
paper's published number beside the run's and the claims report gives its
claim a verdict on the run's own units."""

import re

import pytest
import yaml
from wfrun import ROOT, read_tsv, snakemake

TOY = ROOT / "tests" / "toy_study"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("toy")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg.update(more_studies=[str(TOY / "study.py")], studies=["toy"], toy={"numbers": 12}, cache=None,
               models={"gemma3-270m": {"engine": "instant", "model": "instant-gemma", "paper_name": "ToyModel"},
                       "qwen2.5-coder-0.5b": {"engine": "instant", "model": "instant-qwen"}})
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    plan = snakemake(work, "--cores", "2", "plan", timeout=900)
    assert plan.returncode == 0, plan.stderr[-4000:]
    proc = snakemake(work, "--cores", "2", timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work / "results"


def test_the_plan_counts_the_toy_cells(run):
    rows = [r for r in read_tsv(run / "plan.tsv") if r["study"] == "toy"]
    assert {r["model"] for r in rows} == {"gemma3-270m", "qwen2.5-coder-0.5b"}
    assert all(int(r["requests"]) == 12 and int(r["cells"]) == 1 for r in rows)
    cells = [r for r in read_tsv(run / "plan_cells.tsv") if r["study"] == "toy"]
    assert sorted(r["cell"] for r in cells) == ["toy/gemma3-270m/parity", "toy/qwen2.5-coder-0.5b/parity"]


def test_the_cells_ran_through_the_shared_cell_step(run):
    for model in ("gemma3-270m", "qwen2.5-coder-0.5b"):
        cell = run / "toy" / "cells" / model / "parity"
        assert len((cell / "judgments.jsonl").read_text().splitlines()) == 12
        assert (cell / "samples.parquet").is_file() and (cell / "manifest.json").is_file()


def test_report_scorecard_and_claims(run):
    report = run / "toy" / "report"
    table = (report / "tables" / "table1_toy.md").read_text()
    assert "gemma3-270m" in table and "qwen2.5-coder-0.5b" in table
    # the scorecard sets the toy paper's number beside the model named ToyModel
    scorecard = read_tsv(report / "scorecard.tsv")
    assert [(r["model"], r["published"]) for r in scorecard if r["model"] == "ToyModel"] == [("ToyModel", "50")]
    claims = read_tsv(report / "claims.tsv")
    assert [c["claim"] for c in claims] == ["TOY-01"]
    # the claim ranges over this run's models: one case each, every one with a verdict or a reason
    cases = read_tsv(report / "claims_cells.tsv")
    assert len(cases) == 2 and all(c["status"] for c in cases)
    assert "Toy paper" in (report / "claims.md").read_text()


def test_no_shared_module_names_the_toy_study():
    shared = [*(ROOT / "workflow").rglob("*.py"), *(ROOT / "workflow").rglob("*.yaml"), *(ROOT / "rules").rglob("*.smk"),
              ROOT / "Snakefile"]
    named = [str(p.relative_to(ROOT)) for p in shared if re.search(r"\btoy\b", p.read_text(), re.I)]
    assert named == []
