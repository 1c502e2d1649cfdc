"""GBNF grammars and slots, one per reply format, for constrained decoding,
and the token budget of a request (each format declares its own in
:mod:`authbench.llm.formats`).

With a grammar the engine can only emit a reply of the asked shape, so every
reply parses (a ranking can still repeat an id: GBNF cannot express "a
permutation"; the parser counts that as a repetition). Off reproduces the
paper's free decoding.
"""

from __future__ import annotations

from functools import lru_cache

from authbench.llm.formats import FORMATS, ReplyFormat


def _constrainable(output_format: str) -> ReplyFormat:
    fmt = FORMATS.get(output_format)
    if fmt is None or fmt.grammar is None:
        raise ValueError(f"unknown output format {output_format!r}")
    return fmt


@lru_cache(maxsize=None)
def grammar_for(output_format: str, n: int | None = None) -> str:
    """The GBNF text for one reply format (``n`` = list size for list formats)."""
    return _constrainable(output_format).grammar(n)


def max_tokens_for(output_format: str, n: int | None = None) -> int:
    """A token budget that fits a complete constrained reply (``free``: 0)."""
    return FORMATS[output_format].max_tokens(n)


def token_budget(output_format: str, n: int | None, constrained: bool, cap: int) -> int:
    """Tokens a request may generate: a full constrained reply, or with free
    decoding ``max(cap, 2 x a full reply)`` (``cap`` = ``generate.max_tokens``;
    free text: ``cap``)."""
    full = max_tokens_for(output_format, n)
    if FORMATS[output_format].grammar is None:
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
    return _constrainable(output_format).slots(n)
