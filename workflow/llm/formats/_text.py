"""What every reply parser shares (:mod:`authbench.llm.formats`): the result
type and its statuses, the normalisation applied before every parser, number
coercion and the flat-object reader. The policies they implement are in the
package docstring; the standard library only.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable

STATUSES = ("ok", "wrong_format", "out_of_range", "missing", "repetition", "unknown_id", "empty")

# Integers with more digits than this are not converted (Python caps int() on
# long digit strings); they are replaced by a sentinel that is out of any range.
MAX_DIGITS = 12
HUGE = 10**MAX_DIGITS
# Objects longer than this are only tried with json.loads, not the tolerant regex.
_MAX_TOLERANT_CHARS = 200_000
BARE_STRIP = " \t\r\n*\"'`[](){}.!"  # stripped around a bare answer


@dataclass(frozen=True)
class ParseResult:
    """Outcome of parsing one reply; ``status`` is one of :data:`STATUSES`."""

    value: object
    status: str
    detail: str = ""


def is_failure(result: ParseResult) -> bool:
    """True unless the reply was a clean, complete answer (``status == "ok"``)."""
    return result.status != "ok"


# --------------------------------------------------------------------------
# normalisation
# --------------------------------------------------------------------------

_THINK_CLOSE = re.compile(r"</\s*think\s*>", re.IGNORECASE)
_THINK_OPEN_LEAD = re.compile(r"\s*<\s*think\s*>", re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+.-]*")
_CHAR_MAP = str.maketrans(
    {
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u3001": ",",  # ideographic comma
        "\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None, "\ufeff": None,
    }
)


def to_text(text: object) -> str:
    if text is None:
        return ""
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text).decode("utf-8", "replace")
    try:
        return str(text)
    except Exception:  # noqa: BLE001 - any odd object counts as no reply
        return ""


def normalise(text: object) -> str:
    """Return the answer part of a reply in plain ASCII-ish form (see module doc)."""
    s = to_text(text)
    last_close = None
    for last_close in _THINK_CLOSE.finditer(s):
        pass
    if last_close is not None:
        s = s[last_close.end():]
    elif _THINK_OPEN_LEAD.match(s):
        return ""  # reasoning never finished: no answer
    s = unicodedata.normalize("NFKC", s)
    s = s.translate(_CHAR_MAP)
    s = _FENCE.sub("", s)
    return s.strip()


# --------------------------------------------------------------------------
# shared helpers
# --------------------------------------------------------------------------

NUM_RE = re.compile(r"([-+]?)(\d+)(?:\.(\d*))?")
_NULLS = frozenset({"null", "none", "nan", "n/a", "na", "-", "?"})


def big_int(digits: str) -> int:
    digits = digits.lstrip("0") or "0"
    return HUGE if len(digits) > MAX_DIGITS else int(digits)


def coerce(v: object) -> tuple[str, int | None]:
    """Classify a JSON value: ("int", n) | ("nonint"|"null"|"bad", None)."""
    if isinstance(v, bool):
        return "bad", None
    if v is None:
        return "null", None
    if isinstance(v, int):
        return "int", v
    if isinstance(v, float):
        if not math.isfinite(v):
            return "bad", None
        if v.is_integer():
            return "int", int(v) if abs(v) < HUGE else HUGE
        return "nonint", None
    if isinstance(v, str):
        s = v.strip().strip("\"'").strip()
        if not s or s.lower() in _NULLS:
            return "null", None
        m = NUM_RE.fullmatch(s)
        if not m:
            return "bad", None
        sign, whole, frac = m.groups()
        if frac and frac.strip("0"):
            return "nonint", None
        n = big_int(whole)
        return "int", -n if sign == "-" else n
    return "bad", None


_OBJ_RE = re.compile(r"\{[^{}]*\}")
_TAIL_RE = re.compile(r"\{[^{}]*\Z")
_PAIR_RE = re.compile(
    r"""(?:"(?P<k1>[^"\n]{0,80})"|'(?P<k2>[^'\n]{0,80})'"""
    r"""|(?<![\w\[\]#.-])(?P<k3>[\w\[\]#.-]{1,40}(?:[ \t][\w\[\]#.-]{1,40})?))"""
    r"""\s*[:=]\s*"""
    r"""(?P<v>"[^"\n]{0,80}"?|'[^'\n]{0,80}'?|[\w.+-]{0,40})"""
)


def objects(s: str) -> list[str]:
    """Flat ``{...}`` substrings in text order, plus a trailing unclosed one."""
    objs = [m.group() for m in _OBJ_RE.finditer(s)]
    tail = _TAIL_RE.search(s)
    if tail is not None:
        objs.append(tail.group())
    return objs


def items(obj: str) -> list[tuple[str, object]]:
    """Key/value pairs of one flat object: json.loads first, tolerant regex next."""
    closed = obj.endswith("}")
    if closed:
        try:
            d = json.loads(obj)
        except Exception:  # noqa: BLE001 - not valid JSON, fall through
            d = None
        if isinstance(d, dict):
            return [(str(k), v) for k, v in d.items()]
    body = obj[1:-1] if closed else obj[1:]
    if len(body) > _MAX_TOLERANT_CHARS:
        return []
    out = []
    for m in _PAIR_RE.finditer(body):
        key = next(g for g in (m.group("k1"), m.group("k2"), m.group("k3")) if g is not None)
        out.append((key.strip(), m.group("v")))
    return out


def fmt_ids(xs) -> str:
    xs = list(xs)
    if len(xs) > 20:
        return "[" + ", ".join(map(str, xs[:20])) + ", ...]"
    return str(xs)


def never_raise(fn: Callable) -> Callable:
    """Turn an unexpected internal error into a visible wrong_format result."""

    @functools.wraps(fn)
    def wrapper(text, *args):
        try:
            return fn(text, *args)
        except Exception as exc:  # noqa: BLE001 - contract: model output never raises
            return ParseResult(None, "wrong_format", f"parser error: {type(exc).__name__}: {exc}"[:200])

    return wrapper


def check_n(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    return n


def id_of(sign_digits: str) -> int:
    sign = "-" if sign_digits.startswith("-") else ""
    n = big_int(sign_digits.lstrip("+-"))
    return -n if sign else n


def graded(value, problems, closed: bool = True) -> ParseResult:
    """The status of the first kind of problem found, in the given precedence
    (``problems``: (status, label, ids)); the detail lists every kind found."""
    detail = "; ".join(f"{label}={fmt_ids(ids)}" for _, label, ids in problems if ids)
    for status, _, ids in problems:
        if ids:
            return ParseResult(value, status, detail)
    if not closed:
        return ParseResult(value, "wrong_format", "unclosed JSON object")
    return ParseResult(value, "ok")
