"""``utility``: RAGAuth's utility filter, pseudo-answers then scores over n
documents, ``{"answers": {"0": "...", ...}, "scores": {"0": 7, ...}}``.

Parse (:func:`parse_utility`): value ``{"scores": {0..n-1: int|None},
"answers": {0..n-1: str|None}}``, always with every id. JSON objects are found
with ``json`` (braces, quotes, escapes and even raw newlines inside answer
strings are fine, nested objects are walked); the verdict is the last object
holding ``answers`` or ``scores`` (at any nesting depth; a wrapper like
``{"result": {...}}`` is accepted), so a later object missing a key gives
"missing" even if an earlier example object was complete. The ``scores``
sub-object is read exactly as ``list_scores`` (same keys, numbers and
precedence). A pseudo-answer is a string as given, a JSON number as ``str``
(``1`` -> ``"1"``); anything else is ``None``. Status: the scores' status,
except that scores that are ok without an ``answers`` object (absent or not an
object) give ``missing`` ("no answers object"). Individual missing answers keep
``ok`` (answers are only a means to the scores; the one format whose ok reply
may have a detail, listing them). Malformed replies:

  - no ``scores`` key in the verdict (e.g. cut inside ``answers``) ->
    ``missing`` ("no scores object"), answers read so far kept;
  - ``scores`` not an object (a list ``[7, 4]``) -> wrong_format, no scores;
  - invalid JSON after the last valid verdict (truncated, single quotes,
    trailing commas): a tolerant read from the last quoted ``"scores"``
    key: complete pairs are kept, an unclosed reply with all scores is
    wrong_format ("unclosed JSON object"), as for list_scores;
  - only a flat ``{"0": 7, ...}`` object (the list-score shape) ->
    wrong_format, but its valid scores are KEPT in the value (usable for
    a ranking, still a parse failure); no JSON at all -> wrong_format.

At most 2,000 ``{`` positions are tried as JSON starts (longer junk falls back
to the tolerant read).

Constrained: the pseudo-answers are restricted to "yes"/"no" because RAGAuth
questions are yes/no questions (a free-text answer cannot be a fixed list of
single-token choices); free decoding still gets free-text pseudo-answers. The
grammar is generated from the slots, so both accept exactly the same strings.
A full reply is 12n+6 Gemma 3 tokens (budget 16n+16).
"""

from __future__ import annotations

import json
import re

from authbench.llm.formats._base import SCORE_MAX, SCORE_MIN, SCORES, digit_range, gbnf_from_slots, list_format
from authbench.llm.formats._text import ParseResult, check_n, fmt_ids, id_of, items, never_raise, normalise
from authbench.llm.formats.list_scores import ID_KEY, find_id_pairs, score_pairs

_JSON_START = re.compile(r"\{\s*[\"}]")
_MAX_JSON_TRIES = 2_000
_MAX_WALK_DEPTH = 8
_UTIL_KEY = re.compile(r"[\"'](answers|scores)[\"']\s*:\s*", re.IGNORECASE)
_FLAT_AT = re.compile(r"\{[^{}]*\}?")
_ANS_PAIR = re.compile(
    r"""(?:"([^"\n]{1,40})"|'([^'\n]{1,40})')\s*:\s*"""
    r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(-?\d+(?:\.\d+)?)(?![\w.]))"""
)
_ABSENT = object()


def _json_objects(s: str) -> list[tuple[int, object]]:
    """(end, value) of each complete top-level JSON object, in text order."""
    decoder = json.JSONDecoder(strict=False)
    out: list[tuple[int, object]] = []
    pos, tries = 0, 0
    while tries < _MAX_JSON_TRIES:
        m = _JSON_START.search(s, pos)
        if m is None:
            break
        tries += 1
        try:
            obj, end = decoder.raw_decode(s, m.start())
        except Exception:  # noqa: BLE001 - invalid JSON, too deep, huge int: try the next "{"
            pos = m.start() + 1
            continue
        out.append((end, obj))
        pos = end
    return out


def _dicts(obj: object, depth: int = 0) -> list[dict]:
    """Dicts inside a decoded JSON value, children before their parent."""
    out: list[dict] = []
    if depth > _MAX_WALK_DEPTH:
        return out
    if isinstance(obj, dict):
        for v in obj.values():
            out += _dicts(v, depth + 1)
        out.append(obj)
    elif isinstance(obj, list):
        for v in obj:
            out += _dicts(v, depth + 1)
    return out


def _key(d: dict, name: str) -> object:
    """Value of key ``name`` (case-insensitive, last wins) or ``_ABSENT``."""
    val = _ABSENT
    for k, v in d.items():
        if isinstance(k, str) and k.strip().lower() == name:
            val = v
    return val


def _id_items(pairs) -> dict[int, object]:
    out: dict[int, object] = {}
    for key, val in pairs:
        m = ID_KEY.fullmatch(str(key).strip())
        if m:
            out[id_of(m.group(1))] = val
    return out


def _answer_text(v: object) -> str | None:
    """A pseudo-answer: a string as is, a number as ``str``, anything else None."""
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    return None


def _answers_at(t: str, pos: int, stop: int) -> dict[int, object] | None:
    """Answers object starting at ``t[pos] == "{"``: JSON, else tolerant pairs."""
    try:
        obj, _ = json.JSONDecoder(strict=False).raw_decode(t, pos)
    except Exception:  # noqa: BLE001 - truncated or not JSON: read string pairs
        obj = None
    if isinstance(obj, dict):
        return _id_items(obj.items())
    pairs = []
    for m in _ANS_PAIR.finditer(t, pos + 1, stop):
        key = m.group(1) if m.group(1) is not None else m.group(2)
        if m.group(3) is not None:
            try:
                val = json.loads('"' + m.group(3) + '"')
            except Exception:  # noqa: BLE001 - keep the raw text
                val = m.group(3)
        else:
            val = m.group(4) if m.group(4) is not None else m.group(5)
        pairs.append((key, val))
    return _id_items(pairs)


def _utility_fail(scores: dict[int, int | None] | None, detail: str, n: int) -> ParseResult:
    """A wrong_format utility result without answers (no utility object found)."""
    empty = {i: None for i in range(n)}
    return ParseResult({"scores": scores or dict(empty), "answers": empty}, "wrong_format", detail)


def _utility_result(scores: ParseResult, answers: dict[int, object] | None, n: int) -> ParseResult:
    """Combine the scores' result with the answers (module doc, parse_utility)."""
    ans: dict[int, str | None] = {i: None for i in range(n)}
    status = scores.status
    parts = [scores.detail] if scores.detail else []
    if answers is None:
        parts.append("no answers object")
        if status == "ok":
            status = "missing"
    else:
        for k, v in answers.items():
            if 0 <= k < n:
                ans[k] = _answer_text(v)
        lost = [k for k in range(n) if ans[k] is None]
        if lost:
            parts.append(f"answers missing={fmt_ids(lost)}")
    return ParseResult({"scores": scores.value, "answers": ans}, status, "; ".join(parts))


def _utility_tail(t: str, keys: list, n: int) -> ParseResult:
    """Tolerant read of an invalid or truncated utility object (keys found in ``t``)."""
    empty = {i: None for i in range(n)}
    score_keys = [m for m in keys if m.group(1).lower() == "scores"]
    answer_keys = [m for m in keys if m.group(1).lower() == "answers"]
    sk = score_keys[-1] if score_keys else None
    if sk is None or sk.end() >= len(t):
        scores = ParseResult(empty, "missing", "no scores object")
    elif t[sk.end()] == "{":
        chunk = _FLAT_AT.match(t, sk.end())
        closed = chunk.group().endswith("}") and "}" in t[chunk.end():]
        scores = score_pairs(_id_items(items(chunk.group())), closed, n)
    elif t[sk.end()] == "[":
        scores = ParseResult(empty, "wrong_format", "scores is not an object")
    else:
        scores = ParseResult(empty, "missing", "no scores object")
    answers = None
    if answer_keys:
        ak = answer_keys[-1]
        if ak.end() < len(t) and t[ak.end()] == "{":
            stop = sk.start() if sk is not None and sk.start() > ak.end() else len(t)
            answers = _answers_at(t, ak.end(), stop)
    return _utility_result(scores, answers, n)


@never_raise
def _parse_utility(text: object, n: int) -> ParseResult:
    s = normalise(text)
    empty = {i: None for i in range(n)}
    if not s:
        return _utility_fail(None, "empty reply", n)
    verdict, end = None, 0
    for stop, obj in _json_objects(s):
        for d in _dicts(obj):
            if _key(d, "scores") is not _ABSENT or _key(d, "answers") is not _ABSENT:
                verdict, end = d, stop
    tail = s[end:]
    keys = list(_UTIL_KEY.finditer(tail))
    if keys:  # a later verdict that is not valid JSON (truncated, single quotes, ...)
        return _utility_tail(tail, keys, n)
    if verdict is not None:
        raw = _key(verdict, "scores")
        if raw is _ABSENT:
            scores = ParseResult(empty, "missing", "no scores object")
        elif isinstance(raw, dict):
            scores = score_pairs(_id_items(raw.items()), True, n)
        else:
            scores = ParseResult(empty, "wrong_format", "scores is not an object")
        raw = _key(verdict, "answers")
        return _utility_result(scores, _id_items(raw.items()) if isinstance(raw, dict) else None, n)
    found, closed = find_id_pairs(s)
    if found is None:
        return _utility_fail(None, "no object with scores", n)
    flat = score_pairs(found, closed, n)
    detail = "flat id->score object without answers/scores keys"
    return _utility_fail(flat.value, detail + ("; " + flat.detail if flat.detail else ""), n)


def parse_utility(text: object, n: int) -> ParseResult:
    """``{"answers": {"0": "yes"}, "scores": {"0": 7}}`` with n=1 ->
    ParseResult({"scores": {0: 7}, "answers": {0: "yes"}}, "ok").

    Both inner dicts always have keys ``0..n-1`` (None = nothing valid).
    Raises ValueError only when ``n`` is not a positive int.
    """
    n = check_n(n)
    res = _parse_utility(text, n)
    if not isinstance(res.value, dict):  # internal error path
        empty = {i: None for i in range(n)}
        return ParseResult({"scores": empty, "answers": dict(empty)}, res.status, res.detail)
    return res


def _slots(n: int):
    digit_range(n)
    parts: list[tuple[str, object]] = []
    for k in range(n):
        parts += [("lit", (' {"answers": {"' if k == 0 else '", "') + f'{k}": "'), ("choice", ("yes", "no"))]
    for k in range(n):
        parts += [("lit", ('"}, "scores": {"' if k == 0 else ', "') + f'{k}": '), ("choice", SCORES)]
    return tuple(parts + [("lit", "}}")])


FORMAT = list_format("utility", parse_utility, ("ok", "wrong_format", "out_of_range", "unknown_id", "missing"),
                     lambda n: gbnf_from_slots(_slots(n)), _slots, (16, 16), score_range=(SCORE_MIN, SCORE_MAX))
