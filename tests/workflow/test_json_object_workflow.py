"""A researcher's own file in a shape the project does not ship: a
JSON object keyed by domain, ``{"thehindu.com": {"pagerank": 0.96,
"ground_truth": 1.0, ...}, ...}``, with a 0/1 label written as floats and
``-1`` for "not rated", run end to end through the workflow with ``engine:
instant`` by an overlay alone: no conversion script, no edited file."""

import json
import random

import pytest
import yaml
from wfrun import ROOT, read_tsv, snakemake

N = 120


def _domains() -> dict:
    rnd = random.Random(22)
    names = ["thehindu.com"] + [f"site{i:03d}.{['com', 'org', 'gov', 'co.uk'][i % 4]}" for i in range(1, N)]
    return {d: {"pagerank": round(rnd.random(), 4), "ground_truth": [0.0, 1.0, -1, 1.0, 0.0, None][i % 6],
                "country": "in" if i % 2 else "us"} for i, d in enumerate(names)}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("json_object")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    (work / "scored_domains.json").write_text(json.dumps(_domains(), indent=1))
    overlay = {
        "results": "results/json_object",
        "studies": ["domainauth"],
        "models": {"gemma3-270m": {"engine": "instant"}, "qwen2.5-coder-0.5b": None},
        "cache": None,
        "intervals": {"resamples": 200},
        "judges": ["point"], "contexts": ["wo_text"], "settings": ["fine", "bias"],
        "domainauth": {
            "source": "scored_domains.json",
            "status_filter": None,
            "label": {"column": "pagerank", "binning": "quantile"},
            "secondary": {"labels": {"ground_truth": {"values": [0, 1], "map": {-1: None}}}},
            "sampling": {"fine_lists": 2, "coarse_lists": 2, "easy_pairs": 3, "hard_pairs": 3,
                         "bias_per_level": None, "bias_per_category": 0},
        },
    }
    (work / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    proc = snakemake(work, "--cores", "2", overlays=[work / "overlay.yaml"], timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work / "results" / "json_object"


def test_json_object_keyed_by_domain_runs_end_to_end(run):
    source = _domains()
    da = run / "domainauth"
    labels = read_tsv(da / "labels.tsv")
    assert {r["domain"]: float(r["score"]) for r in labels} == {d: v["pagerank"] for d, v in source.items()}
    drops = {r["reason"]: int(r["count"]) for r in read_tsv(da / "drops.tsv")}
    assert drops["kept"] == N and sum(n for r, n in drops.items() if r != "kept") == 0
    log = (run / "logs" / "domainauth" / "build_domainauth.log").read_text()
    assert "'pagerank' in 10 equally filled quantile levels" in log and "country" in log

    # 0.0 / 1.0 match values [0, 1]; -1 is "not labelled" by the map; null is an empty cell
    expected = {d: "" if v["ground_truth"] in (-1, None) else str(int(v["ground_truth"])) for d, v in source.items()}
    assert {r["domain"]: r["ground_truth"] for r in read_tsv(da / "secondary.tsv")} == expected
    sec_drops = {r["reason"]: (r["unit"], int(r["count"])) for r in read_tsv(da / "secondary_drops.tsv")}
    assert sec_drops["ground_truth:mapped_to_unlabelled"] == ("row", N // 6)
    assert sec_drops["ground_truth:empty_cell"] == ("row", N // 6)
    assert sec_drops["ground_truth:not_labelled"] == ("domain", N // 3) and sec_drops["kept"] == ("domain", N)
    sec_log = (run / "logs" / "domainauth" / "secondary.log").read_text()
    assert "ground_truth:mapped_to_unlabelled 20" in sec_log and "80 of 120 domains labelled (0 40, 1 40)" in sec_log

    bias = read_tsv(da / "cells" / "gemma3-270m" / "point" / "wo_text" / "bias" / "predictions.tsv")
    assert len(bias) == N and all(r["ground_truth"] == expected[r["domain"]] for r in bias)
    long = {(r["judge"], r["label"], r["metric"]): r for r in read_tsv(da / "report" / "secondary.tsv")}
    auc = long[("point", "ground_truth", "auc")]
    assert (int(auc["n"]), int(auc["n_pos"]), int(auc["n_neg"])) == (80, 40, 40)
    assert "ground_truth / AUC 95% CI" in (da / "report" / "tables" / "secondary_labels.md").read_text()
