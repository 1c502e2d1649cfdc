"""The reply-format registry (authbench.llm.formats): every format declares
every field, each module is registered once under its own name, and the
registered formats are exactly the ones the studies ask for."""

from __future__ import annotations

import dataclasses
import hashlib
import pkgutil
from pathlib import Path

import pytest
import yaml
from authbench.llm import formats
from authbench.llm.formats import FORMATS, OUTPUT_FORMATS, STATUSES, ReplyFormat
from authbench.llm.parse import parse_reply

PROMPTS = Path(__file__).resolve().parents[3] / "resources" / "prompts"
N = 4  # the list size used for list formats below


def test_one_module_per_format_and_every_module_registered():
    modules = sorted(m.name for m in pkgutil.iter_modules(formats.__path__) if not m.name.startswith("_"))
    assert modules == sorted(FORMATS)
    for name, fmt in FORMATS.items():
        assert isinstance(fmt, ReplyFormat) and fmt.name == name


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_has_every_field(name):
    fmt = FORMATS[name]
    fields = {f.name: getattr(fmt, f.name) for f in dataclasses.fields(ReplyFormat)}
    assert set(fields) == {"name", "parse", "statuses", "needs_n", "grammar", "slots", "max_tokens", "score_range",
                           "score_slots", "read_score", "instant"}
    n = N if fmt.needs_n else None
    assert isinstance(fmt.needs_n, bool) and callable(fmt.instant) and fmt.max_tokens(n) >= 0
    if fmt.parse is None:  # free text: not parsed, not constrained, no scores
        assert name not in OUTPUT_FORMATS and fmt.statuses == () and fmt.grammar is fmt.slots is None
        assert fmt.max_tokens(n) == 0 and fmt.score_range is fmt.score_slots is None
        return
    assert name in OUTPUT_FORMATS and callable(fmt.parse) and callable(fmt.grammar) and callable(fmt.slots)
    assert "ok" in fmt.statuses and set(fmt.statuses) <= set(STATUSES) - {"empty"}
    assert fmt.grammar(n).startswith('root ::= " "? ') and fmt.slots(n) and fmt.max_tokens(n) > 0
    assert (fmt.score_slots is None) == (fmt.read_score is None)
    if fmt.score_slots is not None:
        assert fmt.score_range is not None and len(fmt.score_slots(n)) >= 1
    if fmt.score_range is not None:  # every score choice of the slots is inside the range, and the range is offered
        lo, hi = fmt.score_range
        choices = {o.strip() for kind, opts in fmt.slots(n) if kind == "choice" for o in opts if o.strip().isdigit()}
        assert choices == {str(d) for d in range(lo, hi + 1)}


@pytest.mark.parametrize("name", OUTPUT_FORMATS)
def test_statuses_are_the_ones_the_parser_returns(name):
    """A format's declared statuses are exactly those its parser gives on the
    table ``<NAME>_CASES`` of tests/unit/llm/test_parse.py (``empty`` is parse_reply's own)."""
    from . import test_parse

    fmt = FORMATS[name]
    seen = set()
    for case in getattr(test_parse, name.upper() + "_CASES"):
        text, n = (case[0], case[1]) if fmt.needs_n else (case[0], None)
        seen.add((fmt.parse(text, n) if fmt.needs_n else fmt.parse(text)).status)
    assert seen == set(fmt.statuses)


@pytest.mark.parametrize("name", OUTPUT_FORMATS)
def test_instant_reply_parses_ok(name):
    fmt = FORMATS[name]
    n = N if fmt.needs_n else None
    for i in range(20):
        text, picks = fmt.instant(hashlib.sha256(str(i).encode()).digest(), fmt.slots(n))
        assert parse_reply(name, text, n).status == "ok", text
        if fmt.score_slots is not None:
            assert len(picks) == len(fmt.score_slots(n))


def test_registered_formats_are_the_ones_the_studies_name():
    """Every prompt template that names its reply format (``output:``) names a
    registered one, and every registered format is asked for by a template or
    by the self-preference study, whose templates leave the format to its code
    (``hash_rating`` for the reranking prompts, ``free`` for writing)."""
    from authbench.studies.selfpref import requests as study

    named = set()
    for path in PROMPTS.rglob("*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "output" in data:
            named.add(data["output"])
    assert named and named <= set(FORMATS)
    selfpref = {study.FREE, "hash_rating"}
    assert "hash_rating" in Path(study.__file__).read_text(encoding="utf-8")
    assert named | selfpref == set(FORMATS)
