"""Integration: `snakemake plan` before a run, then the run, with the instant
engine: the plan's requests are the requests the cells sent."""

import json
from collections import defaultdict
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
    # the vLLM model cannot run here: plan it, then run the rest without it
    cfg["models"]["unrated"] = None
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work, plan, rows, proc


def _sent(work):
    """Per study: requests and engine calls over the instant model's manifests (perplexity: texts)."""
    out = defaultdict(lambda: [0, 0])
    for path in (work / "results").rglob("manifest.json"):
        m = json.loads(path.read_text())
        if "/inst/" not in f"/{m['cell']}/":
            continue
        study = m["cell"].split("/", 1)[0]
        out[study][0] += m.get("n_calls", m.get("n", 0))
        out[study][1] += m["engine_calls"]
    return out


def test_plan_counts_the_requests_the_cells_send(run):
    work, _, rows, _ = run
    planned = {r["study"]: r for r in rows if r["model"] == "inst"}
    sent = _sent(work)
    assert set(planned) == {"domainauth", "entityauth", "ragauth", "selfpref", "all"}
    for study in ("domainauth", "entityauth", "ragauth", "selfpref"):
        assert int(planned[study]["requests"]) == sent[study][0], study
    # one model, an empty cache, every cell run once: the cache computed exactly the plan's unique requests
    # (RAGAuth's answer cells keep other documents than the plan's stand-in order: counted apart)
    for study in ("domainauth", "entityauth", "selfpref"):
        assert int(planned[study]["unique_requests"]) == sent[study][1], study
    assert int(planned["all"]["cells"]) == sum(int(planned[s]["cells"]) for s in sent)
    assert planned["all"]["rate_source"] == "instant engine: no model, no time"


def test_a_model_without_file_or_rate_is_planned_without_hours(run):
    work, plan, rows, _ = run
    row = next(r for r in rows if r["model"] == "unrated" and r["study"] == "all")
    assert row["tokens_counted_by"].startswith("proxy: characters/4")
    assert row["engine_hours"] == "" and "no rate configured (models.unrated.rate" in row["rate_source"]
    assert int(row["prompt_tokens"]) > 0
    line = next(l for l in plan.stdout.splitlines() if l.startswith("plan: unrated:"))
    assert "no estimate: no rate configured" in line
    md = (work / "results" / "plan.md").read_text()
    assert "| **unrated** | **all** |" in md and "tokens by proxy: characters/4" in md


def test_the_run_ends_with_engine_time_beside_the_plan(run):
    _, _, _, proc = run
    out = proc.stdout + proc.stderr
    assert "Engine time per model (this run; every reply's tokens/s; the plan's estimate):" in out
    assert "  inst: " in out and "plan: 0 s engine + 0 s loads" in out
