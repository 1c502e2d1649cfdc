"""The test kinds of a claim: one pure function each, from the rows in a
claim's scope (a frame with the published columns, or :class:`~.keys.Row`
objects) to the claim's cells.

Every kind returns a list of :class:`CaseResult`: the cell (the parts that
name it), the rows and values involved, the *margin* (signed, positive in the
claimed direction, in the table's unit) and whether the cell holds. Each cell
also lists its :class:`Contrast` objects, the elementary comparisons a run's units
are tested on (:mod:`authbench.claims.run`): a cell's margin is the smallest
of its contrasts' margins.

* :func:`difference`: ``a`` − ``b`` in the claimed direction, ``b`` being the
  ``a`` row's key with some parts replaced (the same cell keys otherwise).
* :func:`rate_vs_50`: a rate above, below, within ``tolerance`` of 50, or
  not above 50 + ``tolerance`` (one-sided).
* :func:`monotone_size`: values ordered along a stated model order.
* :func:`bias_sign`: a signed bias positive or negative, or (one-sided) not
  below −``tolerance`` / not above ``tolerance``.
* :func:`best_in_column`: the picked value(s) of the ``over`` part hold the
  maximum (or minimum) of each column.

Margins are rounded to 9 decimals, so that two printed numbers that are equal
give an exact zero (a tie), never a float residue.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product
from typing import Any, Callable, Mapping, Sequence

import pandas as pd
from authbench.claims.keys import FIXED, Key, Row, from_parts, label, matches, normalize_selector, rows_from_frame

__all__ = ["KINDS", "CaseResult", "Contrast", "KindError", "best_in_column", "bias_sign", "difference",
           "monotone_size", "rate_vs_50"]

DIGITS = 9


class KindError(ValueError):
    """The rows cannot be cut into the kind's cells (a partner row is
    missing, a column lacks a picked value ...); :mod:`~.load` names the claim."""


@dataclass(frozen=True)
class Contrast:
    """One comparison: ``a`` against ``b``, or against the constant
    ``reference`` when ``b`` is None. ``sign`` +1: the claim says a > b (a >
    reference); −1: a < b. A one-sided bound is a shifted reference: "not
    above 50 + t" is reference 50 + t with sign −1, "not below −t" reference
    −t with sign +1. ``tolerance`` (one-sample only): the claim says
    |a − reference| <= tolerance instead."""

    a: Key
    b: Key | None
    sign: int = 1
    reference: float = 0.0
    tolerance: float | None = None

    def effect(self, a: float, b: float | None = None) -> float:
        """a − b (or a − reference): the contrast's effect in the table's unit."""
        return a - (self.reference if self.b is None else b)

    def margin(self, effect: float) -> float:
        """The effect as a margin in the claimed direction (> 0: as claimed)."""
        if self.tolerance is not None:
            return self.tolerance - abs(effect)
        return self.sign * effect


@dataclass(frozen=True)
class CaseResult:
    """One case of a claim (a row of ``claims_cells.tsv``): ``cell`` its naming parts, ``rows``/``values`` the
    numbers involved (in the kind's order), ``margin`` in the claimed direction,
    ``holds``, and the ``contrasts`` a run tests."""

    cell: tuple[tuple[str, Any], ...]
    rows: tuple[Key, ...]
    values: tuple[float, ...]
    margin: float
    holds: bool
    contrasts: tuple[Contrast, ...]
    marks: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        parts = dict(self.cell)
        vs = parts.pop("vs", "")
        return label(parts) + (f" vs {vs}" if vs else "")


def _rows(frame: pd.DataFrame | Sequence[Row]) -> list[Row]:
    return rows_from_frame(frame) if isinstance(frame, pd.DataFrame) else list(frame)


def _margin(contrasts: Sequence[Contrast], values: Mapping[Key, float]) -> float:
    return round(min(c.margin(c.effect(values[c.a], None if c.b is None else values[c.b])) for c in contrasts),
                 DIGITS)


def _cell(parts: Mapping[str, Any], rows: Sequence[Row], contrasts: Sequence[Contrast], holds: Callable,
          vs: str = "") -> CaseResult:
    values = {r.key: r.value for r in rows}
    margin = _margin(contrasts, values)
    cell = tuple((p, parts[p]) for p in (*FIXED, *sorted(k for k in parts if k not in FIXED))
                 if p in parts and parts[p] != "") + ((("vs", vs),) if vs else ())
    return CaseResult(cell, tuple(r.key for r in rows), tuple(r.value for r in rows), margin, holds(margin),
                      tuple(contrasts), tuple(r.mark for r in rows))


def _replaced(parts: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[dict, str]]:
    """The b-side parts for an a-side row: each part ``b`` names replaced (a
    scalar), branched (a list: one b row per value), mapped from the a value (a
    mapping) or dropped (None: a setting key the b table lacks); with the
    ``vs`` text naming what was replaced."""
    options = []
    for name, spec in b.items():
        if spec is None:
            options.append([(name, None)])
        elif isinstance(spec, Mapping):
            mapped = {str(k): v for k, v in spec.items()}
            if str(parts.get(name)) not in mapped:
                raise KindError(f"b.{name} maps {', '.join(mapped)}, not the a-side value {parts.get(name)!r}")
            options.append([(name, mapped[str(parts.get(name))])])
        elif isinstance(spec, (list, tuple)):
            options.append([(name, v) for v in spec])
        else:
            options.append([(name, spec)])
    out = []
    for choice in product(*options):
        new = dict(parts)
        for name, value in choice:
            if value is None:
                new.pop(name, None)
            else:
                new[name] = int(value) if name == "table" else str(value)
        out.append((new, " ".join(f"{n}={'(none)' if v is None else v}" for n, v in choice)))
    return out


def difference(frame, a: Mapping[str, Any], b: Mapping[str, Any], direction: str, ties: str = "fail",
               fill: bool = False, **_: Any) -> list[CaseResult]:
    """Per row matching ``a``: one cell per b row (the row's key with ``b``'s
    parts replaced), margin = (a − b) for ``direction`` ``greater``, (b − a)
    for ``less``; it holds when the margin is > 0, or = 0 with ``ties: hold``.
    A b row missing from ``frame`` is a :class:`KindError`; with ``fill`` (a
    run's rows) it is a row without a value, the cell one the run lacks."""
    rows = _rows(frame)
    index = {r.key: r for r in rows}
    sign = {"greater": 1, "less": -1}[direction]
    select = normalize_selector(a)
    out = []
    for row in rows:
        if not matches(row.parts, select):
            continue
        for parts, vs in _replaced(row.parts, b):
            key = from_parts(parts)
            if key == row.key:
                continue
            if key not in index and not fill:
                raise KindError(f"the b side of {label(row.parts)} ({vs}) is not among the rows in scope")
            other = index.get(key) or Row(key, math.nan)
            out.append(_cell(row.parts, [row, other], [Contrast(row.key, key, sign)],
                             lambda m: m > 0 or (ties == "hold" and m == 0), vs))
    return out


def rate_vs_50(frame, direction: str, tolerance: float | None = None, **_: Any) -> list[CaseResult]:
    """Per row: ``above`` (value > 50), ``below`` (< 50), ``near``
    (|value − 50| <= ``tolerance``: margin = tolerance − |value − 50|) or
    ``not_above`` (value <= 50 + ``tolerance``: margin = 50 + tolerance −
    value, a one-sided "no preference"); the boundary of ``near`` and
    ``not_above`` holds. ``tolerance`` goes with ``near`` and ``not_above``,
    and only with them."""
    if (direction in ("near", "not_above")) != (tolerance is not None):
        raise KindError("rate_vs_50: a tolerance goes with direction near or not_above, and only with them")
    out = []
    for row in _rows(frame):
        if direction == "near":
            c = Contrast(row.key, None, 1, 50.0, float(tolerance))
            out.append(_cell(row.parts, [row], [c], lambda m: m >= 0))
        elif direction == "not_above":
            c = Contrast(row.key, None, -1, 50.0 + float(tolerance))
            out.append(_cell(row.parts, [row], [c], lambda m: m >= 0))
        else:
            c = Contrast(row.key, None, {"above": 1, "below": -1}[direction], 50.0)
            out.append(_cell(row.parts, [row], [c], lambda m: m > 0))
    return out


def bias_sign(frame, direction: str, tolerance: float | None = None, **_: Any) -> list[CaseResult]:
    """Per row: the value > 0 (``positive``) or < 0 (``negative``), a printed
    zero (``-0.00``) holding neither; or one-sided, the value >= −tolerance
    (``not_negative``: margin = value + tolerance) or <= tolerance
    (``not_positive``: margin = tolerance − value), the boundary holding
    (``tolerance`` only with these two; default 0)."""
    if direction in ("not_negative", "not_positive"):
        t = 0.0 if tolerance is None else float(tolerance)
        sign, reference = (1, 0.0 - t) if direction == "not_negative" else (-1, t)
        return [_cell(row.parts, [row], [Contrast(row.key, None, sign, reference)], lambda m: m >= 0)
                for row in _rows(frame)]
    if tolerance is not None:
        raise KindError("bias_sign: a tolerance goes with direction not_negative or not_positive, and only with them")
    sign = {"positive": 1, "negative": -1}[direction]
    return [_cell(row.parts, [row], [Contrast(row.key, None, sign, 0.0)], lambda m: m > 0) for row in _rows(frame)]


def _columns(rows: Sequence[Row], over: str) -> dict[tuple, list[Row]]:
    columns: dict[tuple, list[Row]] = {}
    for row in rows:
        if over not in row.parts:
            raise KindError(f"{label(row.parts)} has no part {over!r}")
        rest = tuple(sorted((k, v) for k, v in row.parts.items() if k != over))
        columns.setdefault(rest, []).append(row)
    return columns


def monotone_size(frame, order: Sequence[str], direction: str, strict: bool, fill: bool = False,
                  **_: Any) -> list[CaseResult]:
    """Per column (every part but ``model``): the models of ``order`` in that
    order, each adjacent step larger (``increasing``) or smaller
    (``decreasing``); margin = the smallest step in that direction; ``strict``
    false lets equal neighbours hold. Rows of models outside ``order`` are left
    out; a column without every model of ``order`` is a :class:`KindError`
    (with ``fill``: the missing models' rows have no value)."""
    sign = {"increasing": 1, "decreasing": -1}[direction]
    order = [str(m) for m in order]
    out = []
    for rest, column in _columns([r for r in _rows(frame) if r.parts["model"] in order], "model").items():
        by_model = {r.parts["model"]: r for r in column}
        missing = [m for m in order if m not in by_model]
        if missing and not fill:
            raise KindError(f"column {label(dict(rest))} lacks the model(s) {', '.join(missing)}")
        by_model.update({m: Row(from_parts({**dict(rest), "model": m}), math.nan) for m in missing})
        ordered = [by_model[m] for m in order]
        contrasts = [Contrast(hi.key, lo.key, sign) for lo, hi in zip(ordered, ordered[1:])]
        out.append(_cell(dict(rest), ordered, contrasts, (lambda m: m > 0) if strict else (lambda m: m >= 0)))
    return out


def best_in_column(frame, over: str, best: Sequence[Any], direction: str, ties: str = "hold",
                   fill: bool = False, **_: Any) -> list[CaseResult]:
    """Per column (every part but ``over``): a value of ``best`` holds the
    maximum (``max``) or minimum (``min``) over the column; margin = best
    picked − best other (max), or best other − best picked (min); a tie at the
    extreme holds unless ``ties: fail``. The contrasts: the picked row with the
    extreme value against each other row. A column without a picked row or
    without another row is a :class:`KindError` (with ``fill``, a column
    without a picked row gets the picked values' rows without a value)."""
    sign = {"max": 1, "min": -1}[direction]
    picked = {str(v) for v in best}
    out = []
    for rest, column in _columns(_rows(frame), over).items():
        mine = [r for r in column if str(r.parts[over]) in picked]
        others = [r for r in column if str(r.parts[over]) not in picked]
        if fill and not mine and others:
            mine = [Row(from_parts({**dict(rest), over: v}), math.nan) for v in best]
        if not mine or not others:
            what = "no picked value" if not mine else "no value besides the picked ones"
            raise KindError(f"column {label(dict(rest))} has {what} of {over!r}")
        champion = max(mine, key=lambda r: sign * r.value)  # the first such row on a tie
        contrasts = [Contrast(champion.key, r.key, sign) for r in others]
        out.append(_cell(dict(rest), [*mine, *others], contrasts,
                         lambda m: m > 0 or (ties == "hold" and m == 0)))
    return out


# the kinds by name: the schema's enum of test.kind is checked against these keys
KINDS: dict[str, Callable[..., list[CaseResult]]] = {
    "difference": difference,
    "rate_vs_50": rate_vs_50,
    "monotone_size": monotone_size,
    "bias_sign": bias_sign,
    "best_in_column": best_in_column,
}
