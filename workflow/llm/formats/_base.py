"""The reply-format record (:class:`ReplyFormat`) and what the format modules
share to declare one: the judges' score scale, the digit and GBNF helpers, and
the instant engine's slot filling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from authbench.llm.formats._text import ParseResult

SCORE_MIN, SCORE_MAX = 0, 9  # the judges' score scale (score, pair_scores, list_scores, utility)

Slots = tuple[tuple[str, object], ...]


def digits(lo: int, hi: int) -> tuple[str, ...]:
    """The score tokens ``lo..hi`` (single digits)."""
    return tuple(str(d) for d in range(lo, hi + 1))


def digit_class(lo: int, hi: int) -> str:
    """The GBNF character class of the digits ``lo..hi``."""
    return f"[{lo}-{hi}]"


SCORES = digits(SCORE_MIN, SCORE_MAX)
GBNF_LEAD = 'root ::= " "? '  # every grammar allows one leading space


def in_scale(x: int) -> bool:
    return SCORE_MIN <= x <= SCORE_MAX


def digit_range(n: int) -> str:
    """The GBNF class of the ids of a list of ``n`` items (1..10: one digit each)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10:
        raise ValueError(f"grammars support lists of 1..10 items, got {n}")
    return f"[0-{n - 1}]"


def gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gbnf_from_slots(slots: Slots) -> str:
    """A ``root`` rule for ``choice`` and ``lit`` slots (the first literal's
    leading space becomes the optional ``" "?`` the other formats start with)."""
    parts = []
    for i, (kind, value) in enumerate(slots):
        if kind == "lit":
            text = value[1:] if i == 0 and value.startswith(" ") else value
            parts.append(gbnf_literal(text))
        elif kind == "choice" and tuple(value) == SCORES:
            parts.append(digit_class(SCORE_MIN, SCORE_MAX))
        elif kind == "choice":
            parts.append("(" + " | ".join(gbnf_literal(o) for o in value) + ")")
        else:
            raise ValueError(f"cannot express slot kind {kind!r} in GBNF")
    return GBNF_LEAD + " ".join(parts)


def fill_slots(digest: bytes, slots: Slots | None) -> tuple[str, list[tuple[int, str, list[str]]]]:
    """The instant engine's reply for a format with slots: each choice slot at
    position ``i`` takes option ``digest[i] % len(options)`` (a ``choice_unique``
    slot among the options not taken yet), literals as they are. Returns the
    text and ``(i, pick, options)`` of every ``choice`` slot (the score slots
    of a score format, in order)."""
    text, taken, picks = "", set(), []
    for i, (kind, value) in enumerate(slots or ()):
        if kind == "lit":
            text += value
            continue
        options = [o for o in value if o not in taken] if kind == "choice_unique" else list(value)
        pick = options[digest[i % len(digest)] % len(options)]
        if kind == "choice_unique":
            taken.add(pick)
        else:
            picks.append((i, pick, options))
        text += pick
    return text, picks


def mapping_score(value: Any, slot: str) -> Any:
    """A slot's raw score in a parsed mapping value (keys ints or strings, as
    the parser and the judgments file write them)."""
    if not isinstance(value, Mapping):
        return None
    return value.get(slot, value.get(int(slot)) if slot.isdigit() else None)


@dataclass(frozen=True)
class ReplyFormat:
    """Everything the pipeline knows about one reply format (``n`` = the list
    size of a list format, ignored by the others).

    * ``parse``: the pure parser, ``parse(text)`` or ``parse(text, n)`` when
      ``needs_n``; it never raises on model output. None: free text, never parsed.
    * ``statuses``: the statuses ``parse`` can return (``parse_reply`` adds ``empty``).
    * ``needs_n``: a list format; parse, grammar and slots need ``n``.
    * ``grammar(n)``: the GBNF text; ``slots(n)``: the same shape as forced
      literals and single-token choices (:func:`authbench.llm.grammars.slots_for`).
      None: the format cannot be constrained.
    * ``max_tokens(n)``: the token budget of a complete constrained reply
      (0: free text, only ``generate.max_tokens`` bounds it).
    * ``score_range``: the allowed scores ``(lo, hi)``, or None (no scores).
    * ``score_slots(n)``: the slots E[s] reads (:mod:`authbench.llm.expected`),
      ``read_score(value, slot)`` a slot's raw score in a parsed value; None:
      no E[s] for this format.
    * ``instant(digest, slots)``: the instant engine's deterministic reply
      from the prompt's SHA-256: text and the filled choice slots (:func:`fill_slots`).
    """

    name: str
    parse: Callable[..., ParseResult] | None
    statuses: tuple[str, ...]
    grammar: Callable[[int | None], str] | None
    slots: Callable[[int | None], Slots] | None
    max_tokens: Callable[[int | None], int]
    needs_n: bool = False
    score_range: tuple[int, int] | None = None
    score_slots: Callable[[int | None], tuple[str, ...]] | None = None
    read_score: Callable[[Any, str], Any] | None = None
    instant: Callable[[bytes, Slots | None], tuple[str, list]] = fill_slots


def choice_format(name: str, parse: Callable[..., ParseResult], words: tuple[str, ...]) -> ReplyFormat:
    """A reply that is one of ``words`` (pair choice A/B, yes/no): a grammar of
    the words, one choice slot, a budget of 3 tokens."""
    return ReplyFormat(
        name=name,
        parse=parse,
        statuses=("ok", "wrong_format"),
        grammar=lambda n: GBNF_LEAD + "(" + " | ".join(gbnf_literal(w) for w in words) + ")",
        slots=lambda n: (("choice", tuple(" " + w for w in words)),),
        max_tokens=lambda n: 3,
    )


def list_format(name: str, parse: Callable[..., ParseResult], statuses: tuple[str, ...],
                grammar: Callable[[int | None], str], slots: Callable[[int | None], Slots],
                tokens: tuple[int, int], **scores: Any) -> ReplyFormat:
    """A reply about each item of a list of n (ranking, list scores,
    utility): parse, grammar and slots need n; the token budget is
    ``tokens[0] * n + tokens[1]``; ``scores``: the score fields, if any."""
    per_item, fixed = tokens
    return ReplyFormat(name=name, parse=parse, statuses=statuses, needs_n=True, grammar=grammar, slots=slots,
                       max_tokens=lambda n: per_item * (n or 1) + fixed, **scores)
