"""claims.md / claims.tsv of a study's report (authbench.studies.claims_report):
a run's units under the published keys, the two verdicts, the model stand-in."""

import math

import pandas as pd
import pytest
from authbench.claims import cell_key
from authbench.studies.claims_report import (CLAIM_COLUMNS, authority_units, rag_units, selfpref_units,
                                             study_claims, write_claims)


def _rag_units(model: str, n: int, authority_correct: int, no_filter_correct: int) -> pd.DataFrame:
    """n questions; Authority (k 1, 3, 5) right on the first ``authority_correct``,
    w/o Filter (k all) on the first ``no_filter_correct``."""
    rows = []
    for k, strategy, right in [("all", "no_filter", no_filter_correct)] + [
            (k, "authority", authority_correct) for k in ("1", "3", "5")]:
        rows += [{"model": model, "strategy": strategy, "k": k, "qid": f"q{i}", "correct": float(i < right)}
                 for i in range(n)]
    return pd.DataFrame(rows)


def _rows(folder) -> dict:
    frame = pd.read_csv(folder / "claims.tsv", sep="\t", keep_default_na=False)
    assert tuple(frame.columns) == CLAIM_COLUMNS
    return {r["claim"]: r for r in frame.to_dict("records")}


def test_rag_units_are_keyed_like_the_papers_table5():
    cells = rag_units(_rag_units("m", 3, 2, 1), {"m": "Qwen3-8B"}, ["m"])
    key = cell_key(5, "answer_accuracy", "Qwen3-8B", "authority", "", k="3")
    assert set(cells) == {cell_key(5, "answer_accuracy", "Qwen3-8B", s, "", k=k)
                          for s, k in [("no_filter", "all"), ("authority", "1"), ("authority", "3"), ("authority", "5")]}
    assert cells[key].units == ("q0", "q1", "q2") and cells[key].value == pytest.approx(200 / 3)
    # a model neither named nor run is left out
    assert rag_units(_rag_units("x", 3, 2, 1), {}, ["m"]) == {}


def test_ragauth_claims_on_a_stand_in_model(tmp_path):
    """The demo's case: no model has a paper name, so the run's model stands in
    the cells of the paper's first model (Qwen3-8B). AB-12 (authority beats w/o
    Filter at k 1, 3 and 5, every cell): 40 questions, Authority right on all
    40, w/o Filter on 10: each cell's paired difference +75 points, McNemar
    30 discordant pairs all one way: supported; 3 cells. Published: 15 of 15."""
    cells = rag_units(_rag_units("gemma", 40, 40, 10), {}, ["gemma"])
    paths = write_claims(tmp_path, "authoritybench", "RAGAuth", (5,), cells, ["gemma"], False,
                         {5: "tables/table5_ragauth.md"})
    assert [p.name for p in paths] == ["claims.md", "claims.tsv", "claims_cells.tsv"]
    rows = _rows(tmp_path)
    assert set(rows) == {c.id for c, _ in study_claims("authoritybench", (5,))} == {"AB-11", "AB-12", "AB-13"}
    ab12 = rows["AB-12"]
    assert (ab12["published_k"], ab12["published_n"], ab12["published_verdict"]) == (15, 15, "holds as worded")
    assert (ab12["run_verdict"], ab12["run_cells"], ab12["run_supported"]) == ("supported", 3, 3)
    assert ab12["evidence"] == "comparisons.md tables/table5_ragauth.md"
    # AB-13 also needs relevance and utility, which did not run: not run, 6 of its 9 cells missing
    assert (rows["AB-13"]["run_verdict"], rows["AB-13"]["run_missing"], rows["AB-13"]["run_cells"]) == ("not run", 6, 9)
    detail = pd.read_csv(tmp_path / "claims_cells.tsv", sep="\t")
    mine = detail[(detail["claim"] == "AB-12") & detail["effect"].notna()]
    assert len(mine) == 3 and (mine["effect"] == 75.0).all() and (mine["status"] == "supported").all()
    md = (tmp_path / "claims.md").read_text()
    first = md.splitlines()[2]
    assert first.startswith("AuthorityBench (RAGAuth's tables): 3 claims — published tables: ")
    assert first.endswith("this run: 1 supported, 0 contradicted, 0 undecided, 2 not run")
    assert "[table5_ragauth.md](tables/table5_ragauth.md)" in md and "standing in the cells" in md


def test_named_models_keep_the_papers_cells(tmp_path):
    """A run naming one paper model: the other four models' cells are not run (counted)."""
    cells = rag_units(_rag_units("q", 40, 40, 10), {"q": "Qwen3-8B"}, ["q"])
    write_claims(tmp_path, "authoritybench", "RAGAuth", (5,), cells, ["Qwen3-8B"], True, {})
    ab12 = _rows(tmp_path)["AB-12"]
    assert (ab12["run_verdict"], ab12["run_cells"], ab12["run_missing"], ab12["run_partial"]) == (
        "not run", 15, 12, "supported")


def test_authority_units_follow_the_scorecards_keys():
    """Fine lists' ρ of PointJudge (its main derivation: Table 1) and PairRank's
    bubble derivation (its main one: Table 1, and Table 9's PairRank column);
    easy pairs' accuracy (Table 3); a baseline not run as a model is left out."""
    cells = {("domainauth", "fine", "all", "rho"): {("m", "wo_text", "point", "direct"): ([0, 1], [0.5, 0.25]),
                                                     ("m", "wo_text", "pair_rank", "bubble"): ([0, 1], [0.1, 0.3]),
                                                     ("baseline:random", "", "random", "direct"): ([0], [0.0])},
             ("domainauth", "pairs", "easy", "acc"): {("m", "w_text", "pair_rank", "direct"): ([5, 6], [1.0, 0.0])}}
    out = authority_units(cells, {}, ["m"])
    assert set(out) == {cell_key(1, "rho", "m", "point", "wo_text"), cell_key(1, "rho", "m", "pair_rank", "wo_text"),
                        cell_key(9, "rho", "m", "PairRank", "wo_text"),
                        cell_key(3, "pair_accuracy", "m", "pair_rank", "w_text", difficulty="easy")}
    assert out[cell_key(1, "rho", "m", "point", "wo_text")].value == pytest.approx(37.5)
    assert out[cell_key(3, "pair_accuracy", "m", "pair_rank", "w_text", difficulty="easy")].value == 50.0


def test_selfpref_units_self_preference_reads_same_factuality_pairs():
    """Table 3's self preference on the same-factuality pairs only (self_same),
    order and factual preference on every pair; Table 2's Diff per question:
    q1 human 4, self 3 -> +1; q2 human 5, self 5 -> 0."""
    comparisons = pd.DataFrame([
        {"evaluator": "e", "other_author": "human", "variant": "normal", "qid": "q1", "self_same": 1.0, "first": 1.0,
         "true_chosen": math.nan, "self_chosen": 1.0},
        {"evaluator": "e", "other_author": "human", "variant": "normal", "qid": "q2", "self_same": math.nan,
         "first": 0.0, "true_chosen": 1.0, "self_chosen": 0.0}])
    rerank = pd.DataFrame([
        {"evaluator": "e", "prompt": "normal", "variant": "normal", "factual": True, "author": a, "qid": q, "pid": p,
         "score": s} for a, q, p, s in [("human", "q1", "h1", 4.0), ("own", "q1", "o1", 3.0),
                                        ("human", "q2", "h2", 5.0), ("own", "q2", "o2", 5.0)]])
    out = selfpref_units({"comparisons": comparisons, "rerank": rerank}, "nq", {"e": "own"}, {}, ["e"])
    self_pref = out[cell_key(3, "self_preference", "e", "", "", dataset="NQ", other="Human")]
    assert self_pref.units == ("q1",) and self_pref.value == 100.0
    assert out[cell_key(3, "order_preference", "e", "", "", dataset="NQ", other="Aggregated")].value == 50.0
    diff = out[cell_key(2, "diff_h_minus_m", "e", "normal", "", dataset="NQ", author="self", passage="TRUE")]
    assert diff.units == ("q1", "q2") and diff.values == (1.0, 0.0)
    assert out[cell_key(6, "mean_score", "e", "normal", "", dataset="NQ", author="Human", passage="TRUE")].value == 4.5


def test_a_claim_picking_a_paper_model_is_not_run_on_stand_ins(tmp_path):
    """SP-13 picks the paper's model with the highest factual preference: the
    run's own model cannot stand in for it, so its cells are the paper's, all
    missing (not run), while SP-01 is tested on the stand-in."""
    comparisons = pd.DataFrame([{"evaluator": "e", "other_author": "human", "variant": "normal", "qid": f"q{i}",
                                 "self_same": 1.0, "first": 1.0, "true_chosen": 1.0, "self_chosen": 1.0}
                                for i in range(6)])
    cells = selfpref_units({"comparisons": comparisons}, "nq", {"e": "own"}, {}, ["e"])
    write_claims(tmp_path, "selfpref", "Self-preference [nq]", tuple(range(1, 10)), cells, ["e"], False, {},
                 where={"dataset": "NQ"})
    rows = _rows(tmp_path)
    sp13 = rows["SP-13"]
    assert sp13["run_verdict"] == "not run" and sp13["run_missing"] == sp13["run_cells"] > 0
    # SP-01 ("no significant self-preference": within 50 +/- 5) on NQ only, the report's dataset: one cell,
    # e's Aggregated self preference 100% over 6 questions; every bootstrap draw is 100, 45 points beyond the
    # band: contradicted
    assert (rows["SP-01"]["run_verdict"], rows["SP-01"]["run_cells"]) == ("contradicted", 1)
