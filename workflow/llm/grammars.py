"""GBNF grammars, one per reply format, for constrained decoding.

With a grammar the engine can only emit a reply of the asked shape, so every
reply parses (a ranking can still repeat an id: GBNF cannot express "a
permutation"; the parser counts that as a repetition). Off reproduces the
paper's free decoding.

RAGAuth formats: ``yes_no`` is the generator's bare answer; ``utility`` is the
utility filter's ``{"answers": {...}, "scores": {...}}`` object over n documents.
Its constrained pseudo-answers are restricted to "yes"/"no" because RAGAuth
questions are yes/no questions (a free-text answer cannot be a fixed list of
single-token choices); free decoding still gets free-text pseudo-answers. The
utility grammar is generated from :func:`slots_for`, so both accept exactly the
same strings.

Self-preference format: ``hash_rating`` is the pointwise reranking prompt's
``###<number>***`` on the 1..5 scale. With Gemma 3's tokenizer `` ###``,
``###``, each digit 1..5 and ``***`` are single tokens, and `` ###4***``
tokenises as exactly those three pieces, so slot decoding emits the tokens
free decoding would (3 tokens; budget 8).
"""

from __future__ import annotations

from functools import lru_cache


def _digit_range(n: int) -> str:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
        raise ValueError(f"grammars support lists of 1..10 items, got {n}")
    return f"[0-{n - 1}]"


_DIGITS = tuple(str(d) for d in range(10))


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _gbnf_from_slots(slots: tuple[tuple[str, object], ...]) -> str:
    """A ``root`` rule for ``choice`` and ``lit`` slots (the first literal's
    leading space becomes the optional ``" "?`` the other formats start with)."""
    parts = []
    for i, (kind, value) in enumerate(slots):
        if kind == "lit":
            text = value[1:] if i == 0 and value.startswith(" ") else value
            parts.append(_gbnf_literal(text))
        elif kind == "choice" and tuple(value) == _DIGITS:
            parts.append("[0-9]")
        elif kind == "choice":
            parts.append("(" + " | ".join(_gbnf_literal(o) for o in value) + ")")
        else:
            raise ValueError(f"cannot express slot kind {kind!r} in GBNF")
    return 'root ::= " "? ' + " ".join(parts)


@lru_cache(maxsize=None)
def grammar_for(output_format: str, n: int | None = None) -> str:
    """The GBNF text for one reply format (``n`` = list size for list formats)."""
    lead = 'root ::= " "? '
    if output_format == "score":
        return lead + r'"{\"score\": " [0-9] "}"'
    if output_format == "pair_choice":
        return lead + '("A" | "B")'
    if output_format == "pair_scores":
        return lead + r'"{\"A\": " [0-9] ", \"B\": " [0-9] "}"'
    if output_format == "ranking":
        ids = _digit_range(n)
        return lead + f'"[" {ids} "]" (" > [" {ids} "]"){{{n - 1}}}'
    if output_format == "list_scores":
        _digit_range(n)
        body = r' ", " '.join(f'"\\"{i}\\": " [0-9]' for i in range(n))
        return lead + '"{" ' + body + ' "}"'
    if output_format == "yes_no":
        return lead + '("yes" | "no")'
    if output_format == "utility":
        return _gbnf_from_slots(slots_for("utility", n))
    if output_format == "hash_rating":
        return lead + '"###" [1-5] "***"'
    raise ValueError(f"unknown output format {output_format!r}")


def max_tokens_for(output_format: str, n: int | None = None) -> int:
    """A token budget that fits a complete constrained reply."""
    return {
        "score": 12,
        "pair_choice": 3,
        "pair_scores": 16,
        "ranking": 6 * (n or 1) + 4,
        "list_scores": 8 * (n or 1) + 4,
        "yes_no": 3,
        "utility": 16 * (n or 1) + 16,  # a full reply is 12n+6 Gemma 3 tokens
        "hash_rating": 8,  # " ###" + digit + "***" is 3 Gemma 3 tokens
        "free": 0,  # free text (passage writing, answers): only generate.max_tokens bounds it
    }[output_format]


def token_budget(output_format: str, n: int | None, constrained: bool, cap: int) -> int:
    """Tokens a request may generate: a full constrained reply, or with free
    decoding ``max(cap, 2 x a full reply)`` (``cap`` = ``generate.max_tokens``)."""
    full = max_tokens_for(output_format, n)
    if output_format == "free":
        return cap
    return full if constrained else max(cap, 2 * full)


@lru_cache(maxsize=None)
def slots_for(output_format: str, n: int | None = None) -> tuple[tuple[str, object], ...]:
    """The same reply shapes as :func:`grammar_for`, as a sequence of forced
    literal text and single-token choices: ``("lit", text)`` / ``("choice", options)``
    / ``("choice_unique", options)`` (an option already taken by an earlier
    choice_unique slot of the same reply is excluded: a ranking is always a
    permutation, which a GBNF grammar cannot express).

    An engine that can read logits fills each choice with the highest-scoring
    allowed option (greedy, as GBNF decoding at temperature 0 does) and appends
    the literals without sampling them. This is constrained decoding without a
    per-token grammar check over the whole vocabulary, which costs ~0.15 s a
    token with Gemma 3's 262k-token vocabulary on 2 CPU cores.
    """
    digits = tuple(str(d) for d in range(10))
    if output_format == "score":
        return (("lit", ' {"score": '), ("choice", digits), ("lit", "}"))
    if output_format == "pair_choice":
        return (("choice", (" A", " B")),)
    if output_format == "pair_scores":
        return (("lit", ' {"A": '), ("choice", digits), ("lit", ', "B": '), ("choice", digits), ("lit", "}"))
    if output_format == "ranking":
        _digit_range(n)
        ids = digits[:n]
        parts: list[tuple[str, object]] = [("lit", " [")]
        for k in range(n):
            parts += [("choice_unique", ids), ("lit", "]" if k == n - 1 else "] > [")]
        return tuple(parts)
    if output_format == "list_scores":
        _digit_range(n)
        parts = []
        for k in range(n):
            parts += [("lit", (' {"' if k == 0 else ', "') + f'{k}": '), ("choice", digits)]
        return tuple(parts + [("lit", "}")])
    if output_format == "yes_no":
        return (("choice", (" yes", " no")),)
    if output_format == "utility":
        _digit_range(n)
        parts = []
        for k in range(n):
            parts += [("lit", (' {"answers": {"' if k == 0 else '", "') + f'{k}": "'), ("choice", ("yes", "no"))]
        for k in range(n):
            parts += [("lit", ('"}, "scores": {"' if k == 0 else ', "') + f'{k}": '), ("choice", digits)]
        return tuple(parts + [("lit", "}}")])
    if output_format == "hash_rating":
        return (("lit", " ###"), ("choice", ("1", "2", "3", "4", "5")), ("lit", "***"))
    raise ValueError(f"unknown output format {output_format!r}")
