"""authbench.studies.selfpref.knowledge: knowledge levels and classes, the
answer records grouped per question, the released files re-derived.

The knowledge rule is pinned by re-deriving the authors' shipped GPT-3.5 file
(resources/data/selfpref/nq_knowledge_gpt35.json) exactly: 1,000 levels
and the distribution [356, 97, 51, 56, 89, 351] from the raw strings alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from authbench.errors import InputError
from authbench.studies.selfpref.answers import answer_matches, word_set
from authbench.studies.selfpref.knowledge import (group_answers, group_runs, knowledge_class, knowledge_level,
                                                  rederive_knowledge)

DATA = Path(__file__).resolve().parents[4] / "resources" / "data" / "selfpref"  # shipped with the repository
KNOWLEDGE = DATA / "nq_knowledge_gpt35.json"
PASSAGES = DATA / "nq_passages_gpt35.json"


# --------------------------------------------------------------------------
# knowledge levels and classes
# --------------------------------------------------------------------------

def test_knowledge_level():
    assert knowledge_level([True, False, True, True, False]) == 3
    assert knowledge_level([]) == 0
    assert knowledge_level(x > 2 for x in range(5)) == 2


@pytest.mark.parametrize(
    "level, tries, cls",
    [(0, 5, "no"), (1, 5, "partial"), (4, 5, "partial"), (5, 5, "full"), (0, 1, "no"), (1, 1, "full"),
     (2, 3, "partial")],
)
def test_knowledge_class(level, tries, cls):
    assert knowledge_class(level, tries) == cls


@pytest.mark.parametrize("level, tries", [(-1, 5), (6, 5), (True, 5), (2.0, 5), ("3", 5), (0, 0)])
def test_knowledge_class_bad_values_raise(level, tries):
    with pytest.raises(ValueError):
        knowledge_class(level, tries)


def _rec(gt: str, ans: str) -> dict:
    return {"ground_truth": gt, "AI_answer": ans}


def test_group_runs_and_group_answers():
    recs = [_rec("A", "a")] * 5 + [_rec("B", "b")] * 7 + [_rec("C", "c")] * 5
    assert [len(g) for g in group_runs(recs)] == [5, 7, 5]
    groups = group_answers(recs, ["A", {"true_answer": "B"}, {"answer": "C"}])
    assert [len(g) for g in groups] == [5, 7, 5]
    # two adjacent questions with the same gold share a run: the later takes the last 5
    recs2 = [_rec("A", str(i)) for i in range(12)]
    groups = group_answers(recs2, ["A", "A"])
    assert [[r["AI_answer"] for r in g] for g in groups] == [[str(i) for i in range(7)],
                                                            [str(i) for i in range(7, 12)]]
    # the released script stores lower-cased ground truths
    assert len(group_answers([_rec("linda davis", "x")] * 5, ["Linda Davis"])) == 1


@pytest.mark.parametrize(
    "recs, questions, message",
    [
        ([_rec("A", "a")] * 4, ["A"], r"ai_answers\[4\]: question 0 .* has 4 answers"),
        ([_rec("A", "a")] * 5 + [_rec("X", "x")], ["A", "B"], r"ai_answers\[5\]: question 1 .*'X'"),
        ([_rec("A", "a")] * 6 + [_rec("B", "b")], ["A"], r"ai_answers\[6\]: 1 answer\(s\) left over"),
        ([_rec("A", "a")] * 4 + [{"ground_truth": 3}], ["A"], r"ai_answers\[4\]: field 'ground_truth'"),
        (["junk"], ["A"], r"ai_answers\[0\]: expected a JSON object"),
    ],
)
def test_group_answers_errors(recs, questions, message):
    with pytest.raises(InputError, match=message):
        group_answers(recs, questions)


def test_rederive_shipped_knowledge_exactly():
    stored = json.loads(KNOWLEDGE.read_text(encoding="utf-8"))
    res = rederive_knowledge(KNOWLEDGE)
    assert res["levels"] == stored["knowledge_level"]
    assert res["distribution"] == stored["distribution"] == [356, 97, 51, 56, 89, 351]
    assert res["level_mismatches"] == []
    assert res["classes"].count("no") == 356 and res["classes"].count("full") == 351
    g = res["grouping"]
    assert (g["records"], g["questions"], g["group_sizes"]) == (5007, 1000, {5: 998, 8: 1, 9: 1})
    assert [(e["question"], e["ground_truth"], e["records"], e["dropped_records"]) for e in g["extra_tries"]] == [
        (386, "Big & Rich", 8, [1930, 1931, 1932]),
        (412, "Sally Ann Howes", 9, [2063, 2064, 2065, 2066]),
    ]
    # the stored word sets are exactly word_set() of the strings, and give the same levels
    assert res["stored_sets_consistent"] == 5007
    assert res["levels_from_stored_sets"] == stored["knowledge_level"]


def test_rederive_aligned_with_question_file():
    res = rederive_knowledge(KNOWLEDGE, PASSAGES)
    assert res["grouping"]["method"] == "aligned with questions"
    assert res["level_mismatches"] == [] and res["distribution"] == [356, 97, 51, 56, 89, 351]


def test_rederive_alternatives_do_not_match():
    """What pins the rule: lower-casing (as the released script does) changes
    40 levels; counting the FIRST five answers of question 412 changes 1."""
    assert len(rederive_knowledge(KNOWLEDGE, lowercase=True)["level_mismatches"]) == 40
    data = json.loads(KNOWLEDGE.read_text(encoding="utf-8"))
    first5 = [knowledge_level(answer_matches(r["AI_answer"], r["ground_truth"]) for r in g[:5])
              for g in group_runs(data["ai_answers"])]
    assert [q for q, (a, b) in enumerate(zip(first5, data["knowledge_level"])) if a != b] == [412]
    # every clause of the symmetric rule is needed (levels changed when a clause is dropped)
    def mismatches(rule) -> int:
        levels = [knowledge_level(rule(r["ground_truth"], r["AI_answer"]) for r in g[-5:])
                  for g in group_runs(data["ai_answers"])]
        return sum(a != b for a, b in zip(levels, data["knowledge_level"]))

    W = word_set
    assert mismatches(lambda t, a: W(t) <= W(a) or t in a or a in t) == 16  # no W(answer) <= W(gold)
    assert mismatches(lambda t, a: W(t) <= W(a) or W(a) <= W(t) or t in a) == 2  # no answer-in-gold
    assert mismatches(lambda t, a: t in a) == 71
    assert mismatches(lambda t, a: W(t) <= W(a)) == 145
    assert mismatches(lambda t, a: answer_matches(a, t)) == 0
    # the empty token is part of the rule
    W0 = lambda x: word_set(x) - {""}  # noqa: E731
    assert mismatches(lambda t, a: W0(t) <= W0(a) or W0(a) <= W0(t) or t in a or a in t) == 31


def test_rederive_small_file_and_errors(tmp_path):
    good = {"distribution": [0, 0, 0, 0, 1, 0], "knowledge_level": [4],
            "ai_answers": [_rec("Paris", a) for a in ("x", "Paris", "Paris.", "It is Paris", "paris", "Paris")]}
    path = tmp_path / "k.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    res = rederive_knowledge(path)  # 6 answers: the last 5 count -> 4 correct ("paris" is not)
    assert (res["levels"], res["distribution"], res["level_mismatches"]) == ([4], [0, 0, 0, 0, 1, 0], [])
    assert res["stored_sets_consistent"] is None and res["levels_from_stored_sets"] is None
    for content, message in [
        ("[]", "expected a JSON object"),
        ('{"ai_answers": 3}', "field 'ai_answers'"),
        ('{"ai_answers": [{"ground_truth": "a"}]}', r"ai_answers\[0\]: field 'AI_answer'"),
        ('{"ai_answers": [{"ground_truth": "a", "AI_answer": "a"}]}', r"run of 1 answers"),
        ("{not json", "line 1, column 2: invalid JSON"),
        ("", "the file is empty"),
    ]:
        path.write_text(content, encoding="utf-8")
        with pytest.raises(InputError, match=message) as err:
            rederive_knowledge(path)
        assert str(err.value).startswith(str(path))
    path.write_text(json.dumps(good), encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: ai_answers\[0\]: question 0"):
        rederive_knowledge(path, ["Lyon"])
