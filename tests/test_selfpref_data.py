"""Self-preference passage sets: the config mapping (real NQ files and a
dataset in another schema), drops, substitution and the question sample's
completeness rule."""

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from authbench.config import check_config, selfpref_plan, validate_schema
from authbench.errors import ConfigError, InputError
from authbench.studies.selfpref.data import complete_questions, drop_rows, import_sources, sample_questions, substitute

ROOT = Path(__file__).resolve().parents[1]
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
    assert counts["human", "normal", True] == counts["human", "normal", False] == 1000
    # the release's failure sentence: 48 GPT-3.5 and 92 Llama items, true and false passage each
    assert drops["generation_failed", "gpt35"] == 96 and drops["generation_failed", "llama"] == 184
    assert counts["gpt35", "normal", True] == 1000 - 48 and counts["llama", "normal", True] == 1000 - 92
    assert counts["gpt35", "long", True] == counts["gpt35", "qa", True] == 100
    assert len(passages) == sum(counts.values()) == 6516
    assert all(p["answer_in"] in p["text"] for p in passages if p["author"] != "human" or p["factual"])
    assert len(complete_questions(passages, ["human", "gpt35", "llama"])) == 886
    assert len({p["pid"] for p in passages}) == len(passages)


def test_drop_rows_list_every_reason_per_author(nq):
    rows = drop_rows(nq[2])
    assert {(r["reason"], r["author"]) for r in rows if r["count"]} == {
        ("generation_failed", "gpt35"), ("generation_failed", "llama"), ("false_answer_is_gold", "llama")}
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
    assert selfpref_plan(cfg).datasets == ["nq", "other"]
    cfg["selfpref"]["datasets"]["other"]["sources"][0]["passages"][0]["variant"] = "poem"
    with pytest.raises(ConfigError, match=r"selfpref.datasets.other.sources.0.passages.0.variant"):
        validate_schema(cfg)


def test_self_author_must_be_an_author():
    cfg = json.loads(json.dumps(CONFIG))
    cfg["selfpref"]["self"] = {"gemma3-270m": "gemma"}
    with pytest.raises(ConfigError, match=r"'selfpref.self' maps evaluators to author\(s\) \['gemma'\]"):
        selfpref_plan(cfg)


def test_missing_field_names_file_record_field(tmp_path):
    sources = _write_other(tmp_path, [{"query": "Q?", "gold": "A", "doc": "A.", "bot_doc": 5, "bot_wrong": "B",
                                       "bot_long": "A"}])
    with pytest.raises(InputError) as err:
        import_sources("other", sources)
    assert "other.jsonl: line 1: field 'bot_doc': expected a string, got 5" in str(err.value)


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
    with pytest.raises(InputError, match=r"imported.jsonl: only 2 questions have a true and a false passage"):
        sample_questions(imported, generated, ["human", "m"], 3, 0, 13, "d", "imported.jsonl")
    alone, _ = sample_questions(imported, [], ["human"], 2, 0, 13, "d", "imported.jsonl")
    with_other, _ = sample_questions(imported, generated, ["human"], 2, 0, 13, "d", "imported.jsonl")
    assert alone["main"] == with_other["main"]


def test_complete_questions_need_true_and_false_of_every_author():
    rows = [{"qid": "q1", "author": a, "variant": "normal", "factual": f} for a in ("human", "m") for f in (True, False)]
    rows += [{"qid": "q2", "author": "human", "variant": "normal", "factual": f} for f in (True, False)]
    rows += [{"qid": "q2", "author": "m", "variant": "normal", "factual": True},
             {"qid": "q2", "author": "m", "variant": "long", "factual": False}]
    assert complete_questions(rows, ["human", "m"]) == ["q1"]


def _shipped(tmp_path, questions):
    from types import SimpleNamespace

    from authbench.cli.selfpref import cmd_shipped_knowledge
    from authbench.records import write_jsonl

    write_jsonl(questions, tmp_path / "questions.jsonl")
    args = SimpleNamespace(source=str(ROOT / NQ["knowledge"]["gpt35"]), questions=str(tmp_path / "questions.jsonl"),
                           levels=str(tmp_path / "levels.jsonl"), check=str(tmp_path / "check.tsv"))
    cmd_shipped_knowledge(args, {})
    return args


def test_shipped_knowledge_levels_align_with_imported_questions(tmp_path, nq):
    from authbench.records import read_jsonl

    args = _shipped(tmp_path, nq[0])
    levels = read_jsonl(args.levels)
    assert len(levels) == 1000 and levels[0]["qid"] == "nq-0001"
    assert [sum(lv["level"] == k for lv in levels) for k in range(6)] == [356, 97, 51, 56, 89, 351]
    assert "level_mismatches_vs_file\t0" in Path(args.check).read_text()


def test_shipped_knowledge_in_another_order_is_refused(tmp_path, nq):
    shuffled = [nq[0][1], nq[0][0], *nq[0][2:]]
    with pytest.raises(InputError, match=r"question 0: stored ground_truth 'Linda Davis' is not the gold answer"):
        _shipped(tmp_path, shuffled)
