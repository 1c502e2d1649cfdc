"""NQ and MS MARCO in one run (examples/selfpref_marco.yaml):
``engine: instant`` (no model), tiny counts. Every self-preference table of
the report of all datasets has both datasets' rows; the two datasets share no
folder, cell or sample; reranking scores exactly the sample (the paper's
700, here 3)."""

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from wfrun import jsonl, snakemake, tiny_selfpref

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ("nq", "marco")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    # its own run, not the typed copy's `make run CONFIG=examples/selfpref_marco.yaml`: rerank scope `sample`
    # (the paper's; the demo widens it), which no documented config runs, on 3 items
    work = tmp_path_factory.mktemp("selfpref_datasets")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["models"] = {"gemma3-270m": {**cfg["models"]["gemma3-270m"], "engine": "instant"}}
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    cfg["studies"] = ["selfpref"]
    cfg["selfpref"]["self"] = {"gemma3-270m": "gpt35"}
    marco = yaml.safe_load((ROOT / "examples" / "selfpref_marco.yaml").read_text())["selfpref"]["datasets"]["marco"]
    for source in marco["sources"]:
        source["file"] = str(ROOT / source["file"])
    marco["knowledge"] = {a: str(ROOT / f) for a, f in marco["knowledge"].items()}
    marco["released_perplexity"]["file"] = str(ROOT / marco["released_perplexity"]["file"])
    cfg["selfpref"]["datasets"]["marco"] = marco
    tiny_selfpref(cfg)
    cfg["selfpref"]["items"] = 3
    cfg["selfpref"]["rerank"]["scope"] = "sample"  # the paper's default (the demo widens it)
    cfg["intervals"]["resamples"] = 100
    (work / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))  # the datasets in order: nq, marco
    proc = snakemake(work, "--cores", "2", timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_every_table_has_both_datasets(run):
    from authbench.studies.selfpref.outputs import SELFPREF_DATASETS

    report = run / "results" / "selfpref" / "report"
    stems = [it.stem for it in SELFPREF_DATASETS.items]
    assert "table1_knowledge" in stems and "table2_rerank" in stems
    for stem in stems:
        rows = _rows(report / "tables" / f"{stem}.csv")
        assert list(rows[0])[0] == "Dataset", stem
        assert [d for d in dict.fromkeys(r["Dataset"] for r in rows)] == list(DATASETS), stem  # NQ first, as the paper
        md = (report / "tables" / f"{stem}.md").read_text()
        assert "Datasets nq, marco, one block of rows each." in md, stem
        assert (report / "tables" / f"{stem}.tex").stat().st_size > 0
    contents = (report / "contents.md").read_text()
    assert "Datasets: nq, marco." in contents and "viewer/index.html" not in contents
    # Table 1: the evaluator (its self author's passages), then below the rule the released GPT-3.5 and Llama
    # knowledge runs and Human, in both datasets
    t1 = _rows(report / "tables" / "table1_knowledge.csv")
    assert [(r["Model"], r["Passages"]) for r in t1 if r["Dataset"] == "marco"] == [
        ("gemma3-270m", "gpt35"), ("gpt35 (released run)", "gpt35"), ("llama (released run)", "llama"),
        ("Human", "human")]
    assert {r["Dataset"] for r in t1} == set(DATASETS)
    # each block equals that dataset's own report table
    for ds in DATASETS:
        own = _rows(run / "results" / "selfpref" / ds / "report" / "tables" / "table2_rerank.csv")
        block = [{k: v for k, v in r.items() if k != "Dataset"}
                 for r in _rows(report / "tables" / "table2_rerank.csv") if r["Dataset"] == ds]
        assert block == own, ds


def test_datasets_do_not_collide(run):
    root = run / "results" / "selfpref"
    samples = {ds: json.loads((root / ds / "sample.json").read_text()) for ds in DATASETS}
    assert all(q.startswith("nq-") for q in samples["nq"]["main"])
    assert all(q.startswith("marco-") for q in samples["marco"]["main"])
    for ds in DATASETS:
        assert len(samples[ds]["main"]) == 3
        rerank = jsonl(root / ds / "cells" / "gemma3-270m" / "rerank" / "rag" / "judgments.jsonl")
        # reranking scores exactly the sample: the generated question outside it is not scored
        assert {r["qid"] for r in rerank} == set(samples[ds]["main"]), ds
        assert {"human", "gpt35", "llama"} <= {r["author"] for r in rerank}
        # Table 1's passage statistics read the same questions (S4): its passages and perplexities
        units = {name: pd.read_parquet(root / ds / "report" / f"units_{name}.parquet") for name in ("passages", "perplexity")}
        assert set(units["passages"]["qid"]) == set(samples[ds]["main"]), ds
        assert set(units["perplexity"]["qid"]) <= set(samples[ds]["main"]) and len(units["perplexity"]), ds
        manifest = json.loads((root / ds / "cells" / "gemma3-270m" / "rerank" / "rag" / "manifest.json").read_text())
        assert f"selfpref/{ds}" in json.dumps(manifest)
    # MARCO's human false passage for a GPT-self evaluator carries Llama's false answer (false_for: [gpt35])
    gen = jsonl(root / "marco" / "cells" / "gemma3-270m" / "generation" / "main" / "judgments.jsonl")
    human_false = [r["request_id"].split("|")[1] for r in gen if r["other_author"] == "human" and not r["other_factual"]]
    assert human_false and all(pid.endswith(":human:normal:F:for-gpt35") for pid in human_false)
