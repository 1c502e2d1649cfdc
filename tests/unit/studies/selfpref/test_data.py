"""Self-preference passage sets: the config mapping (real NQ files and a
dataset in another schema), drops, substitution and the question sample's
completeness rule."""

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from authbench.config import validate_schema
from authbench.studies.selfpref.cell_list import selfpref_cells
from authbench.studies.registry import check as check_config
from authbench.errors import ConfigError, InputError
from authbench.studies.selfpref.data import complete_questions, drop_rows, import_sources, sample_questions, substitute

ROOT = Path(__file__).resolve().parents[4]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())
NQ = CONFIG["selfpref"]["datasets"]["nq"]


def _sources(sources):
    return [{**s, "file": str(ROOT / s["file"])} for s in sources]


@pytest.fixture(scope="module")
def nq():
    return import_sources("nq", _sources(NQ["sources"]))


def test_real_nq_import_counts(nq):
    questions, passages, drops = nq
    assert len(questions) == 1000  # the writing-style questions are NQ questions: joined by text
    counts = Counter((p["author"], p["variant"], p["factual"]) for p in passages)
    # one human false passage per evaluator self: each file's human_false (that file's model's false answer)
    assert counts["human", "normal", True] == 1000 and counts["human", "normal", False] == 2000
    # the release's failure sentence: 48 GPT-3.5 and 92 Llama items, true and false passage each
    assert drops["generation_failed", "gpt35"] == 96 and drops["generation_failed", "llama"] == 184
    assert counts["gpt35", "normal", True] == 1000 - 48 and counts["llama", "normal", True] == 1000 - 92
    assert counts["gpt35", "long", True] == counts["gpt35", "qa", True] == counts["llama", "long", True] == 100
    # llama_qa is byte-identical to llama_long in all 100 writing-style records: every Llama qa passage
    # goes (100 true, 98 false: 2 records' Llama false answer is the gold)
    assert counts["llama", "qa", True] == counts["llama", "qa", False] == 0
    assert drops["duplicate_variant", "llama"] == 198 and drops["duplicate_variant", "gpt35"] == 0
    assert len(passages) == sum(counts.values()) == 6516 + 1000 - 198
    assert all(p["answer_in"] in p["text"] for p in passages if p["author"] != "human" or p["factual"])
    assert len(complete_questions(passages, ["human", "gpt35", "llama"])) == 886
    assert len({p["pid"] for p in passages}) == len(passages)


def test_drop_rows_list_every_reason_per_author(nq):
    rows = drop_rows(nq[2])
    assert {(r["reason"], r["author"]) for r in rows if r["count"]} == {
        ("generation_failed", "gpt35"), ("generation_failed", "llama"), ("false_answer_is_gold", "llama"),
        ("duplicate_variant", "llama")}
    assert sum(r["count"] for r in rows) == sum(nq[2].values())


OTHER_SCHEMA = """\
# a dataset in another schema: JSON lines, other field names, no false texts
- file: {path}
  question: query
  answer: gold
  passages:
    - {{author: wiki, text: doc}}
    - {{author: bot, text: bot_doc, false_answer: bot_wrong}}
    - {{author: bot, variant: long, text: bot_long, false_answer: bot_wrong}}
"""


def _write_other(tmp_path, records):
    path = tmp_path / "other.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return yaml.safe_load(OTHER_SCHEMA.format(path=path))


def test_another_schema_needs_only_a_mapping(tmp_path):
    sources = _write_other(tmp_path, [
        {"query": "Who wrote  Hamlet?", "gold": "Shakespeare", "doc": "Hamlet is by Shakespeare.",
         "bot_doc": "William shakespeare wrote it; Shakespeare died in 1616.", "bot_wrong": "Marlowe",
         "bot_long": "A long text without the answer."},
        {"query": "Capital of France?", "gold": "Paris", "doc": "Paris is the capital.",
         "bot_doc": "France's capital city is Lyon.", "bot_wrong": "Paris", "bot_long": "Paris, again."},
    ])
    questions, passages, drops = import_sources("other", sources)
    assert [q["qid"] for q in questions] == ["other-0001", "other-0002"]
    assert questions[0]["question"] == "Who wrote Hamlet?"  # whitespace collapsed
    by_pid = {p["pid"]: p for p in passages}
    # the false passage is made by substituting the gold, case-insensitively, every occurrence
    assert by_pid["other-0001:bot:normal:F"]["text"] == "William Marlowe wrote it; Marlowe died in 1616."
    assert by_pid["other-0001:bot:normal:F"]["answer_in"] == "Marlowe"
    assert "other-0001:wiki:normal:F" not in by_pid  # no false answer mapped
    assert drops == Counter({("no_false_answer", "wiki"): 2, ("answer_missing", "bot"): 2,
                             ("answer_not_substituted", "bot"): 1, ("false_answer_is_gold", "bot"): 2})
    # "Lyon" passage: the true text lacks the gold -> answer_missing (true) and not substituted (false)
    assert "other-0002:bot:normal:T" not in by_pid


def test_another_schema_passes_config_validation(tmp_path):
    cfg = json.loads(json.dumps(CONFIG))
    cfg["selfpref"]["datasets"]["other"] = {"sources": _write_other(tmp_path, [])}
    validate_schema(cfg)
    check_config(cfg)
    assert selfpref_cells(cfg).datasets == ["nq", "other"]
    cfg["selfpref"]["datasets"]["other"]["sources"][0]["passages"][0]["variant"] = "poem"
    with pytest.raises(ConfigError, match=r"selfpref.datasets.other.sources.0.passages.0.variant"):
        validate_schema(cfg)


def test_self_author_must_be_an_author():
    cfg = json.loads(json.dumps(CONFIG))
    cfg["selfpref"]["self"] = {"gemma3-270m": "gemma"}
    with pytest.raises(ConfigError, match=r"'selfpref.self' maps evaluators to author\(s\) \['gemma'\]"):
        selfpref_cells(cfg)


def test_false_for_names_a_known_author():
    # fewer authors compared (an overlay) keep the inherited sources' false_for: gpt35 is mapped by an entry
    cfg = json.loads(json.dumps(CONFIG))
    cfg["selfpref"]["authors"] = ["human", "llama"]
    cfg["selfpref"]["self"] = {"gemma3-270m": None, "qwen2.5-coder-0.5b": "llama"}
    assert selfpref_cells(cfg).evaluators == ["qwen2.5-coder-0.5b"]
    # a name no entry maps, no evaluator has as self and the run does not compare: a typo
    cfg["selfpref"]["datasets"]["nq"]["sources"][1]["passages"][1]["false_for"] = ["gtp35"]
    with pytest.raises(ConfigError, match=r"false_for' names author\(s\) \['gtp35'\] that no passage entry maps"):
        selfpref_cells(cfg)


def test_missing_field_names_file_record_field(tmp_path):
    sources = _write_other(tmp_path, [{"query": "Q?", "gold": "A", "doc": "A.", "bot_doc": 5, "bot_wrong": "B",
                                       "bot_long": "A"}])
    with pytest.raises(InputError) as err:
        import_sources("other", sources)
    assert "other.jsonl: line 1 (question 'Q?'): field 'bot_doc': expected a string, got 5" in str(err.value)


def test_a_number_as_the_answer_is_its_text(tmp_path):
    """NQ's "when" questions: a JSON file may hold the gold and false answers as numbers."""
    sources = _write_other(tmp_path, [{"query": "When did the Berlin Wall fall?", "gold": 1989,
                                       "doc": "The wall fell in 1989.", "bot_doc": "It fell in 1989, in November.",
                                       "bot_wrong": 1991, "bot_long": "In 1989."}])
    questions, passages, _ = import_sources("other", sources)
    assert questions[0]["answer"] == "1989"
    by_pid = {p["pid"]: p for p in passages}
    assert by_pid["other-0001:bot:normal:F"]["text"] == "It fell in 1991, in November."


def test_a_list_of_answers_says_one_is_read(tmp_path):
    sources = _write_other(tmp_path, [{"query": "Q?", "gold": ["A", "a"], "doc": "A.", "bot_doc": "A",
                                       "bot_wrong": "B", "bot_long": "A"}])
    with pytest.raises(InputError) as err:
        import_sources("other", sources)
    assert ("other.jsonl: line 1 (question 'Q?'): field 'gold': expected a string, got [\"A\", \"a\"]; a list of "
            "answers is not read: map a field holding the one answer to substitute") in str(err.value)


def test_misspelt_mapped_field_is_a_config_error(tmp_path):
    """`false_text: human_false_lama` (a field no record has) stops the import, naming the mapping key, the
    file and its fields, instead of falling back to substitution silently (69 passages changed)."""
    sources = _sources(NQ["sources"])
    sources[0]["passages"][0]["false_text"] = "human_false_lama"  # the entry has a text: substitution was possible
    with pytest.raises(ConfigError) as err:
        import_sources("nq", sources)
    assert str(err.value) == (
        f"selfpref source 0 ({ROOT / 'resources/data/selfpref/nq_passages_gpt35.json'}), passages.0.false_text: "
        "field 'human_false_lama' is in no record of the file (did you mean 'human_false'?). The file's fields: "
        "question, true_answer, false_answer, human_true, human_false, ai_true, ai_false")
    sources = _sources(NQ["sources"])
    sources[0]["answer"] = "gold"  # no close match: the fields alone
    with pytest.raises(ConfigError, match=r"\), answer: field 'gold' is in no record of the file\. The file's fields: "
                                          r"question, true_answer"):
        import_sources("nq", sources)


def test_field_missing_in_some_records_names_the_record(tmp_path):
    """A mapped field that one record lacks (others have it) is an InputError naming file, record and
    question, and field; only false_answer may be null (a counted no_false_answer drop)."""
    sources = _write_other(tmp_path, [
        {"query": "Q1?", "gold": "A", "doc": "A.", "bot_doc": "A!", "bot_wrong": "B", "bot_long": "A"},
        {"query": "Q2?", "gold": "A", "doc": "A.", "bot_wrong": "B", "bot_long": "A"}])
    with pytest.raises(InputError) as err:
        import_sources("other", sources)
    assert str(err.value).endswith("other.jsonl: line 2 (question 'Q2?'): no field 'bot_doc' (the mapping names it; "
                                   "other records of the file have it)")
    sources = _write_other(tmp_path, [
        {"query": "Q1?", "gold": "A", "doc": "A.", "bot_doc": "A!", "bot_wrong": None, "bot_long": "A"}])
    _, passages, drops = import_sources("other", sources)
    assert drops[("no_false_answer", "bot")] == 2 and not [p for p in passages if not p["factual"]]
    path = tmp_path / "f.json"
    path.write_text(json.dumps([{"q": "Q?", "a": "Ann", "t": "Ann.", "f": None, "wrong": "Bob"}]))
    src = {"file": str(path), "question": "q", "answer": "a",
           "passages": [{"author": "human", "text": "t", "false_text": "f", "false_answer": "wrong"}]}
    with pytest.raises(InputError, match=r"f.json: record 0 \(question 'Q\?'\): field 'f': expected a string, "
                                         r"got None"):
        import_sources("f", [src])  # a null false_text is not replaced by substitution either


def test_long_content_is_quoted_shortly(tmp_path):
    """An input error never prints a whole 4 MB input: quoted content stops after 200 characters."""
    big = "x" * 4_000_000
    sources = _write_other(tmp_path, [{"query": big, "gold": "A", "doc": "A.", "bot_doc": ["A " * 10**6],
                                       "bot_wrong": "B", "bot_long": "A"}])
    with pytest.raises(InputError) as err:
        import_sources("other", sources)
    message = str(err.value)
    assert len(message) < 500 and "(4,000,000 characters)" in message and "(2,000,004 characters)" in message


def test_bad_json_names_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"query": "Q"}\n{"query": \n')
    with pytest.raises(InputError, match=r"bad.jsonl: line 2, column \d+: not valid JSON"):
        import_sources("x", [{"file": str(path), "question": "query", "answer": "gold", "passages": []}])


def test_duplicate_slot_first_source_wins(tmp_path):
    a = tmp_path / "a.json"
    a.write_text(json.dumps([{"q": "Q?", "a": "Ann", "t": "First Ann."}]))
    b = tmp_path / "b.json"
    b.write_text(json.dumps([{"q": "Q?", "a": "Ann", "t": "Second Ann."}]))
    spec = {"question": "q", "answer": "a", "passages": [{"author": "human", "text": "t"}]}
    _, passages, drops = import_sources("d", [{"file": str(a), **spec}, {"file": str(b), **spec}])
    assert [p["text"] for p in passages] == ["First Ann."]
    assert drops[("duplicate", "human")] == 1


@pytest.mark.parametrize("text, gold, false, expected", [
    ("Paris is in France. paris!", "Paris", "Lyon", "Lyon is in France. Lyon!"),
    ("The 1990s (a.k.a. 90s)", "a.k.a.", "so-called", "The 1990s (so-called 90s)"),  # regex characters escaped
    ("no gold here", "Paris", "Lyon", None),
    ("anything", "  ", "Lyon", None),
])
def test_substitute(text, gold, false, expected):
    assert substitute(text, gold, false) == expected


def test_substitute_case_sensitive_is_str_replace():
    """``ignore_case=False`` is the authors' ``text.replace(answer, false_ans)`` (score.py)."""
    text = "Paris is in France. paris! Paris."
    assert substitute(text, "Paris", "Lyon", ignore_case=False) == text.replace("Paris", "Lyon")
    assert substitute("only paris", "Paris", "Lyon", ignore_case=False) is None


def test_sample_counts_generated_authors():
    """An evaluator that writes its own passages (config/paper.yaml) is an
    author through its generated passages only; authors that are not in
    ``authors`` change nothing (the demo's sample)."""
    imported = [{"qid": q, "author": "human", "variant": "normal", "factual": f, "pid": f"{q}:h:{f}"}
                for q in ("q1", "q2", "q3") for f in (True, False)]
    generated = [{"qid": q, "author": "m", "variant": "normal", "factual": f, "pid": f"{q}:m:{f}"}
                 for q in ("q1", "q3") for f in (True, False)]
    sample, _ = sample_questions(imported, generated, ["human", "m"], 2, 0, 13, "d", "imported.jsonl")
    assert sample["main"] == ["q1", "q3"] and sample["generated"] == ["q1", "q3"]
    # a sample larger than the dataset is a config error naming the setting, the dataset and the count
    with pytest.raises(ConfigError, match=r"selfpref.items = 3 is larger than dataset 'd': only 2 of its questions "
                                          r"\(imported.jsonl\) have a true and a false passage"):
        sample_questions(imported, generated, ["human", "m"], 3, 0, 13, "d", "imported.jsonl")
    with pytest.raises(ConfigError, match=r"selfpref.style_items = 1 is larger than dataset 'd': only 0"):
        sample_questions(imported, generated, ["human", "m"], 2, 1, 13, "d", "imported.jsonl")
    alone, _ = sample_questions(imported, [], ["human"], 2, 0, 13, "d", "imported.jsonl")
    with_other, _ = sample_questions(imported, generated, ["human"], 2, 0, 13, "d", "imported.jsonl")
    assert alone["main"] == with_other["main"]


def test_complete_questions_need_true_and_false_of_every_author():
    rows = [{"qid": "q1", "author": a, "variant": "normal", "factual": f} for a in ("human", "m") for f in (True, False)]
    rows += [{"qid": "q2", "author": "human", "variant": "normal", "factual": f} for f in (True, False)]
    rows += [{"qid": "q2", "author": "m", "variant": "normal", "factual": True},
             {"qid": "q2", "author": "m", "variant": "long", "factual": False}]
    assert complete_questions(rows, ["human", "m"]) == ["q1"]


def _shipped(tmp_path, questions, source=None, match="exact"):
    from types import SimpleNamespace

    from authbench.studies.selfpref.cli import cmd_shipped_knowledge
    from authbench.records import write_jsonl

    write_jsonl(questions, tmp_path / "questions.jsonl")
    args = SimpleNamespace(source=str(source or ROOT / NQ["knowledge"]["gpt35"]),
                           questions=str(tmp_path / "questions.jsonl"),
                           levels=str(tmp_path / "levels.jsonl"), check=str(tmp_path / "check.tsv"))
    cmd_shipped_knowledge(args, {"match": match})
    return args


def test_shipped_knowledge_levels_align_with_imported_questions(tmp_path, nq):
    from authbench.records import read_jsonl

    args = _shipped(tmp_path, nq[0])
    levels = read_jsonl(args.levels)
    assert len(levels) == 1000 and levels[0]["qid"] == "nq-0001"
    assert [sum(lv["level"] == k for lv in levels) for k in range(6)] == [356, 97, 51, 56, 89, 351]
    assert "level_mismatches_vs_file\t0" in Path(args.check).read_text()


def test_shipped_knowledge_in_another_order_is_placed_by_gold(tmp_path, nq):
    """A released run over the questions in another order (the NQ Llama run) is placed by gold: each question
    takes the qid of the one dataset question with its gold (case and whitespace ignored)."""
    from authbench.records import read_jsonl

    shuffled = [nq[0][1], nq[0][0], *nq[0][2:]]
    args = _shipped(tmp_path, shuffled)
    levels = read_jsonl(args.levels)
    assert levels[0]["ground_truth"] == "Linda Davis" and levels[0]["qid"] == nq[0][0]["qid"]
    assert levels[1]["qid"] == nq[0][1]["qid"]
    check = Path(args.check).read_text()
    assert "alignment\tgold" in check and "level_mismatches_vs_file\t0" in check


def test_released_llama_run_is_placed_by_gold_and_counts_the_rest(tmp_path, nq):
    """nq_knowledge_llama2.json: 1,000 questions of which 887 golds are NQ questions of the passage files; those
    with exactly one dataset question of that gold get its qid, the others none (counted)."""
    from authbench.records import read_jsonl

    args = _shipped(tmp_path, nq[0], ROOT / "resources/data/selfpref/nq_knowledge_llama2.json", "lowercase")
    levels = read_jsonl(args.levels)
    assert [sum(lv["level"] == k for lv in levels) for k in range(6)] == [524, 48, 31, 29, 39, 329]
    without = sum(lv["qid"] is None for lv in levels)
    golds = Counter(" ".join(q["answer"].split()).casefold() for q in nq[0])
    expected = sum(golds[" ".join(lv["ground_truth"].split()).casefold()] != 1 for lv in levels)
    assert without == expected and 113 <= without < 300  # at least the 113 golds that are no NQ question here
    assert f"questions_without_qid\t{without}" in Path(args.check).read_text()
    assert levels[0]["qid"] == "nq-0001"


def test_human_false_passage_per_evaluator_self(nq):
    """Each released file's human_false carries that file's model's false answer (GPT's in the gpt35 file, Llama's
    in the llama file); as in the authors' ChatGPT_inference.py / Llama_inference.py, a GPT-self evaluator is
    shown the human passage with Llama's false answer (human_false_llama) and a Llama-self one the passage with
    GPT's."""
    from authbench.studies.selfpref.requests import comparisons

    questions, passages, _ = nq
    gpt = json.loads((ROOT / "resources/data/selfpref/nq_passages_gpt35.json").read_text())
    llama = json.loads((ROOT / "resources/data/selfpref/nq_passages_llama.json").read_text())
    human_false = {(p["qid"], (p["for_self"] or ["untagged"])[0]): p
                   for p in passages if p["author"] == "human" and not p["factual"]}
    assert Counter(tag for _, tag in human_false) == {"untagged": 1000, "gpt35": 1000}
    for q, g, lm in zip(questions, gpt, llama):
        assert human_false[q["qid"], "untagged"]["text"] == g["human_false"].strip()
        assert human_false[q["qid"], "untagged"]["answer_in"] == g["false_answer"].strip()
        assert human_false[q["qid"], "gpt35"]["text"] == lm["human_false"].strip()
        assert human_false[q["qid"], "gpt35"]["answer_in"] == lm["false_answer"].strip()
    assert human_false["nq-0001", "gpt35"]["pid"] == "nq-0001:human:normal:F:for-gpt35"
    assert human_false["nq-0001", "untagged"]["pid"] == "nq-0001:human:normal:F"
    qids = complete_questions(passages, ["human", "gpt35", "llama"])
    by_pid = {p["pid"]: p for p in passages}
    for self_author, other in (("gpt35", "llama"), ("llama", "gpt35")):
        ff = [c for c in comparisons(qids, passages, self_author, ["human", other])
              if c["other_author"] == "human" and not c["self_factual"] and not c["other_factual"]]
        assert len(ff) == 2 * 886
        # GPT self: the llama file's human_false (Llama's false answer); Llama self: the untagged one (GPT's)
        want = [self_author] if self_author == "gpt35" else None
        assert all(by_pid[c["other_pid"]]["for_self"] == want for c in ff)
        other_file = {"gpt35": llama, "llama": gpt}[self_author]
        index = {q["qid"]: k for k, q in enumerate(questions)}
        assert all(by_pid[c["other_pid"]]["answer_in"] == other_file[index[c["qid"]]]["false_answer"].strip()
                   for c in ff)
        # first-source-wins gave identical answers in all 886 pairs; now only where the two models' false
        # answers coincide
        same = {c["qid"] for c in ff if by_pid[c["self_pid"]]["answer_in"] == by_pid[c["other_pid"]]["answer_in"]}
        assert len(same) == 25


def test_false_for_untagged_and_tagged_slots(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps([{"q": "Q?", "a": "Ann", "h": "Ann wrote.", "hf_m": "Bob wrote.", "m_wrong": "Bob",
                                 "hf_n": "Cy wrote.", "n_wrong": "Cy", "m": "By Ann.", "n": "Ann did."}]))
    src = {"file": str(path), "question": "q", "answer": "a", "passages": [
        {"author": "human", "text": "h", "false_text": "hf_m", "false_answer": "m_wrong", "false_for": ["n"]},
        {"author": "human", "false_text": "hf_n", "false_answer": "n_wrong", "false_for": "m"},
        {"author": "m", "text": "m", "false_answer": "m_wrong"},
        {"author": "n", "text": "n", "false_answer": "n_wrong"}]}
    _, passages, drops = import_sources("d", [src])
    assert not drops  # the second human entry has no `text`: no duplicate human true passage
    by_pid = {p["pid"]: p for p in passages}
    assert by_pid["d-0001:human:normal:F:for-n"]["answer_in"] == "Bob"
    assert by_pid["d-0001:human:normal:F:for-m"]["answer_in"] == "Cy"
    assert by_pid["d-0001:human:normal:T"]["for_self"] is None
    assert complete_questions(passages, ["human", "m", "n"]) == ["d-0001"]
    # without the human false passage for self n the question is incomplete
    assert complete_questions([p for p in passages if p["for_self"] != ["n"]], ["human", "m", "n"]) == []
    from authbench.studies.selfpref.requests import comparisons

    ff = [c for c in comparisons(["d-0001"], passages, "n", ["human"]) if not c["self_factual"] and not c["other_factual"]]
    assert {c["other_pid"] for c in ff} == {"d-0001:human:normal:F:for-n"}
    # an untagged false passage of the same slot is used by the selves no tag names, the tagged one by its own
    untagged = {**by_pid["d-0001:human:normal:F:for-n"], "pid": "d-0001:human:normal:F", "for_self": None}
    xs = [{**p, "author": "x", "pid": p["pid"].replace(":m:", ":x:")} for p in passages if p["author"] == "m"]
    both = passages + [untagged] + xs
    assert {c["other_pid"] for c in comparisons(["d-0001"], both, "n", ["human"]) if not c["other_factual"]} == {
        "d-0001:human:normal:F:for-n"}
    assert {c["other_pid"] for c in comparisons(["d-0001"], both, "x", ["human"]) if not c["other_factual"]} == {
        "d-0001:human:normal:F"}


def test_false_only_entry_needs_its_false_text(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps([{"q": "Q?", "a": "Ann", "wrong": "Bob"}]))
    src = {"file": str(path), "question": "q", "answer": "a",
           "passages": [{"author": "human", "false_text": "hf", "false_answer": "wrong"}]}
    with pytest.raises(ConfigError, match=r"passages.0.false_text: field 'hf' is in no record of the file\. "
                                          r"The file's fields: q, a, wrong"):
        import_sources("d", [src])
    src["passages"] = [{"author": "human", "false_answer": "wrong"}]
    with pytest.raises(ConfigError, match=r"passages.0: give 'text'"):
        import_sources("d", [src])
    src["passages"] = [{"author": "human", "false_text": "hf", "false_for": []}]
    with pytest.raises(ConfigError, match=r"'false_for' must be a non-empty list"):
        import_sources("d", [src])


def test_false_for_is_checked_against_the_authors():
    cfg = json.loads(json.dumps(CONFIG))
    passages = cfg["selfpref"]["datasets"]["nq"]["sources"][1]["passages"]
    assert passages[1]["false_for"] == ["gpt35"] and "text" not in passages[1]
    passages[1]["false_for"] = ["gpt-35"]
    with pytest.raises(ConfigError, match=r"false_for' names author\(s\) \['gpt-35'\]"):
        selfpref_cells(cfg)
    del passages[1]["false_text"]  # neither text nor false_text
    with pytest.raises(ConfigError, match=r"selfpref.datasets.nq.sources.1.passages.1"):
        validate_schema(cfg)


def test_identical_variants_drop_the_later_and_name_it(tmp_path, caplog):
    path = tmp_path / "style.json"
    path.write_text(json.dumps([
        {"q": "Q1?", "a": "Ann", "wrong": "Bob", "normal": "Ann, short.", "long": "Ann, long.", "qa": "Ann, long."},
        {"q": "Q2?", "a": "Ann", "wrong": "Bob", "normal": "Ann 2.", "long": "Ann 2, long.", "qa": "Ann 2, by QA."},
        {"q": "Q3?", "a": "Ann", "wrong": "Bob", "normal": "Ann 3.", "long": "Ann 3.", "qa": "Ann 3."},
    ]))
    src = {"file": str(path), "question": "q", "answer": "a", "passages": [
        {"author": "m", "variant": v, "text": v, "false_answer": "wrong"} for v in ("qa", "long", "normal")]}
    with caplog.at_level("WARNING", logger="authbench"):
        _, passages, drops = import_sources("d", [src])
    # kept: the first variant in (normal, long, qa) order, whatever the mapping's order
    assert drops == Counter({("duplicate_variant", "m"): 2 * 3})
    assert sorted(p["pid"] for p in passages) == sorted(
        ["d-0001:m:normal:T", "d-0001:m:normal:F", "d-0001:m:long:T", "d-0001:m:long:F",
         "d-0002:m:normal:T", "d-0002:m:normal:F", "d-0002:m:long:T", "d-0002:m:long:F",
         "d-0002:m:qa:T", "d-0002:m:qa:F", "d-0003:m:normal:T", "d-0003:m:normal:F"])
    text = caplog.text
    assert "d: 1 true and 1 false 'qa' passages of m are identical to its 'long' passage" in text
    assert "d: 1 true and 1 false 'long' passages of m are identical to its 'normal' passage" in text
    assert "d: 1 true and 1 false 'qa' passages of m are identical to its 'normal' passage" in text
    assert "duplicate_variant" in text
