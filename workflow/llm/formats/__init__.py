"""Reply formats: one module per format, each defining one
:class:`~authbench.llm.formats._base.ReplyFormat` named ``FORMAT`` (its parser
and parse statuses, GBNF grammar and slots, token budget, whether it needs the
list size n, score range, the score slots E[s] reads, the instant engine's
reply), registered in :data:`FORMATS`. The parser
(:func:`authbench.llm.parse.parse_reply`), the grammars and token budgets
(:mod:`authbench.llm.grammars`), the runner, E[s]
(:mod:`authbench.llm.expected`) and the instant engine all read this table.

Adding a reply format: write ``formats/<name>.py`` defining ``FORMAT =
ReplyFormat(name="<name>", ...)`` (its parse rules in the module docstring)
and add the module to :data:`FORMATS` below; nothing else in the package
changes. ``tests/unit/llm/test_formats.py`` checks every registered format: it wants
the parser's cases as ``<NAME>_CASES`` in ``tests/unit/llm/test_parse.py`` (their
statuses must be the declared ``statuses``) and a prompt template (or the
self-preference study) that asks for the format.

Policies every parser follows (shared code: ``_text.py``):

Never raises on model output: any string (empty, huge, binary junk, ``None``,
``bytes``) gives a :class:`ParseResult`. Only programming errors raise
``ValueError`` (an unknown ``output_format`` in ``parse_reply``, or a list size
``n`` that is not a positive int). As a safety net an unexpected internal error
is returned as ``wrong_format`` with a detail starting "parser error:" (the
tests check that no input reaches it). The parsers use the standard library only.

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
line, the last A/B token. For ``pair_scores`` the last object holding *either*
``A`` or ``B`` is the verdict, so a later object missing a key gives "missing"
even if an earlier example object was complete; likewise for ``utility`` with
``answers``/``scores``. (``yes_no`` is the exception: its FIRST word decides.)

Truncation: a reply cut off inside its last ``{...}`` still yields the complete
pairs. If those pairs form a full answer, the value is returned but the status
is ``wrong_format`` ("unclosed JSON object"); if some are missing the ordinary
status (``missing``, ...) applies.

Numbers: an integer, an integral float (``7.0``) or a digit string (``"7"``) is
accepted as a clean score. A non-integer (``7.5``), a non-number (``"high"``,
``true``) or ``null`` is not a score. Scores live on the 0..9 scale
(``SCORE_MIN``..``SCORE_MAX``), except ``hash_rating``'s 1..5; each format's
``score_range`` says which.

Status values (``STATUSES``):
  ``ok``            clean, complete answer in the requested format;
  ``wrong_format``  nothing usable, or a usable value in a format other than the
                    one asked for (bare ``7`` / ``Score: 7`` for a JSON score, both
                    A and B named for a pair choice), or a non-integer score;
  ``out_of_range``  an integer score outside the format's range;
  ``missing``       a required key / id is absent;
  ``repetition``    a ranking names an id more than once;
  ``unknown_id``    an id outside 0..n-1;
  ``empty``         the reply is empty or whitespace (``parse_reply`` only: the
                    engine returned nothing, e.g. a constrained decoder that never
                    started; the per-format parsers say ``wrong_format``).
Anything other than ``ok`` counts as a parse FAILURE downstream
(:func:`is_failure`), even when a repaired value is returned; under the default
``strict`` parse mode (config ``parse``) AuthorityBench then ignores that value
(:func:`authbench.studies.authority.rows.usable_value`), ``lenient`` uses it.
``detail`` is empty exactly when the status is ``ok``, except for ``utility``,
where an ok reply may note missing pseudo-answers.
"""

from authbench.llm.formats import (
                                   free,
                                   hash_rating,
                                   list_scores,
                                   pair_choice,
                                   pair_scores,
                                   ranking,
                                   score,
                                   utility,
                                   yes_no,
)
from authbench.llm.formats._base import SCORE_MAX, SCORE_MIN, SCORES, ReplyFormat
from authbench.llm.formats._text import STATUSES, ParseResult, is_failure, normalise, to_text

FORMATS: dict[str, ReplyFormat] = {
    m.FORMAT.name: m.FORMAT
    for m in (score, pair_choice, pair_scores, ranking, list_scores, yes_no, utility, hash_rating, free)
}
OUTPUT_FORMATS = tuple(name for name, f in FORMATS.items() if f.parse is not None)  # the parsed formats

__all__ = ["FORMATS", "OUTPUT_FORMATS", "ReplyFormat", "ParseResult", "STATUSES", "SCORE_MIN", "SCORE_MAX", "SCORES",
           "is_failure", "normalise", "to_text"]
