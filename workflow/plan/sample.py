"""Counting on a sample and extrapolating (:func:`sample_positions`,
:class:`Estimate`).

A cell's prompt tokens are a sum over its unique requests. The plan counts
the tokens of a seeded simple random sample of ``n`` of them (``plan.sample``
per cell; all of them when the cell has no more, or with ``plan.sample:
null``) and extrapolates: the total of ``N`` requests whose sample has mean
``m`` and variance ``s^2`` is ``N m``, with variance
``N^2 (1 - n/N) s^2 / n`` (sampling without replacement: the finite
population correction makes a full count exact). Cells are sampled
independently, so totals and variances add; every total carries a 95%
interval, ``total +- 1.96 sqrt(variance)`` (:data:`Z95`).

The sample is drawn among a cell's unique requests in the order the engine
sends them; the same batch of requests gets the same sample under every
model (the seed names the batch, not the model), so models that share a
tokenizer share its counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def sample_positions(population: int, size: int | None, seed: int, *names: object) -> list[int]:
    """Sorted positions ``0..population-1`` of a simple random sample of
    ``size`` (all of them when ``size`` is None or not smaller), drawn by a
    generator seeded by ``seed`` and ``names``."""
    if size is None or population <= size:
        return list(range(population))
    from authbench.seeding import rng

    return sorted(rng(seed, "plan-sample", *names).sample(range(population), size))


@dataclass
class Estimate:
    """An extrapolated total and its variance; ``+`` adds independent estimates."""

    total: float = 0.0
    var: float = 0.0

    def __add__(self, other: "Estimate") -> "Estimate":
        return Estimate(self.total + other.total, self.var + other.var)

    def scaled(self, factor: float) -> "Estimate":
        return Estimate(self.total * factor, self.var * factor * factor)

    @property
    def half_width(self) -> float:
        """Half the 95% interval's width."""
        return Z95 * math.sqrt(max(self.var, 0.0))

    @property
    def interval(self) -> tuple[float, float]:
        return self.total - self.half_width, self.total + self.half_width


def extrapolate(values: Sequence[float], population: int) -> Estimate:
    """The total over ``population`` items of which ``values`` are a simple
    random sample (module docstring). A full count (``len(values) ==
    population``) has variance 0; a sample of one has no variance estimate
    and is counted as exact only when the population is one too."""
    n = len(values)
    if population == 0 or n == 0:
        return Estimate(0.0, 0.0)
    mean = math.fsum(values) / n
    total = population * mean
    if n >= population:
        return Estimate(total, 0.0)
    if n == 1:
        return Estimate(total, float("inf"))
    s2 = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return Estimate(total, population * population * (1 - n / population) * s2 / n)
