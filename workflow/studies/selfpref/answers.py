"""Answer matching and passage attribution for the self-preference study
(Chen et al., Sections 3.4 and 4.3, footnote 2): whether an answer gives its
gold, whether a passage carries an answer, and which passage a
generation-phase reply drew its answer from.  The knowledge levels built on
the matching rule: :mod:`authbench.studies.selfpref.knowledge`.  Pure
functions; the standard library only.

Policies
--------
Word sets (:func:`word_set`): ``set(re.split(r"\\s|(?<!\\d)[,.](?!\\d)", text))``,
the split of the authors' knowledge script (``knowledge_openai.py``): every
whitespace character, and every ``,`` or ``.`` that does not touch a digit on
either side, is a separator.  Nothing else is stripped, so quotes, brackets,
``?``/``!``/``;``/``:`` stay glued to their word (``'"Does'``, ``'song?'``,
``'(played'``), ``1977.`` and ``3.5`` stay whole, and an empty token ``''``
appears whenever two separators touch or the text starts/ends with one
(``"Linda Davis."`` -> ``{'Linda', 'Davis', ''}``).  The ``''`` token is part of
the rule: dropping it changes 31 of the 1,000 shipped levels.  (The authors'
generation-phase script also splits on ``;``; :func:`attribute` cuts the answer
at the first ``;`` anyway.)

Answer matching (:func:`answer_matches`), the knowledge script's
``has_knowledge``, symmetric in its two arguments::

    W(gold) <= W(answer) or W(answer) <= W(gold) or gold in answer or answer in gold

(``W`` = :func:`word_set`, ``in`` = Python substring), case-sensitive.  So a
shorter answer made of the gold's words counts (gold "Steven Robert Weber",
answer "Steven Weber"; gold "January 1982", answer "1982"), and so does an
answer that is a substring of the gold.  Every clause is needed: dropping
``W(answer) <= W(gold)`` changes 16 levels, dropping ``answer in gold`` 2;
plain ``gold in answer`` alone changes 71, ``W(gold) <= W(answer)`` alone 145.  One deliberate deviation: a blank
answer or gold (empty or whitespace only) never matches (the original counts
``""`` as correct because ``"" in gold``); no shipped answer is blank, so the
re-derivation is unaffected.  ``lowercase=True`` lower-cases both strings first,
as the authors' RELEASED script does (``qa_pair['answer'].lower(),
ai_answer.lower()``, and its Llama results are lower case); the shipped GPT-3.5
file was made WITHOUT lower-casing (its strings keep their case, and
lower-casing changes 40 levels), so the default is case-sensitive.  The
setting ``selfpref.knowledge.match`` (``exact`` | ``lowercase``,
:data:`MATCH_RULES`, :func:`match_lowercase`) picks the rule for the probes
and for re-deriving the released files (the other three released files were
recorded lower-cased: either rule re-derives them;
:func:`~authbench.studies.selfpref.knowledge.released_knowledge` checks every
one).

Passage check (:func:`passage_contains`): footnote 2's "substring matching and
bag-of-words matching": ``answer in passage`` OR ``W(answer) <= W(passage)``,
case-sensitive, blank answers never contained.  (Every shipped model passage in
``nq_passages_*.json`` that is not the failure sentinel :data:`FAIL_PASSAGE`
contains its answer as an exact substring; the bag-of-words clause was never
needed there.  ``bag_of_words=False`` gives the strict check.)

Attribution (:func:`attribute`, Section 3.4; prompt "Answer: <short answer>;
Answer retrieved from which passage: 1 or 2"):
  * the reply is normalised as every judge reply (:func:`authbench.llm.parse.normalise`:
    ``<think>`` dropped, NFKC, code fences); the two answers get the same
    normalisation;
  * answer part (:func:`extract_answer`): the text after the LAST ``Answer:``
    label (``Short answer:``/``Final answer:`` too, any case; markdown ``**``
    around it is skipped; an answer on the next line is taken), up to the first
    ``;``, line break or ``Answer retrieved from``/``which passage``.  Without an
    ``Answer:`` label: the whole reply, up to its first ``[Answer] retrieved
    from`` / ``which passage`` label if it has one;
  * different answers (:func:`same_answer` is False): method "substring"; the
    passage whose answer :func:`answer_matches` the answer part is chosen; both
    -> None, "ambiguous_both"; neither -> None, "ambiguous_neither";
  * the same answer (after :func:`normalise_answer`: case, punctuation,
    whitespace and the articles a/an/the ignored): method "index"; the stated
    passage (:func:`stated_index`) is chosen; none -> "no_index", both 1 and 2
    -> "ambiguous_index";
  * ``method`` is the rule that applied even when nothing was chosen; it is
    None only for "empty_reply" (nothing after normalisation) and
    "invalid_answers" (an answer that is not a non-blank string) and "error"
    (an internal error: a safety net the tests show is never reached);
  * ``stated`` is always the stated index (or None), also for the substring
    method, so the two readings can be compared;
  * never raises on any reply (None, bytes, binary junk, megabytes).

Stated index (:func:`stated_index`), strongest source first, a source counting
only when it names 1 or 2: (a) the first non-empty line after the LAST
``retrieved from``/``which passage`` label; (b) ``Passage 2``/``passage #1``/
``second passage``/``passage one`` anywhere; (c) a bare ``1``/``2`` in the
reply after its answer part (the whole reply when it has no ``Answer:``
label).  Digits (``1``/``2`` not part of a longer number) and the words
one/two/first/second count (``one`` right after first/second is a pronoun:
"the second one" is 2).  Exactly one index -> it; both -> ambiguous.  Only the
first 200,000 characters of a reply are read.
"""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass

from authbench.llm.parse import normalise
from authbench.llm.parse import to_text as _text

__all__ = [
    "FAIL_PASSAGE",
    "ATTRIBUTION_STATUSES",
    "word_set",
    "answer_matches",
    "passage_contains",
    "normalise_answer",
    "same_answer",
    "MATCH_RULES",
    "match_lowercase",
    "Attribution",
    "extract_answer",
    "stated_index",
    "attribute",
]

# What the authors' passage files hold instead of a passage when rewriting
# failed to keep the answer string (48 GPT-3.5 and 92 Llama items in NQ).
FAIL_PASSAGE = "Fail to generate a passage that includes the answer string."
ATTRIBUTION_STATUSES = (
    "ok", "ambiguous_both", "ambiguous_neither", "no_index", "ambiguous_index", "empty_reply", "invalid_answers",
    "error",
)

# selfpref.knowledge.match: how an answer is compared with its gold.  exact =
# case-sensitive (the rule that re-derives the released NQ GPT-3.5 file);
# lowercase = both strings lower-cased first (the authors' released
# knowledge_*.py; the three other released knowledge files were recorded so).
MATCH_RULES = ("exact", "lowercase")

_SPLIT = re.compile(r"\s|(?<!\d)[,.](?!\d)")


# --------------------------------------------------------------------------
# matching
# --------------------------------------------------------------------------

def word_set(text: object) -> set[str]:
    """The knowledge script's bag of words (module doc); ``''`` included."""
    return set(_SPLIT.split(_text(text)))


def match_lowercase(match: str | None) -> bool:
    """``selfpref.knowledge.match`` -> the ``lowercase`` flag of :func:`answer_matches`
    (None = the default, exact). Raises ValueError for another rule."""
    if match is None:
        return False
    if match not in MATCH_RULES:
        raise ValueError(f"knowledge match rule must be one of {list(MATCH_RULES)}, got {match!r}")
    return match == "lowercase"


def answer_matches(answer_text: object, gold: object, *, lowercase: bool = False) -> bool:
    """True if ``answer_text`` counts as giving ``gold`` (the shipped file's rule)."""
    answer, truth = _text(answer_text), _text(gold)
    if not answer.strip() or not truth.strip():
        return False
    if lowercase:
        answer, truth = answer.lower(), truth.lower()
    if truth in answer or answer in truth:
        return True
    w_truth, w_answer = word_set(truth), word_set(answer)
    return w_truth <= w_answer or w_answer <= w_truth


def passage_contains(passage: object, answer: object, *, bag_of_words: bool = True) -> bool:
    """Does a (rewritten) passage still carry ``answer``? Substring, else (by
    default) every word of the answer among the passage's words."""
    text, ans = _text(passage), _text(answer)
    if not ans.strip():
        return False
    if ans in text:
        return True
    return bag_of_words and word_set(ans) <= word_set(text)


_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


def normalise_answer(text: object) -> str:
    """Lower case, NFKC, punctuation dropped, articles a/an/the dropped,
    whitespace collapsed (SQuAD-style answer normalisation)."""
    s = unicodedata.normalize("NFKC", _text(text)).casefold()
    s = "".join(" " if (c in _PUNCT or unicodedata.category(c).startswith("P")) else c for c in s)
    return " ".join(_ARTICLES.sub(" ", s).split())


def same_answer(answer_1: object, answer_2: object) -> bool:
    """True if two passage answers are the same after :func:`normalise_answer`
    (two answers that normalise to nothing are compared case-insensitively)."""
    n1, n2 = normalise_answer(answer_1), normalise_answer(answer_2)
    if n1 or n2:
        return n1 == n2
    return _text(answer_1).strip().casefold() == _text(answer_2).strip().casefold()


# --------------------------------------------------------------------------
# attribution of a generation-phase reply
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Attribution:
    """Which passage (1 or 2) a reply drew its answer from; see module doc."""

    chosen: int | None
    method: str | None  # "substring" | "index" | None
    status: str  # one of ATTRIBUTION_STATUSES
    answer: str | None  # the extracted answer part
    stated: int | None = None  # the index the reply states, whatever the method


_ANSWER_LABEL = re.compile(r"(?<![A-Za-z])(?:(?:short|final)[ \t]+)?answer[ \t]*:", re.IGNORECASE)
_INDEX_LABEL = re.compile(r"retrieved[ \t]+from|which[ \t]+passage", re.IGNORECASE)
_INDEX_CUT = re.compile(r"(?:answer[ \t]+)?retrieved[ \t]+from|which[ \t]+passage", re.IGNORECASE)
_ANSWER_END = re.compile(r"[;\n\r]|" + _INDEX_CUT.pattern, re.IGNORECASE)
_EDGE = " \t*_`"
# "the second one": "one" after first/second is a pronoun, not passage 1.
_INDEX_TOKEN = re.compile(
    r"(?<![\w.])([12])(?!\d|\.\d|[A-Za-z])|\b(first|second)\b(?:[ \t]+(?:one|passage)\b)?|\b(one|two)\b",
    re.IGNORECASE,
)
_NAMED_INDEX = re.compile(
    r"\bpassage[ \t]*(?:#|no\.?|number)?[ \t]*(?:([12])(?!\d|\.\d)|(one|two)\b)"
    r"|\b(first|second)[ \t]+passage\b",
    re.IGNORECASE,
)
_WORD_INDEX = {"one": 1, "two": 2, "first": 1, "second": 2}
_MAX_SCAN = 200_000  # characters of a reply searched for labels and indices


def _answer_span(s: str) -> tuple[str, int]:
    """(answer part, end offset of the answer part in ``s``)."""
    last = None
    for last in _ANSWER_LABEL.finditer(s):
        pass
    if last is None:
        idx = _INDEX_CUT.search(s)
        end = idx.start() if idx else len(s)
        return s[:end].strip().strip(_EDGE).strip(), end
    pos = last.end()
    while pos < len(s) and s[pos] in _EDGE:
        pos += 1
    if pos < len(s) and s[pos] in "\r\n":
        while pos < len(s) and s[pos].isspace():
            pos += 1
    cut = _ANSWER_END.search(s, pos)
    end = cut.start() if cut else len(s)
    return s[pos:end].strip().strip(_EDGE).strip(), end


def extract_answer(reply: object) -> str | None:
    """The answer part of a reply (module doc); None for an empty reply."""
    s = normalise(reply)[:_MAX_SCAN]
    if not s:
        return None
    return _answer_span(s)[0]


def _indices(matches) -> set[int]:
    out: set[int] = set()
    for m in matches:
        for g in m.groups():
            if g:
                out.add(int(g) if g.isdigit() else _WORD_INDEX[g.lower()])
    return out


def _stated(s: str, answer_end: int, has_label: bool) -> tuple[int | None, str]:
    labels = list(_INDEX_LABEL.finditer(s))
    found: set[int] = set()
    if labels:
        lines = [ln for ln in s[labels[-1].end():].splitlines() if ln.strip()]
        if lines:
            found = _indices(_INDEX_TOKEN.finditer(lines[0]))
    if not found:
        found = _indices(_NAMED_INDEX.finditer(s))
    if not found:
        found = _indices(m for m in _INDEX_TOKEN.finditer(s[answer_end:] if has_label else s) if m.group(1))
    if not found:
        return None, "no_index"
    if len(found) > 1:
        return None, "ambiguous_index"
    return found.pop(), "ok"


def stated_index(reply: object) -> tuple[int | None, str]:
    """(1 | 2 | None, "ok" | "no_index" | "ambiguous_index" | "empty_reply")."""
    s = normalise(reply)[:_MAX_SCAN]
    if not s:
        return None, "empty_reply"
    _, end = _answer_span(s)
    return _stated(s, end, _ANSWER_LABEL.search(s) is not None)


def attribute(reply: object, answer_1: object, answer_2: object, *, lowercase: bool = False) -> Attribution:
    """Which passage a generation-phase reply used (module doc).  Never raises."""
    try:
        return _attribute(reply, answer_1, answer_2, lowercase)
    except Exception:  # noqa: BLE001 - contract: model output never raises (tests: never reached)
        return Attribution(None, None, "error", None)


def _attribute(reply: object, answer_1: object, answer_2: object, lowercase: bool) -> Attribution:
    s = normalise(reply)[:_MAX_SCAN]
    if not s:
        return Attribution(None, None, "empty_reply", None)
    answer, end = _answer_span(s)
    stated, index_status = _stated(s, end, _ANSWER_LABEL.search(s) is not None)
    if not all(isinstance(a, str) and a.strip() for a in (answer_1, answer_2)):
        return Attribution(None, None, "invalid_answers", answer, stated)
    a1, a2 = normalise(answer_1), normalise(answer_2)
    if same_answer(a1, a2):
        return Attribution(stated, "index", index_status, answer, stated)
    m1 = answer_matches(answer, a1, lowercase=lowercase)
    m2 = answer_matches(answer, a2, lowercase=lowercase)
    if m1 and m2:
        return Attribution(None, "substring", "ambiguous_both", answer, stated)
    if not (m1 or m2):
        return Attribution(None, "substring", "ambiguous_neither", answer, stated)
    return Attribution(1 if m1 else 2, "substring", "ok", answer, stated)
