"""authbench.studies.selfpref.answers: answer matching, attribution; plus the
``hash_rating`` reply format's grammar/slots (authbench.llm.grammars). The
knowledge levels built on the matching rule: test_knowledge.py.
``hash_rating`` with the demo model's tokenizer:
tests/workflow/test_selfpref_answers_real_model.py.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from authbench.llm.grammars import grammar_for, max_tokens_for, slots_for, token_budget
from authbench.llm.parse import parse_hash_rating, parse_reply
from authbench.studies.selfpref.answers import (ATTRIBUTION_STATUSES, FAIL_PASSAGE, Attribution, answer_matches,
                                                attribute, extract_answer, normalise_answer, passage_contains,
                                                same_answer, stated_index, word_set)

DATA = Path(__file__).resolve().parents[4] / "resources" / "data" / "selfpref"  # shipped with the repository


# --------------------------------------------------------------------------
# word sets
# --------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, expected",
    [
        ("Linda Davis", {"Linda", "Davis"}),
        ("Linda Davis.", {"", "Linda", "Davis"}),  # the trailing "." leaves an empty token
        ('Yes. Reba McEntire sings "Does He Love You."',
         {"", "Yes", "Reba", "McEntire", "sings", '"Does', "He", "Love", "You", '"'}),
        ("Roy Raymond in 1977.", {"Roy", "Raymond", "in", "1977."}),  # "." touching a digit is kept
        ("Wesley, portrayed by", {"Wesley", "", "portrayed", "by"}),
        ("3.5 million", {"3.5", "million"}),
        ("1,000 people", {"1,000", "people"}),
        ("(played by actor Gordon Wharmby)", {"(played", "by", "actor", "Gordon", "Wharmby)"}),
        ("A, B, and C", {"A", "", "B", "and", "C"}),  # the authors' docstring example
        ("St. Lawrence", {"St", "", "Lawrence"}),
        ("song?", {"song?"}),
        ("a;b", {"a;b"}),  # ";" is not a separator in the knowledge script
        ("tab\tand\nnewline", {"tab", "and", "newline"}),
        ("", {""}),
        (None, {""}),
        (b"Linda Davis", {"Linda", "Davis"}),
    ],
)
def test_word_set(text, expected):
    assert word_set(text) == expected


# --------------------------------------------------------------------------
# answer matching
# --------------------------------------------------------------------------

@pytest.mark.parametrize(
    "answer, gold",
    [
        ("Linda Davis.", "Linda Davis"),  # substring
        ("Linda Davis", "Linda Davis"),
        ("The artist who sings it is Big & Rich.", "Big & Rich"),  # gold words within the answer
        ("Davis, Linda", "Linda Davis"),  # bag of words: order is free
        ("Steven Weber", "Steven Robert Weber"),  # answer words within the gold (symmetric rule)
        ("1982", "January 1982"),
        ("Hippolyta", "Queen Hippolyta"),
        ("LL Cool J", "LL Cool J."),  # answer is a substring of the gold
        ("the St. Lawrence River", "the Lawrence River"),  # gold words within the answer
        ("A, B, and C", "C, B, D, A, and p"),  # the authors' docstring example (symmetric)
    ],
)
def test_answer_matches_positive(answer, gold):
    assert answer_matches(answer, gold)
    assert answer_matches(gold, answer)  # symmetric


@pytest.mark.parametrize(
    "answer, gold",
    [
        ("Sally.", "Sally Ann Howes"),  # {'Sally', ''}: the empty token is not a gold word
        ("Lord Cornwallis", "Charles Cornwallis"),
        ("Wesley left in 2010.", "2002"),
        ("linda davis", "Linda Davis"),  # case-sensitive by default
        ("Montgomery Gentry", "Big & Rich"),
        ("", "Linda Davis"),  # blank answers never match (deviation: the original counts "")
        ("   ", "Linda Davis"),
        ("Linda Davis", ""),
        (None, "Linda Davis"),
    ],
)
def test_answer_matches_negative(answer, gold):
    assert not answer_matches(answer, gold)


def test_answer_matches_lowercase_option():
    assert answer_matches("linda davis", "Linda Davis", lowercase=True)
    assert answer_matches("THE SAINT LAWRENCE RIVER.", "the Saint Lawrence River", lowercase=True)
    assert not answer_matches("Reba", "Linda Davis", lowercase=True)


@pytest.mark.parametrize(
    "passage, answer, expected, strict",
    [
        ("The song features Linda Davis on vocals.", "Linda Davis", True, True),
        ("Davis, Linda sang it.", "Linda Davis", True, False),  # bag of words only
        ("The song features Reba.", "Linda Davis", False, False),
        ("The song features linda davis.", "Linda Davis", False, False),  # case-sensitive
        ("It opened in 1977.", "1977", True, True),
        ("It opened in 19775.", "1977", True, True),  # substring, as the paper's check
        ("anything", "", False, False),
        (FAIL_PASSAGE, "Linda Davis", False, False),
    ],
)
def test_passage_contains(passage, answer, expected, strict):
    assert passage_contains(passage, answer) is expected
    assert passage_contains(passage, answer, bag_of_words=False) is strict


def test_shipped_model_passages_contain_their_answers_as_substrings():
    """Every rewritten passage that is not the failure sentinel holds its
    answer as an exact substring (the bag-of-words clause is never needed)."""
    for name, fails in (("nq_passages_gpt35.json", 48), ("nq_passages_llama.json", 92)):
        items = json.loads((DATA / name).read_text(encoding="utf-8"))
        seen_fail = 0
        for item in items:
            for field, answer in (("ai_true", "true_answer"), ("ai_false", "false_answer"),
                                  ("human_true", "true_answer"), ("human_false", "false_answer")):
                if item[field] == FAIL_PASSAGE:
                    seen_fail += field == "ai_true"
                    continue
                assert passage_contains(item[field], item[answer], bag_of_words=False), (name, field)
        assert seen_fail == fails


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("Linda Davis", "Linda Davis", True),
        ("Linda Davis", "linda davis.", True),
        ("the Saint Lawrence River", "Saint Lawrence River", True),  # articles ignored
        ("U.S.", "US", False),  # "." becomes a space: "u s" vs "us"
        ("Big & Rich", "big & rich", True),
        ("1990", "1990.", True),
        ("Linda Davis", "Reba McEntire", False),
        ("Paris", "Paris, France", False),
        ("The", "A", False),  # both normalise to "": compared case-insensitively
        ("The", "the", True),
    ],
)
def test_same_answer(a, b, same):
    assert same_answer(a, b) is same


def test_normalise_answer():
    assert normalise_answer("  The  Saint-Lawrence River! ") == "saint lawrence river"
    assert normalise_answer("ＬＩＮＤＡ Davis") == "linda davis"
    assert normalise_answer(None) == ""


# --------------------------------------------------------------------------
# attribution
# --------------------------------------------------------------------------

FMT = "Answer: {a};\nAnswer retrieved from which passage: {i}"
LD, RM = "Linda Davis", "Reba McEntire"

ATTRIBUTION_CASES = [
    # different answers: the answer string decides (the stated index is only recorded)
    (FMT.format(a=LD, i=1), LD, RM, (1, "substring", "ok", LD, 1)),
    (FMT.format(a=RM, i=1), LD, RM, (2, "substring", "ok", RM, 1)),
    (FMT.format(a="Linda Davis.", i=2), RM, LD, (2, "substring", "ok", "Linda Davis.", 2)),
    (FMT.format(a="Davis", i=1), LD, RM, (1, "substring", "ok", "Davis", 1)),  # answer words within the gold
    (FMT.format(a=f"{LD} and {RM}", i=1), LD, RM, (None, "substring", "ambiguous_both", f"{LD} and {RM}", 1)),
    (FMT.format(a="Garth Brooks", i=2), LD, RM, (None, "substring", "ambiguous_neither", "Garth Brooks", 2)),
    (FMT.format(a="linda davis", i=1), LD, RM, (None, "substring", "ambiguous_neither", "linda davis", 1)),
    ("Answer: ; Answer retrieved from which passage: 1", LD, RM, (None, "substring", "ambiguous_neither", "", 1)),
    # same answers: the stated index decides
    (FMT.format(a=LD, i=1), LD, LD, (1, "index", "ok", LD, 1)),
    (FMT.format(a=LD, i=2), LD, LD, (2, "index", "ok", LD, 2)),
    (FMT.format(a=LD, i="Passage 2"), LD, "linda davis.", (2, "index", "ok", LD, 2)),  # normalised: same
    (FMT.format(a=LD, i="1 or 2"), LD, LD, (None, "index", "ambiguous_index", LD, None)),
    (FMT.format(a=LD, i="both"), LD, LD, (None, "index", "no_index", LD, None)),
    ("Answer: Linda Davis;", LD, LD, (None, "index", "no_index", LD, None)),
    ("Answer: 1990; Answer retrieved from which passage: 2", "1990", "1990", (2, "index", "ok", "1990", 2)),
    ("Answer: 1990 (from passage 1)", "1990", "1990", (1, "index", "ok", "1990 (from passage 1)", 1)),
    ("Answer: Paris; 2", "Paris", "Paris", (2, "index", "ok", "Paris", 2)),
    ("Answer retrieved from which passage: the second one", "x", "x", (2, "index", "ok", "", 2)),
    ("Answer retrieved from which passage: first", "x", "x", (1, "index", "ok", "", 1)),
    ("2", "x", "x", (2, "index", "ok", "2", 2)),
    ("Both passages say Linda Davis: passage 1 and passage 2.", LD, LD,
     (None, "index", "ambiguous_index", "Both passages say Linda Davis: passage 1 and passage 2.", None)),
    # markdown, answer on the next line, template echoed first, reasoning block
    ("**Answer:** Linda Davis\n**Answer retrieved from which passage:** 2", LD, LD, (2, "index", "ok", LD, 2)),
    ("Answer:\nParis\nAnswer retrieved from which passage: 1", "Paris", "Lyon", (1, "substring", "ok", "Paris", 1)),
    ("Answer: <short answer>; Answer retrieved from which passage: 1 or 2\nAnswer: Lyon; "
     "Answer retrieved from which passage: 2", "Paris", "Lyon", (2, "substring", "ok", "Lyon", 2)),
    ("<think>Answer: Lyon</think>Answer: Paris; Answer retrieved from which passage: 1", "Paris", "Lyon",
     (1, "substring", "ok", "Paris", 1)),
    ("Answer: Paris Answer retrieved from which passage: 1", "Paris", "Lyon", (1, "substring", "ok", "Paris", 1)),
    # no "Answer:" label: the whole reply (up to an index label)
    ("Linda Davis sings it with Reba.", LD, "Garth Brooks", (1, "substring", "ok", "Linda Davis sings it with Reba.",
                                                             None)),
    ("Linda Davis. Answer retrieved from which passage: 2", LD, RM, (1, "substring", "ok", "Linda Davis.", 2)),
    ("It is Linda Davis (passage 2).", LD, LD, (2, "index", "ok", "It is Linda Davis (passage 2).", 2)),
    ("Reba McEntire and Linda Davis", LD, RM, (None, "substring", "ambiguous_both", "Reba McEntire and Linda Davis",
                                               None)),
    # empty replies and bad answers
    ("", LD, RM, (None, None, "empty_reply", None, None)),
    (None, LD, RM, (None, None, "empty_reply", None, None)),
    ("<think>still thinking", LD, RM, (None, None, "empty_reply", None, None)),
    (b"Answer: Paris", "Paris", "Lyon", (1, "substring", "ok", "Paris", None)),
    ("Answer: Paris", None, "Lyon", (None, None, "invalid_answers", "Paris", None)),
    ("Answer: Paris", "Paris", "  ", (None, None, "invalid_answers", "Paris", None)),
]


@pytest.mark.parametrize("reply, a1, a2, expected", ATTRIBUTION_CASES)
def test_attribute(reply, a1, a2, expected):
    res = attribute(reply, a1, a2)
    assert isinstance(res, Attribution)
    assert (res.chosen, res.method, res.status, res.answer, res.stated) == expected


def test_attribute_lowercase_option():
    res = attribute(FMT.format(a="linda davis", i=2), LD, RM, lowercase=True)
    assert (res.chosen, res.status) == (1, "ok")


def test_extract_answer_and_stated_index():
    assert extract_answer("Answer: Paris; Answer retrieved from which passage: 1") == "Paris"
    assert extract_answer(None) is None
    assert stated_index("Answer: Paris; Answer retrieved from which passage: 2") == (2, "ok")
    assert stated_index("Answer: Paris") == (None, "no_index")
    assert stated_index("") == (None, "empty_reply")
    # only the line after the LAST index label counts: a later explanation does not make it ambiguous
    assert stated_index("Answer retrieved from which passage: 2\nPassage 1 also mentions it.") == (2, "ok")


def test_attribute_never_raises():
    rng = random.Random(7)
    pieces = ["Answer:", "Answer retrieved from which passage:", " 1", " 2", ";", "\n", "Passage", "Linda Davis",
              "Reba", "<think>", "</think>", "**", "one", "second", "12", "1.5", "\x00", "\ud800", "ï¼", " "]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 25))) for _ in range(1500)]
    texts += [b"\xff\xfe\x00" * 1000, 12345, object(), "Answer:" * 100_000, "1 2 " * 200_000,
              "passage " * 100_000, "retrieved from " * 50_000, "\n" * 300_000, "a" * 1_000_000]
    for text in texts:
        for a1, a2 in ((LD, RM), (LD, LD), (None, RM)):
            res = attribute(text, a1, a2)
            assert res.status in ATTRIBUTION_STATUSES and res.status != "error", text
            assert res.chosen in (None, 1, 2) and res.method in (None, "substring", "index")
            assert (res.chosen is not None) == (res.status == "ok")
            assert res.stated in (None, 1, 2)


def test_attribute_huge_inputs_are_fast():
    import time

    for text in ["Answer:" * 200_000, "1 " * 500_000, "passage " * 200_000, "which passage " * 100_000,
                 "x" * 5_000_000]:
        start = time.perf_counter()
        attribute(text, LD, LD)
        attribute(text, LD, RM)
        assert time.perf_counter() - start < 5, text[:20]


# --------------------------------------------------------------------------
# hash_rating: grammar, slots, token budget
# --------------------------------------------------------------------------

RATING_RE = re.compile(r" ?###[1-5]\*\*\*")  # what the GBNF below accepts


def test_hash_rating_shapes():
    assert grammar_for("hash_rating") == 'root ::= " "? "###" [1-5] "***"'
    assert slots_for("hash_rating") == (("lit", " ###"), ("choice", ("1", "2", "3", "4", "5")), ("lit", "***"))
    assert max_tokens_for("hash_rating") == 8
    assert token_budget("hash_rating", None, True, 48) == 8
    assert token_budget("hash_rating", None, False, 48) == 48


@pytest.mark.parametrize("digit", ["1", "2", "3", "4", "5"])
def test_hash_rating_slot_strings_parse_ok_and_match_grammar(digit):
    lit1, (_, options), lit2 = slots_for("hash_rating")
    text = lit1[1] + digit + lit2[1]
    assert digit in options
    assert RATING_RE.fullmatch(text) and RATING_RE.fullmatch(text.lstrip())
    for t in (text, text.lstrip()):
        res = parse_hash_rating(t)
        assert (res.value, res.status, res.detail) == (int(digit), "ok", "")
        assert parse_reply("hash_rating", t) == res


@pytest.mark.parametrize("text", ["###0***", "###6***", "### 4***", "###4**", "##4***", "###45***", "4", "  ###4***"])
def test_hash_rating_grammar_rejects(text):
    assert not RATING_RE.fullmatch(text)


def test_hash_rating_grammar_compiles_with_llama_cpp():
    llama_cpp = pytest.importorskip("llama_cpp")
    assert llama_cpp.LlamaGrammar.from_string(grammar_for("hash_rating"), verbose=False) is not None


def _gold_cases():
    """The false_answer_is_gold table of docs/own-data.md: (gold, false answer, dropped)."""
    text = (Path(__file__).resolve().parents[4] / "docs" / "own-data.md").read_text(encoding="utf-8")
    table = text.split("<!-- false_answer_is_gold cases")[1].split("\n\n")[0]
    rows = [line.split("|")[1:4] for line in table.splitlines()[3:] if line.startswith("| `")]
    return [(g.strip().strip("`"), f.strip().strip("`"), d.strip() == "yes") for g, f, d in rows]


def test_the_docs_false_answer_is_gold_table_is_the_rule():
    """Each case of the table in docs/own-data.md, through the import's own
    check (PassageSet.entry: a gold false answer is counted, no false passage)."""
    from authbench.studies.selfpref.data import PassageSet

    cases = _gold_cases()
    assert len(cases) == 9 and {d for _, _, d in cases} == {True, False}
    for gold, false, dropped in cases:
        assert answer_matches(false, gold) is dropped, (gold, false)
        found = PassageSet("t")
        q = found.question("who?", gold)
        found.entry(q, gold, "a", "normal", f"It was {gold} indeed.", None, false, None)
        assert found.drops["false_answer_is_gold", "a"] == int(dropped), (gold, false)
        assert any(not p["factual"] for p in found.passages.values()) is not dropped, (gold, false)
