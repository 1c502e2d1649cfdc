"""The researcher's path "my own domains with a continuous score and a
second, binary label" (examples/own_scored_domains.yaml, docs/own-data.md) through the real workflow, with ``engine: instant`` (no model): the
score is binned by the overlay's rule, the reliability label reaches every
cell's predictions, and the secondary-label table's numbers are those of the
per-item scores it lists, recomputed here by hand."""

import csv
import itertools
import shutil
from collections import Counter

import pytest
import yaml
from wfrun import ROOT, read_tsv, snakemake

OVERLAY = ROOT / "examples" / "own_scored_domains.yaml"
SOURCE = ROOT / "examples" / "my_scored_domains.csv"


def _source():
    with open(SOURCE, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _auc_by_hand(pos, neg):
    """Mann-Whitney U / (n1 n0): every positive-negative pair, ties ½."""
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("own_scores")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    (work / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "my_scored_domains.csv", work / "examples")
    # the test's own overlay: no model (instant replies), fewer lists and resamples
    fast = {"models": {"gemma3-270m": {"engine": "instant"}, "qwen2.5-coder-0.5b": None},
            "cache": None,
            "intervals": {"resamples": 200},
            "domainauth": {"sampling": {"fine_lists": 2, "coarse_lists": 2, "easy_pairs": 3, "hard_pairs": 3}},
            "settings": ["fine", "bias"]}
    (work / "fast.yaml").write_text(yaml.safe_dump(fast))
    proc = snakemake(work, "--cores", "2", overlays=[OVERLAY, work / "fast.yaml"], timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work


def test_scores_are_binned_by_the_overlays_rule(run):
    da = run / "results" / "own_scored_domains" / "domainauth"
    rows = _source()
    labels = read_tsv(da / "labels.tsv")
    assert len(labels) == len(rows) == 400  # nothing dropped: quantile levels have no top value
    scores = {r["domain"]: float(r["centrality"]) for r in rows}
    smaller = {d: sum(1 for s in scores.values() if s < scores[d]) for d in scores}
    assert {r["domain"]: int(r["level"]) for r in labels} == {d: 10 * smaller[d] // 400 for d in scores}
    assert {r["domain"]: float(r["score"]) for r in labels} == scores
    top = max(scores, key=scores.get)
    assert scores[top] == 1.0 and next(int(r["level"]) for r in labels if r["domain"] == top) == 9
    bins = read_tsv(da / "bins.tsv")
    assert [int(b["items"]) for b in bins] == [Counter(int(r["level"]) for r in labels)[lv] for lv in range(10)]
    log = (run / "results" / "own_scored_domains" / "logs" / "domainauth" / "build_domainauth.log").read_text()
    assert "'centrality' in 10 equally filled quantile levels" in log
    assert "reliability, host_count, country, first_seen" in log and "pagerank_10" not in log
    drops = {r["reason"]: int(r["count"]) for r in read_tsv(da / "drops.tsv")}
    assert "pagerank_10" not in drops and "above_top_level" not in drops and drops["kept"] == 400
    stats = (run / "results" / "own_scored_domains" / "statistics" / "tables" / "table7_statistics.md").read_text()
    assert "centrality (quantile)" in stats
    levels = (run / "results" / "own_scored_domains" / "statistics" / "tables" / "table7_levels.md").read_text()
    assert "quantile levels" in levels


def test_reliability_reaches_every_cells_predictions(run):
    da = run / "results" / "own_scored_domains" / "domainauth"
    truth = {r["domain"]: r["reliability"] for r in _source()}
    cells = sorted(da.glob("cells/*/*/*/*/predictions.tsv"))
    assert [c.relative_to(da / "cells").parts[1:4] for c in cells] == [
        ("list_score", "wo_text", "fine"), ("point", "wo_text", "bias"), ("point", "wo_text", "fine")]
    for path in cells:
        for r in read_tsv(path):
            assert r["reliability"] == truth[r["domain"]]
    bias = read_tsv(da / "cells" / "gemma3-270m" / "point" / "wo_text" / "bias" / "predictions.tsv")
    assert len(bias) == 400  # bias_per_level: null scores every domain


def test_secondary_table_numbers_are_the_item_scores(run):
    from scipy.stats import spearmanr

    report = run / "results" / "own_scored_domains" / "domainauth" / "report"
    items = [r for r in read_tsv(report / "item_scores.tsv") if r["judge"] == "point"]
    long = {(r["judge"], r["label"], r["metric"]): r for r in read_tsv(report / "secondary.tsv")}
    labelled = [r for r in items if r["reliability"]]
    pos = [float(r["pred"]) for r in labelled if r["reliability"] == "reliable"]
    neg = [float(r["pred"]) for r in labelled if r["reliability"] == "unreliable"]
    auc = long[("point", "reliability", "auc")]
    assert (int(auc["n"]), int(auc["n_pos"]), int(auc["n_neg"])) == (116, 57, 59)
    assert float(auc["value"]) == pytest.approx(_auc_by_hand(pos, neg))
    assert float(auc["lo"]) <= float(auc["value"]) <= float(auc["hi"]) and auc["boot"] == "200"
    rho = long[("point", "reliability", "rho")]
    codes = [1.0 if r["reliability"] == "reliable" else 0.0 for r in labelled]
    assert float(rho["value"]) == pytest.approx(spearmanr([float(r["pred"]) for r in labelled], codes)[0])
    primary = long[("point", "level", "rho")]
    assert int(primary["n"]) == 400
    assert float(primary["value"]) == pytest.approx(
        spearmanr([float(r["pred"]) for r in items], [int(r["level"]) for r in items])[0])
    table = (report / "tables" / "secondary_labels.md").read_text()
    assert "reliability / AUC 95% CI" in table and "primary: level / ρ" in table
    shown = {(r["Model"], r["Judge"]): r for r in csv.DictReader(open(report / "tables" / "secondary_labels.csv"))}
    assert set(shown) == {("gemma3-270m", "point"), ("gemma3-270m", "list_score")}
    point = shown[("gemma3-270m", "point")]
    assert float(point["reliability / AUC"]) == round(100 * float(auc["value"]), 2)
    assert point["reliability / AUC 95% CI"] == f"[{100 * float(auc['lo']):.2f}, {100 * float(auc['hi']):.2f}]"
