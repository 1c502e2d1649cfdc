"""Cell evaluation glue: judgments + instances -> metric rows, against hand values."""


import pytest
from authbench.net import tld_prior_score
from authbench.studies.authority.evaluate import baseline_scorer, evaluate_cell, evaluate_scores
from authbench.studies.authority.predictions import item_predictions
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
    got = rows_by(evaluate_cell("list_rank", "fine", [inst], [{"request_id": "coarse-0", "value": perfect, "status": "ok"}]))
    assert got[("direct", "all", "rho")]["value"] == pytest.approx(1.0)
    scores = {"0": 9, "1": 8, "2": 7, "3": 6, "4": 5}  # exactly reversed
    got = rows_by(evaluate_cell("list_score", "fine", [inst], [{"request_id": "coarse-0", "value": scores, "status": "ok"}]))
    assert got[("direct", "all", "tau")]["value"] == pytest.approx(-1.0)


def test_pairs_ties_and_failures_count_wrong():
    pairs = [
        {"instance_id": "easy-0", "difficulty": "easy", "items": [{"domain": "a", "level": 8}, {"domain": "b", "level": 1}]},
        {"instance_id": "easy-1", "difficulty": "easy", "items": [{"domain": "c", "level": 0}, {"domain": "d", "level": 6}]},
        {"instance_id": "hard-0", "difficulty": "hard", "items": [{"domain": "e", "level": 3}, {"domain": "f", "level": 4}]},
    ]
    rank = [{"request_id": "easy-0:0-1", "value": "A", "status": "ok"},
            {"request_id": "easy-1:0-1", "value": None, "status": "wrong_format"},
            {"request_id": "hard-0:0-1", "value": "B", "status": "ok"}]
    got = rows_by(evaluate_cell("pair_rank", "pairs", pairs, rank))
    assert got[("direct", "easy", "acc")]["value"] == 0.5 and got[("direct", "hard", "acc")]["value"] == 1.0
    score = [{"request_id": "easy-0:0-1", "value": {"A": 7, "B": 2}, "status": "ok"},
             {"request_id": "easy-1:0-1", "value": {"A": 4, "B": 4}, "status": "ok"},
             {"request_id": "hard-0:0-1", "value": {"A": 5, "B": 3}, "status": "ok"}]
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
        {"request_id": "coarse-0:0-1", "value": {"A": 3, "B": 2}, "status": "ok"},  # 0 beats 1
        {"request_id": "coarse-0:2-1", "value": {"A": 9, "B": 6}, "status": "ok"},  # 2 beats 1
        {"request_id": "coarse-0:0-2", "value": {"A": 0, "B": 7}, "status": "ok"},  # 2 beats 0
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
    judg = [{"request_id": "item:nasa.gov", "value": 8, "status": "ok"},
            {"request_id": "item:bias-1-d0.com", "value": None, "status": "out_of_range"}]
    preds = item_predictions("point", "bias", inst, judg)
    assert preds == [{"domain": "nasa.gov", "level": 9, "category": "gov", "pred": 8.0, "kind": "score",
                      "n_scores": 1},
                     {"domain": "bias-1-d0.com", "level": 2, "category": None, "pred": None, "kind": "score",
                      "n_scores": 0}]
    prior = {"gov": 9, "gov.cn": 8, "edu": 7}
    assert tld_prior_score("moe.gov.cn", prior, 3) == 8
    assert tld_prior_score("nyc.gov", prior, 3) == 9
    assert tld_prior_score("example.co.uk", prior, 3) == 3
    r1, r2 = baseline_scorer("random", 1, None), baseline_scorer("random", 1, None)
    assert [r1(inst[0], 0), r1(inst[1], 0)] == [r2(inst[0], 0), r2(inst[1], 0)]
    assert r1(inst[0], 0) != r1(inst[1], 0)
    tld = baseline_scorer("tld_prior", 1, {"scores": prior, "default": 3})
    assert [tld(inst[0], 0), tld(inst[1], 0)] == [9, 3]  # nasa.gov by its suffix; bias-1-d0.com by the default


# --- parse modes: strict (default) vs lenient, on replies run through the real parser ----------

def judged(replies):
    """(request_id, output format, n, raw reply) -> judgment rows as the judge step writes them."""
    from authbench.llm.engines.base import Response
    from authbench.llm.runner import parse_responses

    requests = [{"request_id": rid, "output": fmt, "n": n} for rid, fmt, n, _ in replies]
    responses = [Response(rid, text, 0, 0, 0.0, "stop") for rid, _, _, text in replies]
    return parse_responses(requests, responses)


def test_list_rank_reply_without_ids_strict_vs_lenient():
    """A ListRank reply naming no id is repaired to the presentation order.
    Lenient takes it as the ranking: with the list shown best first that is
    a perfect rho = tau = 1 for a reply that ranked nothing. Strict: no
    prediction, a constant list (rho = tau = 0, counted in n_constant)."""
    inst = lst("coarse-0", [4, 3, 2, 1, 0])  # presentation order happens to be the true order
    judg = judged([("coarse-0", "ranking", 5, "I cannot rank these sources.")])
    assert judg[0]["status"] == "wrong_format" and judg[0]["value"] == [0, 1, 2, 3, 4]
    lenient = rows_by(evaluate_cell("list_rank", "fine", [inst], judg, "lenient"))
    assert lenient[("direct", "all", "rho")]["value"] == pytest.approx(1.0)
    assert lenient[("direct", "all", "tau")]["value"] == pytest.approx(1.0)
    strict = rows_by(evaluate_cell("list_rank", "fine", [inst], judg))  # strict is the default
    assert strict[("direct", "all", "rho")]["value"] == 0.0 and strict[("direct", "all", "tau")]["value"] == 0.0
    assert strict[("direct", "all", "rho")]["n_constant"] == 1 and lenient[("direct", "all", "rho")]["n_constant"] == 0


def test_list_score_reply_missing_an_id_strict_vs_lenient():
    inst = lst("coarse-0", [0, 1, 2, 3, 4])
    judg = judged([("coarse-0", "list_scores", 5, '{"0": 1, "1": 3, "2": 5, "3": 7}')])
    assert judg[0]["status"] == "missing"
    lenient = rows_by(evaluate_cell("list_score", "fine", [inst], judg, "lenient"))
    # id 4 unscored ranks last: predicted [1, 3, 5, 7, 0] vs truth [0, 1, 2, 3, 4]
    assert lenient[("direct", "all", "rho")]["value"] == pytest.approx(
        stats.spearmanr([0, 1, 2, 3, 4], [1, 3, 5, 7, 0]).statistic)  # = 0.0 (hand: d^2 = 1+1+1+1+16 = 20)
    strict = rows_by(evaluate_cell("list_score", "fine", [inst], judg, "strict"))
    assert strict[("direct", "all", "rho")]["n_constant"] == 1


def test_failed_pair_replies_count_wrong_when_strict():
    """Both letters named (bound to the last, A) and an unclosed score
    object: lenient scores their recovered values (both right here), strict
    counts both pairs wrong. A clean reply counts the same in both modes."""
    pairs = [
        {"instance_id": "easy-0", "difficulty": "easy", "items": [{"domain": "a", "level": 8}, {"domain": "b", "level": 1}]},
        {"instance_id": "hard-0", "difficulty": "hard", "items": [{"domain": "c", "level": 3}, {"domain": "d", "level": 4}]},
    ]
    rank = judged([("easy-0:0-1", "pair_choice", None, "B looks weaker, so my answer is A"),
                   ("hard-0:0-1", "pair_choice", None, "B")])
    assert [j["status"] for j in rank] == ["wrong_format", "ok"] and rank[0]["value"] == "A"
    lenient = rows_by(evaluate_cell("pair_rank", "pairs", pairs, rank, "lenient"))
    strict = rows_by(evaluate_cell("pair_rank", "pairs", pairs, rank, "strict"))
    assert lenient[("direct", "easy", "acc")]["value"] == 1.0 and strict[("direct", "easy", "acc")]["value"] == 0.0
    assert lenient[("direct", "hard", "acc")]["value"] == strict[("direct", "hard", "acc")]["value"] == 1.0
    score = judged([("easy-0:0-1", "pair_scores", None, '{"A": 8, "B": 2'), ("hard-0:0-1", "pair_scores", None, '{"A": 3, "B": 6}')])
    assert [j["status"] for j in score] == ["wrong_format", "ok"]
    assert rows_by(evaluate_cell("pair_score", "pairs", pairs, score, "lenient"))[("direct", "easy", "acc")]["value"] == 1.0
    assert rows_by(evaluate_cell("pair_score", "pairs", pairs, score, "strict"))[("direct", "easy", "acc")]["value"] == 0.0


def test_point_loose_score_and_bubble_without_parsed_comparisons():
    # PointJudge: "Score: 7" is readable but not the asked JSON: lenient 7, strict unscored
    inst = [lst("bias-0", [9])]
    judg = judged([("item:bias-0-d0.com", "score", None, "Score: 7")])
    assert item_predictions("point", "bias", inst, judg, "lenient")[0]["pred"] == 7
    assert item_predictions("point", "bias", inst, judg, "strict")[0]["pred"] is None
    # PairRank BubbleSort on a 3-list whose every reply failed: lenient keeps the
    # presentation order (values [2, 1, 0] vs truth [0, 2, 1]: rho = -0.5); strict
    # has no prediction for any item: constant, rho 0
    coarse = lst("coarse-0", [0, 4, 2])
    comps = judged([(f"coarse-0:{a}-{b}", "pair_choice", None, "no idea") for a, b in ((0, 1), (0, 2), (1, 2))])
    assert all(j["status"] == "wrong_format" and j["value"] is None for j in comps)
    lenient = rows_by(evaluate_cell("pair_rank", "coarse", [coarse], comps, "lenient"))
    assert lenient[("bubble", "all", "rho")]["value"] == pytest.approx(-0.5)
    strict = rows_by(evaluate_cell("pair_rank", "coarse", [coarse], comps, "strict"))
    assert strict[("bubble", "all", "rho")]["value"] == 0.0 and strict[("bubble", "all", "rho")]["n_constant"] == 1
    with pytest.raises(ValueError, match="parse mode"):
        evaluate_cell("pair_rank", "coarse", [coarse], comps, "loose")
