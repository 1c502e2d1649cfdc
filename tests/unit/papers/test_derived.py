"""The published numbers that other published numbers determine (authbench.papers.derived_numbers):
each relation's count, hand-computed cases that agree and that do not, the rounding allowance, and the
disagreeing numbers equal to exactly the list in resources/published/README.md."""

import re
import shutil

import pytest
from authbench.errors import InputError
from authbench.papers import derived_numbers, load, paper_of, papers
from authbench.papers.derived import (DERIVED, DERIVED_COLUMNS, GRANULAR, REPEATED, fits_share, half_unit,
                                     nearest_share, printing_taken, share_of)
from authbench.papers.published import KEY, as_columns, load_text

DIRECTORY = paper_of("authoritybench").published.parent
PAPERS = {name: p.published.name for name, p in papers().items()}

AB, SP = "authoritybench", "selfpref"
WO, W = "wo_text", "w_text"

# relation -> (numbers recomputed, of them disagreeing)
COUNTS = {
    "t9_12_pair_rank": (2 * (5 * 2 + 5 * 2 + 5 * 3 + 5 * 3), 2 * 4),  # both places of 50 pairs; 4 pairs differ
    "t9_12_pair_score": (2 * 50, 2 * 3),
    "t8_bias": (4 * 2 * 3, 0),  # models x contexts x categories
    "t1_average": (3 * 5, 0),  # datasets x (3 knowledge levels, length, perplexity)
    "t1_knowledge_sum": (3 * 6 * 3, 0),  # datasets x (5 models + Average) x levels
    "t2_diff": (3 * 5 * 2 * 2, 2),  # datasets x evaluators x prompts x (TRUE, FALSE)
    "t2_human_repeat": (2 * 3 * 5 * 2 * 2, 0),  # both places x datasets x evaluators x prompts x (mean, sd)
    "t2_self_true_repeat": (2 * 3 * 5 * 2 * 2, 0),
    "t2_self_false_repeat": (2 * 3 * 5 * 2 * 2, 2 * 11 * 2),  # 11 evaluator x dataset x prompt cells, mean and sd
    "t3_aggregated": (15 * 3, 0),  # evaluator x dataset rows x metrics
    "t3_average": (7 * 3, 2),  # (6 author columns + Aggregated) x metrics
    # the FALSE Diffs again, from the appendix: Table 6/8 Human - Table 7/9 own column; the 11 Gemini/LLaMA cells
    # whose own mean disagrees with the appendix, and TriviaQA Mistral RAG (0.01 printed, 3.40 - 3.41 = -0.01)
    "t2_false_diff_appendix": (3 * 5 * 2, 12),
    "t3_granular": (5 * 3 * 2 * 2, 0),  # models x judges x contexts x difficulties: all even k/5000 (step 0.02)
    "t5_granular": (5 * 3 * 3 + 5, 5),  # models x strategies x k, + no_filter; 69.16 x2, 63.34, 71.76 x2
    "t1_granular": (5 * 3 * 3, 15),  # models x datasets x levels (not the Average rows)
}


def key(paper, table, model, judge, context, setting, metric):
    return (paper, table, model, judge, context, setting, metric)


@pytest.fixture(scope="module")
def derived():
    return derived_numbers()


def one(derived, relation, *k):
    rows = derived[(derived["relation"] == relation)
                   & (derived[list(KEY)].apply(tuple, axis=1) == key(*k))]
    assert len(rows) == 1, (relation, k)
    return rows.iloc[0]


def test_columns_and_counts_per_relation(derived):
    assert tuple(derived.columns) == DERIVED_COLUMNS
    counts = {rel: (len(g), int((~g["agrees"]).sum())) for rel, g in derived.groupby("relation")}
    assert counts == COUNTS
    assert len(derived) == 779 + 30 + 60 + 50 + 45 and int((~derived["agrees"]).sum()) == 62 + 12 + 5 + 15
    assert not derived.duplicated(list(KEY) + ["relation"]).any()
    assert set(derived["kind"]) == {DERIVED, REPEATED, GRANULAR}
    assert set(derived[derived["relation"].str.endswith("_granular")]["kind"]) == {GRANULAR}
    assert set(derived[derived["relation"].str.endswith("repeat") | derived["relation"].str.startswith("t9_12")]
               ["kind"]) == {REPEATED}


def test_keys_are_the_published_keys(derived):
    """Every row and every number it came from is a TSV key (same strings), and ``printed`` is its value."""
    published = as_columns(load()).set_index(list(KEY))["value"]  # the 11-column layout derived.tsv writes
    for row in derived.to_dict("records"):
        assert published[tuple(row[c] for c in KEY)] == row["printed"]
        assert all(source in published.index for source in row["from"])


def test_the_two_table2_diffs_that_disagree(derived):
    # MARCO GPT-3.5 normal TRUE: Human 3.77 - own TRUE 4.00 = -0.23; printed -0.13; allowance 3 x 0.005
    row = one(derived, "t2_diff", SP, 2, "GPT-3.5", "normal", "", "dataset=MARCO;author=self;passage=TRUE",
              "diff_h_minus_m")
    assert (row["printed"], row["recomputed"], row["tolerance"]) == pytest.approx((-0.13, -0.23, 0.015))
    assert not row["agrees"]
    assert row["from"] == (key(SP, 2, "GPT-3.5", "normal", "", "dataset=MARCO;author=Human", "mean_score"),
                           key(SP, 2, "GPT-3.5", "normal", "", "dataset=MARCO;author=self;passage=TRUE",
                               "mean_score"))
    # its FALSE Diff is right: 3.77 - 3.90 = -0.13
    row = one(derived, "t2_diff", SP, 2, "GPT-3.5", "normal", "", "dataset=MARCO;author=self;passage=FALSE",
              "diff_h_minus_m")
    assert row["recomputed"] == pytest.approx(-0.13) and row["agrees"]
    # TriviaQA Mistral RAG FALSE: 3.40 - 3.41 = -0.01; printed +0.01 (0.02 apart > 0.015)
    row = one(derived, "t2_diff", SP, 2, "Mistral", "rag", "", "dataset=TriviaQA;author=self;passage=FALSE",
              "diff_h_minus_m")
    assert (row["printed"], row["recomputed"]) == pytest.approx((0.01, -0.01)) and not row["agrees"]


@pytest.mark.parametrize("relation, k, recomputed, tolerance", [
    # NQ GPT-3.5 normal TRUE: 3.85 - 4.07 = -0.22 (printed -0.22)
    ("t2_diff", (SP, 2, "GPT-3.5", "normal", "", "dataset=NQ;author=self;passage=TRUE", "diff_h_minus_m"),
     -0.22, 0.015),
    # TriviaQA LLaMA RAG TRUE: 3.31 - 2.81 = 0.50, printed "0.5": 0.05 + 0.005 + 0.005
    ("t2_diff", (SP, 2, "LLaMA", "rag", "", "dataset=TriviaQA;author=self;passage=TRUE", "diff_h_minus_m"),
     0.50, 0.06),
    # NQ Gemini normal FALSE (Table 2's own means): 3.37 - 3.14 = 0.23
    ("t2_diff", (SP, 2, "Gemini", "normal", "", "dataset=NQ;author=self;passage=FALSE", "diff_h_minus_m"),
     0.23, 0.015),
    # Table 8 Qwen3-14B w/o .gov: 8.97 - 5.68 = 3.29, printed +3.28: 0.01 apart, within 0.015
    ("t8_bias", (AB, 8, "Qwen3-14B", "point", WO, "category=gov", "bias"), 3.29, 0.015),
    # Table 8 Llama-3-8B w/ social: 5.94 - 6.00 = -0.06
    ("t8_bias", (AB, 8, "Llama-3-8B-Instruct", "point", W, "category=social", "bias"), -0.06, 0.015),
    # Table 1 NQ Average No: (27.1 + 27.2 + 28.1 + 54.1 + 56.2) / 5 = 192.7 / 5 = 38.54; 5 x 0.05 / 5 + 0.005
    ("t1_average", (SP, 1, "Average", "", "", "dataset=NQ", "knowledge_no"), 38.54, 0.055),
    # TriviaQA Average No: (17.3 + 17 + 18.4 + 24 + 33.6) / 5 = 22.06; "17", "24" count 0.5: 1.15 / 5 + 0.005
    ("t1_average", (SP, 1, "Average", "", "", "dataset=TriviaQA", "knowledge_no"), 22.06, 0.235),
    # NQ Average perplexity: (24.53 + 30.25 + 41.63 + 28.81 + 30.16) / 5 = 155.38 / 5 = 31.076 (printed 31.08)
    ("t1_average", (SP, 1, "Average", "", "", "dataset=NQ", "perplexity"), 31.076, 0.01),
    # TriviaQA GPT-4o-mini Full: 100 - 17 - 10.2 = 72.8; 0.05 + 0.5 + 0.05
    ("t1_knowledge_sum", (SP, 1, "GPT-4o-mini", "", "", "dataset=TriviaQA", "knowledge_full"), 72.8, 0.6),
    # Table 3 GPT-3.5 NQ Aggregated Self: (41 + 43 + 46 + 43 + 44) / 5 = 217 / 5 = 43.4; 0.5 + 0.05
    ("t3_aggregated", (SP, 3, "GPT-3.5", "", "", "dataset=NQ;other=Aggregated", "self_preference"), 43.4, 0.55),
    # Table 3 Average Aggregated Self: the 15 Aggregated Self cells sum to 692.4; / 15 = 46.16 (printed 46.2)
    ("t3_average", (SP, 3, "Average", "", "", "other=Aggregated", "self_preference"), 46.16, 0.1),
    # Table 3 Average, GPT-3.5 column Self (12 rows, none for GPT-3.5 itself):
    # 48 47 52 | 49 44 49 | 46 46 45 | 48 46 47 -> 567 / 12 = 47.25 (printed 47)
    ("t3_average", (SP, 3, "Average", "", "", "other=GPT-3.5", "self_preference"), 47.25, 1.0),
    # Table 9 Qwen3-14B w/o PointScore_Pt 73.43 = Table 1 PairJudge PointScore rho 73.43
    ("t9_12_pair_score", (AB, 9, "Qwen3-14B", "PointScore_Pt", WO, "", "rho"), 73.43, 0.005),
    # ... and from Table 1's side
    ("t9_12_pair_score", (AB, 1, "Qwen3-14B", "pair_score", WO, "", "rho"), 73.43, 0.005),
    # Table 2 NQ GPT-3.5 normal Human 3.85 = Table 6's Human column
    ("t2_human_repeat", (SP, 2, "GPT-3.5", "normal", "", "dataset=NQ;author=Human", "mean_score"), 3.85, 0.005),
    # Table 2 RAG TriviaQA Gemini own FALSE 3.04 = Table 9 Gemini's own column (the one such cell that agrees)
    ("t2_self_false_repeat", (SP, 2, "Gemini", "rag", "", "dataset=TriviaQA;author=self;passage=FALSE",
                              "mean_score"), 3.04, 0.005),
])
def test_numbers_that_agree(derived, relation, k, recomputed, tolerance):
    row = one(derived, relation, *k)
    assert row["recomputed"] == pytest.approx(recomputed, abs=1e-9)
    assert row["tolerance"] == pytest.approx(tolerance, abs=1e-12)
    assert row["agrees"]


def test_numbers_printed_twice_that_differ(derived):
    # Table 11 Basketball Qwen3-8B PointScore_Pt 86.67 against Table 4's 86.70: 0.03 apart, allowance 0.005
    row = one(derived, "t9_12_pair_score", AB, 11, "Qwen3-8B", "PointScore_Pt", WO, "domain=basketball", "rho")
    assert (row["recomputed"], row["tolerance"], row["agrees"]) == (pytest.approx(86.70), 0.005, False)
    assert row["from"] == (key(AB, 4, "Qwen3-8B", "pair_score", WO, "domain=basketball", "rho"),)
    back = one(derived, "t9_12_pair_score", AB, 4, "Qwen3-8B", "pair_score", WO, "domain=basketball", "rho")
    assert (back["printed"], back["recomputed"], back["agrees"]) == (pytest.approx(86.70), pytest.approx(86.67), False)
    # Table 2 NQ Gemini normal own FALSE 3.14 against Table 7's Gemini column 3.41
    row = one(derived, "t2_self_false_repeat", SP, 2, "Gemini", "normal", "", "dataset=NQ;author=self;passage=FALSE",
              "mean_score")
    assert (row["printed"], row["recomputed"], row["agrees"]) == (pytest.approx(3.14), pytest.approx(3.41), False)
    assert row["from"] == (key(SP, 7, "Gemini", "normal", "", "dataset=NQ;author=Gemini;passage=FALSE",
                               "mean_score"),)
    # 0.97 against 0.98 (NQ LLaMA RAG own FALSE sd, Table 9): one number rounded twice to 2 decimals cannot differ
    row = one(derived, "t2_self_false_repeat", SP, 2, "LLaMA", "rag", "", "dataset=NQ;author=self;passage=FALSE",
              "sd_score")
    assert (row["printed"], row["recomputed"], row["agrees"]) == (pytest.approx(0.97), pytest.approx(0.98), False)


def test_table3_average_aggregated_fits_neither_reading(derived):
    """Order 58.8 and Factual 82.7: the mean of the 15 Aggregated cells is 866.6 / 15 = 57.773 and
    1225.4 / 15 = 81.693; the mean of the Average row's six per-author cells is (56 + 58 + 59 + 57 + 61 + 56) / 6
    = 57.83 and (81 + 82 + 80 + 82 + 83 + 82) / 6 = 81.67, also beyond 0.5 + 0.05."""
    row = one(derived, "t3_average", SP, 3, "Average", "", "", "other=Aggregated", "order_preference")
    assert (row["printed"], row["recomputed"], row["agrees"]) == (58.8, pytest.approx(866.6 / 15), False)
    row = one(derived, "t3_average", SP, 3, "Average", "", "", "other=Aggregated", "factual_preference")
    assert (row["printed"], row["recomputed"], row["agrees"]) == (82.7, pytest.approx(1225.4 / 15), False)
    published = as_columns(load(SP))
    average = published[(published["table"] == 3) & (published["model"] == "Average")]
    for metric, printed in (("order_preference", 58.8), ("factual_preference", 82.7)):
        cells = average[(average["metric"] == metric) & (average["setting"] != "other=Aggregated")]["value"]
        assert len(cells) == 6
        assert abs(cells.mean() - printed) > 0.5 + 0.05
    cells = average[(average["metric"] == "self_preference") & (average["setting"] != "other=Aggregated")]["value"]
    assert cells.mean() == pytest.approx(278 / 6)  # 46.33 against 46.2: Self fits this reading too


def _readme_mismatches():
    """The rows of the README's table of disagreeing numbers: (key, relation, printed, recomputed)."""
    text = (DIRECTORY / "README.md").read_text()
    table = text.split("| paper | table | model | judge | context | setting | metric | printed | recomputed |")[1]
    rows = []
    for line in table.split("\n")[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        k = (cells[0], int(cells[1]), *cells[2:7])
        rows.append((k, cells[9], float(cells[7]), float(cells[8])))
    return rows


def test_the_disagreeing_numbers_are_exactly_the_readme_list(derived):
    """A new mismatch, or one that goes away (a fixed transcription), fails here until the README says so.
    The README lists a pair printed twice once (its Tables 9-12 / Table 2 side); derived_numbers from both."""
    listed = _readme_mismatches()
    assert len(listed) == 33 + 12 + 5 + 15
    expected = set()
    for k, relation, printed, recomputed in listed:
        row = one(derived, relation, *k)
        assert not row["agrees"], k
        assert row["printed"] == pytest.approx(printed, abs=1e-9)
        assert row["recomputed"] == pytest.approx(recomputed, abs=0.005)
        expected.add((k, relation))
        if row["kind"] == REPEATED:
            expected.add((row["from"][0], relation))
    disagreeing = derived[~derived["agrees"]]
    found = {(tuple(r[c] for c in KEY), r["relation"]) for r in disagreeing.to_dict("records")}
    assert found == expected


# the three FALSE Diffs whose sign the appendix changes: (evaluator, dataset, printed, Table 6 Human, Table 7 own)
SIGN_CHANGES = [("Gemini", "NQ", 0.23, 3.37, 3.41), ("LLaMA", "NQ", -0.20, 3.40, 3.39),
                ("LLaMA", "MARCO", -0.05, 3.34, 3.28)]


def test_table2_false_diffs_recomputed_from_the_appendix(derived):
    rows = derived[derived["relation"] == "t2_false_diff_appendix"]
    changed = rows[(~rows["agrees"]) & (rows["printed"] * rows["recomputed"] <= 0)]
    normal = changed[changed["judge"] == "normal"]
    assert sorted(zip(normal["model"], normal["setting"])) == sorted(
        (m, f"dataset={d};author=self;passage=FALSE") for m, d, *_ in SIGN_CHANGES)
    # the fourth sign change is the RAG TriviaQA Mistral Diff that already disagrees with its own row (t2_diff)
    assert list(zip(changed[changed["judge"] == "rag"]["model"], changed[changed["judge"] == "rag"]["setting"])) == [
        ("Mistral", "dataset=TriviaQA;author=self;passage=FALSE")]
    for model, dataset, printed, human, own in SIGN_CHANGES:
        row = one(derived, "t2_false_diff_appendix", SP, 2, model, "normal", "",
                  f"dataset={dataset};author=self;passage=FALSE", "diff_h_minus_m")
        assert (row["printed"], row["recomputed"]) == pytest.approx((printed, human - own))
        assert row["from"] == (key(SP, 6, model, "normal", "", f"dataset={dataset};author=Human;passage=TRUE",
                                   "mean_score"),
                               key(SP, 7, model, "normal", "", f"dataset={dataset};author={model};passage=FALSE",
                                   "mean_score"))
    # a Diff whose own mean agrees with the appendix agrees here too: NQ GPT-3.5 normal 3.85 - 3.99 = -0.14
    row = one(derived, "t2_false_diff_appendix", SP, 2, "GPT-3.5", "normal", "",
              "dataset=NQ;author=self;passage=FALSE", "diff_h_minus_m")
    assert row["recomputed"] == pytest.approx(-0.14) and row["agrees"]
    # RAG: TriviaQA LLaMA 0.28 printed, Table 8 Human 3.31 - Table 9 LLaMA 2.58 = 0.73
    row = one(derived, "t2_false_diff_appendix", SP, 2, "LLaMA", "rag", "",
              "dataset=TriviaQA;author=self;passage=FALSE", "diff_h_minus_m")
    assert (row["printed"], row["recomputed"], row["agrees"]) == (0.28, pytest.approx(3.31 - 2.58), False)


@pytest.mark.parametrize("text, n, fits", [
    ("71.67", 120, True), ("71.76", 120, False),  # 86/120 = 71.666..., 71.76 lies between 86 and 87 / 120
    ("63.33", 120, True), ("63.34", 120, False), ("69.17", 120, True), ("69.16", 120, False),
    ("53.33", 120, True), ("100.00", 120, True), ("0.00", 120, True),
    ("51.4", 700, True), ("51.5", 700, False),  # 360/700 = 51.43, 361/700 = 51.57
    ("27.2", 800, False),  # 218/800 = 27.25 rounds half up to 27.3; 217/800 = 27.125 to 27.1
    ("27.3", 800, True), ("17", 700, True),  # 119/700 = 17.0
])
def test_fits_share(text, n, fits):
    assert fits_share(text, n) is fits


def test_nearest_share_and_a_bad_n():
    assert nearest_share(71.76, 120) == (86, pytest.approx(71.6667, abs=1e-4))
    assert nearest_share(51.5, 700) == (360, pytest.approx(51.4286, abs=1e-4))
    with pytest.raises(ValueError, match="expected a positive count"):
        fits_share("50", 0)


def test_table1_knowledge_levels_fit_no_count_below_911():
    """15 of the 45 knowledge percentages are no k/700; the smallest n that gives all 45 is 911 (1,000, the
    Limitations' "approximately 1,000" entries, fits trivially: every one-decimal percentage is k/1000)."""
    published = load_text(SP)
    levels = published[(published["table"] == 1) & (published["model"] != "Average")
                       & published["metric"].str.startswith("knowledge_")]
    texts = list(levels["value"])  # as printed: "51.5", "17"
    assert len(texts) == 45 and sum(not fits_share(t, 700) for t in texts) == 15
    assert all(fits_share(t, 911) for t in texts) and all(fits_share(t, 1000) for t in texts)
    assert [n for n in range(700, 911) if all(fits_share(t, n) for t in texts)] == []


def test_which_printing_a_recomputed_verdict_takes():
    taken, why = printing_taken("t9_12_pair_rank", (AB, 1, "Qwen3-8B", "pair_rank", WO, "", "rho"))
    assert taken and "running text backs Table 1" in why
    assert not printing_taken("t9_12_pair_rank", (AB, 9, "Qwen3-8B", "PairRank", WO, "", "rho"))[0]
    assert printing_taken("t2_self_false_repeat", (SP, 7, "Gemini", "normal", "",
                                                   "dataset=NQ;author=Gemini;passage=FALSE", "mean_score"))[0]
    assert not printing_taken("t2_self_false_repeat", (SP, 2, "Gemini", "normal", "",
                                                       "dataset=NQ;author=self;passage=FALSE", "mean_score"))[0]
    with pytest.raises(ValueError, match="not a relation of numbers printed twice"):
        printing_taken("t2_diff", (SP, 2, "Gemini", "normal", "", "", "diff_h_minus_m"))


def test_each_paper_declares_its_shares_and_relations_in_its_module(tmp_path):
    assert share_of(AB, 5)[0] == 120 and share_of(AB, "3")[0] == 5000 and share_of(SP, 1)[0] == 700
    with pytest.raises(ValueError, match=r"paper 'selfpref' table 2 prints no shares of a count; .*: 1$"):
        share_of(SP, 2)
    assert paper_of(AB).derived == "authbench.studies.authority.derived"
    from authbench.errors import ConfigError
    from authbench.papers.registry import shipped

    assert [p.name for p in shipped()] == [AB, SP]  # every resources/papers/<name>.yaml, in name order
    (tmp_path / "bad.yaml").write_text("title: Bad\npublished: x.tsv\nderivd: m\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: unknown key 'derivd'; no 'claims'; expected the keys title, "):
        shipped(tmp_path)
    (tmp_path / "bad.yaml").write_text("- a list\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: expected a mapping of title, published"):
        shipped(tmp_path)


def test_half_unit():
    assert [half_unit(t) for t in ("3.28", "0.5", "17", "-0.00", "60.00", "10000")] == \
        pytest.approx([0.005, 0.05, 0.5, 0.005, 0.005, 0.5])


def test_one_paper():
    ab = derived_numbers(AB)
    assert set(ab["paper"]) == {AB} and len(ab) == 224 + 60 + 50
    assert set(derived_numbers(SP)["relation"]) == {r for r in COUNTS if not re.match("t(3_granular|5_|8_|9_12_)", r)}
    with pytest.raises(ValueError, match="unknown paper"):
        derived_numbers("authbench")


def test_a_missing_number_is_named(tmp_path):
    for name in PAPERS.values():
        shutil.copy(DIRECTORY / name, tmp_path / name)
    path = tmp_path / PAPERS[SP]
    lines = path.read_text().split("\n")
    gone = "selfpref\t7\tGemini\tnormal\tNQ\tGemini\tFALSE\t\tmean_score\t"  # the file's own parts
    kept = [line for line in lines if not line.startswith(gone)]
    assert len(kept) == len(lines) - 1
    path.write_text("\n".join(kept))
    message = (r"the number selfpref table=7 model=Gemini prompt=normal author=Gemini dataset=NQ passage=FALSE "
               r"metric=mean_score is missing; expected it for the relation 't2_false_diff_appendix'")
    with pytest.raises(InputError, match=message):
        derived_numbers(SP, directory=tmp_path)
