"""RAGAuth reply formats in authbench.llm.grammars: ``yes_no`` and ``utility``.

Slots and GBNF must describe the same strings, and every string they allow must
parse cleanly (status "ok") to the chosen values. With the embedded model's
tokenizer: tests/workflow/test_grammars_rag_real_model.py.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest
from authbench.llm.grammars import grammar_for, max_tokens_for, slots_for, token_budget
from authbench.llm.parse import parse_utility, parse_yes_no

DIGITS = tuple(str(d) for d in range(10))


def fill(slots, choices) -> str:
    """Join the slot literals with one option per choice slot."""
    it = iter(choices)
    return "".join(value if kind == "lit" else next(it) for kind, value in slots)


def n_choices(slots) -> int:
    return sum(kind != "lit" for kind, _ in slots)


def gbnf_regex(grammar: str) -> re.Pattern:
    """The regex equivalent of a one-rule GBNF made of literals, character
    classes, groups, ``|``, ``?`` and ``{k}`` (what grammars.py emits)."""
    head, body = grammar.split("::=", 1)
    assert head.strip() == "root"
    tokens = re.findall(r'"((?:\\.|[^"\\])*)"|(\[[^\]]+\])|(\{\d+\})|([()?|])|(\S)', body)
    pattern = ""
    for lit, cls, rep, op, other in tokens:
        assert not other, f"unexpected GBNF syntax {other!r}"
        if cls:
            pattern += cls
        elif rep:
            pattern += rep
        elif op:
            pattern += op
        else:
            pattern += re.escape(lit.encode().decode("unicode_escape"))
    return re.compile(pattern)


def utility_fillings(n: int, count: int = 40):
    """Choice tuples for an n-document utility reply: extremes plus random ones."""
    rng = random.Random(n)
    yield ("yes",) * n + ("0",) * n
    yield ("no",) * n + ("9",) * n
    for _ in range(count):
        yield tuple(rng.choice(("yes", "no")) for _ in range(n)) + tuple(rng.choice(DIGITS) for _ in range(n))


# --------------------------------------------------------------------------
# yes_no
# --------------------------------------------------------------------------

def test_yes_no_shapes():
    assert grammar_for("yes_no") == 'root ::= " "? ("yes" | "no")'
    assert slots_for("yes_no") == (("choice", (" yes", " no")),)
    assert max_tokens_for("yes_no") == 3


@pytest.mark.parametrize("option", [" yes", " no"])
def test_yes_no_slot_strings_parse_and_match_grammar(option):
    text = fill(slots_for("yes_no"), [option])
    res = parse_yes_no(text)
    assert (res.value, res.status, res.detail) == (option.strip(), "ok", "")
    rx = gbnf_regex(grammar_for("yes_no"))
    assert rx.fullmatch(text) and rx.fullmatch(text.lstrip())


@pytest.mark.parametrize("text", ["", "Yes", " yes.", "  yes", "yesno", "maybe", " No", "y"])
def test_yes_no_grammar_rejects(text):
    assert not gbnf_regex(grammar_for("yes_no")).fullmatch(text)


# --------------------------------------------------------------------------
# utility
# --------------------------------------------------------------------------

def test_utility_shape_n2():
    slots = slots_for("utility", 2)
    yn = ("choice", ("yes", "no"))
    assert slots == (
        ("lit", ' {"answers": {"0": "'), yn, ("lit", '", "1": "'), yn,
        ("lit", '"}, "scores": {"0": '), ("choice", DIGITS), ("lit", ', "1": '), ("choice", DIGITS),
        ("lit", "}}"),
    )
    assert fill(slots, ["yes", "no", "7", "4"]) == ' {"answers": {"0": "yes", "1": "no"}, "scores": {"0": 7, "1": 4}}'
    assert grammar_for("utility", 2) == (
        r'root ::= " "? "{\"answers\": {\"0\": \"" ("yes" | "no") "\", \"1\": \"" ("yes" | "no") '
        r'"\"}, \"scores\": {\"0\": " [0-9] ", \"1\": " [0-9] "}}"'
    )


@pytest.mark.parametrize("n", range(1, 11))
def test_utility_slot_strings_parse_ok_and_match_grammar(n):
    slots = slots_for("utility", n)
    assert n_choices(slots) == 2 * n
    rx = gbnf_regex(grammar_for("utility", n))
    for choices in utility_fillings(n):
        text = fill(slots, choices)
        assert rx.fullmatch(text) and rx.fullmatch(text.lstrip()), text
        res = parse_utility(text, n)
        expected = {"scores": {k: int(choices[n + k]) for k in range(n)},
                    "answers": {k: choices[k] for k in range(n)}}
        assert (res.value, res.status, res.detail) == (expected, "ok", ""), text


def test_utility_grammar_accepts_exactly_the_slot_strings_n1():
    """n=1: the 20 slot strings (with or without the leading space) are accepted;
    every one-character edit of them that is not itself a slot string is rejected."""
    slots = slots_for("utility", 1)
    rx = gbnf_regex(grammar_for("utility", 1))
    allowed = {fill(slots, c) for c in itertools.product(("yes", "no"), DIGITS)}
    allowed |= {s.lstrip() for s in allowed}
    assert len(allowed) == 40
    alphabet = sorted(set("".join(allowed)) | {"x", "Y", "'", "\n"})
    for s in sorted(allowed):
        assert rx.fullmatch(s)
        for i in range(len(s) + 1):
            edits = [s[:i] + s[i + 1:]] + [s[:i] + c + s[i:] for c in alphabet]
            edits += [s[:i] + c + s[i + 1:] for c in alphabet]
            for e in edits:
                assert bool(rx.fullmatch(e)) == (e in allowed), e


@pytest.mark.parametrize(
    "text",
    [
        '{"answers": {"0": "maybe"}, "scores": {"0": 7}}',  # free-text pseudo-answer
        '{"answers": {"0": "yes"}, "scores": {"0": 10}}',
        '{"answers": {"0": "yes"}, "scores": {"0": 7}',  # unclosed
        '{"scores": {"0": 7}, "answers": {"0": "yes"}}',  # key order
        '{"answers":{"0":"yes"},"scores":{"0":7}}',  # spacing
        '{"0": 7}',
    ],
)
def test_utility_grammar_rejects(text):
    assert not gbnf_regex(grammar_for("utility", 1)).fullmatch(text)


def test_utility_max_tokens():
    assert [max_tokens_for("utility", n) for n in (1, 5, 10)] == [32, 96, 176]
    for n in range(1, 11):
        # never below one token per slot, with room for the literals' tokens
        assert max_tokens_for("utility", n) >= 2 * len(slots_for("utility", n))
    assert token_budget("utility", 10, True, 48) == 176
    assert token_budget("utility", 10, False, 48) == 352  # free decoding: 2 x a full reply
    assert token_budget("yes_no", None, False, 48) == 48


@pytest.mark.parametrize("n", [0, 11, -1, None])
def test_utility_n_outside_1_to_10_raises(n):
    with pytest.raises(ValueError):
        slots_for("utility", n)
    with pytest.raises(ValueError):
        grammar_for("utility", n)


# --------------------------------------------------------------------------
# the grammars are valid GBNF for llama.cpp
# --------------------------------------------------------------------------

@pytest.mark.parametrize("fmt, n", [("yes_no", None)] + [("utility", n) for n in range(1, 11)])
def test_grammar_compiles_with_llama_cpp(fmt, n):
    llama_cpp = pytest.importorskip("llama_cpp")
    grammar = llama_cpp.LlamaGrammar.from_string(grammar_for(fmt, n), verbose=False)
    assert grammar is not None
