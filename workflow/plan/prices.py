"""Dollars of a hosted model (:func:`dollars`): ``models.<m>.price``, USD per
million tokens (input, output; optionally cached input and batch prices),
times the plan's tokens: prompt tokens of every try (the unique requests x
their expected tries), the reused part at the cached-input price where the
model has one (:data:`authbench.plan.count.HOSTED_MINIMUM`: OpenAI's prompt
cache), completion tokens at the estimate (:mod:`authbench.plan.replies`)
and at the cap (every budget spent: an upper bound). A hosted model without
a price gets none ("no price", never $0); a model that is not hosted has no
price (a named config error, :func:`authbench.config.check_hosting`).

The interval is the prompt tokens' (sampling); reply lengths are an
estimate of another kind, shown at the cap beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from authbench.plan.count import Tally
from authbench.plan.sample import Z95, Estimate

MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cached_input: float | None = None
    batch_input: float | None = None
    batch_output: float | None = None
    source: str = ""


def price_of(spec: Mapping) -> Price | None:
    given = spec.get("price")
    if not given:
        return None
    return Price(float(given["input"]), float(given["output"]),
                 *(float(given[k]) if given.get(k) is not None else None
                   for k in ("cached_input", "batch_input", "batch_output")), str(given.get("source") or ""))


def dollars(t: Tally, price: Price, at_cap: bool = False, batch: bool = False) -> Estimate | None:
    """USD of ``t`` at ``price`` (None: no batch price given); the interval
    bounds the two prompt parts' covariance by their standard deviations."""
    output = t.completion_budget if at_cap else t.completion
    if batch:
        if price.batch_input is None or price.batch_output is None:
            return None
        total = t.prompt.total * price.batch_input + output * price.batch_output
        return Estimate(total / MILLION, t.prompt.var * (price.batch_input / MILLION) ** 2)
    cached = price.cached_input
    if cached is None:
        total = t.prompt.total * price.input + output * price.output
        return Estimate(total / MILLION, t.prompt.var * (price.input / MILLION) ** 2)
    total = t.evaluated.total * price.input + t.reused.total * cached + output * price.output
    sd = (price.input * t.evaluated.var ** 0.5 + cached * t.reused.var ** 0.5) / MILLION
    return Estimate(total / MILLION, sd * sd)


def usd(e: Estimate | None) -> str:
    if e is None:
        return "–"
    half = Z95 * e.var ** 0.5
    return f"${e.total:,.2f}" + (f" ± {half:,.2f}" if half >= 0.005 else "")
