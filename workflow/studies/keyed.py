"""A run's numbers in the papers' places: each study gives its numbers and
their units keyed by published key, once (:class:`Keyed`), and both the
scorecard (the paper's number beside ours) and the claims (the paper's
conclusions tested on the units) read them.

A :class:`Keyed` is one published key (:class:`authbench.claims.Key`: table,
metric and the paper's own parts) with:

* ``units``: the units behind the number (:class:`authbench.claims.PlaceUnits`:
  a list's ρ, a pair's 0/1, a question's share of comparisons with its count
  as the weight); the number is their (weighted) mean times the scale: the
  pooled rate of the paper's Table 3, the mean ρ of Table 1;
* ``columns``: other unit columns of the same key a claim may name (the
  self-preference rate over the same-factuality pairs: ``same_factuality``);
* ``number``: the paper's number where it is not a mean of the units (a
  standard deviation, a count, the mean of the per-author rates);
* ``lo``/``hi``: the number's 95% interval where the study computed one;
* ``named``: the model is keyed by its ``paper_name`` (the scorecard
  compares only those; a claim's fixed model parts need them);
* ``flags``: the judge-validity flags of the cell behind it (a claim's
  verdict resting on it carries them).

Every report writes them as ``units_keyed.parquet`` (:func:`keyed_frame`),
one row per key, column and unit, which :func:`read_keyed` reads back (the
self-preference cross-dataset report reads its datasets' files). Both, and
:func:`scorecard_rows`, write a key in the 11-column layout
(:func:`authbench.claims.keys.to_columns`, the paper's
:attr:`~authbench.papers.Paper.legacy`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from authbench.claims import PlaceUnits, Key, place_key
from authbench.claims.keys import COLUMNS as SCORECARD_KEY, from_columns, to_columns
from authbench.errors import InputError
from authbench.stats import finite_or_nan

VALUE = "value"  # the column of a key's own units
RELEASED_RUN = "released run"  # what a data number of the authors' released runs says it is (``ours``)
KINDS = ("model", "data")
UNIT_KINDS = ("lists", "pairs", "questions", "items")
FRAME_COLUMNS = ("table", "model", "judge", "context", "setting", "metric", "column", "unit", "value", "weight",
                 "scale", "unit_kind", "named", "ours", "kind", "number", "lo", "hi", "scope", "asked", "flags", "compared")


@dataclass(frozen=True)
class Keyed:
    """One number of this run in a published place (module docstring).
    ``ours``: our model (or the released run) behind it; ``kind``: ``model``
    (a judge's number) or ``data`` (counted from the data alone);
    ``unit_kind``: what one unit is (lists, pairs, questions, items);
    ``scope``: why a data row counts a smaller sample than the paper's;
    ``asked``: the count the config asks for where the paper's is a
    sampling choice; ``compared``: False for a number the scorecard leaves
    out (Table 2's Diff: a difference of two numbers it compares)."""

    key: Key
    ours: str
    kind: str = "model"
    named: bool = True
    units: PlaceUnits | None = None
    unit_kind: str = ""
    columns: Mapping[str, PlaceUnits] = field(default_factory=dict)
    number: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    scope: str = ""
    asked: float = math.nan
    flags: tuple[str, ...] = ()
    compared: bool = True  # False: the scorecard leaves it out (a difference of two numbers it compares)

    @property
    def reproduced(self) -> float:
        """The number as the paper computes it: ``number`` when given, else
        the units' (weighted) mean times their scale (NaN: neither)."""
        if math.isfinite(self.number):
            return self.number
        return self.units.value if self.units is not None else math.nan

    def unit_column(self, column: str | None = None) -> PlaceUnits | None:
        """The units of ``column`` (None / ``value``: the key's own)."""
        if column in (None, "", VALUE):
            return self.units
        return self.columns.get(column)


def keyed(table: int, metric: str, *, ours: str, model: str = "", parts: Mapping[str, Any] | None = None,
          **fields: Any) -> Keyed:
    """A :class:`Keyed` from its key: ``model`` and the paper's other ``parts``."""
    return Keyed(place_key(table, metric, model=model, **(parts or {})), ours, **fields)


def units_of(ids: Sequence[Any], values: Sequence[float], scale: float = 1.0,
             weights: Sequence[float] | None = None) -> PlaceUnits | None:
    """The finite values' units (ids as strings; None when none is left)."""
    v = np.asarray(list(values), dtype=float)
    keep = np.isfinite(v)
    if weights is not None:
        w = np.asarray(list(weights), dtype=float)
        keep &= np.isfinite(w) & (w > 0)
    if not keep.any():
        return None
    return PlaceUnits([str(u) for u, k in zip(ids, keep) if k], v[keep].tolist(), scale,
                     None if weights is None else w[keep].tolist())


def per_question(frame: pd.DataFrame, column: str, unit: str = "qid") -> PlaceUnits | None:
    """A question's mean of ``column`` (its non-missing rows) with their count as its weight."""
    sub = frame[frame[column].notna()]
    if sub.empty:
        return None
    g = sub.groupby(unit, sort=True)[column].agg(["mean", "size"])
    return units_of(g.index.tolist(), g["mean"].tolist(), 1.0, g["size"].tolist())


def scaled(units: PlaceUnits | None, scale: float) -> PlaceUnits | None:
    return None if units is None else PlaceUnits(units.units, units.values, scale, units.weights)


# --- what the scorecard and the claims read ---------------------------------------------------



def _legacy(paper: str | None) -> Mapping[str, str]:
    from authbench.papers import paper_of

    return paper_of(paper).legacy if paper is not None else {}


def scorecard_rows(numbers: Iterable[Keyed], paper: str | None = None) -> list[dict]:
    """The reproduced rows the scorecard matches with the published numbers:
    every data row, and the model rows whose model is keyed by its paper name
    (their keys in ``paper``'s 11-column layout)."""
    legacy = _legacy(paper)
    out = []
    for k in numbers:
        if not k.compared or (k.kind == "model" and not k.named):
            continue
        out.append({**to_columns(k.key, legacy), "key": k.key, "ours": k.ours,
                    "reproduced": finite_or_nan(k.reproduced), "lo": k.lo, "hi": k.hi, "kind": k.kind,
                    "scope": k.scope, "asked": k.asked})
    return out


def claim_units(numbers: Iterable[Keyed], column: str | None = None) -> dict[Key, PlaceUnits]:
    """Key -> the units of ``column`` (None: the key's own) of every number that has them."""
    out = {}
    for k in numbers:
        units = k.unit_column(column)
        if units is not None:
            out[k.key] = units
    return out


# --- units_keyed.parquet ----------------------------------------------------------------------

def keyed_frame(numbers: Iterable[Keyed], paper: str | None = None) -> pd.DataFrame:
    """One row per key, unit column and unit (a key without units: one row
    with an empty unit), :data:`FRAME_COLUMNS` (the keys in ``paper``'s
    11-column layout)."""
    legacy = _legacy(paper)
    rows = []
    for k in numbers:
        base = {**to_columns(k.key, legacy), "unit_kind": k.unit_kind, "named": k.named, "ours": k.ours, "kind": k.kind,
                "number": k.number, "lo": k.lo, "hi": k.hi, "scope": k.scope, "asked": k.asked,
                "flags": "; ".join(k.flags), "compared": k.compared}
        columns = ([(VALUE, k.units)] if k.units is not None else []) + list(k.columns.items())
        if not columns:
            rows.append({**base, "column": "", "unit": "", "value": math.nan, "weight": math.nan, "scale": math.nan})
        for name, units in columns:
            weights = units.weights if units.weights is not None else [math.nan] * len(units.units)
            rows += [{**base, "column": name, "unit": str(u), "value": v, "weight": w, "scale": units.scale}
                     for u, v, w in zip(units.units, units.values, weights)]
    frame = pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
    return frame.astype({"table": int, "named": bool, "compared": bool, "value": float, "weight": float, "scale": float,
                         "number": float, "lo": float, "hi": float, "asked": float})


def read_keyed(path: str | Path, paper: str | None = None) -> list[Keyed]:
    """The numbers of a report's ``units_keyed.parquet`` (:func:`keyed_frame`
    of ``paper``)."""
    legacy = _legacy(paper)
    try:
        frame = pd.read_parquet(path, engine="pyarrow")
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read a report's keyed units ({exc})") from exc
    missing = [c for c in FRAME_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: no column(s) {', '.join(missing)}; expected a units_keyed.parquet "
                         f"({', '.join(FRAME_COLUMNS)})")
    out = []
    for key, g in frame.groupby(list(SCORECARD_KEY), sort=False):
        first = g.iloc[0]
        columns: dict[str, PlaceUnits] = {}
        for name, c in g[g["column"] != ""].groupby("column", sort=False):
            weights = None if c["weight"].isna().all() else c["weight"].tolist()
            columns[str(name)] = PlaceUnits(c["unit"].astype(str).tolist(), c["value"].tolist(),
                                           float(c["scale"].iloc[0]), weights)
        out.append(Keyed(from_columns(dict(zip(SCORECARD_KEY, key)), legacy), str(first["ours"]), str(first["kind"]),
                         bool(first["named"]), columns.pop(VALUE, None), str(first["unit_kind"]), columns,
                         float(first["number"]),
                         float(first["lo"]), float(first["hi"]), str(first["scope"]), float(first["asked"]),
                         tuple(f for f in str(first["flags"]).split("; ") if f), bool(first["compared"])))
    return out

