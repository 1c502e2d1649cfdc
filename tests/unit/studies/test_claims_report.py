"""claims.md / claims.tsv of a study's report (authbench.studies.claims_report):
each study's numbers keyed by published key (one mapping, read by the
scorecard and the claims), the two verdicts, the run's own grid, and one
contrast tested alike in comparisons.tsv and claims_cells.tsv."""

import math

import numpy as np
import pandas as pd
import pytest
from authbench.claims import place_key
from authbench.render.catalog import CLAIMS
from authbench.stats import IntervalSpec
from authbench.studies.authority.comparisons import cells_of, compare
from authbench.studies.authority.keyed import authority_keyed, categories_keyed
from authbench.studies.claims_report import CLAIM_COLUMNS, study_claims, write_claims
from authbench.studies.keyed import claim_units, keyed_frame, read_keyed, scorecard_rows
from authbench.studies.ragauth.keyed import rag_keyed
from authbench.studies.selfpref.keyed import selfpref_keyed

SPEC = IntervalSpec(resamples=2000, seed=0, min_units=5)


def _rag_units(model: str, n: int, authority_correct: int, no_filter_correct: int) -> pd.DataFrame:
    """n questions; Authority (k 1, 3, 5) right on the first ``authority_correct``,
    w/o Filter (k all) on the first ``no_filter_correct``."""
    rows = []
    for k, strategy, right in [("all", "no_filter", no_filter_correct)] + [
            (k, "authority", authority_correct) for k in ("1", "3", "5")]:
        rows += [{"model": model, "strategy": strategy, "k": k, "qid": f"q{i}", "correct": float(i < right)}
                 for i in range(n)]
    return pd.DataFrame(rows)


def _accuracy(units: pd.DataFrame) -> list[dict]:
    return [{"model": m, "strategy": s, "k": k, "topic": "all", "accuracy": 100 * g["correct"].mean(),
             "lo": math.nan, "hi": math.nan} for (m, s, k), g in units.groupby(["model", "strategy", "k"], sort=False)]


def _rows(folder) -> dict:
    frame = pd.read_csv(folder / "claims.tsv", sep="\t", keep_default_na=False)
    assert tuple(frame.columns) == CLAIM_COLUMNS
    return {r["claim"]: r for r in frame.to_dict("records")}


def test_rag_numbers_are_keyed_like_the_papers_table5_for_both_readers():
    units = _rag_units("m", 3, 2, 1)
    numbers = rag_keyed(_accuracy(units), units, {"m": "Qwen3-8B"}, ["m"])
    key = place_key(5, "answer_accuracy", model="Qwen3-8B", judge="authority", context="", k="3")
    cells = claim_units(numbers)
    assert set(cells) == {place_key(5, "answer_accuracy", model="Qwen3-8B", judge=s, context="", k=k)
                          for s, k in [("no_filter", "all"), ("authority", "1"), ("authority", "3"), ("authority", "5")]}
    assert cells[key].units == ("q0", "q1", "q2") and cells[key].value == pytest.approx(200 / 3)
    # the scorecard reads the same numbers: the named model's rows
    assert {(r["judge"], r["setting"], round(r["reproduced"], 4)) for r in scorecard_rows(numbers)} == {
        ("no_filter", "k=all", 33.3333), ("authority", "k=1", 66.6667), ("authority", "k=3", 66.6667),
        ("authority", "k=5", 66.6667)}
    # an unnamed run model is keyed by its own name, which the scorecard leaves out; a model not run is left out
    unnamed = rag_keyed(_accuracy(units), units, {}, ["m"])
    assert {n.key.model for n in unnamed} == {"m"} and scorecard_rows(unnamed) == []
    assert rag_keyed(_accuracy(units), units, {}, ["other"]) == []


def test_ragauth_claims_on_the_runs_own_model(tmp_path):
    """The demo's case: no model has a paper name, so the claims range over the
    run's own model. AB-12 (authority beats w/o Filter at each k, every
    cell): 40 questions, Authority right on all 40, w/o Filter on 10: each
    cell's paired difference +75 points, McNemar 30 discordant pairs all one
    way: supported; 3 cells. Published: 15 of 15."""
    units = _rag_units("gemma", 40, 40, 10)
    numbers = rag_keyed(_accuracy(units), units, {}, ["gemma"])
    paths = write_claims(tmp_path, "authoritybench", "RAGAuth", (5,), numbers, spec=SPEC)
    assert [p.name for p in paths] == list(CLAIMS)
    rows = _rows(tmp_path)
    assert set(rows) == {c.id for c, _ in study_claims("authoritybench", (5,))} == {"AB-11", "AB-12", "AB-13"}
    ab12 = rows["AB-12"]
    assert (ab12["published_k"], ab12["published_n"], ab12["published_verdict"]) == (15, 15, "holds as worded")
    assert (ab12["run_verdict"], ab12["run_cells"], ab12["run_supported"]) == ("supported", 3, 3)
    assert (ab12["quantified"], ab12["fixed"]) == ("model,k", "judge,metric")
    # AB-13 also needs relevance and utility, which did not run: 3 of its 9 cells supported, 6 not in this run
    ab13 = rows["AB-13"]
    assert (ab13["run_verdict"], ab13["run_supported"], ab13["run_not_in_run"], ab13["run_cells"]) == (
        "supported on part", 3, 6, 9)
    assert ab13["run_text"].startswith("supported on 3 of 9 cells")
    # AB-11 compares the three filters in each column: relevance and utility are not in this run
    assert rows["AB-11"]["run_verdict"] == "not applicable"
    detail = pd.read_csv(tmp_path / "claims_cells.tsv", sep="\t", keep_default_na=False)
    mine = detail[(detail["claim"] == "AB-12")]
    assert len(mine) == 3 and (mine["effect"].astype(float) == 75.0).all() and (mine["status"] == "supported").all()
    missing = detail[(detail["claim"] == "AB-13") & (detail["cell_status"] == "missing")]
    assert len(missing) == 6 and set(missing["why"]) == {
        "judge relevance: not in this run (its judge values: authority, no_filter)",
        "judge utility: not in this run (its judge values: authority, no_filter)"}
    md = (tmp_path / "claims.md").read_text()
    first = md.splitlines()[2]
    assert first.startswith("AuthorityBench (RAGAuth's tables): 3 claims — published tables: ")
    assert first.endswith("this run: 1 supported, 1 supported on part of their cells, 0 contradicted, "
                          "0 undecided, 1 not applicable to this run")
    assert "nan" not in md.lower() and "nan" not in (tmp_path / "claims.tsv").read_text().lower()
    # the numbers the claims read, written beside them and read back
    back = read_keyed(tmp_path / "units_keyed.parquet")
    assert [(n.key, n.units) for n in back] == [(n.key, n.units) for n in numbers]


def test_named_models_are_keyed_by_paper_name(tmp_path):
    units = _rag_units("q", 40, 40, 10)
    write_claims(tmp_path, "authoritybench", "RAGAuth", (5,), rag_keyed(_accuracy(units), units, {"q": "Qwen3-8B"},
                                                                        ["q"]), spec=SPEC)
    ab12 = _rows(tmp_path)["AB-12"]
    assert (ab12["run_verdict"], ab12["run_cells"], ab12["run_not_in_run"]) == ("supported", 3, 0)


def test_authority_numbers_follow_the_papers_tables():
    """Fine lists' ρ of PointJudge (its main derivation: Table 1) and PairRank's
    bubble derivation (its main one: Table 1, and Table 9's PairRank column);
    easy pairs' accuracy (Table 3); a baseline not run as a model is left out.
    The number is the metric row's ×100, the units the row's units."""
    metrics = pd.DataFrame([
        {"benchmark": "domainauth", "setting": "fine", "difficulty": "all", "metric": "rho", "model": m,
         "context": c, "judge": j, "derivation": d, "value": v, "lo": math.nan, "hi": math.nan}
        for m, c, j, d, v in [("m", "wo_text", "point", "direct", 0.375), ("m", "wo_text", "pair_rank", "bubble", 0.2),
                              ("baseline:random", "", "random", "direct", 0.0)]]
        + [{"benchmark": "domainauth", "setting": "pairs", "difficulty": "easy", "metric": "acc", "model": "m",
            "context": "w_text", "judge": "pair_rank", "derivation": "direct", "value": 0.5, "lo": 0.1, "hi": 0.9}])
    cells = {("domainauth", "fine", "all", "rho"): {("m", "wo_text", "point", "direct"): ([0, 1], [0.5, 0.25]),
                                                     ("m", "wo_text", "pair_rank", "bubble"): ([0, 1], [0.1, 0.3]),
                                                     ("baseline:random", "", "random", "direct"): ([0], [0.0])},
             ("domainauth", "pairs", "easy", "acc"): {("m", "w_text", "pair_rank", "direct"): ([5, 6], [1.0, 0.0])}}
    out = {n.key: n for n in authority_keyed(metrics, cells, {}, ["m"],
                                             flags={("domainauth", "m", "wo_text", "fine", "point"): ["by position"]})}
    assert set(out) == {place_key(1, "rho", model="m", judge="point", context="wo_text"), place_key(1, "rho",
        model="m", judge="pair_rank", context="wo_text"),
                        place_key(9, "rho", model="m", judge="PairRank", context="wo_text"),
                        place_key(3, "pair_accuracy", model="m", judge="pair_rank", context="w_text",
                            difficulty="easy")}
    point = out[place_key(1, "rho", model="m", judge="point", context="wo_text")]
    assert point.units.value == pytest.approx(37.5) and point.reproduced == pytest.approx(37.5)
    assert point.flags == ("by position",) and not point.named and point.unit_kind == "lists"
    pairs = out[place_key(3, "pair_accuracy", model="m", judge="pair_rank", context="w_text", difficulty="easy")]
    assert (pairs.units.value, pairs.lo, pairs.hi, pairs.unit_kind) == (50.0, 10.0, 90.0, "pairs")


def test_table8_cleans_categories_once_for_both_readers():
    predictions = pd.DataFrame([{"model": "m", "context": "wo_text", "domain": d, "level": lv, "pred": p,
                                 "category": c} for d, lv, p, c in [("a.gov", 5, 8, ".GOV "), ("b.gov", 7, 8, "gov"),
                                                                    ("x.com", 3, 3, "")]])
    out = {n.key: n for n in categories_keyed(predictions, {"m": "Qwen3-14B"}, ["m"], "a sample")}
    bias = out[place_key(8, "bias", model="Qwen3-14B", judge="point", context="wo_text", category="gov")]
    # bias per domain: 8 − 5 = 3, 8 − 7 = 1: mean 2
    assert bias.units.units == ("a.gov", "b.gov") and bias.reproduced == pytest.approx(2.0) and bias.named
    data = out[place_key(8, "true_mean_pagerank", category="gov")]
    assert (data.kind, data.reproduced, data.scope) == ("data", 6.0, "a sample")


def test_selfpref_self_preference_reads_same_factuality_pairs_and_the_pooled_rate():
    """Table 3: the number is the paper's pooled rate (the question shares
    weighted by their comparisons); the same-factuality column holds the
    self_same units; Aggregated is the paper's mean of the per-author rates.
    Table 2's Diff per question: q1 human 4, self 3 -> +1; q2 human 5, self 5 -> 0."""
    comparisons = pd.DataFrame([
        {"evaluator": "e", "other_author": "human", "variant": "normal", "qid": "q1", "self_same": 1.0, "first": 1.0,
         "true_chosen": math.nan, "self_chosen": 1.0, "combo": "TT"},
        {"evaluator": "e", "other_author": "human", "variant": "normal", "qid": "q1", "self_same": math.nan,
         "first": 1.0, "true_chosen": 1.0, "self_chosen": 1.0, "combo": "TF"},
        {"evaluator": "e", "other_author": "human", "variant": "normal", "qid": "q2", "self_same": math.nan,
         "first": 0.0, "true_chosen": 1.0, "self_chosen": 0.0, "combo": "FT"}])
    rerank = pd.DataFrame([
        {"evaluator": "e", "prompt": "normal", "variant": "normal", "factual": True, "author": a, "qid": q, "pid": p,
         "score": s} for a, q, p, s in [("human", "q1", "h1", 4.0), ("own", "q1", "o1", 3.0),
                                        ("human", "q2", "h2", 5.0), ("own", "q2", "o2", 5.0)]])
    summary = [{"evaluator": "e", "prompt": "normal", "variant": "normal", "factual": True, "author": a, "mean": m,
                "std": 0.7} for a, m in (("human", 4.5), ("own", 4.0))]
    rates = [{"evaluator": "e", "other_author": o, "self_pref": 200 / 3, "order_pref": 200 / 3, "factual_pref": 50.0}
             for o in ("human", "all")]
    numbers = selfpref_keyed("nq", knowledge={}, passages=[], summary=summary, rates=rates,
                             units={"comparisons": comparisons, "rerank": rerank}, self_map={"e": "own"}, names={},
                             run_models=["e"])
    out = {n.key: n for n in numbers}
    self_pref = out[place_key(3, "self_preference", model="e", judge="", context="", dataset="NQ", other="Human")]
    # q1: 2 of 2 comparisons chose self, q2: 0 of 1: pooled 2/3, the mean share would be 1/2
    assert self_pref.units.value == pytest.approx(200 / 3) and self_pref.units.weights == (2.0, 1.0)
    assert self_pref.columns["same_factuality"].units == ("q1",)
    assert out[place_key(3, "order_preference", model="e", judge="", context="", dataset="NQ",
        other="Aggregated")].reproduced == \
        pytest.approx(200 / 3)
    diff = out[place_key(2, "diff_h_minus_m", model="e", prompt="normal", dataset="NQ", author="self", passage="TRUE")]
    assert diff.units.units == ("q1", "q2") and diff.units.values == (1.0, 0.0) and not diff.compared
    assert diff.reproduced == pytest.approx(0.5)  # the summary's 4.5 − 4.0
    assert out[place_key(6, "mean_score", model="e", prompt="normal", dataset="NQ", author="Human",
                        passage="TRUE")].units.value == 4.5


def test_a_claim_picking_a_paper_model_is_not_applicable_without_it(tmp_path):
    """SP-13 picks GPT-4o-mini: without a model of that paper name it is not
    applicable, while SP-01 ("no self-preference": at most 55%) ranges over
    the run's own model on the report's dataset: e's same-factuality self
    preference is 100% over 6 questions, every draw 45 points above 55:
    contradicted."""
    comparisons = pd.DataFrame([{"evaluator": "e", "other_author": "human", "variant": "normal", "qid": f"q{i}",
                                 "self_same": 1.0, "first": 1.0, "true_chosen": 1.0, "self_chosen": 1.0,
                                 "combo": "TT"} for i in range(6)])
    rates = [{"evaluator": "e", "other_author": o, "self_pref": 100.0, "order_pref": 100.0, "factual_pref": 100.0}
             for o in ("human", "all")]
    numbers = selfpref_keyed("nq", knowledge={}, passages=[], summary=[], rates=rates,
                             units={"comparisons": comparisons}, self_map={"e": "own"}, names={}, run_models=["e"])
    write_claims(tmp_path, "selfpref", "Self-preference [nq]", tuple(range(1, 10)), numbers, spec=SPEC,
                 where={"dataset": "NQ"})
    rows = _rows(tmp_path)
    assert rows["SP-13"]["run_verdict"] == "not applicable"
    assert "paper_name GPT-4o-mini" in rows["SP-13"]["run_text"]
    assert (rows["SP-01"]["run_verdict"], rows["SP-01"]["run_cells"]) == ("contradicted", 1)


def test_the_same_contrast_gives_the_same_effect_and_p_in_comparisons_and_claims(tmp_path):
    """DomainAuth ListJudge-PointScore vs ListRank on the same 12 fine lists:
    the comparisons' "judge vs judge" row and AB-03's claim cell test it with
    the one paired test (stats.paired_test): same effect and raw p."""
    rng = np.random.default_rng(5)
    score, rank = rng.normal(0.6, 0.1, 12), rng.normal(0.4, 0.1, 12)
    units = pd.DataFrame([{"benchmark": "domainauth", "setting": "fine", "difficulty": "all", "metric": "rho",
                           "model": "m", "context": "wo_text", "judge": j, "derivation": "direct", "unit": f"l{i}",
                           "value": v} for j, vals in (("list_score", score), ("list_rank", rank))
                          for i, v in enumerate(vals)])
    frame, _ = compare(units, SPEC)
    row = frame[(frame["family"] == "judge vs judge") & (frame["a"] == "m list_score/direct w/o")
                & (frame["b"] == "m list_rank/direct w/o")].iloc[0]
    metrics = pd.DataFrame([{"benchmark": "domainauth", "setting": "fine", "difficulty": "all", "metric": "rho",
                             "model": "m", "context": "wo_text", "judge": j, "derivation": "direct", "value": v.mean()}
                            for j, v in (("list_score", score), ("list_rank", rank))])
    numbers = authority_keyed(metrics, cells_of(units), {}, ["m"])
    write_claims(tmp_path, "authoritybench", "DomainAuth", (1,), numbers, spec=SPEC)
    cells = pd.read_csv(tmp_path / "claims_cells.tsv", sep="\t", keep_default_na=False)
    claim = cells[cells["claim"] == "AB-03"].iloc[0]
    assert claim["test"] == row["test"] == "paired bootstrap" and int(claim["units"]) == row["n"] == 12
    assert float(claim["effect"]) == pytest.approx(row["delta"], abs=1e-9)
    assert float(claim["p"]) == pytest.approx(row["p"], abs=1e-12)
    assert (float(claim["lo"]), float(claim["hi"])) == pytest.approx((row["lo"], row["hi"]), abs=1e-9)


def test_keyed_numbers_round_trip_through_their_file(tmp_path):
    units = _rag_units("m", 6, 4, 1)
    numbers = rag_keyed(_accuracy(units), units, {"m": "Qwen3-8B"}, ["m"])
    path = tmp_path / "units_keyed.parquet"
    keyed_frame(numbers).to_parquet(path, index=False)
    back = read_keyed(path)
    assert [(n.key, n.reproduced, n.units, n.named) for n in back] == [
        (n.key, pytest.approx(n.reproduced), n.units, n.named) for n in numbers]
