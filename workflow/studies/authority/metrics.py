"""Evaluation metrics for AuthorityBench judgments.

Policies (stated once, used everywhere)
---------------------------------------
* **List correlation.**  Spearman rho and Kendall tau-b (scipy's defaults,
  computed here as scipy computes them, bit for bit: :func:`spearman`,
  :func:`kendall_tau_b`; the evaluation steps need not import scipy)
  between the true levels of a list and the predicted values.  If the
  predicted values are constant (or the true levels are) the correlation is
  undefined; it is counted as ``rho = tau = 0.0`` (no information about the
  order) and flagged ``constant=True``.  Means over lists include these zeros.
* **Pair accuracy.**  A prediction is correct only when it orders the pair
  strictly like the truth: equal predictions or a missing prediction count as
  WRONG.  Pairs with equal true values are invalid (pairs are sampled with a
  positive level gap) and raise ``ValueError``.
* **Choice accuracy.**  An unparsable choice (``None``) counts as wrong.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from authbench.records import is_missing

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "spearman",
    "kendall_tau_b",
    "list_correlation",
    "mean_list_correlation",
    "pair_correct",
    "choice_correct",
    "accuracy",
    "bias_by_level",
]


def average_ranks(x: Sequence[float]) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank (``scipy.stats.rankdata``'s default)."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    first = np.concatenate(([True], ordered[:-1] != ordered[1:]))
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, x.size))
    ranks = np.empty(x.size)
    ranks[order] = np.repeat(starts + 1 + (counts - 1) / 2, counts)
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the average ranks (``scipy.stats.spearmanr``'s
    statistic, same arithmetic); NaN when either side is constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return float(np.corrcoef(np.column_stack((average_ranks(x), average_ranks(y))), rowvar=False)[1, 0])


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b over all pairs: (concordant - discordant) /
    sqrt(pairs not tied in x) / sqrt(pairs not tied in y), as
    ``scipy.stats.kendalltau`` divides and clips to [-1, 1]; NaN when either side is constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    i, j = np.triu_indices(x.size, k=1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    untied_x, untied_y = int(np.count_nonzero(sx)), int(np.count_nonzero(sy))
    if not untied_x or not untied_y:
        return math.nan
    tau = int((sx * sy).sum()) / np.sqrt(untied_x) / np.sqrt(untied_y)
    return float(min(1.0, max(-1.0, tau)))


def list_correlation(true_levels: Sequence[float], predicted: Sequence[float]) -> dict:
    """Spearman rho and Kendall tau-b of one list.

    Returns ``{"rho": float, "tau": float, "constant": bool}``; constant
    predictions (or constant true levels) give ``rho = tau = 0.0`` and
    ``constant=True``.
    """
    truth = np.asarray(true_levels, dtype=float)
    pred = np.asarray(predicted, dtype=float)
    if truth.ndim != 1 or truth.shape != pred.shape:
        raise ValueError(f"length mismatch: {truth.shape} true vs {pred.shape} predicted")
    if truth.size < 2:
        raise ValueError("a list needs at least 2 items for a correlation")
    if np.isnan(truth).any() or np.isnan(pred).any():
        raise ValueError("NaN in true levels or predictions; fill unscored items first")
    if np.all(pred == pred[0]) or np.all(truth == truth[0]):
        return {"rho": 0.0, "tau": 0.0, "constant": True}
    return {"rho": spearman(truth, pred), "tau": kendall_tau_b(truth, pred), "constant": False}


def mean_list_correlation(rows: Iterable[tuple[Sequence[float], Sequence[float]]],
                          per_list: list | None = None) -> dict:
    """Mean rho / tau over lists given as ``(true_levels, predicted)`` rows.

    Constant lists count as 0.  Returns ``{"rho", "tau", "n_lists",
    "n_constant"}``; for no lists rho and tau are NaN. ``per_list``: a list
    that gets each list's :func:`list_correlation` (the units of the means).
    """
    results = [list_correlation(truth, pred) for truth, pred in rows]
    if per_list is not None:
        per_list.extend(results)
    if not results:
        return {"rho": math.nan, "tau": math.nan, "n_lists": 0, "n_constant": 0}
    return {
        "rho": float(np.mean([r["rho"] for r in results])),
        "tau": float(np.mean([r["tau"] for r in results])),
        "n_lists": len(results),
        "n_constant": sum(1 for r in results if r["constant"]),
    }


def _check_pair(true_a: float, true_b: float) -> None:
    if is_missing(true_a) or is_missing(true_b):
        raise ValueError("true values of a pair must not be missing")
    if true_a == true_b:
        raise ValueError(f"pair with equal true values ({true_a}); pairs need a gap > 0")


def pair_correct(
    true_a: float, true_b: float, pred_a: float | None, pred_b: float | None
) -> bool:
    """True iff the predictions order the pair strictly like the true values.

    Equal predictions or a missing (``None``/NaN) prediction are wrong.
    Equal true values raise ``ValueError``.
    """
    _check_pair(true_a, true_b)
    if is_missing(pred_a) or is_missing(pred_b) or pred_a == pred_b:
        return False
    return bool((pred_a > pred_b) == (true_a > true_b))


def choice_correct(true_a: float, true_b: float, choice: str | None) -> bool:
    """True iff ``choice`` ("A"/"B") names the item with the higher true value.

    ``None`` (unparsable) is wrong; equal true values raise ``ValueError``.
    """
    _check_pair(true_a, true_b)
    if is_missing(choice):
        return False
    if choice == "A":
        return bool(true_a > true_b)
    if choice == "B":
        return bool(true_b > true_a)
    raise ValueError(f"choice must be 'A', 'B' or None, got {choice!r}")


def accuracy(flags: Iterable[bool]) -> dict:
    """``{"acc": fraction of True, "n": count}``; acc is NaN for no flags."""
    values = [bool(f) for f in flags]
    n = len(values)
    return {"acc": (sum(values) / n) if n else math.nan, "n": n}


def bias_by_level(
    true_levels: Sequence[float],
    predicted: Sequence[float | None],
    levels: Iterable[int] = range(10),
) -> pd.DataFrame:
    """Per true level: scored count, unscored count, mean prediction, bias.

    Columns ``level, n, n_unscored, mean_pred, bias`` with one row per entry of
    ``levels`` (items whose true level is not in ``levels`` are not reported).
    ``n`` counts the scored items; missing predictions (``None``/NaN) are
    dropped and counted in ``n_unscored``.  ``bias`` is the mean of
    ``predicted - true``; ``mean_pred`` and ``bias`` are NaN when ``n == 0``.
    """
    truth = [float(t) for t in true_levels]
    preds = list(predicted)
    if len(truth) != len(preds):
        raise ValueError(f"length mismatch: {len(truth)} true vs {len(preds)} predicted")
    rows = []
    for level in levels:
        scored = [float(p) for t, p in zip(truth, preds) if t == level and not is_missing(p)]
        unscored = sum(1 for t, p in zip(truth, preds) if t == level and is_missing(p))
        n = len(scored)
        mean_pred = float(np.mean(scored)) if n else math.nan
        bias = float(np.mean([p - level for p in scored])) if n else math.nan
        rows.append(
            {"level": level, "n": n, "n_unscored": unscored, "mean_pred": mean_pred, "bias": bias}
        )
    import pandas as pd

    return pd.DataFrame(rows, columns=["level", "n", "n_unscored", "mean_pred", "bias"])
