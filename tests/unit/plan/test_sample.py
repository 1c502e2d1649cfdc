"""Counting on a sample and extrapolating (authbench.plan.sample), against
hand-computed totals and variances."""

import math

import pytest

from authbench.plan.sample import Z95, Estimate, extrapolate, sample_positions


def test_a_full_count_is_exact():
    e = extrapolate([3, 5, 10], 3)
    assert (e.total, e.var, e.half_width) == (18, 0.0, 0.0)


def test_extrapolation_by_hand():
    # sample 2, 4, 6 of N = 10: mean 4, s^2 = ((2-4)^2 + 0 + (6-4)^2) / 2 = 4
    # total = 10 * 4 = 40; var = N^2 (1 - n/N) s^2 / n = 100 * 0.7 * 4 / 3 = 93.33...
    e = extrapolate([2, 4, 6], 10)
    assert e.total == pytest.approx(40.0)
    assert e.var == pytest.approx(280 / 3)
    assert e.half_width == pytest.approx(1.959963984540054 * math.sqrt(280 / 3))  # 18.93
    lo, hi = e.interval
    assert (lo, hi) == pytest.approx((40 - 18.935, 40 + 18.935), abs=1e-3)


def test_estimates_add_and_scale():
    a, b = Estimate(10.0, 4.0), Estimate(5.0, 9.0)
    assert (a + b).total == 15.0 and (a + b).var == 13.0
    assert a.scaled(2.0).total == 20.0 and a.scaled(2.0).var == 16.0  # var * factor^2
    assert Z95 == pytest.approx(1.96, abs=1e-3)


def test_edge_cases():
    assert extrapolate([], 0).total == 0.0
    assert math.isinf(extrapolate([7], 5).var)  # one of five: no variance estimate
    assert extrapolate([7], 1).var == 0.0


def test_sample_positions_are_seeded_sorted_and_whole_when_small():
    assert sample_positions(5, 10, 13, "b") == [0, 1, 2, 3, 4]
    assert sample_positions(5, None, 13, "b") == [0, 1, 2, 3, 4]
    a = sample_positions(1000, 20, 13, "batch")
    assert a == sample_positions(1000, 20, 13, "batch") and a == sorted(a) and len(set(a)) == 20
    assert a != sample_positions(1000, 20, 13, "another batch")
