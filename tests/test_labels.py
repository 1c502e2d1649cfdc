"""Label scales: coarse mapping and Eq. 1 log binning, against hand-computed edges."""

import math

import numpy as np
import pytest
from authbench.errors import LabelError
from authbench.studies.authority.labels import coarse_level, log_bin


def test_coarse_mapping():
    assert [coarse_level(i) for i in range(10)] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    for bad in (-1, 10, 2.5, True):
        with pytest.raises(ValueError):
            coarse_level(bad)


def test_log_bin_hand_values():
    # range 1..10**5: edges are 10**(0.5 k), k = 0..10, i.e. 1, 3.16, 10, 31.6, 100, ...
    counts = [1, 2, 3.2, 10, 31, 32, 99, 1000, 31623, 99999, 100000]
    # 1 -> [1, 3.16) bin 0; 2 -> 0; 3.2 -> [3.16, 10) bin 1; 10 -> bin 2; 31 -> 2; 32 -> 3;
    # 99 -> 3; 1000 -> [1000, 3162) bin 6; 31623 -> just above 10**4.5=31622.8 -> bin 9;
    # 99999 -> bin 9; 100000 = smax -> 10 by Eq. 1, clipped to 9
    assert log_bin(counts) == [0, 0, 1, 2, 2, 3, 3, 6, 9, 9, 9]


def test_log_bin_matches_numpy_formula_inside_range():
    rng = np.random.default_rng(0)
    counts = list(rng.integers(5, 130, size=200)) + [5, 129]
    edges = np.logspace(math.log10(5), math.log10(129), 11)
    expected = [min(9, max(0, int(np.digitize(c, edges)) - 1)) for c in counts]
    assert log_bin(counts) == expected
    assert log_bin([5, 129])[0] == 0 and log_bin([5, 129])[1] == 9


def test_log_bin_given_range():
    assert log_bin([10, 100], smin=1, smax=1000) == [3, 6]  # log10 = 1 and 2 of 0..3: 10/3 -> 3, 20/3 -> 6
    with pytest.raises(LabelError, match="outside"):
        log_bin([2000], smin=1, smax=1000)


@pytest.mark.parametrize(
    "counts, message",
    [
        ([5, 0, 7], "count #1 is 0"),
        ([5, -3], "count #1 is -3"),
        ([float("nan"), 3], "count #0"),
        ([7, 7, 7], "all counts equal (7)"),
    ],
)
def test_log_bin_errors(counts, message):
    with pytest.raises(LabelError) as err:
        log_bin(counts)
    assert message in str(err.value)


def test_log_bin_empty():
    assert log_bin([]) == []
