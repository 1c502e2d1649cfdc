"""Unit tests for authbench.studies.authority.metrics (hand-computed values, cross-checked with scipy)."""

import math

import numpy as np
import pytest
from authbench.studies.authority.metrics import (
    accuracy,
    bias_by_level,
    choice_correct,
    list_correlation,
    mean_list_correlation,
    pair_correct,
)
from authbench.studies.authority.ranking import ranking_to_values, scores_to_predicted_values
from scipy import stats

TIES_TRUE = [0, 1, 2, 3, 4]
TIES_PRED = [1, 1, 2, 3, 3]
# Spearman: pred ranks [1.5,1.5,3,4.5,4.5], true ranks [1..5]
#   deviations (-2,-1,0,1,2) and (-1.5,-1.5,0,1.5,1.5): cov sum 9, ss 10 and 9
#   rho = 9 / sqrt(90)
TIES_RHO = 9 / math.sqrt(90)
# Kendall tau-b: 10 pairs, 2 tied in pred, 8 concordant, 0 discordant
#   tau_b = 8 / sqrt(10 * 8)
TIES_TAU = 8 / math.sqrt(80)


# --------------------------------------------------------------------------- #
# list correlation
# --------------------------------------------------------------------------- #
def test_perfect_order():
    out = list_correlation([0, 1, 2, 3], [10, 20, 30, 40])
    assert out == {"rho": pytest.approx(1.0), "tau": pytest.approx(1.0), "constant": False}


def test_reversed_order():
    out = list_correlation([0, 1, 2, 3], [4, 3, 2, 1])
    assert out["rho"] == pytest.approx(-1.0)
    assert out["tau"] == pytest.approx(-1.0)
    assert out["constant"] is False


def test_ties_in_predictions_hand_and_scipy():
    out = list_correlation(TIES_TRUE, TIES_PRED)
    assert out["rho"] == pytest.approx(TIES_RHO)
    assert out["tau"] == pytest.approx(TIES_TAU)
    assert out["rho"] == pytest.approx(stats.spearmanr(TIES_TRUE, TIES_PRED).statistic)
    assert out["tau"] == pytest.approx(stats.kendalltau(TIES_TRUE, TIES_PRED).statistic)
    assert out["constant"] is False


def test_mixed_order_against_scipy():
    true = [5, 2, 9, 0, 7, 3]
    pred = [4.0, 1.0, 2.5, 0.0, 4.0, 3.0]
    out = list_correlation(true, pred)
    assert out["rho"] == pytest.approx(stats.spearmanr(true, pred).statistic)
    assert out["tau"] == pytest.approx(stats.kendalltau(true, pred, variant="b").statistic)


def test_constant_predictions():
    assert list_correlation([0, 1, 2], [5, 5, 5]) == {"rho": 0.0, "tau": 0.0, "constant": True}


def test_constant_true_levels():
    assert list_correlation([3, 3, 3], [1, 2, 3]) == {"rho": 0.0, "tau": 0.0, "constant": True}


def test_list_correlation_rejects_bad_input():
    with pytest.raises(ValueError):
        list_correlation([0, 1, 2], [1, 2])
    with pytest.raises(ValueError):
        list_correlation([0, 1], [1, float("nan")])


def test_unscored_items_become_visible_ties():
    # item 1 and 3 unscored -> both 1.0 (min 2 - 1); correlation sees the tie
    pred = scores_to_predicted_values({0: 2, 1: None, 2: 7, 3: None, 4: 9}, 5)
    assert pred == [2.0, 1.0, 7.0, 1.0, 9.0]
    true = [1, 0, 3, 2, 4]
    out = list_correlation(true, pred)
    assert out["tau"] == pytest.approx(stats.kendalltau(true, pred).statistic)
    assert out["tau"] < 1.0


def test_ranking_values_give_positive_correlation():
    # true levels of ids 0,1,2 are 3,1,2; a perfect ranking is [0, 2, 1]
    values = ranking_to_values([0, 2, 1], 3)
    assert list_correlation([3, 1, 2], values)["rho"] == pytest.approx(1.0)


def test_mean_list_correlation_with_constant_list():
    rows = [
        ([0, 1, 2, 3], [1, 2, 3, 4]),  # rho 1, tau 1
        (TIES_TRUE, TIES_PRED),  # rho 9/sqrt(90), tau 8/sqrt(80)
        ([0, 1, 2], [7, 7, 7]),  # constant -> 0, 0
    ]
    out = mean_list_correlation(rows)
    assert out["rho"] == pytest.approx((1 + TIES_RHO + 0) / 3)
    assert out["tau"] == pytest.approx((1 + TIES_TAU + 0) / 3)
    assert out["n_lists"] == 3
    assert out["n_constant"] == 1


def test_mean_list_correlation_empty():
    out = mean_list_correlation([])
    assert math.isnan(out["rho"]) and math.isnan(out["tau"])
    assert out["n_lists"] == 0


# --------------------------------------------------------------------------- #
# pairs
# --------------------------------------------------------------------------- #
def test_pair_correct():
    assert pair_correct(1, 5, 2, 8) is True
    assert pair_correct(5, 1, 8, 2) is True
    assert pair_correct(1, 5, 8, 2) is False
    assert pair_correct(1, 5, 3, 3) is False  # tie in predictions -> wrong
    assert pair_correct(1, 5, None, 3) is False  # missing -> wrong
    assert pair_correct(1, 5, 3, float("nan")) is False
    with pytest.raises(ValueError):
        pair_correct(3, 3, 1, 2)


def test_choice_correct():
    assert choice_correct(2, 7, "B") is True
    assert choice_correct(2, 7, "A") is False
    assert choice_correct(7, 2, "A") is True
    assert choice_correct(7, 2, None) is False
    with pytest.raises(ValueError):
        choice_correct(4, 4, "A")
    with pytest.raises(ValueError):
        choice_correct(1, 4, "C")


def test_accuracy():
    assert accuracy([True, False, True, True]) == {"acc": 0.75, "n": 4}
    assert accuracy(iter([False, False])) == {"acc": 0.0, "n": 2}
    empty = accuracy([])
    assert math.isnan(empty["acc"]) and empty["n"] == 0


def test_tie_policy_gives_below_half_accuracy():
    # a judge that gives every item the same score is right on no pair
    pairs = [(0, 3), (2, 5), (7, 1)]
    assert accuracy(pair_correct(a, b, 4, 4) for a, b in pairs)["acc"] == 0.0


# --------------------------------------------------------------------------- #
# bias by level
# --------------------------------------------------------------------------- #
def test_bias_by_level_hand_values():
    true = [0, 0, 1, 1, 1, 2]
    pred = [1, None, 1, 3, None, 1]
    df = bias_by_level(true, pred, levels=range(4))
    assert list(df.columns) == ["level", "n", "n_unscored", "mean_pred", "bias"]
    assert df["level"].tolist() == [0, 1, 2, 3]
    # level 0: scored [1]          -> n 1, unscored 1, mean 1, bias 1 - 0 = 1
    # level 1: scored [1, 3]       -> n 2, unscored 1, mean 2, bias mean(0, 2) = 1
    # level 2: scored [1]          -> n 1, unscored 0, mean 1, bias 1 - 2 = -1
    # level 3: nothing             -> n 0, NaN
    assert df["n"].tolist() == [1, 2, 1, 0]
    assert df["n_unscored"].tolist() == [1, 1, 0, 0]
    np.testing.assert_allclose(df["mean_pred"].to_numpy(), [1.0, 2.0, 1.0, np.nan])
    np.testing.assert_allclose(df["bias"].to_numpy(), [1.0, 1.0, -1.0, np.nan])


def test_bias_by_level_default_levels_and_length_check():
    df = bias_by_level([9, 9], [7.5, 8.5])
    assert len(df) == 10
    row = df[df["level"] == 9].iloc[0]
    assert row["n"] == 2 and row["mean_pred"] == pytest.approx(8.0)
    assert row["bias"] == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        bias_by_level([1, 2], [1])


def test_spearman_and_kendall_equal_scipys_bit_for_bit():
    """The evaluation steps compute rho and tau-b without importing scipy
    (half a second per job); the numbers are scipy's to the last bit, ties
    and the clip of tau to [-1, 1] included."""
    import numpy as np
    from scipy import stats

    from authbench.studies.authority.metrics import average_ranks, kendall_tau_b, spearman

    rng = np.random.default_rng(7)
    cases = 0
    for n in (2, 3, 5, 10, 40):
        for k in range(400):
            x = rng.integers(0, 5, n).astype(float)
            y = (rng.integers(0, 6, n) if k % 2 else rng.normal(size=n)).astype(float)
            if np.all(x == x[0]) or np.all(y == y[0]):
                continue
            cases += 1
            assert spearman(x, y) == stats.spearmanr(x, y).statistic, (x, y)
            assert kendall_tau_b(x, y) == stats.kendalltau(x, y).statistic, (x, y)
    assert cases > 1500
    assert list(average_ranks([3, 1, 3, 2])) == [3.5, 1.0, 3.5, 2.0]  # by hand
    assert kendall_tau_b([2, 3, 4], [3, 2, 1]) == -1.0  # scipy clips -1.0000000000000002
    assert spearman([1, 1], [1, 2]) != spearman([1, 1], [1, 2])  # constant side: NaN
