"""``score``: one score on the 0..9 scale, ``{"score": 7}`` (DomainAuth and
EntityAuth pointwise judges).

Parse (:func:`parse_score`): the last ``score`` key inside a ``{...}`` object
-> ok. Without such an object, a loose ``Score: 7`` / bare ``7`` gives the
value with status ``wrong_format``. Out of range -> ``out_of_range``, value
``None``. E[s] reads its one slot, ``score`` (the value itself).
"""

from __future__ import annotations

import re

from authbench.llm.formats._base import GBNF_LEAD, SCORE_MAX, SCORE_MIN, SCORES, ReplyFormat, digit_class, in_scale
from authbench.llm.formats._text import BARE_STRIP, NUM_RE, ParseResult, coerce, items, never_raise, normalise, objects

_SCORE_LOOSE = re.compile(
    r"\bscore\b[\s*\"'`]{0,8}(?:[:=]|\bis\b|\bof\b)?[\s*\"'`]{0,8}(?P<num>[-+]?\d+(?:\.\d+)?)",
    re.IGNORECASE,
)


def _score_value(raw: object, loose: bool) -> ParseResult:
    kind, x = coerce(raw)
    if kind == "int":
        if not in_scale(x):
            return ParseResult(None, "out_of_range", f"score {x} outside {SCORE_MIN}..{SCORE_MAX}")
        if loose:
            return ParseResult(x, "wrong_format", "score not given as a JSON object")
        return ParseResult(x, "ok")
    if kind == "nonint":
        return ParseResult(None, "wrong_format", "non-integer score")
    return ParseResult(None, "wrong_format", "score value is not a number")


@never_raise
def parse_score(text: object) -> ParseResult:
    """``{"score": 7}`` -> ParseResult(7, "ok"); see module doc for the rules."""
    s = normalise(text)
    if not s:
        return ParseResult(None, "wrong_format", "empty reply")
    for obj in reversed(objects(s)):
        for key, val in reversed(items(obj)):
            if key.strip().strip("[]").strip().lower() == "score":
                res = _score_value(val, loose=False)
                if res.status == "ok" and not obj.endswith("}"):
                    return ParseResult(res.value, "wrong_format", "unclosed JSON object")
                return res
    last = None
    for last in _SCORE_LOOSE.finditer(s):
        pass
    if last is not None:
        return _score_value(last.group("num"), loose=True)
    bare = s.strip(BARE_STRIP)
    if NUM_RE.fullmatch(bare):
        return _score_value(bare, loose=True)
    return ParseResult(None, "wrong_format", "no score found")


FORMAT = ReplyFormat(
    name="score",
    parse=parse_score,
    statuses=("ok", "wrong_format", "out_of_range"),
    grammar=lambda n: GBNF_LEAD + r'"{\"score\": " ' + digit_class(SCORE_MIN, SCORE_MAX) + ' "}"',
    slots=lambda n: (("lit", ' {"score": '), ("choice", SCORES), ("lit", "}")),
    max_tokens=lambda n: 12,
    score_range=(SCORE_MIN, SCORE_MAX),
    score_slots=lambda n: ("score",),
    read_score=lambda value, slot: value,
)
