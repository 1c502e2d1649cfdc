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
