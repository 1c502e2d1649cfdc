"""``hash_rating``: the self-preference study's pointwise reranking prompt,
"Your reply format: ###<number>***", on the 1..5 scale.

Parse (:func:`parse_hash_rating`): value an int 1..5 or ``None``. Candidates
are read in tiers; the LAST candidate of the strongest tier present is the
verdict:

  0. full markers ``###4***`` -> ok. Spaces/tabs inside the markers
     (``### 4 ***``) are tolerated and still ok (the paper's own parser,
     ``float(reply[find("###")+3 : find("***")])``, accepts them too);
     longer runs (``####4****``) are ok; the template's placeholder
     brackets copied around the number (``###<4>***``) keep the value
     with wrong_format;
  1. one marker only (``###4``, ``4***``) -> the value, wrong_format;
  2. a loose ``Score: 4`` / ``Rating: 4`` / ``I would rate it 4`` /
     ``4/5`` / ``4 out of 5`` -> the value, wrong_format;
  3. a reply that is only a number (``4``, ``"4."``) -> the value,
     wrong_format.

Numbers follow the package's rules: an integral float (``###4.0***``) is 4, a
non-integer (``###3.5***``) is wrong_format with value ``None``, an integer
outside 1..5 (``###0***``, ``###6***``, ``###10***``, ``###-1***``) is
``out_of_range`` with value ``None``. No number at all -> wrong_format.

Constrained: with Gemma 3's tokenizer `` ###``, ``###``, each digit 1..5 and
``***`` are single tokens, and `` ###4***`` tokenises as exactly those three
pieces, so slot decoding emits the tokens free decoding would (3 tokens;
budget 8).
"""

from __future__ import annotations

import re

from authbench.llm.formats._base import GBNF_LEAD, ReplyFormat, digit_class, digits
from authbench.llm.formats._text import BARE_STRIP, NUM_RE, ParseResult, coerce, never_raise, normalise

RATING_MIN, RATING_MAX = 1, 5  # the rating scale


_RNUM = r"([-+]?\d+(?:\.\d+)?)"
# Runs of "#" and digits are anchored at their first character (look-behind) and
# no two optional whitespace runs touch, so junk such as 100,000 "#" or spaces
# is scanned in linear time.
_HASH_FULL = re.compile(
    r"(?<!#)#{3,}[ \t]*(?:(<)[ \t]*)?" + _RNUM + r"[ \t]*(?:(>)[ \t]*)?\*{3,}"
)
_HASH_OPEN = re.compile(r"(?<!#)#{3,}[ \t]*(?:<[ \t]*)?" + _RNUM)
_HASH_CLOSE = re.compile(r"(?<![\d.])" + _RNUM + r"[ \t]*(?:>[ \t]*)?\*{3,}")
_RATING_LOOSE = re.compile(
    r"\b(?:score|rating|rate|rated|grade)\b"
    r"(?:[^\S\n]*(?:[:=]|(?:is|of|it|as|a|an|this|the|passage|would|be)\b)){0,4}"
    r"[\s*\"'`]{0,8}" + _RNUM
    + r"|(?<![\w.])" + _RNUM + r"[ \t]*(?:/|out[ \t]+of)[ \t]*5\b",
    re.IGNORECASE,
)
_HASH_STRIP = BARE_STRIP + "#<>"


def _rating_value(raw: str, status: str, detail: str) -> ParseResult:
    kind, x = coerce(raw)
    if kind == "int":
        if not RATING_MIN <= x <= RATING_MAX:
            return ParseResult(None, "out_of_range", f"rating {x} outside {RATING_MIN}..{RATING_MAX}")
        return ParseResult(x, status, detail)
    return ParseResult(None, "wrong_format", f"non-integer rating {raw!r}"[:80])


@never_raise
def parse_hash_rating(text: object) -> ParseResult:
    """``"###4***"`` -> ParseResult(4, "ok"); see module doc for the tiers."""
    s = normalise(text)
    if not s:
        return ParseResult(None, "wrong_format", "empty reply")
    last = None
    for last in _HASH_FULL.finditer(s):
        pass
    if last is not None:
        if last.group(1) or last.group(3):
            return _rating_value(last.group(2), "wrong_format", "placeholder brackets around the rating")
        return _rating_value(last.group(2), "ok", "")
    half = [(m.start(), m.group(1), "no closing ***") for m in _HASH_OPEN.finditer(s)]
    half += [(m.start(), m.group(1), "no opening ###") for m in _HASH_CLOSE.finditer(s)]
    if half:
        _, raw, why = max(half)
        return _rating_value(raw, "wrong_format", why)
    for last in _RATING_LOOSE.finditer(s):
        pass
    if last is not None:
        raw = last.group(1) if last.group(1) is not None else last.group(2)
        return _rating_value(raw, "wrong_format", "rating not in the ###<number>*** format")
    bare = s.strip(_HASH_STRIP)
    if NUM_RE.fullmatch(bare):
        return _rating_value(bare, "wrong_format", "bare number without ###...***")
    return ParseResult(None, "wrong_format", "no rating found")


FORMAT = ReplyFormat(
    name="hash_rating",
    parse=parse_hash_rating,
    statuses=("ok", "wrong_format", "out_of_range"),
    grammar=lambda n: GBNF_LEAD + '"###" ' + digit_class(RATING_MIN, RATING_MAX) + ' "***"',
    slots=lambda n: (("lit", " ###"), ("choice", digits(RATING_MIN, RATING_MAX)), ("lit", "***")),
    max_tokens=lambda n: 8,
    score_range=(RATING_MIN, RATING_MAX),
)
