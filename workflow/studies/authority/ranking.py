"""Turning LLM judgments about the items of one list into a ranking.

Conventions
-----------
* The items of a list are identified by their position id ``0..n-1`` in the
  list *as presented* to the judge.
* A *ranking* is a list of ids, best (most authoritative) first.
* Every function here is pure and deterministic.

Comparison records
------------------
``comparisons`` is any iterable of dict-like records (dicts, pandas rows) or
objects with attributes.  The fields used are

* ``a`` -- id of the item shown as "A";
* ``b`` -- id of the item shown as "B";
* ``score_a`` / ``score_b`` -- integer authority scores, ``None`` (or NaN)
  when the reply could not be parsed (score-based comparisons);
* ``choice`` -- ``"A"``, ``"B"`` or ``None`` (rank-based comparisons).

Unscored items
--------------
:func:`scores_to_ranking` places items without a score (``None``/NaN/absent)
below every scored item, tied among themselves in ascending id order.
:func:`scores_to_predicted_values` gives them the value ``min(scored) - 1``
(``-1.0`` if nothing was scored) so that they tie at the bottom and the ties
are visible to Spearman/Kendall.

BubbleSort
----------
:func:`bubble_sort` is the classic bubble sort: pass ``i`` (``i = 0..n-2``)
walks the adjacent pairs at positions ``(j, j+1)`` for ``j = 0..n-2-i`` and
swaps them when ``prefer(x, y)`` returns ``y``; it stops early after a pass
without a swap.  So at most ``n-1`` passes and ``n(n-1)/2`` preference look-ups
are made, and it terminates for any (even intransitive) preference.

BubbleSort over an incomplete comparison set -- the anchor rule
---------------------------------------------------------------
The fine-grained comparison set is incomplete: in each 10-item list 5 items are
*anchors*, and non-anchors are compared only against anchors.  When bubble sort
needs the preference for a pair ``(x, y)``:

1. if the pair was compared directly (and has a majority winner, see
   :func:`pairwise_preferences`), that winner is used;
2. otherwise the item that beat **more anchors** wins, counting the direct wins
   of each item against anchor ids (an anchor never counts a win against
   itself);
3. if both counts are equal -- or no anchors were given -- there is no
   information and the current order is kept (``prefer`` returns ``None``).

This is the rule the pipeline states for BubbleSort over an incomplete
comparison set (:func:`make_preference`, :func:`bubble_ranking`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from authbench.errors import excerpt
from authbench.records import is_missing

__all__ = [
    "scores_to_ranking",
    "scores_to_predicted_values",
    "average_score",
    "bubble_sort",
    "pairwise_preferences",
    "make_preference",
    "bubble_ranking",
    "ranking_to_values",
]

Prefer = Callable[[int, int], "int | None"]


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def _field(record: Any, key: str) -> Any:
    """Read ``key`` from a mapping-like record or an attribute-style record."""
    if isinstance(record, Mapping):
        return record.get(key)
    getter = getattr(record, "get", None)
    if callable(getter) and not hasattr(record, key):  # e.g. pandas Series
        return getter(key)
    return getattr(record, key, None)


def _item_id(record: Any, key: str, n: int | None = None) -> int:
    raw = _field(record, key)
    if is_missing(raw):
        raise ValueError(f"comparison record lacks item id {key!r}: {excerpt(record)}")
    as_float = float(raw)
    if not as_float.is_integer():
        raise ValueError(f"item id {key}={excerpt(raw)} is not an integer")
    item = int(as_float)
    if n is not None and not 0 <= item < n:
        raise ValueError(f"item id {key}={item} outside 0..{n - 1}")
    return item


def _pair(record: Any, n: int | None = None) -> tuple[int, int]:
    a = _item_id(record, "a", n)
    b = _item_id(record, "b", n)
    if a == b:
        raise ValueError(f"comparison of an item with itself: a=b={a}")
    return a, b


def _clean_score(value: Any) -> float | None:
    return None if is_missing(value) else float(value)


# --------------------------------------------------------------------------- #
# scores -> ranking / values
# --------------------------------------------------------------------------- #
def _scored(scores: Mapping[int, float | None], n: int) -> dict[int, float]:
    if n < 0:
        raise ValueError("n must be >= 0")
    for key in scores:
        if not 0 <= int(key) < n:
            raise ValueError(f"score for id {key} outside 0..{n - 1}")
    out: dict[int, float] = {}
    for i in range(n):
        value = scores.get(i)
        if not is_missing(value):
            out[i] = float(value)
    return out


def scores_to_ranking(scores: Mapping[int, float | None], n: int) -> list[int]:
    """Ranking of ids ``0..n-1`` by score, highest first.

    Ties keep ascending id order.  Unscored items (``None``, NaN or absent from
    ``scores``) come after every scored item, in ascending id order.
    """
    scored = _scored(scores, n)
    ranked = sorted(scored, key=lambda i: (-scored[i], i))
    unscored = [i for i in range(n) if i not in scored]
    return ranked + unscored


def scores_to_predicted_values(scores: Mapping[int, float | None], n: int) -> list[float]:
    """Per-id predicted value for rank correlation.

    Scored items keep their score; unscored items get ``min(scored) - 1``
    (``-1.0`` if no item was scored), i.e. they tie strictly below everything.
    """
    scored = _scored(scores, n)
    floor = (min(scored.values()) - 1.0) if scored else -1.0
    return [scored.get(i, floor) for i in range(n)]


# --------------------------------------------------------------------------- #
# AverageScore (PointScore_Pt)
# --------------------------------------------------------------------------- #
def average_score(comparisons: Iterable[Any], n: int) -> dict[int, float | None]:
    """AverageScore: each item's mean over all scores it received.

    Every comparison contributes ``score_a`` to item ``a`` and ``score_b`` to
    item ``b``; missing scores are ignored.  Items that received no score map
    to ``None``.  Returns a dict with every id ``0..n-1``.
    """
    totals = [0.0] * n
    counts = [0] * n
    for record in comparisons:
        a, b = _pair(record, n)
        for item, key in ((a, "score_a"), (b, "score_b")):
            score = _clean_score(_field(record, key))
            if score is not None:
                totals[item] += score
                counts[item] += 1
    return {i: (totals[i] / counts[i] if counts[i] else None) for i in range(n)}


# --------------------------------------------------------------------------- #
# BubbleSort
# --------------------------------------------------------------------------- #
def bubble_sort(order: Sequence[int], prefer: Prefer) -> list[int]:
    """Classic bubble sort of ``order`` (best first) with a preference oracle.

    Pass ``i`` compares the adjacent pairs at positions ``(j, j+1)``,
    ``j = 0..len-2-i``; the pair ``(x, y)`` is swapped iff ``prefer(x, y)``
    returns ``y``.  ``None`` (no information) or ``x`` keeps the order.  At
    most ``len-1`` passes; stops after the first pass without a swap.
    """
    result = list(order)
    n = len(result)
    for i in range(n - 1):
        swapped = False
        for j in range(n - 1 - i):
            x, y = result[j], result[j + 1]
            winner = prefer(x, y)
            if winner is None or winner == x:
                continue
            if winner != y:
                raise ValueError(f"prefer({x}, {y}) returned {winner!r}, not x, y or None")
            result[j], result[j + 1] = y, x
            swapped = True
        if not swapped:
            break
    return result


def _winner_of(record: Any, a: int, b: int, mode: str) -> int | None:
    if mode == "rank":
        choice = _field(record, "choice")
        if is_missing(choice):
            return None
        choice = str(choice).strip().upper()
        if choice == "A":
            return a
        if choice == "B":
            return b
        raise ValueError(f"choice must be 'A', 'B' or None, got {choice!r}")
    if mode == "score":
        sa = _clean_score(_field(record, "score_a"))
        sb = _clean_score(_field(record, "score_b"))
        if sa is None or sb is None or sa == sb:
            return None
        return a if sa > sb else b
    raise ValueError(f"mode must be 'rank' or 'score', got {mode!r}")


def pairwise_preferences(comparisons: Iterable[Any], mode: str) -> dict[frozenset, int]:
    """Directly observed winner per unordered pair ``frozenset({a, b})``.

    ``mode="rank"``: the winner is ``a`` for choice "A", ``b`` for "B";
    ``None`` is skipped.  ``mode="score"``: the winner has the higher score;
    equal scores or a missing score give no winner.  A pair compared several
    times gets the majority winner of the observed winners; a tie (including
    no observed winner at all) leaves the pair out of the result.
    """
    if mode not in ("rank", "score"):
        raise ValueError(f"mode must be 'rank' or 'score', got {mode!r}")
    votes: dict[frozenset, Counter] = {}
    for record in comparisons:
        a, b = _pair(record)
        winner = _winner_of(record, a, b, mode)
        if winner is not None:
            votes.setdefault(frozenset((a, b)), Counter())[winner] += 1
    direct: dict[frozenset, int] = {}
    for key, counter in votes.items():
        ranked = counter.most_common()
        if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
            direct[key] = ranked[0][0]
    return direct


def make_preference(
    direct: Mapping[frozenset, int], anchors: Sequence[int] | None
) -> Prefer:
    """Build ``prefer(x, y)`` from direct winners plus the anchor rule.

    Direct winner if the pair was compared; otherwise the item with more direct
    wins against anchor ids; equal counts or ``anchors is None`` -> ``None``.
    See the module docstring.
    """
    direct = dict(direct)
    anchor_set = None if anchors is None else {int(a) for a in anchors}

    def anchor_wins(item: int) -> int:
        assert anchor_set is not None
        return sum(
            1
            for anchor in anchor_set
            if anchor != item and direct.get(frozenset((item, anchor))) == item
        )

    def prefer(x: int, y: int) -> int | None:
        key = frozenset((x, y))
        if key in direct:
            return direct[key]
        if anchor_set is None:
            return None
        wx, wy = anchor_wins(x), anchor_wins(y)
        if wx > wy:
            return x
        if wy > wx:
            return y
        return None

    return prefer


def bubble_ranking(
    comparisons: Iterable[Any], n: int, mode: str, anchors: Sequence[int] | None = None
) -> list[int]:
    """BubbleSort ranking of ids ``0..n-1`` starting from presentation order."""
    prefer = make_preference(pairwise_preferences(comparisons, mode), anchors)
    return bubble_sort(list(range(n)), prefer)


def ranking_to_values(ranking: Sequence[int], n: int) -> list[float]:
    """Predicted value per id: first of ``ranking`` -> ``n-1``, last -> ``0``."""
    ids = [int(i) for i in ranking]
    if sorted(ids) != list(range(n)):
        raise ValueError(f"ranking {list(ranking)!r} is not a permutation of 0..{n - 1}")
    values = [0.0] * n
    for position, item in enumerate(ids):
        values[item] = float(n - 1 - position)
    return values
