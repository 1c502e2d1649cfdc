"""Parse raw LLM-judge replies into values (``authbench.llm.parse``).

Every public parser is a pure function ``str -> ParseResult`` that never raises
on model output: any string (empty, huge, binary junk, ``None``, ``bytes``) gives
a :class:`ParseResult`.  Only programming errors raise ``ValueError`` (an unknown
``output_format`` in :func:`parse_reply`, or a list size ``n`` that is not a
positive int).  As a safety net an unexpected internal error is returned as
``wrong_format`` with a detail starting "parser error:" (the tests check that no
input reaches it).  The module uses the standard library only.

Policies
--------
Normalisation (:func:`normalise`), applied before every parser:
  * everything up to and including the LAST ``</think>`` is dropped; a reply that
    opens a ``<think>`` block and never closes it has no answer (-> ``""``);
  * Unicode NFKC (full-width digits, letters and ``｛｝［］：＂，＞`` become ASCII),
    curly quotes become straight quotes, zero-width characters are removed;
  * markdown code-fence markers (```` ```json ```` ... ```` ``` ````) are removed and
    surrounding whitespace is stripped.

Last verdict wins: when a reply holds several verdicts (a model that writes an
example and then its answer, or repeats itself) the parser binds to the last one
in the text: the last JSON object holding the relevant key(s), the last ranking
line, the last A/B token.  For ``pair_scores`` the last object holding *either*
``A`` or ``B`` is the verdict, so a later object missing a key gives "missing"
even if an earlier example object was complete; likewise for ``utility`` with
``answers``/``scores``.  (``yes_no`` is the exception: its FIRST word decides.)

Truncation: a reply cut off inside its last ``{...}`` still yields the complete
pairs.  If those pairs form a full answer, the value is returned but the status
is ``wrong_format`` ("unclosed JSON object"); if some are missing the ordinary
status (``missing``, ...) applies.

Numbers: an integer, an integral float (``7.0``) or a digit string (``"7"``) is
accepted as a clean score.  A non-integer (``7.5``), a non-number (``"high"``,
``true``) or ``null`` is not a score.  Scores live on the 0..9 scale, except
``hash_rating``'s 1..5 (:data:`RATING_MIN`..:data:`RATING_MAX`).

Status values (``STATUSES``):
  ``ok``            clean, complete answer in the requested format;
  ``wrong_format``  nothing usable, or a usable value in a format other than the
                    one asked for (bare ``7`` / ``Score: 7`` for a JSON score, both
                    A and B named for a pair choice), or a non-integer score;
  ``out_of_range``  an integer score outside 0..9 (``hash_rating``: 1..5);
  ``missing``       a required key / id is absent;
  ``repetition``    a ranking names an id more than once;
  ``unknown_id``    an id outside 0..n-1;
  ``empty``         the reply is empty or whitespace (:func:`parse_reply` only: the
                    engine returned nothing, e.g. a constrained decoder that never
                    started; the per-format parsers say ``wrong_format``).
Anything other than ``ok`` counts as a parse FAILURE downstream
(:func:`is_failure`), even when a repaired value is returned; under the default
``strict`` parse mode (config ``parse``) AuthorityBench then ignores that value
(:func:`authbench.studies.authority.evaluate.usable_value`), ``lenient`` uses it.  ``detail`` is
empty exactly when the status is ``ok``, except for ``utility``, where an ok
reply may note missing pseudo-answers.

Per-parser rules:
  * ``parse_score``: the last ``score`` key inside a ``{...}`` object -> ok.
    Without such an object, a loose ``Score: 7`` / bare ``7`` gives the value with
    status ``wrong_format``.  Out of range -> ``out_of_range``, value ``None``.
  * ``parse_pair_choice``: standalone upper-case ``A``/``B`` tokens (word bounded,
    case-sensitive so the article "a" never counts).  Tokens are tiered: explicit
    verdicts (``Answer: B``, ``I choose A``, ``{"choice": "B"}``) > named or
    delimited letters (``Domain A``, ``Entity B``, ``[A]``, ``"B"``, a letter alone
    on its line) > bare letters; the value is the LAST token of the strongest tier
    present.  A bare ``A`` followed by a lower-case word that is not a
    verb/conjunction ("A reliable source ...") is read as the English article and
    ignored.  Exactly one distinct letter -> ok; both A and B named anywhere ->
    ``wrong_format`` (value still the bound letter).  A reply that is exactly
    ``a``/``b`` (lower case) -> the letter, ``wrong_format``.
  * ``parse_pair_scores``: value ``{"A": int, "B": int}`` when status is ok (or
    the object is merely unclosed), else ``None``.  Keys may be ``A``, ``'a'``,
    ``Domain A``, ``[B]``.  Precedence: wrong_format > out_of_range > missing.
  * ``parse_ranking``: ids are read from bracketed numbers ``[k]`` (fallback: bare
    integers joined by ``>`` or ``,``).  The verdict is the last ranking line (or
    run of one-id lines) naming at least ``max(2, ceil(n/2))`` ids, chains joined
    by ``>``/``,`` preferred over prose lines; if no line is that long, the line
    naming the most ids (last on ties).  REPAIR RULE (as rank_llm's
    ``receive_permutation``): keep the first occurrence of each valid id in reply
    order, drop duplicates and ids outside 0..n-1, then append the missing ids in
    ascending id order (= presentation order).  The value is therefore ALWAYS a
    permutation of ``range(n)``.  Status precedence:
    wrong_format > unknown_id > repetition > missing > ok.
  * ``parse_list_scores``: value always has keys 0..n-1 (``None`` = no valid score).
    Truncated JSON keeps its complete pairs; keys may be ``"3"``, ``3``, ``"[3]"``.
    Duplicate keys: the last one wins (JSON semantics).  Status precedence:
    wrong_format (no object, or a non-integer value) > out_of_range > unknown_id
    > missing > ok.
  * ``parse_yes_no`` (RAGAuth's generator, "answer with ONLY 'yes' or 'no'"):
    value ``"yes"``/``"no"`` (lower case) or ``None``.  After normalisation,
    surrounding whitespace, markdown emphasis (``*``, ``_``), quotes and
    backticks are stripped, then one optional leading label ``Answer:``,
    ``Final answer:``, ``Your answer:``, ``My answer:`` or ``A:``
    (case-insensitive).  The reply's FIRST word then decides, case-insensitively:
    ``yes``/``no`` followed by the end, whitespace or one of ``. , ! ; : )``
    (closing emphasis/quotes allowed in between) -> ok, whatever follows
    ("Yes, because ...", "NO", "yes\n\nThe documents say ...").  Both words as
    the verdict (``Yes/No``, ``yes or no``, ``yes and no``, ``yes | no``) ->
    ``None``, wrong_format.  Anything else is wrong and a parse failure (value
    ``None``, wrong_format), even when the reply says yes or no later ("The
    answer is yes": the detail names the words found): ``yeah``, ``nope``,
    ``Y``/``N``, ``true``/``false``, ``Yes?``, ``Yes-ish``, an empty reply, an
    unclosed ``<think>``, ``(yes)``, a JSON ``{"answer": "yes"}``.
  * ``parse_utility`` (RAGAuth's utility filter: pseudo-answers, then scores):
    value ``{"scores": {0..n-1: int|None}, "answers": {0..n-1: str|None}}``,
    always with every id.  JSON objects are found with ``json`` (braces,
    quotes, escapes and even raw newlines inside answer strings are fine,
    nested objects are walked); the verdict is the last object holding ``answers`` or
    ``scores`` (at any nesting depth; a wrapper like ``{"result": {...}}`` is
    accepted).  The ``scores`` sub-object is read exactly as ``parse_list_scores``
    (same keys, numbers and precedence).  A pseudo-answer is a string as given,
    a JSON number as ``str`` (``1`` -> ``"1"``); anything else is ``None``.
    Status: the scores' status, except that scores that are ok without an
    ``answers`` object (absent or not an object) give ``missing`` ("no answers
    object").  Individual missing answers keep ``ok`` (answers are only a means
    to the scores); the detail lists them.  Malformed replies:
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
    At most 2,000 ``{`` positions are tried as JSON starts (longer junk falls
    back to the tolerant read).
  * ``parse_hash_rating`` (the self-preference study's pointwise reranking
    prompt, "Your reply format: ###<number>***", scale 1..5): value an int
    1..5 or ``None``.  Candidates are read in tiers; the LAST candidate of the
    strongest tier present is the verdict:
      0. full markers ``###4***`` -> ok.  Spaces/tabs inside the markers
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
    Numbers follow the rules above: an integral float (``###4.0***``) is 4, a
    non-integer (``###3.5***``) is wrong_format with value ``None``, an integer
    outside 1..5 (``###0***``, ``###6***``, ``###10***``, ``###-1***``) is
    ``out_of_range`` with value ``None``.  No number at all -> wrong_format.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable

__all__ = [
    "STATUSES",
    "OUTPUT_FORMATS",
    "SCORE_MIN",
    "SCORE_MAX",
    "RATING_MIN",
    "RATING_MAX",
    "ParseResult",
    "normalise",
    "parse_score",
    "parse_pair_choice",
    "parse_pair_scores",
    "parse_ranking",
    "parse_list_scores",
    "parse_yes_no",
    "parse_utility",
    "parse_hash_rating",
    "parse_reply",
    "is_failure",
]

STATUSES = ("ok", "wrong_format", "out_of_range", "missing", "repetition", "unknown_id", "empty")
OUTPUT_FORMATS = ("score", "pair_choice", "pair_scores", "ranking", "list_scores", "yes_no", "utility",
                  "hash_rating")
SCORE_MIN, SCORE_MAX = 0, 9
RATING_MIN, RATING_MAX = 1, 5  # hash_rating's scale

# Integers with more digits than this are not converted (Python caps int() on
# long digit strings); they are replaced by a sentinel that is out of any range.
_MAX_DIGITS = 12
_HUGE = 10**_MAX_DIGITS
# Objects longer than this are only tried with json.loads, not the tolerant regex.
_MAX_TOLERANT_CHARS = 200_000


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

_NUM_RE = re.compile(r"([-+]?)(\d+)(?:\.(\d*))?")
_NULLS = frozenset({"null", "none", "nan", "n/a", "na", "-", "?"})


def _big_int(digits: str) -> int:
    digits = digits.lstrip("0") or "0"
    return _HUGE if len(digits) > _MAX_DIGITS else int(digits)


def _coerce(v: object) -> tuple[str, int | None]:
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
            return "int", int(v) if abs(v) < _HUGE else _HUGE
        return "nonint", None
    if isinstance(v, str):
        s = v.strip().strip("\"'").strip()
        if not s or s.lower() in _NULLS:
            return "null", None
        m = _NUM_RE.fullmatch(s)
        if not m:
            return "bad", None
        sign, whole, frac = m.groups()
        if frac and frac.strip("0"):
            return "nonint", None
        n = _big_int(whole)
        return "int", -n if sign == "-" else n
    return "bad", None


def _in_range(x: int) -> bool:
    return SCORE_MIN <= x <= SCORE_MAX


_OBJ_RE = re.compile(r"\{[^{}]*\}")
_TAIL_RE = re.compile(r"\{[^{}]*\Z")
_PAIR_RE = re.compile(
    r"""(?:"(?P<k1>[^"\n]{0,80})"|'(?P<k2>[^'\n]{0,80})'"""
    r"""|(?<![\w\[\]#.-])(?P<k3>[\w\[\]#.-]{1,40}(?:[ \t][\w\[\]#.-]{1,40})?))"""
    r"""\s*[:=]\s*"""
    r"""(?P<v>"[^"\n]{0,80}"?|'[^'\n]{0,80}'?|[\w.+-]{0,40})"""
)


def _objects(s: str) -> list[str]:
    """Flat ``{...}`` substrings in text order, plus a trailing unclosed one."""
    objs = [m.group() for m in _OBJ_RE.finditer(s)]
    tail = _TAIL_RE.search(s)
    if tail is not None:
        objs.append(tail.group())
    return objs


def _items(obj: str) -> list[tuple[str, object]]:
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


def _fmt(xs) -> str:
    xs = list(xs)
    if len(xs) > 20:
        return "[" + ", ".join(map(str, xs[:20])) + ", ...]"
    return str(xs)


def _never_raise(fn: Callable) -> Callable:
    """Turn an unexpected internal error into a visible wrong_format result."""

    @functools.wraps(fn)
    def wrapper(text, *args):
        try:
            return fn(text, *args)
        except Exception as exc:  # noqa: BLE001 - contract: model output never raises
            return ParseResult(None, "wrong_format", f"parser error: {type(exc).__name__}: {exc}"[:200])

    return wrapper


def _check_n(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    return n


# --------------------------------------------------------------------------
# 1. single score  {"score": 7}
# --------------------------------------------------------------------------

_SCORE_LOOSE = re.compile(
    r"\bscore\b[\s*\"'`]{0,8}(?:[:=]|\bis\b|\bof\b)?[\s*\"'`]{0,8}(?P<num>[-+]?\d+(?:\.\d+)?)",
    re.IGNORECASE,
)
_BARE_STRIP = " \t\r\n*\"'`[](){}.!"


def _score_value(raw: object, loose: bool) -> ParseResult:
    kind, x = _coerce(raw)
    if kind == "int":
        if not _in_range(x):
            return ParseResult(None, "out_of_range", f"score {x} outside {SCORE_MIN}..{SCORE_MAX}")
        if loose:
            return ParseResult(x, "wrong_format", "score not given as a JSON object")
        return ParseResult(x, "ok")
    if kind == "nonint":
        return ParseResult(None, "wrong_format", "non-integer score")
    return ParseResult(None, "wrong_format", "score value is not a number")


@_never_raise
def parse_score(text: object) -> ParseResult:
    """``{"score": 7}`` -> ParseResult(7, "ok"); see module doc for the rules."""
    s = normalise(text)
    if not s:
        return ParseResult(None, "wrong_format", "empty reply")
    for obj in reversed(_objects(s)):
        for key, val in reversed(_items(obj)):
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
    bare = s.strip(_BARE_STRIP)
    if _NUM_RE.fullmatch(bare):
        return _score_value(bare, loose=True)
    return ParseResult(None, "wrong_format", "no score found")


# --------------------------------------------------------------------------
# 2. pair choice  A | B
# --------------------------------------------------------------------------

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


@_never_raise
def parse_pair_choice(text: object) -> ParseResult:
    """``"B"`` -> ParseResult("B", "ok"); both letters -> wrong_format."""
    s = normalise(text)
    if not s:
        return ParseResult(None, "wrong_format", "empty reply")
    tokens = _letter_tokens(s)
    if not tokens:
        bare = s.strip(_BARE_STRIP)
        if bare in ("a", "b"):
            return ParseResult(bare.upper(), "wrong_format", "lower-case letter")
        return ParseResult(None, "wrong_format", "no standalone A or B")
    best_tier = min(t for t, _ in tokens)
    last = [letter for t, letter in tokens if t == best_tier][-1]
    if len({letter for _, letter in tokens}) > 1:
        return ParseResult(last, "wrong_format", f"both A and B named; bound to {last}")
    return ParseResult(last, "ok")


# --------------------------------------------------------------------------
# 3. pair scores  {"A": 7, "B": 4}
# --------------------------------------------------------------------------

_AB_KEY = re.compile(
    r"(?:(?:domain|entity|document|doc|answer|option|candidate|response|passage|source|"
    r"site|score)[\s_-]*)?[\[(]?\s*([ab])\s*[\])]?",
    re.IGNORECASE,
)


@_never_raise
def parse_pair_scores(text: object) -> ParseResult:
    """``{"A": 7, "B": 4}`` -> ParseResult({"A": 7, "B": 4}, "ok")."""
    s = normalise(text)
    if not s:
        return ParseResult(None, "wrong_format", "empty reply")
    found: dict[str, object] | None = None
    closed = True
    for obj in reversed(_objects(s)):
        pairs: dict[str, object] = {}
        for key, val in _items(obj):
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
        kind, x = _coerce(found[k])
        if kind == "int":
            if _in_range(x):
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


# --------------------------------------------------------------------------
# 4. ranking  [4] > [0] > [2] ...
# --------------------------------------------------------------------------

_BRACKET_ID = re.compile(r"\[\s*([-+]?\d+)\s*\]")
_CHAIN_SEP = re.compile(r"[\s*`]*(?:>{1,2}|,|;|->|=>|\u2192)?[\s*`]*")
_BARE_CHAIN = re.compile(r"(?<![\w.])\d+(?:[ \t]*(?:>{1,2}|,|->|\u2192)[ \t]*\d+)+(?![\w.])")
_BARE_LINE = re.compile(r"[^\w]*(\d+)[^\w]*")


def _id_of(sign_digits: str) -> int:
    sign = "-" if sign_digits.startswith("-") else ""
    n = _big_int(sign_digits.lstrip("+-"))
    return -n if sign else n


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
            run.append(_id_of(ms[0].group(1)))
            continue
        flush()
        seps = [line[a.end():b.start()] for a, b in zip(ms, ms[1:])]
        chain_like = 2 * sum(1 for sep in seps if _CHAIN_SEP.fullmatch(sep)) >= len(seps)
        segments.append(([_id_of(m.group(1)) for m in ms], chain_like))
    flush()
    return segments


def _bare_ids(s: str, n: int) -> list[int]:
    segments = [([int(d) if len(d) <= _MAX_DIGITS else _HUGE for d in re.findall(r"\d+", m.group())], True)
                for m in _BARE_CHAIN.finditer(s)]
    if segments:
        return _pick_segment(segments, n)
    lines = [ln for ln in s.splitlines() if ln.strip()]
    if lines and len(lines) <= 10_000:
        ms = [_BARE_LINE.fullmatch(ln) for ln in lines]
        if all(ms):
            return [_id_of(m.group(1)) for m in ms]
    return []


def parse_ranking(text: object, n: int) -> ParseResult:
    """``[2] > [0] > [1]`` with n=3 -> ParseResult([2, 0, 1], "ok").

    The value is always a permutation of ``range(n)``: first occurrence of each
    valid id in reply order, then the missing ids in ascending order.
    Raises ValueError only when ``n`` is not a positive int.
    """
    n = _check_n(n)
    res = _parse_ranking(text, n)
    if not isinstance(res.value, list):  # internal error path: still a permutation
        return ParseResult(list(range(n)), res.status, res.detail)
    return res


@_never_raise
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
    return _graded(value, [("unknown_id", "unknown", unknown), ("repetition", "duplicates", dups),
                           ("missing", "missing", missing)])


def _graded(value, problems, closed: bool = True) -> ParseResult:
    """The status of the first kind of problem found, in the given precedence
    (``problems``: (status, label, ids)); the detail lists every kind found."""
    detail = "; ".join(f"{label}={_fmt(ids)}" for _, label, ids in problems if ids)
    for status, _, ids in problems:
        if ids:
            return ParseResult(value, status, detail)
    if not closed:
        return ParseResult(value, "wrong_format", "unclosed JSON object")
    return ParseResult(value, "ok")


# --------------------------------------------------------------------------
# 5. list scores  {"0": 7, "1": 4, ...}
# --------------------------------------------------------------------------

_ID_KEY = re.compile(
    r"(?:(?:document|doc|passage|item|id|candidate)[\s_-]*#?\s*)?[\[(]?\s*([-+]?\d+)\s*[\])]?",
    re.IGNORECASE,
)


def _find_id_pairs(s: str) -> tuple[dict[int, object] | None, bool]:
    """Id -> raw value pairs of the last flat object with id keys; is it closed?"""
    for obj in reversed(_objects(s)):
        pairs: dict[int, object] = {}
        for key, val in _items(obj):
            m = _ID_KEY.fullmatch(key.strip())
            if m:
                pairs[_id_of(m.group(1))] = val  # duplicate key: last wins
        if pairs:
            return pairs, obj.endswith("}")
    return None, True


def _score_pairs(found: dict[int, object], closed: bool, n: int) -> ParseResult:
    """Validate id -> raw score pairs (list_scores' status precedence)."""
    value: dict[int, int | None] = {i: None for i in range(n)}
    bad, oor, unknown = [], [], []
    for k, raw in found.items():
        if not 0 <= k < n:
            unknown.append(k)
            continue
        kind, x = _coerce(raw)
        if kind == "int":
            if _in_range(x):
                value[k] = x
            else:
                oor.append(k)
        elif kind in ("nonint", "bad"):
            bad.append(k)
    missing = [k for k in range(n) if value[k] is None and k not in bad and k not in oor]
    return _graded(value, [("wrong_format", "non_integer", sorted(bad)), ("out_of_range", "out_of_range", sorted(oor)),
                           ("unknown_id", "unknown", sorted(unknown)), ("missing", "missing", missing)], closed)


@_never_raise
def _parse_list_scores(text: object, n: int) -> ParseResult:
    s = normalise(text)
    if not s:
        return ParseResult({i: None for i in range(n)}, "wrong_format", "empty reply")
    found, closed = _find_id_pairs(s)
    if found is None:
        return ParseResult({i: None for i in range(n)}, "wrong_format", "no object with id keys")
    return _score_pairs(found, closed, n)


def parse_list_scores(text: object, n: int) -> ParseResult:
    """``{"0": 7, "1": 4}`` with n=2 -> ParseResult({0: 7, 1: 4}, "ok").

    The value always has keys ``0..n-1``; an id without a valid score maps to None.
    Raises ValueError only when ``n`` is not a positive int.
    """
    n = _check_n(n)
    res = _parse_list_scores(text, n)
    if not isinstance(res.value, dict):  # internal error path
        return ParseResult({i: None for i in range(n)}, res.status, res.detail)
    return res


# --------------------------------------------------------------------------
# 6. yes/no answer  yes | no
# --------------------------------------------------------------------------

_YN_STRIP = " \t\r\n*_\"'`"
_YN_LABEL = re.compile(r"(?:(?:(?:final|your|my)[ \t]+)?answer|a)[ \t]*:", re.IGNORECASE)
_YN_HEAD = re.compile(r"(yes|no)(?![A-Za-z0-9])", re.IGNORECASE)
_YN_BOTH = re.compile(r"[\s*_\"'`]*(?:/|\||\bor\b|\band\b)[\s*_\"'`]*(?:yes|no)(?![A-Za-z0-9])", re.IGNORECASE)
_YN_END = re.compile(r"[*_\"'`]*(?:\Z|[.,!;:)\s])")
_YN_WORD = re.compile(r"(?<![A-Za-z0-9])(yes|no)(?![A-Za-z0-9])", re.IGNORECASE)


@_never_raise
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


# --------------------------------------------------------------------------
# 7. utility  {"answers": {"0": "...", ...}, "scores": {"0": 7, ...}}
# --------------------------------------------------------------------------

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
        m = _ID_KEY.fullmatch(str(key).strip())
        if m:
            out[_id_of(m.group(1))] = val
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
            parts.append(f"answers missing={_fmt(lost)}")
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
        scores = _score_pairs(_id_items(_items(chunk.group())), closed, n)
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


@_never_raise
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
            scores = _score_pairs(_id_items(raw.items()), True, n)
        else:
            scores = ParseResult(empty, "wrong_format", "scores is not an object")
        raw = _key(verdict, "answers")
        return _utility_result(scores, _id_items(raw.items()) if isinstance(raw, dict) else None, n)
    found, closed = _find_id_pairs(s)
    if found is None:
        return _utility_fail(None, "no object with scores", n)
    flat = _score_pairs(found, closed, n)
    detail = "flat id->score object without answers/scores keys"
    return _utility_fail(flat.value, detail + ("; " + flat.detail if flat.detail else ""), n)


def parse_utility(text: object, n: int) -> ParseResult:
    """``{"answers": {"0": "yes"}, "scores": {"0": 7}}`` with n=1 ->
    ParseResult({"scores": {0: 7}, "answers": {0: "yes"}}, "ok").

    Both inner dicts always have keys ``0..n-1`` (None = nothing valid).
    Raises ValueError only when ``n`` is not a positive int.
    """
    n = _check_n(n)
    res = _parse_utility(text, n)
    if not isinstance(res.value, dict):  # internal error path
        empty = {i: None for i in range(n)}
        return ParseResult({"scores": empty, "answers": dict(empty)}, res.status, res.detail)
    return res


# --------------------------------------------------------------------------
# 8. hash rating  ###4***  (scale 1..5)
# --------------------------------------------------------------------------

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
_HASH_STRIP = _BARE_STRIP + "#<>"


def _rating_value(raw: str, status: str, detail: str) -> ParseResult:
    kind, x = _coerce(raw)
    if kind == "int":
        if not RATING_MIN <= x <= RATING_MAX:
            return ParseResult(None, "out_of_range", f"rating {x} outside {RATING_MIN}..{RATING_MAX}")
        return ParseResult(x, status, detail)
    return ParseResult(None, "wrong_format", f"non-integer rating {raw!r}"[:80])


@_never_raise
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
    if _NUM_RE.fullmatch(bare):
        return _rating_value(bare, "wrong_format", "bare number without ###...***")
    return ParseResult(None, "wrong_format", "no rating found")


# --------------------------------------------------------------------------
# 9. dispatcher
# --------------------------------------------------------------------------


def parse_reply(output_format: str, text: object, n: int | None = None) -> ParseResult:
    """Parse ``text`` for one of :data:`OUTPUT_FORMATS`.

    ``n`` (number of listed items) is required for "ranking", "list_scores" and
    "utility" and ignored otherwise.  Unknown formats and a missing/invalid ``n`` raise
    ValueError (programming errors, not bad model output). An empty (or
    whitespace) reply has its own status, ``empty``: an engine that returns
    nothing (e.g. a constrained decoder that could not start) is told apart
    from a model that answers in the wrong format.
    """
    result = _parse_format(output_format, text, n)
    if result.status == "wrong_format" and not to_text(text).strip():
        return ParseResult(result.value, "empty", "empty reply")
    return result


def _parse_format(output_format: str, text: object, n: int | None) -> ParseResult:
    if output_format == "score":
        return parse_score(text)
    if output_format == "pair_choice":
        return parse_pair_choice(text)
    if output_format == "pair_scores":
        return parse_pair_scores(text)
    if output_format == "ranking":
        if n is None:
            raise ValueError("output_format 'ranking' needs n")
        return parse_ranking(text, n)
    if output_format == "list_scores":
        if n is None:
            raise ValueError("output_format 'list_scores' needs n")
        return parse_list_scores(text, n)
    if output_format == "yes_no":
        return parse_yes_no(text)
    if output_format == "utility":
        if n is None:
            raise ValueError("output_format 'utility' needs n")
        return parse_utility(text, n)
    if output_format == "hash_rating":
        return parse_hash_rating(text)
    raise ValueError(f"unknown output_format {output_format!r}; expected one of {OUTPUT_FORMATS}")
