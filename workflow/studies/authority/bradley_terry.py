"""The Bradley–Terry derivation of PairJudge's list comparisons (``bt``),
beside BubbleSort and AverageScore (:mod:`authbench.studies.authority.ranking`).

Each list ``k`` of a cell gives its items strengths ``θ_k``; the cell shares
one order effect ``h`` (home advantage: the pull of the position shown as A).
A comparison that shows item ``a`` as A and ``b`` as B is won by ``a`` with
probability ``σ(θ_a − θ_b + h)``.

* Outcomes: PairRank's choice ("A" or "B"); PairScore's score order, equal
  scores a half-win for each item. An unparsed reply (no choice, a missing
  score) is dropped.
* A fixed ridge (:data:`RIDGE`, on every ``θ`` and on ``h``) keeps an
  undefeated item, and a judge that always answers "A", finite; it also
  fixes the scale (no sum-to-zero constraint is needed).
* The fit maximizes the penalized log-likelihood by Newton's method. The
  Hessian is an arrowhead (one block per list, tied by ``h``), so each step
  solves the lists' small blocks (one batched solve) and a scalar Schur
  complement for ``h``: the cost grows linearly with the number of lists.
* An item without one usable comparison has no strength (None): it ranks
  below every compared item, as AverageScore's unscored items do.

``h > 0``: the judge favours the item shown as A beyond what the items'
strengths explain; ``h < 0``: the item shown as B; ``h`` is in logits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
from authbench.studies.authority.ranking import _clean_score, _field, _pair

__all__ = ["DERIVATION", "RIDGE", "Fit", "bradley_terry", "instance_lists", "order_effect", "outcomes"]

DERIVATION = "bt"  # its name among the pair judges' derivations (metric rows, Tables 9-12)
RIDGE = 0.1  # the ridge on every strength and on the order effect (a Gaussian prior of variance 10)
_TOL = 1e-10
_MAX_STEPS = 100


@dataclass(frozen=True)
class Fit:
    """A cell's fit: per list, each item's strength (None: never compared);
    the order effect ``h``; ``used`` the comparisons that entered the fit."""

    strengths: tuple[dict[int, float | None], ...]
    h: float
    used: int


def outcomes(records: Iterable[Any], mode: str, n: int | None = None) -> list[tuple[int, int, float]]:
    """A list's comparisons as ``(a, b, y)``: the item shown as A, the item
    shown as B, and A's share of the win (1, 0, or 0.5 for equal scores);
    an unparsed reply is left out. ``n``: the list's size (ids are checked)."""
    out = []
    for record in records:
        a, b = _pair(record, n)
        if mode == "rank":
            choice = _field(record, "choice")
            choice = None if choice is None else str(choice).strip().upper()
            if choice in ("A", "B"):
                out.append((a, b, 1.0 if choice == "A" else 0.0))
        elif mode == "score":
            sa, sb = _clean_score(_field(record, "score_a")), _clean_score(_field(record, "score_b"))
            if sa is not None and sb is not None:
                out.append((a, b, 1.0 if sa > sb else 0.0 if sa < sb else 0.5))
        else:
            raise ValueError(f"mode must be 'rank' or 'score', got {mode!r}")
    return out


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free


class _Cell:
    """A cell's comparisons as flat arrays: list ``k``'s item ``i`` is strength
    ``k * width + i`` (lists shorter than the longest are padded with items
    that no comparison touches: the ridge holds them at 0, apart from the rest)."""

    def __init__(self, triples: Sequence[Sequence[tuple[int, int, float]]], sizes: Sequence[int]):
        self.k, self.width = len(sizes), max(sizes, default=0)
        flat = [(k, a, b, y) for k, ts in enumerate(triples) for a, b, y in ts]
        self.list = np.array([t[0] for t in flat], dtype=np.int64)
        self.a = np.array([t[1] for t in flat], dtype=np.int64)
        self.b = np.array([t[2] for t in flat], dtype=np.int64)
        self.y = np.array([t[3] for t in flat], dtype=np.float64)
        self.ga, self.gb = self.list * self.width + self.a, self.list * self.width + self.b

    def objective(self, theta: np.ndarray, h: float) -> float:
        z = theta[self.ga] - theta[self.gb] + h
        # y log σ(z) + (1 − y) log σ(−z), written stably; minus the ridge
        return (float(np.sum(self.y * z - np.logaddexp(0.0, z)))
                - 0.5 * RIDGE * (float(theta @ theta) + h * h))

    def step(self, theta: np.ndarray, h: float) -> tuple[np.ndarray, float]:
        """Newton's step: the negated Hessian is an arrowhead, one block per
        list and the order effect's row; solved by the blocks and the Schur
        complement of ``h``."""
        size = self.k * self.width
        z = theta[self.ga] - theta[self.gb] + h
        p = _sigmoid(z)
        g, w = self.y - p, p * (1.0 - p)
        grad = np.bincount(self.ga, g, size) - np.bincount(self.gb, g, size) - RIDGE * theta
        couple = np.bincount(self.ga, w, size) - np.bincount(self.gb, w, size)
        blocks = np.broadcast_to(RIDGE * np.eye(self.width), (self.k, self.width, self.width)).copy()
        np.add.at(blocks, (self.list, self.a, self.a), w)
        np.add.at(blocks, (self.list, self.b, self.b), w)
        np.subtract.at(blocks, (self.list, self.a, self.b), w)
        np.subtract.at(blocks, (self.list, self.b, self.a), w)
        rhs = np.stack([grad.reshape(self.k, self.width), couple.reshape(self.k, self.width)], axis=-1)
        solved = np.linalg.solve(blocks, rhs).reshape(size, 2)
        g_h, d = float(g.sum()) - RIDGE * h, float(w.sum()) + RIDGE
        step_h = (g_h - float(couple @ solved[:, 0])) / (d - float(couple @ solved[:, 1]))
        return solved[:, 0] - solved[:, 1] * step_h, step_h


def bradley_terry(lists: Sequence[tuple[Iterable[Any], int]], mode: str) -> Fit:
    """The Bradley–Terry fit of a cell's lists, each ``(comparison records, n
    items)`` in :mod:`~authbench.studies.authority.ranking`'s record shape
    (``a``, ``b``: the items shown as A and B; ``choice`` or
    ``score_a``/``score_b``); ``mode`` ``rank`` (PairRank) or ``score``
    (PairScore). One list alone is a cell of one list."""
    sizes = [n for _, n in lists]
    triples = [outcomes(records, mode, n) for records, n in lists]
    cell = _Cell(triples, sizes)
    theta, h = np.zeros(cell.k * cell.width), 0.0
    current = cell.objective(theta, h)
    for _ in range(_MAX_STEPS):
        step, step_h = cell.step(theta, h)
        scale = 1.0
        while True:  # Newton's step, halved until the objective does not fall
            value = cell.objective(theta + scale * step, h + scale * step_h)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale *= 0.5
        theta, h, current = theta + scale * step, h + scale * step_h, value
        if scale * max(abs(step_h), float(np.max(np.abs(step), initial=0.0))) < _TOL:
            break
    seen = set(cell.ga.tolist()) | set(cell.gb.tolist())
    strengths = tuple({i: (float(theta[k * cell.width + i]) if k * cell.width + i in seen else None)
                       for i in range(n)} for k, n in enumerate(sizes))
    return Fit(strengths, float(h), len(cell.y))


def order_effect(fit: Fit) -> float:
    """The fit's order effect ``h`` (NaN when no comparison entered the fit)."""
    return fit.h if fit.used else math.nan


def instance_lists(instances: Sequence[Mapping], comparisons: Mapping[str, Sequence]) -> list[tuple[list, int]]:
    """A cell's lists as :func:`bradley_terry` takes them: each instance's
    comparison records (none for an instance without a judgment) and its item count."""
    return [(list(comparisons.get(inst["instance_id"], [])), len(inst["items"])) for inst in instances]
