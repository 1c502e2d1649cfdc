"""``pair_scores``: a score for each of two items, ``{"A": 7, "B": 4}``
(pairwise score judges).

Parse (:func:`parse_pair_scores`): value ``{"A": int, "B": int}`` when status is
ok (or the object is merely unclosed), else ``None``. Keys may be ``A``,
``'a'``, ``Domain A``, ``[B]``. Precedence: wrong_format > out_of_range >
missing. E[s] reads the slots ``A`` and ``B``.
"""

from __future__ import annotations

import re

from authbench.llm.formats._base import (
    GBNF_LEAD,
    SCORE_MAX,
    SCORE_MIN,
    SCORES,
    ReplyFormat,
    digit_class,
    in_scale,
    mapping_score,
)
from authbench.llm.formats._text import ParseResult, coerce, items, never_raise, normalise, objects

_AB_KEY = re.compile(
    r"(?:(?:domain|entity|document|doc|answer|option|candidate|response|passage|source|"
    r"site|score)[\s_-]*)?[\[(]?\s*([ab])\s*[\])]?",
    re.IGNORECASE,
)


@never_raise
def parse_pair_scores(text: object) -> ParseResult:
    """``{"A": 7, "B": 4}`` -> ParseResult({"A": 7, "B": 4}, "ok")."""
    s = normalise(text)
    if not s:
        return ParseResult(None, "wrong_format", "empty reply")
    found: dict[str, object] | None = None
    closed = True
    for obj in reversed(objects(s)):
        pairs: dict[str, object] = {}
        for key, val in items(obj):
            m = _AB_KEY.fullmatch(key.strip())
            if m:
                pairs[m.group(1).upper()] = val
        if pairs:
            found, closed = pairs, obj.endswith("}")
            break
    if found is None:
        return ParseResult(None, "wrong_format", "no object with keys A/B")
    scores: dict[str, int] = {}
    bad, oor, missing = [], [], []
    for k in ("A", "B"):
        if k not in found:
            missing.append(k)
            continue
        kind, x = coerce(found[k])
        if kind == "int":
            if in_scale(x):
                scores[k] = x
            else:
                oor.append(f"{k}={x}")
        elif kind == "null":
            missing.append(k)
        else:
            bad.append(k)
    if bad:
        return ParseResult(None, "wrong_format", f"non-integer score for {bad}")
    if oor:
        return ParseResult(None, "out_of_range", f"outside {SCORE_MIN}..{SCORE_MAX}: {', '.join(oor)}")
    if missing:
        return ParseResult(None, "missing", f"missing={missing}")
    if not closed:
        return ParseResult(scores, "wrong_format", "unclosed JSON object")
    return ParseResult(scores, "ok")


_SCORE = digit_class(SCORE_MIN, SCORE_MAX)

FORMAT = ReplyFormat(
    name="pair_scores",
    parse=parse_pair_scores,
    statuses=("ok", "wrong_format", "out_of_range", "missing"),
    grammar=lambda n: GBNF_LEAD + r'"{\"A\": " ' + _SCORE + r' ", \"B\": " ' + _SCORE + ' "}"',
    slots=lambda n: (("lit", ' {"A": '), ("choice", SCORES), ("lit", ', "B": '), ("choice", SCORES), ("lit", "}")),
    max_tokens=lambda n: 16,
    score_range=(SCORE_MIN, SCORE_MAX),
    score_slots=lambda n: ("A", "B"),
    read_score=mapping_score,
)
