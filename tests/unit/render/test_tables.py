"""Tests for authbench.render.tables and authbench.render.table_writers (the
builder, marks, stacking, the CSV / Markdown / LaTeX files) and
authbench.studies.authority.tables (paper Tables 1, 2, 3, 8, 9, 10)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from authbench.render.table_writers import write_table
from authbench.studies.authority import tables as A
from authbench.studies.authority.rows import PRED_COLUMNS

BENCH = "domainauth"


def _row(model, context, setting, judge, derivation, metric, value,
         difficulty="all", n=10, n_constant=0, pfr=0.0, benchmark=BENCH):
    return dict(benchmark=benchmark, model=model, context=context, setting=setting,
                judge=judge, derivation=derivation, difficulty=difficulty,
                metric=metric, value=value, n=n, n_constant=n_constant,
                parse_failure_rate=pfr)


def _main_rows(model, context, setting, rhos, taus, n_constant=(0, 0, 0, 0, 0),
               pfr=(0.0, 0.0, 0.0, 0.0, 0.0), bubble_rho=None):
    """rhos/taus: values for point, list_rank, list_score, pair_rank(bubble),
    pair_score(average); None = row absent."""
    judges = [("point", "direct"), ("list_rank", "direct"), ("list_score", "direct"),
              ("pair_rank", "bubble"), ("pair_score", "average")]
    rows = []
    for (j, d), r, t, nc, pf in zip(judges, rhos, taus, n_constant, pfr):
        if r is not None:
            rows.append(_row(model, context, setting, j, d, "rho", r, n_constant=nc, pfr=pf))
        if t is not None:
            rows.append(_row(model, context, setting, j, d, "tau", t, n_constant=nc, pfr=pf))
    if bubble_rho is not None:
        rows.append(_row(model, context, setting, "pair_score", "bubble", "rho", bubble_rho,
                         pfr=pfr[4]))
    return rows


@pytest.fixture
def metrics():
    rows = []
    # LLM m1, w/o: point rho best (0.71346 -> 71.35), list_score second.
    rows += _main_rows("m1", "wo_text", "fine",
                       rhos=[0.71346, 0.40, 0.60, 0.10, 0.50],
                       taus=[0.30, 0.55, 0.20, 0.10, 0.50],
                       n_constant=(2, 0, 1, 0, 3), pfr=(0.995, 0.0, 0.125, 0.0, 0.5),
                       bubble_rho=0.45)
    # LLM m1, w/: a tie for best rho (two bold), and a NaN tau.
    rows += _main_rows("m1", "w_text", "fine",
                       rhos=[0.60, 0.60, 0.30, 0.50, 0.20],
                       taus=[np.nan, 0.40, 0.41, 0.20, 0.10],
                       bubble_rho=0.55)
    # LLM m2 only has the point judge, only w/o.
    rows += _main_rows("m2", "wo_text", "fine",
                       rhos=[0.33, None, None, None, None],
                       taus=[0.22, None, None, None, None])
    # baseline first in the data but must be listed last and never marked.
    rows = _main_rows("baseline:tld_prior", "wo_text", "fine",
                      rhos=[0.99, None, None, None, None],
                      taus=[0.98, None, None, None, None], pfr=(np.nan,) * 5) + rows
    # a coarse row and another benchmark that must not leak into the fine table.
    rows += _main_rows("m1", "wo_text", "coarse", rhos=[0.11] * 5, taus=[0.12] * 5)
    rows += [_row("m1", "wo_text", "fine", "point", "direct", "rho", 0.01, benchmark="other")]
    return pd.DataFrame(rows)


def _md_row(md: str, first_cells: str) -> list[str]:
    for line in md.splitlines():
        if line.startswith("| " + first_cells + " |"):
            return [c.strip() for c in line.strip().strip("|").split("|")]
    raise AssertionError(f"row {first_cells!r} not found in\n{md}")


def _tex_row(tex: str, start: str) -> list[str]:
    for line in tex.splitlines():
        if line.startswith(start):
            return [c.strip() for c in line.rstrip().removesuffix(r"\\").split(" & ")]
    raise AssertionError(f"row {start!r} not found in\n{tex}")


def _written(spec, tmp_path, name="t"):
    paths = write_table(spec, tmp_path / name, "My caption")
    assert [p.name for p in paths] == [f"{name}.csv", f"{name}.md", f"{name}.tex"]
    return tuple(p.read_text(encoding="utf-8") for p in paths)


# --------------------------------------------------------------------------
# Tables 1 / 2
# --------------------------------------------------------------------------
def test_main_rows_order_and_shape(metrics):
    spec = A.table_main(metrics, BENCH, "fine")
    assert list(spec.values.index) == [
        ("m1", "w/o"), ("m1", "w/"), ("m2", "w/o"), ("m2", "w/"), ("baseline:tld_prior", "w/o"),
    ]
    assert spec.values.shape == (5, 5 * 3 + 5)
    assert list(spec.values.columns[:3]) == [("PointJudge", "", "ρ"), ("PointJudge", "", "τ"),
                                             ("PointJudge", "", "fail%")]
    assert spec.values.columns[-1] == ("constant lists", "", "PairScore")


def test_main_values_and_cells(metrics):
    spec = A.table_main(metrics, BENCH, "fine")
    v, c = spec.values, spec.entries
    assert v.loc[("m1", "w/o"), ("PointJudge", "", "ρ")] == 71.35
    assert c.loc[("m1", "w/o"), ("PointJudge", "", "ρ")] == "71.35"
    # pair_score uses the "average" derivation, not bubble (0.45)
    assert c.loc[("m1", "w/o"), ("PairJudge", "PointScore", "ρ")] == "50.00"
    assert c.loc[("m1", "w/o"), ("PointJudge", "", "fail%")] == "99.50"
    assert c.loc[("m1", "w/o"), ("ListJudge", "PointScore", "fail%")] == "12.50"
    assert c.loc[("m1", "w/o"), ("constant lists", "", "Point")] == "2"
    assert c.loc[("m1", "w/o"), ("constant lists", "", "PairScore")] == "3"
    assert c.loc[("m1", "w/"), ("PointJudge", "", "τ")] == "–"
    # missing judge / context -> dash, no exception
    assert c.loc[("m2", "w/o"), ("ListJudge", "ListRank", "ρ")] == "–"
    assert (c.loc[("m2", "w/")] == "–").all()
    # baseline: only PointJudge filled, parse failure NaN -> dash
    base = c.loc[("baseline:tld_prior", "w/o")]
    assert base[("PointJudge", "", "ρ")] == "99.00"
    assert base[("PointJudge", "", "fail%")] == "–"
    assert base[("ListJudge", "ListRank", "ρ")] == "–"


def test_main_marks(metrics):
    spec = A.table_main(metrics, BENCH, "fine")
    m = spec.marks
    r = ("m1", "w/o")
    assert m.loc[r, ("PointJudge", "", "ρ")] == "best"
    assert m.loc[r, ("ListJudge", "PointScore", "ρ")] == "second"
    assert m.loc[r, ("ListJudge", "ListRank", "ρ")] == ""
    # τ is a separate group
    assert m.loc[r, ("ListJudge", "ListRank", "τ")] == "best"
    assert m.loc[r, ("PairJudge", "PointScore", "τ")] == "second"
    # fail% (99.50 > every metric) never takes part
    assert m.loc[r, ("PointJudge", "", "fail%")] == ""
    assert (m.loc[r, [col for col in m.columns if col[2] in ("fail%",) or col[0] == "constant lists"]] == "").all()
    # tie: both best, next distinct value second
    r2 = ("m1", "w/")
    assert m.loc[r2, ("PointJudge", "", "ρ")] == "best"
    assert m.loc[r2, ("ListJudge", "ListRank", "ρ")] == "best"
    assert m.loc[r2, ("PairJudge", "PairRank", "ρ")] == "second"
    assert m.loc[r2, ("PointJudge", "", "τ")] == ""  # NaN never marked
    # baseline rows never marked
    assert (m.loc[("baseline:tld_prior", "w/o")] == "").all()
    assert spec.baseline_rows == [("baseline:tld_prior", "w/o")]


def test_main_markdown(metrics, tmp_path):
    spec = A.table_main(metrics, BENCH, "fine")
    _, md, _ = _written(spec, tmp_path)
    assert md.splitlines()[0] == "My caption"
    header = md.splitlines()[2]
    assert "| Model | Ctx | PointJudge / ρ | PointJudge / τ | PointJudge / fail% | ListJudge / ListRank / ρ" in header
    row = _md_row(md, "m1 | w/o")
    assert row[2] == "**71.35**"
    assert row[8] == "<u>60.00</u>"  # ListJudge PointScore ρ
    assert row[4] == "99.50"  # fail%, unmarked
    assert row[5] == "40.00"
    tie = _md_row(md, " | w/")  # repeated model name is blanked
    assert tie[2] == "**60.00**" and tie[5] == "**60.00**"
    assert tie[11] == "<u>50.00</u>"
    assert tie[3] == "–"
    base = _md_row(md, "baseline:tld_prior | w/o")
    assert base[2] == "99.00" and base[3] == "98.00"
    assert "**" not in " ".join(base) and "<u>" not in " ".join(base)
    assert base[5] == "–"


def test_main_latex(metrics, tmp_path):
    spec = A.table_main(metrics, BENCH, "fine")
    _, _, tex = _written(spec, tmp_path, name="table1_fine")
    assert tex.startswith("\\begin{table}")
    for piece in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{My caption}",
                  r"\label{tab:table1_fine}", r"\multicolumn{3}{c}{PointJudge}",
                  r"\multicolumn{6}{c}{ListJudge}", r"\multicolumn{3}{c}{ListRank}",
                  r"\cmidrule(lr){3-5}", r"$\rho$ & $\tau$ & fail\%"):
        assert piece in tex, piece
    row = _tex_row(tex, "m1 & w/o")
    assert row[2] == r"\textbf{71.35}"
    assert row[8] == r"\underline{60.00}"
    assert row[4] == "99.50"
    base = _tex_row(tex, r"baseline:tld\_prior & w/o")
    assert base[2] == "99.00" and base[5] == "--"
    assert "textbf" not in " ".join(base)
    tie = _tex_row(tex, " & w/ ")
    assert tie[2] == tie[5] == r"\textbf{60.00}"


def test_main_csv_roundtrip(metrics, tmp_path):
    spec = A.table_main(metrics, BENCH, "fine")
    csv_text, _, _ = _written(spec, tmp_path)
    assert "**" not in csv_text and "<u>" not in csv_text and "–" not in csv_text
    back = pd.read_csv(tmp_path / "t.csv")
    assert list(back.columns[:3]) == ["Model", "Ctx", "PointJudge / ρ"]
    assert list(back["Model"]) == ["m1", "m1", "m2", "m2", "baseline:tld_prior"]
    np.testing.assert_allclose(back.iloc[:, 2:].to_numpy(dtype=float),
                               spec.values.to_numpy(dtype=float), equal_nan=True)
    assert back.loc[0, "PointJudge / ρ"] == 71.35
    assert math.isnan(back.loc[1, "PointJudge / τ"])
    assert "71.35,30.00,99.50" in csv_text


def test_main_coarse_is_separate(metrics):
    spec = A.table_main(metrics, BENCH, "coarse")
    assert list(spec.values.index) == [("m1", "w/o")]
    assert spec.entries.iloc[0, 0] == "11.00"


def test_main_errors(metrics):
    with pytest.raises(ValueError, match="empty"):
        A.table_main(metrics.iloc[0:0], BENCH, "fine")
    with pytest.raises(ValueError, match="no metrics rows.*entityauth"):
        A.table_main(metrics, "entityauth", "fine")
    with pytest.raises(ValueError, match="missing column"):
        A.table_main(metrics.drop(columns=["judge"]), BENCH, "fine")
    dup = pd.concat([metrics, metrics.iloc[[0]].assign(value=0.5)])
    with pytest.raises(ValueError, match="conflicting duplicate"):
        A.table_main(dup, BENCH, "fine")
    # an identical duplicate is harmless
    A.table_main(pd.concat([metrics, metrics.iloc[[0]]]), BENCH, "fine")


def test_latex_escape_in_caption_and_labels(metrics, tmp_path):
    m = metrics.copy()
    m.loc[m["model"] == "m2", "model"] = "r&d_50%"
    spec = A.table_main(m, BENCH, "fine")
    write_table(spec, tmp_path / "x", "Top_1 & 50% done")
    tex = (tmp_path / "x.tex").read_text()
    assert r"\caption{Top\_1 \& 50\% done}" in tex
    assert _tex_row(tex, r"r\&d\_50\% & w/o")[2] == r"\textbf{33.00}"


# --------------------------------------------------------------------------
# Table 3
# --------------------------------------------------------------------------
@pytest.fixture
def pair_metrics():
    rows = []
    vals = {  # (model, difficulty) -> accuracies for pair_rank, pair_score, point
        ("m1", "hard"): (0.30, 0.70, 0.50),
        ("m1", "easy"): (0.90, 0.90, 0.80),
        ("m2", "easy"): (0.60, np.nan, 0.65),
    }
    for (model, diff), accs in vals.items():
        for judge, acc in zip(("pair_rank", "pair_score", "point"), accs):
            rows.append(_row(model, "wo_text", "pairs", judge, "direct", "acc", acc,
                             difficulty=diff, pfr=0.25))
    rows.append(_row("baseline:random", "wo_text", "pairs", "point", "direct", "acc", 0.99,
                     difficulty="easy", pfr=np.nan))
    rows.append(_row("m1", "wo_text", "fine", "point", "direct", "rho", 0.5))
    return pd.DataFrame(rows)


def test_pairs_table(pair_metrics, tmp_path):
    spec = A.table_pairs(pair_metrics, BENCH)
    assert list(spec.values.index) == [("m1", "Easy"), ("m1", "Hard"), ("m2", "Easy"),
                                       ("m2", "Hard"), ("baseline:random", "Easy")]
    # only the w/o context exists, so no w/ columns
    assert list(spec.values.columns) == [
        ("PairJudge(PR)", "w/o ctx", "acc"), ("PairJudge(PR)", "w/o ctx", "fail%"),
        ("PairJudge(S)", "w/o ctx", "acc"), ("PairJudge(S)", "w/o ctx", "fail%"),
        ("PointJudge", "w/o ctx", "acc"), ("PointJudge", "w/o ctx", "fail%"),
    ]
    _, md, tex = _written(spec, tmp_path)
    easy = _md_row(md, "m1 | Easy")
    assert easy[2:] == ["**90.00**", "25.00", "**90.00**", "25.00", "<u>80.00</u>", "25.00"]
    hard = _md_row(md, " | Hard")
    assert hard[2:] == ["30.00", "25.00", "**70.00**", "25.00", "<u>50.00</u>", "25.00"]
    m2 = _md_row(md, "m2 | Easy")
    assert m2[2:] == ["<u>60.00</u>", "25.00", "–", "25.00", "**65.00**", "25.00"]
    base = _md_row(md, "baseline:random | Easy")
    assert base[2:] == ["–", "–", "–", "–", "99.00", "–"]
    assert r"\multicolumn{2}{c}{w/o ctx}" in tex
    assert r"\textbf{65.00}" in _tex_row(tex, "m2 & Easy")


def test_pairs_shows_both_contexts_when_present(pair_metrics):
    extra = pd.DataFrame([_row("m1", "w_text", "pairs", "point", "direct", "acc", 0.95,
                               difficulty="easy")])
    spec = A.table_pairs(pd.concat([pair_metrics, extra]), BENCH)
    assert ("PointJudge", "w/ ctx", "acc") in spec.values.columns
    assert spec.marks.loc[("m1", "Easy"), ("PointJudge", "w/ ctx", "acc")] == "best"
    assert spec.entries.loc[("m1", "Easy"), ("PairJudge(PR)", "w/ ctx", "acc")] == "–"


def test_pairs_marks_per_row_per_context_as_the_paper():
    """Table 3 of the paper, Qwen3-8B Hard and Qwen3-14B Easy: bold/underline
    are per row per context (w/o: 31.36 bold, 14.96 underlined; w/: 54.18 bold,
    18.72 underlined). Ranked across all six columns, 54.18 and 31.36 would be
    the only marks of the Hard row."""
    paper = {  # (model, difficulty) -> {(judge, context): accuracy %}
        ("Qwen3-8B", "hard"): {("pair_rank", "wo_text"): 14.96, ("pair_rank", "w_text"): 16.20,
                               ("pair_score", "wo_text"): 14.46, ("pair_score", "w_text"): 18.72,
                               ("point", "wo_text"): 31.36, ("point", "w_text"): 54.18},
        ("Qwen3-14B", "easy"): {("pair_rank", "wo_text"): 99.76, ("pair_rank", "w_text"): 95.62,
                                ("pair_score", "wo_text"): 97.02, ("pair_score", "w_text"): 91.94,
                                ("point", "wo_text"): 98.52, ("point", "w_text"): 99.38},
    }
    rows = [_row(m, ctx, "pairs", judge, "direct", "acc", acc / 100, difficulty=d)
            for (m, d), accs in paper.items() for (judge, ctx), acc in accs.items()]
    spec = A.table_pairs(pd.DataFrame(rows), BENCH)
    marks = spec.marks.loc[("Qwen3-8B", "Hard")]
    got = {(c[0], c[1]): marks[c] for c in spec.values.columns if c[2] == "acc" and marks[c]}
    assert got == {("PointJudge", "w/o ctx"): "best", ("PairJudge(PR)", "w/o ctx"): "second",
                   ("PointJudge", "w/ ctx"): "best", ("PairJudge(S)", "w/ ctx"): "second"}
    marks = spec.marks.loc[("Qwen3-14B", "Easy")]
    got = {(c[0], c[1]): marks[c] for c in spec.values.columns if c[2] == "acc" and marks[c]}
    assert got == {("PairJudge(PR)", "w/o ctx"): "best", ("PointJudge", "w/o ctx"): "second",
                   ("PointJudge", "w/ ctx"): "best", ("PairJudge(PR)", "w/ ctx"): "second"}
    assert set(spec.highlight_groups) == {"acc:wo_text", "acc:w_text"}


def test_pairs_requires_pairs_rows(metrics):
    with pytest.raises(ValueError, match="setting='pairs'"):
        A.table_pairs(metrics, BENCH)


# --------------------------------------------------------------------------
# Tables 9 / 10
# --------------------------------------------------------------------------
def test_derivations_table(metrics, tmp_path):
    spec = A.table_derivations(metrics, BENCH, "fine")
    assert list(spec.values.index) == [("m1", "w/o"), ("m1", "w/"), ("m2", "w/o"), ("m2", "w/")]
    assert [c[0] for c in spec.values.columns] == ["PairRank", "PointScore_Bbl", "PointScore_Pt",
                                                   "fail%", "fail%"]
    _, md, tex = _written(spec, tmp_path)
    # m1 w/o: PairRank 10, Bbl 45, Pt 50 ; pair_score fail 50%
    assert _md_row(md, "m1 | w/o")[2:] == ["10.00", "<u>45.00</u>", "**50.00**", "0.00", "50.00"]
    # m1 w/: PairRank 50, Bbl 55, Pt 20
    assert _md_row(md, " | w/")[2:] == ["<u>50.00</u>", "**55.00**", "20.00", "0.00", "0.00"]
    assert _md_row(md, "m2 | w/o")[2:] == ["–"] * 5
    assert r"PointScore$_{\mathrm{Bbl}}$" in tex
    assert "baseline" not in md


def test_derivations_table_with_bradley_terry_rows(metrics, tmp_path):
    # the BT columns come after the paper's, unranked: the paper's columns keep their values and marks
    # even where a BT value is higher (m1 w/o: 90 > every paper value)
    fitted = pd.concat([metrics, pd.DataFrame([
        _row("m1", "wo_text", "fine", "pair_rank", "bt", "rho", 0.90), _row("m1", "wo_text", "fine", "pair_score", "bt",
                                                                            "rho", 0.30)])], ignore_index=True)
    spec = A.table_derivations(fitted, BENCH, "fine")
    assert [c[0] for c in spec.values.columns] == ["PairRank", "PointScore_Bbl", "PointScore_Pt", "PairRank_BT",
                                                   "PointScore_BT", "fail%", "fail%"]
    _, md, _ = _written(spec, tmp_path)
    assert _md_row(md, "m1 | w/o")[2:] == ["10.00", "<u>45.00</u>", "**50.00**", "90.00", "30.00", "0.00", "50.00"]
    assert _md_row(md, " | w/")[2:] == ["<u>50.00</u>", "**55.00**", "20.00", "–", "–", "0.00", "0.00"]


# --------------------------------------------------------------------------
# Table 8
# --------------------------------------------------------------------------
@pytest.fixture
def pred():
    rows = [
        # model, context, domain, level, pred, category
        ("m1", "wo_text", "a.gov", 5, 9.0, "gov"),
        ("m1", "wo_text", "b.gov", 6, 8.0, "gov"),
        ("m1", "wo_text", "c.edu", 4, np.nan, "edu"),
        ("m1", "wo_text", "d.edu", 7, 7.0, "edu"),
        ("m1", "wo_text", "x.com", 1, 9.0, "social"),
        ("m1", "wo_text", "y.org", 2, 2.0, None),
        ("m1", "w_text", "a.gov", 5, 5.0, "gov"),
        ("m1", "w_text", "b.gov", 6, 5.5, "gov"),
        ("m1", "w_text", "x.com", 1, 0.0, "social"),
    ]
    return pd.DataFrame(rows, columns=list(PRED_COLUMNS))


def test_categories_table(pred, tmp_path):
    spec = A.table_categories(pred, ["gov", "edu", "social"])
    assert list(spec.values.index) == [("m1", "w/o"), ("m1", "w/")]
    c = spec.entries
    assert c.loc[("m1", "w/o"), (".gov", "Pred")] == "8.50"
    assert c.loc[("m1", "w/o"), (".gov", "Bias")] == "+3.00"
    assert c.loc[("m1", "w/o"), (".gov", "N")] == "2"
    assert c.loc[("m1", "w/o"), (".edu", "Pred")] == "7.00"
    assert c.loc[("m1", "w/o"), (".edu", "Bias")] == "0.00"
    assert c.loc[("m1", "w/o"), (".edu", "N")] == "1"
    assert c.loc[("m1", "w/o"), ("", "unscored")] == "1"
    assert c.loc[("m1", "w/"), (".gov", "Bias")] == "–0.25"
    assert c.loc[("m1", "w/"), ("Social", "Bias")] == "–1.00"
    assert c.loc[("m1", "w/"), (".edu", "Pred")] == "–"
    assert c.loc[("m1", "w/"), (".edu", "N")] == "0"
    assert spec.note == "True means: Gov 5.50 (N=2); Edu 5.50 (N=2); Social 1.00 (N=1)."
    assert (spec.marks == "").all().all()
    csv_text, md, tex = _written(spec, tmp_path)
    assert md.splitlines()[0] == "My caption " + spec.note
    assert "**" not in md and "<u>" not in md
    assert _md_row(md, "m1 | w/o")[2:5] == ["8.50", "+3.00", "2"]
    assert _tex_row(tex, " & w/ ")[3] == "$-$0.25"
    assert "m1,w/,5.25,-0.25,2" in csv_text


def test_categories_errors(pred):
    with pytest.raises(ValueError, match="empty"):
        A.table_categories(pred.iloc[0:0], ["gov"])
    with pytest.raises(ValueError, match="missing column"):
        A.table_categories(pred.drop(columns=["category"]), ["gov"])


# --------------------------------------------------------------------------
# intervals and tags
# --------------------------------------------------------------------------
def _interval_table():
    from authbench.render.formatting import NOT_RANDOM_TAG, PCT
    from authbench.render.tables import Column, build_table
    vals = {"m1": (26.11, 12.0, 40.2), "m2": (5.0, float("nan"), float("nan"))}
    cols = [Column(("ρ",), PCT, lambda r: vals[r][0], group="rho", interval=lambda r: vals[r][1:],
                   tag=lambda r: NOT_RANDOM_TAG if r == "m2" else ""),
            Column(("n",), "count", lambda r: 3)]
    return build_table(["m1", "m2"], [("m1",), ("m2",)], ["Model"], cols)


def test_intervals_inline_columns_off(tmp_path):
    table = _interval_table()
    write_table(table, tmp_path / "inline")
    md = (tmp_path / "inline.md").read_text()
    assert "| m1 | **26.11** [12.00, 40.20] | 3 |" in md
    assert "| m2 | **5.00°** | 3 |" in md  # blank interval: nothing shown (marks are per row)
    assert (tmp_path / "inline.csv").read_text().splitlines() == ["Model,ρ,ρ lo,ρ hi,n", "m1,26.11,12.00,40.20,3",
                                                                  "m2,5.00,,,3"]
    tex = (tmp_path / "inline.tex").read_text()
    assert r"\textbf{26.11}\,{\scriptsize [12.00, 40.20]}" in tex and r"\textbf{5.00$^{\circ}$} &" in tex
    write_table(table, tmp_path / "cols", intervals="columns")
    md = (tmp_path / "cols.md").read_text()
    assert "| Model | ρ | ρ lo | ρ hi | n |" in md and "| m1 | **26.11** | 12.00 | 40.20 | 3 |" in md
    assert "r" * 4 in (tmp_path / "cols.tex").read_text()  # 4 numeric columns
    write_table(table, tmp_path / "off", intervals="off")
    assert "| m1 | **26.11** | 3 |" in (tmp_path / "off.md").read_text()
    assert (tmp_path / "off.csv").read_text() == (tmp_path / "inline.csv").read_text()
    with pytest.raises(ValueError, match="intervals must be one of"):
        write_table(table, tmp_path / "bad", intervals="sometimes")


def test_stacked_tables_keep_intervals(tmp_path):
    from authbench.render.tables import stack_tables
    stacked = stack_tables([("a", _interval_table()), ("b", _interval_table())], "Domain")
    write_table(stacked, tmp_path / "s")
    assert (tmp_path / "s.md").read_text().count("[12.00, 40.20]") == 2


def test_spec_json_round_trip_writes_the_same_files(tmp_path):
    """report/tables.json: a built table read back from plain JSON writes byte-identical files;
    NaN, tags, intervals, two-level rows and columns, baseline rows and highlight groups survive."""
    import json

    from authbench.render.formatting import TEXT
    from authbench.render.tables import Column, build_table, spec_from_json, spec_to_json, stack_tables

    cols = [Column(("Passage", "Length"), TEXT, lambda k: (float(len(k[0])), f"{len(k[0])}.00†")),
            Column(("Passage", "PPL"), "num", lambda k: math.nan if k[0] == "h" else 12.345, group="p"),
            Column(("n",), "count", lambda k: 3)]
    one = build_table([("gemma", 0), ("h", 1)], [("gemma", "gpt35"), ("h", "human")], ["Model", "Passages"], cols,
                      baseline=[False, True])
    for spec in (stack_tables([("a", _interval_table()), ("b", _interval_table())], "Domain"),
                 stack_tables([("nq", one), ("marco", one)], "Dataset")):
        back = spec_from_json(json.loads(json.dumps(spec_to_json(spec), allow_nan=False)))
        assert {"cells", "marks"} <= set(spec_to_json(spec)) and "entries" not in spec_to_json(spec)  # persisted keys
        for name in ("values", "entries", "marks", "lo", "hi", "tags"):
            pd.testing.assert_frame_equal(getattr(back, name), getattr(spec, name), check_index_type=False,
                                          check_dtype=name in ("values", "lo", "hi"))  # text: str or object
        assert (back.kinds, back.with_interval, back.baseline_rows, back.highlight_groups) == (
            spec.kinds, spec.with_interval, spec.baseline_rows, spec.highlight_groups)
        write_table(spec, tmp_path / "built" / "t")
        write_table(back, tmp_path / "read" / "t")  # the same stem: LaTeX labels name it
        for ext in ("csv", "md", "tex"):
            assert (tmp_path / "built" / f"t.{ext}").read_bytes() == (tmp_path / "read" / f"t.{ext}").read_bytes(), ext
    bad = spec_to_json(one)
    bad["cells"] = bad["cells"][:1]
    with pytest.raises(ValueError, match="cells: expected 2 rows of 3 values"):
        spec_from_json(bad)
