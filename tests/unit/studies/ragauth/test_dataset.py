"""RAGAuth unit tests: the Figure 5 loader, prompt templates, scores, top-k,
request building, answer scoring, the tokenizers that cut documents, and the
config's RAGAuth plan. Everything offline; the llama.cpp tokenizer (the demo
model's vocabulary): tests/workflow/test_rag_real_model.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from authbench.studies.ragauth.cell_list import RagCells, rag_cells
from authbench.errors import InputError, TemplateError
from authbench.llm.engines.tokenize import WordTokenizer, load_tokenizer, truncate
from authbench.net import tld_prior_score
from authbench.studies.ragauth.dataset import dataset_report, load_ragauth, normalise_gold, topic_of
from authbench.studies.ragauth.requests import (
    STAGE_OUTPUT,
    answer_requests,
    answer_row,
    cut_documents,
    judged_scores,
    load_rag_template,
    prior_scores,
    rank_requests,
    top_k,
)

ROOT = Path(__file__).resolve().parents[4]
RAG_PROMPTS = ROOT / "resources" / "prompts" / "ragauth"
TOPICS = {"MED": "medical", "SCI": "science"}


# --- helpers -------------------------------------------------------------------

def make_doc(i: int, **over) -> dict:
    doc = {"docid": f"doc_{i:03d}", "url": f"https://www.site{i}.org/page/{i}", "domain": f"site{i}.org",
           "PageRank": i % 11, "doc_text": f"Text of document {i}.", "authority": "high"}
    doc.update(over)
    return doc


def make_rec(qid: str = "MED_EN_001", n_docs: int = 2, **over) -> dict:
    rec = {"qid": qid, "question": f"Is {qid} true?", "question_type": "yes_no", "language": "en",
           "ground_truth": "Yes", "documents": [make_doc(i) for i in range(n_docs)]}
    rec.update(over)
    return rec


def write_list(path: Path, records) -> Path:
    path.write_text(json.dumps(records, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def write_lines(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def assert_names(err: Exception, *parts: str) -> None:
    msg = str(err)
    for part in parts:
        assert part in msg, f"{part!r} not in error message {msg!r}"


VALID = [
    # gold "Yes", topic from the qid prefix, domain missing -> from url, PageRank null
    make_rec("MED_EN_001", 3, ground_truth="Yes", documents=[
        {"docid": "a", "url": " https://www.nih.gov/news/vitamin-d ", "PageRank": None, "doc_text": "NIH text."},
        {"docid": "b", "url": "https://news.bbc.co.uk/health/1", "domain": "  BBC.co.uk ", "PageRank": "7",
         "doc_text": "BBC text.", "authority": "high"},
        {"docid": "c", "url": "http://blog.example.com/p?id=3", "PageRank": 7.0, "doc_text": ""},
    ]),
    # gold "no.", topic from its own field (wins over the prefix)
    make_rec("SCI_EN_002", 1, ground_truth="no.", topic=" physics "),
    # gold " NO ", unmapped prefix -> topic None, question_type absent, docids absent
    {"qid": "XYZ_003", "question": "  Does it rain?  ", "ground_truth": " NO ",
     "documents": [{"url": "https://www.cdc.gov/a", "doc_text": "x"}, {"url": "cdc.gov/b", "doc_text": "y"}]},
]


# --- load_ragauth: valid input --------------------------------------------------

def test_json_list_and_json_lines_give_identical_output(tmp_path):
    a = load_ragauth(write_list(tmp_path / "a.json", VALID), TOPICS)
    b = load_ragauth(write_lines(tmp_path / "b.jsonl", VALID), TOPICS)
    assert a == b
    assert [q["qid"] for q in a] == ["MED_EN_001", "SCI_EN_002", "XYZ_003"]


def test_loaded_record_is_normalised(tmp_path):
    q = load_ragauth(write_list(tmp_path / "a.json", VALID), TOPICS)
    assert q[0] == {
        "qid": "MED_EN_001", "question": "Is MED_EN_001 true?", "gold": "yes", "topic": "medical", "language": "en",
        "documents": [
            {"docid": "a", "url": "https://www.nih.gov/news/vitamin-d", "domain": "nih.gov", "pagerank": None,
             "text": "NIH text.", "authority": None},
            {"docid": "b", "url": "https://news.bbc.co.uk/health/1", "domain": "bbc.co.uk", "pagerank": 7,
             "text": "BBC text.", "authority": "high"},
            {"docid": "c", "url": "http://blog.example.com/p?id=3", "domain": "example.com", "pagerank": 7,
             "text": "", "authority": None},
        ],
    }
    assert isinstance(q[0]["documents"][1]["pagerank"], int)
    assert isinstance(q[0]["documents"][2]["pagerank"], int)
    assert q[1]["gold"] == "no" and q[1]["topic"] == "physics"
    assert q[2]["gold"] == "no" and q[2]["topic"] is None and q[2]["question"] == "Does it rain?"
    assert q[2]["language"] is None
    assert [d["docid"] for d in q[2]["documents"]] == ["doc_000", "doc_001"]
    assert [d["domain"] for d in q[2]["documents"]] == ["cdc.gov", "cdc.gov"]


def test_topics_none_leaves_prefix_topics_unset(tmp_path):
    q = load_ragauth(write_list(tmp_path / "a.json", VALID))
    assert [x["topic"] for x in q] == [None, "physics", None]


def test_utf8_bom_and_blank_lines_are_accepted(tmp_path):
    path = tmp_path / "a.jsonl"
    lines = "\n\n".join(json.dumps(r) for r in VALID[:2])
    path.write_bytes(b"\xef\xbb\xbf" + lines.encode("utf-8") + b"\n\n")
    assert [q["qid"] for q in load_ragauth(path, TOPICS)] == ["MED_EN_001", "SCI_EN_002"]


def test_shipped_fixture_loads(root):
    qs = load_ragauth(root / "tests/fixtures/ragauth/ragauth_fixture.json", {"MED": "medical"})
    assert qs and all(q["gold"] in ("yes", "no") for q in qs)
    assert all(1 <= len(q["documents"]) <= 10 for q in qs)


@pytest.mark.parametrize("value, expected", [
    ("Yes", "yes"), ("no.", "no"), (" NO ", "no"), ("yes!", "yes"), ("YES", "yes"), ("No.\n", "no"),
    ("maybe", None), ("", None), ("yes no", None), (None, None), (1, None), (True, None),
])
def test_normalise_gold(value, expected):
    assert normalise_gold(value) == expected


@pytest.mark.parametrize("record, expected", [
    ({"qid": "MED_EN_001", "topic": "oncology"}, "oncology"),
    ({"qid": "MED_EN_001", "topic": "  "}, "medical"),
    ({"qid": "MED_EN_001"}, "medical"),
    ({"qid": "SCI"}, "science"),
    ({"qid": "NEWS_1"}, None),
    ({"qid": "MEDEN001"}, None),
])
def test_topic_of(record, expected):
    assert topic_of(record, TOPICS) == expected


def test_topic_of_without_mapping():
    assert topic_of({"qid": "MED_1"}, None) is None


# --- load_ragauth: errors -------------------------------------------------------

def test_not_json_in_a_list_names_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[\n {"qid": "A"},\n {"qid": }\n]\n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), "line 3, column 10", "not valid JSON")


def test_not_json_in_json_lines_names_line_and_column(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(make_rec()) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), "line 2, column 2", "not valid JSON")


@pytest.mark.parametrize("content", [b"", b"  \n\n"])
def test_empty_file(tmp_path, content):
    path = tmp_path / "empty.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), "line 1", "empty")


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'[{"qid": "A", "question": "caf\xe9?"}]')
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), "line 1", "not UTF-8")


def test_empty_list_has_no_records(tmp_path):
    path = write_list(tmp_path / "none.json", [])
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), "line 1", "no question records")


def test_record_not_an_object_in_list(tmp_path):
    path = write_list(tmp_path / "a.json", [make_rec("A_1"), ["not", "an", "object"]])
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), "record 1", "expected a JSON object", "a JSON object")


def test_record_not_an_object_in_json_lines(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(make_rec("A_1")) + '\n"just text"\n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), "line 2", "expected a JSON object")


def _drop(key):
    def f(rec):
        del rec[key]
    return f


def _set(key, value):
    def f(rec):
        rec[key] = value
    return f


def _doc_set(i, key, value):
    def f(rec):
        rec["documents"][i][key] = value
    return f


def _doc_drop(i, key):
    def f(rec):
        del rec["documents"][i][key]
    return f


# (id, mutation of the second record "Q_2", field named, qid known?)
RECORD_ERRORS = [
    ("qid missing", _drop("qid"), "field 'qid'", False),
    ("qid empty", _set("qid", "  "), "field 'qid'", False),
    ("qid not a string", _set("qid", None), "field 'qid'", False),
    ("question missing", _drop("question"), "field 'question'", True),
    ("question empty", _set("question", "   "), "field 'question'", True),
    ("question_type", _set("question_type", "open"), "field 'question_type'", True),
    ("ground_truth maybe", _set("ground_truth", "maybe"), "field 'ground_truth'", True),
    ("ground_truth missing", _drop("ground_truth"), "field 'ground_truth'", True),
    ("documents missing", _drop("documents"), "field 'documents'", True),
    ("documents empty", _set("documents", []), "field 'documents'", True),
    ("documents not a list", _set("documents", {"0": make_doc(0)}), "field 'documents'", True),
    ("11 documents", _set("documents", [make_doc(i) for i in range(11)]), "field 'documents'", True),
    ("document not an object", _set("documents", [make_doc(0), "text"]), "field 'documents[1]'", True),
    ("document without url", _doc_drop(1, "url"), "field 'documents[1].url'", True),
    ("document with empty url", _doc_set(1, "url", " "), "field 'documents[1].url'", True),
    ("doc_text missing", _doc_drop(1, "doc_text"), "field 'documents[1].doc_text'", True),
    ("doc_text not a string", _doc_set(1, "doc_text", 42), "field 'documents[1].doc_text'", True),
    ("duplicate docid", _doc_set(1, "docid", "doc_000"), "field 'documents[1].docid'", True),
    ("docid not a string", _doc_set(1, "docid", 7), "field 'documents[1].docid'", True),
    ("PageRank 11", _doc_set(1, "PageRank", 11), "field 'documents[1].PageRank'", True),
    ("PageRank -1", _doc_set(1, "PageRank", -1), "field 'documents[1].PageRank'", True),
    ("PageRank '-1'", _doc_set(1, "PageRank", "-1"), "field 'documents[1].PageRank'", True),
    ("PageRank 7.5", _doc_set(1, "PageRank", 7.5), "field 'documents[1].PageRank'", True),
    ("PageRank true", _doc_set(1, "PageRank", True), "field 'documents[1].PageRank'", True),
    ("PageRank 'high'", _doc_set(1, "PageRank", "high"), "field 'documents[1].PageRank'", True),
    ("PageRank list", _doc_set(1, "PageRank", [7]), "field 'documents[1].PageRank'", True),
]


@pytest.mark.parametrize("fmt", ["list", "lines"])
@pytest.mark.parametrize("name, mutate, field, qid_known", RECORD_ERRORS, ids=[e[0] for e in RECORD_ERRORS])
def test_record_errors(tmp_path, fmt, name, mutate, field, qid_known):
    records = [make_rec("Q_1"), make_rec("Q_2"), make_rec("Q_3")]
    mutate(records[1])
    if fmt == "list":
        path, where = write_list(tmp_path / "rag.json", records), "record 1"
    else:
        path, where = write_lines(tmp_path / "rag.jsonl", records), "line 2"
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), where, field)
    if qid_known:
        assert_names(exc.value, "(qid Q_2)")
    else:
        assert "qid Q_" not in str(exc.value)


def test_error_shows_the_bad_value(tmp_path):
    path = write_list(tmp_path / "a.json", [make_rec("Q_1", ground_truth="maybe")])
    with pytest.raises(InputError, match=r"got 'maybe'"):
        load_ragauth(path)
    path = write_list(tmp_path / "b.json", [make_rec("Q_1", documents=[make_doc(i) for i in range(11)])])
    with pytest.raises(InputError, match=r"at most 10 documents.*got 11"):
        load_ragauth(path)


@pytest.mark.parametrize("fmt, first, second", [("list", "record 0", "record 2"), ("lines", "line 1", "line 3")])
def test_duplicate_qid_names_the_other_record(tmp_path, fmt, first, second):
    records = [make_rec("Q_1"), make_rec("Q_2"), make_rec("Q_1")]
    path = (write_list if fmt == "list" else write_lines)(tmp_path / f"rag.{fmt}", records)
    with pytest.raises(InputError) as exc:
        load_ragauth(path)
    assert_names(exc.value, str(path), second, "(qid Q_1)", "field 'qid'", f"also used by {first}")


def test_ten_documents_are_accepted(tmp_path):
    q = load_ragauth(write_list(tmp_path / "a.json", [make_rec("Q_1", 10)]))
    assert len(q[0]["documents"]) == 10


@pytest.mark.parametrize("value, expected", [(None, None), (0, 0), (10, 10), ("7", 7), (" 7 ", 7), (7.0, 7)])
def test_pagerank_values_accepted(tmp_path, value, expected):
    rec = make_rec("Q_1", 1)
    rec["documents"][0]["PageRank"] = value
    q = load_ragauth(write_list(tmp_path / "a.json", [rec]))
    assert q[0]["documents"][0]["pagerank"] == expected


def test_pagerank_absent_is_none(tmp_path):
    rec = make_rec("Q_1", 1)
    del rec["documents"][0]["PageRank"]
    assert load_ragauth(write_list(tmp_path / "a.json", [rec]))[0]["documents"][0]["pagerank"] is None


# --- dataset_report -------------------------------------------------------------

def test_dataset_report_counts(tmp_path):
    records = [
        make_rec("MED_1", 3, ground_truth="yes", documents=[
            make_doc(0, PageRank=None), make_doc(1), {"url": "http://192.168.0.1/x", "doc_text": "ip host"}]),
        make_rec("SCI_2", 1, ground_truth="No", topic="physics"),
        make_rec("ZZZ_3", 5, ground_truth="Yes", documents=[make_doc(i, PageRank=None if i < 2 else 4)
                                                            for i in range(5)]),
    ]
    qs = load_ragauth(write_list(tmp_path / "a.json", records), TOPICS)
    assert dataset_report(qs, [1, 3, 5]) == [
        {"what": "questions", "count": 3},
        {"what": "documents", "count": 9},
        {"what": "documents_without_pagerank", "count": 4},   # 1 in MED_1 (+ the IP one) + 2 in ZZZ_3
        {"what": "documents_without_domain", "count": 1},     # the IP host
        {"what": "questions_with_fewer_than_1_documents", "count": 0},
        {"what": "questions_with_fewer_than_3_documents", "count": 1},  # SCI_2
        {"what": "questions_with_fewer_than_5_documents", "count": 2},  # MED_1, SCI_2
        {"what": "gold_yes", "count": 2},
        {"what": "gold_no", "count": 1},
        {"what": "topic:medical", "count": 1},
        {"what": "topic:physics", "count": 1},
    ]


def test_dataset_report_empty_ks():
    qs = [{"qid": "A", "gold": "no", "topic": None, "documents": [{"pagerank": 3, "domain": "a.org"}]}]
    assert dataset_report(qs, []) == [
        {"what": "questions", "count": 1}, {"what": "documents", "count": 1},
        {"what": "documents_without_pagerank", "count": 0}, {"what": "documents_without_domain", "count": 0},
        {"what": "gold_yes", "count": 0}, {"what": "gold_no", "count": 1},
    ]


# --- templates --------------------------------------------------------------------

DOCS2 = [
    {"url": "https://www.nih.gov/a", "domain": "nih.gov", "text": "First document text."},
    {"url": "https://blog.example.com/b", "domain": "example.com", "text": "Second document text."},
]

EXPECTED_ANSWER_2_DOCS = (
    "You are given a question and several pieces of documents. Your task is to analyze the documents and "
    "provide a concise answer to the question based solely on the provided reference documents.\n"
    "\n"
    "Question: Does vitamin D prevent cancer?\n"
    "\n"
    "Reference Documents:\n"
    "\n"
    "Document [0]\n"
    "\n"
    "Source URL: https://www.nih.gov/a\n"
    "\n"
    "Content: First document text.\n"
    "\n"
    "Document [1]\n"
    "\n"
    "Source URL: https://blog.example.com/b\n"
    "\n"
    "Content: Second document text.\n"
    "\n"
    "Please answer with **ONLY** \u2018yes\u2019 or \u2018no\u2019 based on the documents above. "
    "Do not add any explanation.\n"
    "\n"
    "Your answer:"
)


@pytest.mark.parametrize("strategy", ["answer", "relevance", "utility", "authority"])
def test_shipped_templates_load(strategy):
    t = load_rag_template(RAG_PROMPTS / f"{strategy}.yaml")
    assert t.strategy == strategy and t.output == STAGE_OUTPUT[strategy]
    assert t.path == str(RAG_PROMPTS / f"{strategy}.yaml")
    assert t.uses_text is (strategy != "authority")
    text = t.render("Q?", DOCS2)
    assert "{question}" not in text and "{documents}" not in text and "{id}" not in text
    assert "https://www.nih.gov/a" in text and "https://blog.example.com/b" in text


def test_answer_render_is_the_paper_prompt():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    assert t.render("Does vitamin D prevent cancer?", DOCS2) == EXPECTED_ANSWER_2_DOCS


def test_render_keeps_braces_in_question_and_text_verbatim():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    docs = [{"url": "https://x.org/{id}", "domain": "x.org", "text": "code: {question} {} {0} }{"}]
    out = t.render("Is {documents} a {} thing?", docs)
    assert "Question: Is {documents} a {} thing?" in out
    assert "Source URL: https://x.org/{id}" in out
    assert "Content: code: {question} {} {0} }{" in out


def test_authority_render_never_shows_document_text():
    t = load_rag_template(RAG_PROMPTS / "authority.yaml")
    docs = [{"url": f"https://site{i}.org/p", "domain": f"site{i}.org", "text": f"SECRET-BODY-{i}"} for i in range(3)]
    out = t.render("Secret question?", docs)
    assert "SECRET-BODY" not in out
    assert "[0]: https://site0.org/p\n\n[1]: https://site1.org/p\n\n[2]: https://site2.org/p" in out
    assert '{"0": 7, "1": 4, ..., "2": 8}. Do not add any explanation.' in out


@pytest.mark.parametrize("n", [1, 2, 10])
def test_relevance_example_ends_with_last_id(n):
    t = load_rag_template(RAG_PROMPTS / "relevance.yaml")
    docs = [{"url": f"https://s{i}.org", "domain": f"s{i}.org", "text": f"t{i}"} for i in range(n)]
    out = t.render("Q?", docs)
    assert f'Example format: {{"0": 7, "1": 4, ..., "{n - 1}": 8}}. Do not add any explanation.' in out
    assert "{last_id}" not in out and "}}" not in out
    assert "QUESTION: Q?" in out
    assert f"[{n - 1}] https://s{n - 1}.org: t{n - 1}" in out


def test_utility_render_example_braces():
    t = load_rag_template(RAG_PROMPTS / "utility.yaml")
    out = t.render("Q?", DOCS2)
    assert 'Example format: {"answers": {"0": "...", "1": "...", ...}, "scores": {"0": 7, "1": 4, ...}}.' in out
    assert "[1]: https://blog.example.com/b: Second document text." in out


BASE_TEMPLATE = {"strategy": "answer", "output": "yes_no", "source": "test",
                 "document": "Document [{id}] {url}: {text}", "template": "Q: {question}\n{documents}\nA:"}


def _template_file(tmp_path, **over):
    data = {**BASE_TEMPLATE, **over}
    data = {k: v for k, v in data.items() if v is not None}
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_tmp_template_base_is_valid(tmp_path):
    t = load_rag_template(_template_file(tmp_path))
    assert t.separator == "\n\n"
    assert t.render("x?", DOCS2) == ("Q: x?\nDocument [0] https://www.nih.gov/a: First document text.\n\n"
                                     "Document [1] https://blog.example.com/b: Second document text.\nA:")


def test_custom_separator(tmp_path):
    t = load_rag_template(_template_file(tmp_path, separator=" | "))
    assert "First document text. | Document [1]" in t.render("x?", DOCS2)


TEMPLATE_ERRORS = [
    ("unknown strategy", dict(strategy="summary"), "unknown strategy"),
    ("output mismatch", dict(output="list_scores"), "replies in format 'yes_no', not 'list_scores'"),
    ("relevance output mismatch", dict(strategy="relevance", output="utility"), "not 'utility'"),
    ("missing documents", dict(template="Q: {question}\nA:"), "lacks placeholder(s) ['documents']"),
    ("missing question", dict(template="{documents}\nA:"), "lacks placeholder(s) ['question']"),
    ("unknown placeholder", dict(template="{question} {documents} {answer}"), "unknown placeholder(s) ['answer']"),
    ("positional placeholder", dict(template="{question} {documents} {}"), "unknown placeholder"),
    ("document line without id", dict(document="Source: {url} {text}"), "document line lacks placeholder(s) ['id']"),
    ("document line unknown field", dict(document="[{id}] {title}"), "unknown placeholder(s) ['title'] in the document line"),
    ("authority with text", dict(strategy="authority", output="list_scores", document="[{id}] {url}: {text}"),
     "not {text}"),
    ("bad format syntax", dict(template="{question {documents}"), "not valid format syntax"),
    ("missing key", dict(document=None), "missing key 'document'"),
    ("template not a string", dict(template=["a"]), "missing key 'template'"),
]


@pytest.mark.parametrize("name, over, message", TEMPLATE_ERRORS, ids=[e[0] for e in TEMPLATE_ERRORS])
def test_template_errors(tmp_path, name, over, message):
    path = _template_file(tmp_path, **over)
    with pytest.raises(TemplateError) as exc:
        load_rag_template(path)
    assert_names(exc.value, str(path), message)


@pytest.mark.parametrize("separator", [None, 3])
def test_template_separator_must_be_a_string(tmp_path, separator):
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({**BASE_TEMPLATE, "separator": separator}), encoding="utf-8")
    with pytest.raises(TemplateError) as exc:
        load_rag_template(path)
    assert_names(exc.value, str(path), "separator")


def test_authority_without_question_is_valid(tmp_path):
    t = load_rag_template(_template_file(tmp_path, strategy="authority", output="list_scores",
                                         document="[{id}]: {url} ({domain})", template="{documents} {last_id}"))
    assert t.render("ignored?", DOCS2) == "[0]: https://www.nih.gov/a (nih.gov)\n\n[1]: https://blog.example.com/b (example.com) 1"


@pytest.mark.parametrize("content", ["- a\n- b\n", "strategy: [unclosed\n", ""])
def test_template_file_not_a_mapping_or_not_yaml(tmp_path, content):
    path = tmp_path / "t.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(TemplateError) as exc:
        load_rag_template(path)
    assert_names(exc.value, str(path))


def test_template_file_missing(tmp_path):
    path = tmp_path / "nope.yaml"
    with pytest.raises(TemplateError) as exc:
        load_rag_template(path)
    assert_names(exc.value, str(path), "cannot read")


# --- prior and judged scores --------------------------------------------------------

def _q(qid, docs):
    return {"qid": qid, "question": f"{qid}?", "gold": "yes", "topic": None, "documents": docs}


def _d(docid, domain="", pagerank=None, text="t", url=None):
    return {"docid": docid, "url": url or f"https://{domain or 'x'}/{docid}", "domain": domain,
            "pagerank": pagerank, "text": text}


PRIOR_QS = [
    _q("Q1", [_d("a", "nasa.gov", 9), _d("b", "example.org", None), _d("c", "foo.com", 3)]),
    _q("Q2", [_d("d", "ons.gov.uk", 0), _d("e", "", 5), _d("f", "gov.cn", 7)]),
]
TLD = {"scores": {"gov": 9, "org": 5}, "default": 3}


def test_pagerank_oracle_scores():
    assert prior_scores(PRIOR_QS, "pagerank_oracle") == [
        {"qid": "Q1", "scores": [9, None, 3], "status": "ok"},
        {"qid": "Q2", "scores": [0, 5, 7], "status": "ok"},
    ]


def test_tld_prior_scores():
    rows = prior_scores(PRIOR_QS, "tld_prior", TLD)
    assert [r["qid"] for r in rows] == ["Q1", "Q2"] and all(r["status"] == "ok" for r in rows)
    assert rows[0]["scores"] == [9.0, 5.0, 3.0]
    # ons.gov.uk: suffix "gov.uk" is not configured, its last label "uk" neither -> default,
    # exactly as the DomainAuth baseline scores it; no domain -> unscored
    assert rows[1]["scores"] == [3.0, None, 3.0]
    for q, row in zip(PRIOR_QS, rows):
        expect = [tld_prior_score(d["domain"], TLD["scores"], TLD["default"]) if d["domain"] else None
                  for d in q["documents"]]
        assert row["scores"] == expect


def test_tld_prior_whole_suffix_first():
    cfg = {"scores": {"gov": 9, "gov.uk": 8, "uk": 4}, "default": 1}
    rows = prior_scores([_q("Q", [_d("a", "ons.gov.uk"), _d("b", "bbc.co.uk"), _d("c", "nasa.gov"),
                                  _d("d", "x.io")])], "tld_prior", cfg)
    assert rows[0]["scores"] == [8.0, 4.0, 9.0, 1.0]
    assert rows[0]["scores"] == [tld_prior_score(d, cfg["scores"], 1) for d in
                                 ("ons.gov.uk", "bbc.co.uk", "nasa.gov", "x.io")]


def test_prior_scores_unknown_strategy():
    with pytest.raises(ValueError, match="relevance"):
        prior_scores(PRIOR_QS, "relevance")


@pytest.mark.parametrize("cfg", [None, {}])
def test_tld_prior_without_config(cfg):
    with pytest.raises(ValueError, match="tld_prior"):
        prior_scores(PRIOR_QS, "tld_prior", cfg)


def test_prior_scores_no_questions():
    assert prior_scores([], "pagerank_oracle") == []


@pytest.mark.parametrize("value, n, expected", [
    ({"0": 7, "1": 4, "2": 9}, 3, [7, 4, 9]),
    ({0: 7, 1: 4, 2: 9}, 3, [7, 4, 9]),
    ({"0": 7, "2": 9}, 3, [7, None, 9]),
    ({"0": 7, "1": 4, "5": 1}, 2, [7, 4]),
    ({"scores": {"0": 2, "1": 8}, "answers": {"0": "yes", "1": "no"}}, 2, [2, 8]),
    ({"scores": {0: 2, 1: 8}, "answers": {0: "yes", 1: "no"}}, 2, [2, 8]),
    ({"scores": {1: 8}, "answers": {}}, 3, [None, 8, None]),
    (None, 3, [None, None, None]),
    ([7, 4], 2, [None, None]),
    ("garbage", 1, [None]),
])
def test_judged_scores(value, n, expected):
    assert judged_scores(value, n) == expected


# --- top_k -----------------------------------------------------------------------

def test_top_k_descending_with_ties_in_retrieval_order():
    scores = [3, 9, None, 9, float("nan"), 1, 3.0]
    assert top_k(scores, None) == [1, 3, 0, 6, 5, 2, 4]
    assert top_k(scores, 3) == [1, 3, 0]


def test_top_k_missing_last_in_retrieval_order():
    assert top_k([None, float("nan"), None, 0], None) == [3, 0, 1, 2]
    assert top_k([None, None], 1) == [0]


@pytest.mark.parametrize("k, expected", [(None, [2, 0, 1]), (10, [2, 0, 1]), (3, [2, 0, 1]), (1, [2]), (0, [])])
def test_top_k_k_values(k, expected):
    assert top_k([5, -1, 7.5], k) == expected


def test_top_k_empty():
    assert top_k([], 3) == [] and top_k([], None) == []


# --- word tokenizer / truncate / cut_documents -----------------------------------------

WORDS50 = " ".join(f"w{i}" for i in range(50))


def test_word_tokenizer_roundtrip():
    tok = WordTokenizer()
    toks = tok.encode("alpha  beta\tgamma\n delta")
    assert toks == ["alpha  ", "beta\t", "gamma\n ", "delta"]
    assert tok.decode(toks) == "alpha  beta\tgamma\n delta"
    assert tok.encode("") == [] and tok.encode("   ") == []


def test_truncate_words():
    text, cut = truncate(WORDS50, 10, WordTokenizer())
    assert cut is True
    assert text == "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 ..."
    assert text == " ".join(WORDS50.split()[:10]) + " ..."


@pytest.mark.parametrize("budget", [None, 50, 100])
def test_truncate_keeps_text(budget):
    assert truncate(WORDS50, budget, WordTokenizer()) == (WORDS50, False)


def test_truncate_none_budget_never_encodes():
    class Boom:
        def encode(self, text):
            raise AssertionError("encode called")

    assert truncate("x " * 10_000, None, Boom()) == ("x " * 10_000, False)


def test_truncate_custom_marker():
    assert truncate("a b c d", 2, WordTokenizer(), marker="[...]") == ("a b[...]", True)


def test_cut_documents_counts_and_does_not_mutate():
    docs = [{"docid": "a", "url": "u", "text": WORDS50}, {"docid": "b", "url": "v", "text": "short text"},
            {"docid": "c", "url": "w", "text": WORDS50 + " more"}]
    before = copy.deepcopy(docs)
    out, n_cut = cut_documents(docs, 10, WordTokenizer())
    assert n_cut == 2
    assert [d["text"] for d in out] == ["w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 ...", "short text",
                                        "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 ..."]
    assert [(d["docid"], d["url"]) for d in out] == [("a", "u"), ("b", "v"), ("c", "w")]
    assert docs == before
    out, n_cut = cut_documents(docs, None, WordTokenizer())
    assert n_cut == 0 and out == docs


def test_load_tokenizer_choices(tmp_path):
    assert isinstance(load_tokenizer({"engine": "openai", "model": "gpt"}, None), WordTokenizer)
    with pytest.raises(ValueError, match="model file"):
        load_tokenizer({"engine": "llamacpp"}, None)


# --- request building --------------------------------------------------------------------

def _questions():
    return [
        _q("Q1", [_d("a", "alpha.org", 2, "alpha " * 30, "https://alpha.org/1"),
                  _d("b", "beta.gov", 9, "beta text", "https://beta.gov/2"),
                  _d("c", "gamma.com", 5, "gamma text", "https://gamma.com/3")]),
        _q("Q2", [_d("d", "delta.org", None, "delta text", "https://delta.org/4"),
                  _d("e", "eps.edu", 1, "eps " * 30, "https://eps.edu/5")]),
    ]


@pytest.mark.parametrize("strategy, output", [("relevance", "list_scores"), ("utility", "utility"),
                                              ("authority", "list_scores")])
def test_rank_requests(strategy, output):
    t = load_rag_template(RAG_PROMPTS / f"{strategy}.yaml")
    reqs, counts = rank_requests(_questions(), t, WordTokenizer(), 10)
    assert [r["request_id"] for r in reqs] == ["Q1", "Q2"]
    assert [r["output"] for r in reqs] == [output, output]
    assert [r["n"] for r in reqs] == [3, 2]
    assert counts["documents_shown"] == 5
    if strategy == "authority":
        assert counts["documents_truncated"] == 0  # no text shown, nothing to cut
        assert "alpha alpha" not in reqs[0]["prompt"]
    else:
        assert counts["documents_truncated"] == 2
        assert "alpha " * 9 + "alpha ..." in reqs[0]["prompt"]
        assert "alpha " * 11 not in reqs[0]["prompt"]
    for r, q in zip(reqs, _questions()):
        positions = [r["prompt"].index(d["url"]) for d in q["documents"]]
        assert positions == sorted(positions)  # retrieval order
        assert r["prompt"] == t.render(q["question"], cut_documents(q["documents"], 10 if t.uses_text else None,
                                                                     WordTokenizer())[0])


def test_rank_requests_no_budget():
    t = load_rag_template(RAG_PROMPTS / "relevance.yaml")
    reqs, counts = rank_requests(_questions(), t, WordTokenizer(), None)
    assert counts == {"documents_shown": 5, "documents_truncated": 0}
    assert "alpha " * 29 + "alpha" in reqs[0]["prompt"]


def test_rank_requests_n_ctx():
    t = load_rag_template(RAG_PROMPTS / "relevance.yaml")
    tok = WordTokenizer()
    q = _questions()[:1]
    n = len(tok.encode(rank_requests(q, t, tok, 10)[0][0]["prompt"]))
    rank_requests(q, t, tok, 10, n_ctx=n + 5, reserve=5)  # fits exactly
    with pytest.raises(InputError, match="question Q1"):
        rank_requests(q, t, tok, 10, n_ctx=n + 4, reserve=5)


def test_answer_requests_with_scores_ranked_order():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    qs = _questions()
    scores = {"Q1": [2, 9, 5], "Q2": [None, 1]}
    reqs, kept, counts = answer_requests(qs, t, scores, 2, WordTokenizer(), None)
    assert [(r["request_id"], r["output"], r["n"]) for r in reqs] == [("Q1", "yes_no", 1), ("Q2", "yes_no", 1)]
    assert kept == {"Q1": ["b", "c"], "Q2": ["e", "d"]}
    p1 = reqs[0]["prompt"]
    assert "https://alpha.org/1" not in p1
    assert p1.index("https://beta.gov/2") < p1.index("https://gamma.com/3")
    assert p1.index("Document [0]") < p1.index("https://beta.gov/2") < p1.index("Document [1]")
    assert "Document [2]" not in p1
    p2 = reqs[1]["prompt"]
    assert p2.index("https://eps.edu/5") < p2.index("https://delta.org/4")  # unscored last
    assert counts == {"documents_shown": 4, "documents_truncated": 0, "questions_with_fewer_than_k": 0}
    assert p1 == t.render("Q1?", [qs[0]["documents"][1], qs[0]["documents"][2]])


def test_answer_requests_fewer_than_k_and_truncation():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    scores = {"Q1": [2, 9, 5], "Q2": [None, 1]}
    reqs, kept, counts = answer_requests(_questions(), t, scores, 3, WordTokenizer(), 5)
    assert kept == {"Q1": ["b", "c", "a"], "Q2": ["e", "d"]}
    assert counts == {"documents_shown": 5, "documents_truncated": 2, "questions_with_fewer_than_k": 1}
    assert "Content: eps eps eps eps eps ..." in reqs[1]["prompt"]


def test_answer_requests_no_filter_keeps_all_in_retrieval_order():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    qs = _questions()
    reqs, kept, counts = answer_requests(qs, t, None, None, WordTokenizer(), None)
    assert kept == {"Q1": ["a", "b", "c"], "Q2": ["d", "e"]}
    assert counts == {"documents_shown": 5, "documents_truncated": 0, "questions_with_fewer_than_k": 0}
    for r, q in zip(reqs, qs):
        assert r["prompt"] == t.render(q["question"], q["documents"])


def test_answer_requests_missing_qid_in_scores():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    with pytest.raises(InputError, match="Q2"):
        answer_requests(_questions(), t, {"Q1": [1, 2, 3]}, 1, WordTokenizer(), None)


def test_answer_requests_length_mismatch():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    with pytest.raises(InputError) as exc:
        answer_requests(_questions(), t, {"Q1": [1, 2], "Q2": [1, 2]}, 1, WordTokenizer(), None)
    assert_names(exc.value, "question Q1", "2 scores for 3 documents")


def test_answer_requests_prompt_too_long():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    with pytest.raises(InputError) as exc:
        answer_requests(_questions(), t, None, None, WordTokenizer(), 5, n_ctx=60, reserve=4)
    assert_names(exc.value, "question Q1", "n_ctx is 60", "doc_tokens")


def test_answer_requests_n_ctx_boundary_names_failing_question():
    t = load_rag_template(RAG_PROMPTS / "answer.yaml")
    tok = WordTokenizer()
    qs = _questions()
    reqs, _, _ = answer_requests(qs, t, None, None, tok, None)
    n1, n2 = (len(tok.encode(r["prompt"])) for r in reqs)
    assert n1 != n2
    big, small = max(n1, n2), min(n1, n2)
    answer_requests(qs, t, None, None, tok, None, n_ctx=big + 3, reserve=3)
    with pytest.raises(InputError) as exc:
        answer_requests(qs, t, None, None, tok, None, n_ctx=small + 3, reserve=3)
    assert_names(exc.value, f"question {'Q1' if n1 == big else 'Q2'}", f"the prompt is {big} tokens")


# --- answer_row ----------------------------------------------------------------------------

QUESTION = {"qid": "MED_1", "topic": "medical", "gold": "yes"}


def test_answer_row_correct():
    row = answer_row(QUESTION, "Yes.", ["b", "c"])
    assert row == {"request_id": "MED_1", "qid": "MED_1", "topic": "medical", "gold": "yes", "answer": "yes",
                   "status": "ok", "detail": "", "correct": True, "n_docs": 2, "selected": ["b", "c"]}


def test_answer_row_not_leading_yes_no():
    row = answer_row(QUESTION, "The answer is yes", ["a"])
    assert row["answer"] is None and row["correct"] is False and row["status"] != "ok"


def test_answer_row_wrong_answer():
    row = answer_row(QUESTION, "no", ("a", "b", "c"))
    assert row["answer"] == "no" and row["correct"] is False and row["status"] == "ok"
    assert row["n_docs"] == 3 and row["selected"] == ["a", "b", "c"]


def test_answer_row_empty_reply():
    row = answer_row({**QUESTION, "gold": "no"}, "", [])
    assert row["answer"] is None and row["correct"] is False and row["status"] != "ok" and row["n_docs"] == 0


# --- rag_cells (cell_list.py) -------------------------------------------------------------------------

def _config(**rag_over):
    rag = {"source": "resources/data/ragauth/ragauth.json", "strategies": ["no_filter", "relevance", "pagerank_oracle"],
           "k": [1, 3], "doc_tokens": 150}
    rag.update(rag_over)
    return {"results": "results", "studies": ["domainauth", "ragauth"],
            "models": {"m1": {"engine": "llamacpp"}, "gone": None, "m2": {"engine": "openai"}},
            "ragauth": rag}


EXPECTED_CELLS = [
    ("m1", "no_filter", "all"), ("m1", "relevance", "k1"), ("m1", "relevance", "k3"),
    ("m1", "pagerank_oracle", "k1"), ("m1", "pagerank_oracle", "k3"),
    ("m2", "no_filter", "all"), ("m2", "relevance", "k1"), ("m2", "relevance", "k3"),
    ("m2", "pagerank_oracle", "k1"), ("m2", "pagerank_oracle", "k3"),
]


def _never(path):
    raise AssertionError(f"exists({path!r}) should not be called")


def test_rag_plan_not_in_studies():
    cfg = _config()
    cfg["studies"] = ["domainauth"]
    plan = rag_cells(cfg, exists=lambda p: True)
    assert plan.cells == [] and plan.note is None and plan.source is None and plan.built is False
    del cfg["studies"]
    assert rag_cells(cfg, exists=lambda p: True).cells == []


def test_rag_plan_no_section():
    cfg = _config()
    cfg["ragauth"] = None
    plan = rag_cells(cfg, exists=lambda p: True)
    assert plan.cells == [] and plan.note is None


def test_rag_plan_source_missing():
    seen = []
    plan = rag_cells(_config(), exists=lambda p: seen.append(p) or False)
    assert seen == ["resources/data/ragauth/ragauth.json"]
    assert plan.cells == [] and plan.built is False
    assert plan.source == "resources/data/ragauth/ragauth.json"
    assert "'resources/data/ragauth/ragauth.json' does not exist" in plan.note
    assert "docs/studies.md" in plan.note and "RAGAuth" in plan.note


def test_rag_plan_source_null():
    plan = rag_cells(_config(source=None), exists=_never)
    assert plan.cells == [] and plan.note and "is null" in plan.note and "docs/studies.md" in plan.note


def test_rag_plan_source_present():
    plan = rag_cells(_config(), exists=lambda p: True)
    assert plan == RagCells("resources/data/ragauth/ragauth.json", False, EXPECTED_CELLS, None)


def test_rag_plan_every_strategy():
    strategies = ["no_filter", "relevance", "utility", "authority", "pagerank_oracle", "tld_prior"]
    plan = rag_cells(_config(strategies=strategies, k=[1, 3, 5]), exists=lambda p: True)
    assert len(plan.cells) == 2 * (1 + 5 * 3)
    assert plan.cells.count(("m1", "no_filter", "all")) == 1
    assert ("m2", "tld_prior", "k5") in plan.cells
    assert not any(m == "gone" for m, _, _ in plan.cells)


def test_rag_plan_build_section():
    plan = rag_cells(_config(build={"questions": "q.tsv", "documents": "d.tsv"}), exists=_never)
    assert plan.built is True and plan.note is None
    assert plan.source == "results/ragauth/build/ragauth.json"
    assert plan.cells == EXPECTED_CELLS


def test_rag_plan_build_null_uses_source():
    plan = rag_cells(_config(build=None), exists=lambda p: False)
    assert plan.built is False and plan.cells == [] and plan.note


def test_rag_plan_models_null_left_out():
    cfg = _config()
    cfg["models"]["m2"] = None
    plan = rag_cells(cfg, exists=lambda p: True)
    assert {m for m, _, _ in plan.cells} == {"m1"}
    assert plan.cells == EXPECTED_CELLS[:5]


def test_rag_plan_shipped_config():
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    plan = rag_cells(cfg, exists=lambda p: False)
    if cfg["ragauth"].get("build"):
        assert plan.cells
    else:
        assert plan.cells == [] and "docs/studies.md" in plan.note and cfg["ragauth"]["source"] in plan.note
        plan = rag_cells(cfg, exists=lambda p: True)
        n_models = sum(1 for spec in cfg["models"].values() if spec)
        per_model = sum(1 if s == "no_filter" else len(cfg["ragauth"]["k"]) for s in cfg["ragauth"]["strategies"])
        assert len(plan.cells) == n_models * per_model
