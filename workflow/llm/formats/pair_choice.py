"""``pair_choice``: which of two items, ``A`` or ``B`` (pairwise ranking judges).

Parse (:func:`parse_pair_choice`): standalone upper-case ``A``/``B`` tokens
(word bounded, case-sensitive so the article "a" never counts). Tokens are
tiered: explicit verdicts (``Answer: B``, ``I choose A``, ``{"choice": "B"}``) >
named or delimited letters (``Domain A``, ``Entity B``, ``[A]``, ``"B"``, a
letter alone on its line) > bare letters; the value is the LAST token of the
strongest tier present. A bare ``A`` followed by a lower-case word that is not
a verb/conjunction ("A reliable source ...") is read as the English article and
ignored. Exactly one distinct letter -> ok; both A and B named anywhere ->
``wrong_format`` (value still the bound letter). A reply that is exactly
``a``/``b`` (lower case) -> the letter, ``wrong_format``.
"""

from __future__ import annotations

import re

from authbench.llm.formats._base import choice_format
from authbench.llm.formats._text import BARE_STRIP, ParseResult, never_raise, normalise

_LETTER_RE = re.compile(r"(?<![A-Za-z0-9_])[AB](?![A-Za-z0-9_])")
_PREFIX_GAP = r"[\s\"'\[(*`:#=_-]{0,6}"
# tier 0: an explicit verdict ("Answer: B", "I choose A", {"choice": "B"})
_VERDICT_RE = re.compile(
    r"(?i:\b(?:answer|choice|verdict|winner|output|preference|preferred|selection|selected|"
    r"choose|chose|pick|picked|prefer|select))" + _PREFIX_GAP + r"([AB])"
)
# tier 1: a named or delimited letter ("Domain A", "[B]", '"A"', a letter alone on a line)
_NAME_RE = re.compile(
    r"(?i:\b(?:domain|entity|option|source|document|passage|candidate|response|site|website))"
    + _PREFIX_GAP + r"([AB])"
)
_ALONE_LINE = re.compile(r"[\W_]*[AB][\W_]*")
# Words after a bare "A" that mean "A" is a name, not the English article.
_A_NAME_WORDS = frozenset(
    "is was seems appears has had provides offers wins should would could will must "
    "looks remains gives contains comes ranks scores and or vs versus over than "
    "because since as but".split()
)
_ARTICLE_NEXT = re.compile(r"[ \t]+([a-z]+)")


def _alone_on_line(s: str, p: int) -> bool:
    """True if the letter at ``p`` is the only word on a short (<= 80 chars) line."""
    lo, hi = max(0, p - 40), min(len(s), p + 41)
    nl_before = s.rfind("\n", lo, p)
    nl_after = s.find("\n", p, hi)
    start = nl_before + 1 if nl_before >= 0 else (0 if lo == 0 else -1)
    end = nl_after if nl_after >= 0 else (len(s) if hi == len(s) else -1)
    return start >= 0 and end >= 0 and _ALONE_LINE.fullmatch(s, start, end) is not None


def _letter_tokens(s: str) -> list[tuple[int, str]]:
    """(tier, letter) for each standalone A/B in text order; tier 0 strongest."""
    tokens: list[tuple[int, str]] = []
    verdict_pos = {m.start(1) for m in _VERDICT_RE.finditer(s)}
    name_pos = {m.start(1) for m in _NAME_RE.finditer(s)}
    for m in _LETTER_RE.finditer(s):
        p, letter = m.start(), m.group()
        prev_c = s[p - 1] if p > 0 else ""
        next_c = s[p + 1] if p + 1 < len(s) else ""
        if p in verdict_pos:
            tokens.append((0, letter))
        elif (
            p in name_pos
            or (prev_c and prev_c in "\"'[(`" and next_c and next_c in "\"')]`")
            or _alone_on_line(s, p)
        ):
            tokens.append((1, letter))
        else:
            if letter == "A":
                nxt = _ARTICLE_NEXT.match(s, p + 1)
                if nxt and nxt.group(1) not in _A_NAME_WORDS:
                    continue  # "A reliable source ..." - the English article
            tokens.append((2, letter))
    return tokens


@never_raise
def parse_pair_choice(text: object) -> ParseResult:
    """``"B"`` -> ParseResult("B", "ok"); both letters -> wrong_format."""
    s = normalise(text)
    if not s:
        return ParseResult(None, "wrong_format", "empty reply")
    tokens = _letter_tokens(s)
    if not tokens:
        bare = s.strip(BARE_STRIP)
        if bare in ("a", "b"):
            return ParseResult(bare.upper(), "wrong_format", "lower-case letter")
        return ParseResult(None, "wrong_format", "no standalone A or B")
    best_tier = min(t for t, _ in tokens)
    last = [letter for t, letter in tokens if t == best_tier][-1]
    if len({letter for _, letter in tokens}) > 1:
        return ParseResult(last, "wrong_format", f"both A and B named; bound to {last}")
    return ParseResult(last, "ok")


FORMAT = choice_format("pair_choice", parse_pair_choice, ("A", "B"))
