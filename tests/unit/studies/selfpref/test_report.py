"""Tests for the self-preference report: its input rows and rates (selfpref.rows), Tables 1-9 and the
perplexity tests (selfpref.passage_tables, score_tables, preference_tables, table_common), Figure 3
(selfpref.figures) and the report folder (selfpref.report)."""

from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd
import pytest
from authbench.errors import InputError
from authbench.render.table_writers import write_table
from authbench.stats import anova_tukey
from authbench.studies.selfpref import figures as FG
from authbench.studies.selfpref import passage_tables as PT
from authbench.studies.selfpref import preference_tables as PF
from authbench.studies.selfpref import report as R
from authbench.studies.selfpref import rows as RW
from authbench.studies.selfpref import score_tables as ST
from authbench.studies.selfpref import table_common as TC
from scipy import stats

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------
# fixtures: hand-made rows
# --------------------------------------------------------------------------
def _rr(author, factual, score, prompt="normal", evaluator="E", variant="normal", qid="q"):
    return {"evaluator": evaluator, "pid": f"{author}-{factual}-{score}-{qid}", "qid": qid, "author": author,
            "variant": variant, "factual": factual, "prompt": prompt, "score": score,
            "status": "ok" if score is not None else "no_number"}


def rerank_rows():
    # question q<i> scored for every author (the paired tests pair them)
    rows = [_rr("human", True, s, qid=f"q{i}") for i, s in enumerate((4, 5, 5, 4, None))]
    rows += [_rr("gpt35", True, s, qid=f"q{i}") for i, s in enumerate((1, 2, 1, 2))]
    rows += [_rr("gpt35", False, s, qid=f"q{i}") for i, s in enumerate((5, 4, 4, 5))]
    rows += [_rr("llama", True, s, qid=f"q{i}") for i, s in enumerate((3, 3))]
    rows += [_rr("human", True, 3, prompt="rag")]
    rows += [_rr("human", False, s) for s in (2, 3)]
    rows += [_rr("gpt35", True, 5, variant="long")]  # not in the normal-variant tables
    return rows


def _g(other, sf, of, order, chosen, status="ok", knowledge=None, variant="normal", evaluator="E", own="gpt35"):
    return {"request_id": "r", "qid": "q", "evaluator": evaluator, "self_author": own, "other_author": other,
            "self_factual": sf, "other_factual": of, "order": order, "variant": variant, "text": "",
            "chosen": chosen, "method": None, "status": status, "knowledge": knowledge}


T_, F_ = True, False


def gen_rows():
    return [
        # vs human
        _g("human", T_, T_, "self_first", "self", knowledge="no"),        # 1 self, first
        _g("human", T_, T_, "other_first", "self", knowledge="no"),       # 2 self, second
        _g("human", T_, F_, "self_first", "other", knowledge="full"),     # 3 other(first? no), false chosen
        _g("human", F_, T_, "other_first", "other", knowledge="full"),    # 4 other shown first, true chosen
        _g("human", F_, F_, "self_first", None, status="ambiguous_both"),  # 5 not ok
        _g("human", T_, F_, "other_first", "self", knowledge="full"),     # 6 self (second), true chosen
        _g("human", T_, T_, "self_first", None, status="ok"),             # 7 ok without a choice
        # vs llama
        _g("llama", F_, T_, "self_first", "self", knowledge="partial"),   # 8 self first, false chosen
        _g("llama", F_, F_, "other_first", "other", knowledge="partial"),  # 9 other shown first
        _g("llama", T_, T_, "self_first", None, status="no_index"),       # 10 not ok
        # other variants: never in the normal-variant rates
        _g("human", T_, T_, "self_first", "other", variant="qa"),
    ]


def _rate(rates, other):
    (hit,) = [r for r in rates if r["other_author"] == other]
    return hit


# --------------------------------------------------------------------------
# reranking
# --------------------------------------------------------------------------
def test_rerank_summary_by_hand():
    out = RW.rerank_summary(rerank_rows())
    key = {(r["prompt"], r["variant"], r["factual"], r["author"]): r for r in out}
    h = key[("normal", "normal", True, "human")]
    assert (h["n_rows"], h["n"], h["failures"]) == (5, 4, 1)
    assert h["mean"] == pytest.approx(4.5)
    assert h["std"] == pytest.approx(math.sqrt(1 / 3))  # sample std of 4, 5, 5, 4
    g = key[("normal", "normal", False, "gpt35")]
    assert g["mean"] == pytest.approx(4.5) and g["failures"] == 0
    ll = key[("normal", "normal", True, "llama")]
    assert ll["std"] == 0.0
    one = key[("rag", "normal", True, "human")]
    assert one["n"] == 1 and one["mean"] == 3.0 and math.isnan(one["std"])
    assert key[("normal", "long", True, "gpt35")]["n"] == 1
    # order: human first within a (prompt, variant, factual) block, TRUE before FALSE
    first = [r for r in out if r["prompt"] == "normal" and r["variant"] == "normal"]
    assert [(r["factual"], r["author"]) for r in first] == [
        (True, "human"), (True, "gpt35"), (True, "llama"), (False, "human"), (False, "gpt35")]


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy on the constant [3, 3]
def test_table2_layout_values_and_daggers():
    spec = ST.table2(rerank_rows(), {"E": "gpt35"})
    assert list(spec.entries.index) == [("E", "gpt35 (self)"), ("E", "llama")]
    assert list(spec.entries.index.names) == ["Evaluator", "Model"]
    assert list(spec.entries.columns[:5]) == [
        ("Normal Setting", "Human", "TRUE"), ("Normal Setting", "Model", "TRUE"),
        ("Normal Setting", "Model", "FALSE"), ("Normal Setting", "Diff (H − M)", "TRUE"),
        ("Normal Setting", "Diff (H − M)", "FALSE")]
    assert spec.entries.columns[5][0] == "RAG Setting" and spec.entries.shape[1] == 10
    row = spec.entries.loc[("E", "gpt35 (self)")]
    assert row[("Normal Setting", "Human", "TRUE")] == "4.50±0.58"
    assert row[("Normal Setting", "Model", "TRUE")] == "1.50±0.58"
    assert row[("Normal Setting", "Model", "FALSE")] == "4.50±0.58"
    # human TRUE vs model TRUE: 4.5 - 1.5, clearly significant (paired per question, the default)
    assert stats.ttest_rel([4, 5, 5, 4], [1, 2, 1, 2]).pvalue < 0.05
    assert row[("Normal Setting", "Diff (H − M)", "TRUE")] == "+3.00†"
    # human TRUE vs model FALSE (the paper's FALSE difference): 0, no mark
    assert row[("Normal Setting", "Diff (H − M)", "FALSE")] == "0.00"
    assert spec.values.loc[("E", "gpt35 (self)"), ("Normal Setting", "Diff (H − M)", "TRUE")] == 3.0
    # RAG: one human score -> no std; no model scores -> missing
    assert row[("RAG Setting", "Human", "TRUE")] == "3.00"
    assert row[("RAG Setting", "Model", "TRUE")] == "–"
    assert row[("RAG Setting", "Diff (H − M)", "TRUE")] == "–"
    ll = spec.entries.loc[("E", "llama")]
    p = stats.ttest_rel([4, 5], [3, 3]).pvalue  # q0, q1: the questions llama has; q2, q3 dropped and counted
    assert p > 0.05 and ll[("Normal Setting", "Diff (H − M)", "TRUE")] == "+1.50"
    # a difference with both sides is tested: normal TRUE and FALSE of the self author (q0-q3 on both sides: 0
    # dropped) and normal TRUE of llama (q0, q1; the human q2, q3 dropped)
    assert ("paired t-test (scipy.stats.ttest_rel) over the questions with both values (2–4 per test); 2 question "
            "side(s) with one value only dropped over the table's 3 test(s)") in spec.caption
    assert ll[("Normal Setting", "Model", "FALSE")] == "–"
    assert "Unparsed scores (excluded): E 1/" in spec.note


def test_table2_negative_difference_and_missing_self_rows():
    rows = [_rr("human", True, s, qid=f"q{i}") for i, s in enumerate((1, 2, 1, 2))]
    rows += [_rr("gpt35", True, s, qid=f"q{i}") for i, s in enumerate((4, 5, 5, 4))]
    spec = ST.table2(rows, {"E": "llama"})  # the evaluator's self author scored nothing
    assert list(spec.entries.index) == [("E", "llama (self)"), ("E", "gpt35")]
    assert (spec.entries.loc[("E", "llama (self)")] .iloc[1:5] == "–").all()
    assert spec.entries.loc[("E", "gpt35"), ("Normal Setting", "Diff (H − M)", "TRUE")] == "–3.00†"
    with pytest.raises(InputError, match="evaluator 'E' has no self author"):
        ST.table2(rows, {"other": "gpt35"})


def test_raw_score_tables():
    out = ST.raw_score_tables(rerank_rows())
    assert list(out) == ["normal_true", "normal_false", "rag_true", "rag_false"]
    nt = out["normal_true"]
    assert list(nt.entries.index) == [("E",)]
    assert [c[1] for c in nt.entries.columns] == ["Human", "gpt35", "llama"]
    assert nt.entries.columns[0][0] == "Normal Setting & TRUE passages"
    assert list(nt.entries.iloc[0]) == ["4.50±0.58", "1.50±0.58", "3.00±0.00"]
    nf = out["normal_false"]
    assert list(nf.entries.iloc[0]) == ["2.50±0.71", "4.50±0.58", "–"]
    assert list(out["rag_true"].entries.iloc[0]) == ["3.00", "–", "–"]
    assert (out["rag_false"].entries.iloc[0] == "–").all()
    assert out["normal_true"].values.iloc[0, 1] == 1.5


# --------------------------------------------------------------------------
# generation phase
# --------------------------------------------------------------------------
def test_preference_rates_by_hand():
    rates = RW.preference_rates(gen_rows())
    assert [r["other_author"] for r in rates] == ["human", "llama", "all"]
    h = _rate(rates, "human")
    # ok rows 1, 2, 3, 4, 6; self chosen in 1, 2, 6; first shown chosen in 1, 4;
    # asymmetric ok rows 3, 4, 6 with the true passage chosen in 4 and 6
    assert (h["n_rows"], h["n_ok"], h["self_chosen"], h["first_chosen"]) == (7, 5, 3, 2)
    assert h["self_pref"] == pytest.approx(60.0) and h["order_pref"] == pytest.approx(40.0)
    assert (h["n_asym"], h["true_chosen"]) == (3, 2) and h["factual_pref"] == pytest.approx(200 / 3)
    assert h["not_ok"] == 2 and h["not_ok_by_status"] == "ambiguous_both=1;no_choice=1"
    assert (h["evaluator"], h["self_author"], h["variant"], h["factuality"], h["knowledge"]) == (
        "E", "gpt35", "normal", "all", "all")
    ll = _rate(rates, "llama")
    assert (ll["n_ok"], ll["self_chosen"], ll["first_chosen"], ll["n_asym"], ll["true_chosen"]) == (2, 1, 2, 1, 0)
    assert ll["self_pref"] == 50.0 and ll["order_pref"] == 100.0 and ll["factual_pref"] == 0.0
    assert ll["not_ok_by_status"] == "no_index=1"
    a = _rate(rates, "all")
    assert (a["n_rows"], a["n_ok"], a["self_chosen"], a["first_chosen"], a["n_asym"], a["true_chosen"]) == (
        10, 7, 4, 4, 4, 2)
    assert a["self_pref"] == pytest.approx(400 / 7) and a["factual_pref"] == 50.0 and a["not_ok"] == 3
    # the qa row is a separate variant
    qa = RW.preference_rates(gen_rows(), variant="qa")
    assert [(r["other_author"], r["n_ok"], r["self_chosen"]) for r in qa] == [("human", 1, 0), ("all", 1, 0)]
    assert _rate(RW.preference_rates(gen_rows(), variant=None), "all")["n_rows"] == 11


def test_preference_rates_empty_denominators_are_nan():
    rows = [_g("human", T_, T_, "self_first", None, status="no_index")]
    (h, a) = RW.preference_rates(rows)
    assert h["n_ok"] == 0 and math.isnan(h["self_pref"]) and math.isnan(h["order_pref"])
    assert math.isnan(h["factual_pref"]) and h["not_ok"] == 1
    assert RW.preference_rates([]) == []


def test_rates_long_groups():
    rows = RW.rates_long(gen_rows())
    assert {r["variant"] for r in rows} == {"normal", "qa"}
    tf = [r for r in rows if r["variant"] == "normal" and r["other_author"] == "human"
          and r["factuality"] == "TF" and r["knowledge"] == "all"]
    assert len(tf) == 1 and (tf[0]["n_ok"], tf[0]["self_chosen"], tf[0]["true_chosen"]) == (2, 1, 1)
    # knowledge groups: rows 3, 4, 6 (full) vs human
    full = [r for r in rows if r["variant"] == "normal" and r["other_author"] == "human"
            and r["factuality"] == "all" and r["knowledge"] == "full"]
    assert full[0]["n_ok"] == 3 and full[0]["self_chosen"] == 1
    # empty groups are left out, the all/all ones never
    assert not [r for r in rows if r["other_author"] == "llama" and r["factuality"] == "TF"]
    assert [r for r in rows if r["variant"] == "normal" and r["other_author"] == "all"
            and r["factuality"] == "all" and r["knowledge"] == "all"][0]["n_rows"] == 10


def same_fact_rows(qids=("q",)):
    """The same-factuality hand case, per question: E (self gpt35) vs human, 10 comparisons, 8 ok.

    TT self, TT other, FF self, FF self        -> same factuality: self 3 of 4 ok
    TF self (true), TF self (true),
    FT other (true), FT other (true)           -> asymmetric: factuality decides, self 2 of 4 (the true one always)
    FF ok but no choice, TT ambiguous_both     -> not ok: in neither rate
    pooled self (the paper's): 5 / 8 = 62.5 %; same factuality: 3 / 4 = 75.0 %; factual 4 / 4 = 100 %;
    first shown chosen: rows 1, 3, 5, 8 -> 4 / 8 = 50 %.
    """
    one = [
        ("TT", T_, T_, "self_first", "self"), ("TT", T_, T_, "self_first", "other"),
        ("FF", F_, F_, "self_first", "self"), ("FF", F_, F_, "other_first", "self"),
        ("TF", T_, F_, "self_first", "self"), ("TF", T_, F_, "other_first", "self"),
        ("FT", F_, T_, "self_first", "other"), ("FT", F_, T_, "other_first", "other"),
    ]
    rows = []
    for q in qids:
        rows += [{**_g("human", sf, of, order, chosen), "qid": q} for _, sf, of, order, chosen in one]
        rows += [{**_g("human", F_, F_, "self_first", None, status="ok"), "qid": q},
                 {**_g("human", T_, T_, "other_first", None, status="ambiguous_both"), "qid": q}]
    return rows


def test_same_factuality_self_preference_by_hand(tmp_path):
    """Beside the paper's pooled self preference (all four factuality combinations), the rate over
    the both-true and both-false pairs only, with the same counting rules (ok rows with a choice)."""
    recs = RW.gen_records(same_fact_rows())
    assert [RW.same_factuality(g) for g in recs] == [True] * 4 + [False] * 4 + [True, True]
    (h, a) = RW.preference_rates(same_fact_rows())
    for r in (h, a):
        # the pooled numbers are the paper's and unchanged: 5 of 8 ok, 4 of 4 asymmetric true, 4 of 8 first
        assert (r["n_rows"], r["n_ok"], r["self_chosen"], r["self_pref"]) == (10, 8, 5, 62.5)
        assert (r["n_asym"], r["true_chosen"], r["factual_pref"], r["order_pref"]) == (4, 4, 100.0, 50.0)
        assert (r["n_same"], r["self_chosen_same"], r["self_pref_same"]) == (4, 3, 75.0)
    assert RW.RATE_COLUMNS[-3:] == ("n_same", "self_chosen_same", "self_pref_same")
    assert RW.RATE_COLUMNS[:21] == (
        "variant", "evaluator", "self_author", "other_author", "factuality", "knowledge",
        "n_rows", "n_ok", "self_chosen", "self_pref", "first_chosen", "order_pref",
        "n_asym", "true_chosen", "factual_pref", "n_graded", "correct", "accuracy", "not_ok", "not_ok_by_status",
        "tries")
    # an evaluator with asymmetric pairs only: no same-factuality rate (NaN, "–"), the pooled one unchanged
    (_, only_asym) = RW.preference_rates(same_fact_rows()[4:8])
    assert only_asym["self_pref"] == 50.0 and only_asym["n_same"] == 0 and math.isnan(only_asym["self_pref_same"])

    # Table 3: the new column beside Self in every group, its value, bold over 50 as the others
    spec = PF.table3(RW.preference_rates(same_fact_rows()))
    row = spec.entries.loc[("E",)]
    for head in ("Human", "Aggregated", "Pooled"):
        assert (row[(head, "Self")], row[(head, "Self (same fact.)")]) == ("62.5", "75.0"), head
        assert spec.marks.loc[("E",), (head, "Self (same fact.)")] == "best"
        assert list(spec.entries.columns).index((head, "Self (same fact.)")) == (
            list(spec.entries.columns).index((head, "Self")) + 1)
    assert (row[("Human", "Order")], row[("Human", "Factual")], row[("Pooled", "n")]) == ("50.0", "100.0", "8")
    assert "both true or both false (TT, FF)" in spec.caption
    only = PF.table3(RW.preference_rates(same_fact_rows()[4:8]))
    assert only.entries.loc[("E",), ("Pooled", "Self (same fact.)")] == "–"
    assert only.marks.loc[("E",), ("Pooled", "Self (same fact.)")] == ""

    # rates.tsv: the three columns at the end, per group (TT: 1 of 2 ok; TF: none, NaN written empty)
    R.write_selfpref_report([], same_fact_rows(), {}, [], [], {"E": "gpt35"}, tmp_path)
    with open(tmp_path / "rates.tsv", encoding="utf-8") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        rates = list(reader)
    assert tuple(reader.fieldnames) == RW.RATE_COLUMNS
    key = {(r["other_author"], r["factuality"], r["knowledge"]): r for r in rates}
    top = key[("human", "all", "all")]
    assert (top["n_ok"], top["self_chosen"], top["self_pref"]) == ("8", "5", "62.5")
    assert (top["n_same"], top["self_chosen_same"], top["self_pref_same"]) == ("4", "3", "75.0")
    assert (key[("all", "all", "all")]["self_pref"], key[("all", "all", "all")]["self_pref_same"]) == ("62.5", "75.0")
    assert (key[("human", "TT", "all")]["n_same"], key[("human", "TT", "all")]["self_pref_same"]) == ("2", "50.0")
    assert (key[("human", "FF", "all")]["n_same"], key[("human", "FF", "all")]["self_pref_same"]) == ("2", "100.0")
    assert (key[("human", "TF", "all")]["n_same"], key[("human", "TF", "all")]["self_pref_same"]) == ("0", "")
    md = (tmp_path / "tables/table3_preference.md").read_text(encoding="utf-8")
    assert "Self (same fact.)" in md and "| **62.5** | **75.0** |" in md


def test_same_factuality_units_intervals_and_comparisons():
    """The per-unit column self_same (self_chosen of an ok same-factuality comparison, NaN otherwise) carries
    the new column's interval and its test against 50% (Table 3's °), as the other rates."""
    gen = same_fact_rows([f"q{i}" for i in range(6)])
    iv, units = _iv([], gen)
    c = units["comparisons"]
    assert list(c.columns) == list(RW.UNIT_FRAMES["comparisons"]) and c.columns[-1] == "self_same"
    first = c[c["qid"] == "q0"]
    assert first["self_same"].tolist()[:4] == [1.0, 0.0, 1.0, 1.0]
    assert first["self_same"].iloc[4:].isna().all()  # asymmetric pairs and the two not-ok rows
    assert first["self_chosen"].tolist()[:8] == [1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]  # unchanged
    assert PF.UNIT_OF["self_pref_same"] == "self_same"
    frame, tags = R.comparisons(units, SPEC)
    vs50 = frame[frame["family"] == "preference vs 50% (E)"].set_index(["what", "a"])
    same = vs50.loc[("self_pref_same (%)", "E vs human")]
    assert same["delta"] == pytest.approx(25.0) and same["n"] == 6
    assert vs50.loc[("self_pref (%)", "E vs human")]["delta"] == pytest.approx(12.5)
    assert ("self_pref_same (%)", "E vs all") in vs50.index
    t3 = PF.table3(RW.preference_rates(gen), TC.Intervals(units, SPEC, tags))
    col = ("Human", "Self (same fact.)")
    # every question has the same 3 of 4: the cluster bootstrap cannot move it
    assert (t3.values.loc[("E",), col], t3.lo.loc[("E",), col], t3.hi.loc[("E",), col]) == (75.0, 75.0, 75.0)
    assert (t3.lo.loc[("E",), ("Pooled", "Self")], t3.hi.loc[("E",), ("Pooled", "Self")]) == (62.5, 62.5)
    assert t3.tags.loc[("E",), col] == ("°" if same["distinct"] != "yes" else "")


def test_table3_layout_and_bold_rule():
    spec = PF.table3(RW.preference_rates(gen_rows()))
    assert list(spec.entries.index) == [("E",)]
    same = "Self (same fact.)"
    assert list(spec.entries.columns) == [
        ("Human", "Self"), ("Human", same), ("Human", "Order"), ("Human", "Factual"),
        ("llama", "Self"), ("llama", same), ("llama", "Order"), ("llama", "Factual"),
        ("Aggregated", "Self"), ("Aggregated", same), ("Aggregated", "Order"), ("Aggregated", "Factual"),
        ("Pooled", "Self"), ("Pooled", same), ("Pooled", "Order"), ("Pooled", "Factual"), ("Pooled", "n")]
    # Self (same fact.): vs human ok TT rows 1, 2 both self (the FF row 5 is not ok) -> 2/2; vs llama the ok FF
    # row 9 other -> 0/1; Aggregated (100 + 0) / 2; Pooled rows 1, 2, 9 -> 2/3.
    # Aggregated = mean of the two per-author cells: (60 + 50) / 2, (40 + 100) / 2, (200/3 + 0) / 2;
    # Pooled = over the 7 ok comparisons: 4/7 self, 4/7 first, 2/4 true
    assert list(spec.entries.iloc[0]) == ["60.0", "100.0", "40.0", "66.7", "50.0", "0.0", "100.0", "0.0",
                                        "55.0", "50.0", "70.0", "33.3", "57.1", "66.7", "57.1", "50.0", "7"]
    # > 50 strictly is bold; 50.0 is not; n never
    assert list(spec.marks.iloc[0]) == ["best", "best", "", "best", "", "", "best", "",
                                        "best", "", "best", "", "best", "best", "best", "", ""]
    assert spec.highlight_groups == {}
    assert "greater than 50% are marked in bold" in spec.caption


def test_table3_average_row_and_self_column_missing():
    rows = gen_rows() + [
        _g("gpt35", T_, T_, "self_first", "self", evaluator="L", own="llama"),
        _g("gpt35", T_, F_, "other_first", "other", evaluator="L", own="llama"),
        _g("human", T_, T_, "other_first", "other", evaluator="L", own="llama"),
    ]
    spec = PF.table3(RW.preference_rates(rows))
    assert list(spec.entries.index) == [("E",), ("L",), ("Average",)]
    assert spec.entries.loc[("L",), ("llama", "Self")] == "–"   # no self-vs-self column
    assert spec.entries.loc[("E",), ("gpt35", "Self")] == "–"
    # L vs human: 0/1 self; E vs human: 60 -> average 30
    assert spec.entries.loc[("Average",), ("Human", "Self")] == "30.0"
    assert spec.entries.loc[("Average",), ("gpt35", "Self")] == "50.0"  # only L has it
    # L: cells gpt35 50.0 and human 0.0 -> Aggregated 25.0, pooled 1/3; Average of E's 55.0 and 25.0
    assert spec.entries.loc[("L",), ("Aggregated", "Self")] == "25.0"
    assert spec.entries.loc[("L",), ("Pooled", "Self")] == "33.3"
    assert spec.entries.loc[("Average",), ("Aggregated", "Self")] == "40.0"
    assert spec.entries.loc[("Average",), ("Pooled", "n")] == "10"  # 7 + 3


# Table 3 of the paper (Chen et al.), evaluator x dataset rows: per-author cells Self / Order / Factual, then
# the published Aggregated; "-" = the evaluator's own column. Copied from the paper's text.
PAPER_TABLE3 = """\
GPT-3.5 NQ|41/60/77|-|43/61/79|46/59/78|43/60/80|44/60/77|43.4/60.0/78.2
GPT-3.5 MARCO|44/64/74|-|51/65/77|52/56/76|50/64/76|51/62/75|49.6/62.2/75.6
GPT-3.5 TriviaQA|42/57/90|-|44/58/91|48/56/93|48/57/93|47/57/92|45.8/57.0/91.8
4o-mini NQ|45/62/85|48/62/84|-|48/62/85|46/61/84|48/62/85|47.0/61.8/84.6
4o-mini MARCO|44/44/81|47/63/82|-|53/62/81|49/61/82|51/62/83|48.8/58.4/81.8
4o-mini TriviaQA|45/57/94|52/55/93|-|52/56/93|50/55/93|51/55/93|50.0/55.6/93.2
Gemini NQ|43/53/78|49/58/79|49/58/80|-|48/58/81|49/58/80|47.6/57.0/79.6
Gemini MARCO|35/52/74|44/57/76|44/57/76|-|47/57/78|47/55/76|43.4/55.6/76.0
Gemini TriviaQA|43/41/85|49/53/89|43/46/86|-|47/55/90|48/53/90|46.0/49.6/88.0
LLaMA NQ|47/47/74|46/45/74|45/47/74|45/44/74|-|46/46/74|45.8/45.8/74.0
LLaMA MARCO|43/55/72|46/56/73|47/57/73|48/54/71|-|48/55/72|46.4/55.4/72.2
LLaMA TriviaQA|38/49/90|45/50/91|38/51/89|44/48/89|-|47/51/92|42.4/49.8/90.2
Mistral NQ|45/70/74|48/70/74|49/71/75|46/66/74|48/71/74|-|47.2/69.6/74.2
Mistral MARCO|43/70/76|46/72/75|45/73/75|43/68/76|45/72/76|-|44.4/71.0/75.6
Mistral TriviaQA|41/58/89|47/59/92|39/59/88|48/55/91|48/58/92|-|44.6/57.8/90.4
"""
PAPER_AUTHORS = ("human", "gpt35", "gpt4o-mini", "gemini", "llama", "mistral")


def test_table3_aggregated_is_the_mean_of_the_paper_cells():
    """The paper's Aggregated column is the unweighted mean of its per-author cells in all 15 rows; the
    table reproduces it from those cells (and the pooled rate is a column of its own)."""
    rates, expected = [], {}
    for line in PAPER_TABLE3.splitlines():
        ev, *cells, agg = line.split("|")
        expected[ev] = [float(x) for x in agg.split("/")]
        for author, cell in zip(PAPER_AUTHORS, cells):
            if cell != "-":
                s, o, f = (float(x) for x in cell.split("/"))
                rates.append({"evaluator": ev, "other_author": author, "self_pref": s, "order_pref": o,
                              "factual_pref": f})
    spec = PF.table3(rates)
    assert len(expected) == 15
    for ev, (s, o, f) in expected.items():
        got = spec.values.loc[(ev,), [("Aggregated", "Self"), ("Aggregated", "Order"), ("Aggregated", "Factual")]]
        assert list(got) == [s, o, f], ev
        assert spec.entries.loc[(ev,), ("Pooled", "n")] == "–"  # no pooled row given
    assert spec.entries.loc[("GPT-3.5 NQ",), ("Aggregated", "Self")] == "43.4"
    assert spec.marks.loc[("4o-mini TriviaQA",), ("Aggregated", "Self")] == ""  # 50.0 is not > 50


def test_knowledge_breakdown_by_hand():
    spec = PF.knowledge_breakdown(gen_rows())
    assert list(spec.entries.index) == [("E", "no"), ("E", "partial"), ("E", "full"), ("E", "unknown")]
    assert [c for c in spec.entries.columns] == [
        ("Self (%)", "TT"), ("Self (%)", "TF"), ("Self (%)", "FT"), ("Self (%)", "FF"), ("Self (%)", "all"),
        ("Factual (%)", "TF+FT"), ("Accuracy (%)", "TT"), ("Accuracy (%)", "TF"), ("Accuracy (%)", "FT"),
        ("Accuracy (%)", "FF"), ("Accuracy (%)", "all"), ("n", "ok"), ("n", "graded"), ("n", "not ok")]
    # no passages given: no gold, nothing graded (accuracy "–", graded 0)
    assert list(spec.entries.loc[("E", "no")]) == ["100.0", "–", "–", "–", "100.0", "–"] + ["–"] * 5 + ["2", "0", "0"]
    # full: row 3 TF other, row 6 TF self, row 4 FT other; true chosen in 4 and 6
    assert list(spec.entries.loc[("E", "full")])[:6] == ["–", "50.0", "0.0", "–", "33.3", "66.7"]
    assert list(spec.entries.loc[("E", "full")])[-3:] == ["3", "0", "0"]
    assert list(spec.entries.loc[("E", "partial")])[:6] == ["–", "–", "100.0", "0.0", "50.0", "0.0"]
    assert list(spec.entries.loc[("E", "unknown")])[-3:] == ["0", "0", "3"]


def test_answer_accuracy_by_knowledge_level_by_hand():
    """Section 4.2.3's answer accuracy: among ok comparisons, the share whose answer matches the gold (the
    authors' check_bag_of_words), per knowledge class and factuality; the gold comes from the true passages."""
    def g(qid, sf, of, chosen, answer, knowledge, status="ok"):
        return {**_g("human", sf, of, "self_first", chosen, status=status, knowledge=knowledge), "qid": qid,
                "answer": answer}

    rows = [
        g("q1", T_, T_, "self", "Linda Davis.", "no"),     # correct (gold is a substring)
        g("q1", T_, F_, "other", "Lisa Thompson", "no"),   # wrong: took the false passage
        g("q1", F_, T_, "other", "Davis", "no"),           # correct: its words are the gold's
        g("q1", F_, F_, "self", "Sarah Taylor", "no"),     # wrong: both passages false
        g("q1", T_, T_, None, "Linda Davis", "no", status="ambiguous_both"),  # not ok: not graded
        g("q2", T_, T_, "self", "1998", "full"),           # correct
        g("q3", T_, T_, "other", "1998", "full"),          # ok, but no gold known for q3: not graded
    ]
    passages = [{**_p("human", "Linda Davis sang."), "qid": "q1", "answer_in": "Linda Davis"},
                {**_p("human", "Lisa Thompson sang.", factual=False), "qid": "q1", "answer_in": "Lisa Thompson"},
                {**_p("gpt35", "In 1998."), "qid": "q2", "answer_in": "1998"}]
    assert RW.gold_answers(passages) == {"q1": "Linda Davis", "q2": "1998"}
    spec = PF.knowledge_breakdown(rows, passages)
    acc = [("Accuracy (%)", c) for c in ("TT", "TF", "FT", "FF", "all")]
    assert list(spec.entries.loc[("E", "no"), acc]) == ["100.0", "0.0", "100.0", "0.0", "50.0"]
    assert list(spec.entries.loc[("E", "no"), [("n", "ok"), ("n", "graded"), ("n", "not ok")]]) == ["4", "4", "1"]
    assert list(spec.entries.loc[("E", "full"), acc]) == ["100.0", "–", "–", "–", "100.0"]
    assert list(spec.entries.loc[("E", "full"), [("n", "ok"), ("n", "graded")]]) == ["2", "1"]
    # the same grading in rates.tsv's rows
    (top,) = [r for r in RW.rates_long(rows, passages) if r["other_author"] == "all" and r["factuality"] == "all"
              and r["knowledge"] == "no"]
    assert (top["n_graded"], top["correct"], top["accuracy"]) == (4, 2, 50.0)


def test_style_tables():
    rows = [
        _g("human", T_, T_, "self_first", "self", variant="qa"),
        _g("human", T_, T_, "other_first", "self", variant="qa"),
        _g("llama", T_, T_, "self_first", "other", variant="qa"),
        _g("human", T_, T_, "self_first", None, status="ambiguous_neither", variant="qa"),
        _g("human", T_, F_, "self_first", "self", variant="qa"),  # not both true: left out
        _g("gpt35:normal", T_, T_, "other_first", "other", variant="long"),
        _g("human", T_, T_, "self_first", "self", variant="normal"),
    ]
    t4, t5 = PF.style_tables(rows)
    assert [c for c in t4.entries.columns] == [("Gen-By-QA Preference (%)",), ("Order (%)",), ("n",), ("not ok",)]
    assert list(t4.entries.index) == [("E", "Human"), ("E", "llama")]
    assert list(t4.entries.index.names) == ["Evaluator", "Versus"]
    # vs human: ok rows chose self (first), self (second); one not ok
    assert list(t4.entries.loc[("E", "Human")]) == ["100.0", "50.0", "2", "1"]
    assert list(t4.entries.loc[("E", "llama")]) == ["0.0", "0.0", "1", "0"]
    assert t5.entries.columns[0] == ("Long Passage Preference (%)",)
    assert list(t5.entries.index) == [("E", "gpt35:normal")]
    assert list(t5.entries.loc[("E", "gpt35:normal")]) == ["0.0", "100.0", "1", "0"]
    e4, e5 = PF.style_tables([])
    assert list(e4.entries.index) == [("–", "–")] and (e4.entries.iloc[0] == "–").all()


def test_style_table_says_no_distinct_gen_by_qa_passages():
    """Released data: llama_qa is byte-identical to llama_long in all 100 writing-style records, so the import
    keeps no Llama qa passage and Table 4's Llama-self row says so instead of printing a number."""
    from pathlib import Path

    import yaml
    from authbench.studies.selfpref.data import import_sources

    root = Path(__file__).resolve().parents[4]
    cfg = yaml.safe_load((root / "config.yaml").read_text())
    sources = [{**src, "file": str(root / src["file"])} for src in cfg["selfpref"]["datasets"]["nq"]["sources"]]
    _, passages, _ = import_sources("nq", sources)
    assert {p["author"] for p in passages if p["variant"] == "qa"} == {"gpt35"}
    rows = [
        _g("human", T_, T_, "self_first", "self", variant="qa"),
        _g("human", T_, T_, "other_first", "self", variant="qa"),
        _g("llama:normal", T_, T_, "self_first", "self", variant="long", evaluator="L", own="llama"),
        _g("human", T_, T_, "self_first", "other", evaluator="L", own="llama"),
    ]
    t4, t5 = PF.style_tables(rows, passages)
    assert list(t4.entries.index) == [("E", "Human"), ("L", "Human")]
    assert list(t4.entries.loc[("E", "Human")]) == ["100.0", "50.0", "2", "0"]
    assert list(t4.entries.loc[("L", "Human")]) == ["no distinct Gen-by-QA passages", "–", "–", "–"]
    assert math.isnan(t4.values.loc[("L", "Human")].iloc[0])
    assert "L (self llama): no qa passage of llama distinct from its other variants" in t4.note
    assert list(t5.entries.index) == [("L", "llama:normal")] and t5.note == ""  # Llama's long passages are there
    # without passages (or without any qa passage at all) nothing is claimed
    assert list(PF.style_tables(rows)[0].entries.index) == [("E", "Human")]
    assert list(PF.style_tables(rows, [p for p in passages if p["variant"] != "qa"])[0].entries.index) == [("E", "Human")]


def test_fig3_heatmaps_png_and_annotations(tmp_path):
    path = FG.fig3_heatmaps(gen_rows(), tmp_path / "f" / "fig3.png")
    assert path.read_bytes()[:8] == PNG_MAGIC
    again = FG.fig3_heatmaps(gen_rows(), tmp_path / "again.png")
    assert again.read_bytes() == path.read_bytes()  # deterministic
    recs = [g for g in RW.gen_records(gen_rows()) if g.variant == "normal"]
    df, annot = FG._fig3_data(recs, "E")
    assert list(df.index) == ["TT", "TF", "FT", "FF"] and list(df.columns) == ["Human", "llama", "all"]
    assert annot[0, 0] == "100 / 50 / –"       # TT vs human: rows 1, 2
    assert annot[1, 0] == "50 / 0 / 50"         # TF vs human: rows 3, 6
    assert annot[3, 0] == "" and math.isnan(df.iloc[3, 0])  # FF vs human: only a failure
    assert df.iloc[2, 1] == 100.0               # FT vs llama: row 8
    empty = FG.fig3_heatmaps([], tmp_path / "empty.png")
    assert empty.read_bytes()[:8] == PNG_MAGIC


# --------------------------------------------------------------------------
# Table 1
# --------------------------------------------------------------------------
def _p(author, text, factual=True, variant="normal"):
    return {"pid": f"{author}{len(text)}{factual}{variant}", "qid": "q", "author": author, "variant": variant,
            "factual": factual, "answer_in": "x", "text": text}


def _ppl(author, v, factual=True, variant="normal", qid=None):
    row = {"pid": "p", "author": author, "variant": variant, "factual": factual, "tokens": 10, "perplexity": v}
    return row if qid is None else {**row, "qid": qid}


def test_table1_by_hand():
    """One row per configured evaluator (its knowledge, its self author's passages), the Average of
    the evaluators once each, then below the rule (baseline rows, never averaged) the released knowledge run
    and the author no evaluator has as self, and Human; marks from the paired test per question."""
    levels = {
        "gpt35": [{"qid": "1", "level": 0, "class": "no"}, {"qid": "2", "level": 0, "class": "no"},
                  {"qid": "3", "level": 3, "class": "partial"}, {"qid": "4", "level": 5, "class": "full"}],
        "gemma3-270m": [{"qid": "1", "level": 0}, {"qid": "2", "level": 5}],  # class derived
        "qwen": [{"qid": "1", "level": 0}, {"qid": "2", "level": 0}, {"qid": "3", "level": 1}, {"qid": "4", "level": 1}],
    }
    passages = [_p("human", "a b c"), _p("human", "a b c d e"), _p("gpt35", "a b"), _p("gpt35", "a b c d"),
                _p("gpt35", "x " * 50, factual=False), _p("gpt35", "x " * 400, variant="long"),
                _p("llama", "one"), _p("mistral", "a b c d e f")]
    ppl = [_ppl("human", v, qid=q) for q, v in (("q1", 10), ("q2", 12), ("q3", 11))]
    ppl += [_ppl("gpt35", v, qid=q) for q, v in (("q1", 20), ("q2", 21), ("q3", 22))]
    ppl += [_ppl("llama", v, qid=q) for q, v in (("q1", 10.5), ("q2", 11.5))]
    ppl += [_ppl("gpt35", 500.0, variant="long", qid="q1"), _ppl("human", None, qid="q4")]
    self_map = {"gemma3-270m": "gpt35", "qwen": "llama"}
    spec = PT.table1(levels, passages, ppl, self_map=self_map)
    assert list(spec.entries.index) == [("gemma3-270m", "gpt35"), ("qwen", "llama"), ("Average", "–"),
                                      ("gpt35 (released run)", "gpt35"), ("mistral", "mistral"), ("Human", "human")]
    assert list(spec.entries.index.names) == ["Model", "Passages"]
    assert spec.baseline_rows == [("gpt35 (released run)", "gpt35"), ("mistral", "mistral"), ("Human", "human")]
    assert [c[1] for c in spec.entries.columns] == ["No (%)", "Partial (%)", "Full (%)", "n", "Average Length",
                                                  "Perplexity"]
    # gpt35 vs human, paired on q1-q3: differences 10, 9, 11
    assert stats.ttest_rel([20, 21, 22], [10, 12, 11]).pvalue < 0.05
    assert list(spec.entries.loc[("gemma3-270m", "gpt35")]) == ["50.0", "0.0", "50.0", "2", "3.00", "21.00†"]
    # llama vs human, paired on q1-q2: differences 0.5, -0.5
    assert list(spec.entries.loc[("qwen", "llama")]) == ["50.0", "50.0", "0.0", "4", "1.00", "11.00"]
    assert list(spec.entries.loc[("gpt35 (released run)", "gpt35")]) == ["50.0", "25.0", "25.0", "4", "3.00", "21.00†"]
    assert list(spec.entries.loc[("mistral", "mistral")]) == ["–", "–", "–", "–", "6.00", "–"]
    assert list(spec.entries.loc[("Human", "human")]) == ["–", "–", "–", "–", "4.00", "11.00"]
    # Average: the two evaluators once each (not the released run, not mistral); its perplexity test pairs the
    # mean of the evaluators' values per question (q1: 15.25, q2: 16.25, q3: 22) with the human ones
    avg = spec.entries.loc[("Average", "–")]
    assert list(avg[:3]) == ["50.0", "25.0", "25.0"] and avg.iloc[4] == "2.00"
    p_avg = stats.ttest_rel([15.25, 16.25, 22.0], [10, 12, 11]).pvalue
    assert avg.iloc[5] == "16.00" + ("†" if p_avg < 0.05 else "")
    assert "each configured evaluator once" in spec.note and "outside the average" in spec.note
    # tested: gpt35 (q1-q3), llama (q1-q2; the human q3 dropped), Average (q1-q3), the released run's gpt35
    # (q1-q3); mistral has no perplexity (not tested); the human q4 has no value (no question side)
    assert ("paired t-test (scipy.stats.ttest_rel) over the questions with both values (2–3 per test); 1 question "
            "side(s) with one value only dropped over the table's 4 test(s)") in spec.caption
    # Welch's unpaired test (selfpref.significance: welch) on the same values
    welch = PT.table1(levels, passages, ppl, self_map=self_map, significance="welch")
    p_llama = stats.ttest_ind([10.5, 11.5], [10, 12, 11], equal_var=False).pvalue
    assert p_llama > 0.05 and welch.entries.loc[("qwen", "llama")].iloc[5] == "11.00"
    assert "Welch's unpaired t-test" in welch.caption
    assert spec.values.loc[("gemma3-270m", "gpt35")].iloc[5] == 21.0


def test_perplexity_anova_and_tukey_by_hand():
    """The authors' anova.py over the normal TRUE perplexities of every author with two or more values (human
    first); the test itself is authbench.stats.anova_tukey (checked against the textbook formulas in test_stats)."""
    data = {"human": [30.0, 34.0, 29.0, 41.0, 36.0], "gpt35": [24.0, 22.0, 27.0, 25.0],
            "llama": [26.0, 31.0, 23.0, 28.0, 30.0, 25.0]}
    rows = [_ppl(a, v) for a in ("gpt35", "human", "llama") for v in data[a]]
    rows += [_ppl("llama", 999.0, factual=False), _ppl("llama", 999.0, variant="long"), _ppl("llama", None)]
    rows += [_ppl("solo", 50.0)]  # one value only: not a group
    res = PT.perplexity_anova(rows)
    assert [(a, n) for a, n, _ in res["groups"]] == [("human", 5), ("gpt35", 4), ("llama", 6)]
    assert res == anova_tukey([(a, np.array(data[a])) for a in ("human", "gpt35", "llama")])
    f = res["f"]
    assert (res["df_between"], res["df_within"]) == (2, 12) and round(f, 2) == 8.78
    assert [(pr["a"], pr["b"]) for pr in res["pairs"]] == [("human", "gpt35"), ("human", "llama"), ("gpt35", "llama")]
    spec = PT.perplexity_anova_table(rows, "gpt2")
    assert list(spec.entries.index) == [("One-way ANOVA", "Human / gpt35 / llama"), ("Tukey HSD", "Human − gpt35"),
                                      ("Tukey HSD", "Human − llama"), ("Tukey HSD", "gpt35 − llama")]
    assert spec.entries.iloc[0, 0] == f"F(2, 12) = {f:.2f}" and spec.entries.iloc[0, 2] == f"{res['p']:.3f}†"
    assert spec.entries.iloc[1, 0] == "+9.50" and spec.entries.iloc[0, 1] == "–"
    assert "Human: n = 5, mean 34.00" in spec.note and "gpt2" in spec.caption
    assert list(PT.perplexity_anova_table([_ppl("human", 1.0), _ppl("human", 2.0)]).entries.iloc[0]) == ["–"] * 4
    assert PT.perplexity_anova([]) is None


def test_table1_average_of_the_paper_grid_evaluators(tmp_path):
    """With config/paper.yaml's names: evaluators gpt-3.5-turbo (self gpt35) and gpt-4o-mini; the
    release's knowledge runs gpt35 and llama2-70b-chat and llama2-70b-chat's passages are in the data. The
    Average is over the two evaluators once each (not gpt35 and gpt-3.5-turbo, one model twice, nor
    llama2-70b-chat); llama2-70b-chat's row is below the rule, outside the average, with the footnote."""
    lv = lambda *levels: [{"qid": f"q{i}", "level": v} for i, v in enumerate(levels, 1)]  # noqa: E731
    levels = {"gpt-3.5-turbo": lv(0, 5), "gpt-4o-mini": lv(5, 5), "gpt35": lv(0, 0, 0, 0), "llama2-70b-chat": lv(2)}
    passages = [_p("human", "a b c"), _p("gpt35", "a b"), _p("gpt35", "a b c d"), _p("gpt-4o-mini", "a b c d e"),
                _p("llama2-70b-chat", "x " * 10)]
    ppl = [_ppl("human", v, qid=q) for q, v in (("q1", 10), ("q2", 12), ("q3", 14))]
    ppl += [_ppl("gpt35", v, qid=q) for q, v in (("q1", 20), ("q2", 22), ("q3", 21))]
    ppl += [_ppl("gpt-4o-mini", v, qid=q) for q, v in (("q1", 11), ("q2", 14))]  # q3: the human side only
    ppl += [_ppl("llama2-70b-chat", v, qid=q) for q, v in (("q1", 100), ("q2", 98), ("q3", 96))]
    self_map = {"gpt-3.5-turbo": "gpt35", "gpt-4o-mini": "gpt-4o-mini"}
    spec = PT.table1(levels, passages, ppl, self_map=self_map)
    above = [("gpt-3.5-turbo", "gpt35"), ("gpt-4o-mini", "gpt-4o-mini"), ("Average", "–")]
    below = [("gpt35 (released run)", "gpt35"), ("llama2-70b-chat (released run)", "llama2-70b-chat"),
             ("Human", "human")]
    assert list(spec.entries.index) == above + below and spec.baseline_rows == below
    # knowledge: gpt-3.5-turbo 50 / 0 / 50, gpt-4o-mini 0 / 0 / 100 -> 25 / 0 / 75 (with the released runs and
    # llama2-70b-chat it would be 50 / 25 / 25); length (3 + 5) / 2 = 4 (not 6 with llama2's 10 words);
    # perplexity (21 + 12.5) / 2 = 16.75 (not 44.5 with llama2's 98)
    avg = spec.entries.loc[("Average", "–")]
    assert list(avg[:3]) == ["25.0", "0.0", "75.0"] and avg.iloc[4] == "4.00"
    p_avg = stats.ttest_rel([15.5, 18.0, 21.0], [10, 12, 14]).pvalue  # per question: the evaluators' mean
    assert avg.iloc[5] == "16.75" + ("†" if p_avg < 0.05 else "")
    assert spec.values.loc[("Average", "–")].iloc[5] == pytest.approx(16.75)
    p_mini = stats.ttest_rel([11, 14], [10, 12]).pvalue  # q1, q2; q3 dropped
    assert p_mini > 0.05 and spec.entries.loc[("gpt-4o-mini", "gpt-4o-mini")].iloc[5] == "12.50"
    assert stats.ttest_rel([100, 98, 96], [10, 12, 14]).pvalue < 0.05
    assert list(spec.entries.loc[("llama2-70b-chat (released run)", "llama2-70b-chat")]) == [
        "0.0", "100.0", "0.0", "1", "10.00", "98.00†"]
    assert "Rows below the rule are outside the average" in spec.note
    assert "each configured evaluator once" in spec.note
    # tests: gpt35, gpt-4o-mini, Average, the released gpt35 run, llama2-70b-chat
    assert "(2–3 per test); 1 question side(s) with one value only dropped over the table's 5 test(s)" in spec.caption
    _, md_path, tex_path = write_table(spec, tmp_path / "t1")
    tex = tex_path.read_text(encoding="utf-8").splitlines()
    first_below = next(i for i, line in enumerate(tex) if line.startswith("gpt35 (released run)"))
    assert tex[first_below - 1] == r"\midrule" and tex[first_below - 2].startswith("Average")
    assert "Rows below the rule are outside the average" in md_path.read_text(encoding="utf-8")


def test_table1_average_dagger_tests_the_per_question_mean_of_the_evaluators():
    """docs/deviations.md S34: the Average row's dagger is the configured test of the per-question mean of the
    evaluator rows' self-author perplexities (a question only some evaluators have: the mean of those) against
    the human per-question values; the value shown is the mean of the evaluator rows' means. Here the paired
    test of those per-question means marks it, Welch's test of the same means does not, and pooling every
    evaluator's value as its own observation (Welch) would not either."""
    human = {"q1": 10.0, "q2": 12.0, "q3": 14.0, "q4": 16.0, "q5": 20.0}
    a = {"q1": 11.0, "q2": 13.2, "q3": 15.0, "q4": 17.2, "q5": 21.0}
    b = {"q1": 11.2, "q2": 12.8, "q3": 15.2, "q4": 16.8}  # no q5: q5's mean is a's value alone
    ppl = [_ppl(author, v, qid=q) for author, values in (("human", human), ("a", a), ("b", b))
           for q, v in values.items()]
    spec = PT.table1({}, [], ppl, self_map={"A": "a", "B": "b"})
    assert list(spec.entries.index) == [("A", "a"), ("B", "b"), ("Average", "–"), ("Human", "human")]
    per_question = [11.1, 13.0, 15.1, 17.0, 21.0]  # q1-q4: the mean of a and b; q5: a
    p_paired = stats.ttest_rel(per_question, list(human.values())).pvalue
    p_welch = stats.ttest_ind(per_question, list(human.values()), equal_var=False).pvalue
    p_pooled = stats.ttest_ind(list(a.values()) + list(b.values()), list(human.values()), equal_var=False).pvalue
    assert p_paired < 0.05 < min(p_welch, p_pooled)
    # shown: (15.48 + 14.0) / 2 = 14.74, the mean of the rows (not 15.44, the mean of the tested sample)
    assert spec.entries.loc[("Average", "–")].iloc[5] == "14.74†"
    assert spec.values.loc[("Average", "–")].iloc[5] == pytest.approx(14.74)
    welch = PT.table1({}, [], ppl, self_map={"A": "a", "B": "b"}, significance="welch")
    assert welch.entries.loc[("Average", "–")].iloc[5] == "14.74"


def test_table1_empty_and_bad_level():
    spec = PT.table1({}, [], [])
    assert list(spec.entries.index) == [("Human", "human")]
    assert (spec.entries.iloc[0] == "–").all()
    with pytest.raises(InputError, match=r"knowledge levels \(gpt35\): row 1: field 'level' is 7"):
        PT.table1({"gpt35": [{"qid": "1", "level": 7}]}, [], [])
    with pytest.raises(InputError, match="field 'class' is 'some'"):
        PT.table1({"gpt35": [{"qid": "1", "level": 2, "class": "some"}]}, [], [])


# --------------------------------------------------------------------------
# input errors
# --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "patch, message",
    [
        ({"order": "first"}, "row 1: field 'order' is 'first'"),
        ({"chosen": "both"}, "row 1: field 'chosen' is 'both'"),
        ({"self_factual": "yes"}, "row 1: field 'self_factual' must be true or false"),
        ({"knowledge": "some"}, "row 1: field 'knowledge' is 'some'"),
    ],
)
def test_generation_input_errors(patch, message):
    row = _g("human", T_, T_, "self_first", "self")
    row.update(patch)
    with pytest.raises(InputError, match=message):
        RW.preference_rates([row])


def test_generation_missing_field_and_self_author_conflict():
    row = _g("human", T_, T_, "self_first", "self")
    del row["status"]
    with pytest.raises(InputError, match="generation judgments: row 1: missing field 'status'"):
        RW.preference_rates([row])
    rows = [_g("human", T_, T_, "self_first", "self"), _g("human", T_, T_, "self_first", "self", own="llama")]
    with pytest.raises(InputError, match="row 2: evaluator 'E' has self_author 'llama'"):
        RW.preference_rates(rows)
    with pytest.raises(InputError, match="row 1: expected a mapping"):
        RW.preference_rates([["not", "a", "dict"]])


def test_rerank_input_errors():
    with pytest.raises(InputError, match="rerank judgments: row 1: field 'score' is 7.0"):
        RW.rerank_summary([_rr("human", True, 7)])
    with pytest.raises(InputError, match="field 'prompt' is 'other'"):
        RW.rerank_summary([_rr("human", True, 3, prompt="other")])
    bad = _rr("human", True, 3)
    del bad["evaluator"]
    with pytest.raises(InputError, match="row 1: missing field 'evaluator'"):
        RW.rerank_summary([bad])
    # string booleans (e.g. read back from a TSV) are accepted
    ok = _rr("human", True, 3)
    ok["factual"] = "false"
    assert RW.rerank_summary([ok])[0]["factual"] is False


# --------------------------------------------------------------------------
# rendering and the whole report
# --------------------------------------------------------------------------
def test_write_table_text_entries_renders_text_entries(tmp_path):
    spec = ST.table2(rerank_rows(), {"E": "gpt35"})
    csv_p, md_p, tex_p = write_table(spec, tmp_path / "t2")
    with open(csv_p, encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:3] == ["Evaluator", "Model", "Normal Setting / Human / TRUE"]
    assert rows[1][2:7] == ["4.50±0.58", "1.50±0.58", "4.50±0.58", "3.00†", "0.00"]
    assert rows[1][8] == ""  # missing
    md = md_p.read_text(encoding="utf-8")
    assert "| E | gpt35 (self) | 4.50±0.58 |" in md and "+3.00†" in md
    tex = tex_p.read_text(encoding="utf-8")
    assert r"4.50$\pm$0.58" in tex and r"$+$3.00$^{\dagger}$" in tex and r"\label{tab:t2}" in tex
    assert r"$^{\dagger}$ p $<$ 0.05" in tex


def test_write_table_text_entries_bold_and_negative(tmp_path):
    rows = gen_rows()
    spec = PF.table3(RW.preference_rates(rows))
    _, md_p, tex_p = write_table(spec, tmp_path / "t3")
    md = md_p.read_text(encoding="utf-8")
    assert ("| E | **60.0** | **100.0** | 40.0 | **66.7** | 50.0 | 0.0 | **100.0** | 0.0 | **55.0** | 50.0 | "
            "**70.0** | 33.3 | **57.1** | **66.7** | **57.1** | 50.0 | 7 |") in md
    assert r"\textbf{60.0} & \textbf{100.0} & 40.0" in tex_p.read_text(encoding="utf-8")
    neg = ST.table2([_rr("human", True, s, qid=f"q{i}") for i, s in enumerate((1, 2, 1, 2))]
                    + [_rr("gpt35", True, s, qid=f"q{i}") for i, s in enumerate((4, 5, 5, 4))], {"E": "gpt35"})
    csv_p, md_p, tex_p = write_table(neg, tmp_path / "neg")
    assert "–3.00†" in md_p.read_text(encoding="utf-8")
    assert r"$-$3.00$^{\dagger}$" in tex_p.read_text(encoding="utf-8")
    assert ",-3.00†," in csv_p.read_text(encoding="utf-8")


EXPECTED = [f"tables/{stem}.{ext}" for stem in (
    "table1_knowledge", "table2_rerank", "table3_preference", "table4_gen_by_qa", "table5_long",
    "table6_normal_true", "table7_normal_false", "table8_rag_true", "table9_rag_false",
    "table_knowledge_breakdown", "table_perplexity_anova") for ext in ("csv", "md", "tex")] + [
    "figures/fig3_heatmaps.png", "rates.tsv"]


def test_write_selfpref_report_empty_inputs(tmp_path):
    paths = R.write_selfpref_report([], [], {}, [], [], {}, tmp_path)
    rel = {p.relative_to(tmp_path).as_posix() for p in paths}
    assert set(EXPECTED) <= rel
    for name in EXPECTED:
        assert (tmp_path / name).is_file(), name
    assert (tmp_path / "figures/fig3_heatmaps.png").read_bytes()[:8] == PNG_MAGIC
    md = (tmp_path / "tables/table3_preference.md").read_text(encoding="utf-8")
    assert "| – | – | – | – |" in md
    assert (tmp_path / "rates.tsv").read_text(encoding="utf-8").startswith("variant\tevaluator\t")
    assert len((tmp_path / "rates.tsv").read_text(encoding="utf-8").splitlines()) == 1


def test_write_selfpref_report_full(tmp_path):
    levels = {"gpt35": [{"qid": "1", "level": 5, "class": "full"}]}
    passages = [_p("human", "a b c"), _p("gpt35", "a b")]
    ppl = [_ppl("human", 10.0), _ppl("gpt35", 20.0)]
    paths = R.write_selfpref_report(rerank_rows(), gen_rows(), levels, ppl, passages, {"E": "gpt35"}, tmp_path,
                                    dataset="nq")
    for name in EXPECTED + ["rerank_summary.tsv", "contents.md"]:
        assert (tmp_path / name) in paths and (tmp_path / name).is_file()
    contents = (tmp_path / "contents.md").read_text(encoding="utf-8")
    assert contents.startswith("# Self-preference report\n\nDataset: nq.\n\n| What | File | Status |")
    for name in EXPECTED[:-2:3]:  # every table, once
        assert f"| {name.rsplit('.', 1)[0]}.csv/.md/.tex | written |" in contents, name
    assert "| Figure 3: preference heatmaps | figures/fig3_heatmaps.png | written |" in contents
    md = (tmp_path / "tables/table2_rerank.md").read_text(encoding="utf-8")
    assert md.startswith("[nq] Relevance scores") and "+3.00†" in md
    with open(tmp_path / "rates.tsv", encoding="utf-8") as fh:
        rates = list(csv.DictReader(fh, delimiter="\t"))
    top = [r for r in rates if r["variant"] == "normal" and r["other_author"] == "human"
           and r["factuality"] == "all" and r["knowledge"] == "all"][0]
    assert (top["n_ok"], top["self_chosen"], top["self_pref"]) == ("5", "3", "60.0")
    assert top["not_ok_by_status"] == "ambiguous_both=1;no_choice=1"
    nan_row = [r for r in rates if r["other_author"] == "llama" and r["factuality"] == "TT"][0]
    assert nan_row["self_pref"] == ""  # NaN as empty
    with open(tmp_path / "rerank_summary.tsv", encoding="utf-8") as fh:
        summ = list(csv.DictReader(fh, delimiter="\t"))
    assert summ[0]["factual"] == "true" and summ[0]["failures"] == "1"
    assert np.isclose(float(summ[0]["std"]), math.sqrt(1 / 3), atol=1e-6)


def test_table1_reads_the_questions_in_scope_only(tmp_path):
    """Deviation S4: Table 1's length and perplexity, the ANOVA and the scorecard's lengths read the passages
    of the questions in selfpref.rerank.scope (the sample), not every passage of passages.jsonl."""
    from authbench.studies.selfpref.data import scoped_questions

    sample = {"main": ["q1", "q2"], "style": ["q9"], "generated": ["q3"]}
    assert scoped_questions(sample, "sample") == {"q1", "q2"}
    assert scoped_questions(sample, "sample_and_generated") == {"q1", "q2", "q3"}
    text = {"q1": "a b", "q2": "a b c d", "q3": "a b c d e f g h i j", "q9": "a"}
    passages = [{"pid": f"{a}-{q}", "qid": q, "author": a, "variant": "normal", "factual": True, "answer_in": "x",
                 "text": t if a == "gpt35" else "h h h"} for q, t in text.items() for a in ("human", "gpt35")]
    ppl = [{"pid": f"{a}-{q}", "author": a, "variant": "normal", "factual": True, "tokens": 5,
            "perplexity": 10.0 * (i + 1) + (a == "gpt35")} for i, q in enumerate(text) for a in ("human", "gpt35")]

    def table1(scope):
        out = tmp_path / scope
        R.write_selfpref_report([], [], {}, ppl, passages, {"E": "gpt35"}, out, scope=scoped_questions(sample, scope))
        row = pd.read_csv(out / "tables/table1_knowledge.csv", index_col=[0, 1]).loc[("E", "gpt35")]
        return (float(row["Passage Statistics / Average Length"]),
                float(str(row["Passage Statistics / Perplexity"]).rstrip("†")),
                pd.read_parquet(out / "units_passages.parquet")["qid"].nunique())

    # sample: q1, q2 -> words (2 + 4) / 2, perplexity (11 + 21) / 2; q3 (generated) and q9 (style) left out
    assert table1("sample") == (3.0, 16.0, 2)
    assert table1("sample_and_generated") == (round((2 + 4 + 10) / 3, 2), 21.0, 3)


# --------------------------------------------------------------------------
# tries (the authors' retry protocol): requests sent per group
# --------------------------------------------------------------------------
def test_tries_columns_sum_the_requests_sent():
    rows = rerank_rows()
    rows[0]["tries"], rows[4]["tries"] = 3, 20  # a retried score and one given up after 20 tries
    key = {(r["prompt"], r["variant"], r["factual"], r["author"]): r for r in RW.rerank_summary(rows)}
    assert key[("normal", "normal", True, "human")]["tries"] == 3 + 1 + 1 + 1 + 20
    assert key[("normal", "normal", True, "gpt35")]["tries"] == 4  # rows without `tries` count 1
    gen = gen_rows()
    gen[4]["tries"], gen[7]["tries"] = 5, 2  # human FF given up after 5 tries; llama FT settled at try 2
    rates = RW.preference_rates(gen)
    assert (_rate(rates, "human")["tries"], _rate(rates, "llama")["tries"], _rate(rates, "all")["tries"]) == (
        6 + 5, 1 + 2 + 1, 15)
    assert "tries" in RW.RATE_COLUMNS and "tries" in RW.RERANK_SUMMARY_COLUMNS


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_tries_must_be_a_positive_integer(bad):
    rows = rerank_rows()
    rows[2]["tries"] = bad
    with pytest.raises(InputError, match=r"rerank judgments: row 3: field 'tries' is .*expected an integer >= 1"):
        RW.rerank_summary(rows)
    gen = gen_rows()
    gen[0]["tries"] = bad
    with pytest.raises(InputError, match=r"generation judgments: row 1: field 'tries'"):
        RW.preference_rates(gen)


# --------------------------------------------------------------------------
# intervals, per-unit records and paired comparisons
# --------------------------------------------------------------------------
from authbench.stats import IntervalSpec, mean_interval  # noqa: E402

SPEC = IntervalSpec(resamples=1000, seed=4, min_units=5)


def _study(n_q: int):
    """n_q questions: per question a human and a gpt35 TRUE passage scored by E (human 4 or 5, gpt35 2),
    two comparisons per question vs human (self chosen on even questions only in the first order)."""
    rerank, gen = [], []
    for q in range(n_q):
        for author, score in (("human", 4 + q % 2), ("gpt35", 2)):
            rerank.append({**_rr(author, True, score), "qid": f"q{q}", "pid": f"{author}{q}"})
        gen.append({**_g("human", T_, T_, "self_first", "self"), "qid": f"q{q}"})
        gen.append({**_g("human", T_, T_, "other_first", "self" if q % 2 == 0 else "other"), "qid": f"q{q}"})
        gen.append({**_g("llama", T_, T_, "self_first", "self"), "qid": f"q{q}"})  # vs llama: self exactly 50%
        gen.append({**_g("llama", T_, T_, "other_first", "other"), "qid": f"q{q}"})
    return rerank, gen


def _iv(rerank, gen, tags=None):
    units = RW.unit_frames(rerank, gen, {}, [], [])
    return TC.Intervals(units, SPEC, tags), units


def test_unit_frames_keep_every_unit_with_its_question():
    rerank, gen = _study(6)
    rerank.append({**_rr("human", True, None), "qid": "q0", "pid": "x"})
    units = RW.unit_frames(rerank, gen, {"gpt35": [{"qid": "q1", "level": 0}]}, [], [_p("human", "a b c")])
    assert list(units["rerank"].columns) == list(RW.UNIT_FRAMES["rerank"]) and len(units["rerank"]) == 13
    assert math.isnan(units["rerank"]["score"].iloc[-1])
    c = units["comparisons"]
    assert len(c) == 24 and c["qid"].nunique() == 6
    assert c["self_chosen"].tolist()[:8] == [1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert c["first"].tolist()[:4] == [1.0, 0.0, 1.0, 1.0]
    assert c["true_chosen"].isna().all()  # TT comparisons: no factual choice
    k = units["knowledge"].iloc[0]
    assert (k["class"], k["no"], k["full"]) == ("no", 1.0, 0.0)
    assert units["passages"]["words"].tolist() == [3.0]


def test_table6_intervals_are_cluster_bootstraps_over_questions():
    rerank, gen = _study(6)
    iv, units = _iv(rerank, gen)
    spec = ST.raw_score_tables(rerank, iv)["normal_true"]
    lo, hi = spec.lo.loc[("E",), ("Normal Setting & TRUE passages", "Human")], spec.hi.iat[0, 0]
    value = spec.values.iat[0, 0]
    assert value == 4.5 and lo <= value <= hi and lo < hi
    hum = units["rerank"][units["rerank"]["author"] == "human"]
    where = {"evaluator": "E", "prompt": "normal", "variant": "normal", "factual": True, "author": "human"}
    want = mean_interval(hum["score"], SPEC, ("rerank", "score", *where.items()), clusters=hum["qid"].tolist())
    assert (lo, hi) == pytest.approx(want, abs=0.005)
    # every gpt35 score is 2: a zero-width interval is the data's, not a placeholder
    assert (spec.lo.iat[0, 1], spec.hi.iat[0, 1]) == (2.0, 2.0)
    assert "No interval" not in spec.note and "[lo, hi]: 95% percentile-bootstrap interval" in spec.caption


def test_too_few_questions_blank_interval_said_in_the_note(tmp_path):
    rerank, gen = _study(4)
    iv, _ = _iv(rerank, gen)
    spec = ST.raw_score_tables(rerank, iv)["normal_true"]
    assert math.isnan(spec.lo.iat[0, 0]) and "No interval: fewer than 5 questions" in spec.note
    md = write_table(spec, tmp_path / "t")[1].read_text(encoding="utf-8")
    assert "4.50±0.58 |" in md and "[" not in md.splitlines()[-1]
    # no intervals at all without iv (the builders' old output)
    assert ST.raw_score_tables(rerank)["normal_true"].with_interval == (False, False)


def test_table2_difference_interval_and_table3_tags():
    rerank, gen = _study(8)
    iv, units = _iv(rerank, gen)
    t2 = ST.table2(rerank, {"E": "gpt35"}, iv)
    col = ("Normal Setting", "Diff (H − M)", "TRUE")
    d, lo = t2.values.loc[("E", "gpt35 (self)"), col], t2.lo.loc[("E", "gpt35 (self)"), col]
    assert d == 2.5 and lo <= d <= t2.hi.loc[("E", "gpt35 (self)"), col] and lo > 0
    frame, tags = R.comparisons(units, SPEC)
    vs50 = frame[frame["family"] == "preference vs 50% (E)"].set_index(["what", "a"])
    self_h = vs50.loc[("self_pref (%)", "E vs human")]
    assert self_h["delta"] == pytest.approx(100 * 12 / 16 - 50) and self_h["n"] == 8
    llama = vs50.loc[("self_pref (%)", "E vs llama")]
    assert (llama["delta"], llama["p"], llama["distinct"]) == (0.0, 1.0, "no")
    assert ("self_pref (%)", "E vs all") in vs50.index and not any(w.startswith("factual") for w, _ in vs50.index)
    t3 = PF.table3(RW.preference_rates(gen), TC.Intervals(units, SPEC, tags))
    assert t3.tags.loc[("E",), ("llama", "Self")] == "°" and t3.values.loc[("E",), ("llama", "Self")] == 50.0
    assert t3.tags.loc[("E",), ("Human", "Self")] == ("°" if self_h["distinct"] != "yes" else "")
    assert t3.tags.loc[("E",), ("Human", "Factual")] == ""  # no asymmetric pair: no value, no test, no tag
    assert t3.lo.loc[("E",), ("Human", "Self")] <= 75.0 <= t3.hi.loc[("E",), ("Human", "Self")]
    # author vs author on the scores: paired by question, Δ = human − gpt35
    auth = frame[frame["family"] == "scores: author vs author (E)"].iloc[0]
    assert (auth["a"], auth["b"], auth["delta"], auth["n"]) == ("E: human", "E: gpt35", 2.5, 8)


def test_write_selfpref_report_writes_units_and_comparisons(tmp_path):
    rerank, gen = _study(6)
    R.write_selfpref_report(rerank, gen, {}, [], [], {"E": "gpt35"}, tmp_path, spec=SPEC, intervals="columns")
    for name in RW.UNIT_FRAMES:
        assert len(pd.read_parquet(tmp_path / f"units_{name}.parquet").columns) == len(RW.UNIT_FRAMES[name])
    assert "| Paired comparisons | comparisons.tsv, comparisons.md | written |" in (
        tmp_path / "contents.md").read_text(encoding="utf-8")
    md = (tmp_path / "tables/table6_normal_true.md").read_text(encoding="utf-8")
    assert "Human lo | Normal Setting & TRUE passages / Human hi" in md
    head = (tmp_path / "tables/table3_preference.csv").read_text(encoding="utf-8").splitlines()[0]
    assert "Human / Self,Human / Self lo,Human / Self hi" in head


def test_datasets_report_reads_each_reports_tables_json(tmp_path):
    """The report of every dataset stacks the tables each dataset's report wrote to report/tables.json; a file
    that is not one is a named error (file, dataset), never a partial table."""
    import json

    for ds in ("nq", "marco"):
        R.write_selfpref_report(rerank_rows(), gen_rows(), {}, [], [_p("human", "a b c"), _p("gpt35", "a b")],
                                {"E": "gpt35"}, tmp_path / ds, dataset=ds, built_path=tmp_path / ds / "tables.json")
    built = {ds: tmp_path / ds / "tables.json" for ds in ("nq", "marco")}
    R.write_datasets_report(built, tmp_path / "all")
    rows = pd.read_csv(tmp_path / "all" / "tables" / "table2_rerank.csv")
    assert list(dict.fromkeys(rows["Dataset"])) == ["nq", "marco"]
    own = pd.read_csv(tmp_path / "nq" / "tables" / "table2_rerank.csv")
    pd.testing.assert_frame_equal(rows[rows["Dataset"] == "nq"].drop(columns="Dataset").reset_index(drop=True), own)
    (tmp_path / "bad.json").write_text(json.dumps({"table2_rerank": {"caption": "x"}}))
    with pytest.raises(InputError, match=r"bad.json: dataset 'marco': expected the tables .*KeyError 'table'"):
        R.write_datasets_report({"nq": built["nq"], "marco": tmp_path / "bad.json"}, tmp_path / "x")
    (tmp_path / "pickle.json").write_bytes(b"\x80\x05K\x01.")
    with pytest.raises(InputError, match="pickle.json: cannot read dataset 'nq'"):
        R.write_datasets_report({"nq": tmp_path / "pickle.json"}, tmp_path / "y")
