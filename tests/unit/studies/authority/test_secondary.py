"""Secondary labels: per-item judge scores of every judge (predictions.py),
Spearman's ρ and ROC AUC against hand computations, the seeded percentile
bootstrap against a recomputation, and the long rows and table."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from authbench.seeding import rng
from authbench.studies.authority.labels import secondary_specs
from authbench.studies.authority.predictions import item_predictions
from authbench.studies.authority.secondary import (
    bootstrap,
    item_scores,
    roc_auc,
    secondary_rows,
    spearman,
    table_secondary,
)
from scipy.stats import spearmanr

RELIABILITY = secondary_specs({"labels": {"reliability": {"values": ["unreliable", "reliable"]}}})


def _auc_by_hand(pos, neg):
    """Mann-Whitney U / (n1 n0): every positive-negative pair, a tie counts ½."""
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg)) / (len(pos) * len(neg))


def test_spearman_with_ties_by_hand():
    # ranks of y with the tie: 1, 2, 3.5, 5, 3.5; deviations (-2,-1,0,1,2) and (-2,-1,.5,2,.5):
    # sum of products 8, sums of squares 10 and 9.5 -> rho = 8 / sqrt(95)
    x, y = [1, 2, 3, 4, 5], [5, 6, 7, 8, 7]
    assert spearman(x, y) == pytest.approx(8 / math.sqrt(95)) == pytest.approx(spearmanr(x, y)[0])
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3])) and math.isnan(spearman([1], [2]))


def test_roc_auc_is_mann_whitney_u_over_n1_n0():
    # positives 0.9, 0.5, 0.5 vs negatives 0.5, 0.2: 1 + 1 + .5 + 1 + .5 + 1 = 5 of 6 pairs
    scores = [0.9, 0.5, 0.5, 0.5, 0.2]
    positive = [True, True, True, False, False]
    assert roc_auc(scores, positive) == pytest.approx(5 / 6) == pytest.approx(_auc_by_hand([.9, .5, .5], [.5, .2]))
    assert roc_auc([1, 2, 3], [False, True, True]) == 1.0 and roc_auc([1, 2, 3], [True, False, False]) == 0.0
    assert math.isnan(roc_auc([1, 2], [True, True]))
    r = np.random.default_rng(5)
    s, p = r.integers(0, 10, 60).astype(float), r.random(60) < 0.4  # many ties
    assert roc_auc(s, p) == pytest.approx(_auc_by_hand(s[p], s[~p]))


def test_bootstrap_is_seeded_percentile_over_item_resamples():
    x = [3.0, 7.0, 7.0, 1.0, 9.0, 4.0, 6.0, 2.0]
    y = [0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    parts = (13, "secondary", "m", "point", "wo_text", "reliability")
    got = bootstrap(x, y, 300, parts, binary=True)
    # recomputed: the same generator, the same draws, scipy's rho and a pairwise AUC per resample
    gen = np.random.default_rng(rng(*parts).getrandbits(64))
    idx = gen.integers(0, len(x), size=(300, len(x)))
    xs, ys = np.asarray(x)[idx], np.asarray(y)[idx]
    rhos = [spearmanr(a, b)[0] if len(set(a)) > 1 and len(set(b)) > 1 else math.nan for a, b in zip(xs, ys)]
    aucs = [_auc_by_hand(a[b == 1], a[b == 0]) if 0 < b.sum() < len(b) else math.nan for a, b in zip(xs, ys)]
    for name, draws in (("rho", rhos), ("auc", aucs)):
        ok = [d for d in draws if not math.isnan(d)]
        value, low, high, defined = got[name]
        assert defined == len(ok) and defined < 300  # resamples of one class only are left out
        assert (low, high) == pytest.approx(tuple(np.percentile(ok, [2.5, 97.5])))
    assert got["rho"][0] == pytest.approx(spearmanr(x, y)[0])
    assert got["auc"][0] == pytest.approx(_auc_by_hand([7, 7, 9, 6, 2], [3, 1, 4]))
    assert bootstrap(x, y, 300, parts, binary=True) == got
    assert bootstrap(x, y, 300, (*parts[:-1], "other"), binary=True)["rho"] != got["rho"]
    assert set(bootstrap(x, y, 10, parts, binary=False)) == {"rho"}
    assert bootstrap([], [], 10, parts, binary=True)["auc"][3] == 0


# --- per-item predictions of every judge ------------------------------------------------------

def _item(domain, level, category=""):
    return {"domain": domain, "level": level, "coarse": level // 2, "category": category, "text": ""}


LISTS = [{"instance_id": "fine-00000", "items": [_item("a.com", 1), _item("b.com", 5), _item("c.gov", 9, "gov")]},
         {"instance_id": "fine-00001", "items": [_item("d.com", 0), _item("a.com", 1), _item("e.com", 8)]}]


def _by_domain(rows):
    return {r["domain"]: (r["pred"], r["n_scores"]) for r in rows}


def test_point_predictions_are_the_parsed_scores():
    judgments = [{"request_id": "item:a.com", "value": 4, "status": "ok"},
                 {"request_id": "item:b.com", "value": 7, "status": "ok"},
                 {"request_id": "item:c.gov", "value": 12, "status": "out_of_range"},
                 {"request_id": "item:d.com", "value": 0, "status": "ok"},
                 {"request_id": "item:e.com", "value": 9, "status": "ok"}]
    rows = item_predictions("point", "fine", LISTS, judgments)
    assert [r["domain"] for r in rows] == ["a.com", "b.com", "c.gov", "d.com", "e.com"]
    assert _by_domain(rows)["a.com"] == (4.0, 1) and _by_domain(rows)["c.gov"] == (None, 0)  # strict
    assert _by_domain(item_predictions("point", "fine", LISTS, judgments, "lenient"))["c.gov"] == (12.0, 1)
    assert rows[2]["category"] == "gov" and rows[0]["category"] is None and rows[0]["kind"] == "score"


def test_list_score_predictions_average_an_items_lists():
    judgments = [{"request_id": "fine-00000", "value": {"0": 2, "1": 6, "2": 9}, "status": "ok"},
                 {"request_id": "fine-00001", "value": {"0": 1, "1": 5, "2": 8}, "status": "ok"}]
    got = _by_domain(item_predictions("list_score", "fine", LISTS, judgments))
    assert got == {"a.com": (3.5, 2), "b.com": (6.0, 1), "c.gov": (9.0, 1), "d.com": (1.0, 1), "e.com": (8.0, 1)}


def test_list_rank_predictions_are_positions_as_fractions():
    # list 0 ranked c.gov > a.com > b.com: 1, 0.5, 0; list 1 failed (strict: no value)
    judgments = [{"request_id": "fine-00000", "value": [2, 0, 1], "status": "ok"},
                 {"request_id": "fine-00001", "value": [2, 1, 0], "status": "repetition"}]
    rows = item_predictions("list_rank", "fine", LISTS, judgments)
    assert _by_domain(rows) == {"a.com": (0.5, 1), "b.com": (0.0, 1), "c.gov": (1.0, 1), "d.com": (None, 0),
                                "e.com": (None, 0)}
    assert rows[0]["kind"] == "rank"
    lenient = _by_domain(item_predictions("list_rank", "fine", LISTS, judgments, "lenient"))
    assert (lenient["a.com"], lenient["d.com"], lenient["e.com"]) == ((0.5, 2), (0.0, 1), (1.0, 1))  # list 1: e > a > d


def test_pair_judges_give_average_scores_and_bubble_positions():
    one = [LISTS[0]]
    scores = [{"request_id": "fine-00000:0-1", "value": {"A": 3, "B": 6}, "status": "ok"},
              {"request_id": "fine-00000:0-2", "value": {"A": 2, "B": 9}, "status": "ok"},
              {"request_id": "fine-00000:1-2", "value": {"A": 5, "B": 8}, "status": "wrong_format"}]
    # AverageScore: a.com (3 + 2) / 2, b.com 6 (the failed comparison gives nothing under strict), c.gov 9
    assert _by_domain(item_predictions("pair_score", "fine", one, scores)) == {
        "a.com": (2.5, 1), "b.com": (6.0, 1), "c.gov": (9.0, 1)}
    choices = [{"request_id": "fine-00000:0-1", "value": "B", "status": "ok"},
               {"request_id": "fine-00000:0-2", "value": "B", "status": "ok"},
               {"request_id": "fine-00000:1-2", "value": "B", "status": "ok"}]
    # c.gov beats both, b.com beats a.com: BubbleSort c > b > a
    assert _by_domain(item_predictions("pair_rank", "fine", one, choices)) == {
        "a.com": (0.0, 1), "b.com": (0.5, 1), "c.gov": (1.0, 1)}
    pairs = [{"instance_id": "hard-00000", "difficulty": "hard", "items": [_item("a.com", 1), _item("b.com", 3)]}]
    assert _by_domain(item_predictions("pair_score", "pairs", pairs, [
        {"request_id": "hard-00000:0-1", "value": {"A": 4, "B": 7}, "status": "ok"}])) == {
        "a.com": (4.0, 1), "b.com": (7.0, 1)}
    with pytest.raises(ValueError, match="pair_rank on pairs gives no per-item score"):
        item_predictions("pair_rank", "pairs", pairs, [])


# --- item scores, long rows, table ------------------------------------------------------------

def _preds(rows):
    base = {"model": "m", "context": "wo_text", "judge": "point", "kind": "score", "category": ""}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_item_scores_weight_each_cells_values():
    a = {"domain": "a.com", "level": 1, "reliability": "reliable"}
    preds = _preds([{**a, "setting": "fine", "pred": 4.0, "n_scores": 1},
                    {**a, "setting": "coarse", "pred": 7.0, "n_scores": 2},
                    {"setting": "fine", "domain": "b.com", "level": 3, "pred": None, "n_scores": 0, "reliability": ""}])
    got = item_scores(preds).set_index("domain")
    assert got.loc["a.com", "pred"] == pytest.approx((4 + 2 * 7) / 3) and got.loc["a.com", "n_scores"] == 3
    assert math.isnan(got.loc["b.com", "pred"]) and got.loc["a.com", "reliability"] == "reliable"


def test_secondary_rows_and_table():
    rows = [{"setting": "bias", "domain": f"d{i}.com", "level": lv, "pred": p, "n_scores": int(p is not None),
             "reliability": rel}
            for i, (lv, p, rel) in enumerate([(0, 1.0, "unreliable"), (2, 3.0, "reliable"), (4, 2.0, "unreliable"),
                                              (6, 8.0, "reliable"), (8, None, "reliable"), (9, 9.0, "")])]
    scores = item_scores(_preds(rows))
    long = pd.DataFrame(secondary_rows(scores, RELIABILITY, 50, 13))
    got = {(r["label"], r["metric"]): r for r in long.to_dict("records")}
    assert set(got) == {("level", "rho"), ("reliability", "rho"), ("reliability", "auc")}
    assert got[("level", "rho")]["n"] == 5 and got[("level", "rho")]["unscored"] == 1
    assert got[("level", "rho")]["value"] == pytest.approx(spearmanr([0, 2, 4, 6, 9], [1, 3, 2, 8, 9])[0])
    auc = got[("reliability", "auc")]
    assert (auc["n"], auc["n_pos"], auc["n_neg"], auc["unscored"]) == (4, 2, 2, 1)
    assert auc["value"] == pytest.approx(_auc_by_hand([3.0, 8.0], [1.0, 2.0])) == 1.0
    spec = table_secondary(long, RELIABILITY, 50)
    row = spec.values.loc[("m", "point", "wo_text")]
    assert row[("reliability", "AUC")] == 100.0 and row[("reliability", "n")] == 4
    assert spec.entries.loc[("m", "point", "wo_text"), ("", "scores")] == "score"
    assert spec.entries.loc[("m", "point", "wo_text"), ("reliability", "AUC 95% CI")].startswith("[")


def test_bias_cell_predictions_are_table_8s_rows():
    """A bias cell (one item per instance) gives each domain its PointJudge
    score, its level and category: what Table 8 reads."""
    inst = [{"instance_id": f"bias-{i:05d}", "items": [it]} for i, it in enumerate(LISTS[0]["items"])]
    judgments = [{"request_id": "item:a.com", "value": 4, "status": "ok"},
                 {"request_id": "item:b.com", "value": None, "status": "wrong_format"},
                 {"request_id": "item:c.gov", "value": 8, "status": "ok"}]
    rows = item_predictions("point", "bias", inst, judgments)
    assert [(r["domain"], r["level"], r["category"], r["pred"]) for r in rows] == \
        [("a.com", 1, None, 4.0), ("b.com", 5, None, None), ("c.gov", 9, "gov", 8.0)]