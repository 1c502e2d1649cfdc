"""A study of one's own, one folder (tests/toy_study, copied outside the
repository and named only in this test's config: `more_studies`), runs
through every shared layer without a line of them naming it: its config block
is validated and filled and its check runs, the plan counts its jobs from its
job kind, the instant engine runs them through its rules and CLI steps, its
report writes its table, the scorecard sets its paper's published number
beside the run's, the claims report gives its claim a verdict on the run's
own units, the benchmark statistics count its questions and its sample viewer
shows its cells."""

import re
import shutil

import pytest
import yaml
from wfrun import ROOT, read_tsv, snakemake

TOY = ROOT / "tests" / "toy_study"


def toy_config(work, **more):
    """A config running the toy study from its folder copied under ``work`` (no file of the repository names it)."""
    shutil.copytree(TOY, work / "my study", dirs_exist_ok=True)
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg.update(more_studies=[str(work / "my study")], studies=["toy"], toy={"numbers": 12}, cache=None,
               models={"gemma3-270m": {"engine": "instant", "model": "instant-gemma", "paper_name": "ToyModel"},
                       "qwen2.5-coder-0.5b": {"engine": "instant", "model": "instant-qwen"}})
    cfg.update(more)
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("toy")
    toy_config(work)
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


def test_its_statistics_and_viewer(run):
    table = (run / "statistics" / "tables" / "table_toy_statistics.md").read_text()
    assert "| yes | 6 |" in table and "| no | 6 |" in table
    viewer = run / "toy" / "report" / "viewer"
    assert (viewer / "index.html").is_file()
    catalog = (viewer / "data" / "catalog.js").read_text()
    assert catalog.count('"counts":{"samples":12,') == 2 and "cells/qwen2.5-coder-0.5b/parity" in catalog


def test_its_config_check_names_the_key(tmp_path):
    toy_config(tmp_path, toy={"numbers": 12, "prompt": str(tmp_path / "absent.yaml")})
    proc = snakemake(tmp_path, "-n", timeout=300)
    assert proc.returncode != 0
    said = proc.stdout + proc.stderr
    assert "config key 'toy.prompt'" in said and "absent.yaml' is not a file" in said and "Traceback" not in said


def test_no_shared_module_names_the_toy_study():
    shared = [*(ROOT / "workflow").rglob("*.py"), *(ROOT / "workflow").rglob("*.yaml"), *(ROOT / "rules").rglob("*.smk"),
              ROOT / "Snakefile"]
    named = [str(p.relative_to(ROOT)) for p in shared if re.search(r"\btoy\b", p.read_text(), re.I)]
    assert named == []


def test_the_recipe_names_every_file_of_the_folder():
    """docs/architecture.md's "Add a study" names each file the toy folder has; the folder edits no import path and
    its glue (the declaration and the rules) stays small."""
    doc = (ROOT / "docs" / "architecture.md").read_text()
    recipe = doc[doc.index("### Add a study"):doc.index("### Add a paper")]
    files = [p for p in TOY.iterdir() if p.is_file()]
    assert sorted(p.name for p in files if f"`{p.name}`" not in recipe) == []
    assert not [p.name for p in files if "sys.path" in p.read_text()]
    lines = {p.name: len(p.read_text().splitlines()) for p in files}
    assert lines["study.py"] + lines["toy.smk"] <= 69 and sum(lines.values()) <= 281, lines
