"""Label scales shared by the benchmarks."""

from __future__ import annotations

from authbench.errors import LabelError

FINE_LEVELS = tuple(range(10))
COARSE_LEVELS = tuple(range(5))


def coarse_level(level: int) -> int:
    """Fine level 0..9 -> coarse level 0..4: {0,1}->0, {2,3}->1, {4,5}->2, {6,7}->3, {8,9}->4."""
    if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 9:
        raise ValueError(f"fine level must be an integer 0..9, got {level!r}")
    return level // 2


def log_bin(counts, smin: float | None = None, smax: float | None = None) -> list[int]:
    """EntityAuth's Eq. 1: ``np.digitize(s, np.logspace(log10 smin, log10 smax, 11)) - 1``.

    ``smin``/``smax`` default to the range of ``counts`` (one domain's range, as
    in the paper). Edge cases (docs/decisions.md):

    * ``s == smax`` lands on the last edge, which Eq. 1 maps to 10: it is
      clipped to 9. Float rounding can also put ``s == smin`` just below the
      first edge (-1): clipped to 0.
    * a count <= 0 (or not finite) has no logarithm: :class:`LabelError`;
    * all counts equal (``smin == smax``): there is no range to bin:
      :class:`LabelError`;
    * a count outside a given ``[smin, smax]``: :class:`LabelError`.
    """
    import math

    import numpy as np

    values = [float(c) for c in counts]
    for i, s in enumerate(values):
        if not math.isfinite(s) or s <= 0:
            raise LabelError(f"count #{i} is {counts[i]!r}: log binning needs counts > 0")
    if not values:
        return []
    lo = min(values) if smin is None else float(smin)
    hi = max(values) if smax is None else float(smax)
    if lo <= 0:
        raise LabelError(f"smin is {lo}: log binning needs counts > 0")
    if hi <= lo:
        raise LabelError(f"all counts equal ({lo:g}) or smax <= smin: no range to log-bin")
    outside = [i for i, s in enumerate(values) if s < lo or s > hi]
    if outside:
        i = outside[0]
        raise LabelError(f"count #{i} ({values[i]:g}) lies outside [{lo:g}, {hi:g}]")
    edges = np.logspace(math.log10(lo), math.log10(hi), 11)
    levels = np.clip(np.digitize(values, edges) - 1, 0, 9)
    return [int(v) for v in levels]
