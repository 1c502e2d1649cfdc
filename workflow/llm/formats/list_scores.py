"""``list_scores``: a score for each of n listed items, ``{"0": 7, "1": 4, ...}``
(listwise score judges, RAGAuth's relevance and authority scorers).

Parse (:func:`parse_list_scores`): value always has keys 0..n-1 (``None`` = no
valid score). Truncated JSON keeps its complete pairs; keys may be ``"3"``,
``3``, ``"[3]"``. Duplicate keys: the last one wins (JSON semantics). Status
precedence: wrong_format (no object, or a non-integer value) > out_of_range >
unknown_id > missing > ok. E[s] reads the slots ``"0"`` .. ``"n-1"``.
"""

from __future__ import annotations

import re

from authbench.llm.formats._base import (
    GBNF_LEAD,
    SCORE_MAX,
    SCORE_MIN,
    SCORES,
    digit_class,
    digit_range,
    in_scale,
    list_format,
    mapping_score,
)
from authbench.llm.formats._text import (
    ParseResult,
    check_n,
    coerce,
    graded,
    id_of,
    items,
    never_raise,
    normalise,
    objects,
)

ID_KEY = re.compile(
    r"(?:(?:document|doc|passage|item|id|candidate)[\s_-]*#?\s*)?[\[(]?\s*([-+]?\d+)\s*[\])]?",
    re.IGNORECASE,
)


def find_id_pairs(s: str) -> tuple[dict[int, object] | None, bool]:
    """Id -> raw value pairs of the last flat object with id keys; is it closed?"""
    for obj in reversed(objects(s)):
        pairs: dict[int, object] = {}
        for key, val in items(obj):
            m = ID_KEY.fullmatch(key.strip())
            if m:
                pairs[id_of(m.group(1))] = val  # duplicate key: last wins
        if pairs:
            return pairs, obj.endswith("}")
    return None, True


def score_pairs(found: dict[int, object], closed: bool, n: int) -> ParseResult:
    """Validate id -> raw score pairs (list_scores' status precedence)."""
    value: dict[int, int | None] = {i: None for i in range(n)}
    bad, oor, unknown = [], [], []
    for k, raw in found.items():
        if not 0 <= k < n:
            unknown.append(k)
            continue
        kind, x = coerce(raw)
        if kind == "int":
            if in_scale(x):
                value[k] = x
            else:
                oor.append(k)
        elif kind in ("nonint", "bad"):
            bad.append(k)
    missing = [k for k in range(n) if value[k] is None and k not in bad and k not in oor]
    return graded(value, [("wrong_format", "non_integer", sorted(bad)), ("out_of_range", "out_of_range", sorted(oor)),
                           ("unknown_id", "unknown", sorted(unknown)), ("missing", "missing", missing)], closed)


@never_raise
def _parse_list_scores(text: object, n: int) -> ParseResult:
    s = normalise(text)
    if not s:
        return ParseResult({i: None for i in range(n)}, "wrong_format", "empty reply")
    found, closed = find_id_pairs(s)
    if found is None:
        return ParseResult({i: None for i in range(n)}, "wrong_format", "no object with id keys")
    return score_pairs(found, closed, n)


def parse_list_scores(text: object, n: int) -> ParseResult:
    """``{"0": 7, "1": 4}`` with n=2 -> ParseResult({0: 7, 1: 4}, "ok").

    The value always has keys ``0..n-1``; an id without a valid score maps to None.
    Raises ValueError only when ``n`` is not a positive int.
    """
    n = check_n(n)
    res = _parse_list_scores(text, n)
    if not isinstance(res.value, dict):  # internal error path
        return ParseResult({i: None for i in range(n)}, res.status, res.detail)
    return res


def _grammar(n: int) -> str:
    digit_range(n)
    body = r' ", " '.join(f'"\\"{i}\\": " {digit_class(SCORE_MIN, SCORE_MAX)}' for i in range(n))
    return GBNF_LEAD + '"{" ' + body + ' "}"'


def _slots(n: int):
    digit_range(n)
    parts: list[tuple[str, object]] = []
    for k in range(n):
        parts += [("lit", (' {"' if k == 0 else ', "') + f'{k}": '), ("choice", SCORES)]
    return tuple(parts + [("lit", "}")])


def _score_slots(n: int | None) -> tuple[str, ...]:
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"list_scores needs the list size n, got {n!r}")
    return tuple(str(k) for k in range(n))


FORMAT = list_format("list_scores", parse_list_scores, ("ok", "wrong_format", "out_of_range", "unknown_id", "missing"),
                     _grammar, _slots, (8, 4), score_range=(SCORE_MIN, SCORE_MAX), score_slots=_score_slots,
                     read_score=mapping_score)
