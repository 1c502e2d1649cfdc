"""PointJudge (authbench.studies.authority.judges.point): one request per
distinct item, the direct derivation, grades, per-item values and the
scores its near-constant diagnostic reads, against hand-computed values."""

from pathlib import Path

import pytest
from authbench.studies.authority.judges import JUDGES, PointJudge
from authbench.studies.authority.prompts import load_template

ROOT = Path(__file__).resolve().parents[5]
POINT = JUDGES["point"]


def item(domain, level, category=None):
    return {"domain": domain, "level": level, "coarse": level // 2, "category": category}


# two lists sharing b.com: PointJudge asks each item once
LISTS = [{"instance_id": "fine-0", "items": [item("a.com", 0), item("b.com", 1), item("c.gov", 2, "gov")]},
         {"instance_id": "fine-1", "items": [item("b.com", 1), item("d.com", 3)]}]


def judged(scores, status=None):
    status = status or {}
    return [{"request_id": f"item:{k}", "value": v, "status": status.get(k, "ok")} for k, v in scores.items()]


def test_declaration():
    assert isinstance(POINT, PointJudge)
    assert (POINT.output, POINT.shape, POINT.derivation, POINT.derivations) == ("score", "point", "direct", ("direct",))
    assert POINT.settings == ("fine", "coarse", "pairs", "bias") and POINT.scores and POINT.kind == "score"
    assert POINT.fail_derivations == ("direct",) and POINT.derivation_labels == {}
    assert POINT.template_fields(("entity",), "entityauth") == ("entity", "question")  # prompt H: the question
    assert POINT.required_fields(("domain", "text"), "domainauth") == {"domain", "text"}
    assert POINT.example_params(None) == {} and POINT.example_sizes(LISTS) is None


def test_one_request_per_distinct_item():
    template = load_template(ROOT / "resources/prompts/domainauth/point_wo_text.yaml")
    reqs = POINT.requests("fine", LISTS, template, 13)
    assert [r["request_id"] for r in reqs] == ["item:a.com", "item:b.com", "item:c.gov", "item:d.com"]
    assert {(r["output"], r["n"]) for r in reqs} == {("score", 1)}
    assert "DOMAIN: c.gov\n" in reqs[2]["prompt"]


def test_entityauth_prompt_shows_the_question():
    template = load_template(ROOT / "resources/prompts/entityauth/songs/point_wo_text.yaml")
    inst = [{"instance_id": "fine-0", "items": [{"entity": "Yesterday", "question": "Who sang Yesterday?",
                                                 "level": 3}]}]
    (req,) = POINT.requests("fine", inst, template, 13)
    assert req["request_id"] == "item:Yesterday"
    assert "QUESTION CONTEXT: Who sang Yesterday?" in req["prompt"] and "TARGET ENTITY: Yesterday" in req["prompt"]


def test_evaluate_lists_by_the_scores():
    # list fine-0: levels [0, 1, 2], scores [1, 5, 3]: ranks [1, 3, 2] vs [1, 2, 3],
    # d² = 0 + 1 + 1 = 2, rho = 1 - 6*2/(3*8) = 0.5; tau: pairs (0,1) (0,2) concordant,
    # (1,2) discordant: (2 - 1)/3. list fine-1: levels [1, 3], scores [5, 4]: rho = tau = -1.
    rows = POINT.evaluate("fine", LISTS, judged({"a.com": 1, "b.com": 5, "c.gov": 3, "d.com": 4}))
    got = {r["metric"]: r for r in rows}
    assert got["rho"]["value"] == pytest.approx((0.5 - 1) / 2)
    assert got["tau"]["value"] == pytest.approx((1 / 3 - 1) / 2)
    assert {(r["judge"], r["derivation"], r["n"], r["n_constant"]) for r in rows} == {("point", "direct", 2, 0)}


def test_a_failed_reply_is_unscored_under_strict_and_read_under_lenient():
    # c.gov's reply failed: strict leaves it unscored (ranked last: values [1, 5, 0]),
    # lenient reads its 9 (values [1, 5, 9], rho 1)
    scores, status = {"a.com": 1, "b.com": 5, "c.gov": 9}, {"c.gov": "wrong_format"}
    one = LISTS[:1]
    strict = {r["metric"]: r["value"] for r in POINT.evaluate("fine", one, judged(scores, status), "strict")}
    lenient = {r["metric"]: r["value"] for r in POINT.evaluate("fine", one, judged(scores, status), "lenient")}
    assert strict["rho"] == pytest.approx(-0.5) and lenient["rho"] == pytest.approx(1.0)


def test_pairs_are_right_when_the_scores_order_them():
    pairs = [{"instance_id": "pairs-0", "difficulty": "easy", "items": [item("a.com", 2), item("b.com", 7)]},
             {"instance_id": "pairs-1", "difficulty": "easy", "items": [item("c.gov", 8), item("d.com", 1)]},
             {"instance_id": "pairs-2", "difficulty": "hard", "items": [item("a.com", 2), item("d.com", 1)]}]
    units = []
    rows = POINT.evaluate("pairs", pairs, judged({"a.com": 3, "b.com": 6, "c.gov": 4, "d.com": 4}), units=units)
    # easy: a<b right (3 < 6), c>d tied (4 = 4): wrong; hard: a>d, 3 < 4: wrong
    assert [(r["difficulty"], r["metric"], r["value"], r["n"]) for r in rows] == [("easy", "acc", 0.5, 2),
                                                                                 ("hard", "acc", 0.0, 1)]
    assert [u["status"] for u in units] == ["correct", "tie", "wrong"]


def test_bias_gives_no_rows_and_grades_are_the_levels():
    scores = judged({"a.com": 1, "b.com": 5, "c.gov": 3, "d.com": 4})
    assert POINT.evaluate("bias", LISTS, scores) == []
    grades = POINT.grades("coarse", LISTS, scores)
    assert grades == {"item:a.com": {"gold": 0, "correct": None}, "item:b.com": {"gold": 0, "correct": None},
                      "item:c.gov": {"gold": 1, "correct": None}, "item:d.com": {"gold": 1, "correct": None}}


def test_item_values_once_per_item_and_item_scores_per_list():
    scores = judged({"a.com": 1, "b.com": 5, "c.gov": 12, "d.com": 4}, {"c.gov": "out_of_range"})
    assert POINT.gives_item_scores("bias") and POINT.gives_item_scores("pairs")
    got = [(it["domain"], v) for it, v in POINT.item_values(LISTS, scores)]
    assert got == [("a.com", 1.0), ("b.com", 5.0), ("c.gov", None), ("d.com", 4.0)]
    assert POINT.item_scores(LISTS, scores, "lenient") == [{0: 1, 1: 5, 2: 12}, {0: 5, 1: 4}]
    assert POINT.position_diagnostics("fine", LISTS, scores) == []
