"""PairJudge (authbench.studies.authority.judges.pairwise): PairRank and
PairScore, the comparisons of each setting with the seeded A/B coin flip,
BubbleSort (anchor rule) and AverageScore, the pairs setting's verdicts,
per-item values and the A-position diagnostics, against hand-computed
values (scipy where ties make the arithmetic long)."""

from pathlib import Path

import pytest
from authbench.studies.authority.judges import JUDGES, PairJudge, PairRank, PairScore
from authbench.studies.authority.judges.pairwise import comparisons_of, pair_ids
from authbench.studies.authority.prompts import load_template
from scipy import stats

ROOT = Path(__file__).resolve().parents[5]
RANK, SCORE = JUDGES["pair_rank"], JUDGES["pair_score"]


def lst(iid, levels, anchors=None, difficulty=None):
    inst = {"instance_id": iid, "items": [{"domain": f"{iid}-d{i}.com", "level": lv, "coarse": lv // 2}
                                          for i, lv in enumerate(levels)]}
    if anchors is not None:
        inst["anchors"] = anchors
    if difficulty is not None:
        inst["difficulty"] = difficulty
    return inst


def judged(values, status=None):
    status = status or {}
    return [{"request_id": k, "value": v, "status": status.get(k, "ok")} for k, v in values.items()]


def test_declarations():
    assert isinstance(RANK, PairRank) and isinstance(SCORE, PairScore) and isinstance(RANK, PairJudge)
    assert (RANK.output, SCORE.output) == ("pair_choice", "pair_scores")
    assert (RANK.derivations, RANK.derivation) == (("bubble", "bt"), "bubble")
    assert (SCORE.derivations, SCORE.derivation) == (("bubble", "average", "bt"), "average")
    assert SCORE.fail_derivations == ("average", "bubble", "bt") and RANK.fail_derivations == ("bubble", "bt")
    assert RANK.derivation_labels == {"bubble": "PairRank", "bt": "PairRank_BT"}
    assert SCORE.derivation_labels == {"bubble": "PointScore_Bbl", "average": "PointScore_Pt", "bt": "PointScore_BT"}
    assert SCORE.required_fields(("domain", "text"), "domainauth") == {"domain_a", "domain_b", "text_a", "text_b"}
    assert not RANK.counts_lists and not RANK.item_line


def test_comparisons_of_each_setting():
    # fine with anchors: every non-anchor vs every anchor, then the anchor pairs
    assert comparisons_of(lst("f", [0, 1, 2, 3], anchors=[0, 1]), "fine") == [(2, 0), (2, 1), (3, 0), (3, 1), (0, 1)]
    assert len(comparisons_of(lst("f", list(range(10)), anchors=[0, 2, 4, 6, 8]), "fine")) == 5 * 5 + 10  # 35
    assert comparisons_of(lst("c", [0, 1, 2]), "coarse") == [(0, 1), (0, 2), (1, 2)]
    assert comparisons_of(lst("p", [0, 5]), "pairs") == [(0, 1)]
    assert pair_ids("fine-00001:3-0") == ("fine-00001", 3, 0)


def test_requests_flip_a_seeded_coin_for_position_a():
    template = load_template(ROOT / "resources/prompts/domainauth/pair_score_wo_text.yaml")
    lists = [lst("coarse-0", [0, 1, 2, 3, 4])]
    reqs = SCORE.requests("coarse", lists, template, 13)
    assert len(reqs) == 10 and {(r["output"], r["n"]) for r in reqs} == {("pair_scores", 2)}
    pairs = [pair_ids(r["request_id"]) for r in reqs]
    assert sorted(tuple(sorted((a, b))) for _, a, b in pairs) == [(i, j) for i in range(5) for j in range(i + 1, 5)]
    assert any(a > b for _, a, b in pairs) and any(a < b for _, a, b in pairs)  # both orders occur
    assert SCORE.requests("coarse", lists, template, 13) == reqs  # the same seed, the same flips
    _, a, b = pairs[0]
    assert f"coarse-0-d{a}.com" in reqs[0]["prompt"].split(f"coarse-0-d{b}.com")[0]  # A is shown first
    # the pairs setting keeps the sampled order
    (req,) = RANK.requests("pairs", [lst("pairs-0", [7, 2])], template, 13)
    assert req["request_id"] == "pairs-0:0-1"


def test_pair_score_bubble_and_average_disagree_on_a_cycle():
    # levels [0, 1, 2]; 0 beats 1 (9:1), 2 beats 0 (2:1), 1 beats 2 (8:7): a cycle.
    # BubbleSort from [0, 1, 2]: (0,1) keeps, (1,2) keeps: ranking [0, 1, 2], values [2, 1, 0]: rho -1.
    # AverageScore: item0 (9+1)/2 = 5, item1 (1+8)/2 = 4.5, item2 (2+7)/2 = 4.5: values [5, 4.5, 4.5].
    inst = [lst("fine-0", [0, 1, 2])]  # no anchors: every pair compared
    replies = judged({"fine-0:0-1": {"A": 9, "B": 1}, "fine-0:2-0": {"A": 2, "B": 1}, "fine-0:1-2": {"A": 8, "B": 7}})
    rows = [(r["derivation"], r["metric"], r["value"]) for r in SCORE.evaluate("fine", inst, replies)]
    assert [r[:2] for r in rows] == [("bubble", "rho"), ("bubble", "tau"), ("average", "rho"), ("average", "tau"),
                                     ("bt", "rho"), ("bt", "tau")]
    assert rows[0][2] == pytest.approx(-1.0)
    assert rows[2][2] == pytest.approx(stats.spearmanr([0, 1, 2], [5, 4.5, 4.5]).statistic)  # -0.866
    assert rows[3][2] == pytest.approx(stats.kendalltau([0, 1, 2], [5, 4.5, 4.5]).statistic)


def test_pair_rank_bubble_uses_the_anchor_rule_and_strict_drops_uncompared_items():
    # 4 items, anchors [0, 1]; level order 3 > 2 > 1 > 0. Replies: 2 beats 0 and 1; 3 beats 0
    # and 1; 1 beats 0. (2, 3) was never compared: both beat 2 anchors: BubbleSort keeps
    # the order. From [0, 1, 2, 3]: -> [1, 0, 2, 3] -> [1, 2, 0, 3] -> [1, 2, 3, 0] ->
    # [2, 1, 3, 0] -> [2, 3, 1, 0]: values item0 0, item1 1, item2 3, item3 2.
    inst = [lst("fine-0", [0, 1, 2, 3], anchors=[0, 1])]
    choices = {"fine-0:2-0": "A", "fine-0:1-2": "B", "fine-0:0-3": "B", "fine-0:3-1": "A", "fine-0:0-1": "B"}
    rho, tau, *bt = RANK.evaluate("fine", inst, judged(choices))
    assert [r["derivation"] for r in bt] == ["bt", "bt"]
    assert (rho["derivation"], rho["value"]) == ("bubble", pytest.approx(stats.spearmanr([0, 1, 2, 3],
                                                                                      [0, 1, 3, 2]).statistic))
    assert [v for _, v in RANK.item_values(inst, judged(choices))] == pytest.approx([0.0, 1 / 3, 1.0, 2 / 3])
    # strict: item 3's two replies failed, it has no parsed comparison and ranks last
    failed = judged(choices, {"fine-0:0-3": "wrong_format", "fine-0:3-1": "wrong_format"})
    strict = RANK.evaluate("fine", inst, failed, "strict")[0]["value"]
    lenient = RANK.evaluate("fine", inst, failed, "lenient")[0]["value"]
    assert strict == pytest.approx(stats.spearmanr([0, 1, 2, 3], [0, 1, 3, -1]).statistic)
    assert lenient == rho["value"]


def test_pairs_setting_verdicts_and_grades():
    pairs = [lst("pairs-0", [2, 7], difficulty="easy"), lst("pairs-1", [6, 3], difficulty="hard"),
             lst("pairs-2", [1, 4], difficulty="hard")]
    units = []
    rows = RANK.evaluate("pairs", pairs, judged({"pairs-0:0-1": "B", "pairs-1:0-1": "B", "pairs-2:0-1": None}),
                         units=units)
    assert [(r["difficulty"], r["value"], r["n"]) for r in rows] == [("easy", 1.0, 1), ("hard", 0.0, 2)]
    assert [u["status"] for u in units] == ["correct", "wrong", "unparsed"]
    scores = judged({"pairs-0:0-1": {"A": 3, "B": 3}, "pairs-1:0-1": {"A": 8, "B": 1}, "pairs-2:0-1": {"A": 1, "B": 0}})
    rows = SCORE.evaluate("pairs", pairs, scores)
    assert [(r["difficulty"], r["value"]) for r in rows] == [("easy", 0.0), ("hard", 0.5)]  # a tie is wrong
    assert SCORE.grades("pairs", pairs, scores) == {"pairs-0:0-1": {"gold": "B", "correct": False},
                                                    "pairs-1:0-1": {"gold": "A", "correct": True},
                                                    "pairs-2:0-1": {"gold": "B", "correct": False}}
    # a comparison of equal levels (in a list) has gold "tie" and no verdict
    tied = [lst("fine-0", [4, 4])]
    assert RANK.grades("fine", tied, judged({"fine-0:1-0": "A"})) == {"fine-0:1-0": {"gold": "tie", "correct": None}}
    assert [v for _, v in SCORE.item_values(pairs[:2], scores)] == [3.0, 3.0, 8.0, 1.0]
    assert SCORE.gives_item_scores("pairs") and not RANK.gives_item_scores("pairs")


def test_a_position_diagnostics():
    # every reply prefers A: a_share 1; A is truly higher in 1 of the 3 unequal comparisons;
    # positions A=0, B=1 vs values 1, 0 in every reply: rho -1
    inst = [lst("fine-0", [0, 1, 2])]
    got = RANK.position_diagnostics("fine", inst, judged({"fine-0:0-1": "A", "fine-0:2-0": "A", "fine-0:1-2": "A"}))
    assert got[0][0] == "position_rho" and got[0][1] == pytest.approx(-1.0) and got[0][2] == 3
    assert got[1:3] == [("a_share", 1.0, 3), ("a_expected", pytest.approx(1 / 3), 3)]
    assert got[3][0] == "order_effect" and got[3][1] > 2 and got[3][2] == 3  # "A" around a cycle: all order effect
    # PairScore: equal scores are not decisive; a missing score is no usable reply
    got = SCORE.position_diagnostics("fine", inst, judged({"fine-0:0-1": {"A": 5, "B": 5},
                                                            "fine-0:2-0": {"A": 7, "B": 2},
                                                            "fine-0:1-2": {"A": None, "B": 4}}))
    assert got[0][2] == 2 and got[1] == ("a_share", 1.0, 1)
    # AverageScore is what PairScore's near-constant diagnostic reads
    assert SCORE.item_scores(inst, judged({"fine-0:0-1": {"A": 5, "B": 5}, "fine-0:2-0": {"A": 7, "B": 2}})) == \
        [{0: 3.5, 1: 5.0, 2: 7.0}]
