"""The Bradley–Terry derivation (authbench.studies.authority.bradley_terry):
its fit against a closed-form case and against scipy's optimizer on the same
penalized likelihood, its outcomes, and its rows in PairJudge's evaluation."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq, minimize

from authbench.studies.authority import bradley_terry as BT
from authbench.studies.authority.judges import judge_of


def rank(a, b, choice):
    return {"a": a, "b": b, "choice": choice, "score_a": None, "score_b": None}


def score(a, b, sa, sb):
    return {"a": a, "b": b, "choice": None, "score_a": sa, "score_b": sb}


def test_one_comparison_matches_the_closed_form():
    # One win of item 0 shown as A: by symmetry θ0 = −θ1 = t and h = t, where
    # the gradient vanishes: 1 − σ(3t) = RIDGE · t.
    fit = BT.bradley_terry([([rank(0, 1, "A")], 2)], "rank")
    t = brentq(lambda t: 1 - 1 / (1 + math.exp(-3 * t)) - BT.RIDGE * t, 0, 100)
    assert fit.strengths[0][0] == pytest.approx(t, abs=1e-9)
    assert fit.strengths[0][1] == pytest.approx(-t, abs=1e-9)
    assert fit.h == pytest.approx(t, abs=1e-9)
    assert fit.used == 1


def _scipy_fit(lists):
    """The same penalized log-likelihood, maximized by scipy's BFGS."""
    sizes = [n for _, n in lists]
    offsets = np.cumsum([0, *sizes])

    def loss(x):
        h, total = x[-1], 0.0
        for k, (triples, _) in enumerate(lists):
            theta = x[offsets[k]:offsets[k + 1]]
            for a, b, y in triples:
                z = theta[a] - theta[b] + h
                total += y * z - np.logaddexp(0.0, z)
        return -(total - 0.5 * BT.RIDGE * float(x @ x))

    res = minimize(loss, np.zeros(offsets[-1] + 1), method="BFGS", options={"gtol": 1e-10})
    return [res.x[offsets[k]:offsets[k + 1]] for k in range(len(lists))], res.x[-1]


def test_a_cell_of_three_lists_matches_scipy():
    rng = np.random.default_rng(3)
    lists, records = [], []
    for n in (4, 5, 3):
        triples, recs = [], []
        for i in range(n):
            for j in range(i + 1, n):
                a, b = (i, j) if rng.random() < 0.5 else (j, i)
                sa, sb = int(rng.integers(0, 4)), int(rng.integers(0, 4))
                recs.append(score(a, b, sa, sb))
                triples.append((a, b, 1.0 if sa > sb else 0.0 if sa < sb else 0.5))
        recs.append(score(0, 1, None, 3))  # unparsed: dropped
        lists.append((triples, n))
        records.append((recs, n))
    fit = BT.bradley_terry(records, "score")
    thetas, h = _scipy_fit(lists)
    assert fit.h == pytest.approx(h, abs=1e-5)
    for got, want in zip(fit.strengths, thetas):
        assert [got[i] for i in range(len(want))] == pytest.approx(list(want), abs=1e-5)
    assert fit.used == sum(len(t) for t, _ in lists)


def test_outcomes_half_wins_and_drops():
    recs = [score(0, 1, 7, 7), score(1, 2, 9, 3), score(2, 0, None, 4)]
    assert BT.outcomes(recs, "score") == [(0, 1, 0.5), (1, 2, 1.0)]
    assert BT.outcomes([rank(0, 1, "B"), rank(1, 2, None), rank(2, 0, "A")], "rank") == [(0, 1, 0.0), (2, 0, 1.0)]
    with pytest.raises(ValueError, match="outside"):
        BT.outcomes([rank(0, 5, "A")], "rank", n=3)


def test_an_undefeated_item_stays_finite_and_an_uncompared_one_has_no_strength():
    recs = [rank(0, 1, "A"), rank(2, 0, "B"), rank(1, 2, "A")]  # item 0 wins everything; item 3 never compared
    fit = BT.bradley_terry([(recs, 4)], "rank")
    s = fit.strengths[0]
    assert s[3] is None
    assert math.isfinite(s[0]) and s[0] > s[1] > s[2]


def test_lists_without_usable_comparisons():
    assert BT.bradley_terry([], "rank") == BT.Fit((), 0.0, 0)
    unparsed = BT.bradley_terry([([rank(0, 1, None)], 2)], "rank")
    assert unparsed.strengths == ({0: None, 1: None},) and math.isnan(BT.order_effect(unparsed))
    # a list of another length, never judged, is padded apart: the judged list's fit is its own
    mixed = BT.bradley_terry([([rank(0, 1, "A")], 2), ([], 3)], "rank")
    alone = BT.bradley_terry([([rank(0, 1, "A")], 2)], "rank")
    assert mixed.strengths[0] == pytest.approx(alone.strengths[0]) and mixed.h == pytest.approx(alone.h)
    assert mixed.strengths[1] == {0: None, 1: None, 2: None}


def test_a_position_only_judge_is_all_order_effect():
    # "A" every time, each pair shown in both orders: the strengths cancel, h carries it all.
    recs = [rank(a, b, "A") for i in range(4) for j in range(i + 1, 4) for a, b in ((i, j), (j, i))]
    fit = BT.bradley_terry([(recs, 4)], "rank")
    assert fit.h > 2
    assert max(abs(v) for v in fit.strengths[0].values()) < 1e-9


def test_a_content_judge_ranks_by_content_with_no_order_effect():
    truth = [3, 0, 2, 1]
    recs = [rank(a, b, "A" if truth[a] > truth[b] else "B")
            for i in range(4) for j in range(i + 1, 4) for a, b in ((i, j), (j, i))]
    fit = BT.bradley_terry([(recs, 4)], "rank")
    s = fit.strengths[0]
    assert sorted(range(4), key=lambda i: s[i]) == sorted(range(4), key=lambda i: truth[i])
    assert fit.h == pytest.approx(0.0, abs=1e-9)


def _judgments(instances, reply):
    """PairRank judgments of every comparison of ``instances`` (coarse), A/B by ``reply(items, a, b)``."""
    out = []
    judge = judge_of("pair_rank")
    for rid, k, (a, b) in judge.calls("coarse", instances, seed=13):
        choice = reply(instances[k]["items"], a, b)
        out.append({"request_id": rid, "status": "ok", "value": choice})
    return out


def test_pair_rank_cells_get_bt_rows_and_an_order_effect():
    instances = [{"instance_id": f"c{k}", "items": [{"domain": f"d{k}{i}.com", "coarse": lv}
                                                     for i, lv in enumerate(levels)]}
                 for k, levels in enumerate([[4, 0, 2, 1, 3], [1, 3, 0, 4, 2]])]
    judge = judge_of("pair_rank")
    content = _judgments(instances, lambda it, a, b: "A" if it[a]["coarse"] > it[b]["coarse"] else "B")
    by = {(r["derivation"], r["metric"]): r for r in judge.evaluate("coarse", instances, content)}
    assert by[("bt", "rho")]["value"] == pytest.approx(1.0)
    diag = {m: (v, n) for m, v, n in judge.position_diagnostics("coarse", instances, content)}
    assert diag["order_effect"][1] == 20 and abs(diag["order_effect"][0]) < 2
    position = _judgments(instances, lambda it, a, b: "A")
    assert {r["derivation"] for r in judge.evaluate("coarse", instances, position)} == {"bubble", "bt"}
    diag = {m: (v, n) for m, v, n in judge.position_diagnostics("coarse", instances, position)}
    assert diag["order_effect"][0] > 2  # every reply "A": the order effect takes it


def test_bt_rows_stand_nowhere_in_the_papers_tables():
    # the scorecard and the claims key our rows where the paper prints them: the BT rows are ours only
    from authbench.studies.authority.keyed import authority_keys

    assert authority_keys("domainauth", "fine", "all", "rho", "pair_score", "bt") == []
    assert authority_keys("entityauth/songs", "coarse", "all", "rho", "pair_rank", "bt") == []
    assert authority_keys("domainauth", "fine", "all", "rho", "pair_score", "bubble") == [(9, "PointScore_Bbl", {},
                                                                                             "rho")]
