"""authbench.claims.run_verdict on hand-made units: the claim's cells on the
run's own grid (quantified parts over the run's values, fixed parts and
paper models), supported / supported on k of n / contradicted / undecided /
not applicable, McNemar and Holm against a hand computation, unpaired and
one-sample tests, the champion of a column, the quantifiers, pooled units,
flags, power lines, blanks instead of NaN, and the named errors of bad units."""

import math

import numpy as np
import pytest
from authbench.claims import PlaceUnits, place_key, run_verdict
from authbench.claims.power import units_needed
from authbench.claims.run import CONTRADICTED, NOT_APPLICABLE, PARTLY, SUPPORTED, UNDECIDED, cases_frame
from authbench.errors import ConfigError, InputError
from authbench.stats import IntervalSpec
from claims_helpers import claim_doc, frame, load_doc
from scipy import stats

LISTS = frame((1, "M1", "x", "wo_text", "", "rho", 60.0), (1, "M1", "y", "wo_text", "", "rho", 50.0),
              (1, "M1", "z", "wo_text", "", "rho", 40.0), (1, "M2", "x", "wo_text", "", "rho", 40.0),
              (1, "M2", "y", "wo_text", "", "rho", 45.0), (1, "M2", "z", "wo_text", "", "rho", 30.0))
SPEC = IntervalSpec(resamples=2000, seed=0, min_units=5)


def k(model, judge, table=1, metric="rho", context="wo_text", **settings):
    return place_key(table, metric, model=model, judge=judge, context=context, **settings)


def lists(values, scale=100.0, prefix="l"):
    return PlaceUnits([f"{prefix}{i}" for i in range(len(values))], list(values), scale)


def noisy(mean, n=30, seed=0, sd=0.05):
    return np.random.default_rng(seed).normal(mean, sd, n)


@pytest.fixture
def x_beats_y(tmp_path):
    return load_doc(tmp_path, claim_doc({}), LISTS)["T-01"]


def test_supported_when_every_cell_is_distinguishable_in_the_claimed_direction(x_beats_y):
    base = noisy(0.5)
    places = {k("M1", "x"): lists(base + 0.10), k("M1", "y"): lists(base + noisy(0, seed=1, sd=0.02)),
             k("M2", "x"): lists(base + 0.08), k("M2", "y"): lists(base + noisy(0, seed=2, sd=0.02))}
    v = run_verdict(x_beats_y, places, SPEC, published=LISTS)
    assert (v.verdict, v.n, v.supported, v.missing) == (SUPPORTED, 2, 2, 0)
    t = v.cases[0].contrasts[0]
    assert (t.test, t.n_units, t.dropped) == ("paired bootstrap", 30, 0)
    # effect in the paper's unit (scale 100): 100 × mean(x − y) over the 30 shared lists
    d = 100 * (np.asarray(places[k("M1", "x")].values) - np.asarray(places[k("M1", "y")].values))
    assert t.effect == pytest.approx(d.mean()) and t.lo < t.effect < t.hi and t.lo > 0
    assert t.sd == pytest.approx(np.std(d, ddof=1))
    assert t.p_holm < 0.05 and t.status == SUPPORTED and v.cases[0].status == SUPPORTED
    assert v.summary == "supported (2 supported, 0 contradicted, 0 undecided of 2 cells)"


def test_one_contradicted_cell_contradicts_an_every_claim(x_beats_y):
    base = noisy(0.5)
    places = {k("M1", "x"): lists(base + 0.10), k("M1", "y"): lists(base + noisy(0, seed=1, sd=0.02)),
             k("M2", "x"): lists(base - 0.10), k("M2", "y"): lists(base + noisy(0, seed=2, sd=0.02))}
    v = run_verdict(x_beats_y, places, SPEC, published=LISTS)
    assert (v.verdict, v.supported, v.contradicted) == (CONTRADICTED, 1, 1)
    bad = v.cases[1].contrasts[0]
    assert bad.effect < 0 and bad.hi < 0 and bad.margin < 0 and bad.status == CONTRADICTED


def test_the_runs_own_models_are_the_quantified_models(x_beats_y):
    """"For all LLMs": the run's models, whatever their names, are the claim's models."""
    base = noisy(0.5)
    places = {k(m, j): lists(base + (0.1 if j == "x" else 0) + noisy(0, seed=i, sd=0.02))
             for i, m in enumerate(("gemma", "qwen", "mine")) for j in ("x", "y")}
    v = run_verdict(x_beats_y, places, SPEC, published=LISTS)
    assert [dict(c.parts)["model"] for c in v.cases] == ["gemma", "qwen", "mine"] and v.verdict == SUPPORTED


def test_undecided_with_too_few_units_blank_with_its_reason_and_a_power_line(x_beats_y):
    places = {key: lists([0.9, 0.8, 0.6] if key.part("judge") == "x" else [0.1, 0.2, 0.3]) for key in
             (k("M1", "x"), k("M1", "y"), k("M2", "x"), k("M2", "y"))}
    v = run_verdict(x_beats_y, places, SPEC, published=LISTS)  # 3 lists < min_units 5
    t = v.cases[0].contrasts[0]
    assert v.verdict == UNDECIDED and v.undecided == 2
    assert t.effect == pytest.approx(170 / 3) and math.isnan(t.lo) and math.isnan(t.p) and t.status == UNDECIDED
    assert t.why == "3 units, below min_units 5"
    # the power line: M1's own published margin 60 − 50 = 10 (the run has "M1" as a paper model's cell), the run's
    # spread: sd of (80, 60, 30) = 25.17; n = ceil(((1.95996 + 0.84162) · 25.17 / 10)²) = 50
    sd = float(np.std([80.0, 60.0, 30.0], ddof=1))
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert units_needed(10.0, sd) == math.ceil((z * sd / 10.0) ** 2) == 50
    assert v.cases[0].power.startswith("about 50 units would decide a published effect of 10.00")
    frame_ = cases_frame(v)
    assert frame_.loc[0, "lo"] == "" and frame_.loc[0, "p"] == "" and frame_.loc[0, "why"] == t.why
    assert "nan" not in frame_.to_csv(sep="\t").lower()
    few = IntervalSpec(resamples=2000, seed=0, min_units=3)
    assert run_verdict(x_beats_y, places, few, published=LISTS).verdict == SUPPORTED


def test_cells_the_run_lacks_are_listed_with_their_reason_and_the_claim_is_supported_on_part(tmp_path):
    # x against y and against z: per model 2 cells; no z numbers in the run: the 2 cells against z are missing
    claim = load_doc(tmp_path, claim_doc({"test": {"kind": "difference", "a": {"judge": "x"},
                                                   "b": {"judge": ["y", "z"]}, "direction": "greater"}}),
                     LISTS)["T-01"]
    base = noisy(0.5)
    places = {k("M1", "x"): lists(base + 0.1), k("M1", "y"): lists(base + noisy(0, seed=3, sd=0.02)),
             k("M2", "x"): lists(base + 0.1), k("M2", "y"): lists(base + noisy(0, seed=4, sd=0.02))}
    v = run_verdict(claim, places, SPEC, published=LISTS)
    assert (v.verdict, v.n, v.supported, v.missing) == (PARTLY, 4, 2, 2)
    assert v.summary.startswith("supported on 2 of 4 cells")
    gone = [c for c in v.cases if c.status == "missing"]
    assert [c.missing for c in gone] == [(k("M1", "z"),), (k("M2", "z"),)]
    assert gone[0].reason == "judge z: not in this run (its judge values: x, y)"
    assert run_verdict(claim, {}, SPEC, published=LISTS).verdict == NOT_APPLICABLE  # nothing run at all


def test_a_fixed_paper_model_needs_a_model_with_that_paper_name(tmp_path):
    doc = claim_doc({"scope": {"table": [1], "model": "M1"}, "quantified": []})
    claim = load_doc(tmp_path, doc, LISTS)["T-01"]
    base = noisy(0.5)
    places = {k("M1", "x"): lists(base + 0.1), k("M1", "y"): lists(base)}
    v = run_verdict(claim, places, SPEC, published=LISTS)  # "M1" is a run model's own name, not a paper name
    assert v.verdict == NOT_APPLICABLE and v.needs == "a model with paper_name M1 (no model of this run has one)"
    assert v.summary == "not applicable to this run: a model with paper_name M1 (no model of this run has one)"
    assert run_verdict(claim, places, SPEC, published=LISTS, named={"M1"}).verdict == SUPPORTED


def test_a_quantified_part_the_run_cannot_range_over_is_a_named_error(tmp_path):
    for quantified, expected in ((["domain"], r"quantified\[0\]: a run cannot range over 'domain'"),
                                 (["judge"], r"quantified\[0\]: 'judge' is a part the test compares")):
        with pytest.raises(ConfigError, match=expected):
            load_doc(tmp_path, claim_doc({"quantified": quantified}), LISTS)


PAIRS = frame(*[(3, m, "j", c, "difficulty=hard", "pair_accuracy", 50.0) for m in ("A", "B", "C")
                for c in ("w_text", "wo_text")])


def pair_units(only_a, only_b, both, neither=0):
    """0/1 correct per pair: ``only_a`` pairs right with text only, ``only_b``
    without text only, ``both`` right in both, ``neither`` in none."""
    a = [1] * only_a + [0] * only_b + [1] * both + [0] * neither
    b = [0] * only_a + [1] * only_b + [1] * both + [0] * neither
    ids = [f"p{i}" for i in range(len(a))]
    return PlaceUnits(ids, a, 100.0), PlaceUnits(ids, b, 100.0)


def test_mcnemar_and_holm_against_a_hand_computation(tmp_path):
    doc = claim_doc({"scope": {"table": [3]}, "units": {3: "pairs"},
                     "test": {"kind": "difference", "a": {"context": "w_text"}, "b": {"context": "wo_text"},
                              "direction": "greater"}})
    claim = load_doc(tmp_path, doc, PAIRS)["T-01"]
    places = {}
    for model, counts in (("A", (10, 0, 10)), ("B", (8, 2, 10)), ("C", (6, 4, 10))):
        places[k(model, "j", 3, "pair_accuracy", "w_text", difficulty="hard")], \
            places[k(model, "j", 3, "pair_accuracy", "wo_text", difficulty="hard")] = pair_units(*counts)
    v = run_verdict(claim, places, SPEC, published=PAIRS)
    tests = [c.contrasts[0] for c in v.cases]
    assert [t.test for t in tests] == ["McNemar exact"] * 3
    # McNemar exact = two-sided binomial on the discordant pairs, p = 1/2:
    # 10 vs 0: 2 · 0.5^10 = 2/1024; 8 vs 2: 2 · (1 + 10 + 45)/1024 = 112/1024;
    # 6 vs 4: 2 · (1 + 10 + 45 + 120 + 210)/1024 = 772/1024
    assert [t.p for t in tests] == pytest.approx([2 / 1024, 112 / 1024, 772 / 1024])
    # Holm: sorted p × (3, 2, 1), running maximum: 6/1024, 224/1024, max(224, 772)/1024
    assert [t.p_holm for t in tests] == pytest.approx([6 / 1024, 224 / 1024, 772 / 1024])
    # effects: (10 − 0)/20, (8 − 2)/20, (6 − 4)/20 of the pairs, in percent
    assert [t.effect for t in tests] == pytest.approx([50.0, 30.0, 10.0])
    # one supported, two undecided: an every claim is supported on 1 of 3 cells
    assert [t.status for t in tests] == [SUPPORTED, UNDECIDED, UNDECIDED] and v.verdict == PARTLY
    assert list(cases_frame(v)["p_holm"]) == pytest.approx([6 / 1024, 224 / 1024, 772 / 1024])


def test_pairs_must_be_zero_or_one(tmp_path):
    doc = claim_doc({"scope": {"table": [3]}, "units": {3: "pairs"},
                     "test": {"kind": "difference", "a": {"context": "w_text"}, "b": {"context": "wo_text"},
                              "direction": "greater"}})
    claim = load_doc(tmp_path, doc, PAIRS)["T-01"]
    places = {key: lists([0.5] * 6) for key in (k(m, "j", 3, "pair_accuracy", c, difficulty="hard")
                                                for m in "ABC" for c in ("w_text", "wo_text"))}
    with pytest.raises(InputError, match=r"claim T-01 reads table 3 as pairs; expected 0/1 values"):
        run_verdict(claim, places, SPEC, published=PAIRS)


def test_constant_differences_give_a_point_interval_and_p_zero(x_beats_y):
    base = noisy(0.5)
    places = {k(m, j): lists(base + (0.02 if j == "x" else 0.0)) for m in ("M1", "M2") for j in ("x", "y")}
    v = run_verdict(x_beats_y, places, SPEC, published=LISTS)
    t = v.cases[0].contrasts[0]
    assert (t.effect, t.lo, t.hi) == pytest.approx((2.0, 2.0, 2.0))
    assert t.p == 0.0 and t.status == SUPPORTED  # a zero standard error with an effect: the Wald p is 0


def test_unpaired_claims_compare_lists_that_share_no_ids(tmp_path):
    pub = frame((4, "M", "j", "wo_text", "domain=movies", "rho", 80.0),
                (4, "M", "j", "wo_text", "domain=songs", "rho", 40.0))
    change = {"scope": {"table": [4]}, "units": {4: "lists"},
              "test": {"kind": "difference", "a": {"domain": "movies"}, "b": {"domain": "songs"},
                       "direction": "greater"}}
    paired = load_doc(tmp_path, claim_doc(change), pub)["T-01"]
    change["test"]["pairing"] = "unpaired"
    unpaired = load_doc(tmp_path, claim_doc(change), pub, name="unpaired.yaml")["T-01"]
    places = {k("M", "j", 4, domain="movies"): lists(noisy(0.8, seed=3), prefix="movie"),
             k("M", "j", 4, domain="songs"): lists(noisy(0.4, seed=4), prefix="song")}
    t = run_verdict(paired, places, SPEC, published=pub).cases[0].contrasts[0]
    assert (t.test, t.n_units, t.dropped, t.status) == ("paired bootstrap", 0, 60, UNDECIDED)
    v = run_verdict(unpaired, places, SPEC, published=pub)
    t = v.cases[0].contrasts[0]
    assert (t.test, v.verdict) == ("unpaired bootstrap", SUPPORTED)
    assert t.effect == pytest.approx(100 * (noisy(0.8, seed=3).mean() - noisy(0.4, seed=4).mean()))


def test_rate_vs_50_is_a_one_sample_test_and_pooled_units_give_the_pooled_rate(tmp_path):
    pub = frame(*[(3, m, "", "", "dataset=NQ", "self_preference", 50.0) for m in ("A", "B", "C")], paper="selfpref")
    near = claim_doc({"scope": {"table": [3]}, "units": {3: "questions"},
                      "test": {"kind": "rate_vs_50", "direction": "near", "tolerance": 10}}, paper="selfpref")
    claim = load_doc(tmp_path, near, pub)["T-01"]
    q = [f"q{i}" for i in range(400)]
    places = {k("A", "", 3, "self_preference", "", dataset="NQ"): PlaceUnits(q, [1, 0] * 200, 100),  # 50 %
             k("B", "", 3, "self_preference", "", dataset="NQ"): PlaceUnits(q, [1] * 80 + [0] * 320, 100),  # 20 %
             k("C", "", 3, "self_preference", "", dataset="NQ"): PlaceUnits(q, [1] * 180 + [0] * 220, 100)}  # 45 %
    v = run_verdict(claim, places, SPEC, published=pub)
    a, b, c = (case.contrasts[0] for case in v.cases)
    assert (a.test, a.reference, a.effect, a.margin, a.status) == ("one-sample bootstrap", 50.0, 0.0, 10.0, SUPPORTED)
    assert (b.effect, b.margin, b.status) == (pytest.approx(-30.0), pytest.approx(-20.0), CONTRADICTED)
    assert c.effect == pytest.approx(-5.0) and c.lo < -5.0 < c.hi
    assert v.verdict == CONTRADICTED
    # a question's share of its comparisons, weighted by their count: 3 questions, (1 of 1), (0 of 3), (2 of 4):
    # pooled 3 / 8 = 37.5%, not the mean share (1 + 0 + 0.5) / 3 = 50%
    pooled = PlaceUnits(["a", "b", "c"], [1.0, 0.0, 0.5], 100.0, [1, 3, 4])
    assert pooled.value == pytest.approx(37.5)
    with pytest.raises(InputError, match=r"2 weights for 3 units"):
        PlaceUnits(["a", "b", "c"], [1.0, 0.0, 0.5], 100.0, [1, 3])


def test_best_in_column_tests_the_runs_best_picked_value_against_every_other(tmp_path):
    doc = claim_doc({"test": {"kind": "best_in_column", "over": "judge", "best": ["x", "y"], "direction": "max"},
                     "scope": {"table": [1]}})
    claim = load_doc(tmp_path, doc, LISTS)["T-01"]
    base = noisy(0.5)
    places = {k("M1", "x"): lists(base + 0.05), k("M1", "y"): lists(base + 0.20), k("M1", "z"): lists(base)}
    v = run_verdict(claim, places, SPEC, published=LISTS)
    # published: x (60) is the champion; on the run y is, so y is tested against z only
    assert [(t.a.part("judge"), t.b.part("judge")) for t in v.cases[0].contrasts] == [("y", "z")]
    assert v.verdict == SUPPORTED and v.cases[0].contrasts[0].effect == pytest.approx(20.0)


def test_monotone_size_needs_the_paper_models_and_tests_every_adjacent_pair(tmp_path):
    doc = claim_doc({"test": {"kind": "monotone_size", "order": ["M2", "M1"], "direction": "increasing",
                              "strict": True}, "scope": {"table": [1], "judge": "x"}, "quantified": []})
    claim = load_doc(tmp_path, doc, LISTS)["T-01"]
    base = noisy(0.5)
    places = {k("M2", "x"): lists(base), k("M1", "x"): lists(base + 0.1)}
    v = run_verdict(claim, places, SPEC, published=LISTS, named={"M1", "M2"})
    (t,) = v.cases[0].contrasts
    assert (t.a.model, t.b.model, v.verdict) == ("M1", "M2", SUPPORTED)
    # one of the two sizes named: its column lacks the other, listed
    only = run_verdict(claim, {k("M1", "x"): lists(base)}, SPEC, published=LISTS, named={"M1"})
    assert only.verdict == NOT_APPLICABLE and "model M2: no model of this run has this paper_name" in only.needs


def test_most_is_contradicted_once_half_the_cells_are(tmp_path):
    pub = frame(*[(1, f"M{i}", j, "wo_text", "", "rho", 1.0) for i in range(4) for j in ("x", "y")])
    claim = load_doc(tmp_path, claim_doc({"quantifier": "most"}), pub)["T-01"]
    base = noisy(0.5)

    def run(shifts):
        places = {}
        for i, s in enumerate(shifts):
            places[k(f"M{i}", "x")], places[k(f"M{i}", "y")] = lists(base + s), lists(base + noisy(0, seed=i, sd=0.01))
        return run_verdict(claim, places, SPEC, published=pub)

    assert run([0.1, 0.1, -0.1, -0.1]).verdict == CONTRADICTED  # 2 of 4 the other way: no majority left
    assert run([0.1, 0.1, 0.1, -0.1]).verdict == SUPPORTED  # 3 of 4 supported
    assert run([0.1, 0.1, 0.0, -0.1]).verdict == PARTLY  # 2 supported, 1 undecided, 1 contradicted


def test_average_reads_the_mean_margin_over_cells(tmp_path):
    claim = load_doc(tmp_path, claim_doc({"quantifier": "average"}), LISTS)["T-01"]
    base = noisy(0.5)
    places = {k("M1", "x"): lists(base + 0.10), k("M1", "y"): lists(base + noisy(0, seed=1, sd=0.01)),
             k("M2", "x"): lists(base - 0.02), k("M2", "y"): lists(base + noisy(0, seed=2, sd=0.01))}
    v = run_verdict(claim, places, SPEC, published=LISTS)
    margins = [c.contrasts[0].margin for c in v.cases]
    assert v.mean_margin == pytest.approx(np.mean(margins)) and v.mean_margin > 0
    assert v.mean_p < 0.05 and v.verdict == SUPPORTED


def test_a_verdict_resting_on_flagged_cells_carries_the_flag(x_beats_y):
    base = noisy(0.5)
    places = {k(m, j): lists(base + (0.1 if j == "x" else 0) + noisy(0, seed=ord(m[1]), sd=0.02))
             for m in ("M1", "M2") for j in ("x", "y")}
    v = run_verdict(x_beats_y, places, SPEC, published=LISTS, flags={k("M2", "y"): ["answers by position"]})
    assert v.cases[1].flags == ("answers by position",) and v.cases[0].flags == ()
    assert v.flags == ("answers by position (1 of 2 cells)",)
    assert v.summary.endswith("; rests on flagged cells: answers by position (1 of 2 cells)")


def test_same_seed_same_numbers(x_beats_y):
    base = noisy(0.5)
    places = {k(m, j): lists(base + (0.01 if j == "x" else 0) + noisy(0, seed=ord(j), sd=0.02))
             for m in ("M1", "M2") for j in ("x", "y")}
    first, again = (run_verdict(x_beats_y, places, IntervalSpec(2000, 7), published=LISTS) for _ in range(2))
    other = run_verdict(x_beats_y, places, IntervalSpec(2000, 8), published=LISTS)
    assert cases_frame(first).equals(cases_frame(again))
    assert first.cases[0].contrasts[0].lo != other.cases[0].contrasts[0].lo
    with pytest.raises(ConfigError, match=r"alpha 1.5; expected a number between 0 and 1"):
        run_verdict(x_beats_y, places, SPEC, alpha=1.5, published=LISTS)


def test_bad_units_and_keys_are_named():
    with pytest.raises(InputError, match=r"3 unit ids but 2 values"):
        PlaceUnits(["a", "b", "c"], [1.0, 2.0])
    with pytest.raises(InputError, match=r"unit 'a' occurs twice"):
        PlaceUnits(["a", "a"], [1.0, 2.0])
    with pytest.raises(InputError, match=r"not a finite number"):
        PlaceUnits(["a", "b"], [1.0, float("nan")])
    with pytest.raises(InputError, match=r"scale -1; expected a positive number"):
        PlaceUnits(["a"], [1.0], -1)
    assert PlaceUnits(["a", "b"], [0, 1], 100).value == 50.0


def test_run_keys_must_be_published_keys(x_beats_y):
    with pytest.raises(InputError, match=r"key .*; expected a published key"):
        run_verdict(x_beats_y, {("M1", "x"): lists([1.0] * 5)}, published=LISTS)
    with pytest.raises(InputError, match=r"list; expected a PlaceUnits"):
        run_verdict(x_beats_y, {k("M1", "x"): [1.0, 2.0]}, published=LISTS)
    # a key given with its setting keys in another order names the same cell
    assert place_key(3, "m", model="A", dataset="NQ", other="Human") == \
        place_key(3, "m", model="A", other="Human", dataset="NQ")


# --------------------------------------------------------------------------- a threshold and closer_to_50 on a run
def test_a_threshold_is_tested_on_the_resampled_margins(tmp_path):
    """Pairs, w/ against w/o, threshold 5 points: 40 pairs, w/ right on 30, w/o on 20 (the first 20 of those 30):
    effect 100 × (30 − 20) / 40 = 25, margin 25 − 5 = 20. The p is the Wald p of the resampled margins, not
    McNemar's (which tests a = b): the test is named paired bootstrap."""
    pub = frame((3, "M", "j", "w_text", "difficulty=hard", "acc", 60.0),
                (3, "M", "j", "wo_text", "difficulty=hard", "acc", 40.0))
    doc = claim_doc({"scope": {"table": [3]}, "units": {3: "pairs"},
                     "test": {"kind": "difference", "a": {"context": "w_text"}, "b": {"context": "wo_text"},
                              "direction": "greater", "threshold": 5}})
    claim = load_doc(tmp_path, doc, pub)["T-01"]
    ids = [f"p{i}" for i in range(40)]
    w = PlaceUnits(ids, [1.0] * 30 + [0.0] * 10, 100.0)
    wo = PlaceUnits(ids, [1.0] * 20 + [0.0] * 20, 100.0)
    v = run_verdict(claim, {k("M", "j", 3, "acc", "w_text", difficulty="hard"): w,
                            k("M", "j", 3, "acc", "wo_text", difficulty="hard"): wo}, SPEC, published=pub)
    t = v.cases[0].contrasts[0]
    assert (t.test, t.effect, t.margin) == ("paired bootstrap", pytest.approx(25.0), pytest.approx(20.0))
    assert t.status == SUPPORTED and 0 <= t.p < 0.05
    # a threshold above the effect: margin 25 − 40 = −15, contradicted
    doc["claims"][0]["test"]["threshold"] = 40
    claim = load_doc(tmp_path, doc, pub)["T-01"]
    v = run_verdict(claim, {k("M", "j", 3, "acc", "w_text", difficulty="hard"): w,
                            k("M", "j", 3, "acc", "wo_text", difficulty="hard"): wo}, SPEC, published=pub)
    assert v.cases[0].contrasts[0].margin == pytest.approx(-15.0) and v.verdict == CONTRADICTED


GEN = frame((4, "LLaMA", "", "", "dataset=NQ", "gen", 38.0), (4, "GPT", "", "", "dataset=NQ", "gen", 86.0))


def closer_claim(tmp_path, **change):
    test = {"kind": "closer_to_50", "a": {"model": "LLaMA"}, "b": {"model": "GPT"}, "direction": "closer", **change}
    doc = claim_doc({"scope": {"table": [4]}, "units": {4: "questions"}, "test": test, "quantified": ["dataset"]})
    return load_doc(tmp_path, doc, GEN)["T-01"]


def test_closer_to_50_on_a_run_is_a_bootstrap_of_the_distance_difference(tmp_path):
    """40 shared questions: LLaMA prefers the Gen-by-QA passage on 22 (55%, 5 from 50), GPT on 36 (90%, 40 from
    50): effect |55 − 50| − |90 − 50| = −35, margin +35 (closer); every draw keeps LLaMA nearer: supported."""
    ids = [f"q{i}" for i in range(40)]
    llama = PlaceUnits(ids, [1.0] * 22 + [0.0] * 18, 100.0)
    gpt = PlaceUnits(ids, [1.0] * 36 + [0.0] * 4, 100.0)
    places = {place_key(4, "gen", model="LLaMA", dataset="NQ"): llama, place_key(4, "gen", model="GPT",
        dataset="NQ"): gpt}
    v = run_verdict(closer_claim(tmp_path), places, SPEC, published=GEN, named=["LLaMA", "GPT"])
    t = v.cases[0].contrasts[0]
    assert (t.test, t.n_units, t.effect, t.margin) == ("paired bootstrap", 40, pytest.approx(-35.0),
                                                       pytest.approx(35.0))
    assert t.lo < t.effect < t.hi < 0 and t.status == SUPPORTED and v.verdict == SUPPORTED
    # the spread for the power line: both means above 50, so per question 100 x − 100 y: 0 on 26, −100 on 14
    assert t.sd == pytest.approx(np.std([0.0] * 26 + [-100.0] * 14, ddof=1))
    # unpaired: each side resampled on its own, the same effect
    u = run_verdict(closer_claim(tmp_path, pairing="unpaired"), places, SPEC, published=GEN, named=["LLaMA", "GPT"])
    assert (u.cases[0].contrasts[0].test, u.cases[0].contrasts[0].effect) == ("unpaired bootstrap",
                                                                              pytest.approx(-35.0))
    # too few units: no interval, no p, undecided
    few = {key: PlaceUnits(units.units[:3], units.values[:3], 100.0) for key, units in places.items()}
    f = run_verdict(closer_claim(tmp_path), few, SPEC, published=GEN, named=["LLaMA", "GPT"])
    assert f.cases[0].contrasts[0].why == "3 units, below min_units 5" and f.verdict == UNDECIDED
