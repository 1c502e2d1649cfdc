"""Unit tests for authbench.studies.authority.ranking (hand-computed expectations)."""

import math
from collections import namedtuple

import pytest
from authbench.studies.authority.ranking import (
    average_score,
    bubble_ranking,
    bubble_sort,
    make_preference,
    pairwise_preferences,
    ranking_to_values,
    scores_to_predicted_values,
    scores_to_ranking,
)


def rank_cmp(a, b, choice):
    return {"a": a, "b": b, "choice": choice}


def score_cmp(a, b, score_a, score_b):
    return {"a": a, "b": b, "score_a": score_a, "score_b": score_b}


def rank_set(winners):
    """Comparison records from (winner, loser) tuples, winner alternately shown as A/B."""
    out = []
    for k, (w, l) in enumerate(winners):
        out.append(rank_cmp(w, l, "A") if k % 2 == 0 else rank_cmp(l, w, "B"))
    return out


# --------------------------------------------------------------------------- #
# scores -> ranking / values
# --------------------------------------------------------------------------- #
def test_scores_to_ranking_ties_and_unscored():
    scores = {0: 3, 1: 5, 2: None, 3: 5, 4: float("nan")}  # id 5 absent
    # scored: 1 (5), 3 (5) tie -> ascending id; then 0 (3); unscored 2, 4, 5
    assert scores_to_ranking(scores, 6) == [1, 3, 0, 2, 4, 5]


def test_scores_to_ranking_rejects_out_of_range_id():
    with pytest.raises(ValueError):
        scores_to_ranking({7: 1.0}, 3)


def test_scores_to_predicted_values_fills_unscored_below_min():
    scores = {0: 3, 1: 5, 2: None, 3: 5, 4: float("nan")}
    # min(scored) = 3 -> unscored get 2.0
    assert scores_to_predicted_values(scores, 6) == [3.0, 5.0, 2.0, 5.0, 2.0, 2.0]


def test_scores_all_unscored():
    scores = {0: None, 1: None, 2: None}
    assert scores_to_ranking(scores, 3) == [0, 1, 2]
    assert scores_to_predicted_values(scores, 3) == [-1.0, -1.0, -1.0]


# --------------------------------------------------------------------------- #
# AverageScore
# --------------------------------------------------------------------------- #
def test_average_score_hand_set():
    comparisons = [
        score_cmp(0, 1, 8, 5),
        score_cmp(2, 0, 3, 6),
        score_cmp(1, 2, None, 4),
        score_cmp(0, 2, None, None),
    ]
    # item 0 received 8 (as A) and 6 (as B)      -> (8 + 6) / 2 = 7.0
    # item 1 received 5 (as B); None ignored      -> 5.0
    # item 2 received 3 (as A) and 4 (as B)       -> (3 + 4) / 2 = 3.5
    # item 3 never appears                        -> None
    assert average_score(comparisons, 4) == {0: 7.0, 1: 5.0, 2: 3.5, 3: None}
    avg = average_score(comparisons, 4)
    assert scores_to_ranking(avg, 4) == [0, 1, 2, 3]
    assert scores_to_predicted_values(avg, 4) == [7.0, 5.0, 3.5, 2.5]


def test_average_score_accepts_attribute_records_and_nan():
    Rec = namedtuple("Rec", "a b score_a score_b")
    comparisons = [Rec(0, 1, 2, float("nan")), Rec(1, 0, 9, 4)]
    # item 0: 2, 4 -> 3.0 ; item 1: NaN ignored, 9 -> 9.0
    assert average_score(comparisons, 2) == {0: 3.0, 1: 9.0}


def test_average_score_rejects_id_out_of_range():
    with pytest.raises(ValueError):
        average_score([score_cmp(0, 5, 1, 1)], 3)


# --------------------------------------------------------------------------- #
# pairwise_preferences
# --------------------------------------------------------------------------- #
def test_pairwise_preferences_rank_majority_and_ties():
    comparisons = [
        rank_cmp(0, 1, "A"),  # 0 wins
        rank_cmp(1, 0, "A"),  # 1 wins
        rank_cmp(1, 0, "B"),  # 0 wins  -> {0,1}: 0 wins 2-1
        rank_cmp(1, 2, "A"),  # 1 wins
        rank_cmp(2, 1, "A"),  # 2 wins  -> {1,2}: 1-1 tie -> no winner
        rank_cmp(0, 2, None),  # unparsable only -> no winner
        rank_cmp(3, 2, "B"),  # 2 wins
        rank_cmp(2, 3, None),  # skipped -> {2,3}: 2 wins 1-0
    ]
    assert pairwise_preferences(comparisons, "rank") == {
        frozenset({0, 1}): 0,
        frozenset({2, 3}): 2,
    }


def test_pairwise_preferences_score_mode():
    comparisons = [
        score_cmp(0, 1, 5, 5),  # equal -> no winner
        score_cmp(1, 2, 7, 3),  # 1 wins
        score_cmp(2, 1, 9, 2),  # 2 wins
        score_cmp(2, 1, 8, 1),  # 2 wins -> {1,2}: 2 wins 2-1
        score_cmp(1, 2, None, 1),  # missing score -> skipped
        score_cmp(0, 3, 2, 6),  # 3 wins
    ]
    assert pairwise_preferences(comparisons, "score") == {
        frozenset({1, 2}): 2,
        frozenset({0, 3}): 3,
    }


def test_pairwise_preferences_bad_mode_and_choice():
    with pytest.raises(ValueError):
        pairwise_preferences([rank_cmp(0, 1, "A")], "votes")
    with pytest.raises(ValueError):
        pairwise_preferences([rank_cmp(0, 1, "C")], "rank")


# --------------------------------------------------------------------------- #
# BubbleSort
# --------------------------------------------------------------------------- #
def test_bubble_sort_transitive_complete_set():
    # true order 2 > 0 > 3 > 1, all 6 pairs compared
    winners = [(2, 0), (2, 3), (2, 1), (0, 3), (0, 1), (3, 1)]
    assert bubble_ranking(rank_set(winners), 4, "rank") == [2, 0, 3, 1]


def test_bubble_sort_transitive_score_mode():
    # scores 1, 4, 9 for ids 0, 1, 2 -> order 2, 1, 0
    comparisons = [score_cmp(0, 1, 1, 4), score_cmp(1, 2, 4, 9), score_cmp(2, 0, 9, 1)]
    assert bubble_ranking(comparisons, 3, "score") == [2, 1, 0]


def test_bubble_sort_intransitive_three_cycle():
    # 1 beats 0, 2 beats 1, 0 beats 2 (a cycle). Start [0, 1, 2].
    # pass 0: (0,1) -> 1 wins, swap -> [1,0,2]; (0,2) -> 0 wins, keep.
    # pass 1: (1,0) -> 1 wins, keep; no swap -> stop.  Result [1, 0, 2].
    comparisons = rank_set([(1, 0), (2, 1), (0, 2)])
    assert bubble_ranking(comparisons, 3, "rank") == [1, 0, 2]


def test_bubble_sort_other_three_cycle_is_left_alone():
    # 0 beats 1, 1 beats 2, 2 beats 0. Start [0,1,2]:
    # pass 0: (0,1) keep; (1,2) keep; no swap -> stop. Result [0, 1, 2].
    comparisons = rank_set([(0, 1), (1, 2), (2, 0)])
    assert bubble_ranking(comparisons, 3, "rank") == [0, 1, 2]


def test_bubble_sort_call_counts():
    calls = []

    def prefer(x, y):  # smaller id is better
        calls.append((x, y))
        return min(x, y)

    # reversed input: classic shrinking passes 3 + 2 + 1 = 6 look-ups
    assert bubble_sort([3, 2, 1, 0], prefer) == [0, 1, 2, 3]
    assert len(calls) == 6
    calls.clear()
    # already sorted: one pass of 3 look-ups, then early exit
    assert bubble_sort([0, 1, 2, 3], prefer) == [0, 1, 2, 3]
    assert calls == [(0, 1), (1, 2), (2, 3)]


def test_bubble_sort_none_keeps_order_and_bad_return_raises():
    assert bubble_sort([2, 0, 1], lambda x, y: None) == [2, 0, 1]
    with pytest.raises(ValueError):
        bubble_sort([0, 1], lambda x, y: 7)


# --------------------------------------------------------------------------- #
# anchor rule
# --------------------------------------------------------------------------- #
ANCHORS = [0, 1, 2]
# anchors among themselves: 0 > 1, 0 > 2, 1 > 2
# non-anchors only vs anchors:
#   3 beats 1, 2; loses to 0    -> 2 anchor wins
#   4 beats 0, 1, 2             -> 3 anchor wins
#   5 beats 2; loses to 0, 1    -> 1 anchor win
ANCHOR_WINNERS = [
    (0, 1), (0, 2), (1, 2),
    (3, 1), (3, 2), (0, 3),
    (4, 0), (4, 1), (4, 2),
    (5, 2), (0, 5), (1, 5),
]


def test_make_preference_anchor_counts():
    direct = pairwise_preferences(rank_set(ANCHOR_WINNERS), "rank")
    prefer = make_preference(direct, ANCHORS)
    assert prefer(0, 3) == 0  # direct
    assert prefer(3, 0) == 0  # direct, order of arguments irrelevant
    assert prefer(3, 4) == 4  # 2 vs 3 anchor wins
    assert prefer(4, 3) == 4
    assert prefer(3, 5) == 3  # 2 vs 1
    assert prefer(5, 4) == 4  # 1 vs 3
    no_anchor = make_preference(direct, None)
    assert no_anchor(3, 4) is None
    assert no_anchor(0, 3) == 0


def test_make_preference_equal_anchor_counts_is_none():
    # 3 beats anchor 0, 4 beats anchor 1: one anchor win each
    direct = pairwise_preferences(rank_set([(3, 0), (1, 3), (4, 1), (0, 4)]), "rank")
    prefer = make_preference(direct, [0, 1])
    assert prefer(3, 4) is None
    assert prefer(4, 3) is None


def test_bubble_ranking_anchor_rule_six_items():
    # Start [0,1,2,3,4,5]; shrinking passes.
    # pass 0: (0,1) keep; (1,2) keep; (2,3) 3 direct swap -> [0,1,3,2,4,5];
    #         (2,4) 4 swap -> [0,1,3,4,2,5]; (2,5) 5 swap -> [0,1,3,4,5,2]
    # pass 1: (0,1) keep; (1,3) 3 swap -> [0,3,1,4,5,2]; (1,4) 4 swap -> [0,3,4,1,5,2];
    #         (1,5) 1 keep
    # pass 2: (0,3) 0 keep; (3,4) anchor rule 4 (3 wins vs 2) swap -> [0,4,3,1,5,2];
    #         (3,1) 3 keep
    # pass 3: (0,4) 4 direct swap -> [4,0,3,1,5,2]; (0,3) keep
    # pass 4: (4,0) keep; no swap -> [4,0,3,1,5,2]
    comparisons = rank_set(ANCHOR_WINNERS)
    assert bubble_ranking(comparisons, 6, "rank", anchors=ANCHORS) == [4, 0, 3, 1, 5, 2]


def test_bubble_ranking_without_anchor_rule_six_items():
    # same set, no anchors: passes 0 and 1 as above -> [0,3,4,1,5,2];
    # pass 2: (0,3) keep; (3,4) no info keep; (4,1) 4 keep; no swap -> stop.
    comparisons = rank_set(ANCHOR_WINNERS)
    assert bubble_ranking(comparisons, 6, "rank") == [0, 3, 4, 1, 5, 2]


# --------------------------------------------------------------------------- #
# ranking_to_values
# --------------------------------------------------------------------------- #
def test_ranking_to_values():
    # id 2 first -> 2, id 0 second -> 1, id 1 last -> 0
    assert ranking_to_values([2, 0, 1], 3) == [1.0, 0.0, 2.0]
    assert ranking_to_values([0, 1, 2, 3], 4) == [3.0, 2.0, 1.0, 0.0]


def test_ranking_to_values_rejects_non_permutation():
    with pytest.raises(ValueError):
        ranking_to_values([0, 0, 1], 3)
    with pytest.raises(ValueError):
        ranking_to_values([0, 1], 3)


def test_all_functions_are_deterministic():
    comparisons = rank_set(ANCHOR_WINNERS)
    first = bubble_ranking(comparisons, 6, "rank", anchors=ANCHORS)
    assert all(
        bubble_ranking(comparisons, 6, "rank", anchors=ANCHORS) == first for _ in range(5)
    )
    assert not math.isnan(scores_to_predicted_values({0: 1.0}, 2)[1])
