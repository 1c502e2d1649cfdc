"""The researcher's path "my own domains with a continuous score and a
second, binary label" (examples/own_scored_domains.yaml, docs/own-data.md) through the real workflow, with ``engine: instant`` (no model): the
score is binned by the overlay's rule, the reliability label reaches every
cell's predictions, and the secondary-label table's numbers are those of the
per-item scores it lists, recomputed here by hand."""

import csv
import itertools
from collections import Counter

import pytest
import yaml
from typedcopy import typed_run
from wfrun import ROOT, read_tsv

OVERLAY = ROOT / "examples" / "own_scored_domains.yaml"
SOURCE = ROOT / "examples" / "my_scored_domains.csv"


# the cells whose predictions carry every domain's labels (judge, context, setting)
PREDICTED = [("list_score", "wo_text", "coarse"), ("list_score", "wo_text", "fine"), ("point", "wo_text", "bias"),
             ("point", "wo_text", "coarse"), ("point", "wo_text", "fine"), ("point", "wo_text", "pairs")]
MODEL = "gemma3-270m"  # the model whose numbers are recomputed by hand


def _source():
    with open(SOURCE, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _auc_by_hand(pos, neg):
    """Mann-Whitney U / (n1 n0): every positive-negative pair, ties ½."""
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


@pytest.fixture(scope="module")
def run(typed):
    """The documented `make run CONFIG=examples/own_scored_domains.yaml` of the typed copy (every model of
    config.yaml, instant): (its results folder, the copy's merged config)."""
    copy = typed[0]
    cfg = yaml.safe_load((copy / "config.yaml").read_text())
    return typed_run(typed, "examples/own_scored_domains.yaml")[1], cfg


def test_scores_are_binned_by_the_overlays_rule(run):
    results, _ = run
    da = results / "domainauth"
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
    log = (results / "logs" / "domainauth" / "build_domainauth.log").read_text()
    assert "'centrality' in 10 equally filled quantile levels" in log
    assert "reliability, host_count, country, first_seen" in log and "pagerank_10" not in log
    drops = {r["reason"]: int(r["count"]) for r in read_tsv(da / "drops.tsv")}
    assert "pagerank_10" not in drops and "above_top_level" not in drops and drops["kept"] == 400
    stats = (results / "statistics" / "tables" / "table7_statistics.md").read_text()
    assert "centrality (quantile)" in stats
    levels = (results / "statistics" / "tables" / "table7_levels.md").read_text()
    assert "quantile levels" in levels


def test_reliability_reaches_every_cells_predictions(run):
    results, cfg = run
    da = results / "domainauth"
    truth = {r["domain"]: r["reliability"] for r in _source()}
    cells = sorted(da.glob("cells/*/*/*/*/predictions.tsv"))
    assert [c.relative_to(da / "cells").parts for c in cells] == [
        (m, *cell, "predictions.tsv") for m in sorted(cfg["models"]) for cell in PREDICTED]
    for path in cells:
        for r in read_tsv(path):
            assert r["reliability"] == truth[r["domain"]]
    bias = read_tsv(da / "cells" / "gemma3-270m" / "point" / "wo_text" / "bias" / "predictions.tsv")
    assert len(bias) == 400  # bias_per_level: null scores every domain


def test_secondary_table_numbers_are_the_item_scores(run):
    from scipy.stats import spearmanr

    results, cfg = run
    report = results / "domainauth" / "report"
    items = [r for r in read_tsv(report / "item_scores.tsv") if r["judge"] == "point" and r["model"] == MODEL]
    long = {(r["judge"], r["label"], r["metric"]): r for r in read_tsv(report / "secondary.tsv") if r["model"] == MODEL}
    labelled = [r for r in items if r["reliability"]]
    pos = [float(r["pred"]) for r in labelled if r["reliability"] == "reliable"]
    neg = [float(r["pred"]) for r in labelled if r["reliability"] == "unreliable"]
    auc = long[("point", "reliability", "auc")]
    assert (int(auc["n"]), int(auc["n_pos"]), int(auc["n_neg"])) == (116, 57, 59)
    assert float(auc["value"]) == pytest.approx(_auc_by_hand(pos, neg))
    assert float(auc["lo"]) <= float(auc["value"]) <= float(auc["hi"]) and auc["boot"] == str(cfg["intervals"]["resamples"])
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
    assert set(shown) == {(m, j) for m in cfg["models"] for j in ("point", "list_score")}
    point = shown[(MODEL, "point")]
    assert float(point["reliability / AUC"]) == round(100 * float(auc["value"]), 2)
    assert point["reliability / AUC 95% CI"] == f"[{100 * float(auc['lo']):.2f}, {100 * float(auc['hi']):.2f}]"
