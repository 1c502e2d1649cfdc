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
from authbench.stats import (MCNEMAR_TEST, ONE_SAMPLE_TEST, PAIRED_TEST, UNPAIRED_TEST, IntervalSpec,
                             one_sample_test, paired_test, unpaired_test, wald_p)

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
    return contrast.sign * effects


def infer(contrast: Contrast, a: Sample, b: Sample | None, pairs: bool, paired: bool, spec: IntervalSpec
          ) -> Inference:
    """The test of ``contrast`` (module docstring); ``pairs``: the units are
    0/1 pairs (McNemar when paired); ``spec``: resamples, level, seed and
    ``min_units`` (config ``intervals``)."""
    dropped = 0
    if b is None:
        res = one_sample_test(a.raw, contrast.reference, spec, scale=a.scale, weights=a.weights)
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
        res = paired_test(a.raw[ia], b.raw[ib], spec, scale=a.scale, weights=wa, weights_b=wb, binary=pairs)
    else:
        res = unpaired_test(a.raw, b.raw, spec, scale=a.scale, weights_a=a.weights, weights_b=b.weights)
    margin = float(contrast.margin(res.effect)) if math.isfinite(res.effect) else math.nan
    if not res.draws.size:
        return Inference(res.test, res.n, dropped, res.effect, math.nan, math.nan, margin, math.nan, res.sd)
    draws = _margins(contrast, res.draws)
    p = wald_p(margin, draws) if contrast.tolerance is not None else res.p
    return Inference(res.test, res.n, dropped, res.effect, res.lo, res.hi, margin, float(p), res.sd, draws)
