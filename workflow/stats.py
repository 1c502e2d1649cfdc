"""Statistics every study shares: the one seeded percentile bootstrap and the
significance tests (one implementation, called by every study).

* **Bootstrap** (:func:`percentile_bootstrap`): ``n_boot`` resamples of the
  items with replacement, drawn as index rows from a numpy Generator seeded
  by ``authbench.seeding.rng(*seed_parts)`` (``seed_parts = (seed, *names)``,
  so equal inputs give equal intervals and a draw does not depend on job
  order); every statistic of one call shares the draws. The bounds are the
  ``(1-level)/2`` and ``(1+level)/2`` percentiles (numpy's default linear
  interpolation) of the resampled values; a resample where a statistic is
  undefined (NaN) is left out, and the count of those used is returned. Used
  by AuthorityBench's secondary labels (ρ, AUC) and RAGAuth's accuracy.
* **The tests of a mean over units** (:func:`paired_test`, :func:`one_sample_test`,
  :func:`unpaired_test`): one function per kind of contrast, called by every
  study's comparisons (``comparisons.tsv``) and by the claims on a run
  (``claims_cells.tsv``), so the same contrast on the same units gives the
  same effect, interval and p in both. The p follows one rule
  (:data:`TEST_RULE`): McNemar's exact p for 0/1 units paired one to one,
  else the Wald p of the bootstrap standard error; the draws are seeded by
  the config's seed and the data.
* **Welch** (:func:`welch`): ``scipy.stats.ttest_ind(equal_var=False)`` on the
  finite values; fewer than two per side gives ``(nan, nan)`` (two constant
  samples give scipy's answer: NaN when equal, p = 0 when they differ).
  ``†`` marks ``p < 0.05`` (:func:`mark`); NaN is never marked.
* **Paired t-test** (:func:`paired_t`): ``scipy.stats.ttest_rel`` over the
  units (questions) with a finite value on both sides, the one-sided ones
  counted as dropped. :class:`Significance` is a table's choice between the
  two (config ``selfpref.significance``: ``paired``, the default, or
  ``welch``), counting what the paired test dropped for the caption.
* **ANOVA and Tukey** (:func:`anova_tukey`; the self-preference authors'
  ``anova.py``): the one-way ANOVA (``scipy.stats.f_oneway``: F with its
  degrees of freedom, p) and Tukey's HSD for every pair
  (``scipy.stats.tukey_hsd``, the same test as statsmodels'
  ``pairwise_tukeyhsd`` the authors used: mean difference A − B, its 95%
  family-wise interval, the adjusted p), with Welch's p of the same pair
  beside it (unadjusted).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from authbench.seeding import rng


def _scipy_stats():
    """scipy.stats, imported where a test needs it (half a second: the steps that
    only resample need not pay it)."""
    from scipy import stats

    return stats

DAGGER = "†"
ALPHA = 0.05
_CHUNK = 1 << 21  # index draws per bootstrap chunk (bounds memory; the draws do not depend on it)


# --------------------------------------------------------------------------
# bootstrap
# --------------------------------------------------------------------------
def percentile_bootstrap(data: Sequence[np.ndarray], statistics: Mapping[str, Callable[..., np.ndarray]],
                         n_boot: int, seed_parts: tuple, level: float = 0.95) -> dict[str, tuple[float, float, int]]:
    """Percentile intervals of each statistic over ``n_boot`` item resamples
    (module docstring). ``data``: equal-length 1-d arrays, one value per item;
    each statistic gets them resampled (one ``(resamples, n)`` array per
    ``data`` array) and returns one value per resample. Returns ``{name:
    (low, high, defined)}``; no items or no defined resample gives NaN bounds."""
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise ValueError(f"percentile_bootstrap: n_boot must be a positive int, got {n_boot!r}")
    if not (0.0 < float(level) < 1.0):
        raise ValueError(f"percentile_bootstrap: level must lie strictly between 0 and 1, got {level!r}")
    if not isinstance(seed_parts, tuple) or not seed_parts:
        raise ValueError(f"percentile_bootstrap: seed_parts must be a non-empty tuple (seed, *names), "
                         f"got {seed_parts!r}")
    if len(data[0]) == 0:
        return {k: (math.nan, math.nan, 0) for k in statistics}
    draws = bootstrap_draws(data, statistics, n_boot, seed_parts)
    return {k: _percentiles(d, level) for k, d in draws.items()}


def bootstrap_draws(data: Sequence[np.ndarray], statistics: Mapping[str, Callable[..., np.ndarray]],
                    n_boot: int, seed_parts: tuple) -> dict[str, np.ndarray]:
    """The ``n_boot`` resampled values of each statistic (NaN where undefined):
    the draws behind :func:`percentile_bootstrap` (same seeding, same order)."""
    n = len(data[0])
    gen = np.random.default_rng(rng(*seed_parts).getrandbits(64))
    draws = {k: np.empty(int(n_boot), dtype=float) for k in statistics}
    step = max(1, _CHUNK // max(n, 1))
    for start in range(0, int(n_boot), step):
        stop = min(int(n_boot), start + step)
        idx = gen.integers(0, n, size=(stop - start, n))
        resampled = [d[idx] for d in data]
        for k, statistic in statistics.items():
            draws[k][start:stop] = statistic(*resampled)
    return draws


def _percentiles(d: np.ndarray, level: float) -> tuple[float, float, int]:
    alpha = (1.0 - float(level)) / 2.0
    ok = d[~np.isnan(d)]
    low, high = np.percentile(ok, [100.0 * alpha, 100.0 * (1.0 - alpha)]) if ok.size else (math.nan, math.nan)
    return float(low), float(high), int(ok.size)


# --------------------------------------------------------------------------
# intervals of a mean over units, and paired differences
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class IntervalSpec:
    """How every interval of a run is computed (config ``intervals``):
    ``resamples`` bootstrap draws, ``seed`` (the config's master seed), ``level`` (0.95), and
    ``min_units``: with fewer units the interval is blank (NaN), never a
    zero-width or made-up one."""
    resamples: int = 1000
    seed: int = 0
    level: float = 0.95
    min_units: int = 5

    @classmethod
    def from_config(cls, config: Mapping) -> "IntervalSpec":
        """From a whole config: its ``intervals`` section (the schema fills its
        defaults) and the master ``seed``."""
        section = config["intervals"]
        return cls(resamples=int(section["resamples"]), seed=int(config["seed"]), level=float(section["level"]),
                   min_units=int(section["min_units"]))


def _cluster_arrays(values: np.ndarray, clusters: Sequence | None) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster: the sum of its values and its count (each unit its own
    cluster without ``clusters``), in first-seen order."""
    if clusters is None:
        return values, np.ones(len(values))
    if len(clusters) != len(values):
        raise ValueError(f"clusters: {len(clusters)} labels for {len(values)} units")
    order: dict = {}
    codes = np.fromiter((order.setdefault(c, len(order)) for c in clusters), dtype=np.int64, count=len(values))
    sums = np.bincount(codes, weights=values, minlength=len(order))
    counts = np.bincount(codes, minlength=len(order)).astype(float)
    return sums, counts


def _ratio(s: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return s.sum(axis=1) / c.sum(axis=1)


def n_clusters(n_units: int, clusters: Sequence | None) -> int:
    """How many resampling units there are (clusters when given)."""
    return len(set(clusters)) if clusters is not None else n_units


def mean_interval(values: Iterable[float], spec: IntervalSpec, seed_parts: tuple,
                  clusters: Sequence | None = None) -> tuple[float, float]:
    """The percentile-bootstrap interval of the mean of ``values`` (one per
    unit). With ``clusters`` (one label per unit: e.g. the question a
    comparison belongs to) whole clusters are resampled and the statistic is
    the mean over the resampled units (sum of sums / sum of counts). NaN
    values are not allowed; fewer than ``spec.min_units`` resampling units
    give ``(nan, nan)``."""
    x = np.asarray(list(values), dtype=float)
    if np.isnan(x).any():
        raise ValueError("mean_interval: NaN among the unit values; drop or fill them first")
    if n_clusters(len(x), clusters) < max(spec.min_units, 1):
        return math.nan, math.nan
    sums, counts = _cluster_arrays(x, clusters)
    low, high, _ = percentile_bootstrap((sums, counts), {"m": _ratio}, spec.resamples,
                                        (spec.seed, *seed_parts), spec.level)["m"]
    return low, high


def _group_draws(groups: Sequence[tuple[Iterable[float], Sequence]], spec: IntervalSpec,
                 seed_parts: tuple) -> np.ndarray | None:
    """``(resamples, groups)`` bootstrap means of each group, the clusters of
    all groups (labels shared across groups: e.g. question ids) resampled
    together (NaN where a resample holds none of a group's units); None with
    fewer than ``spec.min_units`` clusters in some group."""
    xs = [np.asarray(list(v), dtype=float) for v, _ in groups]
    labels = [list(c) for _, c in groups]
    if any(np.isnan(x).any() for x in xs):
        raise ValueError("groups: NaN among the unit values; drop or fill them first")
    if not groups or min(n_clusters(len(x), c) for x, c in zip(xs, labels)) < max(spec.min_units, 1):
        return None
    order: dict = {}
    data = []
    for x, c in zip(xs, labels):
        if len(c) != len(x):
            raise ValueError(f"clusters: {len(c)} labels for {len(x)} units")
        codes = np.fromiter((order.setdefault(k, len(order)) for k in c), dtype=np.int64, count=len(x))
        data.append((codes, x))
    arrays = []
    for codes, x in data:
        arrays += [np.bincount(codes, weights=x, minlength=len(order)), np.bincount(codes, minlength=len(order)) * 1.0]
    stats_ = {g: (lambda *arr, g=g: _ratio(arr[2 * g], arr[2 * g + 1])) for g in range(len(groups))}
    draws = bootstrap_draws(arrays, stats_, spec.resamples, (spec.seed, *seed_parts))
    return np.column_stack([draws[g] for g in range(len(groups))])


def groups_interval(groups: Sequence[tuple[Iterable[float], Sequence]], spec: IntervalSpec, seed_parts: tuple,
                    weights: Sequence[float] | None = None) -> tuple[float, float]:
    """The interval of a (weighted) mean of group means, e.g. a table's
    ``Average`` row (the mean of the authors' means): ``groups`` are
    ``(values, clusters)``, their clusters resampled together; per resample
    the weighted mean over the groups present. Blank (NaN) when a group has
    fewer than ``spec.min_units`` clusters."""
    m = _group_draws(groups, spec, seed_parts)
    if m is None:
        return math.nan, math.nan
    w = np.broadcast_to(np.asarray(weights if weights is not None else [1.0] * len(groups), dtype=float), m.shape)
    ok = ~np.isnan(m)
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = (np.where(ok, m, 0.0) * w).sum(axis=1) / np.where(ok, w, 0.0).sum(axis=1)
    return _percentiles(stat, spec.level)[:2]


def difference_interval(a: tuple[Iterable[float], Sequence], b: tuple[Iterable[float], Sequence],
                        spec: IntervalSpec, seed_parts: tuple) -> tuple[float, float]:
    """The interval of mean(a) − mean(b) for two samples that need not pair
    unit by unit (e.g. the human and the model passages of the same
    questions): each ``(values, clusters)``, the clusters of both resampled
    together. Blank (NaN) when either side has fewer than ``spec.min_units``
    clusters."""
    m = _group_draws([a, b], spec, seed_parts)
    if m is None:
        return math.nan, math.nan
    return _percentiles(m[:, 0] - m[:, 1], spec.level)[:2]


@dataclass(frozen=True)
class UnitTest:
    """A test of a mean over units (:func:`paired_test`, :func:`one_sample_test`,
    :func:`unpaired_test`): ``test`` its name, ``n`` the resampling units
    (clusters; the smaller side when unpaired), ``effect`` the mean difference
    (a − b, or a − reference) in display units (``scale`` times the unit
    values), its percentile-bootstrap interval ``lo``–``hi``, the two-sided
    ``p`` (:data:`TEST_RULE`), ``sd`` the standard deviation of the per-unit
    differences in display units (NaN with fewer than two units: the power
    of a next run) and ``draws`` the resampled effects. With fewer than
    ``spec.min_units`` units the interval, p and draws are empty (the effect
    is still given)."""

    test: str
    n: int
    effect: float
    lo: float
    hi: float
    p: float
    sd: float
    draws: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.empty(0))

    def as_dict(self) -> dict:
        return {"test": self.test, "n": self.n, "delta": self.effect, "lo": self.lo, "hi": self.hi, "p": self.p}


PAIRED_TEST, MCNEMAR_TEST = "paired bootstrap", "McNemar exact"
ONE_SAMPLE_TEST, UNPAIRED_TEST = "one-sample bootstrap", "unpaired bootstrap"
# the one rule of every p of the pipeline's comparisons and claims: analytic, so that Holm's adjustment over
# hundreds of contrasts can reach alpha (a bootstrap share cannot go below 2 / (resamples + 1))
TEST_RULE = ("two-sided; 0/1 units paired one to one: McNemar's exact p (binomial on the discordant units); "
             "otherwise 2 Φ(−|Δ| / sd(Δ*)) with the bootstrap standard error of Δ (Wald)")


def _digest(*arrays: np.ndarray) -> str:
    """The seed name of a test's draws: its data, so that the same contrast on the
    same units gets the same draws whoever asks (a comparison and a claim)."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(np.asarray(a, dtype=float)).tobytes())
        h.update(b"|")
    return h.hexdigest()[:16]


def _weighted(values: np.ndarray, weights: Sequence[float] | None, clusters: Sequence | None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per resampling unit: the sum of its values and its count. ``weights``
    (one per unit): each unit's value is the mean of that many observations
    (the pooled mean weighs it so); ``clusters``: units resampled together."""
    if weights is not None:
        w = np.asarray(list(weights), dtype=float)
        if w.shape != values.shape or (w <= 0).any() or not np.isfinite(w).all():
            raise ValueError(f"weights: {w.size} for {values.size} units; expected one positive weight per unit")
        if clusters is None:
            return values * w, w
        sums, _ = _cluster_arrays(values * w, clusters)
        counts, _ = _cluster_arrays(w, clusters)
        return sums, counts
    return _cluster_arrays(values, clusters)


def _finish(test: str, n: int, effect: float, draws: np.ndarray | None, p: float, sd: float,
            spec: IntervalSpec) -> UnitTest:
    if draws is None:
        return UnitTest(test, n, effect, math.nan, math.nan, math.nan, sd)
    low, high, _ = _percentiles(draws, spec.level)
    return UnitTest(test, n, effect, low, high, p, sd, draws)


def _sd(x: np.ndarray, scale: float) -> float:
    return float(np.std(x, ddof=1)) * scale if x.size >= 2 else math.nan


def paired_test(a: Iterable[float], b: Iterable[float], spec: IntervalSpec, *, scale: float = 1.0,
                weights: Sequence[float] | None = None, weights_b: Sequence[float] | None = None,
                clusters: Sequence | None = None, binary: bool = False) -> UnitTest:
    """The one paired test of two sides over the same units (same order):
    Δ = scale · (mean(a) − mean(b)) (each side's mean weighted by its
    ``weights``: ``weights_b`` for b when the sides pool different counts;
    clusters resampled whole), its percentile-bootstrap interval and p by
    :data:`TEST_RULE`: McNemar's exact p when ``binary`` (0/1 per unit, one
    unit per resampling unit), else the Wald p of the bootstrap standard
    error. The draws are seeded by ``spec.seed`` and the data itself."""
    x = np.asarray(list(a), dtype=float)
    y = np.asarray(list(b), dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired_test: {x.size} vs {y.size} units; pair them first")
    d = x - y
    if np.isnan(d).any():
        raise ValueError("paired_test: NaN among the unit values; drop unpaired units first")
    mcnemar = binary and weights is None and weights_b is None and clusters is None
    test = MCNEMAR_TEST if mcnemar else PAIRED_TEST
    if weights_b is None:  # one weight per unit for both sides: the mean of the per-unit differences
        sums, counts = _weighted(d, weights, clusters)
        n = len(sums)
        effect = float(sums.sum() / counts.sum()) * scale if n else math.nan
        data: tuple = (sums, counts)
        statistic: dict = {"d": _ratio}
    else:  # each side pooled with its own weights, the units resampled together
        sa, ca = _weighted(x, weights if weights is not None else np.ones(len(x)), clusters)
        sb, cb = _weighted(y, weights_b, clusters)
        n = len(sa)
        effect = (float(sa.sum() / ca.sum()) - float(sb.sum() / cb.sum())) * scale if n else math.nan
        data, counts = (sa, ca, sb, cb), ca + cb
        statistic = {"d": lambda s1, c1, s2, c2: _ratio(s1, c1) - _ratio(s2, c2)}
    if n < max(spec.min_units, 1):
        return _finish(test, n, effect, None, math.nan, _sd(d, scale), spec)
    draws = bootstrap_draws(data, statistic, spec.resamples, (spec.seed, "paired", _digest(x, y, counts)))["d"] * scale
    p = mcnemar_exact(x > 0.5, y > 0.5) if mcnemar else wald_p(effect, draws)
    return _finish(test, n, effect, draws, p, _sd(d, scale), spec)


def one_sample_test(a: Iterable[float], reference: float, spec: IntervalSpec, *, scale: float = 1.0,
                    weights: Sequence[float] | None = None, clusters: Sequence | None = None) -> UnitTest:
    """``a``'s mean against a constant ``reference`` (in display units):
    Δ = scale · mean(a) − reference, its bootstrap interval, the Wald p."""
    x = np.asarray(list(a), dtype=float)
    if np.isnan(x).any():
        raise ValueError("one_sample_test: NaN among the unit values; drop them first")
    sums, counts = _weighted(x, weights, clusters)
    n = len(sums)
    effect = float(sums.sum() / counts.sum()) * scale - reference if n else math.nan
    if n < max(spec.min_units, 1):
        return _finish(ONE_SAMPLE_TEST, n, effect, None, math.nan, _sd(x, scale), spec)
    draws = bootstrap_draws((sums, counts), {"m": _ratio}, spec.resamples,
                            (spec.seed, "one-sample", _digest(x, counts)))["m"] * scale - reference
    return _finish(ONE_SAMPLE_TEST, n, effect, draws, wald_p(effect, draws), _sd(x, scale), spec)


def unpaired_test(a: Iterable[float], b: Iterable[float], spec: IntervalSpec, *, scale: float = 1.0,
                  weights_a: Sequence[float] | None = None, weights_b: Sequence[float] | None = None
                  ) -> UnitTest:
    """Two samples that share no units (two benchmarks' lists): Δ =
    scale · (mean(a) − mean(b)), each side resampled on its own, the Wald
    p; ``n`` the smaller side, ``sd`` the pooled sd of the two sides."""
    x = np.asarray(list(a), dtype=float)
    y = np.asarray(list(b), dtype=float)
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("unpaired_test: NaN among the unit values; drop them first")
    sa, ca = _weighted(x, weights_a, None)
    sb, cb = _weighted(y, weights_b, None)
    n = min(len(sa), len(sb))
    effect = (float(sa.sum() / ca.sum()) - float(sb.sum() / cb.sum())) * scale if n else math.nan
    sd = math.sqrt((_sd(x, scale) ** 2 + _sd(y, scale) ** 2) / 2) if min(x.size, y.size) >= 2 else math.nan
    if n < max(spec.min_units, 1):
        return _finish(UNPAIRED_TEST, n, effect, None, math.nan, sd, spec)
    seed = _digest(x, ca, y, cb)
    draws = (bootstrap_draws((sa, ca), {"m": _ratio}, spec.resamples, (spec.seed, "unpaired-a", seed))["m"]
             - bootstrap_draws((sb, cb), {"m": _ratio}, spec.resamples, (spec.seed, "unpaired-b", seed))["m"]) * scale
    return _finish(UNPAIRED_TEST, n, effect, draws, wald_p(effect, draws), sd, spec)


def wald_p(delta: float, draws: np.ndarray) -> float:
    """Two-sided ``2 Φ(−|Δ| / sd)`` with the standard deviation of the
    resampled ``draws`` (NaN draws left out). Not the share of resamples
    beyond 0: that cannot go below ``2 / (resamples + 1)``, and Holm's
    adjustment over a family of hundreds of contrasts (the paper grid's "vs
    baseline") would then never reach 0.05, however many units."""
    ok = draws[~np.isnan(draws)]
    if delta == 0 or not math.isfinite(delta):
        return 1.0 if delta == 0 else math.nan
    se = float(np.std(ok, ddof=1)) if ok.size >= 2 else math.nan
    if not math.isfinite(se):
        return math.nan
    return 0.0 if se == 0 else float(2.0 * _scipy_stats().norm.sf(abs(delta) / se))


def mcnemar_exact(a: Iterable[bool], b: Iterable[bool]) -> float:
    """McNemar's exact test of two paired correct/wrong vectors: the
    two-sided binomial p of the discordant pairs (``scipy.stats.binomtest``
    with p = 0.5); 1.0 without discordant pairs."""
    x = np.asarray(list(a), dtype=bool)
    y = np.asarray(list(b), dtype=bool)
    if x.shape != y.shape:
        raise ValueError(f"mcnemar_exact: {x.size} vs {y.size} units; pair them first")
    only_a = int(np.count_nonzero(x & ~y))
    only_b = int(np.count_nonzero(~x & y))
    if only_a + only_b == 0:
        return 1.0
    return float(_scipy_stats().binomtest(only_a, only_a + only_b, 0.5).pvalue)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of one family of p-values (NaN stays NaN
    and does not count towards the family's size)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, math.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = len(ok)
    running = 0.0
    for rank, i in enumerate(ok[np.argsort(p[ok], kind="stable")]):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out.tolist()


# --------------------------------------------------------------------------
# descriptive statistics and significance tests
# --------------------------------------------------------------------------
def finite_or_nan(x) -> float:
    """``float(x)`` when that is a finite number, else NaN (None, text, inf)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v if math.isfinite(v) else math.nan


def mean_or_nan(x: np.ndarray) -> float:
    """The mean; NaN without values."""
    return float(np.mean(x)) if len(x) else math.nan


def sample_std(x: np.ndarray) -> float:
    """The sample standard deviation (ddof=1); NaN with fewer than two values."""
    return float(np.std(x, ddof=1)) if len(x) >= 2 else math.nan


def percent(k: int, n: int) -> float:
    """``k`` of ``n`` in percent; NaN when ``n`` is 0."""
    return k * 100.0 / n if n else math.nan


def finite(values: Iterable) -> np.ndarray:
    """The finite numbers among ``values`` (None, booleans and non-numbers dropped)."""
    out = []
    for v in values:
        if v is None or isinstance(v, bool):
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            out.append(f)
    return np.asarray(out, dtype=float)


def welch(a: Iterable[float], b: Iterable[float]) -> tuple[float, float]:
    """Welch's t-test ``(t, p)`` of ``a`` vs ``b`` (two-sided), on the finite
    values; ``(nan, nan)`` when either side has fewer than two."""
    x, y = finite(a), finite(b)
    if len(x) < 2 or len(y) < 2:
        return math.nan, math.nan
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = _scipy_stats().ttest_ind(x, y, equal_var=False)
    return float(res.statistic), float(res.pvalue)


def paired_t(a: Mapping, b: Mapping) -> tuple[float, float, int, int]:
    """The paired t-test (``scipy.stats.ttest_rel``, two-sided) of ``a`` vs
    ``b`` (each: unit, e.g. question -> value) over the units with a finite
    value on both sides: ``(t, p, pairs, dropped)``, ``dropped`` = units with
    a finite value on one side only; ``(nan, nan, ...)`` with fewer than two
    pairs."""
    fa = {k: float(v) for k, v in a.items() if _finite_number(v)}
    fb = {k: float(v) for k, v in b.items() if _finite_number(v)}
    both = [k for k in fa if k in fb]
    dropped = len(fa) + len(fb) - 2 * len(both)
    if len(both) < 2:
        return math.nan, math.nan, len(both), dropped
    x, y = np.array([fa[k] for k in both]), np.array([fb[k] for k in both])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = _scipy_stats().ttest_rel(x, y)
    return float(res.statistic), float(res.pvalue), len(both), dropped


def _finite_number(v) -> bool:
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


SIGNIFICANCE = ("paired", "welch")
SIGNIFICANCE_WORDS = {"paired": "paired t-test (scipy.stats.ttest_rel) over the questions with both values",
                      "welch": "Welch's unpaired t-test"}


@dataclass
class Significance:
    """A table's test of two per-question samples (config
    ``selfpref.significance``): ``paired`` (:func:`paired_t`: questions with
    one side only are dropped and counted in ``dropped``; ``pairs``: the
    questions each test paired) or ``welch`` (:func:`welch` on every value
    of each side). ``p`` gives the p-value of one comparison; ``words``
    names the test for a caption."""

    test: str = "paired"
    dropped: int = 0
    tests: int = 0
    pairs: list = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.test not in SIGNIFICANCE:
            raise ValueError(f"significance test {self.test!r}: expected one of {SIGNIFICANCE}")

    def p(self, a: Mapping, b: Mapping) -> float:
        """``a``, ``b``: question -> value (a question's several values are averaged before)."""
        self.tests += 1
        if self.test == "welch":
            return welch(list(a.values()), list(b.values()))[1]
        _, p, pairs, dropped = paired_t(a, b)
        self.dropped += dropped
        self.pairs.append(pairs)
        return p

    def words(self) -> str:
        """The test for a caption; ``paired``: the questions each test paired
        (``N`` or ``N–M`` over the table's tests) and the dropped count."""
        out = SIGNIFICANCE_WORDS[self.test]
        if self.test == "paired":
            lo, hi = min(self.pairs, default=0), max(self.pairs, default=0)
            out += f" ({lo} per test)" if lo == hi else f" ({lo}–{hi} per test)"
            out += (f"; {self.dropped} question side(s) with one value only dropped over the table's "
                    f"{self.tests} test(s)")
        return out


def per_question(pairs: Iterable[tuple[Any, float]]) -> dict:
    """question -> the mean of its finite values (``pairs``: (question, value))."""
    acc: dict = {}
    for q, v in pairs:
        if _finite_number(v):
            acc.setdefault(q, []).append(float(v))
    return {q: sum(v) / len(v) for q, v in acc.items()}


def mark(p: float, alpha: float = ALPHA) -> str:
    """``"†"`` when ``p < alpha`` (NaN / None: ``""``)."""
    try:
        pf = float(p)
    except (TypeError, ValueError):
        return ""
    return DAGGER if math.isfinite(pf) and pf < alpha else ""


def anova_tukey(groups: Sequence[tuple[str, np.ndarray]]) -> dict:
    """The one-way ANOVA and Tukey HSD of two or more named samples (each of
    two or more finite values), in the given order: ``{"groups": [(name, n,
    mean)], "f", "df_between", "df_within", "p", "pairs": [{"a", "b", "diff"
    (mean a − mean b), "low", "high" (95% CI), "p" (Tukey), "p_welch"}]}``."""
    samples = [x for _, x in groups]
    n_total = sum(len(x) for x in samples)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        anova = _scipy_stats().f_oneway(*samples)
        tukey = _scipy_stats().tukey_hsd(*samples)
        ci = tukey.confidence_interval(confidence_level=0.95)
    pairs = []
    for i, j in itertools.combinations(range(len(groups)), 2):
        pairs.append({"a": groups[i][0], "b": groups[j][0], "diff": float(tukey.statistic[i, j]),
                      "low": float(ci.low[i, j]), "high": float(ci.high[i, j]), "p": float(tukey.pvalue[i, j]),
                      "p_welch": welch(samples[i], samples[j])[1]})
    return {"groups": [(a, len(x), float(np.mean(x))) for a, x in groups], "f": float(anova.statistic),
            "df_between": len(groups) - 1, "df_within": n_total - len(groups), "p": float(anova.pvalue),
            "pairs": pairs}
