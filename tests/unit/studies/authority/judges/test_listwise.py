"""ListJudge (authbench.studies.authority.judges.listwise): ListRank and
ListScore, one request per list, the direct derivation of each reply format,
per-item values and the position diagnostics, against hand-computed values."""

from pathlib import Path

import pytest
from authbench.studies.authority.judges import JUDGES, ListJudge, ListRank, ListScore
from authbench.studies.authority.prompts import load_template

ROOT = Path(__file__).resolve().parents[5]
RANK, SCORE = JUDGES["list_rank"], JUDGES["list_score"]


def lst(iid, levels):
    return {"instance_id": iid, "items": [{"domain": f"{iid}-d{i}.com", "level": lv, "coarse": lv // 2}
                                          for i, lv in enumerate(levels)]}


def judged(values, status=None):
    status = status or {}
    return [{"request_id": k, "value": v, "status": status.get(k, "ok")} for k, v in values.items()]


def test_declarations():
    assert isinstance(RANK, ListRank) and isinstance(SCORE, ListScore)
    assert isinstance(RANK, ListJudge) and isinstance(SCORE, ListJudge)
    assert (RANK.output, SCORE.output) == ("ranking", "list_scores")
    assert (RANK.scores, SCORE.scores, RANK.kind, SCORE.kind) == (False, True, "rank", "score")
    assert RANK.derivations == SCORE.derivations == ("direct",) and RANK.shape == SCORE.shape == "list"
    assert RANK.required_fields(("domain",), "domainauth") == {"items", "n"}
    assert SCORE.required_fields(("domain",), "domainauth") == {"items"}
    assert RANK.optional_fields == {"n", "last_id"} and RANK.item_line and RANK.counts_lists
    assert RANK.example_params(5) == {"n": 5, "last_id": 4}
    assert (RANK.reply_vector, SCORE.reply_vector) == ("ranking", "score vector")


def test_one_request_per_list_of_its_size():
    template = load_template(ROOT / "resources/prompts/domainauth/list_score_wo_text.yaml")
    lists = [lst("coarse-0", [0, 1, 2, 3, 4]), lst("coarse-1", [4, 3, 2, 1, 0])]
    reqs = SCORE.requests("coarse", lists, template, 13)
    assert [(r["request_id"], r["output"], r["n"]) for r in reqs] == [("coarse-0", "list_scores", 5),
                                                                      ("coarse-1", "list_scores", 5)]
    assert "[4] coarse-1-d4.com" in reqs[1]["prompt"] and '"4": 8}' in reqs[1]["prompt"]  # {last_id} = 4
    assert template.example_reply(5) == '{"0": 7, "1": 4, ..., "4": 8}'


def test_list_rank_ranks_by_the_reply():
    # ranking [2, 0, 1] of levels [0, 1, 2]: values item2=2, item0=1, item1=0 -> [1, 0, 2];
    # ranks [2, 1, 3] vs [1, 2, 3]: d² = 2, rho = 0.5; tau: (0,1) discordant, (0,2) (1,2)
    # concordant: 1/3
    rows = {r["metric"]: r for r in RANK.evaluate("fine", [lst("fine-0", [0, 1, 2])], judged({"fine-0": [2, 0, 1]}))}
    assert rows["rho"]["value"] == pytest.approx(0.5) and rows["tau"]["value"] == pytest.approx(1 / 3)
    assert (rows["rho"]["judge"], rows["rho"]["derivation"], rows["rho"]["n"]) == ("list_rank", "direct", 1)


def test_list_score_ranks_by_the_scores_and_a_failed_reply_is_constant():
    lists = [lst("fine-0", [0, 1, 2]), lst("fine-1", [0, 1, 2])]
    replies = judged({"fine-0": {"0": 1, "1": 5, "2": 3}, "fine-1": {"0": 1, "1": 2, "2": 3}},
                     {"fine-1": "wrong_format"})
    units = []
    strict = {r["metric"]: r for r in SCORE.evaluate("fine", lists, replies, "strict", units)}
    # fine-0: scores [1, 5, 3] -> rho 0.5 (as ListRank above); fine-1 failed: constant, rho 0
    assert strict["rho"]["value"] == pytest.approx(0.25) and strict["rho"]["n_constant"] == 1
    assert [u["status"] for u in units if u["metric"] == "rho"] == ["ok", "constant"]
    lenient = {r["metric"]: r for r in SCORE.evaluate("fine", lists, replies, "lenient")}
    assert lenient["rho"]["value"] == pytest.approx((0.5 + 1.0) / 2) and lenient["rho"]["n_constant"] == 0


def test_grades_are_the_levels_in_the_order_shown():
    lists = [lst("coarse-0", [0, 5, 9])]
    assert RANK.grades("coarse", lists, judged({"coarse-0": [0, 1, 2]})) == {
        "coarse-0": {"gold": [0, 2, 4], "correct": None}}


def test_item_values():
    lists = [lst("fine-0", [0, 1, 2])]
    assert not RANK.gives_item_scores("pairs") and RANK.gives_item_scores("coarse")
    # ListRank: positions as fractions of the others ranked below: [2, 0, 1] -> item0 0.5, item1 0, item2 1
    assert [v for _, v in RANK.item_values(lists, judged({"fine-0": [2, 0, 1]}))] == [0.5, 0.0, 1.0]
    # a failed ListRank reply gives no value under strict parsing
    assert [v for _, v in RANK.item_values(lists, judged({"fine-0": [2, 0, 1]}, {"fine-0": "repetition"}))] == \
        [None, None, None]
    assert [v for _, v in SCORE.item_values(lists, judged({"fine-0": {"0": 4, "1": None, "2": 9}}))] == \
        [4.0, None, 9.0]
    assert SCORE.item_scores(lists, judged({"fine-0": {"0": 4, "2": 9}})) == [{0: 4, 2: 9}]
    with pytest.raises(NotImplementedError, match="list_rank gives no scores"):
        RANK.item_scores(lists, judged({"fine-0": [2, 0, 1]}))


def test_position_diagnostics():
    # both lists get the same score vector by position, falling with the position:
    # position_constant 2 of 2 lists; rho(position, score) over [0,1,2,0,1,2] vs [9,5,1,9,5,1] = -1
    lists = [lst("fine-0", [0, 1, 2]), lst("fine-1", [2, 0, 1])]
    same = {"0": 9, "1": 5, "2": 1}
    got = SCORE.position_diagnostics("fine", lists, judged({"fine-0": same, "fine-1": same}))
    assert got[0] == ("position_constant", 1.0, 2)
    assert got[1][0] == "position_rho" and got[1][1] == pytest.approx(-1.0) and got[1][2] == 2
    # ListRank: rankings [0, 1, 2] and [2, 1, 0] differ: no vector repeats, rho over
    # values [2, 1, 0, 0, 1, 2] at positions [0, 1, 2, 0, 1, 2] = 0
    got = RANK.position_diagnostics("fine", lists, judged({"fine-0": [0, 1, 2], "fine-1": [2, 1, 0]}))
    assert got[0] == ("position_constant", 0.0, 2) and got[1][1] == pytest.approx(0.0)
    assert SCORE.example_sizes(lists) == {"fine-0": 3, "fine-1": 3}
