"""Cell evaluation glue: judgments + instances -> metric rows, against hand values."""


import pytest
from authbench.net import tld_prior_score
from authbench.studies.authority.evaluate import baseline_scorer, evaluate_cell, evaluate_scores, point_predictions
from scipy import stats


def lst(iid, levels, anchors=None):
    inst = {"instance_id": iid, "items": [{"domain": f"{iid}-d{i}.com", "level": lv, "coarse": lv // 2,
                                            "category": None} for i, lv in enumerate(levels)]}
    if anchors is not None:
        inst["anchors"] = anchors
    return inst


def rows_by(rows):
    return {(r["derivation"], r["difficulty"], r["metric"]): r for r in rows}


def test_point_lists_with_unscored_and_constant():
    a, b = lst("fine-0", [0, 5, 9]), lst("fine-1", [2, 7, 4])
    scores = {"fine-0-d0.com": 1, "fine-0-d1.com": None, "fine-0-d2.com": 8,  # unscored ranks last
              "fine-1-d0.com": 5, "fine-1-d1.com": 5, "fine-1-d2.com": 5}  # constant
    judg = [{"request_id": f"item:{d}", "value": v, "status": "ok"} for d, v in scores.items()]
    got = rows_by(evaluate_cell("point", "fine", [a, b], judg))
    # list a: predicted values [1, 0 (=min-1), 8] vs truth [0, 5, 9]
    rho_a = stats.spearmanr([0, 5, 9], [1, 0, 8]).statistic
    tau_a = stats.kendalltau([0, 5, 9], [1, 0, 8]).statistic
    assert got[("direct", "all", "rho")]["value"] == pytest.approx((rho_a + 0.0) / 2)
    assert got[("direct", "all", "tau")]["value"] == pytest.approx((tau_a + 0.0) / 2)
    assert got[("direct", "all", "rho")]["n"] == 2 and got[("direct", "all", "rho")]["n_constant"] == 1


def test_list_rank_and_list_score():
    inst = lst("coarse-0", [0, 1, 2, 3, 4])
    perfect = [4, 3, 2, 1, 0]  # ids best first = highest level first
    got = rows_by(evaluate_cell("list_rank", "fine", [inst], [{"request_id": "coarse-0", "value": perfect}]))
    assert got[("direct", "all", "rho")]["value"] == pytest.approx(1.0)
    scores = {"0": 9, "1": 8, "2": 7, "3": 6, "4": 5}  # exactly reversed
    got = rows_by(evaluate_cell("list_score", "fine", [inst], [{"request_id": "coarse-0", "value": scores}]))
    assert got[("direct", "all", "tau")]["value"] == pytest.approx(-1.0)


def test_pairs_ties_and_failures_count_wrong():
    pairs = [
        {"instance_id": "easy-0", "difficulty": "easy", "items": [{"domain": "a", "level": 8}, {"domain": "b", "level": 1}]},
        {"instance_id": "easy-1", "difficulty": "easy", "items": [{"domain": "c", "level": 0}, {"domain": "d", "level": 6}]},
        {"instance_id": "hard-0", "difficulty": "hard", "items": [{"domain": "e", "level": 3}, {"domain": "f", "level": 4}]},
    ]
    rank = [{"request_id": "easy-0:0-1", "value": "A"}, {"request_id": "easy-1:0-1", "value": None},
            {"request_id": "hard-0:0-1", "value": "B"}]
    got = rows_by(evaluate_cell("pair_rank", "pairs", pairs, rank))
    assert got[("direct", "easy", "acc")]["value"] == 0.5 and got[("direct", "hard", "acc")]["value"] == 1.0
    score = [{"request_id": "easy-0:0-1", "value": {"A": 7, "B": 2}}, {"request_id": "easy-1:0-1", "value": {"A": 4, "B": 4}},
             {"request_id": "hard-0:0-1", "value": {"A": 5, "B": 3}}]
    got = rows_by(evaluate_cell("pair_score", "pairs", pairs, score))
    assert got[("direct", "easy", "acc")]["value"] == 0.5 and got[("direct", "hard", "acc")]["value"] == 0.0
    point = {"a": 9, "b": 9, "c": 1, "d": 6, "e": 3, "f": 4}
    got = rows_by(evaluate_scores("pairs", "point", pairs, lambda inst, i: point[inst["items"][i]["domain"]]))
    assert got[("direct", "easy", "acc")]["value"] == 0.5 and got[("direct", "hard", "acc")]["value"] == 1.0


def test_pair_score_average_and_bubble_on_coarse_list():
    inst = lst("coarse-0", [0, 2, 4])  # coarse levels 0, 1, 2
    # comparisons (a shown as A): scores chosen so the average is (1.5, 4, 8) -> perfect order,
    # while the direct preferences contain a cycle 0>1 (A=0 gets 3 vs 2), 1>2? no: 2>1, 2>0.
    judg = [
        {"request_id": "coarse-0:0-1", "value": {"A": 3, "B": 2}},  # 0 beats 1
        {"request_id": "coarse-0:2-1", "value": {"A": 9, "B": 6}},  # 2 beats 1
        {"request_id": "coarse-0:0-2", "value": {"A": 0, "B": 7}},  # 2 beats 0
    ]
    got = rows_by(evaluate_cell("pair_score", "coarse", [inst], judg))
    # AverageScore: item0 (3+0)/2=1.5, item1 (2+6)/2=4, item2 (9+7)/2=8 -> order 2,1,0 = truth -> rho 1
    assert got[("average", "all", "rho")]["value"] == pytest.approx(1.0)
    # BubbleSort from [0,1,2]: (0,1): 0 beats 1 keep; (1,2): 2 beats 1 swap -> [0,2,1];
    # pass 2: (0,2): 2 beats 0 swap -> [2,0,1]. values: 2->2, 0->1, 1->0 -> truth [0,1,2] vs [1,0,2]
    assert got[("bubble", "all", "rho")]["value"] == pytest.approx(stats.spearmanr([0, 1, 2], [1, 0, 2]).statistic)


def test_point_predictions_and_baselines():
    inst = [lst("bias-0", [9]), lst("bias-1", [2])]
    inst[0]["items"][0].update(domain="nasa.gov", category="gov")
    judg = [{"request_id": "item:nasa.gov", "value": 8}, {"request_id": "item:bias-1-d0.com", "value": None}]
    preds = point_predictions(inst, judg)
    assert preds == [{"domain": "nasa.gov", "level": 9, "category": "gov", "pred": 8},
                     {"domain": "bias-1-d0.com", "level": 2, "category": None, "pred": None}]
    prior = {"gov": 9, "gov.cn": 8, "edu": 7}
    assert tld_prior_score("moe.gov.cn", prior, 3) == 8
    assert tld_prior_score("nyc.gov", prior, 3) == 9
    assert tld_prior_score("example.co.uk", prior, 3) == 3
    r1, r2 = baseline_scorer("random", 1, None), baseline_scorer("random", 1, None)
    assert [r1(inst[0], 0), r1(inst[1], 0)] == [r2(inst[0], 0), r2(inst[1], 0)]
    assert r1(inst[0], 0) != r1(inst[1], 0)
    tld = baseline_scorer("tld_prior", 1, {"scores": prior, "default": 3})
    assert [tld(inst[0], 0), tld(inst[1], 0)] == [9, 3]  # nasa.gov by its suffix; bias-1-d0.com by the default
