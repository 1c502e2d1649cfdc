"""Table-driven tests for authbench.llm.parse (reply -> value + status).

Every case asserts the exact value AND the exact status.  Decisions pinned here:
digit strings (``{"score": "7"}``) are accepted as clean numbers; integral floats
(``7.0``) are accepted; a reply cut off inside its last JSON object keeps its
complete pairs (status "missing" if ids are lost, "wrong_format" if the content
is complete but the object is unclosed).
"""

from __future__ import annotations

import random
import string

import pytest
from authbench.llm.parse import (
    OUTPUT_FORMATS,
    STATUSES,
    ParseResult,
    is_failure,
    normalise,
    parse_hash_rating,
    parse_list_scores,
    parse_pair_choice,
    parse_pair_scores,
    parse_ranking,
    parse_reply,
    parse_score,
    parse_utility,
    parse_yes_no,
)

# 10,000 characters of junk without digits, braces, brackets or standalone A/B.
_rng = random.Random(1234)
JUNK = "".join(_rng.choice(string.ascii_lowercase + " .,;!?-\n") for _ in range(10_000))
BINARY = bytes(range(256)).decode("latin-1") * 40


# --------------------------------------------------------------------------
# normalise
# --------------------------------------------------------------------------

@pytest.mark.parametrize(
    "raw, expected",
    [
        ('  {"score": 7}  ', '{"score": 7}'),
        ('```json\n{"score": 7}\n```', '{"score": 7}'),
        ("<think>let me see: 3</think>\n7", "7"),
        ("<think>a</think>x<think>b</think> B ", "B"),  # last </think> wins
        ("<THINK>a</Think>B", "B"),
        ("<think>never finished, answer 7", ""),  # unterminated reasoning: no answer
        ("［３］＞［１］", "[3]>[1]"),
        ("｛＂ｓｃｏｒｅ＂：７，｝", '{"score":7,}'),
        ("\u201cA\u201d \u2018B\u2019", "\"A\" 'B'"),
        ("\ufeff\u200bB", "B"),
        ("", ""),
        (None, ""),
        (b'{"score": 7}', '{"score": 7}'),
        (b"\xff\xfe7", "\ufffd\ufffd7"),
    ],
)
def test_normalise(raw, expected):
    assert normalise(raw) == expected


# --------------------------------------------------------------------------
# 1. parse_score
# --------------------------------------------------------------------------

SCORE_CASES = [
    # well-formed
    ('{"score": 7}', 7, "ok"),
    ('{"score":0}', 0, "ok"),
    ('{"score": 9}', 9, "ok"),
    ('{"Score": 4}', 4, "ok"),
    ("{'score': 6}", 6, "ok"),
    ("{score: 5}", 5, "ok"),
    ('{ "score" :   3 }', 3, "ok"),
    ('{"score": 7.0}', 7, "ok"),
    ('{"score": "7"}', 7, "ok"),  # documented decision: digit strings accepted
    ('{"reasoning": "solid .gov source", "score": 8}', 8, "ok"),
    ('{"evaluation": {"score": 6}}', 6, "ok"),
    # malformed but recoverable
    ('```json\n{"score": 7}\n```', 7, "ok"),
    ('Here is my evaluation:\n{"score": 5}\nHope this helps.', 5, "ok"),
    ('<think>maybe {"score": 2}?</think>{"score": 8}', 8, "ok"),
    ("｛＂ｓｃｏｒｅ＂：　７｝", 7, "ok"),
    ("{\u201cscore\u201d: 6}", 6, "ok"),
    ('{"score": 7,}', 7, "ok"),
    ('{"score": 4', 4, "wrong_format"),  # truncated: value kept, not clean
    ("7", 7, "wrong_format"),
    ("Score: 7", 7, "wrong_format"),
    ("**Score:** 3/9", 3, "wrong_format"),
    ("The final score is 6.", 6, "wrong_format"),
    ("  8.  ", 8, "wrong_format"),
    # adversarial
    ('Example: {"score": 3}\nMy answer: {"score": 8}', 8, "ok"),  # last wins
    ('{"score": 2} {"score": 9}', 9, "ok"),
    ('{"score": 11}', None, "out_of_range"),
    ('{"score": -1}', None, "out_of_range"),
    ('{"score": 10}', None, "out_of_range"),
    ('{"score": 99999999999999999999999999999999}', None, "out_of_range"),
    ('{"score": "' + "9" * 5000 + '"}', None, "out_of_range"),
    ("Score: 12", None, "out_of_range"),
    ("-1", None, "out_of_range"),
    ('{"score": 7.5}', None, "wrong_format"),
    ("7.5", None, "wrong_format"),
    ('{"score": "high"}', None, "wrong_format"),
    ('{"score": null}', None, "wrong_format"),
    ('{"score": true}', None, "wrong_format"),
    ("I think it is quite authoritative.", None, "wrong_format"),
    ("It is a 7 out of 9", None, "wrong_format"),
    ("", None, "wrong_format"),
    ("   \n\t ", None, "wrong_format"),
    (None, None, "wrong_format"),
    ("<think>the score is 7", None, "wrong_format"),  # reasoning never ended
    (JUNK, None, "wrong_format"),
    (BINARY, None, "wrong_format"),
    ("{" * 5000, None, "wrong_format"),
]


@pytest.mark.parametrize("text, value, status", SCORE_CASES)
def test_parse_score(text, value, status):
    res = parse_score(text)
    assert (res.value, res.status) == (value, status), res
    assert res.status in STATUSES
    assert (res.detail != "") == (status != "ok")


# --------------------------------------------------------------------------
# 2. parse_pair_choice
# --------------------------------------------------------------------------

PAIR_CHOICE_CASES = [
    # well-formed
    ("A", "A", "ok"),
    ("B", "B", "ok"),
    ("  B\n", "B", "ok"),
    ('"A"', "A", "ok"),
    ("'B'", "B", "ok"),
    ("[A]", "A", "ok"),
    ("A.", "A", "ok"),
    ("**B**", "B", "ok"),
    ("`A`", "A", "ok"),
    ("Domain A", "A", "ok"),
    ("Entity B", "B", "ok"),
    ("Answer: B", "B", "ok"),
    ('{"choice": "A"}', "A", "ok"),
    # malformed but recoverable
    ("```\nB\n```", "B", "ok"),
    ("<think>A seems fine but B is a .gov site</think>\nB", "B", "ok"),
    ("Ｂ", "B", "ok"),
    ("\u201cA\u201d", "A", "ok"),
    ("I prefer A because it is an official registry.", "A", "ok"),
    ("A reliable source here is Domain B.", "B", "ok"),  # leading "A" is the article
    ("After careful thought, the more authoritative one is B.", "B", "ok"),
    ("b", "B", "wrong_format"),  # lower case only: usable, not the asked format
    # adversarial
    ("A or B? I pick B", "B", "wrong_format"),
    ("A\nB", "B", "wrong_format"),
    ("B. Domain A is a personal blog.", "A", "wrong_format"),  # same tier: last wins
    ("Answer: B\nDomain A is a personal blog.", "B", "wrong_format"),  # verdict tier
    ("Domain A is a blog.\n\nB", "B", "wrong_format"),
    ("AB", None, "wrong_format"),
    ("a good question", None, "wrong_format"),
    ("Both are equally authoritative.", None, "wrong_format"),
    ("", None, "wrong_format"),
    (None, None, "wrong_format"),
    (JUNK, None, "wrong_format"),
    (BINARY, None, "wrong_format"),  # "@ABC...": letters are not standalone
    ("A " * 20_000, "A", "ok"),
]


@pytest.mark.parametrize("text, value, status", PAIR_CHOICE_CASES)
def test_parse_pair_choice(text, value, status):
    res = parse_pair_choice(text)
    assert (res.value, res.status) == (value, status), res
    assert (res.detail != "") == (status != "ok")


# --------------------------------------------------------------------------
# 3. parse_pair_scores
# --------------------------------------------------------------------------

PAIR_SCORES_CASES = [
    # well-formed
    ('{"A": 7, "B": 4}', {"A": 7, "B": 4}, "ok"),
    ('{"B": 0, "A": 9}', {"A": 9, "B": 0}, "ok"),
    ('{"A": 7.0, "B": "4"}', {"A": 7, "B": 4}, "ok"),
    ('{"A": 5, "B": 5, "reason": "both official"}', {"A": 5, "B": 5}, "ok"),
    # malformed but recoverable
    ("{'A': 7, 'B': 4}", {"A": 7, "B": 4}, "ok"),
    ('{"A": 7, "B": 4,}', {"A": 7, "B": 4}, "ok"),
    ("{A: 7, B: 4}", {"A": 7, "B": 4}, "ok"),
    ('{"Domain A": 3, "Domain B": 6}', {"A": 3, "B": 6}, "ok"),
    ('```json\n{"A": 2, "B": 8}\n```', {"A": 2, "B": 8}, "ok"),
    ('Scores:\n{"A": 6, "B": 1}\nA is stronger.', {"A": 6, "B": 1}, "ok"),
    ('<think>{"A": 1, "B": 1}</think>{"A": 8, "B": 3}', {"A": 8, "B": 3}, "ok"),
    ("｛＂Ａ＂：７，＂Ｂ＂：４｝", {"A": 7, "B": 4}, "ok"),
    ('{"A": 7, "B": 4', {"A": 7, "B": 4}, "wrong_format"),  # unclosed
    # adversarial
    ('Example: {"A": 1, "B": 2}\nAnswer: {"A": 7, "B": 4}', {"A": 7, "B": 4}, "ok"),
    ('{"A": 7, "B": 4} {"A": 8}', None, "missing"),  # last verdict is incomplete
    ('{"A": 7}', None, "missing"),
    ('{"A": 7, "B": ', None, "missing"),  # truncated
    ('{"A": 7, "B": null}', None, "missing"),
    ('{"A": 11, "B": 4}', None, "out_of_range"),
    ('{"A": 3, "B": -1}', None, "out_of_range"),
    ('{"A": 7.5, "B": 4}', None, "wrong_format"),
    ('{"A": "high", "B": 4}', None, "wrong_format"),
    ("A: 7, B: 4", None, "wrong_format"),  # no object
    ('{"score": 7}', None, "wrong_format"),
    ("", None, "wrong_format"),
    (None, None, "wrong_format"),
    (JUNK, None, "wrong_format"),
    (BINARY, None, "wrong_format"),
]


@pytest.mark.parametrize("text, value, status", PAIR_SCORES_CASES)
def test_parse_pair_scores(text, value, status):
    res = parse_pair_scores(text)
    assert (res.value, res.status) == (value, status), res
    assert (res.detail != "") == (status != "ok")


# --------------------------------------------------------------------------
# 4. parse_ranking
# --------------------------------------------------------------------------

RANKING_CASES = [
    # well-formed
    ("[4] > [0] > [2] > [1] > [3]", 5, [4, 0, 2, 1, 3], "ok"),
    ("[0] > [1] > [2]", 3, [0, 1, 2], "ok"),
    ("[1]>[0]", 2, [1, 0], "ok"),
    ("[0]", 1, [0], "ok"),
    ("[ 2 ] > [ 0 ] > [ 1 ]", 3, [2, 0, 1], "ok"),
    ("[9] > [8] > [7] > [6] > [5] > [4] > [3] > [2] > [1] > [0]", 10, list(range(9, -1, -1)), "ok"),
    # malformed but recoverable
    ("Ranking: [2] > [0] > [1]. Done.", 3, [2, 0, 1], "ok"),
    ("```\n[2] > [0] > [1]\n```", 3, [2, 0, 1], "ok"),
    ("<think>[0] > [1] > [2]?</think>[2] > [1] > [0]", 3, [2, 1, 0], "ok"),
    ("［３］＞［１］＞［０］＞［２］", 4, [3, 1, 0, 2], "ok"),
    ("[2], [0], [3], [1]", 4, [2, 0, 3, 1], "ok"),
    ("1. [2]\n2. [0]\n3. [3]\n4. [1]", 4, [2, 0, 3, 1], "ok"),
    ("[2] (most authoritative) > [0] > [1]", 3, [2, 0, 1], "ok"),
    ("2 > 0 > 1", 3, [2, 0, 1], "ok"),  # bare-integer fallback
    ("2, 0, 1", 3, [2, 0, 1], "ok"),
    ("[3] > [1]", 4, [3, 1, 0, 2], "missing"),
    ("[4] > [0] > [2", 5, [4, 0, 1, 2, 3], "missing"),  # truncated
    # adversarial
    ("Example: [1] > [2] > [0]\nMy ranking: [2] > [0] > [1]", 3, [2, 0, 1], "ok"),
    ("Example: [1] > [2] > [3] > [0]\nAnswer: [2] > [0] > [3] > [1]\n"
     "I put [2] first because [0] is older.", 4, [2, 0, 3, 1], "ok"),
    ("[3] > [3] > [1]", 4, [3, 1, 0, 2], "repetition"),
    ("[1] > [0] > [1] > [2]", 3, [1, 0, 2], "repetition"),
    ("[12] > [3] > [1]", 10, [3, 1, 0, 2, 4, 5, 6, 7, 8, 9], "unknown_id"),
    ("[12] > [3] > [3]", 10, [3, 0, 1, 2, 4, 5, 6, 7, 8, 9], "unknown_id"),  # unknown > repetition
    ("[2] > [0] > [1] > [3]", 3, [2, 0, 1], "unknown_id"),
    ("[2] > [-1] > [0] > [1]", 3, [2, 0, 1], "unknown_id"),
    ("[99999999999999999999] > [0] > [1]", 2, [0, 1], "unknown_id"),
    ("I cannot rank these.", 3, [0, 1, 2], "wrong_format"),
    ("", 4, [0, 1, 2, 3], "wrong_format"),
    (None, 2, [0, 1], "wrong_format"),
    (JUNK, 10, list(range(10)), "wrong_format"),
]


@pytest.mark.parametrize("text, n, value, status", RANKING_CASES)
def test_parse_ranking(text, n, value, status):
    res = parse_ranking(text, n)
    assert (res.value, res.status) == (value, status), res
    assert sorted(res.value) == list(range(n))  # always a full permutation
    assert (res.detail != "") == (status != "ok")


def test_parse_ranking_detail_counts():
    res = parse_ranking("[12] > [3] > [3] > [1]", 10)
    assert res.status == "unknown_id"
    assert "unknown=[12]" in res.detail
    assert "duplicates=[3]" in res.detail
    assert "missing=[0, 2, 4, 5, 6, 7, 8, 9]" in res.detail
    assert parse_ranking("[0] > [1] > [2] > [4]", 8).detail == "missing=[3, 5, 6, 7]"


@pytest.mark.parametrize("n", [0, -1, None, 2.0, True])
def test_parse_ranking_bad_n_raises(n):
    with pytest.raises(ValueError):
        parse_ranking("[0] > [1]", n)


# --------------------------------------------------------------------------
# 5. parse_list_scores
# --------------------------------------------------------------------------


def _d(*scores):
    return dict(enumerate(scores))


LIST_SCORES_CASES = [
    # well-formed
    ('{"0": 7, "1": 4, "2": 9}', 3, _d(7, 4, 9), "ok"),
    ('{"2": 1, "0": 0, "1": 5}', 3, _d(0, 5, 1), "ok"),
    ('{"0": 7, "1": 4, "2": 9, "3": 8, "4": 0, "5": 1, "6": 2, "7": 3, "8": 5, "9": 8}', 10,
     _d(7, 4, 9, 8, 0, 1, 2, 3, 5, 8), "ok"),
    ('{"0": "7", "1": 4.0}', 2, _d(7, 4), "ok"),
    # malformed but recoverable
    ("{'0': 7, '1': 4}", 2, _d(7, 4), "ok"),
    ("{0: 7, 1: 4}", 2, _d(7, 4), "ok"),
    ('{"[0]": 7, "[1]": 4}', 2, _d(7, 4), "ok"),
    ('{"0": 7, "1": 4,}', 2, _d(7, 4), "ok"),
    ('```json\n{"0": 3, "1": 6}\n```', 2, _d(3, 6), "ok"),
    ('Here are my scores:\n{"0": 3, "1": 6}\nThanks!', 2, _d(3, 6), "ok"),
    ('{"scores": {"0": 3, "1": 6}}', 2, _d(3, 6), "ok"),
    ('<think>{"0": 1}</think>{"0": 2, "1": 3}', 2, _d(2, 3), "ok"),
    ("｛＂０＂：７，＂１＂：４｝", 2, _d(7, 4), "ok"),
    ('{"0": 7, "1": 4, "2": ', 4, _d(7, 4, None, None), "missing"),  # truncated
    ('{"0": 7, "1": 4, "2": 5', 3, _d(7, 4, 5), "wrong_format"),  # complete but unclosed
    # adversarial
    ('Example: {"0": 1, "1": 1}\nAnswer: {"0": 8, "1": 2}', 2, _d(8, 2), "ok"),
    ('{"0": 7, "0": 5, "1": 4}', 2, _d(5, 4), "ok"),  # duplicate key: last wins
    ('{"0": 7}', 3, _d(7, None, None), "missing"),
    ('{"0": 7, "1": null}', 2, _d(7, None), "missing"),
    ('{"0": 7, "1": 11}', 2, _d(7, None), "out_of_range"),
    ('{"0": -1, "1": 4}', 2, _d(None, 4), "out_of_range"),
    ('{"0": 7, "1": 4, "12": 5}', 2, _d(7, 4), "unknown_id"),
    ('{"0": 11, "12": 5}', 2, _d(None, None), "out_of_range"),  # out_of_range > unknown_id
    ('{"0": 7, "12": 5}', 2, _d(7, None), "unknown_id"),  # unknown_id > missing
    ('{"0": 7.5, "1": 11}', 2, _d(None, None), "wrong_format"),  # non-integer value
    ('{"0": "high", "1": 4}', 2, _d(None, 4), "wrong_format"),
    ('{"score": 7}', 2, _d(None, None), "wrong_format"),
    ("[7, 4]", 2, _d(None, None), "wrong_format"),
    ("", 3, _d(None, None, None), "wrong_format"),
    (None, 1, _d(None), "wrong_format"),
    (JUNK, 10, dict.fromkeys(range(10)), "wrong_format"),
    (BINARY, 3, _d(None, None, None), "wrong_format"),
]


@pytest.mark.parametrize("text, n, value, status", LIST_SCORES_CASES)
def test_parse_list_scores(text, n, value, status):
    res = parse_list_scores(text, n)
    assert (res.value, res.status) == (value, status), res
    assert list(res.value) == list(range(n))
    assert (res.detail != "") == (status != "ok")


@pytest.mark.parametrize("n", [0, None, "3"])
def test_parse_list_scores_bad_n_raises(n):
    with pytest.raises(ValueError):
        parse_list_scores('{"0": 1}', n)


# --------------------------------------------------------------------------
# 6. parse_yes_no
# --------------------------------------------------------------------------

YES_NO_CASES = [
    # well-formed
    ("yes", "yes", "ok"),
    ("no", "no", "ok"),
    (" yes", "yes", "ok"),
    ("Yes", "yes", "ok"),
    ("NO", "no", "ok"),
    ("No.", "no", "ok"),
    ("yes!", "yes", "ok"),
    ("no;", "no", "ok"),
    ("yes:", "yes", "ok"),
    ("yes)", "yes", "ok"),
    ("  Yes\n", "yes", "ok"),
    # first word decides, whatever follows
    ("Yes, because the documents say so.", "yes", "ok"),
    ("yes\n\nThe documents say otherwise.", "yes", "ok"),
    ("No. Document [2] is a blog.", "no", "ok"),
    ("No, no evidence supports it.", "no", "ok"),
    ("Yes. No wait.", "yes", "ok"),
    ("yes\tno", "yes", "ok"),  # whitespace then another word: not "yes or no"
    # stripped decoration and labels
    ("**Yes**", "yes", "ok"),
    ("*no*", "no", "ok"),
    ("_yes_", "yes", "ok"),
    ('"no"', "no", "ok"),
    ("'Yes'", "yes", "ok"),
    ("`no`", "no", "ok"),
    ("**Yes**, the documents agree.", "yes", "ok"),
    ("Answer: yes", "yes", "ok"),
    ("answer:no", "no", "ok"),
    ("Final answer: No.", "no", "ok"),
    ("**Final Answer:** yes", "yes", "ok"),
    ("Answer: **No**", "no", "ok"),
    ("A: yes", "yes", "ok"),
    ("Your answer: no", "no", "ok"),
    ("```\nyes\n```", "yes", "ok"),
    ("<think>the documents say no... or yes</think>\nYes", "yes", "ok"),
    ("ｙｅｓ", "yes", "ok"),  # full-width, NFKC
    ("\u201cno\u201d", "no", "ok"),
    # both as the verdict
    ("Yes/No", None, "wrong_format"),
    ("yes or no", None, "wrong_format"),
    ("Yes and no.", None, "wrong_format"),
    ("no | yes", None, "wrong_format"),
    ("**Yes** / **No**", None, "wrong_format"),
    # not a leading yes/no: wrong and a parse failure, even if yes/no comes later
    ("The answer is yes.", None, "wrong_format"),
    ("Based on the documents, no.", None, "wrong_format"),
    ("Answer - yes", None, "wrong_format"),
    ('{"answer": "yes"}', None, "wrong_format"),
    ("(yes)", None, "wrong_format"),
    ("Yes?", None, "wrong_format"),
    ("Yes-ish", None, "wrong_format"),
    ("yes_no", None, "wrong_format"),
    ("yeah", None, "wrong_format"),
    ("yep", None, "wrong_format"),
    ("nope", None, "wrong_format"),
    ("Noah", None, "wrong_format"),
    ("None", None, "wrong_format"),
    ("Not enough information.", None, "wrong_format"),
    ("Y", None, "wrong_format"),
    ("N", None, "wrong_format"),
    ("true", None, "wrong_format"),
    ("False", None, "wrong_format"),
    ("1", None, "wrong_format"),
    ("", None, "wrong_format"),
    ("  \n ** ", None, "wrong_format"),
    (None, None, "wrong_format"),
    ("<think>the answer is yes", None, "wrong_format"),  # reasoning never ended
    (JUNK, None, "wrong_format"),
    (BINARY, None, "wrong_format"),
    ("yes " * 100_000, "yes", "ok"),
    (" " * 100_000 + "no", "no", "ok"),
    ("*" * 100_000, None, "wrong_format"),
]


@pytest.mark.parametrize("text, value, status", YES_NO_CASES)
def test_parse_yes_no(text, value, status):
    res = parse_yes_no(text)
    assert (res.value, res.status) == (value, status), res
    assert (res.detail != "") == (status != "ok")


@pytest.mark.parametrize(
    "text, detail",
    [
        ("The answer is yes", "found yes later"),
        ("It is not yes, it is no", "found yes and no later"),
        ("maybe", "no yes/no in the reply"),
        ("yes/no", "both yes and no"),
        ("Yes?", "glued to other text"),
        ("", "empty reply"),
    ],
)
def test_parse_yes_no_detail(text, detail):
    assert detail in parse_yes_no(text).detail


# --------------------------------------------------------------------------
# 7. parse_utility
# --------------------------------------------------------------------------


def _u(scores, answers):
    return {"scores": dict(enumerate(scores)), "answers": dict(enumerate(answers))}


_Y2 = ("yes", "no")
_N2 = (None, None)

UTILITY_CASES = [
    # well-formed
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": 4}}', 2, _u((7, 4), _Y2), "ok"),
    (' {"answers": {"0": "yes"}, "scores": {"0": 0}}', 1, _u((0,), ("yes",)), "ok"),
    ('{"scores": {"1": 2, "0": 9}, "answers": {"1": "no", "0": "yes"}}', 2, _u((9, 2), _Y2), "ok"),
    ('{"answers": {"0": "Vitamin D does not prevent it.", "1": "Unclear."}, "scores": {"0": 8, "1": 1}}', 2,
     _u((8, 1), ("Vitamin D does not prevent it.", "Unclear.")), "ok"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": "7", "1": 4.0}}', 2, _u((7, 4), _Y2), "ok"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"[0]": 7, "[1]": 4}}', 2, _u((7, 4), _Y2), "ok"),
    # answer strings with braces, quotes, escaped quotes, newlines
    ('{"answers": {"0": "a {b} c}", "1": "say \\"no\\"\\n{\\"scores\\": {\\"0\\": 1}}"}, '
     '"scores": {"0": 5, "1": 6}}', 2, _u((5, 6), ("a {b} c}", 'say "no"\n{"scores": {"0": 1}}')), "ok"),
    ('{"answers": {"0": "}}}", "1": "{{{"}, "scores": {"0": 3, "1": 2}}', 2, _u((3, 2), ("}}}", "{{{")), "ok"),
    ('{"answers": {"0": "line one\nline two"}, "scores": {"0": 4}}', 1, _u((4,), ("line one\nline two",)), "ok"),  # raw newline
    # wrappers
    ('```json\n{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": 4}}\n```', 2, _u((7, 4), _Y2), "ok"),
    ('Here you go:\n{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": 4}}\nDone.', 2,
     _u((7, 4), _Y2), "ok"),
    ('<think>{"answers": {"0": "no"}, "scores": {"0": 1}}</think>{"answers": {"0": "yes"}, "scores": {"0": 9}}', 1,
     _u((9,), ("yes",)), "ok"),
    ('{"result": {"answers": {"0": "yes"}, "scores": {"0": 6}}}', 1, _u((6,), ("yes",)), "ok"),
    ("｛＂ａｎｓｗｅｒｓ＂：｛＂０＂：＂ｙｅｓ＂｝，＂ｓｃｏｒｅｓ＂：｛＂０＂：７｝｝", 1, _u((7,), ("yes",)), "ok"),
    # tolerant (not valid JSON, but complete)
    ("{'answers': {'0': 'yes', '1': 'no'}, 'scores': {'0': 7, '1': 4}}", 2, _u((7, 4), _Y2), "ok"),
    ('{"answers": {"0": "yes", "1": "no",}, "scores": {"0": 7, "1": 4,},}', 2, _u((7, 4), _Y2), "ok"),
    # answers: numbers become strings, other values None; missing answers keep ok
    ('{"answers": {"0": 1, "1": 2.5}, "scores": {"0": 7, "1": 4}}', 2, _u((7, 4), ("1", "2.5")), "ok"),
    ('{"answers": {"0": true, "1": null}, "scores": {"0": 7, "1": 4}}', 2, _u((7, 4), _N2), "ok"),
    ('{"answers": {"0": "yes"}, "scores": {"0": 7, "1": 4}}', 2, _u((7, 4), ("yes", None)), "ok"),
    ('{"answers": {}, "scores": {"0": 7, "1": 4}}', 2, _u((7, 4), _N2), "ok"),
    ('{"answers": {"0": "yes", "5": "no"}, "scores": {"0": 7}}', 1, _u((7,), ("yes",)), "ok"),  # extra answer ignored
    # no answers object
    ('{"scores": {"0": 7, "1": 4}}', 2, _u((7, 4), _N2), "missing"),
    ('{"answers": ["yes", "no"], "scores": {"0": 7, "1": 4}}', 2, _u((7, 4), _N2), "missing"),
    ('{"answers": "yes", "scores": {"0": 7, "1": 4}}', 2, _u((7, 4), _N2), "missing"),
    # scores problems (list_scores precedence)
    ('{"answers": {"0": "yes", "1": "no"}, "scores": [7, 4]}', 2, _u(_N2, _Y2), "wrong_format"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": 7}', 2, _u(_N2, _Y2), "wrong_format"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7.5, "1": 11}}', 2, _u(_N2, _Y2), "wrong_format"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": "high", "1": 4}}', 2, _u((None, 4), _Y2), "wrong_format"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": 11}}', 2, _u((7, None), _Y2), "out_of_range"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": 4, "2": 5}}', 2, _u((7, 4), _Y2), "unknown_id"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7}}', 2, _u((7, None), _Y2), "missing"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": null}}', 2, _u((7, None), _Y2), "missing"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {}}', 2, _u(_N2, _Y2), "missing"),
    ('{"answers": {"0": "yes"}, "scores": {"0": ' + "9" * 5000 + "}}", 1, _u((None,), ("yes",)), "out_of_range"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "0": 5, "1": 4}}', 2, _u((5, 4), _Y2), "ok"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": 4}, "scores": {"0": 1, "1": 2}}', 2,
     _u((1, 2), _Y2), "ok"),  # duplicate key: last wins
    # no scores object
    ('{"answers": {"0": "yes", "1": "no"}}', 2, _u(_N2, _Y2), "missing"),
    # truncation
    ('{"answers": {"0": "yes", "1": "n', 2, _u(_N2, ("yes", None)), "missing"),  # cut inside answers
    ('{"answers": {"0": "yes", "1": "no"}, "sco', 2, _u(_N2, _Y2), "missing"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": ', 2, _u(_N2, _Y2), "missing"),
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": ', 2, _u((7, None), _Y2), "missing"),
    ('{"answers": {"0": "{yes}", "1": "no"}, "scores": {"0": 7, "1": 4', 2, _u((7, 4), ("{yes}", "no")),
     "wrong_format"),  # complete scores, unclosed
    ('{"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": 4}', 2, _u((7, 4), _Y2), "wrong_format"),
    ('{"answers": {"0": "a \\"quoted\\" {x}", "1": "n', 2, _u(_N2, ('a "quoted" {x}', None)), "missing"),
    # last verdict wins
    ('Example: {"answers": {"0": "no"}, "scores": {"0": 1}}\nAnswer: {"answers": {"0": "yes"}, "scores": {"0": 8}}',
     1, _u((8,), ("yes",)), "ok"),
    ('Example: {"answers": {"0": "no"}, "scores": {"0": 1}}\nAnswer: {"answers": {"0": "yes"}, "scores": {"0": ', 1,
     _u((None,), ("yes",)), "missing"),  # truncated later verdict beats the example
    ('Example: {"answers": {"0": "no"}, "scores": {"0": 1}}\nAnswer: {"answers": {"0": "ye', 1,
     _u((None,), (None,)), "missing"),
    ('{"answers": {"0": "no"}, "scores": {"0": 1}} {"answers": {"0": "yes"}}', 1, _u((None,), ("yes",)), "missing"),
    ('{"answers": {"0": "no"}} {"scores": {"0": 4}}', 1, _u((4,), (None,)), "missing"),  # split: no answers object
    # flat list-score object: scores kept, wrong format
    ('{"0": 7, "1": 4}', 2, _u((7, 4), _N2), "wrong_format"),
    ('{"0": 7}', 2, _u((7, None), _N2), "wrong_format"),
    ('{"0": 7, "1": 12}', 2, _u((7, None), _N2), "wrong_format"),
    # nothing usable
    ('{"0": "yes", "1": "no"}', 2, _u(_N2, _N2), "wrong_format"),
    ('{"answer": "yes"}', 1, _u((None,), (None,)), "wrong_format"),
    ("[7, 4]", 2, _u(_N2, _N2), "wrong_format"),
    ("Document 0 is useful (7), document 1 less so (4).", 2, _u(_N2, _N2), "wrong_format"),
    ("yes", 1, _u((None,), (None,)), "wrong_format"),
    ("", 2, _u(_N2, _N2), "wrong_format"),
    (None, 1, _u((None,), (None,)), "wrong_format"),
    ('<think>{"answers": {"0": "yes"}, "scores": {"0": 7}}', 1, _u((None,), (None,)), "wrong_format"),
    (JUNK, 10, _u((None,) * 10, (None,) * 10), "wrong_format"),
    (BINARY, 3, _u((None,) * 3, (None,) * 3), "wrong_format"),
    ("{" * 5000, 2, _u(_N2, _N2), "wrong_format"),
    ('{"a":' * 5000, 2, _u(_N2, _N2), "wrong_format"),  # deeper than json's recursion limit
    ("{}" * 5000 + '{"answers": {"0": "yes"}, "scores": {"0": 3}}', 1, _u((3,), ("yes",)), "ok"),  # past the try cap
]


@pytest.mark.parametrize("text, n, value, status", UTILITY_CASES)
def test_parse_utility(text, n, value, status):
    res = parse_utility(text, n)
    assert (res.value, res.status) == (value, status), res
    _check_utility_shape(res, n)
    if status != "ok":
        assert res.detail
    elif None not in res.value["answers"].values():
        assert res.detail == ""


def _check_utility_shape(res: ParseResult, n: int) -> None:
    assert set(res.value) == {"scores", "answers"}
    assert list(res.value["scores"]) == list(range(n))
    assert list(res.value["answers"]) == list(range(n))
    assert all(v is None or (type(v) is int and 0 <= v <= 9) for v in res.value["scores"].values())
    assert all(v is None or isinstance(v, str) for v in res.value["answers"].values())


@pytest.mark.parametrize(
    "text, n, detail",
    [
        ('{"answers": {"0": "yes"}, "scores": {"0": 7, "1": 4}}', 2, "answers missing=[1]"),
        ('{"scores": {"0": 7}}', 1, "no answers object"),
        ('{"answers": {"0": "yes"}}', 1, "no scores object"),
        ('{"answers": {"0": "yes"}, "scores": [7]}', 1, "scores is not an object"),
        ('{"0": 7, "1": 4}', 2, "flat id->score object"),
        ('{"answers": {"0": "yes"}, "scores": {"0": 7', 1, "unclosed JSON object"),
        ("nothing", 1, "no object with scores"),
    ],
)
def test_parse_utility_detail(text, n, detail):
    assert detail in parse_utility(text, n).detail


@pytest.mark.parametrize("n", [0, None, "3", True])
def test_parse_utility_bad_n_raises(n):
    with pytest.raises(ValueError):
        parse_utility('{"scores": {"0": 1}}', n)


def test_parse_utility_huge_inputs_are_fast():
    import time

    texts = ['{"a":' * 100_000, "{}" * 200_000, '"scores": {' * 50_000, '{"answers": {"0": "' + 'a\\"' * 100_000]
    for text in texts:
        start = time.perf_counter()
        res = parse_utility(text, 10)
        assert res.status != "ok" and not res.detail.startswith("parser error")
        assert time.perf_counter() - start < 5


# --------------------------------------------------------------------------
# 7b. parse_hash_rating  ###<number>***  (self-preference reranking, 1..5)
# --------------------------------------------------------------------------

HASH_RATING_CASES = [
    # tier 0: both markers
    ("###4***", 4, "ok"),
    (" ###1***", 1, "ok"),  # the constrained reply's leading space
    ("###5***", 5, "ok"),
    ("### 4 ***", 4, "ok"),  # decision: inner spaces tolerated (the paper's float() parser accepts them)
    ("###\t2\t***", 2, "ok"),
    ("####4****", 4, "ok"),
    ("###4.0***", 4, "ok"),  # integral float
    ("###+3***", 3, "ok"),
    ("**###4***.**", 4, "ok"),
    ("###4***\n\nThe passage answers the question.", 4, "ok"),
    ("I rate it 3. ###4***", 4, "ok"),  # markers beat a loose rating
    ("###3*** on second thought ###5***", 5, "ok"),  # last verdict wins
    ("<think>###1***?</think>###2***", 2, "ok"),
    ("```\n###3***\n```", 3, "ok"),
    ("＃＃＃４＊＊＊", 4, "ok"),  # full-width (NFKC)
    ("###<4>***", 4, "wrong_format"),  # template brackets copied
    ("###3.5***", None, "wrong_format"),  # non-integer
    ("###0***", None, "out_of_range"),
    ("###6***", None, "out_of_range"),
    ("###10***", None, "out_of_range"),
    ("###-1***", None, "out_of_range"),
    ("###2*** then ###7***", None, "out_of_range"),  # the last verdict is out of range
    ("###99999999999999999999***", None, "out_of_range"),
    # tier 1: one marker
    ("###4", 4, "wrong_format"),
    ("The passage gets ###4.", 4, "wrong_format"),
    ("4***", 4, "wrong_format"),
    ("#4***", 4, "wrong_format"),
    ("###3 and later ###5", 5, "wrong_format"),
    ("###8", None, "out_of_range"),
    # tier 2: loose ratings
    ("Score: 4", 4, "wrong_format"),
    ("Rating: 2.", 2, "wrong_format"),
    ("I would rate this passage a 4.", 4, "wrong_format"),
    ("4/5", 4, "wrong_format"),
    ("3 out of 5", 3, "wrong_format"),
    ("Rating: 7", None, "out_of_range"),
    ("Score: 3.5", None, "wrong_format"),
    # tier 3: a bare number
    ("4", 4, "wrong_format"),
    ('"4."', 4, "wrong_format"),
    ("0", None, "out_of_range"),
    # nothing usable
    ("", None, "wrong_format"),
    ("   ", None, "wrong_format"),
    (None, None, "wrong_format"),
    ("###<number>***", None, "wrong_format"),
    ("###five***", None, "wrong_format"),
    ("The passage is suitable.", None, "wrong_format"),
    ("<think>###4***", None, "wrong_format"),  # unfinished reasoning: no answer
    (b"###5***", 5, "ok"),
]


@pytest.mark.parametrize("text, value, status", HASH_RATING_CASES)
def test_parse_hash_rating(text, value, status):
    res = parse_hash_rating(text)
    assert (res.value, res.status) == (value, status)
    assert (res.detail == "") == (status == "ok")


@pytest.mark.parametrize(
    "text, detail",
    [
        ("###4", "no closing ***"),
        ("4***", "no opening ###"),
        ("###3.5***", "non-integer rating '3.5'"),
        ("###6***", "rating 6 outside 1..5"),
        ("4", "bare number without ###...***"),
        ("nothing", "no rating found"),
    ],
)
def test_parse_hash_rating_detail(text, detail):
    assert parse_hash_rating(text).detail == detail


def test_parse_hash_rating_huge_inputs_are_fast():
    import time

    texts = ["#" * 200_000, "###" + " " * 200_000 + "x", "1" * 200_000, "*" * 200_000, "###4" * 50_000,
             "score " * 50_000, "1." * 100_000, "### <" * 50_000, "4 " * 100_000 + "*"]
    for text in texts:
        start = time.perf_counter()
        res = parse_hash_rating(text)
        assert res.status in STATUSES and not res.detail.startswith("parser error")
        assert time.perf_counter() - start < 5, text[:20]


def test_parse_hash_rating_fuzz_with_markers():
    rng = random.Random(5)
    pieces = ["###", "***", "#", "*", "<", ">", " ", "\n", "4", "3.5", "0", "10", "-", "Score: ", "/5", "x"]
    for _ in range(2_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        res = parse_hash_rating(text)
        assert res.status in STATUSES and not res.detail.startswith("parser error"), text
        assert res.value is None or (isinstance(res.value, int) and 1 <= res.value <= 5), text
        assert (res.status == "ok") == (res.detail == "")
        if res.status == "ok":
            assert "###" in text and "***" in text


# --------------------------------------------------------------------------
# 8. dispatcher, is_failure, robustness
# --------------------------------------------------------------------------

@pytest.mark.parametrize(
    "fmt, text, n, value, status",
    [
        ("score", '{"score": 7}', None, 7, "ok"),
        ("pair_choice", "B", None, "B", "ok"),
        ("pair_scores", '{"A": 7, "B": 4}', None, {"A": 7, "B": 4}, "ok"),
        ("ranking", "[1] > [0]", 2, [1, 0], "ok"),
        ("list_scores", '{"0": 7, "1": 4}', 2, {0: 7, 1: 4}, "ok"),
        ("yes_no", "Yes.", None, "yes", "ok"),
        ("yes_no", "no", 4, "no", "ok"),  # n ignored
        ("utility", '{"answers": {"0": "no"}, "scores": {"0": 3}}', 1, {"scores": {0: 3}, "answers": {0: "no"}}, "ok"),
        ("score", "Score: 7", 5, 7, "wrong_format"),  # n ignored
        ("hash_rating", "###4***", None, 4, "ok"),
        ("hash_rating", "###4***", 3, 4, "ok"),  # n ignored
    ],
)
def test_parse_reply_dispatch(fmt, text, n, value, status):
    res = parse_reply(fmt, text, n)
    assert (res.value, res.status) == (value, status)


@pytest.mark.parametrize(
    "fmt, n",
    [("verdict", None), ("", None), ("SCORE", None), ("ranking", None), ("list_scores", None),
     ("utility", None), ("utility", 0), ("YES_NO", None)],
)
def test_parse_reply_programming_errors_raise(fmt, n):
    with pytest.raises(ValueError):
        parse_reply(fmt, "[0]", n)


@pytest.mark.parametrize(
    "result, failed",
    [
        (ParseResult(7, "ok"), False),
        (ParseResult(7, "wrong_format", "x"), True),
        (ParseResult([0, 1], "missing", "x"), True),
        (ParseResult(None, "out_of_range", "x"), True),
    ],
)
def test_is_failure(result, failed):
    assert is_failure(result) is failed


def test_result_is_frozen():
    res = parse_score('{"score": 7}')
    with pytest.raises(AttributeError):
        res.status = "wrong_format"  # type: ignore[misc]


def _fuzz_texts(count: int = 400):
    rng = random.Random(20240611)
    alphabet = (
        '{}[]":,>0123456789 -.\n\'AB ab score choice </think> ```json '
        "［］｛｝：＂，＞３７\u201c\u201d\ud800\x00\x1b\u200b"
    )
    pieces = ['{"score": ', '{"A": ', '"B": ', '{"0": ', "[3] > ", "Domain ", "<think>", "</think>", "}",
              '{"answers": ', '"scores": ', '"yes"', " no", "Yes", '\\"']
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(0, 30)):
            if rng.random() < 0.3:
                parts.append(rng.choice(pieces))
            else:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))))
        yield "".join(parts)


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
def test_fuzz_never_raises_and_keeps_shape(fmt):
    n = 10
    for text in _fuzz_texts():
        res = parse_reply(fmt, text, n)
        assert isinstance(res, ParseResult)
        assert res.status in STATUSES
        assert not res.detail.startswith("parser error"), (text, res)
        if fmt == "ranking":
            assert sorted(res.value) == list(range(n))
        elif fmt == "list_scores":
            assert list(res.value) == list(range(n))
            assert all(v is None or 0 <= v <= 9 for v in res.value.values())
        elif fmt == "score":
            assert res.value is None or (isinstance(res.value, int) and 0 <= res.value <= 9)
        elif fmt == "pair_choice":
            assert res.value in (None, "A", "B")
        elif fmt == "yes_no":
            assert res.value in (None, "yes", "no")
        elif fmt == "utility":
            _check_utility_shape(res, n)
        elif fmt == "hash_rating":
            assert res.value is None or (isinstance(res.value, int) and 1 <= res.value <= 5)
        elif res.value is not None:
            assert set(res.value) == {"A", "B"}


@pytest.mark.parametrize("fmt", OUTPUT_FORMATS)
@pytest.mark.parametrize("junk", [b"\x00\xff\xfe\x80" * 100, 12345, object(), "\ud800\udfff" * 50])
def test_non_string_and_binary_inputs(fmt, junk):
    res = parse_reply(fmt, junk, 3)
    assert res.status in STATUSES
    assert not res.detail.startswith("parser error")
