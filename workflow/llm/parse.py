"""Parse raw LLM-judge replies into values (``authbench.llm.parse``).

Every public parser is a pure function ``str -> ParseResult`` that never raises
on model output. The policies they share (normalisation, last verdict wins,
truncation, numbers, statuses) are in :mod:`authbench.llm.formats`; each
format's own rules are in its module there (``formats/score.py`` ...). This
module is the dispatcher, :func:`parse_reply`, and keeps the names other code
imports.
"""

from __future__ import annotations

from authbench.llm.formats import (FORMATS, OUTPUT_FORMATS, SCORE_MAX, SCORE_MIN, STATUSES, ParseResult, is_failure,
                                   normalise, to_text)
from authbench.llm.formats.hash_rating import RATING_MAX, RATING_MIN, parse_hash_rating
from authbench.llm.formats.list_scores import parse_list_scores
from authbench.llm.formats.pair_choice import parse_pair_choice
from authbench.llm.formats.pair_scores import parse_pair_scores
from authbench.llm.formats.ranking import parse_ranking
from authbench.llm.formats.score import parse_score
from authbench.llm.formats.utility import parse_utility
from authbench.llm.formats.yes_no import parse_yes_no

__all__ = [
    "STATUSES",
    "OUTPUT_FORMATS",
    "SCORE_MIN",
    "SCORE_MAX",
    "RATING_MIN",
    "RATING_MAX",
    "ParseResult",
    "normalise",
    "to_text",
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


def parse_reply(output_format: str, text: object, n: int | None = None) -> ParseResult:
    """Parse ``text`` for one of :data:`OUTPUT_FORMATS`.

    ``n`` (number of listed items) is required for the list formats
    (``needs_n``: "ranking", "list_scores", "utility") and ignored otherwise.
    Unknown formats and a missing/invalid ``n`` raise ValueError (programming
    errors, not bad model output). An empty (or whitespace) reply has its own
    status, ``empty``: an engine that returns nothing (e.g. a constrained
    decoder that could not start) is told apart from a model that answers in
    the wrong format.
    """
    fmt = FORMATS.get(output_format)
    if fmt is None or fmt.parse is None:
        raise ValueError(f"unknown output_format {output_format!r}; expected one of {OUTPUT_FORMATS}")
    if not fmt.needs_n:
        result = fmt.parse(text)
    elif n is None:
        raise ValueError(f"output_format {output_format!r} needs n")
    else:
        result = fmt.parse(text, n)
    if result.status == "wrong_format" and not to_text(text).strip():
        return ParseResult(result.value, "empty", "empty reply")
    return result
