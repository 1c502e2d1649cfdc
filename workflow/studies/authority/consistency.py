"""Position consistency: a pair or list judge's verdicts with the items shown
in both orders (issue "Position consistency"; MT-Bench, Wang et al. 2023,
"Judging the Judges" 2024).

A comparison of items ``x`` and ``y`` is judged twice: once with ``x`` as A,
once with ``y`` as A. Each order's verdict is the item it prefers (None: a
tie or an unparsed reply). The comparison is

* *consistent* when both orders prefer the same item;
* a *conflict* when they prefer different items, that is the same
  position (the first, A, or the second, B);
* *partial* when either order gives no preferred item (a tie or an unparsed
  reply).

The three shares sum to 1. Against chance: a judge that picks position A
with probability ``a`` whatever the items is consistent with probability
``2a(1 − a)`` (0 for an always-A judge, 0.5 for a coin).

A list judge's list is shown a second time in reversed order: the two
orders' per-item values (ListRank: the position as a score, ListScore: the
score) are compared by Kendall's τ-b (ListScore has ties) and by the share
of item pairs ordered alike (both orders put the same item higher, or both
tie it). A position-only list judge (the identity ranking) gets τ = −1 and
no pair ordered alike. Reversal leaves the middle item of an odd-length list
in place.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from authbench.records import is_missing
from authbench.studies.authority import metrics as M

__all__ = ["CONFLICT", "CONSISTENT", "OUTCOMES", "PARTIAL", "Shares", "chance_consistency", "classify",
           "cohen_kappa", "first_position_test", "list_agreement", "preferred", "reversed_order", "shares"]

CONSISTENT, CONFLICT, PARTIAL = "consistent", "conflict", "partial"
OUTCOMES = (CONSISTENT, CONFLICT, PARTIAL)


def preferred(record: Mapping[str, Any], mode: str) -> int | None:
    """The item a comparison record prefers (``a``, ``b``: the items shown
    as A and B): PairRank's choice, PairScore's higher score; None for a tie
    or an unparsed reply."""
    if mode == "rank":
        choice = record.get("choice")
        return record["a"] if choice == "A" else record["b"] if choice == "B" else None
    if mode == "score":
        sa, sb = record.get("score_a"), record.get("score_b")
        if is_missing(sa) or is_missing(sb) or float(sa) == float(sb):
            return None
        return record["a"] if float(sa) > float(sb) else record["b"]
    raise ValueError(f"mode must be 'rank' or 'score', got {mode!r}")


def classify(first: Mapping[str, Any], second: Mapping[str, Any], mode: str) -> tuple[str, str | None]:
    """One comparison in both orders (``second`` shows ``first``'s B item
    as A): its outcome and, for a conflict, the position preferred in both
    (``"A"`` or ``"B"``)."""
    if {first["a"], first["b"]} != {second["a"], second["b"]} or first["a"] == second["a"]:
        raise ValueError(f"not one comparison in both orders: {first['a']}-{first['b']} and "
                         f"{second['a']}-{second['b']}")
    x, y = preferred(first, mode), preferred(second, mode)
    if x is None or y is None:
        return PARTIAL, None
    if x == y:
        return CONSISTENT, None
    return CONFLICT, "A" if x == first["a"] else "B"


@dataclass(frozen=True)
class Shares:
    """A cell's outcome counts and shares (``n``: comparisons in both orders)."""

    consistent: int
    conflict: int
    partial: int
    first_in_conflicts: int  # conflicts that prefer position A in both orders

    @property
    def n(self) -> int:
        return self.consistent + self.conflict + self.partial

    def share(self, outcome: str) -> float:
        return getattr(self, outcome) / self.n if self.n else math.nan

    @property
    def first_share(self) -> float:
        """The share of conflicts that prefer position A (NaN without a conflict)."""
        return self.first_in_conflicts / self.conflict if self.conflict else math.nan


def shares(outcomes: Iterable[tuple[str, str | None]]) -> Shares:
    """Counts of :func:`classify`'s outcomes."""
    counts = {CONSISTENT: 0, CONFLICT: 0, PARTIAL: 0}
    first = 0
    for outcome, position in outcomes:
        counts[outcome] += 1
        first += position == "A"
    return Shares(counts[CONSISTENT], counts[CONFLICT], counts[PARTIAL], first)


def first_position_test(s: Shares) -> float:
    """The exact two-sided binomial p of the first-position share among
    conflicts against 0.5 (NaN without a conflict)."""
    if not s.conflict:
        return math.nan
    from scipy import stats

    return float(stats.binomtest(s.first_in_conflicts, s.conflict, 0.5).pvalue)


def chance_consistency(a_share: float) -> float:
    """The consistency of a judge that picks position A with probability
    ``a_share`` whatever the items: ``2a(1 − a)``."""
    return 2.0 * a_share * (1.0 - a_share)


def cohen_kappa(pairs: Iterable[tuple[int, int]]) -> float:
    """Cohen's κ between the two orders' item choices over the comparisons
    decisive in both: each choice coded 1 when it is the comparison's
    lower-numbered item (``pairs``: (order-1 code, order-2 code)). NaN
    without a comparison, or when chance agreement is 1."""
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return math.nan
    observed = sum(x == y for x, y in pairs) / n
    p1, p2 = sum(x for x, _ in pairs) / n, sum(y for _, y in pairs) / n
    expected = p1 * p2 + (1 - p1) * (1 - p2)
    return math.nan if expected == 1 else (observed - expected) / (1 - expected)


def reversed_order(n: int) -> list[int]:
    """The presentation of a list shown the second time: position ``k``
    shows the item shown first at position ``n − 1 − k``."""
    return list(range(n - 1, -1, -1))


def list_agreement(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """Two orders' per-item values of one list (indexed by item): Kendall's
    τ-b between them and the share of item pairs ordered alike (the same
    item higher in both, or tied in both)."""
    if len(first) != len(second) or len(first) < 2:
        raise ValueError(f"two orders of one list need the same items (>= 2): {len(first)} vs {len(second)}")
    alike = [math.copysign(1, a - b) * (a != b) == math.copysign(1, c - d) * (c != d)
             for (a, c), (b, d) in itertools.combinations(list(zip(first, second)), 2)]
    return M.kendall_tau_b(first, second), sum(alike) / len(alike)
