"""``yes_no``: RAGAuth's generator, "answer with ONLY 'yes' or 'no'".

Parse (:func:`parse_yes_no`): value ``"yes"``/``"no"`` (lower case) or
``None``. After normalisation, surrounding whitespace, markdown emphasis
(``*``, ``_``), quotes and backticks are stripped, then one optional leading
label ``Answer:``, ``Final answer:``, ``Your answer:``, ``My answer:`` or ``A:``
(case-insensitive). The reply's FIRST word then decides (the exception to
"last verdict wins"), case-insensitively: ``yes``/``no`` followed by the end,
whitespace or one of ``. , ! ; : )`` (closing emphasis/quotes allowed in
between) -> ok, whatever follows ("Yes, because ...", "NO", "yes\n\nThe
documents say ..."). Both words as the verdict (``Yes/No``, ``yes or no``,
``yes and no``, ``yes | no``) -> ``None``, wrong_format. Anything else is wrong
and a parse failure (value ``None``, wrong_format), even when the reply says yes
or no later ("The answer is yes": the detail names the words found): ``yeah``,
``nope``, ``Y``/``N``, ``true``/``false``, ``Yes?``, ``Yes-ish``, an empty
reply, an unclosed ``<think>``, ``(yes)``, a JSON ``{"answer": "yes"}``.
"""

from __future__ import annotations

import re

from authbench.llm.formats._base import choice_format
from authbench.llm.formats._text import ParseResult, never_raise, normalise

_YN_STRIP = " \t\r\n*_\"'`"
_YN_LABEL = re.compile(r"(?:(?:(?:final|your|my)[ \t]+)?answer|a)[ \t]*:", re.IGNORECASE)
_YN_HEAD = re.compile(r"(yes|no)(?![A-Za-z0-9])", re.IGNORECASE)
_YN_BOTH = re.compile(r"[\s*_\"'`]*(?:/|\||\bor\b|\band\b)[\s*_\"'`]*(?:yes|no)(?![A-Za-z0-9])", re.IGNORECASE)
_YN_END = re.compile(r"[*_\"'`]*(?:\Z|[.,!;:)\s])")
_YN_WORD = re.compile(r"(?<![A-Za-z0-9])(yes|no)(?![A-Za-z0-9])", re.IGNORECASE)


@never_raise
def parse_yes_no(text: object) -> ParseResult:
    """``"Yes, because ..."`` -> ParseResult("yes", "ok"); only a leading yes/no counts."""
    s = normalise(text).strip(_YN_STRIP)
    if not s:
        return ParseResult(None, "wrong_format", "empty reply")
    label = _YN_LABEL.match(s)
    if label is not None:
        s = s[label.end():].lstrip(_YN_STRIP)
    head = _YN_HEAD.match(s)
    if head is not None:
        if _YN_BOTH.match(s, head.end()):
            return ParseResult(None, "wrong_format", "both yes and no given as the verdict")
        if _YN_END.match(s, head.end()):
            return ParseResult(head.group(1).lower(), "ok")
        return ParseResult(None, "wrong_format", f"{head.group(1)!r} glued to other text: {s[:20]!r}")
    words = {m.group(1).lower() for m in _YN_WORD.finditer(s)}
    if not words:
        return ParseResult(None, "wrong_format", "no yes/no in the reply")
    found = " and ".join(w for w in ("yes", "no") if w in words)
    return ParseResult(None, "wrong_format", f"reply does not start with yes/no (found {found} later)")


FORMAT = choice_format("yes_no", parse_yes_no, ("yes", "no"))
