"""Tests for authbench.studies.ragauth.report (RAGAuth accuracy, its bootstrap CIs, Table 5)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from authbench.render.formatting import FAIL
from authbench.render.table_writers import write_table
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.ragauth import report as R
from authbench.studies.ragauth.outputs import write_rag_report
from authbench.studies.ragauth import tables as RT


def _spec(resamples, seed, min_units=5):
    return IntervalSpec(resamples=resamples, seed=seed, min_units=min_units)


def _row(qid, correct, topic=None, status="ok", answer="auto", gold="yes"):
    if answer == "auto":
        answer = gold if correct else ("no" if gold == "yes" else "yes")
    return {"qid": qid, "topic": topic, "gold": gold, "answer": answer, "status": status,
            "correct": correct, "n_docs": 5, "selected": ["d1"]}


def _cell(n_correct, n, fails=0, prefix="q", topics=None):
    """n rows, the first n_correct correct; the last ``fails`` are unparsed (answer None)."""
    rows = []
    for i in range(n):
        topic = topics[i] if topics else None
        if i >= n - fails:
            assert i >= n_correct
            rows.append(_row(f"{prefix}{i:03d}", False, topic, status="wrong_format", answer=None))
        else:
            rows.append(_row(f"{prefix}{i:03d}", i < n_correct, topic))
    return rows


# --------------------------------------------------------------------------
# accuracy_rows
# --------------------------------------------------------------------------
def test_accuracy_arithmetic_and_parse_failures():
    cells = {
        ("m1", "relevance", 3): _cell(3, 8, fails=2),
        ("m1", "no_filter", "all"): _cell(5, 10, fails=1),
    }
    rows = R.accuracy_rows(cells, _spec(200, 0))
    assert [(r["strategy"], r["k"], r["topic"]) for r in rows] == [
        ("no_filter", "all", "all"), ("relevance", "3", "all")]
    nf, rel = rows
    assert (nf["n"], nf["correct"], nf["parse_failures"]) == (10, 5, 1)
    assert nf["accuracy"] == pytest.approx(50.0)
    assert (rel["n"], rel["correct"], rel["parse_failures"]) == (8, 3, 2)
    assert rel["accuracy"] == pytest.approx(37.5)
    for r in rows:
        assert set(r) == set(R.ACCURACY_COLUMNS)
        assert 0.0 <= r["lo"] <= r["accuracy"] <= r["hi"] <= 100.0


def test_accuracy_status_alone_counts_as_failure():
    # a non-ok status counts even when an answer was extracted
    judged = [_row("a", True), _row("b", False, status="truncated", answer="no")]
    (row,) = R.accuracy_rows([(("m", "authority", 1), judged)], _spec(50, 0))
    assert row["parse_failures"] == 1 and row["correct"] == 1 and row["accuracy"] == 50.0


def test_accuracy_ci_is_percent_and_order_independent():
    judged = _cell(6, 10)
    (a,) = R.accuracy_rows({("m", "utility", 5): judged}, _spec(1000, 3))
    (b,) = R.accuracy_rows({("m", "utility", 5): list(reversed(judged))}, _spec(1000, 3))
    assert a == b
    flags = np.array([r["correct"] for r in sorted(judged, key=lambda r: r["qid"])], dtype=float)
    low, high = mean_interval(flags, _spec(1000, 3), ("ragauth", "m", "utility", "5", "all"))
    assert (a["lo"], a["hi"]) == (100 * low, 100 * high)
    assert a["lo"] < a["accuracy"] < a["hi"]


def test_accuracy_interval_blank_with_too_few_questions(tmp_path):
    (row,) = R.accuracy_rows({("m", "utility", 5): _cell(2, 4)}, _spec(100, 0))
    assert row["accuracy"] == 50.0 and math.isnan(row["lo"]) and math.isnan(row["hi"])
    (row,) = R.accuracy_rows({("m", "utility", 5): _cell(2, 4)}, _spec(100, 0, min_units=4))
    assert row["lo"] < 50.0 < row["hi"]
    R.write_accuracy([{**row, "lo": math.nan, "hi": math.nan}], tmp_path / "a.tsv")
    assert (tmp_path / "a.tsv").read_text(encoding="utf-8").splitlines()[1].split("\t")[7:9] == ["", ""]
    spec = RT.table5(R.accuracy_rows({("m", "utility", 5): _cell(2, 4)}, _spec(100, 0)), spec=_spec(100, 0))
    assert math.isnan(spec.lo.iat[0, 0]) and "No interval: fewer than 5 questions" in spec.note
    assert "No interval" not in RT.table5(R.accuracy_rows({("m", "utility", 5): _cell(3, 6)}, _spec(100, 0))).note


def test_unit_frame_records_every_question():
    cells = {("m", "relevance", 1): _cell(1, 3, fails=1, topics=["a", None, "a"]),
             ("m", "no_filter", "all"): list(reversed(_cell(2, 2, prefix="p")))}
    u = R.unit_frame(cells)
    assert list(u.columns) == list(R.UNIT_COLUMNS)
    assert u[["strategy", "k", "qid"]].values.tolist() == [
        ["no_filter", "all", "p000"], ["no_filter", "all", "p001"],
        ["relevance", "1", "q000"], ["relevance", "1", "q001"], ["relevance", "1", "q002"]]
    assert u["correct"].tolist() == [True, True, True, False, False]
    assert u["failed"].tolist() == [False, False, False, False, True]
    assert u["topic"].isna().tolist() == [True, True, False, True, False] and u["answer"].isna().tolist()[4]
    # the frame gives the same rows as the cells
    pd.testing.assert_frame_equal(pd.DataFrame(R.accuracy_rows(u, _spec(50, 0, min_units=2))),
                                  pd.DataFrame(R.accuracy_rows(cells, _spec(50, 0, min_units=2))))


def test_comparisons_paired_by_question_with_mcnemar():
    # no filter: q0-q9 right on the first 5; authority right on q0-q8: 4 discordant (q5-q8), all for authority
    cells = {("m", "no_filter", "all"): _cell(5, 10), ("m", "authority", 1): _cell(9, 10),
             ("m", "relevance", 1): _cell(5, 10), ("n", "authority", 1): _cell(4, 10)}
    frame, tags = R.comparisons(R.unit_frame(cells), _spec(2000, 0))
    assert frame[["family", "a", "b"]].values.tolist() == [
        ["vs w/o Filter (m)", "m, Relevance, k=1", "m, w/o Filter"],
        ["vs w/o Filter (m)", "m, Authority, k=1", "m, w/o Filter"],
        ["model vs model (Authority, k=1)", "m, Authority, k=1", "n, Authority, k=1"]]
    auth = frame.iloc[1]
    assert auth["delta"] == pytest.approx(40.0) and auth["n"] == 10 and auth["unit"] == "questions"
    assert auth["p"] == pytest.approx(2 * 0.5 ** 4) and auth["test"] == "McNemar exact"  # 4 of 4 discordant pairs one way
    assert auth["lo"] <= 40.0 <= auth["hi"]
    rel = frame.iloc[0]
    assert rel["delta"] == 0.0 and rel["p"] == 1.0 and rel["distinct"] == "no" and rel["test"] == "McNemar exact"
    assert frame.iloc[2]["delta"] == pytest.approx(50.0)
    # tags: Table 5 cells not distinguishable from w/o Filter (the relevance cell; the authority one at Holm's p)
    assert tags[("m", "relevance", "1")] == "°"
    assert (("m", "authority", "1") in tags) == (auth["distinct"] != "yes")
    assert all(k[1] != "no_filter" for k in tags)


def test_accuracy_topics():
    topics = ["sci", "health", None, "sci"]
    cells = {("m", "authority", 1): _cell(2, 4, topics=topics)}  # q0 sci ok, q1 health ok
    rows = R.accuracy_rows(cells, _spec(100, 0))
    assert [(r["topic"], r["n"], r["correct"]) for r in rows] == [
        ("all", 4, 2), ("health", 1, 1), ("sci", 2, 1), ("unlabelled", 1, 0)]
    assert rows[1]["accuracy"] == 100.0 and rows[3]["accuracy"] == 0.0
    # topics=False: overall rows only
    assert [r["topic"] for r in R.accuracy_rows(cells, _spec(100, 0), topics=False)] == ["all"]
    # no labels at all: overall rows only
    assert [r["topic"] for r in R.accuracy_rows({("m", "authority", 1): _cell(2, 4)}, _spec(100, 0))] == ["all"]


def test_accuracy_identity_forms_and_order():
    cells = [
        ({"model": "b", "strategy": "tld_prior", "k": "3"}, _cell(1, 2)),
        {"model": "a", "strategy": "relevance", "k": 1, "rows": _cell(1, 2)},
        (("b", "relevance", 10), _cell(1, 2)),
        (("b", "relevance", 3), _cell(1, 2)),
        (("b", "no_filter", "all"), _cell(1, 2)),
    ]
    got = [(r["model"], r["strategy"], r["k"]) for r in R.accuracy_rows(cells, _spec(10, 0))]
    assert got == [("b", "no_filter", "all"), ("b", "relevance", "3"), ("b", "relevance", "10"),
                   ("b", "tld_prior", "3"), ("a", "relevance", "1")]


@pytest.mark.parametrize("cells, match", [
    ({("m", "bogus", 1): []}, "unknown strategy"),
    ({("m", "no_filter", 3): []}, "k='all'"),
    ({("m", "relevance", "all"): []}, "positive int"),
    ({("m", "relevance", 0): []}, "positive int"),
    ([(("m", "relevance", 1), []), (("m", "relevance", "1"), [])], "duplicate answer cell"),
    ({("m", "relevance", 1): [_row("q", True), _row("q", False)]}, "duplicate question"),
    ({("m", "relevance", 1): [_row("q", True, answer=None, status="wrong_format")]}, "cannot be correct"),
    ({("m", "relevance", 1): [_row("q", True, topic="all")]}, "reserved"),
])
def test_accuracy_rejects_bad_input(cells, match):
    with pytest.raises(ValueError, match=match):
        R.accuracy_rows(cells, _spec(10, 0))


def test_write_accuracy_roundtrip(tmp_path):
    rows = R.accuracy_rows({("m", "no_filter", "all"): _cell(1, 3),
                            ("m", "authority", 1): _cell(2, 3, topics=["x", "y", "x"])}, _spec(50, 0))
    path = tmp_path / "sub" / "acc.tsv"
    R.write_accuracy(rows, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(R.ACCURACY_COLUMNS)
    df = pd.read_csv(path, sep="\t")
    assert len(df) == len(rows)
    t_mem, t_file = RT.table5(rows), RT.table5(df)
    pd.testing.assert_frame_equal(t_mem.values, t_file.values)
    pd.testing.assert_frame_equal(RT.topic_table(rows).values, RT.topic_table(df).values)


# --------------------------------------------------------------------------
# Table 5
# --------------------------------------------------------------------------
def _paper_cells():
    """m1: authority best, utility second at every k; m2 has no oracle cell at k=5."""
    cells = {
        ("m1", "no_filter", "all"): _cell(5, 10),                  # 50
        ("m1", "relevance", 1): _cell(4, 10),                      # 40
        ("m1", "relevance", 3): _cell(5, 10),                      # 50
        ("m1", "utility", 1): _cell(6, 10),                        # 60
        ("m1", "utility", 3): _cell(6, 10, fails=2),               # 60
        ("m1", "authority", 1): _cell(7, 10),                      # 70
        ("m1", "authority", 3): _cell(8, 10),                      # 80
        ("m1", "pagerank_oracle", 1): _cell(10, 10),               # 100, never marked
        ("m1", "pagerank_oracle", 3): _cell(9, 10),
        ("m2", "no_filter", "all"): _cell(6, 10, fails=1),         # 60
        ("m2", "relevance", 1): _cell(6, 10),                      # 60 (ties w/o Filter)
        ("m2", "relevance", 3): _cell(2, 10),
        ("m2", "utility", 1): _cell(3, 10),
        ("m2", "utility", 3): _cell(3, 10),
        ("m2", "authority", 1): _cell(5, 10),
        ("m2", "authority", 3): _cell(2, 3),                       # 66.666.. -> 66.67
        ("m2", "pagerank_oracle", 1): _cell(1, 10),
    }
    return cells


def test_table5_layout_values_and_marks():
    spec = RT.table5(R.accuracy_rows(_paper_cells(), _spec(50, 0)))
    assert list(spec.values.index) == [("m1", "1"), ("m1", "3"), ("m2", "1"), ("m2", "3")]
    assert spec.values.index.names == ["Model", "k"]
    assert [c[0] for c in spec.values.columns] == [
        "w/o Filter", "Relevance", "Utility", "Authority", "PageRank oracle", "fail%"]
    v = spec.values
    col = lambda name: [v.loc[r, (name,)] for r in v.index]  # noqa: E731
    assert col("w/o Filter") == [50.0, 50.0, 60.0, 60.0]  # repeated on every k row
    assert col("Relevance") == [40.0, 50.0, 60.0, 20.0]
    assert col("Authority") == [70.0, 80.0, 50.0, 66.67]
    oracle = col("PageRank oracle")
    assert oracle[:3] == [100.0, 90.0, 10.0] and math.isnan(oracle[3])
    # fail%: over every cell shown in the row, the no-filter cell included
    # m1 k=3: 2 of 50 answers; m2 k=1: 1 of 50; m2 k=3: 1 of 33 (no oracle cell)
    assert col("fail%") == [0.0, 4.0, 2.0, 3.03]

    m = spec.marks
    mk = lambda r: [m.loc[r, (c,)] for c in ("w/o Filter", "Relevance", "Utility", "Authority")]  # noqa: E731
    assert mk(("m1", "1")) == ["", "", "second", "best"]
    assert mk(("m1", "3")) == ["", "", "second", "best"]
    assert mk(("m2", "1")) == ["best", "best", "", "second"]   # tie shares bold
    assert mk(("m2", "3")) == ["second", "", "", "best"]
    # the oracle is best in m1's rows but never marked, nor is fail%
    assert set(m[("PageRank oracle",)]) == {""}
    assert set(m[(FAIL,)]) == {""}
    assert spec.highlight_groups == {"acc": [("w/o Filter",), ("Relevance",), ("Utility",), ("Authority",)]}
    assert spec.entries.loc[("m2", "3"), ("PageRank oracle",)] == "–"
    assert "Answer accuracy (%) on RAGAuth across 2 models" in spec.caption
    assert "PageRank oracle" in spec.caption and "never marked" in spec.caption
    assert "TLD prior" not in spec.caption


def test_table5_columns_only_for_present_strategies():
    cells = {
        ("m", "relevance", 1): _cell(1, 4),
        ("m", "authority", 1): _cell(3, 4),
        ("m", "tld_prior", 1): _cell(4, 4),
        ("m", "authority", 5): _cell(2, 4),
    }
    spec = RT.table5(R.accuracy_rows(cells, _spec(20, 0)))
    assert [c[0] for c in spec.values.columns] == ["Relevance", "Authority", "TLD prior", "fail%"]
    assert list(spec.values.index) == [("m", "1"), ("m", "5")]
    assert spec.marks.loc[("m", "1"), ("Authority",)] == "best"
    assert spec.marks.loc[("m", "1"), ("Relevance",)] == "second"
    assert spec.marks.loc[("m", "1"), ("TLD prior",)] == ""
    assert math.isnan(spec.values.loc[("m", "5"), ("Relevance",)])
    assert "w/o Filter" not in spec.caption and "TLD prior: documents ranked" in spec.caption
    assert "(among Relevance and Authority)" in spec.caption


def test_table5_uses_overall_rows_and_rejects_no_k():
    rows = R.accuracy_rows({("m", "authority", 1): _cell(1, 4, topics=["a", "a", "b", "b"])}, _spec(20, 0))
    spec = RT.table5(rows)
    assert spec.values.loc[("m", "1"), ("Authority",)] == 25.0
    with pytest.raises(ValueError, match="only no_filter"):
        RT.table5(R.accuracy_rows({("m", "no_filter", "all"): _cell(1, 2)}, _spec(10, 0)))
    with pytest.raises(ValueError, match="no accuracy rows"):
        RT.table5([])


# --------------------------------------------------------------------------
# topic table
# --------------------------------------------------------------------------
def test_topic_table_without_topics_has_only_the_overall_group():
    spec = RT.topic_table(R.accuracy_rows(_paper_cells(), _spec(10, 0)))
    assert {col[0] for col in spec.values.columns} == {"All"}
    assert [col[1] for col in spec.values.columns] == ["acc", "n"]
    assert spec.with_interval == (True, False)


def test_topic_table_layout():
    topics = ["sci", "health", None, "sci"]
    cells = {("m", "no_filter", "all"): _cell(1, 4, topics=topics),
             ("m", "authority", 3): _cell(3, 3, topics=["sci", "sci", "health"])}
    rows = R.accuracy_rows(cells, _spec(100, 0))
    spec = RT.topic_table(rows)
    assert list(spec.values.index) == [("m", "w/o Filter", "all"), ("m", "Authority", "3")]
    heads = list(dict.fromkeys(c[0] for c in spec.values.columns))
    assert heads == ["All", "health", "sci", "unlabelled"]
    assert [c[1] for c in spec.values.columns[:2]] == ["acc", "n"]
    v = spec.values
    assert v.loc[("m", "w/o Filter", "all"), ("sci", "acc")] == 50.0
    assert v.loc[("m", "w/o Filter", "all"), ("sci", "n")] == 2
    assert v.loc[("m", "Authority", "3"), ("All", "acc")] == 100.0
    # 3 questions: no interval, and the note says why
    assert math.isnan(spec.lo.loc[("m", "Authority", "3"), ("All", "acc")]) and "fewer than 5" in spec.note
    # a topic absent from a cell: missing accuracy, n 0
    assert math.isnan(v.loc[("m", "Authority", "3"), ("unlabelled", "acc")])
    assert v.loc[("m", "Authority", "3"), ("unlabelled", "n")] == 0
    assert set(spec.marks.to_numpy().ravel()) == {""}


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------
def test_write_rag_report(tmp_path):
    out = tmp_path / "out"
    paths = write_rag_report(_paper_cells(), _spec(200, 0), out, "off")
    assert {"accuracy.tsv", "units.parquet", "comparisons.tsv", "contents.md", "scorecard.md"} <= {
        p.name for p in paths} | {"units.parquet"}
    assert [p.name for p in paths if p.parent.name == "tables"] == [
        "table5_ragauth.csv", "table5_ragauth.md", "table5_ragauth.tex",
        "table5_topics.csv", "table5_topics.md", "table5_topics.tex"]
    assert all(p.exists() for p in paths)
    assert (out / "accuracy.tsv").read_text(encoding="utf-8").startswith("model\t")
    units = pd.read_parquet(out / "units.parquet")
    assert list(units.columns) == list(R.UNIT_COLUMNS)
    assert len(units) == sum(len(rows) for rows in _paper_cells().values())
    contents = (out / "contents.md").read_text(encoding="utf-8")
    assert "| tables/table5_ragauth.csv/.md/.tex | written |" in contents
    assert "| tables/table5_topics.csv/.md/.tex | written |" in contents
    assert "| units.parquet | written |" in contents and "| comparisons.tsv, comparisons.md | written |" in contents
    md = (out / "tables" / "table5_ragauth.md").read_text(encoding="utf-8")
    assert "| m1 | 1 | 50.00 | 40.00 | <u>60.00</u> | **70.00** | 100.00 | 0.00 |" in md.replace("°", "")
    assert "**100.00" not in md and "[" not in md.split("\n", 2)[2]  # off: no intervals shown
    # ° exactly where the comparison vs w/o Filter is not distinguishable
    comp = pd.read_csv(out / "comparisons.tsv", sep="\t", keep_default_na=False)
    assert (out / "comparisons.md").read_text(encoding="utf-8").startswith("# RAGAuth: paired comparisons")
    rel = comp[(comp["a"] == "m1, Relevance, k=1") & (comp["b"] == "m1, w/o Filter")].iloc[0]
    assert ("| 40.00° |" in md) == (rel["distinct"] != "yes")
    assert {f.split(" (")[0] for f in comp["family"]} == {"vs w/o Filter", "model vs model"}
    assert "°: not distinguishable from the model's w/o Filter" in md
    csv_text = (out / "tables" / "table5_ragauth.csv").read_text(encoding="utf-8")
    assert csv_text.splitlines()[0] == ",".join(
        ["Model", "k"] + [f"{c}{x}" for c in ("w/o Filter", "Relevance", "Utility", "Authority", "PageRank oracle",
                                               "fail%") for x in ("", " lo", " hi")])
    assert "**" not in csv_text and "°" not in csv_text
    # inline: value [lo, hi] (10 questions per cell), blank for m2's 3-question authority cell, said in the caption
    write_rag_report(_paper_cells(), _spec(200, 0), out, "inline")
    md = (out / "tables" / "table5_ragauth.md").read_text(encoding="utf-8")
    row = next(ln for ln in md.splitlines() if ln.startswith("| m1 | 1 |"))
    assert row.count("[") == 6
    row = next(ln for ln in md.splitlines() if ln.startswith("|  | 3 |") and "66.67" in ln)
    assert "66.67 [" not in row and "No interval: fewer than 5 questions" in md

    topical = {("m", "authority", 1): _cell(1, 2, topics=["a", "b"])}
    paths = write_rag_report(topical, _spec(10, 0), tmp_path / "t")
    assert sorted(p.name for p in paths if p.parent.name == "tables") == sorted(
        f"{stem}.{ext}" for stem in ("table5_ragauth", "table5_topics") for ext in ("csv", "md", "tex"))
    tex = (tmp_path / "t" / "tables" / "table5_topics.tex").read_text(encoding="utf-8")
    assert r"\multicolumn{2}{c}{All}" in tex and r"95\%" in tex


def test_latex_bold_and_underline(tmp_path):
    """Hand-written expectation: ** in Markdown is \\textbf in LaTeX, <u> is \\underline."""
    cells = {("Qwen3-8B", "relevance", 1): _cell(1, 4), ("Qwen3-8B", "utility", 1): _cell(2, 4),
             ("Qwen3-8B", "authority", 1): _cell(3, 4), ("Qwen3-8B", "pagerank_oracle", 1): _cell(4, 4)}
    spec = RT.table5(R.accuracy_rows(cells, _spec(10, 0)))
    md_path, tex_path = write_table(spec, tmp_path / "t5")[1:]
    md_row = [ln for ln in md_path.read_text(encoding="utf-8").splitlines() if ln.startswith("| Qwen3-8B")]
    assert md_row == ["| Qwen3-8B | 1 | 25.00 | <u>50.00</u> | **75.00** | 100.00 | 0.00 |"]
    tex = tex_path.read_text(encoding="utf-8")
    assert r"Qwen3-8B & 1 & 25.00 & \underline{50.00} & \textbf{75.00} & 100.00 & 0.00 \\" in tex
    assert r"Model & k & Relevance & Utility & Authority & PageRank oracle & fail\% \\" in tex
    assert r"(k in \{1\})" in tex
    assert "**" not in tex and "<u>" not in tex
