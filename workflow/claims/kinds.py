"""The test kinds of a claim: one pure function each, from the rows in a
claim's scope (a frame with the published columns, or :class:`~.keys.Row`
objects) to the claim's cases.

Every kind returns a list of :class:`CaseResult`: its ``parts`` (the parts that
name it), the rows and values involved, the *margin* (signed, positive in the
claimed direction, in the table's unit) and whether the case holds. Each case
also lists its :class:`Contrast` objects, the elementary comparisons a run's units
are tested on (:mod:`authbench.claims.run`): a case's margin is the smallest
of its contrasts' margins.

* :func:`difference`: ``a`` − ``b`` in the claimed direction, ``b`` being the
  ``a`` row's key with some parts replaced (the same case keys otherwise).
* :func:`rate_vs_50`: a rate above, below, within ``tolerance`` of 50, or
  not above 50 + ``tolerance`` (one-sided).
* :func:`monotone_size`: values ordered along a stated model order.
* :func:`bias_sign`: a signed bias positive or negative, or (one-sided) not
  below −``tolerance`` / not above ``tolerance``.
* :func:`best_in_column`: the picked value(s) of the ``over`` part hold the
  maximum (or minimum) of each column (``all_best``: every picked value
  beats every other one).
* :func:`closer_to_50`: a rate nearer 50 than its b row's (|a − 50| <
  |b − 50|), ``b`` the ``a`` row's key with some parts replaced.

Margins are rounded to 9 decimals, so that two printed numbers that are equal
give an exact zero (a tie), never a float residue.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product
from typing import Any, Callable, Mapping, Sequence

import pandas as pd
from authbench.claims.keys import Key, Row, from_parts, label, matches, normalize_selector, ordered, rows_from_frame

__all__ = ["KINDS", "CaseResult", "Contrast", "KindError", "SelfComparisonError", "best_in_column", "bias_sign",
           "closer_to_50", "difference", "monotone_size", "rate_vs_50", "self_comparisons"]

DIGITS = 9


class KindError(ValueError):
    """The rows cannot be cut into the kind's cases (a partner row is
    missing, a column lacks a picked value ...); :mod:`~.load` names the claim."""


class SelfComparisonError(KindError):
    """A difference's b side is the a row itself (a branched or referenced
    replacement that gives the row's own key back) and the claim did not set
    ``skip_self: true``."""


@dataclass(frozen=True)
class Contrast:
    """One comparison: ``a`` against ``b``, or against the constant
    ``reference`` when ``b`` is None. ``sign`` +1: the claim says a > b (a >
    reference); −1: a < b. A one-sided bound is a shifted reference: "not
    above 50 + t" is reference 50 + t with sign −1, "not below −t" reference
    −t with sign +1. ``tolerance`` (one-sample only): the claim says
    |a − reference| <= tolerance instead. ``threshold`` (two rows): the claim
    says a − b exceeds it in its direction ("substantially"): margin =
    sign · (a − b) − threshold. ``centre`` (two rows, :func:`closer_to_50`):
    the effect is |a − centre| − |b − centre|, sign −1 claiming a nearer."""

    a: Key
    b: Key | None
    sign: int = 1
    reference: float = 0.0
    tolerance: float | None = None
    threshold: float = 0.0
    centre: float | None = None

    def effect(self, a: float, b: float | None = None) -> float:
        """a − b (or a − reference; with ``centre``, |a − centre| − |b − centre|):
        the contrast's effect in the table's unit."""
        if self.b is None:
            return a - self.reference
        if self.centre is not None:
            return abs(a - self.centre) - abs(b - self.centre)
        return a - b

    def margin(self, effect: float) -> float:
        """The effect as a margin in the claimed direction (> 0: as claimed)."""
        if self.tolerance is not None:
            return self.tolerance - abs(effect)
        return self.sign * effect - self.threshold


@dataclass(frozen=True)
class CaseResult:
    """One case of a claim (a row of ``claims_cells.tsv``): ``parts`` the parts that name it, ``rows``/``values`` the
    numbers involved (in the kind's order), ``margin`` in the claimed direction,
    ``holds``, and the ``contrasts`` a run tests."""

    parts: tuple[tuple[str, Any], ...]
    rows: tuple[Key, ...]
    values: tuple[float, ...]
    margin: float
    holds: bool
    contrasts: tuple[Contrast, ...]
    marks: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        parts = dict(self.parts)
        vs = parts.pop("vs", "")
        return label(parts) + (f" vs {vs}" if vs else "")


def _rows(frame: pd.DataFrame | Sequence[Row]) -> list[Row]:
    return rows_from_frame(frame) if isinstance(frame, pd.DataFrame) else list(frame)


def _margin(contrasts: Sequence[Contrast], values: Mapping[Key, float]) -> float:
    return round(min(c.margin(c.effect(values[c.a], None if c.b is None else values[c.b])) for c in contrasts),
                 DIGITS)


def _case(parts: Mapping[str, Any], rows: Sequence[Row], contrasts: Sequence[Contrast], holds: Callable,
          vs: str = "") -> CaseResult:
    values = {r.key: r.value for r in rows}
    margin = _margin(contrasts, values)
    named = tuple((p, parts[p]) for p in ordered(parts, metric_last=False)
                  if parts[p] != "") + ((("vs", vs),) if vs else ())
    return CaseResult(named, tuple(r.key for r in rows), tuple(r.value for r in rows), margin, holds(margin),
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


SAME_AS = "same_as"  # an a-side selector value {same_as: <part>}: the row's own value of that part


def _a_selector(a: Mapping[str, Any]) -> tuple[dict[str, tuple], dict[str, str]]:
    """The a side's literal selector and its references (``{author: {same_as:
    model}}``: a row whose author equals its own model)."""
    literal = {k: v for k, v in a.items() if not isinstance(v, Mapping)}
    refs = {}
    for name, value in a.items():
        if isinstance(value, Mapping):
            if set(value) != {SAME_AS}:
                raise KindError(f"a.{name}: a mapping selects by reference only ({{{SAME_AS}: <part>}}), "
                                f"not {dict(value)!r}")
            refs[name] = str(value[SAME_AS])
    return normalize_selector(literal), refs


def _a_rows(rows: Sequence[Row], a: Mapping[str, Any]) -> list[Row]:
    select, refs = _a_selector(a)
    return [r for r in rows if matches(r.parts, select)
            and all(name in r.parts and ref in r.parts and str(r.parts[name]) == str(r.parts[ref])
                    for name, ref in refs.items())]


def _b_sides(row: Row, b: Mapping[str, Any]) -> list[tuple[dict, str, Key]]:
    return [(parts, vs, from_parts(parts)) for parts, vs in _replaced(row.parts, b)]


def self_comparisons(frame, a: Mapping[str, Any], b: Mapping[str, Any], **_: Any) -> int:
    """How many of a difference's (or :func:`closer_to_50`'s) b sides are
    the a row itself: the cases ``skip_self: true`` leaves out."""
    rows = _rows(frame)
    return sum(key == row.key for row in _a_rows(rows, a) for _, _, key in _b_sides(row, b))


def _paired(rows: Sequence[Row], a: Mapping[str, Any], b: Mapping[str, Any], fill: bool, skip_self: bool
            ) -> list[tuple[Row, Row, str]]:
    """Each a row with each of its b rows (a row's b side that is the row
    itself: a :class:`SelfComparisonError`, or left out with ``skip_self``)."""
    index = {r.key: r for r in rows}
    out = []
    for row in _a_rows(rows, a):
        for _, vs, key in _b_sides(row, b):
            if key == row.key:
                if skip_self:
                    continue
                raise SelfComparisonError(
                    f"the b side of {label(row.parts)} ({vs}) is the row itself; expected another row, or "
                    "skip_self: true to leave such cells out (their count goes in the verdict's note)")
            if key not in index and not fill:
                raise KindError(f"the b side of {label(row.parts)} ({vs}) is not among the rows in scope")
            out.append((row, index.get(key) or Row(key, math.nan), vs))
    return out


def difference(frame, a: Mapping[str, Any], b: Mapping[str, Any], direction: str, ties: str = "fail",
               fill: bool = False, threshold: float | None = None, skip_self: bool = False,
               **_: Any) -> list[CaseResult]:
    """Per row matching ``a`` (a value ``{same_as: <part>}``: the row's own
    value of that part): one case per b row (the row's key with ``b``'s parts
    replaced), margin = (a − b) − ``threshold`` for ``direction``
    ``greater``, (b − a) − ``threshold`` for ``less`` (threshold default 0);
    it holds when the margin is > 0, or = 0 with ``ties: hold``. A b row
    missing from ``frame`` is a :class:`KindError` (with ``fill``, a run's
    rows: a row without a value, the case one the run lacks); a b row that
    is the a row itself is a :class:`SelfComparisonError` unless
    ``skip_self`` (:func:`self_comparisons` counts them)."""
    sign = {"greater": 1, "less": -1}[direction]
    t = float(threshold or 0.0)
    return [_case(row.parts, [row, other], [Contrast(row.key, other.key, sign, threshold=t)],
                  lambda m: m > 0 or (ties == "hold" and m == 0), vs)
            for row, other, vs in _paired(_rows(frame), a, b, fill, skip_self)]


def closer_to_50(frame, a: Mapping[str, Any], b: Mapping[str, Any], direction: str = "closer",
                 ties: str = "fail", fill: bool = False, skip_self: bool = False, **_: Any) -> list[CaseResult]:
    """Per row matching ``a``: one case per b row (as :func:`difference`
    pairs them), margin = |b − 50| − |a − 50| for ``direction`` ``closer``
    (a nearer 50, "relatively neutral" against b), |a − 50| − |b − 50| for
    ``farther``; it holds when the margin is > 0, or = 0 with ``ties: hold``.
    The contrast: effect |a − 50| − |b − 50| with sign −1 (closer) or +1."""
    sign = {"closer": -1, "farther": 1}[direction]
    return [_case(row.parts, [row, other], [Contrast(row.key, other.key, sign, centre=50.0)],
                  lambda m: m > 0 or (ties == "hold" and m == 0), vs)
            for row, other, vs in _paired(_rows(frame), a, b, fill, skip_self)]


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
            out.append(_case(row.parts, [row], [c], lambda m: m >= 0))
        elif direction == "not_above":
            c = Contrast(row.key, None, -1, 50.0 + float(tolerance))
            out.append(_case(row.parts, [row], [c], lambda m: m >= 0))
        else:
            c = Contrast(row.key, None, {"above": 1, "below": -1}[direction], 50.0)
            out.append(_case(row.parts, [row], [c], lambda m: m > 0))
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
        return [_case(row.parts, [row], [Contrast(row.key, None, sign, reference)], lambda m: m >= 0)
                for row in _rows(frame)]
    if tolerance is not None:
        raise KindError("bias_sign: a tolerance goes with direction not_negative or not_positive, and only with them")
    sign = {"positive": 1, "negative": -1}[direction]
    return [_case(row.parts, [row], [Contrast(row.key, None, sign, 0.0)], lambda m: m > 0) for row in _rows(frame)]


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
    for rest, column in _columns([r for r in _rows(frame) if r.parts.get("model") in order], "model").items():
        by_model = {r.parts["model"]: r for r in column}
        missing = [m for m in order if m not in by_model]
        if missing and not fill:
            raise KindError(f"column {label(dict(rest))} lacks the model(s) {', '.join(missing)}")
        by_model.update({m: Row(from_parts({**dict(rest), "model": m}), math.nan) for m in missing})
        ordered = [by_model[m] for m in order]
        contrasts = [Contrast(hi.key, lo.key, sign) for lo, hi in zip(ordered, ordered[1:])]
        out.append(_case(dict(rest), ordered, contrasts, (lambda m: m > 0) if strict else (lambda m: m >= 0)))
    return out


def best_in_column(frame, over: str, best: Sequence[Any], direction: str, ties: str = "hold",
                   fill: bool = False, all_best: bool = False, **_: Any) -> list[CaseResult]:
    """Per column (every part but ``over``): a value of ``best`` holds the
    maximum (``max``) or minimum (``min``) over the column; margin = best
    picked − best other (max), or best other − best picked (min); a tie at
    the extreme holds unless ``ties: fail``. The contrasts: every picked row
    with the extreme value (each tied one, not the first) against each other
    row. ``all_best``: *every* picked value beats every other one: margin =
    min(picked) − max(others) (max), min(others) − max(picked) (min), the
    contrasts every picked row against every other row. A column without a
    picked row or without another row is a :class:`KindError` (with
    ``fill``, a column without a picked row gets the picked values' rows
    without a value)."""
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
        if all_best:
            champions = mine
        else:
            finite = [r for r in mine if not math.isnan(r.value)]
            top = max((sign * r.value for r in finite), default=math.nan)
            champions = [r for r in finite if sign * r.value == top] or mine[:1]  # every tied pick
        contrasts = [Contrast(c.key, r.key, sign) for c in champions for r in others]
        out.append(_case(dict(rest), [*mine, *others], contrasts,
                         lambda m: m > 0 or (ties == "hold" and m == 0)))
    return out


# the kinds by name: the schema's enum of test.kind is checked against these keys
KINDS: dict[str, Callable[..., list[CaseResult]]] = {
    "difference": difference,
    "rate_vs_50": rate_vs_50,
    "monotone_size": monotone_size,
    "bias_sign": bias_sign,
    "best_in_column": best_in_column,
    "closer_to_50": closer_to_50,
}
