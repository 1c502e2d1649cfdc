"""authbench.fetch.entity_lists: a researcher's entity list read (JSONL, TSV,
CSV; drops counted, broken input named) and the unresolved names' TSV. The
benchmark's JSONL written from a fetch: test_wikidata.py."""

from __future__ import annotations

from collections import Counter

import pytest
from authbench.errors import InputError
from authbench.fetch.entity_lists import read_entities, write_unresolved


def test_read_entities_jsonl_ni_format(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(
        '{"question": "Who is the performer of the song Angel", "reference": ["Shaggy"], "popularity": 7, '
        '"question_entity": "Angel"}\n'
        '\n'
        '{"name": " Berlin ", "qid": "Q64"}\n'
        '{"question_entity": "Angel", "question": "again"}\n'
        '{"question_entity": "  "}\n',
        encoding="utf-8",
    )
    entities, drops = read_entities(path)
    assert entities == [
        {"name": "Angel", "question": "Who is the performer of the song Angel", "reference": ["Shaggy"], "qid": None},
        {"name": "Berlin", "question": "", "reference": [], "qid": "Q64"},
    ]
    assert drops == Counter({"duplicate": 1, "blank_name": 1})


def test_read_entities_tsv_and_csv(tmp_path):
    tsv = tmp_path / "in.tsv"
    tsv.write_text('name\tquestion\tqid\n"Heroes" (song)\tWho sang "Heroes"?\t\nBerlin\t\tQ64\nBerlin\t\t\n\t\t\n',
                   encoding="utf-8")
    entities, drops = read_entities(tsv)
    assert entities == [
        {"name": '"Heroes" (song)', "question": 'Who sang "Heroes"?', "reference": [], "qid": None},
        {"name": "Berlin", "question": "", "reference": [], "qid": "Q64"},
    ]
    assert drops == Counter({"duplicate": 1, "blank_name": 1})
    csv_path = tmp_path / "in.csv"
    csv_path.write_text('qid,name\nQ42,"Adams, Douglas"\n', encoding="utf-8")
    assert read_entities(csv_path)[0] == [{"name": "Adams, Douglas", "question": "", "reference": [], "qid": "Q42"}]


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("bad.jsonl", '{"question_entity": "A"}\n{"question_entity": "B"}\n{"question_entity": "C",\n', r"bad\.jsonl: line 3, column \d+: invalid JSON"),
        ("list.jsonl", '{"name": "A"}\n["B"]\n', r"line 2: expected a JSON object"),
        ("noname.jsonl", '{"name": "A"}\n{"question": "x"}\n', r"line 2, field 'question_entity': missing"),
        ("qid.jsonl", '{"name": "A", "qid": "Q1"}\n{"name": "B", "qid": "q42"}\n', r"line 2, field 'qid': 'q42'"),
        ("qid0.tsv", "name\tqid\nA\tQ042\n", r"line 2, column 'qid': 'Q042'"),
        ("refs.jsonl", '{"name": "A", "reference": 3}\n', r"line 1, field 'reference'"),
        ("cols.tsv", "entity\tqid\nA\tQ1\n", r"cols\.tsv: line 1: missing column 'name'"),
        ("extra.tsv", "name\tqid\nA\tQ1\tx\n", r"line 2: 3 fields, header has 2"),
        ("empty.jsonl", "\n  \n", r"empty"),
    ],
)
def test_read_entities_broken_input(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=expected):
        read_entities(path)


def test_read_entities_not_utf8(tmp_path):
    path = tmp_path / "latin1.tsv"
    path.write_bytes("name\nBerlin\nK\u00f6ln\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1\.tsv: line 3, byte 2: bytes that are not UTF-8"):
        read_entities(path)


def test_write_unresolved_tsv(tmp_path):
    write_unresolved([{"name": "Mercury", "reason": "ambiguous", "candidates": "Q308|Q925"}],
                     [{"name": "Tab\there", "reason": "missing from answer"}], tmp_path / "u.tsv")
    assert (tmp_path / "u.tsv").read_text(encoding="utf-8") == (
        "name\treason\tcandidates\nMercury\tambiguous\tQ308|Q925\nTab here\tfetch_failed: missing from answer\t\n")
