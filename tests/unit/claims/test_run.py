"""authbench.claims.run_verdict on hand-made units: supported, contradicted,
undecided (too few units) and not-run claims, McNemar and Holm against a hand
computation, the bootstrap p, unpaired and one-sample tests, the champion of a
column, the quantifiers, and the named errors of bad units."""

import math

import numpy as np
import pytest
from authbench.claims import CellUnits, cell_key, run_verdict
from authbench.claims.inference import share_p
from authbench.claims.run import CONTRADICTED, NOT_RUN, SUPPORTED, UNDECIDED, cells_frame, resamples_for
from authbench.errors import ConfigError, InputError
from claims_helpers import claim_doc, frame, load_doc

LISTS = frame((1, "M1", "x", "wo_text", "", "rho", 60.0), (1, "M1", "y", "wo_text", "", "rho", 50.0),
              (1, "M1", "z", "wo_text", "", "rho", 40.0), (1, "M2", "x", "wo_text", "", "rho", 40.0),
              (1, "M2", "y", "wo_text", "", "rho", 45.0), (1, "M2", "z", "wo_text", "", "rho", 30.0))


def k(model, judge, table=1, metric="rho", context="wo_text", **settings):
    return cell_key(table, metric, model, judge, context, **settings)


def lists(values, scale=100.0, prefix="l"):
    return CellUnits([f"{prefix}{i}" for i in range(len(values))], list(values), scale)


def noisy(mean, n=30, seed=0, sd=0.05):
    return np.random.default_rng(seed).normal(mean, sd, n)


@pytest.fixture
def x_beats_y(tmp_path):
    return load_doc(tmp_path, claim_doc({}), LISTS)["T-01"]


def test_supported_when_every_cell_is_distinguishable_in_the_claimed_direction(x_beats_y):
    base = noisy(0.5)
    cells = {k("M1", "x"): lists(base + 0.10), k("M1", "y"): lists(base + noisy(0, seed=1, sd=0.02)),
             k("M2", "x"): lists(base + 0.08), k("M2", "y"): lists(base + noisy(0, seed=2, sd=0.02))}
    v = run_verdict(x_beats_y, cells, published=LISTS)
    assert (v.verdict, v.n, v.supported, v.missing, v.partial) == (SUPPORTED, 2, 2, 0, None)
    t = v.cells[0].contrasts[0]
    assert (t.test, t.n_units, t.dropped) == ("paired bootstrap", 30, 0)
    # effect in the paper's unit (scale 100): 100 × mean(x − y) over the 30 shared lists
    d = 100 * (np.asarray(cells[k("M1", "x")].values) - np.asarray(cells[k("M1", "y")].values))
    assert t.effect == pytest.approx(d.mean()) and t.lo < t.effect < t.hi and t.lo > 0
    assert t.p_holm < 0.05 and t.status == SUPPORTED and v.cells[0].status == SUPPORTED
    assert v.resamples == resamples_for(2, 0.05) == 10_000


def test_contradicted_when_a_cell_is_distinguishable_the_other_way(x_beats_y):
    base = noisy(0.5)
    cells = {k("M1", "x"): lists(base + 0.10), k("M1", "y"): lists(base + noisy(0, seed=1, sd=0.02)),
             k("M2", "x"): lists(base - 0.10), k("M2", "y"): lists(base + noisy(0, seed=2, sd=0.02))}
    v = run_verdict(x_beats_y, cells, published=LISTS)
    assert (v.verdict, v.supported, v.contradicted) == (CONTRADICTED, 1, 1)
    bad = v.cells[1].contrasts[0]
    assert bad.effect < 0 and bad.hi < 0 and bad.margin < 0 and bad.status == CONTRADICTED


def test_undecided_with_too_few_units(x_beats_y):
    cells = {key: lists([0.9, 0.8, 0.7] if key.judge == "x" else [0.1, 0.2, 0.3]) for key in
             (k("M1", "x"), k("M1", "y"), k("M2", "x"), k("M2", "y"))}
    v = run_verdict(x_beats_y, cells, published=LISTS)  # 3 lists < min_units 5
    t = v.cells[0].contrasts[0]
    assert v.verdict == UNDECIDED and v.undecided == 2
    assert t.effect == pytest.approx(60.0) and math.isnan(t.lo) and math.isnan(t.p) and t.status == UNDECIDED
    assert run_verdict(x_beats_y, cells, published=LISTS, min_units=3).verdict == SUPPORTED


def test_not_run_counts_the_cells_a_missing_number_leaves_out(tmp_path):
    # x against y and against z: 4 cells; M1's x is missing, so both M1 cells are not run
    claim = load_doc(tmp_path, claim_doc({"test": {"kind": "difference", "a": {"judge": "x"},
                                                   "b": {"judge": ["y", "z"]}, "direction": "greater"}}), LISTS)["T-01"]
    base = noisy(0.5)
    cells = {k("M1", "y"): lists(base), k("M1", "z"): lists(base - 0.1), k("M2", "x"): lists(base + 0.1),
             k("M2", "y"): lists(base), k("M2", "z"): lists(base - 0.1)}
    v = run_verdict(claim, cells, published=LISTS)
    assert (v.verdict, v.n, v.missing, v.partial) == (NOT_RUN, 4, 2, SUPPORTED)
    assert v.summary == "not run (2 of 4 cells missing)"
    assert [c.status for c in v.cells] == [NOT_RUN, NOT_RUN, SUPPORTED, SUPPORTED]
    assert v.cells[0].missing == (k("M1", "x"),)
    assert run_verdict(claim, {}, published=LISTS).partial is None  # nothing run at all


PAIRS = frame(*[(3, m, "j", c, "difficulty=hard", "pair_accuracy", 50.0) for m in ("A", "B", "C")
                for c in ("w_text", "wo_text")])


def pair_units(only_a, only_b, both, neither=0):
    """0/1 correct per pair: ``only_a`` pairs right with text only, ``only_b``
    without text only, ``both`` right in both, ``neither`` in none."""
    a = [1] * only_a + [0] * only_b + [1] * both + [0] * neither
    b = [0] * only_a + [1] * only_b + [1] * both + [0] * neither
    ids = [f"p{i}" for i in range(len(a))]
    return CellUnits(ids, a, 100.0), CellUnits(ids, b, 100.0)


def test_mcnemar_and_holm_against_a_hand_computation(tmp_path):
    doc = claim_doc({"scope": {"table": [3]}, "units": {3: "pairs"},
                     "test": {"kind": "difference", "a": {"context": "w_text"}, "b": {"context": "wo_text"},
                              "direction": "greater"}})
    claim = load_doc(tmp_path, doc, PAIRS)["T-01"]
    cells = {}
    for model, counts in (("A", (10, 0, 10)), ("B", (8, 2, 10)), ("C", (6, 4, 10))):
        cells[k(model, "j", 3, "pair_accuracy", "w_text", difficulty="hard")], \
            cells[k(model, "j", 3, "pair_accuracy", "wo_text", difficulty="hard")] = pair_units(*counts)
    v = run_verdict(claim, cells, published=PAIRS)
    tests = [c.contrasts[0] for c in v.cells]
    assert [t.test for t in tests] == ["McNemar exact"] * 3
    # McNemar exact = two-sided binomial on the discordant pairs, p = 1/2:
    # 10 vs 0: 2 · 0.5^10 = 2/1024; 8 vs 2: 2 · (1 + 10 + 45)/1024 = 112/1024;
    # 6 vs 4: 2 · (1 + 10 + 45 + 120 + 210)/1024 = 772/1024
    assert [t.p for t in tests] == pytest.approx([2 / 1024, 112 / 1024, 772 / 1024])
    # Holm: sorted p × (3, 2, 1), running maximum: 6/1024, 224/1024, max(224, 772)/1024
    assert [t.p_holm for t in tests] == pytest.approx([6 / 1024, 224 / 1024, 772 / 1024])
    # effects: (10 − 0)/20, (8 − 2)/20, (6 − 4)/20 of the pairs, in percent
    assert [t.effect for t in tests] == pytest.approx([50.0, 30.0, 10.0])
    assert [t.status for t in tests] == [SUPPORTED, UNDECIDED, UNDECIDED] and v.verdict == UNDECIDED
    frame_ = cells_frame(v)
    assert list(frame_["p_holm"]) == pytest.approx([6 / 1024, 224 / 1024, 772 / 1024])


def test_pairs_must_be_zero_or_one(tmp_path):
    doc = claim_doc({"scope": {"table": [3]}, "units": {3: "pairs"},
                     "test": {"kind": "difference", "a": {"context": "w_text"}, "b": {"context": "wo_text"},
                              "direction": "greater"}})
    claim = load_doc(tmp_path, doc, PAIRS)["T-01"]
    cells = {key: lists([0.5] * 6) for key in (k(m, "j", 3, "pair_accuracy", c, difficulty="hard")
                                                for m in "ABC" for c in ("w_text", "wo_text"))}
    with pytest.raises(InputError, match=r"claim T-01 reads table 3 as pairs; expected 0/1 values"):
        run_verdict(claim, cells, published=PAIRS)


def test_share_p_by_hand():
    # margins −1, 1, 2, 3: 1 at or below 0, 3 at or above; p = 2 (1 + 1)/(4 + 1) = 0.8
    assert share_p(np.array([-1.0, 1.0, 2.0, 3.0])) == pytest.approx(0.8)
    assert share_p(np.ones(9999)) == pytest.approx(2 / 10_000)  # the floor 2/(R + 1)
    assert share_p(np.array([-1.0, 1.0])) == 1.0 and math.isnan(share_p(np.array([np.nan])))


def test_constant_differences_give_a_point_interval_and_the_floor_p(x_beats_y):
    base = noisy(0.5)
    cells = {k(m, j): lists(base + (0.02 if j == "x" else 0.0)) for m in ("M1", "M2") for j in ("x", "y")}
    v = run_verdict(x_beats_y, cells, published=LISTS, resamples=999)
    t = v.cells[0].contrasts[0]
    assert (t.effect, t.lo, t.hi) == pytest.approx((2.0, 2.0, 2.0))
    assert t.p == pytest.approx(2 / 1000) and t.p_holm == pytest.approx(4 / 1000)  # Holm: two contrasts


def test_unpaired_claims_compare_lists_that_share_no_ids(tmp_path):
    pub = frame((4, "M", "j", "wo_text", "domain=movies", "rho", 80.0),
                (4, "M", "j", "wo_text", "domain=songs", "rho", 40.0))
    change = {"scope": {"table": [4]}, "units": {4: "lists"},
              "test": {"kind": "difference", "a": {"domain": "movies"}, "b": {"domain": "songs"},
                       "direction": "greater"}}
    paired = load_doc(tmp_path, claim_doc(change), pub)["T-01"]
    change["test"]["pairing"] = "unpaired"
    unpaired = load_doc(tmp_path, claim_doc(change), pub, name="unpaired.yaml")["T-01"]
    cells = {k("M", "j", 4, domain="movies"): lists(noisy(0.8, seed=3), prefix="movie"),
             k("M", "j", 4, domain="songs"): lists(noisy(0.4, seed=4), prefix="song")}
    t = run_verdict(paired, cells, published=pub).cells[0].contrasts[0]
    assert (t.test, t.n_units, t.dropped, t.status) == ("paired bootstrap", 0, 60, UNDECIDED)
    v = run_verdict(unpaired, cells, published=pub)
    t = v.cells[0].contrasts[0]
    assert (t.test, v.verdict) == ("unpaired bootstrap", SUPPORTED)
    assert t.effect == pytest.approx(100 * (noisy(0.8, seed=3).mean() - noisy(0.4, seed=4).mean()))


def test_rate_vs_50_is_a_one_sample_bootstrap(tmp_path):
    pub = frame(*[(3, m, "", "", "dataset=NQ", "self_preference", 50.0) for m in ("A", "B", "C")], paper="selfpref")
    near = claim_doc({"scope": {"table": [3]}, "units": {3: "questions"},
                      "test": {"kind": "rate_vs_50", "direction": "near", "tolerance": 10}}, paper="selfpref")
    claim = load_doc(tmp_path, near, pub)["T-01"]
    q = [f"q{i}" for i in range(400)]
    cells = {k("A", "", 3, "self_preference", "", dataset="NQ"): CellUnits(q, [1, 0] * 200, 100),  # 50 %
             k("B", "", 3, "self_preference", "", dataset="NQ"): CellUnits(q, [1] * 80 + [0] * 320, 100),  # 20 %
             k("C", "", 3, "self_preference", "", dataset="NQ"): CellUnits(q, [1] * 180 + [0] * 220, 100)}  # 45 %
    v = run_verdict(claim, cells, published=pub)
    a, b, c = (cell.contrasts[0] for cell in v.cells)
    assert (a.test, a.reference, a.effect, a.margin, a.status) == ("one-sample bootstrap", 50.0, 0.0, 10.0, SUPPORTED)
    assert (b.effect, b.margin, b.status) == (pytest.approx(-30.0), pytest.approx(-20.0), CONTRADICTED)
    assert c.effect == pytest.approx(-5.0) and c.lo < -5.0 < c.hi
    assert v.verdict == CONTRADICTED
    above = claim_doc({"scope": {"table": [3], "model": "B"}, "units": {3: "questions"},
                       "test": {"kind": "rate_vs_50", "direction": "below"}}, paper="selfpref")
    claim = load_doc(tmp_path, above, pub, name="below.yaml")["T-01"]
    assert run_verdict(claim, cells, published=pub).verdict == SUPPORTED  # 20 % is below 50


def test_best_in_column_tests_the_runs_best_picked_value_against_every_other(tmp_path):
    doc = claim_doc({"test": {"kind": "best_in_column", "over": "judge", "best": ["x", "y"], "direction": "max"},
                     "scope": {"table": [1], "model": "M1"}})
    claim = load_doc(tmp_path, doc, LISTS)["T-01"]
    base = noisy(0.5)
    cells = {k("M1", "x"): lists(base + 0.05), k("M1", "y"): lists(base + 0.20), k("M1", "z"): lists(base)}
    v = run_verdict(claim, cells, published=LISTS)
    # published: x (60) is the champion; on the run y is, so y is tested against z only
    assert [(t.a.judge, t.b.judge) for t in v.cells[0].contrasts] == [("y", "z")]
    assert v.verdict == SUPPORTED and v.cells[0].contrasts[0].effect == pytest.approx(20.0)


def test_monotone_size_tests_every_adjacent_pair(tmp_path):
    doc = claim_doc({"test": {"kind": "monotone_size", "order": ["M2", "M1"], "direction": "increasing",
                              "strict": True}, "scope": {"table": [1], "judge": "x"}})
    claim = load_doc(tmp_path, doc, LISTS)["T-01"]
    base = noisy(0.5)
    v = run_verdict(claim, {k("M2", "x"): lists(base), k("M1", "x"): lists(base + 0.1)}, published=LISTS)
    (t,) = v.cells[0].contrasts
    assert (t.a.model, t.b.model, v.verdict) == ("M1", "M2", SUPPORTED)


def test_most_is_contradicted_once_half_the_cells_are(tmp_path):
    pub = frame(*[(1, f"M{i}", j, "wo_text", "", "rho", 1.0) for i in range(4) for j in ("x", "y")])
    claim = load_doc(tmp_path, claim_doc({"quantifier": "most"}), pub)["T-01"]
    base = noisy(0.5)

    def run(shifts):
        cells = {}
        for i, s in enumerate(shifts):
            cells[k(f"M{i}", "x")], cells[k(f"M{i}", "y")] = lists(base + s), lists(base + noisy(0, seed=i, sd=0.01))
        return run_verdict(claim, cells, published=pub)

    assert run([0.1, 0.1, -0.1, -0.1]).verdict == CONTRADICTED  # 2 of 4 the other way: no majority left
    assert run([0.1, 0.1, 0.1, -0.1]).verdict == SUPPORTED  # 3 of 4 supported
    assert run([0.1, 0.1, 0.0, -0.1]).verdict == UNDECIDED  # 2 supported, 1 undecided, 1 contradicted


def test_average_reads_the_mean_margin_over_cells(tmp_path):
    claim = load_doc(tmp_path, claim_doc({"quantifier": "average"}), LISTS)["T-01"]
    base = noisy(0.5)
    cells = {k("M1", "x"): lists(base + 0.10), k("M1", "y"): lists(base + noisy(0, seed=1, sd=0.01)),
             k("M2", "x"): lists(base - 0.02), k("M2", "y"): lists(base + noisy(0, seed=2, sd=0.01))}
    v = run_verdict(claim, cells, published=LISTS)
    margins = [c.contrasts[0].margin for c in v.cells]
    assert v.mean_margin == pytest.approx(np.mean(margins)) and v.mean_margin > 0
    assert v.mean_p < 0.05 and v.verdict == SUPPORTED


def test_same_seed_same_numbers_and_too_few_resamples_is_named(x_beats_y):
    base = noisy(0.5)
    cells = {k(m, j): lists(base + (0.01 if j == "x" else 0) + noisy(0, seed=ord(j), sd=0.02))
             for m in ("M1", "M2") for j in ("x", "y")}
    first, again = (run_verdict(x_beats_y, cells, published=LISTS, seed=7) for _ in range(2))
    other = run_verdict(x_beats_y, cells, published=LISTS, seed=8)
    assert cells_frame(first).equals(cells_frame(again))
    assert first.cells[0].contrasts[0].lo != other.cells[0].contrasts[0].lo
    # 2 contrasts: the smallest Holm-adjusted bootstrap p is 2 · 2/(R + 1): 4/80 = 0.05 is not below alpha at R = 79,
    # 4/81 is at R = 80
    with pytest.raises(ConfigError, match=r"claim T-01: 79 resamples for 2 contrasts: .*expected at least 80 "
                                          r"\(resamples=None takes 10000\)"):
        run_verdict(x_beats_y, cells, published=LISTS, resamples=79)
    assert run_verdict(x_beats_y, cells, published=LISTS, resamples=80).resamples == 80
    with pytest.raises(ConfigError, match=r"resamples 0; expected a positive int"):
        run_verdict(x_beats_y, cells, published=LISTS, resamples=0)


def test_bad_units_and_keys_are_named():
    with pytest.raises(InputError, match=r"3 unit ids but 2 values"):
        CellUnits(["a", "b", "c"], [1.0, 2.0])
    with pytest.raises(InputError, match=r"unit 'a' occurs twice"):
        CellUnits(["a", "a"], [1.0, 2.0])
    with pytest.raises(InputError, match=r"not a finite number"):
        CellUnits(["a", "b"], [1.0, float("nan")])
    with pytest.raises(InputError, match=r"scale -1; expected a positive number"):
        CellUnits(["a"], [1.0], -1)
    assert CellUnits(["a", "b"], [0, 1], 100).value == 50.0


def test_run_keys_must_be_published_keys(x_beats_y):
    with pytest.raises(InputError, match=r"key .*; expected \(table, model, judge, context, setting, metric\)"):
        run_verdict(x_beats_y, {("M1", "x"): lists([1.0] * 5)}, published=LISTS)
    with pytest.raises(InputError, match=r"list; expected a CellUnits"):
        run_verdict(x_beats_y, {k("M1", "x"): [1.0, 2.0]}, published=LISTS)
    # a key given with its setting keys in another order names the same cell
    assert cell_key(3, "m", "A", dataset="NQ", other="Human") == \
        cell_key(3, "m", "A", other="Human", dataset="NQ")
