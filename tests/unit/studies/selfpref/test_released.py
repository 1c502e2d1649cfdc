"""Knowledge matching (exact | lowercase), the four released knowledge files
re-derived and checked, the released GPT-2 perplexities read as data, and their scorecard rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from authbench.errors import InputError

ROOT = Path(__file__).resolve().parents[4]
DATA = ROOT / "resources/data/selfpref"
# the stored distributions (shared/data/README.md)
RELEASED = {
    "nq_knowledge_gpt35.json": [356, 97, 51, 56, 89, 351],
    "nq_knowledge_llama2.json": [524, 48, 31, 29, 39, 329],
    "marco_knowledge_gpt35.json": [478, 66, 41, 37, 47, 331],
    "marco_knowledge_llama2.json": [564, 51, 27, 33, 35, 290],
}


# --- matching --------------------------------------------------------------------------------

def test_exact_and_lowercase_differ_on_case_only():
    from authbench.studies.selfpref.answers import answer_matches, match_lowercase

    assert not answer_matches("paris", "Paris", lowercase=match_lowercase("exact"))
    assert answer_matches("paris", "Paris", lowercase=match_lowercase("lowercase"))
    # word sets too: "the Saint Lawrence river" holds every word of the gold only after lower-casing
    assert not answer_matches("the saint lawrence river", "Saint Lawrence River")
    assert answer_matches("the saint lawrence river", "Saint Lawrence River", lowercase=True)
    # what neither rule accepts
    assert not answer_matches("London", "Paris", lowercase=True)
    with pytest.raises(ValueError, match="exact"):
        match_lowercase("casefold")


def test_knowledge_rows_grade_under_the_configured_rule():
    from authbench.studies.selfpref.requests import knowledge_rows

    questions = [{"qid": "q1", "answer": "Linda Davis"}]
    replies = [["linda davis"], ["Linda Davis."], ["Reba"]]
    _, exact = knowledge_rows(questions, replies, "exact")
    _, lower = knowledge_rows(questions, replies, "lowercase")
    assert (exact[0]["level"], exact[0]["class"]) == (1, "partial")
    assert (lower[0]["level"], lower[0]["class"]) == (2, "partial")


# --- the released knowledge files -------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(RELEASED))
def test_every_released_knowledge_file_rederives_its_stored_distribution(name):
    from authbench.studies.selfpref.knowledge import released_knowledge

    derived = released_knowledge(DATA / name, "exact")
    assert derived["distribution"] == RELEASED[name] == derived["stored_distribution"]
    assert derived["levels"] == derived["stored_levels"] and len(derived["levels"]) == 1000
    expected = "consecutive ground_truth runs" if name == "nq_knowledge_gpt35.json" else "consecutive groups of 5"
    assert derived["grouping"]["method"] == expected


@pytest.mark.parametrize("name", ["nq_knowledge_llama2.json", "marco_knowledge_gpt35.json",
                                  "marco_knowledge_llama2.json"])
def test_files_recorded_after_lower_casing_rederive_under_both_rules(name):
    from authbench.studies.selfpref.knowledge import released_knowledge

    assert released_knowledge(DATA / name, "lowercase")["distribution"] == RELEASED[name]


def test_nq_gpt35_file_under_lowercase_is_a_named_error():
    """The NQ GPT-3.5 file was made without lower-casing: lowercase changes 40 of its levels."""
    from authbench.studies.selfpref.knowledge import rederive_knowledge, released_knowledge

    derived = rederive_knowledge(DATA / "nq_knowledge_gpt35.json", match="lowercase")
    assert len(derived["level_mismatches"]) == 40
    with pytest.raises(InputError, match=r"nq_knowledge_gpt35\.json: question \d+: field 'knowledge_level': "
                                         r"expected \d .*match lowercase.*40 question\(s\) differ.*set match: exact"):
        released_knowledge(DATA / "nq_knowledge_gpt35.json", "lowercase")


def _records(golds_and_answers):
    return [{"ground_truth": g, "AI_answer": a} for g, a in golds_and_answers]


def _write(tmp_path, obj):
    path = tmp_path / "knowledge.json"
    path.write_text(json.dumps(obj))
    return path


def _hand_file():
    """Two questions with the same gold (adjacent), 5 tries each: levels 5 and 0 (groups of 5 keep them apart,
    consecutive runs could not)."""
    recs = _records([("paris", "paris")] * 5 + [("paris", "rome")] * 5)
    return {"knowledge_level": [5, 0], "distribution": [1, 0, 0, 0, 0, 1], "ai_answers": recs}


def test_hand_file_in_groups_of_five(tmp_path):
    from authbench.studies.selfpref.knowledge import group_fixed, released_knowledge

    with pytest.raises(InputError, match=r"ai_answers\[7\]: field 'ground_truth': expected 'paris' \(question 1's "
                                         r"group of 5\), got 'rome'"):
        group_fixed(_records([("paris", "x")] * 7 + [("rome", "x")] * 3))
    with pytest.raises(InputError, match="9 records, expected a multiple of 5"):
        group_fixed(_records([("paris", "x")] * 9))
    derived = released_knowledge(_write(tmp_path, _hand_file()), "exact")
    assert derived["levels"] == [5, 0] and derived["distribution"] == [1, 0, 0, 0, 0, 1]


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("distribution"), r"field 'distribution' is missing; expected a list of 6 counts"),
    (lambda d: d.pop("knowledge_level"), r"field 'knowledge_level' is missing; expected a list of 2 levels"),
    (lambda d: d.update(distribution=[1, 0, 0, 0, 1]), r"field 'distribution': 5 counts, expected 6"),
    (lambda d: d.update(knowledge_level=[5, 0, 0], distribution=[2, 0, 0, 0, 0, 1]),
     r"field 'knowledge_level': 3 levels, expected 2"),
    (lambda d: d.update(distribution=[0, 1, 0, 0, 0, 1]),
     r"field 'distribution': \[0, 1, 0, 0, 0, 1\], expected \[1, 0, 0, 0, 0, 1\]"),
    (lambda d: d.update(knowledge_level=[5, 1], distribution=[0, 1, 0, 0, 0, 1]),
     r"question 1: field 'knowledge_level': expected 0 \(re-derived"),
    (lambda d: d.update(knowledge_level=[5, 7]), r"question 1: field 'knowledge_level': expected a level 0..5"),
    # not groups of 5 of one gold: grouped by runs, where the run of 'rome' is too short
    (lambda d: d["ai_answers"][7].update(ground_truth="rome"),
     r"ai_answers\[7\]: run of 1 answers for ground truth 'rome', expected at least 5"),
])
def test_malformed_released_knowledge_is_a_named_error(tmp_path, change, message):
    from authbench.studies.selfpref.knowledge import released_knowledge

    data = _hand_file()
    change(data)
    with pytest.raises(InputError, match=message) as err:
        released_knowledge(_write(tmp_path, data), "exact")
    assert str(err.value).startswith(str(tmp_path / "knowledge.json"))


# --- the released perplexities -------------------------------------------------------------------

@pytest.mark.parametrize("name, means", [("nq_perplexity_gpt2.json", (29.17, 24.46, 21.99)),
                                         ("marco_perplexity_gpt2.json", (36.12, 24.72, 19.44))])
def test_released_perplexity_means_are_the_readmes(name, means):
    from authbench.studies.selfpref.released import read_released_perplexity, released_means

    values = read_released_perplexity(DATA / name, {"human": "human", "gpt": "gpt35", "llama": "llama"})
    assert {a: len(v) for a, v in values.items()} == {"human": 1000, "gpt35": 1000, "llama": 1000}
    got = released_means(values)
    assert tuple(round(got[a], 2) for a in ("human", "gpt35", "llama")) == means


def test_released_perplexity_bad_input(tmp_path):
    from authbench.studies.selfpref.released import read_released_perplexity

    path = tmp_path / "ppl.json"
    path.write_text(json.dumps({"human": [10.0, 12.0], "gpt": [9.0, "x"]}))
    with pytest.raises(InputError, match=r"key 'llama' \(author llama\) is missing; expected one of the file's keys"):
        read_released_perplexity(path, {"llama": "llama"})
    with pytest.raises(InputError, match=r"ppl\.json: key 'gpt', value 1: expected a positive finite number"):
        read_released_perplexity(path, {"gpt": "gpt35"})
    path.write_text("[1, 2]")
    with pytest.raises(InputError, match="expected a JSON object of perplexity lists, got list"):
        read_released_perplexity(path, {"gpt": "gpt35"})


def test_per_passage_comparison_only_for_gpt2_in_a_known_order():
    from authbench.studies.selfpref.released import per_passage
    from scipy.stats import pearsonr, spearmanr

    released = {"gpt35": [10.0, 20.0, 30.0, 40.0]}
    ours = [{"pid": f"q{i}:gpt35:normal:T", "perplexity": v} for i, v in enumerate([11.0, 19.0, 33.0, 38.0])]
    qids = ["q0", "q1", "q2", "q3"]
    unknown = per_passage(released, ours, qids, "unknown", "openai-community/gpt2")[0]
    assert unknown["status"].startswith("not compared: the released list's passage order is unknown")
    other = per_passage(released, ours, qids, "questions", "google/gemma-3-270m")[0]
    assert other["status"] == "not compared: our perplexity model (google/gemma-3-270m) is not GPT-2"
    row = per_passage(released, ours, qids, "questions", "openai-community/gpt2")[0]
    assert row["status"] == "compared" and row["n"] == 4
    assert row["mean_abs_diff"] == pytest.approx((1 + 1 + 3 + 2) / 4)
    assert row["pearson"] == pytest.approx(pearsonr([10, 20, 30, 40], [11, 19, 33, 38])[0])
    assert row["spearman"] == pytest.approx(spearmanr([10, 20, 30, 40], [11, 19, 33, 38])[0])


def test_table1_shows_the_released_column_beside_ours():
    from authbench.studies.selfpref.passage_tables import table1

    passages = [{"pid": f"q{i}:{a}:normal:T", "qid": f"q{i}", "author": a, "variant": "normal", "factual": True,
                 "text": "w " * 10} for i in range(2) for a in ("human", "gpt35")]
    spec = table1({}, passages, [], "gemma3-270m", None, {"human": [30.0, 28.0], "gpt35": [20.0, 25.0]})
    col = next(c for c in spec.entries.columns if "PPL (released GPT-2)" in str(c))
    cells = {str(k): v for k, v in spec.entries[col].items()}
    assert any("gpt35" in k and v == "22.50" for k, v in cells.items())
    assert any("Human" in k and v == "29.00" for k, v in cells.items())
    assert "released GPT-2 perplexities" in spec.caption
    without = table1({}, passages, [], "gemma3-270m", None)
    assert not any("released" in str(c) for c in without.entries.columns)


# --- scorecard rows -------------------------------------------------------------------------------

def test_released_runs_are_data_rows_with_their_delta():
    from authbench.studies.scorecard import Coverage, compare
    from authbench.studies.selfpref.keyed import selfpref_keyed, selfpref_reason

    levels = {"gpt35": [{"qid": f"q{i}", "level": lv, "class": c} for i, (lv, c) in
                        enumerate([(0, "no")] * 356 + [(2, "partial")] * 293 + [(5, "full")] * 351)],
              "llama": ([{"qid": None, "level": 0, "class": "no"}] * 2
                        + [{"qid": None, "level": 5, "class": "full"}] * 2)}
    released_ppl = {"human": [29.0], "gpt35": [24.0, 25.0], "llama": [22.0]}
    files = {"knowledge": {"gpt35": "resources/data/selfpref/nq_knowledge_gpt35.json",
                           "llama": "resources/data/selfpref/nq_knowledge_llama2.json"},
             "perplexity": "resources/data/selfpref/nq_perplexity_gpt2.json"}
    rows = selfpref_keyed("nq", knowledge=levels, passages=[], summary=[], rates=[], units={},
                          self_map={"gemma3-270m": "gpt35"}, names={}, run_models=[], released=["gpt35", "llama"],
                          released_perplexity=released_ppl, files=files)
    coverage = Coverage({}, datasets=("NQ",))
    hit, miss = compare("selfpref", (1,), rows, lambda r: selfpref_reason(r, coverage))
    assert set(hit["kind"]) == {"data"}
    know = hit[(hit["model"] == "GPT-3.5") & (hit["metric"] == "knowledge_no")].iloc[0]
    assert know["ours"] == "released run: nq_knowledge_gpt35.json"
    assert know["reproduced"] == pytest.approx(35.6) and know["delta"] == pytest.approx(35.6 - 27.1)
    llama = hit[(hit["model"] == "LLaMA") & (hit["metric"] == "knowledge_full")].iloc[0]
    assert llama["reproduced"] == pytest.approx(50.0) and "LLaMA3" in llama["scope"]
    ppl = hit[(hit["model"] == "GPT-3.5") & (hit["metric"] == "perplexity")].iloc[0]
    assert ppl["reproduced"] == pytest.approx(24.5) and ppl["delta"] == pytest.approx(24.5 - 24.53)
    assert ppl["ours"].startswith("released run: nq_perplexity_gpt2.json")
    lppl = hit[(hit["model"] == "LLaMA") & (hit["metric"] == "perplexity")].iloc[0]
    assert lppl["reproduced"] == pytest.approx(22.0) and "Llama-2-70B-chat" in lppl["scope"]
    assert not any(hit["model"] == "Human")  # the paper's Table 1 has no human row
    assert not hit["delta"].isna().any()
