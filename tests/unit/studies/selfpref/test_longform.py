"""Self-preference passages in long form (one row per passage, ``rows:``):
the same questions, passages and drops as the record-wise mapping of the
same passages (the example file and the whole NQ release), the pairing and
``false_for`` rules, the drop reasons and named errors, the mapping-form
check in the config, and a long file mapped record-wise (JSON lines, CSV,
TSV, Parquet) named as such with the ``rows:`` mapping to write."""

import csv
import importlib.util
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import yaml
from authbench.config import validate_schema
from authbench.studies.selfpref.fields import map_key
from authbench.studies.selfpref.cell_list import selfpref_cells
from authbench.studies.registry import check as check_config
from authbench.errors import ConfigError, InputError
from authbench.studies.selfpref.data import drop_rows, import_sources
from authbench.studies.selfpref.fields import read_passage_records
from authbench.studies.selfpref.longform import check_not_long, long_form_roles

ROOT = Path(__file__).resolve().parents[4]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())
WIDE = CONFIG["selfpref"]["datasets"]["nq"]["sources"]
OVERLAY = yaml.safe_load((ROOT / "examples" / "own_selfpref_long.yaml").read_text())
LONG = OVERLAY["selfpref"]["datasets"]["nq_long"]["sources"][0]
EXAMPLE = ROOT / LONG["file"]


def _maker():
    path = ROOT / "examples" / "make_my_passages_long.py"
    spec = importlib.util.spec_from_file_location("make_my_passages_long", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _long(path):
    return [{**LONG, "file": str(path)}]


def _wide_subset(tmp_path, questions):
    """config.yaml's record-wise NQ sources, each file cut to ``questions`` (texts, whitespace collapsed)."""
    out = []
    for source in WIDE:
        records = json.loads((ROOT / source["file"]).read_text())
        kept = [r for r in records if " ".join(r["question"].split()) in questions]
        path = tmp_path / Path(source["file"]).name
        path.write_text(json.dumps(kept))
        out.append({**source, "file": str(path)})
    return out


def _table(passages):
    """The passages table, sorted: one row per passage."""
    return pd.DataFrame(passages).sort_values("pid").reset_index(drop=True)


def test_example_file_is_its_script_output(tmp_path):
    _maker().write(tmp_path / "again.csv")
    assert (tmp_path / "again.csv").read_bytes() == EXAMPLE.read_bytes()


def test_example_long_file_equals_its_record_wise_form(tmp_path):
    questions, passages, drops = import_sources("nq", _long(EXAMPLE))
    wide = import_sources("nq", _wide_subset(tmp_path, {q["question"] for q in questions}))
    pd.testing.assert_frame_equal(_table(passages), _table(wide[1]))
    assert questions == wide[0] and drops == wide[2]
    assert len(questions) == 7 and len(passages) == 80
    # the drops the closing note reports: NQ-0007's GPT-3.5 and Llama passages are the failure sentence (true and
    # false each); NQ-0019's Llama writing-style false answer "Invertebrates" holds the gold "vertebrates" (long, qa);
    # llama_qa is llama_long in all 6 writing-style questions (6 true, 5 false: NQ-0019 has no false one)
    assert drops == Counter({("generation_failed", "gpt35"): 2, ("generation_failed", "llama"): 2,
                             ("false_answer_is_gold", "llama"): 2, ("duplicate_variant", "llama"): 11})
    tagged = [p for p in passages if p["for_self"]]
    assert len(tagged) == 7 and all(p["pid"].endswith(":human:normal:F:for-gpt35") for p in tagged)


def test_whole_nq_release_in_long_form_equals_the_record_wise_import(tmp_path):
    """All 1,000 NQ questions of the release laid out one row per passage give the record-wise import's 1,000
    questions, 7,318 passages and drops, passage by passage."""
    path = tmp_path / "nq_long.csv"
    _maker().write(path, list(range(1000)))
    long = import_sources("nq", _long(path))
    wide = import_sources("nq", [{**s, "file": str(ROOT / s["file"])} for s in WIDE])
    assert len(long[1]) == 7318
    pd.testing.assert_frame_equal(_table(long[1]), _table(wide[1]))
    assert long[0] == wide[0] and long[2] == wide[2]


ROWS = {"qid": "id", "question": "q", "answer": "gold",
        "author": {"field": "who", "values": {"wiki": "human", "m": "m", "n": "n", "o": "o", "bot": None}},
        "factual": {"field": "ok", "values": {True: True, False: False}},
        "text": "text", "false_answer": "wrong", "false_for": {"field": "of"}}


def _rows(tmp_path, rows, mapping=None, name="rows.jsonl"):
    """The rows as a JSON-lines source; the mapping's false_for only when a row names whose false answer it is."""
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    mapping = mapping or ROWS
    if not any("of" in r for r in rows):
        mapping = {k: v for k, v in mapping.items() if k != "false_for"}
    return [{"file": str(path), "rows": mapping}]


def _row(qid, who, ok, text, wrong=None, of=None, q=None, gold="Ann"):
    return {"id": qid, "q": q or f"Who is {qid}?", "gold": gold, "who": who, "ok": ok, "text": text,
            **({"wrong": wrong} if wrong else {}), **({"of": of} if of else {})}


def test_pairing_substitution_and_drops(tmp_path):
    rows = [_row("a", "wiki", True, "Ann wrote it."),                 # no false row, no false answer known
            _row("a", "m", True, "It was Ann."), _row("a", "m", False, "It was Bob.", "Bob"),
            _row("a", "n", True, "Ann, said n.", "Cy"),              # no false row: substituted
            _row("a", "o", False, "By Dee.", "Dee"),                 # a false row without a true one: kept
            _row("a", "m", False, "It was Bob!", "Bob"),             # same question/author/variant/F/for_self
            _row("a", "n", False, "Nobody.", "Cy"),                  # ... its false answer is not in its text
            _row("a", "bot", True, "Ann.")]                          # author mapped to null: skipped, counted
    questions, passages, drops = import_sources("d", _rows(tmp_path, rows))
    by_pid = {p["pid"]: p for p in passages}
    assert sorted(by_pid) == ["d-0001:human:normal:T", "d-0001:m:normal:F", "d-0001:m:normal:T",
                              "d-0001:n:normal:T", "d-0001:o:normal:F"]
    # n has a false row (which lacks its answer), so its true row is not substituted
    assert drops == Counter({("no_false_answer", "human"): 1, ("duplicate", "m"): 1, ("answer_missing", "n"): 1,
                             ("author_skipped", "bot"): 1})
    assert by_pid["d-0001:o:normal:F"]["answer_in"] == "Dee"
    assert questions[0]["false_answers"] == {"m": "Bob", "n": "Cy", "o": "Dee"}
    rows = [_row("a", "n", True, "Ann, said n.", "Cy")]
    _, passages, _ = import_sources("d", _rows(tmp_path, rows))
    assert {p["pid"]: p["text"] for p in passages}["d-0001:n:normal:F"] == "Cy, said n."
    table = {(r["reason"], r["author"]): r["count"] for r in drop_rows(drops)}
    assert table["author_skipped", "bot"] == 1 and table["author_skipped", "m"] == 0


def test_false_for_with_three_model_authors(tmp_path):
    """Human false passages carrying m's, n's and o's false answers (map order m, n, o): self m sees n's, n sees
    o's, o sees m's (the last wraps to the first), and m's is untagged, so a self with none of its own (x) sees m's
    too; no self sees a passage with its own false answer."""
    rows = [_row("a", "wiki", True, "Ann wrote it.")]
    rows += [_row("a", "wiki", False, f"{w} wrote it.", w, of) for w, of in (("Oz", "o"), ("Mo", "m"), ("Ned", "n"))]
    rows += [_row("a", a, f, f"{'Ann' if f else w} did.", w) for a, w in (("m", "Mo"), ("n", "Ned"), ("o", "Oz"))
             for f in (True, False)]
    _, passages, drops = import_sources("d", _rows(tmp_path, rows))
    assert not drops
    human = {p["answer_in"]: p for p in passages if p["author"] == "human" and not p["factual"]}
    assert {a: p["for_self"] for a, p in human.items()} == {"Mo": None, "Ned": ["m"], "Oz": ["n"]}
    from authbench.studies.selfpref.requests import comparisons

    answer_in = {p["pid"]: p["answer_in"] for p in passages}
    seen = {s: {answer_in[c["other_pid"]] for c in comparisons(["d-0001"], passages, s, ["human"])
                if not c["self_factual"] and not c["other_factual"]} for s in ("m", "n", "o")}
    assert seen == {"m": {"Ned"}, "n": {"Oz"}, "o": {"Mo"}}
    # with one carried author only, the passage is untagged: shown to every self
    _, passages, _ = import_sources("d", _rows(tmp_path, rows[:2] + rows[4:]))
    assert [p["for_self"] for p in passages if p["author"] == "human" and not p["factual"]] == [None]


def test_false_answer_from_the_author_it_carries(tmp_path):
    """A human false row with no false answer of its own takes the false answer of the author it carries."""
    rows = [_row("a", "wiki", True, "Ann wrote it."), _row("a", "wiki", False, "Bob wrote it.", of="m"),
            _row("a", "m", True, "Ann did."), _row("a", "m", False, "Bob did.", "Bob")]
    _, passages, drops = import_sources("d", _rows(tmp_path, rows))
    assert not drops and {p["pid"]: p["answer_in"] for p in passages}["d-0001:human:normal:F"] == "Bob"


@pytest.mark.parametrize("keys, values", [
    ({True: True, False: False}, [True, False]),      # YAML booleans, JSON booleans
    ({"yes": True, "no": False}, ["Yes", "NO"]),
    ({1: True, 0: False}, ["1", "0.0"]),
    ({"true": True, "false": False}, [1, 0]),
    ({"yes": True, "no": False}, ["true", "false"]),
])
def test_factuality_keys_compare_as_normalised_strings(tmp_path, keys, values):
    rows = [_row("a", "m", values[0], "Ann did."), _row("a", "m", values[1], "Bob did.", "Bob")]
    mapping = {**ROWS, "factual": {"field": "ok", "values": keys}}
    _, passages, drops = import_sources("d", _rows(tmp_path, rows, mapping))
    assert not drops and sorted(p["pid"] for p in passages) == ["d-0001:m:normal:F", "d-0001:m:normal:T"]


def test_map_key():
    assert [map_key(v) for v in (True, "Yes", " ON ", 1, 1.0, "1.0", "false", "No", 0, None, "Gpt  35", 2.5)] == [
        "true", "true", "true", "true", "true", "true", "false", "false", "false", "", "gpt 35", "2.5"]


def test_unknown_author_and_factuality_values_are_named(tmp_path):
    rows = [_row("a", "wiki", True, "Ann."), _row("a", "mm", True, "Ann!"), _row("b", "mm", False, "Bob", "Bob")]
    with pytest.raises(ConfigError) as err:
        import_sources("d", _rows(tmp_path, rows))
    assert str(err.value) == (
        f"selfpref source 0 ({tmp_path / 'rows.jsonl'}), rows.author.values: field 'who' holds 'mm' (2 row(s), first: "
        "line 2 (question 'Who is a?')), not in the map (did you mean 'm'?). The map: wiki -> human, m -> m, n -> n, "
        "o -> o, bot -> None; map a value to null to skip its rows")
    rows = [_row("a", "m", True, "Ann."), _row("a", "m", "maybe", "Ann!"), _row("b", "m", False, "Bob", "Bob")]
    with pytest.raises(ConfigError) as err:
        import_sources("d", _rows(tmp_path, rows))
    assert str(err.value) == (
        f"selfpref source 0 ({tmp_path / 'rows.jsonl'}), rows.factual.values: field 'ok' holds 'maybe' (1 row(s), "
        "first: line 2 (question 'Who is a?')), not in the map. The field's values in the file (rows): 'True' (1), "
        "'maybe' (1), 'False' (1). The map: True -> True, False -> False")


def test_question_ids_and_texts_must_agree(tmp_path):
    rows = [_row("a", "m", True, "Ann."), _row("a", "m", False, "Bob.", "Bob", q="Who is b?")]
    with pytest.raises(InputError, match=r"rows.jsonl: question id 'a' has two question texts: line 1 \(question "
                                         r"'Who is a\?'\): 'Who is a\?'; line 2 \(question 'Who is b\?'\): "
                                         r"'Who is b\?'"):
        import_sources("d", _rows(tmp_path, rows))
    rows = [_row("a", "m", True, "Ann."), _row("a", "m", False, "Bob.", "Bob", gold="Ann Lee")]
    with pytest.raises(InputError, match=r"question id 'a' has two gold answers: line 1 .*'Ann'; line 2 .*'Ann Lee'"):
        import_sources("d", _rows(tmp_path, rows))
    rows = [_row("a", "m", True, "Ann."), _row("b", "m", False, "Bob.", "Bob", q="Who  is a?")]
    with pytest.raises(InputError, match=r"one question has two ids, 'a' \(line 1 .*\) and 'b' \(line 2 .*\): "
                                         r"'Who is a\?'"):
        import_sources("d", _rows(tmp_path, rows))


def test_a_misspelt_rows_field_is_a_config_error(tmp_path):
    mapping = {**ROWS, "text": "txt"}
    with pytest.raises(ConfigError, match=r"rows.text: field 'txt' is in no record of the file \(did you mean "
                                          r"'text'\?\)"):
        import_sources("d", _rows(tmp_path, [_row("a", "m", True, "Ann.")], mapping))


def _config_with(source):
    cfg = json.loads(json.dumps(CONFIG))
    cfg["selfpref"]["datasets"]["long"] = {"sources": [source], "knowledge": {}}
    return cfg


def test_config_accepts_exactly_one_mapping_form():
    cfg = _config_with(json.loads(json.dumps(LONG)))
    cfg["selfpref"]["datasets"]["long"]["sources"][0]["rows"]["factual"]["values"] = {True: True, "no": False}
    validate_schema(cfg)
    check_config(cfg)
    assert selfpref_cells(cfg).datasets == ["long", "nq"]
    # the value maps' keys are normalised in place: the config writes out as JSON, sorted
    assert cfg["selfpref"]["datasets"]["long"]["sources"][0]["rows"]["factual"]["values"] == {"true": True,
                                                                                            "false": False}
    json.dumps(cfg, sort_keys=True)
    both = _config_with({**LONG, "question": "question", "answer": "gold", "passages": [{"author": "h", "text": "t"}]})
    validate_schema(both)
    with pytest.raises(ConfigError, match=r"'selfpref.datasets.long.sources.0': give either 'rows' \(long form: one "
                                          r"row per passage\) or question, answer and passages .*not both"):
        check_config(both)
    neither = _config_with({"file": LONG["file"], "question": "question"})
    validate_schema(neither)
    with pytest.raises(ConfigError, match=r"map the file either record-wise \(question, answer and passages; missing: "
                                          r"\['answer', 'passages'\]\) or in long form"):
        check_config(neither)
    clash = _config_with(json.loads(json.dumps(LONG)))
    clash["selfpref"]["datasets"]["long"]["sources"][0]["rows"]["factual"]["values"] = {"yes": True, True: False}
    validate_schema(clash)
    with pytest.raises(ConfigError, match=r"rows.factual.values': keys 'yes' and True are the same value once "
                                          r"normalised"):
        check_config(clash)
    bad = _config_with({**json.loads(json.dumps(LONG)), "rows": {**LONG["rows"], "variant": {"field": "style",
                                                                                            "values": {"plain": "x"}}}})
    with pytest.raises(ConfigError, match=r"selfpref.datasets.long.sources.0.rows.variant.values.plain"):
        validate_schema(bad)


RECORD_WISE = {"question": "question", "answer": "gold",
               "passages": [{"author": "human", "text": "passage", "false_answer": "false_answer"}]}


def _long_file(tmp_path, fmt):
    rows = list(csv.DictReader(EXAMPLE.open(newline="", encoding="utf-8")))
    if fmt == "jsonl":  # as JSON lines are written: a row has only the fields it fills
        path = tmp_path / "long.jsonl"
        path.write_text("".join(json.dumps({k: v for k, v in r.items() if v}) + "\n" for r in rows))
    elif fmt == "parquet":
        path = tmp_path / "long.parquet"
        pd.DataFrame(rows).to_parquet(path)
    else:
        path = tmp_path / f"long.{fmt}"
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, list(rows[0]), delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv", "parquet"])
def test_long_file_mapped_record_wise_prints_the_rows_mapping(tmp_path, fmt):
    """The long example, mapped record-wise, in each format: CSV, TSV and Parquet have every field in every
    row, so only the values can tell. The error prints the rows: mapping; pasted with the author ids set, it
    imports the same passages as the example's own mapping."""
    path = _long_file(tmp_path, fmt)
    with pytest.raises(ConfigError) as err:
        import_sources("nq", [{"file": str(path), **RECORD_WISE}])
    message = str(err.value)
    assert "is mapped record-wise" in message and "but the file looks long-form, one row per passage:" in message
    assert "field 'question' repeats (7 questions in 73 rows)" in message
    assert "field 'writer' holds 3 values (wikipedia, gpt-3.5-turbo, llama-2-70b-chat)" in message
    assert "field 'is_factual' is boolean-like (yes, no)" in message
    suggested = message.split("'Long form'):\n", 1)[1]
    assert suggested == (
        f"- file: {path}\n  rows:\n    qid: question_id\n    question: question\n    answer: gold\n"
        "    author: {field: writer, values: {wikipedia: wikipedia, gpt-3.5-turbo: gpt-3.5-turbo, llama-2-70b-chat: "
        "llama-2-70b-chat}}\n"
        "    factual: {field: is_factual, values: {'yes': true, 'no': false}}\n"
        "    variant: {field: style, values: {plain: normal, long: long, qa: qa}}\n"
        "    text: passage\n    false_answer: false_answer\n    false_for: {field: false_answer_of}")
    source = yaml.safe_load(suggested)[0]
    source["rows"]["author"]["values"] = LONG["rows"]["author"]["values"]
    got = import_sources("nq", [source])
    want = import_sources("nq", _long(EXAMPLE))
    pd.testing.assert_frame_equal(_table(got[1]), _table(want[1]))


def test_author_ids_of_the_source_are_suggested(tmp_path):
    path = _long_file(tmp_path, "csv")
    mapping = {**RECORD_WISE, "passages": [{"author": "gpt35", "text": "passage"}, {"author": "llama", "text": "x"}]}
    with pytest.raises(ConfigError, match=r"values: \{wikipedia: wikipedia, gpt-3.5-turbo: gpt35, llama-2-70b-chat: "
                                          r"llama\}\}"):
        import_sources("nq", [{"file": str(path), **mapping}])


def test_the_suggested_author_values_follow_selfpref_authors_not_the_file(tmp_path):
    """The author map's order decides which human false passage is untagged
    (false_for): the suggestion lists the values in selfpref.authors' order."""
    path = _long_file(tmp_path, "csv")  # the file's order: wikipedia, gpt-3.5-turbo, llama-2-70b-chat
    mapping = {**RECORD_WISE, "passages": [{"author": "human", "text": "passage"}]}
    with pytest.raises(ConfigError, match=r"values: \{llama-2-70b-chat: llama, gpt-3.5-turbo: gpt35, wikipedia: "
                                          r"wikipedia\}\}"):
        import_sources("nq", [{"file": str(path), **mapping}], ["human", "llama", "gpt35"])
    with pytest.raises(ConfigError, match=r"values: \{gpt-3.5-turbo: gpt35, llama-2-70b-chat: llama, wikipedia: "
                                          r"wikipedia\}\}"):
        import_sources("nq", [{"file": str(path), **mapping}], ["human", "gpt35", "llama"])


@pytest.mark.parametrize("name", ["nq_passages_gpt35.json", "nq_passages_llama.json", "nq_writing_style.json",
                                  "marco_both_true.json", "marco_writing_style.json"])
def test_record_wise_files_do_not_look_long(name):
    records = read_passage_records(ROOT / "resources" / "data" / "selfpref" / name)
    assert long_form_roles({"question": "question"}, records) is None
    assert long_form_roles({}, records) is None  # nor with the question field guessed
    check_not_long({"question": "question", "file": name}, records, 0)
