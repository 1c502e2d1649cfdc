"""Position consistency (authbench.studies.authority.consistency): outcomes of
one comparison in both orders, shares, the first-position test against
scipy, Cohen's κ by hand, and list agreement against scipy's Kendall τ-b."""

import math

import pytest
from scipy import stats

from authbench.studies.authority import consistency as C


def rank(a, b, choice):
    return {"a": a, "b": b, "choice": choice}


def score(a, b, sa, sb):
    return {"a": a, "b": b, "score_a": sa, "score_b": sb}


def test_outcomes_of_one_comparison_in_both_orders():
    assert C.classify(rank(0, 1, "A"), rank(1, 0, "B"), "rank") == (C.CONSISTENT, None)  # item 0 both times
    assert C.classify(rank(0, 1, "A"), rank(1, 0, "A"), "rank") == (C.CONFLICT, "A")  # position A both times
    assert C.classify(rank(0, 1, "B"), rank(1, 0, "B"), "rank") == (C.CONFLICT, "B")
    assert C.classify(rank(0, 1, None), rank(1, 0, "A"), "rank") == (C.PARTIAL, None)
    assert C.classify(score(2, 5, 7, 7), score(5, 2, 3, 8), "score") == (C.PARTIAL, None)  # a tie
    assert C.classify(score(2, 5, 7, None), score(5, 2, 3, 8), "score") == (C.PARTIAL, None)  # unparsed
    assert C.classify(score(2, 5, 9, 1), score(5, 2, 3, 8), "score") == (C.CONSISTENT, None)
    with pytest.raises(ValueError, match="both orders"):
        C.classify(rank(0, 1, "A"), rank(0, 1, "A"), "rank")


def test_shares_sum_to_one_and_the_first_position_test_is_scipys():
    outcomes = [(C.CONSISTENT, None)] * 5 + [(C.CONFLICT, "A")] * 7 + [(C.CONFLICT, "B")] + [(C.PARTIAL, None)] * 2
    s = C.shares(outcomes)
    assert (s.n, s.share(C.CONSISTENT), s.share(C.CONFLICT), s.share(C.PARTIAL)) == (15, 5 / 15, 8 / 15, 2 / 15)
    assert sum(s.share(o) for o in C.OUTCOMES) == pytest.approx(1.0)
    assert s.first_share == 7 / 8
    assert C.first_position_test(s) == pytest.approx(stats.binomtest(7, 8, 0.5).pvalue)  # 0.0703125
    assert C.first_position_test(s) == pytest.approx(2 * 9 / 256)
    none = C.shares([])
    assert math.isnan(none.share(C.CONSISTENT)) and math.isnan(none.first_share)
    assert math.isnan(C.first_position_test(none))


def test_chance_consistency():
    assert C.chance_consistency(1.0) == 0.0 and C.chance_consistency(0.5) == 0.5
    assert C.chance_consistency(0.8) == pytest.approx(0.32)


def test_cohen_kappa_by_hand():
    assert C.cohen_kappa([(1, 1), (0, 0), (1, 1), (0, 0)]) == 1.0  # a content judge
    # an always-A judge under balanced flips: every order-2 choice is the other item
    assert C.cohen_kappa([(1, 0), (0, 1), (1, 0), (0, 1)]) == -1.0
    # 10 comparisons: 6 agree; p1 = 0.6, p2 = 0.4: pe = 0.24 + 0.24 = 0.48, κ = (0.6 - 0.48) / 0.52 = 3/13
    pairs = [(1, 1)] * 3 + [(0, 0)] * 3 + [(1, 0)] * 3 + [(0, 1)]
    assert C.cohen_kappa(pairs) == pytest.approx(3 / 13)
    assert math.isnan(C.cohen_kappa([])) and math.isnan(C.cohen_kappa([(1, 1), (1, 1)]))


def test_list_agreement_against_scipy():
    # a position-only list judge: order 1 ranks by position, order 2 (reversed) too: τ = −1, nothing alike
    n = 5
    first = [float(n - 1 - k) for k in range(n)]  # item k shown at position k: value n-1-k
    second = [float(n - 1 - pos) for pos in (C.reversed_order(n).index(k) for k in range(n))]
    assert C.list_agreement(first, second) == (pytest.approx(-1.0), 0.0)
    # ListScore with ties: τ-b as scipy computes it; 8 of 10 pairs alike (the tie in both; all but item 3 vs 0, 1)
    a, b = [7, 7, 3, 5, 1], [6, 6, 2, 9, 1]
    tau, alike = C.list_agreement(a, b)
    assert tau == pytest.approx(stats.kendalltau(a, b).statistic)
    assert alike == pytest.approx(8 / 10)
    assert C.reversed_order(3) == [2, 1, 0]  # the middle item stays in place
    with pytest.raises(ValueError, match="same items"):
        C.list_agreement([1.0], [1.0])


# --- a cell in both orders: scripted judges through the judges' own calls ------------------------------------

from authbench.errors import InputError  # noqa: E402
from authbench.studies.authority.diagnostics import ValidityRule  # noqa: E402
from authbench.studies.authority.judges import judge_of  # noqa: E402


def lists(n_lists=6, n=5):
    """Coarse lists of ``n`` items whose level is a shuffle of 0..n-1 (distinct levels)."""
    import random

    out = []
    for k in range(n_lists):
        levels = list(range(n))
        random.Random(k).shuffle(levels)
        out.append({"instance_id": f"l{k}", "difficulty": "all",
                    "items": [{"domain": f"d{k}{i}.com", "coarse": lv, "level": lv} for i, lv in enumerate(levels)]})
    return out


def pairs(n_pairs=12):
    return [{"instance_id": f"p{k}", "difficulty": "easy" if k % 2 else "hard",
             "items": [{"domain": f"a{k}.com", "level": 3 + k % 3}, {"domain": f"b{k}.com", "level": 7 - k % 2}][::1 - 2 * (k % 2)]}
            for k in range(n_pairs)]


def run(judge_name, setting, instances, reply):
    """Both orders' judgments of a cell whose judge replies ``reply(items shown)``."""
    judge = judge_of(judge_name)
    out = []
    for order in ("seeded", "reversed"):
        calls = judge.order_calls(setting, instances, 13, order)
        out.append([{"request_id": rid, "status": "ok",
                     "value": reply([instances[k]["items"][p] for p in positions])} for rid, k, positions in calls])
    return judge, out


def by_metric(rows):
    return {(r["derivation"], r["metric"]): r for r in rows}


def always_a(shown):
    return "A"


def by_content(shown):  # PairRank: the truly higher item, whichever position it is shown in
    return "A" if shown[0]["level"] > shown[1]["level"] else "B"


@pytest.mark.parametrize("setting,make", [("pairs", pairs), ("coarse", lists)])
def test_a_position_only_pair_judge_is_never_consistent_and_is_flagged(setting, make):
    instances = make()
    judge, (first, second) = run("pair_rank", setting, instances, always_a)
    units = []
    got = by_metric(C.both_orders_rows(judge, setting, instances, first, second, "strict", units))
    assert got[(C.DERIVATION, "consistency")]["value"] == 0.0
    assert got[(C.DERIVATION, "conflict")]["value"] == 1.0 and got[(C.DERIVATION, "partial")]["value"] == 0.0
    assert got[(C.DERIVATION, "first_share")]["value"] == 1.0
    n_comparisons = got[(C.DERIVATION, "first_p")]["n"]
    assert got[(C.DERIVATION, "first_p")]["value"] == pytest.approx(2 * 0.5 ** n_comparisons)
    assert got[(C.DERIVATION, "both_acc")]["value"] == 0.0
    assert got[(C.DERIVATION, "chance_consistency")]["value"] == 0.0  # always A: 2a(1-a) = 0
    kappa = got[("validity", C.KAPPA)]
    assert kappa["value"] <= 0 and kappa["n"] == n_comparisons
    assert ValidityRule().reasons("pair_rank", {C.KAPPA: (kappa["value"], kappa["n"])})
    # one unit per instance, each metric's value the mean of its units
    cons = [u for u in units if u["metric"] == "consistency"]
    assert sorted(u["unit"] for u in cons) == sorted(i["instance_id"] for i in instances)


@pytest.mark.parametrize("setting,make", [("pairs", pairs), ("coarse", lists)])
def test_a_judge_that_reads_the_items_is_consistent(setting, make):
    instances = make()
    judge, (first, second) = run("pair_rank", setting, instances, by_content)
    got = by_metric(C.both_orders_rows(judge, setting, instances, first, second))
    assert got[(C.DERIVATION, "consistency")]["value"] == 1.0 and got[(C.DERIVATION, "conflict")]["value"] == 0.0
    assert got[(C.DERIVATION, "both_acc")]["value"] == 1.0 and got[(C.DERIVATION, "acc_consistent")]["value"] == 1.0
    assert math.isnan(got[(C.DERIVATION, "first_p")]["value"])  # no conflict
    assert got[("validity", C.KAPPA)]["value"] == 1.0


def test_pair_score_averaged_over_both_orders_undoes_a_pull_towards_a():
    """Wang et al.'s balanced calibration: a judge that adds 3 to position A and scores each item by its level
    otherwise is right once both orders are averaged, and wrong in one order where the gap is below 3."""
    instances = lists(4, 5)
    judge, (first, second) = run("pair_score", "coarse", instances,
                                 lambda shown: {"A": shown[0]["level"] + 3, "B": shown[1]["level"]})
    got = by_metric(C.both_orders_rows(judge, "coarse", instances, first, second))
    assert got[(C.DERIVATION, "balanced_acc")]["value"] == 1.0
    assert got[(C.DERIVATION, "rho")]["value"] == pytest.approx(1.0)  # AverageScore over both orders
    # of the 10 pairs of levels 0..4: gaps 1 and 2 (7 pairs) flip with the order (conflicts), gap 3 (2 pairs)
    # ties when the lower item is A (partial), gap 4 (1 pair) is right in both orders
    assert got[(C.DERIVATION, "conflict")]["value"] == pytest.approx(7 / 10)
    assert got[(C.DERIVATION, "partial")]["value"] == pytest.approx(2 / 10)
    assert got[(C.DERIVATION, "both_acc")]["value"] == pytest.approx(1 / 10)


def test_a_position_only_list_judge_has_tau_minus_one():
    instances = lists(6, 5)
    judge, (first, second) = run("list_rank", "coarse", instances, lambda shown: list(range(len(shown))))
    got = by_metric(C.both_orders_rows(judge, "coarse", instances, first, second))
    assert got[(C.DERIVATION, "list_tau")]["value"] == pytest.approx(-1.0)
    assert got[(C.DERIVATION, "list_alike")]["value"] == 0.0
    assert got[(C.DERIVATION, "consistency")]["value"] == 0.0 and got[(C.DERIVATION, "first_share")]["value"] == 1.0
    assert got[(C.DERIVATION, "lists_dropped")]["value"] == 0.0
    assert ValidityRule().reasons("list_rank", {C.KAPPA: (got[("validity", C.KAPPA)]["value"],
                                                         got[("validity", C.KAPPA)]["n"])})
    # ListScore by content (ties included), one list unparsed in the reversed order: dropped and counted
    judge, (first, second) = run("list_score", "coarse", instances,
                                 lambda shown: {str(i): it["level"] // 2 for i, it in enumerate(shown)})
    second[0] = {**second[0], "status": "parse_error", "value": None}
    got = by_metric(C.both_orders_rows(judge, "coarse", instances, first, second))
    assert got[(C.DERIVATION, "list_tau")]["value"] == pytest.approx(1.0)
    assert got[(C.DERIVATION, "list_alike")]["value"] == 1.0
    assert got[(C.DERIVATION, "lists_dropped")]["value"] == 1.0 and got[(C.DERIVATION, "list_tau")]["n"] == 5
    # levels 0..4 // 2 = 0,0,1,1,2: two tied pairs of ten are partial in both orders
    assert got[(C.DERIVATION, "partial")]["value"] == pytest.approx(2 / 10)
    assert got[(C.DERIVATION, "consistency")]["value"] == pytest.approx(8 / 10)


def test_judgments_that_are_not_one_cells_two_orders_are_a_named_error():
    instances = pairs(3)
    judge, (first, _) = run("pair_rank", "pairs", instances, always_a)
    with pytest.raises(InputError, match="no reply to p0:1-0"):
        C.both_orders_rows(judge, "pairs", instances, first, first)
    seeded = {"cell": "domainauth/m/pair_rank/wo_text/pairs", "instances": {"sha256": "x"}, "model": {"model": "m"},
              "template": {"sha256": "t"}}
    C.check_pair(seeded, {**seeded, "cell": seeded["cell"] + C.ORDER_SUFFIX}, "a.json", "b.json")
    with pytest.raises(InputError, match="a.json .* b.json .*not a cell and its reversed job"):
        C.check_pair(seeded, seeded, "a.json", "b.json")
    with pytest.raises(InputError, match="disagree on instances sha256"):
        C.check_pair(seeded, {**seeded, "cell": seeded["cell"] + C.ORDER_SUFFIX, "instances": {"sha256": "y"}},
                     "a.json", "b.json")


def test_the_viewers_twins_pair_each_request_with_its_other_order_and_outcome():
    instances = pairs(4)
    judge, (first, second) = run("pair_rank", "pairs", instances, always_a)
    twins = C.twin_rows(judge, instances, first, second)
    assert [(t["request_id"], t["twin_request_id"], t["outcome"]) for t in twins] == \
        [(f"p{k}:0-1", f"p{k}:1-0", C.CONFLICT) for k in range(4)]
    assert {t["request_id"] for t in twins} == {j["request_id"] for j in first}
    assert {t["twin_request_id"] for t in twins} == {j["request_id"] for j in second}
    # a list: its worst item pair (ties in both orders are partial, a content judge never conflicts);
    # a list without a usable reply in an order: partial
    lst = lists(3, 5)
    judge, (first, second) = run("list_score", "coarse", lst,
                                 lambda shown: {str(i): it["level"] // 2 for i, it in enumerate(shown)})
    second[2] = {**second[2], "status": "parse_error", "value": None}
    assert [(t["request_id"], t["twin_request_id"], t["outcome"]) for t in C.twin_rows(judge, lst, first, second)] \
        == [("l0", "l0", C.PARTIAL), ("l1", "l1", C.PARTIAL), ("l2", "l2", C.PARTIAL)]
    judge, (first, second) = run("list_rank", "coarse", lst, lambda shown: list(range(len(shown))))
    assert {t["outcome"] for t in C.twin_rows(judge, lst, first, second)} == {C.CONFLICT}
    judge, (first, second) = run("list_score", "coarse", lst,
                                 lambda shown: {str(i): it["level"] for i, it in enumerate(shown)})
    assert {t["outcome"] for t in C.twin_rows(judge, lst, first, second)} == {C.CONSISTENT}
