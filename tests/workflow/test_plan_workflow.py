"""Integration: `snakemake plan` of every study with an instant model and a
vLLM model that has no file and no rate here. That the plan's jobs and
requests are what a run sends, per cell and for every documented config:
tests/workflow/test_documented_commands.py."""

from pathlib import Path

import pytest
import yaml
from wfrun import read_tsv, snakemake, tiny_selfpref

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "ragauth" / "ragauth_fixture.json"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("plan")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    cfg["domainauth"]["sampling"].update(fine_lists=1, coarse_lists=1, easy_pairs=2, hard_pairs=2)
    songs = cfg["entityauth"]["datasets"]["songs"]
    cfg["entityauth"].update(lists=1, coarse_lists=1, coarse_source="lists",
                             datasets={"songs": {**songs, "source": str(ROOT / songs["source"])}})
    cfg["studies"] = ["domainauth", "entityauth", "ragauth", "selfpref"]
    cfg["ragauth"].update(source=str(FIXTURE), k=[1, 3], doc_tokens=40)
    tiny_selfpref(cfg)
    # instant replies hold no gold answer, so a written passage would be dropped: no writer here
    cfg["selfpref"]["generate"]["models"] = []
    cfg["selfpref"]["self"] = {"inst": "gpt35"}
    cfg["selfpref"]["perplexity_model"] = "inst"
    cfg["models"] = {"inst": {"engine": "instant", "model": "instant-plan"},
                     "unrated": {"engine": "vllm", "model": str(work / "no-such-model"), "studies": ["domainauth"]}}
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    plan = snakemake(work, "--cores", "2", "plan")
    assert plan.returncode == 0, plan.stderr[-4000:]
    rows = read_tsv(work / "results" / "plan.tsv")
    return work, plan, rows


def test_a_model_without_file_or_rate_is_planned_without_hours(run):
    work, plan, rows = run
    row = next(r for r in rows if r["model"] == "unrated" and r["study"] == "all")
    assert row["tokens_counted_by"].startswith("proxy: characters/4")
    assert row["engine_hours"] == "" and "no rate configured (models.unrated.rate" in row["rate_source"]
    assert int(row["prompt_tokens"]) > 0
    line = next(l for l in plan.stdout.splitlines() if l.startswith("plan: unrated:"))
    assert "no estimate: no rate configured" in line
    md = (work / "results" / "plan.md").read_text()
    assert "| **unrated** | **all** |" in md and "tokens by proxy: characters/4" in md
