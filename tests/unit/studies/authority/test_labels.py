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


# --- binning rules: hand-computed levels, the top rule explicit ---------------------------

from authbench.errors import ConfigError  # noqa: E402
from authbench.studies.authority.labels import (  # noqa: E402
    LabelSpec,
    bin_scores,
    bin_table,
    describe_label,
    label_spec,
    secondary_specs,
)


def _spec(binning, top="include", rng=None, column="score"):
    return LabelSpec(column, binning, 10, top, rng)


def test_round_score_times_ten_sends_the_top_to_a_level_of_its_own():
    # the trap: round(score * 10) of scores in [0, 1] gives 0..10; 10 is the top value
    scores = [0.0, 0.04, 0.05, 0.51, 0.94, 0.95, 1.0]
    ints = [round(s * 10) for s in scores]
    assert ints == [0, 0, 0, 5, 9, 10, 10]  # Python rounds half to even: 0.05 -> 0, 0.95 -> 10 (0.95*10 = 9.5)
    dropped = bin_scores(ints, _spec("integer", "drop"))
    assert dropped.levels == [0, 0, 0, 5, 9, None, None] and dropped.n_top == 2
    kept = bin_scores(ints, _spec("integer", "include"))
    assert kept.levels == [0, 0, 0, 5, 9, 9, 9] and kept.n_top == 2


def test_integer_binning_refuses_what_is_not_a_level():
    for bad in ([3.5], [-1], [11]):
        with pytest.raises(LabelError, match="integer binning needs an integer 0..10"):
            bin_scores(bad, _spec("integer"))


def test_equal_width_puts_the_maximum_into_the_top_level():
    # [0, 1] in 10 bins of width 0.1: floor(10 s); s = 1 (the maximum) is the top value
    scores = [0.0, 0.05, 0.1, 0.19, 0.5, 0.99, 1.0]
    assert bin_scores(scores, _spec("equal_width")).levels == [0, 0, 1, 1, 5, 9, 9]
    drop = bin_scores(scores, _spec("equal_width", "drop"))
    assert drop.levels == [0, 0, 1, 1, 5, 9, None] and drop.n_top == 1
    # over the data's own range [2, 4]: width 0.2; 3.0 -> floor(10 * 1 / 2) = 5
    assert bin_scores([2.0, 2.19, 3.0, 3.9, 4.0], _spec("equal_width")).levels == [0, 0, 5, 9, 9]
    # a given range: 0.5 of [0, 2] -> floor(10 * 0.25) = 2; the range's top, not the data's max, is the top value
    assert bin_scores([0.5, 1.5], _spec("equal_width", "drop", (0.0, 2.0))).levels == [2, 7]
    with pytest.raises(LabelError, match="outside the range"):
        bin_scores([2.5], _spec("equal_width", rng=(0.0, 2.0)))
    with pytest.raises(LabelError, match="all scores equal"):
        bin_scores([0.3, 0.3], _spec("equal_width"))


def test_equal_width_edges_in_the_bin_table():
    scores = [0.0, 0.05, 0.1, 0.19, 0.5, 0.99, 1.0]
    rows = bin_table(scores, bin_scores(scores, _spec("equal_width", "drop")))
    assert rows[0] == {"level": 0, "lower_edge": 0.0, "upper_edge": 0.1, "min_score": 0.0, "max_score": 0.05,
                       "items": 2}
    assert rows[9]["upper_edge"] == 1.0 and rows[9]["items"] == 1
    assert rows[-1] == {"level": "dropped", "lower_edge": None, "upper_edge": None, "min_score": 1.0,
                        "max_score": 1.0, "items": 1}


def test_quantile_levels_by_rank_with_ties_sharing():
    # 20 distinct scores: level = floor(10 r / 20) = r // 2, two per level, the maximum in level 9
    scores = [s / 100 for s in range(100, 0, -5)]
    levels = bin_scores(scores, _spec("quantile")).levels
    assert levels == [9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0]
    # 5 items, ties: r = items strictly smaller: 0.1 -> 0, 0.2 (x2) -> 1, 0.3 -> 3, 0.9 -> 4; level = 10 r // 5
    assert bin_scores([0.2, 0.1, 0.3, 0.2, 0.9], _spec("quantile")).levels == [2, 0, 6, 2, 8]
    # 15 items: floor(10 r / 15) for r = 0..14
    assert bin_scores(list(range(15)), _spec("quantile")).levels == [0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 8, 9]


def test_log_binning_generalises_eq1_and_its_top_rule():
    counts = [1, 2, 3.2, 10, 31, 32, 99, 1000, 31623, 99999, 100000]  # test_log_bin_hand_values
    assert bin_scores(counts, _spec("log")).levels == log_bin(counts) == [0, 0, 1, 2, 2, 3, 3, 6, 9, 9, 9]
    drop = bin_scores(counts, _spec("log", "drop"))
    assert drop.levels == [0, 0, 1, 2, 2, 3, 3, 6, 9, 9, None] and drop.n_top == 1  # Eq. 1's 10 removed
    with pytest.raises(LabelError, match="log binning needs scores > 0"):
        bin_scores([0.0, 1.0], _spec("log"))


def test_label_spec_defaults_and_errors():
    assert label_spec(None, "page_rank", "integer") == LabelSpec("page_rank", "integer", 10, "drop", None)
    # the PageRank-10 exclusion is Open PageRank's: any other integer column keeps its top value
    assert label_spec({"column": "stars"}, "page_rank", "integer").top == "include"
    assert label_spec({"column": "centrality", "binning": "equal_width"}, "page_rank", "integer").top == "include"
    assert label_spec(None, "popularity", "log") == LabelSpec("popularity", "log", 10, "include", None)
    assert label_spec({"binning": "log", "range": [1, 100]}, "x", "integer").range == (1.0, 100.0)
    for block, message in [
        ({"binning": "median"}, "'domainauth.label.binning': 'median' is not one of"),
        ({"levels": 5}, "'domainauth.label.levels': 5 levels; AuthorityBench's fine scale has 10"),
        ({"binning": "quantile", "top": "drop"}, "quantile levels have no top value"),
        ({"binning": "quantile", "range": [0, 1]}, "only equal_width and log binning take a range"),
        ({"binning": "log", "range": [0, 1]}, "log binning needs a low end > 0"),
        ({"binning": "equal_width", "range": [1, 1]}, "is not [low, high] with low < high"),
        ({"bins": 10}, "unknown key(s) ['bins']"),
    ]:
        with pytest.raises(ConfigError) as err:
            label_spec(block, "page_rank", "integer", "domainauth.label")
        assert message in str(err.value)


def test_describe_label_words_the_rule():
    assert describe_label(label_spec(None, "page_rank", "integer")) == (
        "Open PageRank integers ('page_rank') as levels 0-9; 10 dropped (the paper's 0-9 scale)")
    assert describe_label(label_spec({"column": "c", "binning": "equal_width", "range": [0, 1]}, "x", "integer")) == (
        "'c' in 10 equal-width levels over [0, 1]; maximum in level 9")
    assert describe_label(label_spec(None, "popularity", "log")) == (
        "'popularity' in 10 log-spaced (Eq. 1) levels over the corpus's [min, max]; maximum in level 9")


def test_secondary_specs_code_values_and_refuse_unknown_ones():
    (rel, bias) = secondary_specs({"labels": {"reliability": {"values": ["unreliable", "reliable"]},
                                              "bias_rating": None}})
    assert (rel.kind, bias.kind) == ("binary", "numeric")
    assert [rel.code(v) for v in ("unreliable", " reliable ", "")] == [0.0, 1.0, None]
    assert bias.code("-1.5") == -1.5 and bias.code("") is None
    with pytest.raises(LabelError, match=r"'Reliable' is not one of \['unreliable', 'reliable'\]"):
        rel.code("Reliable")
    with pytest.raises(LabelError, match="'left' is not a number"):
        bias.code("left")
    (three,) = secondary_specs({"labels": {"stance": {"values": ["low", "mixed", "high"]}}})
    assert three.kind == "ordinal" and three.code("high") == 2.0
    with pytest.raises(ConfigError, match="names a column of the label table"):
        secondary_specs({"labels": {"level": None}})
    with pytest.raises(ConfigError, match="two or more distinct values"):
        secondary_specs({"labels": {"x": {"values": ["a"]}}})


def test_equal_width_is_arithmetic_not_float_edges():
    # np.digitize over np.linspace(0, 1, 11) puts 0.3, 0.6 and 0.7 one level low (edges 0.30000000000000004 ...)
    tenths = [k / 10 for k in range(11)]
    assert [int(np.digitize(v, np.linspace(0, 1, 11))) - 1 for v in tenths][3] == 2
    assert bin_scores(tenths, _spec("equal_width", rng=(0.0, 1.0))).levels == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9]
