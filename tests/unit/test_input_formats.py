"""Input formats: every source a config names is read by its
extension (CSV, TSV, JSON list, JSON object keyed by id, JSON lines,
Parquet) through authbench.records.read_records; the same 20 rows give the
same labels in every format. Secondary label values match numerically, a
value map turns codes into labels or "not labelled", every row without a
label is counted; a file that is not what its name says is a named error."""

import csv
import io
import json
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from authbench.errors import ConfigError, InputError
from authbench.records import read_records, write_drop_table
from authbench.studies.authority.domains import (
    build_domain_labels,
    read_secondary,
    read_texts,
    secondary_units,
    write_labels,
)
from authbench.studies.authority.entities import build_entity_labels, write_entities
from authbench.studies.authority.labels import LabelSpec, secondary_specs
from authbench.studies.ragauth.build import read_labels as read_rag_labels
from authbench.studies.ragauth.build import read_questions
from authbench.studies.ragauth.dataset import load_ragauth
from authbench.studies.selfpref.data import import_sources

FORMATS = ("csv", "tsv", "json", "json_object", "jsonl", "parquet")
CATS = {"gov": {"tlds": ["gov"]}}


def write_rows(tmp_path: Path, rows: list[dict], fmt: str, key: str, name: str = "src") -> Path:
    """``rows`` written in ``fmt`` (``json_object``: an object keyed by ``key``, the key left out of the record)."""
    columns = list(dict.fromkeys(k for r in rows for k in r))
    if fmt in ("csv", "tsv"):
        path = tmp_path / f"{name}.{fmt}"
        buf = io.StringIO()
        writer = csv.DictWriter(buf, columns, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in r.items()} for r in rows)
        path.write_text(buf.getvalue(), encoding="utf-8")
    elif fmt == "json":
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    elif fmt == "json_object":
        path = tmp_path / f"{name}_object.json"
        path.write_text(json.dumps({r[key]: {k: v for k, v in r.items() if k != key} for r in rows}), encoding="utf-8")
    elif fmt == "jsonl":
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


# 20 domains: a score, a 0/1 label written as floats (pandas' 0.0/1.0) with -1 "not rated", an unread column
DOMAINS = [{"domain": d, "pagerank": round(0.05 * i + 0.01, 2), "ground_truth": [0.0, 1.0, -1.0, None][i % 4],
            "note": f"n{i}"}
           for i, d in enumerate(["thehindu.com", "a.gov", "b.org", "c.co.uk", "d.net", "e.com", "f.de", "g.fr",
                                  "h.io", "i.edu", "j.com", "k.org", "l.net", "m.com", "n.co", "o.in", "p.ca",
                                  "q.gov", "r.com", "s.info"])]
SPEC = LabelSpec("pagerank", "quantile", 10, "include")
SECONDARY = secondary_specs({"labels": {"ground_truth": {"values": [0, 1], "map": {-1: None}}}})


def domain_outputs(path: Path, tmp_path: Path) -> tuple[bytes, dict, Counter]:
    built = build_domain_labels(path, None, CATS, label=SPEC, secondary=["ground_truth"])
    out = tmp_path / "labels.tsv"
    write_labels(built.domains, out)
    counts: Counter = Counter()
    sec = read_secondary(path, None, SECONDARY, [d.domain for d in built.domains], counts)
    assert built.unused_columns == ["note"]
    return out.read_bytes(), sec, counts


@pytest.mark.parametrize("fmt", FORMATS)
def test_domainauth_same_20_rows_same_labels_in_every_format(tmp_path, fmt):
    reference = domain_outputs(write_rows(tmp_path, DOMAINS, "csv", "domain", "ref"), tmp_path)
    got = domain_outputs(write_rows(tmp_path, DOMAINS, fmt, "domain"), tmp_path)
    assert got == reference
    labels, sec, counts = got
    assert labels.count(b"\n") == 21 and b"thehindu.com" in labels
    # 0.0 and 1.0 (and CSV's "0.0") match values [0, 1] and are written as the config writes them
    assert sec["thehindu.com"] == {"ground_truth": "0"} and sec["a.gov"] == {"ground_truth": "1"}
    assert sec["b.org"] == sec["c.co.uk"] == {"ground_truth": ""}  # -1 mapped to not labelled; an empty cell
    assert counts["ground_truth:mapped_to_unlabelled"] == 5 and counts["ground_truth:empty_cell"] == 5
    assert counts["ground_truth:not_labelled"] == 10


def test_secondary_drops_every_row_without_a_label_by_reason(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("url,rel\nhttp://a.com/x,1\nhttp://a.com/y,-1\nhttp://b.com,\nhttp://c.com,0\n"
                    "http://127.0.0.1,1\nhttp://other.com,1\n", encoding="utf-8")
    specs = secondary_specs({"labels": {"rel": {"values": ["0", "1"], "map": {"-1": None}}}})
    counts: Counter = Counter()
    got = read_secondary(path, None, specs, ["a.com", "b.com", "c.com"], counts)
    assert got == {"a.com": {"rel": "1"}, "b.com": {"rel": ""}, "c.com": {"rel": "0"}}
    assert dict(counts) == {"rel:mapped_to_unlabelled": 1, "rel:empty_cell": 1, "ip_host": 1,
                            "not_a_labelled_domain": 1, "rel:not_labelled": 1}
    drops = tmp_path / "drops.tsv"
    write_drop_table(counts, secondary_units(specs), len(got), "domain", drops)
    assert drops.read_text() == (
        "reason\tunit\tcount\nstatus_filter\trow\t0\nunparsable_url\trow\t0\nip_host\trow\t1\n"
        "no_registered_domain\trow\t0\nnot_a_labelled_domain\trow\t1\nrel:empty_cell\trow\t1\n"
        "rel:mapped_to_unlabelled\trow\t1\nrel:not_labelled\tdomain\t1\nkept\tdomain\t3\n")


def test_value_map_to_a_label_and_numeric_values():
    (spec,) = secondary_specs({"labels": {"rel": {"values": ["unreliable", "reliable"],
                                                    "map": {0: "unreliable", 1.0: "reliable", "n/a": None}}}})
    assert [spec.value(v) for v in ("0", "0.0", "1", "reliable", "n/a", "")] == [
        ("unreliable", False), ("unreliable", False), ("reliable", False), ("reliable", False), ("", True), ("", False)]
    (num,) = secondary_specs({"labels": {"bias": {"map": {-99: None, "left": -1}}}})
    assert num.code("-99.0") is None and num.code("left") == -1.0 and num.code("0.5") == 0.5
    (zero_one,) = secondary_specs({"labels": {"gt": {"values": [0, 1]}}})
    assert [zero_one.code(v) for v in ("0", "0.0", "1.0", "1", " 1 ")] == [0.0, 0.0, 1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match=r"'2' is not one of \['0', '1'\]"):
        zero_one.code("2")


def test_value_map_to_a_value_that_is_not_a_label_is_a_config_error():
    with pytest.raises(ConfigError, match=r"labels.rel.map.-1': 'maybe' is not a label \(one of \['0', '1'\]"):
        secondary_specs({"labels": {"rel": {"values": [0, 1], "map": {-1: "maybe"}}}})
    with pytest.raises(ConfigError, match="is not a label .a number"):
        secondary_specs({"labels": {"bias": {"map": {"x": "left"}}}})


def test_unknown_secondary_value_names_file_line_column_and_allowed_values(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"a.com": {"rel": 1}, "b.com": {"rel": 7}}), encoding="utf-8")
    specs = secondary_specs({"labels": {"rel": {"values": [0, 1], "map": {-1: None}}}})
    with pytest.raises(InputError) as err:
        read_secondary(path, None, specs, ["a.com", "b.com"])
    msg = str(err.value)
    assert str(path) in msg and "record 'b.com', column 'rel'" in msg and "'7' is not one of ['0', '1']" in msg
    assert "the map turns -1 into labels" in msg


ENTITIES = [{"question_entity": f"Player {i}", "question": f"Who is player {i}?", "popularity": 3 * i + 1,
             "qid": f"Q{i}"} for i in range(20)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_entityauth_same_20_rows_same_labels_in_every_format(tmp_path, fmt):
    def labels(path):
        out = tmp_path / "entities.tsv"
        built = build_entity_labels(path, None, 1, "players")
        write_entities(built.entities, out)
        return out.read_bytes(), built.unused_keys

    reference = labels(write_rows(tmp_path, ENTITIES, "jsonl", "question_entity", "ref"))
    assert labels(write_rows(tmp_path, ENTITIES, fmt, "question_entity")) == reference
    assert reference[1] == ["qid"] and reference[0].count(b"\n") == 21


PASSAGES = [{"id": f"r{i}", "question": f"who wrote book {i}", "answer": f"Author{i}",
             "human": f"Book {i} was written by Author{i}.", "model": f"Author{i} wrote book {i}.",
             "wrong": f"Writer{i}"} for i in range(20)]
MAPPING = {"question": "question", "answer": "answer",
           "passages": [{"author": "human", "text": "human", "false_answer": "wrong"},
                        {"author": "model", "text": "model", "false_answer": "wrong"}]}


@pytest.mark.parametrize("fmt", FORMATS)
def test_selfpref_same_20_records_same_passages_in_every_format(tmp_path, fmt):
    reference = import_sources("d", [{**MAPPING, "file": str(write_rows(tmp_path, PASSAGES, "json", "id", "ref"))}])
    got = import_sources("d", [{**MAPPING, "file": str(write_rows(tmp_path, PASSAGES, fmt, "id"))}])
    assert got == reference and len(got[0]) == 20 and len(got[1]) == 80


QUESTIONS = [{"qid": f"Q{i:02d}", "question": f"Is claim {i} true?", "answer": ["Yes", "no."][i % 2],
              "topic": ["MED", ""][i % 2]} for i in range(20)]
RAG_LABELS = [{"domain": f"site{i}.com", "page_rank": i % 11} for i in range(20)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_ragauth_questions_and_labels_same_in_every_format(tmp_path, fmt):
    assert read_questions(write_rows(tmp_path, QUESTIONS, fmt, "qid")) == \
        read_questions(write_rows(tmp_path, QUESTIONS, "csv", "qid", "ref"))
    labels, report = read_rag_labels(write_rows(tmp_path, RAG_LABELS, fmt, "domain", "labels"))
    assert labels == {f"site{i}.com": i % 11 for i in range(20)} and report["kind"] == "domain_table"


RELEASE = [{"qid": f"MED_{i:02d}", "question": f"Is {i} safe?", "question_type": "yes_no", "language": "en",
            "ground_truth": "Yes", "documents": [{"docid": "d0", "url": f"https://site{i}.com/a", "domain": "",
                                                  "PageRank": i % 11, "doc_text": f"text {i}", "authority": "low"}]}
           for i in range(20)]


@pytest.mark.parametrize("fmt", ("json", "json_object", "jsonl", "parquet"))
def test_ragauth_release_same_questions_in_every_record_format(tmp_path, fmt):
    assert load_ragauth(write_rows(tmp_path, RELEASE, fmt, "qid")) == \
        load_ragauth(write_rows(tmp_path, RELEASE, "json", "qid", "ref"))


def test_texts_from_a_json_object_keyed_by_domain(tmp_path):
    path = tmp_path / "texts.json"
    path.write_text(json.dumps({"A.com": {"text": "one two three"}, "b.org": {"text": ""}}), encoding="utf-8")
    assert read_texts(path, 2) == {"a.com": "one two"}


# --- bad input ---------------------------------------------------------------

def test_parquet_that_is_not_parquet_names_what_was_found(tmp_path):
    path = tmp_path / "domains.parquet"
    path.write_text("domain,pagerank\n" + "x" * 500 + ".com,0.5\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        build_domain_labels(path, None, CATS, label=SPEC)
    msg = str(err.value)
    assert str(path) in msg and "not a Parquet file" in msg and "expected a table with columns" in msg
    assert "found 'domain,pagerank\\nxxx" in msg and "x" * 201 not in msg


def test_json_that_is_not_json_names_what_was_found(tmp_path):
    path = tmp_path / "domains.json"
    path.write_text("domain,pagerank\nthehindu.com,0.96\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_records(path, "a table with columns domain and pagerank", key="domain")
    msg = str(err.value)
    assert str(path) in msg and "line 1, column 1: not valid JSON" in msg
    assert "expected a table with columns domain and pagerank" in msg and "found 'domain,pagerank" in msg


def test_object_of_records_whose_values_are_not_objects(tmp_path):
    path = tmp_path / "domains.json"
    path.write_text(json.dumps({"thehindu.com": 0.96, "b.org": 0.5}), encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_records(path, "domains", key="domain")
    msg = str(err.value)
    assert str(path) in msg and "record 'thehindu.com'" in msg and "not an object" in msg and "found 0.96" in msg


def test_object_of_records_whose_id_column_disagrees_with_the_key(tmp_path):
    path = tmp_path / "domains.json"
    path.write_text(json.dumps({"a.com": {"domain": "b.com", "pagerank": 1}}), encoding="utf-8")
    with pytest.raises(InputError, match=r"record 'a.com': field 'domain' is 'b.com', not the record's key"):
        read_records(path, "domains", key="domain")


def test_json_scalar_and_records_that_are_not_objects(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("42", encoding="utf-8")
    with pytest.raises(InputError, match="expected domains .a JSON list of records, or an object of records"):
        read_records(path, "domains", key="domain")
    path.write_text('[{"domain": "a.com"}, "b.com"]', encoding="utf-8")
    with pytest.raises(InputError, match=r"record 1: expected a JSON object .* found 'b.com'"):
        read_records(path, "domains", key="domain")


def test_csv_row_with_more_fields_than_the_header(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("domain,pagerank\na.com,1\nb.com,2,3\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 3: 3 fields, header has 2"):
        read_records(path, "domains")


@pytest.mark.parametrize("name, text, found, fix", [
    # a spreadsheet's "CSV" where the decimal mark is a comma: semicolons, a BOM and CRLF
    ("d.csv", "\ufeffdomain;centrality\r\na.com;0,5\r\nb.com;1\r\n", "semicolon-separated, but it is read as CSV",
     "save it comma-separated"),
    ("d.csv", "domain\tpagerank\na.com\t3\n", "tab-separated, but it is read as CSV", "name it .tsv"),
    ("d.tsv", "domain,pagerank\na.com,3\n", "comma-separated, but it is read as TSV", "name it .csv"),
    ("d.csv", "domain|pagerank\na.com|3\n", "pipe-separated", "save it comma-separated"),
])
def test_a_table_in_another_delimiter_names_it(tmp_path, name, text, found, fix):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(InputError) as err:
        read_records(path, "domains")
    assert f"{name}: line 1: the header is one column" in str(err.value)
    assert found in str(err.value) and fix in str(err.value)


def test_a_table_of_one_column_reads(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("domain\na.com\nb.com\n", encoding="utf-8")
    assert [rec for _, rec in read_records(path, "domains").rows] == [{"domain": "a.com"}, {"domain": "b.com"}]
    path = tmp_path / "d.tsv"
    path.write_text("domain name\na.com\n", encoding="utf-8")  # a space is no delimiter
    assert read_records(path, "domains").columns == ["domain name"]


def test_json_lines_in_a_file_named_json_still_read(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"domain": "a.com"}\n{"domain": "b.com"}\n', encoding="utf-8")
    assert [where for where, _ in read_records(path, "domains", key="domain").rows] == ["line 1", "line 2"]


def test_parquet_with_magic_bytes_but_broken_is_a_named_error(tmp_path):
    path = tmp_path / "d.parquet"
    path.write_bytes(b"PAR1 not really parquet")
    with pytest.raises(InputError, match=r"d.parquet: unreadable Parquet \(.*\); expected domains"):
        read_records(path, "domains", key="domain")
