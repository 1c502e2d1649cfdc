"""Error messages: quoted content is cut to 200 characters (issue 16: an input error printed a whole 4 MB
input as "found: ..." on one line)."""

import json

import pytest
from authbench.errors import QUOTE_LIMIT, InputError, excerpt
from authbench.studies.authority.domains import build_domains
from authbench.studies.ragauth.dataset import load_ragauth


def test_excerpt_short_values_are_quoted_whole():
    assert excerpt("maybe") == "'maybe'"
    assert excerpt("a, b", quote=False) == "a, b"
    assert excerpt(5) == "5" and excerpt(None) == "None"
    assert excerpt({"qid": "Q1", "docs": [1, 2]}) == '{"qid": "Q1", "docs": [1, 2]}'
    assert excerpt("x" * QUOTE_LIMIT) == repr("x" * QUOTE_LIMIT)


def test_excerpt_cuts_long_content_and_gives_its_length():
    assert QUOTE_LIMIT == 200
    assert excerpt("x" * 4_000_000) == repr("x" * 200) + "… (4,000,000 characters)"
    assert excerpt("y" * 201, quote=False) == "y" * 200 + "… (201 characters)"
    record = {"text": "z" * 500}
    assert excerpt(record) == json.dumps(record)[:200] + "… (512 characters)"  # {"text": "<500>"}: 12 + 500
    assert excerpt("abcdef", limit=3) == "'abc'… (6 characters)"


def test_a_json_file_given_as_the_url_table_is_not_printed_whole(tmp_path):
    """The reported case: a 4 MB one-line JSON file as domainauth.source; its 'header' was quoted whole."""
    path = tmp_path / "urls.csv"
    path.write_text(json.dumps([{"url": f"https://site{i}.example.com/page", "rank": i} for i in range(70_000)]))
    assert path.stat().st_size > 4_000_000
    with pytest.raises(InputError) as err:
        build_domains(path, None, {})
    message = str(err.value)
    assert message.startswith(f"{path}: line 1: missing column 'url' (found: [{{\"url\": \"https://site0.example.com")
    assert len(message) < len(str(path)) + 300 and "characters)" in message


def test_ragauth_record_error_quotes_an_excerpt(tmp_path):
    path = tmp_path / "rag.json"
    path.write_text(json.dumps([{"qid": "Q_1", "question": "Is it?", "ground_truth": "maybe " * 10_000,
                                 "documents": []}]))
    with pytest.raises(InputError) as err:
        load_ragauth(path)
    assert str(err.value).endswith("field 'ground_truth': expected 'Yes' or 'No', got "
                                   + repr(("maybe " * 40)[:200]) + "… (60,000 characters)")
