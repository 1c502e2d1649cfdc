"""The test of one contrast on a run's units, through the pipeline's one
test per kind of contrast (:mod:`authbench.stats`: the same functions the
reports' ``comparisons.tsv`` calls, so the same contrast on the same units
gives the same effect, interval and p in both):

* ``paired bootstrap`` / ``McNemar exact`` (:func:`authbench.stats.paired_test`):
  the units both sides share, in the a side's order; McNemar's exact p for
  0/1 pairs, else the Wald p of the bootstrap standard error.
* ``unpaired bootstrap`` (:func:`authbench.stats.unpaired_test`): two samples
  that share no units (two benchmarks' lists), each resampled on its own.
* ``one-sample bootstrap`` (:func:`authbench.stats.one_sample_test`): one side
  against a constant (50 for a rate, 0 for a bias, a bound); for ``near``
  the margin is tolerance − |effect| and its p the Wald p of the resampled
  margins.
* a difference with a ``threshold`` ("substantially"): the same paired or
  unpaired bootstrap of a − b, but the p is the Wald p of the resampled
  margins (sign · (a − b) − threshold) against 0, not McNemar's test of
  a = b (on 0/1 pairs the test is then named ``paired bootstrap``).
* ``closer_to_50`` (:func:`distance_test`): |a − 50| − |b − 50| on the
  units both sides share (paired; unpaired: each side resampled on its
  own), its bootstrap interval and the Wald p of its draws.

A unit's value may pool several observations (``weights``: a question's
comparisons): the effect is then the pooled mean, as the paper's number is.
With fewer than ``min_units`` units (shared units when paired) the interval
and p are NaN: too few units to tell; the effect and the per-unit spread
(``sd``, for a next run's power) are still given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from authbench.claims.kinds import Contrast
from authbench.stats import (MCNEMAR_TEST, ONE_SAMPLE_TEST, PAIRED_TEST, UNPAIRED_TEST, IntervalSpec, UnitTest,
                             bootstrap_draws, one_sample_test, paired_test, unpaired_test, wald_p)

PAIRED, MCNEMAR, UNPAIRED, ONE_SAMPLE = PAIRED_TEST, MCNEMAR_TEST, UNPAIRED_TEST, ONE_SAMPLE_TEST


@dataclass(frozen=True)
class Sample:
    """One side of a contrast: unit ids, their raw values (0/1 for pairs),
    the weight of each (None: one observation each) and the scale that puts
    them in the paper's unit."""

    units: tuple
    raw: np.ndarray
    weights: np.ndarray | None
    scale: float


@dataclass(frozen=True)
class Inference:
    """A contrast's test: ``test`` its name, ``n_units`` the units tested
    (shared ones when paired; the smaller side when unpaired), ``dropped``
    the units on one side only (paired), ``effect`` a − b (or a − reference)
    with its interval ``lo``–``hi``, ``margin`` in the claimed direction,
    ``p`` two-sided (NaN with too few units), ``sd`` the per-unit spread of
    the effect (NaN with fewer than two units), ``draws`` the resampled
    margins."""

    test: str
    n_units: int
    dropped: int
    effect: float
    lo: float
    hi: float
    margin: float
    p: float
    sd: float
    draws: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.empty(0))


def _margins(contrast: Contrast, effects: np.ndarray) -> np.ndarray:
    if contrast.tolerance is not None:
        return contrast.tolerance - np.abs(effects)
    return contrast.sign * effects - contrast.threshold


def _side_mean(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums.sum(axis=-1) / counts.sum(axis=-1)


def distance_test(a: Sample, b: Sample, centre: float, paired: bool, spec: IntervalSpec) -> UnitTest:
    """|mean(a) − centre| − |mean(b) − centre| in the paper's unit (each side's
    mean pooled by its weights, times its scale): paired over the units both
    share (resampled together) or unpaired (each side on its own); the
    percentile interval of the draws and their Wald p; ``sd`` the per-unit
    spread of the effect linearised at the two means (for the power line).
    With fewer than ``spec.min_units`` units the interval and p are NaN."""
    def pooled(side: Sample, index: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        raw = side.raw if index is None else side.raw[index]
        w = np.ones(len(raw)) if side.weights is None else (side.weights if index is None else side.weights[index])
        return raw * w, w

    if paired:
        where = {u: i for i, u in enumerate(b.units)}
        shared = [(i, where[u]) for i, u in enumerate(a.units) if u in where]
        ia, ib = (np.array([s[k] for s in shared], dtype=int) for k in (0, 1))
        (sa, ca), (sb, cb) = pooled(a, ia), pooled(b, ib)
    else:
        (sa, ca), (sb, cb) = pooled(a), pooled(b)
    n = min(len(sa), len(sb))
    if not n:
        return UnitTest(PAIRED_TEST if paired else UNPAIRED_TEST, 0, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean_a, mean_b = _side_mean(sa, ca) * a.scale, _side_mean(sb, cb) * b.scale
    effect = float(abs(mean_a - centre) - abs(mean_b - centre))
    # the per-unit spread for a next run's power: the effect linearised at the two means (the delta method),
    # sign(mean_a − centre) · a_i − sign(mean_b − centre) · b_i
    va, vb = np.sign(mean_a - centre) * sa / ca * a.scale, np.sign(mean_b - centre) * sb / cb * b.scale
    if paired:
        sd = float(np.std(va - vb, ddof=1)) if n >= 2 else math.nan
    else:
        sd = (math.sqrt((np.var(va, ddof=1) + np.var(vb, ddof=1)) / 2) if min(len(va), len(vb)) >= 2
              else math.nan)
    test = PAIRED_TEST if paired else UNPAIRED_TEST
    if n < max(spec.min_units, 1):
        return UnitTest(test, n, effect, math.nan, math.nan, math.nan, sd)
    seed = (spec.seed, "closer", str(centre), str(paired), *(f"{x:.12g}" for x in (sa.sum(), ca.sum(), sb.sum(),
                                                                                      cb.sum(), len(sa), len(sb))))

    def stat(s1, c1, s2, c2):
        return np.abs(_side_mean(s1, c1) * a.scale - centre) - np.abs(_side_mean(s2, c2) * b.scale - centre)

    if paired:
        draws = bootstrap_draws((sa, ca, sb, cb), {"d": stat}, spec.resamples, seed)["d"]
    else:
        da = bootstrap_draws((sa, ca), {"m": _side_mean}, spec.resamples, seed + ("a",))["m"] * a.scale
        db = bootstrap_draws((sb, cb), {"m": _side_mean}, spec.resamples, seed + ("b",))["m"] * b.scale
        draws = np.abs(da - centre) - np.abs(db - centre)
    alpha = (1.0 - spec.level) / 2
    lo, hi = np.percentile(draws[~np.isnan(draws)], [100 * alpha, 100 * (1 - alpha)])
    return UnitTest(test, n, effect, float(lo), float(hi), wald_p(effect, draws), sd, draws)


def infer(contrast: Contrast, a: Sample, b: Sample | None, pairs: bool, paired: bool, spec: IntervalSpec
          ) -> Inference:
    """The test of ``contrast`` (module docstring); ``pairs``: the units are
    0/1 pairs (McNemar when paired); ``spec``: resamples, level, seed and
    ``min_units`` (config ``intervals``)."""
    dropped = 0
    if b is None:
        res = one_sample_test(a.raw, contrast.reference, spec, scale=a.scale, weights=a.weights)
    elif contrast.centre is not None:
        res = distance_test(a, b, contrast.centre, paired, spec)
        if paired:
            dropped = len(a.units) + len(b.units) - 2 * len(set(a.units) & set(b.units))
    elif paired:
        index = {u: i for i, u in enumerate(b.units)}
        shared = [(i, index[u]) for i, u in enumerate(a.units) if u in index]
        ia, ib = (np.array([s[k] for s in shared], dtype=int) for k in (0, 1))
        dropped = len(a.units) + len(b.units) - 2 * len(shared)
        if a.scale != b.scale:
            raise ValueError(f"the two sides of {contrast.a} vs {contrast.b} have scales {a.scale} and {b.scale}")
        wa = None if a.weights is None else a.weights[ia]
        wb = None if b.weights is None else b.weights[ib]
        if wb is not None and wa is not None and np.array_equal(wa, wb):
            wb = None
        elif wb is not None and wa is None:
            wa = np.ones(len(ia))
        res = paired_test(a.raw[ia], b.raw[ib], spec, scale=a.scale, weights=wa, weights_b=wb,
                          binary=pairs and not contrast.threshold)
    else:
        res = unpaired_test(a.raw, b.raw, spec, scale=a.scale, weights_a=a.weights, weights_b=b.weights)
    margin = float(contrast.margin(res.effect)) if math.isfinite(res.effect) else math.nan
    if not res.draws.size:
        return Inference(res.test, res.n, dropped, res.effect, math.nan, math.nan, margin, math.nan, res.sd)
    draws = _margins(contrast, res.draws)
    p = wald_p(margin, draws) if contrast.tolerance is not None or contrast.threshold else res.p
    return Inference(res.test, res.n, dropped, res.effect, res.lo, res.hi, margin, float(p), res.sd, draws)
