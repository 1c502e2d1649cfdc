"""Tests for authbench.stats (the statistics every study shares): the seeded
percentile bootstrap against an independent recomputation, scipy and hand
values; Welch's test, the significance mark, the one-way ANOVA and Tukey HSD
against scipy and the textbook formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from authbench import stats as S
from authbench.seeding import rng
from scipy import stats


def _ci(correct, n_boot, seed_parts, level=0.95):
    """The bootstrap interval of an accuracy (the mean of 0/1 flags), as RAGAuth asks it."""
    x = np.asarray([bool(c) for c in correct], dtype=float)
    low, high, _ = S.percentile_bootstrap((x,), {"acc": lambda a: a.mean(axis=1)}, n_boot, seed_parts, level)["acc"]
    return low, high


# --------------------------------------------------------------------------
# percentile_bootstrap (a mean of booleans: RAGAuth's accuracy)
# --------------------------------------------------------------------------
def test_bootstrap_all_correct_all_wrong_single_empty():
    assert _ci([True] * 30, 500, (1, "x")) == (1.0, 1.0)
    assert _ci([False] * 30, 500, (1, "x")) == (0.0, 0.0)
    # one question: every resample is that question
    assert _ci([True], 200, (1,)) == (1.0, 1.0)
    assert _ci([False], 200, (1,)) == (0.0, 0.0)
    low, high = _ci([], 100, (1,))
    assert math.isnan(low) and math.isnan(high)


def test_bootstrap_two_questions_hand():
    # [T, F]: resample accuracy is 0, 0.5, 1 with prob 1/4, 1/2, 1/4, so the
    # 2.5th percentile is 0 and the 97.5th is 1 (both tails hold ~25% of draws).
    assert _ci([True, False], 4000, (3, "two")) == (0.0, 1.0)


def test_bootstrap_deterministic_and_seeded():
    x = [i % 3 == 0 for i in range(50)]
    a = _ci(x, 2000, (7, "cell"))
    assert a == _ci(list(x), 2000, (7, "cell"))
    assert a[0] < sum(x) / len(x) < a[1]
    others = {_ci(x, 2000, (s, "cell")) for s in range(8, 14)}
    others |= {_ci(x, 2000, (7, name)) for name in ("a", "b", "c")}
    assert any(o != a for o in others)
    # with few resamples the interpolated bounds depend visibly on the draws
    assert _ci(x, 20, (7, "cell")) != _ci(x, 20, (8, "cell"))
    assert _ci(x, 20, (7, "cell")) == _ci(x, 20, (7, "cell"))


def test_bootstrap_matches_independent_numpy():
    x = np.array([i % 5 != 0 and i % 7 != 0 for i in range(60)])
    # independent re-implementation with the documented seeding
    gen = np.random.default_rng(rng(11, "p").getrandbits(64))
    idx = gen.integers(0, x.size, size=(3000, x.size))
    want = np.percentile(x[idx].mean(axis=1), [2.5, 97.5])
    assert _ci(list(x), 3000, (11, "p")) == pytest.approx(tuple(want), abs=1e-12)


def test_bootstrap_agrees_with_scipy():
    stats = pytest.importorskip("scipy.stats")
    x = np.array([(i * 7) % 10 < 6 for i in range(40)])  # 24/40 correct
    ci = stats.bootstrap((x,), np.mean, method="percentile", n_resamples=20000,
                         random_state=0).confidence_interval
    low, high = _ci(list(x), 20000, (0, "scipy"))
    assert low == pytest.approx(ci.low, abs=0.02)
    assert high == pytest.approx(ci.high, abs=0.02)
    # and with the normal approximation, roughly p ± 1.96 sqrt(p(1-p)/n)
    half = 1.96 * math.sqrt(0.6 * 0.4 / 40)
    assert low == pytest.approx(0.6 - half, abs=0.03)
    assert high == pytest.approx(0.6 + half, abs=0.03)


def test_bootstrap_bad_arguments():
    with pytest.raises(ValueError, match="n_boot"):
        _ci([True], 0, (1,))
    with pytest.raises(ValueError, match="level"):
        _ci([True], 10, (1,), level=1.0)
    with pytest.raises(ValueError, match="seed_parts"):
        _ci([True], 10, ())


def test_bootstrap_draws_do_not_depend_on_the_chunk_size(monkeypatch):
    """The chunk only bounds memory: AuthorityBench's secondary labels used 2**21 index draws per chunk and
    RAGAuth 2**22 before they shared this function; any chunk gives the same draws, so both stay byte-identical."""
    x = np.array([(i * 5) % 7 < 3 for i in range(13)], dtype=float)
    y = np.arange(13, dtype=float) % 4
    stat = {"mean": lambda a, b: a.mean(axis=1), "cov": lambda a, b: ((a - a.mean(1, keepdims=True)) * b).sum(1)}
    want = S.percentile_bootstrap((x, y), stat, 501, (4, "chunk"))
    for chunk in (1, 13 * 3, 13 * 7 + 5, 1 << 22):
        monkeypatch.setattr(S, "_CHUNK", chunk)
        assert S.percentile_bootstrap((x, y), stat, 501, (4, "chunk")) == want


def test_bootstrap_leaves_undefined_resamples_out():
    x = np.array([1.0, 2.0, 3.0])
    gen = np.random.default_rng(rng(2, "nan").getrandbits(64))
    idx = gen.integers(0, 3, size=(400, 3))
    keep = x[idx].min(axis=1) > 1.0  # resamples without item 0
    got = S.percentile_bootstrap((x,), {"m": lambda a: np.where(a.min(axis=1) > 1.0, a.mean(axis=1), np.nan)},
                                 400, (2, "nan"))["m"]
    assert got[2] == int(keep.sum()) and 0 < got[2] < 400
    assert got[:2] == pytest.approx(tuple(np.percentile(x[idx][keep].mean(axis=1), [2.5, 97.5])))
    nothing = S.percentile_bootstrap((x,), {"m": lambda a: np.full(len(a), np.nan)}, 10, (2,))["m"]
    assert math.isnan(nothing[0]) and math.isnan(nothing[1]) and nothing[2] == 0


# --------------------------------------------------------------------------
# welch / mark
# --------------------------------------------------------------------------
def test_welch_matches_scipy():
    a = [3.1, 2.9, 4.2, 3.8, 3.3, 4.0]
    b = [2.2, 2.8, 2.5, 3.9, 2.1]
    ref = stats.ttest_ind(a, b, equal_var=False)
    t, p = S.welch(a, b)
    assert t == pytest.approx(float(ref.statistic), rel=1e-12)
    assert p == pytest.approx(float(ref.pvalue), rel=1e-12)
    t2, p2 = S.welch(b, a)
    assert t2 == pytest.approx(-t) and p2 == pytest.approx(p)


def test_welch_drops_missing_and_small_samples():
    a = [1.0, None, 2.0, float("nan"), 3.0]
    t, p = S.welch(a, [2.0, 3.0, 4.0])
    ref = stats.ttest_ind([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], equal_var=False)
    assert (t, p) == pytest.approx((float(ref.statistic), float(ref.pvalue)))
    for x, y in (([1.0], [1.0, 2.0]), ([], []), ([1.0, 2.0], [None, 3.0])):
        t, p = S.welch(x, y)
        assert math.isnan(t) and math.isnan(p)
    t, p = S.welch([2, 2, 2], [2, 2, 2])  # no variance at all: scipy's NaN, no warning escapes
    assert math.isnan(p)


def test_mark():
    assert S.mark(0.049) == "†"
    assert S.mark(0.05) == ""
    assert S.mark(0.2) == ""
    assert S.mark(float("nan")) == "" and S.mark(None) == ""
    assert S.mark(0.09, alpha=0.1) == "†"


# --------------------------------------------------------------------------
# one-way ANOVA and Tukey HSD
# --------------------------------------------------------------------------
def test_anova_tukey_by_hand():
    """The authors' anova.py: one-way ANOVA and Tukey HSD over human / GPT / Llama, checked against the textbook
    formulas (F = MS_between / MS_within; Tukey q = |diff| / sqrt(MSE / 2 (1/n_i + 1/n_j)) on the studentized
    range with k groups and N - k degrees of freedom)."""
    data = {"human": [30.0, 34.0, 29.0, 41.0, 36.0], "gpt35": [24.0, 22.0, 27.0, 25.0],
            "llama": [26.0, 31.0, 23.0, 28.0, 30.0, 25.0]}
    res = S.anova_tukey([(a, np.array(data[a])) for a in ("human", "gpt35", "llama")])
    assert [(a, n) for a, n, _ in res["groups"]] == [("human", 5), ("gpt35", 4), ("llama", 6)]
    xs = [np.array(data[a]) for a in ("human", "gpt35", "llama")]
    grand = np.concatenate(xs).mean()
    ss_between = sum(len(x) * (x.mean() - grand) ** 2 for x in xs)
    ss_within = sum(((x - x.mean()) ** 2).sum() for x in xs)
    k, n = 3, 15
    f = (ss_between / (k - 1)) / (ss_within / (n - k))
    assert (res["df_between"], res["df_within"]) == (2, 12)
    assert res["f"] == pytest.approx(f, rel=1e-12)
    assert res["p"] == pytest.approx(stats.f.sf(f, k - 1, n - k), rel=1e-9)
    mse = ss_within / (n - k)
    crit = stats.studentized_range.ppf(0.95, k, n - k)
    assert [(pr["a"], pr["b"]) for pr in res["pairs"]] == [("human", "gpt35"), ("human", "llama"), ("gpt35", "llama")]
    for pr, (i, j) in zip(res["pairs"], [(0, 1), (0, 2), (1, 2)]):
        diff = xs[i].mean() - xs[j].mean()
        se = math.sqrt(mse / 2 * (1 / len(xs[i]) + 1 / len(xs[j])))
        assert pr["diff"] == pytest.approx(diff, rel=1e-12)
        assert pr["p"] == pytest.approx(stats.studentized_range.sf(abs(diff) / se, k, n - k), rel=1e-6)
        assert (pr["low"], pr["high"]) == (pytest.approx(diff - crit * se, rel=1e-6),
                                           pytest.approx(diff + crit * se, rel=1e-6))
        assert pr["p_welch"] == pytest.approx(stats.ttest_ind(xs[i], xs[j], equal_var=False).pvalue)
    # human - gpt35 = 34 - 24.5 = 9.5; F = 8.78, p = 0.0045; Tukey: human differs from both, gpt35 ~ llama
    assert res["pairs"][0]["diff"] == pytest.approx(9.5) and round(res["f"], 2) == 8.78
    assert [round(pr["p"], 3) for pr in res["pairs"]] == [0.005, 0.021, 0.501]


# --------------------------------------------------------------------------
# mean_interval / the unit tests / mcnemar_exact / holm
# --------------------------------------------------------------------------
SPEC = S.IntervalSpec(resamples=4000, seed=3, level=0.95, min_units=5)


def test_mean_interval_five_units_by_hand():
    """5 units, 2000 resamples drawn here with the same generator: the
    interval is the 2.5/97.5 percentiles of the resampled means."""
    x = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    spec = S.IntervalSpec(resamples=2000, seed=7, min_units=5)
    gen = np.random.default_rng(S.rng(7, "cell").getrandbits(64))
    idx = gen.integers(0, 5, size=(2000, 5))
    want = np.percentile(x[idx].mean(axis=1), [2.5, 97.5])
    assert S.mean_interval(x, spec, ("cell",)) == pytest.approx(tuple(want))
    # every resample of 5 units has a mean in {0, .2, ..., 1}: the bounds are among them
    lo, hi = S.mean_interval(x, spec, ("cell",))
    assert 0.0 <= lo <= 0.6 <= hi <= 1.0


def test_mean_interval_too_few_units_is_blank():
    assert all(math.isnan(v) for v in S.mean_interval([1.0, 0.0, 1.0, 1.0], SPEC, ("x",)))
    # 6 units but 2 clusters: blank too
    assert all(math.isnan(v) for v in S.mean_interval([1, 0, 1, 1, 0, 1], SPEC, ("x",), clusters=list("aaabbb")))
    with pytest.raises(ValueError, match="NaN"):
        S.mean_interval([1.0, math.nan, 0, 0, 1], SPEC, ("x",))


def test_mean_interval_agrees_with_scipy():
    x = np.random.default_rng(11).normal(0.4, 1.0, size=60)
    lo, hi = S.mean_interval(x, S.IntervalSpec(resamples=20000, seed=1), ("scipy",))
    ref = stats.bootstrap((x,), np.mean, n_resamples=20000, method="percentile", confidence_level=0.95,
                          random_state=np.random.default_rng(2)).confidence_interval
    assert lo == pytest.approx(ref.low, abs=0.03)
    assert hi == pytest.approx(ref.high, abs=0.03)


def test_mean_interval_clusters_resample_whole_clusters():
    """Clusters of identical units behave like one unit each, weighted by size:
    with clusters (a: 3 ones, b: 3 zeros, ...) every resample mean is a ratio of
    whole clusters; a unit-level bootstrap of the same values is narrower."""
    values = [1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1]
    labels = [c for c in "abcde" for _ in range(3)]
    spec = S.IntervalSpec(resamples=4000, seed=5)
    lo_c, hi_c = S.mean_interval(values, spec, ("c",), clusters=labels)
    lo_u, hi_u = S.mean_interval(values, spec, ("c",))
    assert hi_c - lo_c > hi_u - lo_u
    # equal-size clusters: the same as a unit bootstrap over the cluster means
    lo_m, hi_m = S.mean_interval([1, 0, 1, 0, 1], spec, ("c",))
    assert (lo_c, hi_c) == pytest.approx((lo_m, hi_m))


def test_groups_interval_by_hand_and_as_mean_interval():
    """One group: mean_interval's interval (same draws). Two groups over the
    same 5 questions: per resample the mean of the two group means, recomputed
    here from the same draws; weights tilt it; a group under min_units: blank."""
    a, qa = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1], list("aabbccddee")
    spec = S.IntervalSpec(resamples=3000, seed=2)
    assert S.groups_interval([(a, qa)], spec, ("g",)) == S.mean_interval(a, spec, ("g",), clusters=qa)
    b, qb = [0.0, 1.0, 0.0, 0.0, 1.0], list("abcde")
    gen = np.random.default_rng(S.rng(2, "g").getrandbits(64))
    idx = gen.integers(0, 5, size=(3000, 5))
    sa, ca = np.array([1.0, 2.0, 1.0, 1.0, 2.0]), np.full(5, 2.0)  # per question sums / counts of a
    sb = np.array(b)
    means = (sa[idx].sum(1) / ca[idx].sum(1) + sb[idx].sum(1) / 5.0) / 2.0
    assert S.groups_interval([(a, qa), (b, qb)], spec, ("g",)) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])))
    diff = sa[idx].sum(1) / ca[idx].sum(1) - sb[idx].sum(1) / 5.0
    assert S.difference_interval((a, qa), (b, qb), spec, ("g",)) == pytest.approx(
        tuple(np.percentile(diff, [2.5, 97.5])))
    lo, hi = S.groups_interval([(a, qa), (b, qb)], spec, ("g",), weights=[1.0, 0.0])
    assert (lo, hi) == S.mean_interval(a, spec, ("g",), clusters=qa)
    assert all(math.isnan(v) for v in S.groups_interval([(a, qa), (b[:4], qb[:4])], spec, ("g",)))
    assert all(math.isnan(v) for v in S.difference_interval((a, qa), (b[:4], qb[:4]), spec, ("g",)))


def _draws(seed, name, data_digest, values, counts, resamples):
    """The resampled ratio means the tests draw (same generator, same seed names)."""
    gen = np.random.default_rng(S.rng(seed, name, data_digest).getrandbits(64))
    idx = gen.integers(0, len(values), size=(resamples, len(values)))
    return values[idx].sum(axis=1) / counts[idx].sum(axis=1)


def test_paired_test_against_scipy_and_hand():
    rng_ = np.random.default_rng(4)
    a = rng_.normal(0.5, 1, 80)
    b = a - 0.3 + rng_.normal(0, 0.2, 80)
    got = S.paired_test(a, b, S.IntervalSpec(resamples=20000, seed=2))
    assert got.effect == pytest.approx(float(np.mean(a - b))) and got.test == S.PAIRED_TEST
    ref = stats.bootstrap((a - b,), np.mean, n_resamples=20000, method="percentile",
                          random_state=np.random.default_rng(9)).confidence_interval
    assert got.lo == pytest.approx(ref.low, abs=0.01) and got.hi == pytest.approx(ref.high, abs=0.01)
    assert got.p < 0.001 and got.n == 80 and got.sd == pytest.approx(np.std(a - b, ddof=1))
    same = S.paired_test(a, a, SPEC)
    assert same.effect == 0 and same.p == 1.0
    # 5 paired units by hand: d = (1, 0, 0, 1, 0), Δ = 0.4; p = 2 Φ(−0.4 / sd(Δ*)), the draws seeded by the data
    d = np.array([1.0, 0, 0, 1, 0])
    spec = S.IntervalSpec(resamples=3000, seed=8)
    res = S.paired_test(d, np.zeros(5), spec)
    draws = _draws(8, "paired", S._digest(d, np.zeros(5), np.ones(5)), d, np.ones(5), 3000)
    assert res.p == pytest.approx(2 * stats.norm.sf(0.4 / np.std(draws, ddof=1)))
    assert (res.lo, res.hi) == pytest.approx(tuple(np.percentile(draws, [2.5, 97.5])))
    # scale: the effect, interval and sd in display units; the p unchanged
    scaled = S.paired_test(d, np.zeros(5), spec, scale=100.0)
    assert scaled.effect == pytest.approx(40.0) and scaled.lo == pytest.approx(100 * res.lo)
    assert scaled.p == pytest.approx(res.p) and scaled.sd == pytest.approx(100 * np.std(d, ddof=1))
    # a large paired effect: p far below 1 / (resamples + 1), so Holm over hundreds of rows can still find it
    big = S.paired_test(np.ones(400), np.zeros(200).tolist() + np.ones(200).tolist(), spec)
    assert big.p < 1e-6 and S.holm([big.p] * 600)[0] < 0.05
    # too few units: the effect, no interval, no p
    few = S.paired_test([1, 2, 3], [0, 0, 0], spec)
    assert few.effect == 2 and math.isnan(few.lo) and math.isnan(few.p) and few.n == 3
    with pytest.raises(ValueError, match="pair them"):
        S.paired_test([1, 2], [1], SPEC)


def test_paired_test_of_binary_units_is_mcnemar_and_the_same_whoever_asks():
    # 6 pairs only a right, 1 only b right, 5 concordant: p = 2 P(X <= 1), X ~ Bin(7, .5) = 16/128
    a = [1.0] * 6 + [0.0] + [1.0] * 3 + [0.0] * 2
    b = [0.0] * 6 + [1.0] + [1.0] * 3 + [0.0] * 2
    res = S.paired_test(a, b, SPEC, binary=True, scale=100.0)
    assert res.test == S.MCNEMAR_TEST and res.p == pytest.approx(16 / 128)
    assert res.effect == pytest.approx(100 * 5 / 12)
    # the same units again (another caller, another label): the same draws, interval and p
    again = S.paired_test(list(a), list(b), SPEC, binary=True, scale=100.0)
    assert (again.lo, again.hi, again.p) == (res.lo, res.hi, res.p)
    # clustered 0/1 units are not one unit per resampling unit: the Wald p
    assert S.paired_test(a, b, SPEC, binary=True, clusters=list("aabbccddeeff")).test == S.PAIRED_TEST


def test_one_sample_test_weighted_is_the_pooled_rate():
    """Per-question shares with their comparison counts as weights: the
    effect is the pooled rate minus the reference, the same as resampling
    the comparisons in question clusters."""
    shares, counts = [1.0, 0.5, 0.0, 1.0, 0.75], [2, 2, 1, 3, 4]
    res = S.one_sample_test(shares, 50.0, SPEC, scale=100.0, weights=counts)
    pooled = (2 + 1 + 0 + 3 + 3) / 12  # chosen comparisons / comparisons
    assert res.effect == pytest.approx(100 * pooled - 50)
    comparisons = [1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0]
    questions = ["a", "a", "b", "b", "c", "d", "d", "d", "e", "e", "e", "e"]
    clustered = S.one_sample_test(comparisons, 50.0, SPEC, scale=100.0, clusters=questions)
    assert clustered.effect == pytest.approx(res.effect) and clustered.n == res.n == 5
    draws = _draws(3, "one-sample", S._digest(np.array(shares), np.array(counts, float)),
                   np.array(shares) * counts, np.array(counts, float), 4000) * 100 - 50
    assert res.p == pytest.approx(2 * stats.norm.sf(abs(res.effect) / np.std(draws, ddof=1)))


def test_unpaired_test_by_hand():
    a, b = [0.1, 0.2, 0.3, 0.4, 0.5], [0.0, 0.1, 0.0, 0.1, 0.2]
    res = S.unpaired_test(a, b, SPEC, scale=100.0)
    assert res.effect == pytest.approx(22.0) and res.test == S.UNPAIRED_TEST and res.n == 5
    # sd: sqrt((var a + var b) / 2) in display units = sqrt((0.025 + 0.007) / 2) * 100
    assert res.sd == pytest.approx(math.sqrt((0.025 + 0.007) / 2) * 100)
    assert res.lo < 22.0 < res.hi and res.p < 0.05


def test_mcnemar_exact_by_hand():
    # 6 pairs only A right, 1 only B right: p = 2 * P(X <= 1), X ~ Bin(7, .5) = 2 * 8/128
    a = [True] * 6 + [False] + [True] * 3 + [False] * 2
    b = [False] * 6 + [True] + [True] * 3 + [False] * 2
    assert S.mcnemar_exact(a, b) == pytest.approx(16 / 128)
    assert S.mcnemar_exact([True, False], [True, False]) == 1.0


def test_holm_by_hand():
    # sorted .01, .02, .04 with m = 3: .03, .04, .04 (monotone), NaN untouched
    assert S.holm([0.04, 0.01, math.nan, 0.02]) == pytest.approx([0.04, 0.03, math.nan, 0.04], nan_ok=True)
    assert S.holm([0.5, 0.9]) == [1.0, 1.0]


def test_paired_and_welch_disagree_on_a_hand_case():
    """The same questions scored for both sides. Per question the
    model is always 0.4-0.6 above the human score: the paired test sees it
    (differences -0.5, -0.4, -0.6, -0.4, -0.5: mean -0.48, sd 0.08367,
    t = -0.48 / (0.08367 / sqrt 5) = -12.83), Welch's unpaired test drowns it
    in the spread between questions. Question 6 has the model side only:
    dropped from the paired test and counted."""
    human = {1: 1.0, 2: 2.0, 3: 3.0, 4: 4.0, 5: 5.0}
    model = {1: 1.5, 2: 2.4, 3: 3.6, 4: 4.4, 5: 5.5, 6: 9.0}
    t, p, pairs, dropped = S.paired_t(human, model)
    ref = stats.ttest_rel([1, 2, 3, 4, 5], [1.5, 2.4, 3.6, 4.4, 5.5])
    assert (pairs, dropped) == (5, 1)
    assert t == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)
    assert t == pytest.approx(-0.48 / (math.sqrt(0.028 / 4) / math.sqrt(5)))
    assert p < 0.001
    welch_p = stats.ttest_ind(list(human.values()), list(model.values()), equal_var=False).pvalue
    assert S.welch(human.values(), model.values())[1] == pytest.approx(welch_p) and welch_p > 0.05
    paired, unpaired = S.Significance("paired"), S.Significance("welch")
    assert S.mark(paired.p(human, model)) == "†" and S.mark(unpaired.p(human, model)) == ""
    assert paired.dropped == 1 and paired.tests == 1 and paired.pairs == [5]
    assert paired.words() == ("paired t-test (scipy.stats.ttest_rel) over the questions with both values (5 per test); "
                              "1 question side(s) with one value only dropped over the table's 1 test(s)")
    paired.p({1: 1.0, 2: 2.0, 3: 4.0}, {1: 2.0, 2: 2.5, 3: 3.0})  # a second test over 3 questions: a range
    assert "(3–5 per test); 1 question side(s)" in paired.words() and "table's 2 test(s)" in paired.words()
    assert unpaired.words() == "Welch's unpaired t-test"
    # fewer than two pairs: no test; a non-finite value is no value
    assert math.isnan(S.paired_t({1: 1.0}, {1: 2.0, 2: float("nan")})[1])
    with pytest.raises(ValueError, match="significance test 'exact'"):
        S.Significance("exact")
    assert S.per_question([("a", 1.0), ("a", 3.0), ("b", None), ("b", 4.0)]) == {"a": 2.0, "b": 4.0}
