"""``ranking``: a permutation of n listed items, ``[4] > [0] > [2] ...``
(listwise ranking judges).

Parse (:func:`parse_ranking`): ids are read from bracketed numbers ``[k]``
(fallback: bare integers joined by ``>`` or ``,``). The verdict is the last
ranking line (or run of one-id lines) naming at least ``max(2, ceil(n/2))``
ids, chains joined by ``>``/``,`` preferred over prose lines; if no line is
that long, the line naming the most ids (last on ties). REPAIR RULE (as
rank_llm's ``receive_permutation``): keep the first occurrence of each valid id
in reply order, drop duplicates and ids outside 0..n-1, then append the missing
ids in ascending id order (= presentation order). The value is therefore
ALWAYS a permutation of ``range(n)``. Status precedence:
wrong_format > unknown_id > repetition > missing > ok.

Constrained: GBNF cannot express "a permutation" (a constrained reply can still
repeat an id: a repetition); slot decoding's ``choice_unique`` slots can.
"""

from __future__ import annotations

import re

from authbench.llm.formats._base import GBNF_LEAD, SCORES, digit_range, list_format
from authbench.llm.formats._text import HUGE, MAX_DIGITS, ParseResult, check_n, graded, id_of, never_raise, normalise

_BRACKET_ID = re.compile(r"\[\s*([-+]?\d+)\s*\]")
_CHAIN_SEP = re.compile(r"[\s*`]*(?:>{1,2}|,|;|->|=>|\u2192)?[\s*`]*")
_BARE_CHAIN = re.compile(r"(?<![\w.])\d+(?:[ \t]*(?:>{1,2}|,|->|\u2192)[ \t]*\d+)+(?![\w.])")
_BARE_LINE = re.compile(r"[^\w]*(\d+)[^\w]*")



def _pick_segment(segments: list[tuple[list[int], bool]], n: int) -> list[int]:
    """Last chain-like segment with enough ids, else last big one, else longest."""
    if not segments:
        return []
    need = 1 if n == 1 else max(2, -(-n // 2))
    big = [seg for seg in segments if len(seg[0]) >= need]
    chains = [seg for seg in big if seg[1]]
    if chains:
        return chains[-1][0]
    if big:
        return big[-1][0]
    best = segments[0]
    for seg in segments[1:]:
        if len(seg[0]) >= len(best[0]):
            best = seg
    return best[0]


def _bracket_segments(s: str) -> list[tuple[list[int], bool]]:
    segments: list[tuple[list[int], bool]] = []
    run: list[int] = []  # consecutive lines naming exactly one id each

    def flush() -> None:
        if run:
            segments.append((list(run), len(run) >= 2))
            run.clear()

    for line in s.splitlines():
        ms = list(_BRACKET_ID.finditer(line))
        if not ms:
            if line.strip():
                flush()
            continue
        if len(ms) == 1:
            run.append(id_of(ms[0].group(1)))
            continue
        flush()
        seps = [line[a.end():b.start()] for a, b in zip(ms, ms[1:])]
        chain_like = 2 * sum(1 for sep in seps if _CHAIN_SEP.fullmatch(sep)) >= len(seps)
        segments.append(([id_of(m.group(1)) for m in ms], chain_like))
    flush()
    return segments


def _bare_ids(s: str, n: int) -> list[int]:
    segments = [([int(d) if len(d) <= MAX_DIGITS else HUGE for d in re.findall(r"\d+", m.group())], True)
                for m in _BARE_CHAIN.finditer(s)]
    if segments:
        return _pick_segment(segments, n)
    lines = [ln for ln in s.splitlines() if ln.strip()]
    if lines and len(lines) <= 10_000:
        ms = [_BARE_LINE.fullmatch(ln) for ln in lines]
        if all(ms):
            return [id_of(m.group(1)) for m in ms]
    return []


def parse_ranking(text: object, n: int) -> ParseResult:
    """``[2] > [0] > [1]`` with n=3 -> ParseResult([2, 0, 1], "ok").

    The value is always a permutation of ``range(n)``: first occurrence of each
    valid id in reply order, then the missing ids in ascending order.
    Raises ValueError only when ``n`` is not a positive int.
    """
    n = check_n(n)
    res = _parse_ranking(text, n)
    if not isinstance(res.value, list):  # internal error path: still a permutation
        return ParseResult(list(range(n)), res.status, res.detail)
    return res


@never_raise
def _parse_ranking(text: object, n: int) -> ParseResult:
    s = normalise(text)
    ids = _pick_segment(_bracket_segments(s), n) if s else []
    if s and not ids:
        ids = _bare_ids(s, n)
    if not ids:
        return ParseResult(list(range(n)), "wrong_format", "no ids found" if s else "empty reply")
    order: list[int] = []
    seen: set[int] = set()
    unknown: dict[int, None] = {}  # insertion-ordered sets
    dups: dict[int, None] = {}
    for k in ids:
        if not 0 <= k < n:
            unknown[k] = None
        elif k in seen:
            dups[k] = None
        else:
            seen.add(k)
            order.append(k)
    missing = [k for k in range(n) if k not in seen]
    value = order + missing
    return graded(value, [("unknown_id", "unknown", unknown), ("repetition", "duplicates", dups),
                           ("missing", "missing", missing)])


def _grammar(n: int) -> str:
    ids = digit_range(n)
    return GBNF_LEAD + f'"[" {ids} "]" (" > [" {ids} "]"){{{n - 1}}}'


def _slots(n: int):
    digit_range(n)
    parts: list[tuple[str, object]] = [("lit", " [")]
    for k in range(n):
        parts += [("choice_unique", SCORES[:n]), ("lit", "]" if k == n - 1 else "] > [")]
    return tuple(parts)


FORMAT = list_format("ranking", parse_ranking, ("ok", "wrong_format", "unknown_id", "repetition", "missing"),
                     _grammar, _slots, (6, 4))
