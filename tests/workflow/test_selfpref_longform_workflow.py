"""Passages in long form through the workflow (examples/own_selfpref_long.yaml,
``engine: instant``): the example's long CSV and the record-wise form of the
same passages (config.yaml's NQ mapping over the released files cut to the
same seven questions) run side by side as two datasets of one run, and give
the same passages, drops and tables."""

import csv
import json
import shutil
from pathlib import Path

import pytest
import yaml
from wfrun import ROOT, jsonl, snakemake


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    # its own run, not the typed copy's `make run CONFIG=examples/own_selfpref_long.yaml`: one more dataset
    # (nq_wide, the record-wise form of the same passages) to compare with, which no documented config has
    work = tmp_path_factory.mktemp("selfpref_longform")
    shutil.copytree(ROOT / "examples", work / "examples")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    with (work / "examples" / "selfpref" / "my_passages_long.csv").open(newline="", encoding="utf-8") as fh:
        questions = {" ".join(r["question"].split()) for r in csv.DictReader(fh)}
    sources = []
    for source in cfg["selfpref"]["datasets"]["nq"]["sources"]:
        records = json.loads((ROOT / source["file"]).read_text())
        path = work / Path(source["file"]).name
        path.write_text(json.dumps([r for r in records if " ".join(r["question"].split()) in questions]))
        sources.append({**source, "file": path.name})
    overlay = {"models": {"gemma3-270m": {"engine": "instant"}, "qwen2.5-coder-0.5b": {"engine": "instant"}},
               "cache": None, "intervals": {"resamples": 100},
               # every complete and every writing-style question: both datasets' samples are all of them
               "selfpref": {"items": 6, "style_items": 6,
                            "datasets": {"nq_wide": {"sources": sources, "knowledge": {}}}}}
    (work / "fast.yaml").write_text(yaml.safe_dump(overlay))
    proc = snakemake(work, "--cores", "2", overlays=[work / "examples" / "own_selfpref_long.yaml", work / "fast.yaml"],
                     timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work / "results" / "own_selfpref_long" / "selfpref"


def test_long_and_wide_forms_give_the_same_passages_and_tables(run):
    def passages(ds):
        return sorted((json.dumps({**p, "pid": p["pid"].split("-", 1)[1], "qid": p["qid"].split("-", 1)[1]},
                                  sort_keys=True) for p in jsonl(run / ds / "imported.jsonl")))

    assert len(passages("nq_long")) == 80 and passages("nq_long") == passages("nq_wide")
    assert (run / "nq_long" / "drops.tsv").read_text() == (run / "nq_wide" / "drops.tsv").read_text()
    tables = sorted(p.name for p in (run / "nq_long" / "report" / "tables").glob("*.csv"))
    assert "table3_preference.csv" in tables and "table2_rerank.csv" in tables
    for name in tables:
        long, wide = ((run / ds / "report" / "tables" / name).read_text() for ds in ("nq_long", "nq_wide"))
        assert long == wide, name
    # the instant replies answered different prompts per question: the tables are not empty
    assert len((run / "nq_long" / "report" / "tables" / "table3_preference.csv").read_text().splitlines()) > 2
