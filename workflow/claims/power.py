"""How many units an undecided case would need: the power line of a claim's
case on a run.

For a contrast whose claimed effect is ``effect`` (in the paper's unit, in
the claimed direction) and whose per-unit spread is ``sd``, a two-sided
test at raw ``alpha`` with power ``power`` needs

    n = ceil(((z(1 − alpha/2) + z(power)) · sd / effect)²)

units (the normal approximation of a paired or one-sample mean test; the
same for McNemar's test on 0/1 pairs with the sd of the per-pair
differences), and twice that per side for two unpaired samples. The case
needs its largest contrast's n.

* Effect: the case's own published margin where the run has that paper
  model, else the mean margin of the claim's published cases.
* Spread: this run's units (two or more), else the paper's printed sd of
  the numbers involved (``sd_score``: a difference of two takes
  sqrt(sd_a² + sd_b²), as if independent), else unknown.
* ``near`` (an equivalence band) is not computed, nor an effect that is not
  in the claimed direction.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Mapping, Sequence

from authbench.claims.keys import Key

POWER = 0.8
NOT_COMPUTED_NEAR = "equivalence: not computed"
UNKNOWN_SPREAD = "unknown: run at least 5 units first"


def units_needed(effect: float, sd: float, alpha: float = 0.05, power: float = POWER, unpaired: bool = False
                 ) -> int:
    """Units (per side when ``unpaired``) to detect ``effect`` with spread ``sd`` (module docstring)."""
    z = NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)
    n = math.ceil((z * sd / abs(effect)) ** 2)
    return max(2, 2 * n if unpaired else n)


def printed_sd(keys: Sequence[Key], published_sd: Mapping[Key, float]) -> float:
    """The paper's printed sd of the numbers ``keys`` compares (their
    ``sd_score`` rows): one number's, or sqrt(sd_a² + sd_b²) of two; NaN
    when the paper prints none."""
    sds = [published_sd.get(k._replace(metric="sd_score")) for k in keys if k.metric == "mean_score"]
    if not sds or len(sds) != len(keys) or any(s is None or not math.isfinite(s) for s in sds):
        return math.nan
    return math.sqrt(sum(s * s for s in sds))


def power_line(effect: float, spreads: Sequence[tuple[float, str, bool]], near: bool, alpha: float = 0.05,
               power: float = POWER) -> str:
    """The power line of an undecided case: ``effect`` the published margin
    it aims at, ``spreads`` per contrast ``(sd, where the sd comes from,
    unpaired)``."""
    if near:
        return NOT_COMPUTED_NEAR
    if not math.isfinite(effect):
        return "no published effect to aim at (the claim is not in the published tables): not computed"
    if effect <= 0:
        return "the published effect is not in the claimed direction: not computed"
    needed, sources = 0, []
    for sd, source, unpaired in spreads:
        if not math.isfinite(sd):
            return f"units needed: spread {UNKNOWN_SPREAD}"
        if sd == 0:
            continue
        needed = max(needed, units_needed(effect, sd, alpha, power, unpaired))
        sources.append(source)
    if not needed:
        return "units needed: no spread in this run's units (every unit agrees)"
    per_side = " per side" if any(u for _, _, u in spreads) else ""
    return (f"about {needed} units{per_side} would decide a published effect of {effect:.2f} "
            f"(two-sided, raw alpha {alpha:g}, power {power:.0%}; spread from {', '.join(dict.fromkeys(sources))})")
