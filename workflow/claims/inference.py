"""The test of one contrast on a run's units: the effect (a − b, or a − the
reference) in the paper's unit, its percentile-bootstrap interval (level
1 − alpha), the bootstrap draws of the margin in the claimed direction, and a two-sided p.

* ``paired bootstrap``: the units both sides share, the per-unit differences
  resampled (:func:`authbench.stats.bootstrap_draws`, seeded);
  p = the two-sided share of resampled margins on the far side of 0
  (:func:`share_p`).
* ``McNemar exact``: the same pairing for 0/1 units (pairs); p from
  :func:`authbench.stats.mcnemar_exact` (binomial on the discordant pairs),
  the interval from the paired bootstrap.
* ``unpaired bootstrap``: each side's units resampled on their own (two
  samples that share no units, e.g. two benchmarks' lists).
* ``one-sample bootstrap``: one side against a constant (50 for a rate, 0 for
  a bias); for ``near`` the margin is tolerance − |effect|.

With fewer than ``min_units`` units (shared units when paired) on a side the
interval and p are NaN: too few units to tell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from authbench.claims.kinds import Contrast
from authbench.stats import bootstrap_draws, mcnemar_exact

PAIRED, MCNEMAR, UNPAIRED, ONE_SAMPLE = "paired bootstrap", "McNemar exact", "unpaired bootstrap", "one-sample bootstrap"


@dataclass(frozen=True)
class Sample:
    """One side of a contrast: unit ids, their values in the paper's unit
    (the run's values times the cell's scale) and the raw values (0/1 for
    pairs)."""

    units: tuple
    values: np.ndarray
    raw: np.ndarray


@dataclass(frozen=True)
class Inference:
    """A contrast's test: ``test`` its name, ``n_units`` the units tested
    (shared ones when paired; the smaller side when unpaired), ``dropped``
    the units on one side only (paired), ``effect`` a − b (or a − reference)
    with its interval ``lo``–``hi``, ``margin`` in the claimed direction,
    ``p`` two-sided (NaN with too few units), ``draws`` the resampled margins."""

    test: str
    n_units: int
    dropped: int
    effect: float
    lo: float
    hi: float
    margin: float
    p: float
    draws: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.empty(0))


def share_p(margins: np.ndarray) -> float:
    """Two-sided bootstrap p of "margin = 0": twice the smaller share of
    resampled margins at or below 0 and at or above 0, each counted with
    the +1 of a resampling p-value ((1 + count) / (resamples + 1)), at most
    1. So the smallest p is 2 / (resamples + 1)."""
    m = margins[~np.isnan(margins)]
    if not m.size:
        return math.nan
    tail = min(int(np.count_nonzero(m <= 0)), int(np.count_nonzero(m >= 0)))
    return min(1.0, 2.0 * (1 + tail) / (m.size + 1))


def _means(x: np.ndarray, resamples: int, seed_parts: tuple) -> np.ndarray:
    return bootstrap_draws((x,), {"m": lambda v: v.mean(axis=1)}, resamples, seed_parts)["m"]


def _interval(effects: np.ndarray, alpha: float) -> tuple[float, float]:
    lo, hi = np.percentile(effects, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)


def _margins(contrast: Contrast, effects: np.ndarray) -> np.ndarray:
    if contrast.tolerance is not None:
        return contrast.tolerance - np.abs(effects)
    return contrast.sign * effects


def infer(contrast: Contrast, a: Sample, b: Sample | None, pairs: bool, paired: bool, resamples: int,
          alpha: float, seed_parts: tuple, min_units: int) -> Inference:
    """The test of ``contrast`` (module docstring); ``pairs``: the units are
    0/1 pairs (McNemar when paired)."""
    if b is None:
        test, x, dropped = ONE_SAMPLE, a.values, 0
        n = len(x)
        effect = float(x.mean()) - contrast.reference if n else math.nan
    elif paired:
        index = {u: i for i, u in enumerate(b.units)}
        shared = [(i, index[u]) for i, u in enumerate(a.units) if u in index]
        ia, ib = (np.array([s[k] for s in shared], dtype=int) for k in (0, 1))
        test, x = (MCNEMAR if pairs else PAIRED), a.values[ia] - b.values[ib]
        n, dropped = len(shared), len(a.units) + len(b.units) - 2 * len(shared)
        effect = float(x.mean()) if n else math.nan
    else:
        test, dropped = UNPAIRED, 0
        n = min(len(a.values), len(b.values))
        effect = float(a.values.mean() - b.values.mean()) if n else math.nan
    margin = float(contrast.margin(effect)) if math.isfinite(effect) else math.nan
    if n < max(min_units, 1):
        return Inference(test, n, dropped, effect, math.nan, math.nan, margin, math.nan)
    if b is None:
        effects = _means(x, resamples, seed_parts) - contrast.reference
    elif paired:
        effects = _means(x, resamples, seed_parts)
    else:
        effects = (_means(a.values, resamples, (*seed_parts, "a")) - _means(b.values, resamples, (*seed_parts, "b")))
    draws = _margins(contrast, effects)
    p = mcnemar_exact(a.raw[ia] == 1, b.raw[ib] == 1) if test == MCNEMAR else share_p(draws)
    lo, hi = _interval(effects, alpha)
    return Inference(test, n, dropped, effect, lo, hi, margin, float(p), draws)
