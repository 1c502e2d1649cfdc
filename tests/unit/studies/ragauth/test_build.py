"""RAGAuth builder: own questions + documents + PageRank labels -> Fig. 5 records.

Everything offline: tables are written to tmp_path; URL reduction uses
tldextract's bundled suffix list.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from authbench.errors import InputError
from authbench.fetch.pagerank import PAGERANK_COLUMNS, read_domain_list, write_pagerank
from authbench.studies.ragauth.build import (
    DROP_UNITS,
    authority,
    build_ragauth,
    domains_of_documents,
    read_labels,
    read_questions,
    write_build_drops,
    write_domain_list,
    write_ragauth,
)

QUESTIONS = (
    "qid\tquestion\tanswer\ttopic\n"
    "Q1\tIs the sky blue?\tYes\tscience\n"
    "Q2\tDo antibiotics cure colds?\tno.\t\n"
)
DOCUMENTS = (
    "qid\turl\ttext\n"
    "Q1\thttps://www.who.int/a\tThe sky looks blue.\n"
    "Q2\thttp://blog.example-cures.com/post?id=3\tYes they do.\n"
    "Q1\tnasa.gov/sky\tRayleigh scattering makes it \"blue\".\n"
    "Q2\thttps://www.cdc.gov/colds\tNo, colds are viral.\n"
)
LABELS = "domain,page_rank\nwho.int,8\nnasa.gov,5\nexample-cures.com,0\n"


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def build(tmp_path, questions=QUESTIONS, documents=DOCUMENTS, labels: str | None = LABELS, **kw):
    q = write(tmp_path, "questions.tsv", questions)
    d = write(tmp_path, "documents.tsv", documents)
    lab = write(tmp_path, "labels.csv", labels) if labels is not None else None
    return build_ragauth(q, d, lab, **kw)


def test_happy_path_hand_checked(tmp_path):
    records, drops, report = build(tmp_path)
    assert records == [
        {
            "qid": "Q1", "question": "Is the sky blue?", "question_type": "yes_no", "language": "en",
            "ground_truth": "Yes", "topic": "science",
            "documents": [
                {"docid": "doc_001", "url": "https://www.who.int/a", "domain": "who.int", "PageRank": 8,
                 "doc_text": "The sky looks blue.", "authority": "high"},
                {"docid": "doc_002", "url": "nasa.gov/sky", "domain": "nasa.gov", "PageRank": 5,
                 "doc_text": 'Rayleigh scattering makes it "blue".', "authority": "medium"},
            ],
        },
        {
            "qid": "Q2", "question": "Do antibiotics cure colds?", "question_type": "yes_no", "language": "en",
            "ground_truth": "No",
            "documents": [
                {"docid": "doc_001", "url": "http://blog.example-cures.com/post?id=3", "domain": "example-cures.com",
                 "PageRank": 0, "doc_text": "Yes they do.", "authority": "low"},
                {"docid": "doc_002", "url": "https://www.cdc.gov/colds", "domain": "cdc.gov", "PageRank": None,
                 "doc_text": "No, colds are viral.", "authority": None},
            ],
        },
    ]
    assert list(records[0]) == ["qid", "question", "question_type", "language", "ground_truth", "topic",
                                "documents"]
    assert list(records[0]["documents"][0]) == ["docid", "url", "domain", "PageRank", "doc_text", "authority"]
    assert drops == Counter(no_pagerank_label=1)
    assert report["questions"] == 2 and report["documents"] == 4
    assert report["documents_without_pagerank"] == 1
    assert report["questions_with_fewer_than"] == {1: 0, 3: 2, 5: 2, 10: 2}
    assert report["documents_by_authority"] == {"high": 1, "medium": 1, "low": 1, "null": 1}
    assert report["labels"] == {"kind": "domain_table", "domains": 3,
                                "rows": {"used": 3, "unparsable_url": 0, "ip_host": 0, "no_registered_domain": 0}}


@pytest.mark.parametrize("value, truth", [("Yes", "Yes"), ("no.", "No"), ("YES", "Yes"), (" nO ", "No"),
                                          ("yes!", "Yes"), ("No?!", "No"), ("true", "Yes"), ("FALSE", "No"),
                                          (" True ", "Yes")])
def test_answers_any_case_trailing_punctuation(tmp_path, value, truth):
    records, _, _ = build(tmp_path, questions=f"qid\tquestion\tanswer\nQ1\tx?\t{value}\n",
                          documents="qid\turl\ttext\nQ1\twho.int\tt\n")
    assert records[0]["ground_truth"] == truth


def test_json_boolean_answers_are_yes_and_no(tmp_path):
    rows = [{"qid": "Q1", "question": "a?", "answer": True}, {"qid": "Q2", "question": "b?", "answer": False}]
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert [q["ground_truth"] for q in read_questions(path)] == ["Yes", "No"]


@pytest.mark.parametrize("value", ["maybe", "y", "yes no", "", "true.", "1", ".no"])
def test_bad_answer_names_file_line_column(tmp_path, value):
    with pytest.raises(InputError) as err:
        build(tmp_path, questions=f"qid\tquestion\tanswer\nQ1\tok?\tYes\nQ2\tx?\t{value}\n")
    message = str(err.value)
    assert str(tmp_path / "questions.tsv") in message
    assert "line 3, column 'answer'" in message and "expected Yes or No" in message


def test_language_default_and_given(tmp_path):
    records, _, _ = build(
        tmp_path,
        questions="qid\tquestion\tanswer\tlanguage\nQ1\ta?\tyes\tzh\nQ2\tb?\tno\t\n",
        documents="qid\turl\ttext\nQ1\twho.int\tt\nQ2\twho.int\tt\n")
    assert [(r["language"], "topic" in r) for r in records] == [("zh", False), ("en", False)]


def test_bad_urls_each_reason_and_question_with_no_document(tmp_path):
    documents = (
        "qid\turl\ttext\n"
        "Q1\thttp://exa mple.com/x\tt\n"      # space in the host
        "Q1\thttp://192.168.1.1/login\tt\n"   # IPv4 literal
        "Q1\thttp://localhost/\tt\n"          # single label
        "Q1\thttp://co.uk\tt\n"               # bare suffix
        "Q1\t\tt\n"                           # empty URL
        "Q2\thttps://www.cdc.gov/colds\tt\n"
    )
    records, drops, report = build(tmp_path, documents=documents)
    assert [r["qid"] for r in records] == ["Q2"]
    assert drops == Counter(unparsable_url=2, ip_host=1, no_registered_domain=2, no_documents=1,
                            no_pagerank_label=1)
    assert report["questions"] == 1


def test_fewer_than_k_documents_kept_and_counted(tmp_path):
    documents = "qid\turl\ttext\n" + "".join(f"Q1\thttps://site{i}.org/\tt{i}\n" for i in range(4)) + \
        "Q2\thttps://who.int/\tt\n"
    records, drops, report = build(tmp_path, documents=documents)
    assert [len(r["documents"]) for r in records] == [4, 1]
    assert report["questions_with_fewer_than"] == {1: 0, 3: 1, 5: 2, 10: 2}
    assert drops["no_documents"] == 0


def test_unlabelled_domain_kept_with_null_and_reported(tmp_path):
    records, drops, report = build(tmp_path, labels=None)
    docs = [d for r in records for d in r["documents"]]
    assert len(docs) == 4 and all(d["PageRank"] is None and d["authority"] is None for d in docs)
    assert drops == Counter(no_pagerank_label=4)
    assert report["documents_without_pagerank"] == 4 and report["labels"] == {"kind": "none"}


def test_fetcher_csv_only_ok_rows_count(tmp_path):
    rows = [
        {"domain": "who.int", "page_rank": 8, "page_rank_decimal": 7.7, "rank": "100", "status": "ok",
         "status_code": 200, "error": "", "source": "openpagerank_api"},
        {"domain": "nasa.gov", "status": "error", "status_code": 404, "error": "Domain not found",
         "source": "openpagerank_api"},
        {"domain": "cdc.gov", "page_rank": 10, "status": "ok", "status_code": 200, "source": "bulk:x.csv"},
    ]
    labels = tmp_path / "pagerank.csv"
    write_pagerank(rows, labels)
    q = write(tmp_path, "questions.tsv", QUESTIONS)
    d = write(tmp_path, "documents.tsv", DOCUMENTS)
    records, drops, report = build_ragauth(q, d, labels)
    got = {doc["domain"]: (doc["PageRank"], doc["authority"]) for r in records for doc in r["documents"]}
    assert got == {"who.int": (8, "high"), "nasa.gov": (None, None), "example-cures.com": (None, None),
                   "cdc.gov": (10, "high")}
    assert drops == Counter(no_pagerank_label=2)
    assert report["labels"]["kind"] == "pagerank_fetcher"
    assert report["labels"]["rows"]["status_not_ok"] == 1 and report["labels"]["rows"]["used"] == 2


def test_status_column_of_a_plain_table_is_not_a_filter(tmp_path):
    labels = write(tmp_path, "l.csv", "url,page_rank,status\nhttp://www.who.int/x,8,legitimate\n")
    assert read_labels(labels)[0] == {"who.int": 8}


def test_url_table_reduced_and_repeats_allowed(tmp_path):
    labels = write(tmp_path, "l.tsv", "url\tpage_rank\nhttps://www.who.int/a\t8\nhttp://who.int/b\t8\n"
                                      "http://10.0.0.1/\t3\nnasa.gov\t7.0\n")
    got, info = read_labels(labels)
    assert got == {"who.int": 8, "nasa.gov": 7}
    assert info["kind"] == "url_table" and info["rows"]["ip_host"] == 1 and info["rows"]["used"] == 3


def test_conflicting_labels_stop_naming_both_lines(tmp_path):
    labels = write(tmp_path, "l.csv", "url,page_rank\nhttps://a.who.int/x,8\nhttps://nasa.gov,7\n"
                                      "https://b.who.int/y,6\n")
    with pytest.raises(InputError) as err:
        read_labels(labels)
    message = str(err.value)
    assert str(labels) in message and "line 4, column 'page_rank'" in message
    assert "who.int" in message and "on line 2" in message


@pytest.mark.parametrize("row, message", [
    ("who.int,high", "line 3, column 'page_rank': 'high' is not an integer"),
    ("who.int,11", "line 3, column 'page_rank': '11' is out of range"),
    ("who.int,", "line 3, column 'page_rank': missing value"),
])
def test_bad_label_values(tmp_path, row, message):
    labels = write(tmp_path, "l.csv", f"domain,page_rank\nnasa.gov,4\n{row}\n")
    with pytest.raises(InputError) as err:
        read_labels(labels)
    assert str(labels) in str(err.value) and message in str(err.value)


@pytest.mark.parametrize("name, content, message", [
    ("questions.tsv", "qid\tquestion\nQ1\tx?\n", "line 1, column 'answer': missing column"),
    ("documents.tsv", "qid\turl\nQ1\twho.int\n", "line 1, column 'text': missing column"),
    ("labels.csv", "domain,score\nwho.int,3\n", "line 1, column 'page_rank': missing column"),
    ("labels.csv", "host,page_rank\nwho.int,3\n", "line 1, column 'url': missing column"),
    ("questions.tsv", "qid\tquestion\tanswer\n\tx?\tyes\n", "line 2, column 'qid': empty qid"),
    ("questions.tsv", "qid\tquestion\tanswer\nQ1\t \tyes\n", "line 2, column 'question': empty question"),
    ("questions.tsv", "qid\tquestion\tanswer\nQ1\ta?\tyes\nQ2\tb?\tno\nQ1\tc?\tno\n",
     "line 4, column 'qid': duplicate qid 'Q1' (first on line 2)"),
    ("documents.tsv", "qid\turl\ttext\nQ1\twho.int\tt\textra\n", "line 2: 4 fields, header has 3"),
    ("documents.tsv", "", "line 1: the file is empty"),
    ("questions.tsv", b"qid\tquestion\tanswer\nQ1\tCaf\xe9?\tyes\n", "line 2, byte 7: bytes that are not UTF-8"),
    ("documents.tsv", b"qid\turl\ttext\nQ1\twho.int\t\xff\xfe\n", "line 2, byte 12: bytes that are not UTF-8"),
])
def test_broken_input_named_errors(tmp_path, name, content, message):
    files = {"questions.tsv": QUESTIONS, "documents.tsv": DOCUMENTS, "labels.csv": LABELS, name: content}
    paths = {n: write(tmp_path, n, c) for n, c in files.items()}
    with pytest.raises(InputError) as err:
        build_ragauth(paths["questions.tsv"], paths["documents.tsv"], paths["labels.csv"])
    assert str(paths[name]) in str(err.value) and message in str(err.value)


def test_unknown_question_no_text_duplicate_url_and_over_max_docs(tmp_path):
    documents = (
        "qid\turl\ttext\n"
        "Q9\thttps://who.int/\tt\n"              # not in the questions file
        "\thttps://who.int/\tt\n"                # empty qid
        "Q1\thttps://a.org/\tfirst\n"
        "Q1\thttps://b.org/\t \n"                # no text
        "Q1\thttps://a.org/\tagain\n"            # same URL for Q1
        "Q1\thttps://c.org/\tsecond\n"
        "Q1\thttps://d.org/\tthird\n"
        "Q1\thttps://e.org/\tfourth\n"           # over max_docs=3
        "Q2\thttps://a.org/\tsame URL, other question: kept\n"
    )
    records, drops, report = build(tmp_path, documents=documents, labels=None, max_docs=3)
    q1, q2 = records
    assert [(d["docid"], d["doc_text"]) for d in q1["documents"]] == [
        ("doc_001", "first"), ("doc_004", "second"), ("doc_005", "third")]
    assert [d["docid"] for d in q2["documents"]] == ["doc_001"]
    assert drops == Counter(unknown_question=2, no_text=1, duplicate_url=1, over_max_docs=1, no_pagerank_label=4)
    assert report["questions_with_fewer_than"] == {1: 0, 3: 1, 5: 2}
    assert report["max_docs"] == 3


def test_explicit_docids_and_csv_documents(tmp_path):
    documents = ('qid,url,text,docid\n'
                 'Q1,https://who.int/,"Line one,\nline two",W1\n'
                 'Q1,https://nasa.gov/,"He said ""no"".",\n')
    q = write(tmp_path, "q.csv", "qid,question,answer\nQ1,\"Is it, really?\",yes\n")
    d = write(tmp_path, "d.csv", documents)
    records, drops, _ = build_ragauth(q, d, None)
    assert records[0]["question"] == "Is it, really?"
    assert [(x["docid"], x["doc_text"]) for x in records[0]["documents"]] == [
        ("W1", "Line one,\nline two"), ("doc_002", 'He said "no".')]


def test_duplicate_docid_names_both_lines(tmp_path):
    documents = "qid\turl\ttext\tdocid\nQ1\twho.int\tt\tdoc_002\nQ1\tnasa.gov\tt\t\n"
    with pytest.raises(InputError) as err:
        build(tmp_path, documents=documents)
    assert "line 3, column 'docid'" in str(err.value) and "first on line 2" in str(err.value)


@pytest.mark.parametrize("max_docs", [0, 11, True, 2.0])
def test_max_docs_must_be_1_to_10(tmp_path, max_docs):
    with pytest.raises(ValueError, match="max_docs"):
        build(tmp_path, max_docs=max_docs)


def test_authority_rule():
    assert [authority(v) for v in (None, 0, 2, 3, 5, 6, 10)] == [None, "low", "low", "medium", "medium",
                                                                  "high", "high"]


def test_write_ragauth_deterministic_bytes(tmp_path):
    first, _, _ = build(tmp_path, documents=DOCUMENTS.replace("The sky looks blue.", "Le ciel est bleu — 天空"))
    second, _, _ = build(tmp_path, documents=DOCUMENTS.replace("The sky looks blue.", "Le ciel est bleu — 天空"))
    write_ragauth(first, tmp_path / "a.json")
    write_ragauth(second, tmp_path / "out" / "b.json")
    data = (tmp_path / "a.json").read_bytes()
    assert data == (tmp_path / "out" / "b.json").read_bytes()
    assert "天空".encode() in data and data.endswith(b"]\n") and data.startswith(b'[\n  {\n    "qid": "Q1"')
    assert json.loads(data) == first
    assert not list(tmp_path.glob("*.tmp"))


def test_write_build_drops_table(tmp_path):
    _, drops, report = build(tmp_path)
    path = tmp_path / "drops.tsv"
    write_build_drops(drops, report["questions"], path)
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert [r["reason"] for r in rows] == [*DROP_UNITS, "kept"]
    table = {r["reason"]: (r["unit"], int(r["count"])) for r in rows}
    assert table["no_pagerank_label"] == ("document (kept, PageRank null)", 1)
    assert table["unparsable_url"] == ("document", 0)
    assert table["no_documents"] == ("question", 0)
    assert table["kept"] == ("question", 2)


def test_domain_list_roundtrip_through_read_domain_list(tmp_path):
    documents = write(tmp_path, "documents.tsv", DOCUMENTS + "Q1\thttp://exa mple.com/\tt\nQ3\twww.nhs.uk/x\tt\n")
    assert domains_of_documents(documents) == ["cdc.gov", "example-cures.com", "nasa.gov", "who.int",
                                               "www.nhs.uk"]
    out = tmp_path / "lists" / "domains.txt"
    written = write_domain_list(documents, out)
    assert read_domain_list(out) == (written, Counter())
    assert written == domains_of_documents(documents)
    records, _, _ = build(tmp_path)
    assert write_domain_list(records, tmp_path / "from_records.txt") == ["cdc.gov", "example-cures.com",
                                                                           "nasa.gov", "who.int"]
    assert read_domain_list(tmp_path / "from_records.txt")[0] == ["cdc.gov", "example-cures.com", "nasa.gov",
                                                                  "who.int"]


def test_domain_list_without_any_domain_is_an_error(tmp_path):
    documents = write(tmp_path, "documents.tsv", "qid\turl\ttext\nQ1\thttp://10.0.0.1/\tt\n")
    with pytest.raises(InputError) as err:
        write_domain_list(documents, tmp_path / "d.txt")
    assert str(documents) in str(err.value)


def test_examples_build(root, tmp_path):
    ex = root / "examples" / "rag"
    records, drops, report = build_ragauth(ex / "questions.tsv", ex / "documents.tsv", ex / "labels.csv")
    assert [r["qid"] for r in records] == ["MED_EN_001", "MED_EN_002", "SCI_EN_001", "NEWS_EN_001"]
    assert [r["ground_truth"] for r in records] == ["No", "No", "No", "Yes"]
    assert [len(r["documents"]) for r in records] == [5, 5, 4, 2]
    assert [d["docid"] for d in records[0]["documents"]] == ["doc_001", "doc_002", "doc_004", "doc_005", "doc_006"]
    assert drops == Counter(unparsable_url=1, no_pagerank_label=2)
    nulls = sorted(d["domain"] for r in records for d in r["documents"] if d["PageRank"] is None)
    assert nulls == ["health-island.net", "un.org"]  # a fetcher error row; absent from labels.csv
    assert report["questions_with_fewer_than"] == {1: 0, 3: 1, 5: 2, 10: 4}
    assert report["labels"]["rows"]["status_not_ok"] == 1
    assert {d["authority"] for r in records for d in r["documents"]} == {"high", "medium", "low", None}
    # the chain: documents -> domain list covers every labelled domain and un.org
    domains = write_domain_list(ex / "documents.tsv", tmp_path / "domains.txt")
    labelled = {row["domain"] for row in csv.DictReader(open(ex / "labels.csv", encoding="utf-8"))}
    assert set(domains) == labelled | {"un.org"}
    assert list(csv.reader(open(ex / "labels.csv", encoding="utf-8")))[0] == list(PAGERANK_COLUMNS)
    write_ragauth(records, tmp_path / "ragauth.json")
    assert json.loads((tmp_path / "ragauth.json").read_text(encoding="utf-8")) == records
    from authbench.studies.ragauth.dataset import load_ragauth  # the release loader accepts the built file

    loaded = load_ragauth(tmp_path / "ragauth.json")
    assert [(q["qid"], q["gold"], len(q["documents"])) for q in loaded] == [
        ("MED_EN_001", "no", 5), ("MED_EN_002", "no", 5), ("SCI_EN_001", "no", 4), ("NEWS_EN_001", "yes", 2)]
