"""Paired comparisons of DomainAuth's and EntityAuth's cells, from
the units behind their metric rows (``units.parquet``,
:data:`authbench.studies.authority.rows.UNIT_COLUMNS`).

Cells of one dataset, label scale (setting), difficulty and metric that
judged the same units (the same list or pair ids; cells are paired only when
their unit sets are equal) are compared unit by unit
(:func:`authbench.render.comparisons.comparison_row`: Δ = a − b in the
tables' units (×100), its paired-bootstrap interval and p; McNemar's exact p
beside it for pair accuracy), Holm-adjusted within each family
(:data:`FAMILIES`):

* ``vs baseline``: every LLM cell (model × judge × derivation × context) vs
  every baseline (random, position, tld_prior where configured) in its context;
* ``w/ vs w/o text``: every model × judge × derivation, w/ − w/o;
* ``model vs model``: every two models, per judge × derivation × context
  (within one prompt set);
* ``prompt set vs prompt set``: every cell of an extra prompt set
  (``<model>@<set>``, config ``prompt_sets``) vs the same model's cell of the
  paper set (:func:`authbench.config.split_model`);
* ``judge vs judge``: every two judges per model × context, each by its main
  derivation (the main tables' number: the judge's ``derivation``,
  :mod:`authbench.studies.authority.judges`,
  on lists, ``direct`` on pairs);
* ``vs column best``: every value of a table column vs that column's best
  value on the same units (Tables 1, 2, 4, 6, 9-12: a judge × derivation ×
  metric over models and contexts; Table 3: a judge × context per
  difficulty); not for the E[s] rows (their table's columns mix judges).

With config ``position_consistency``, the two-order rows (derivation
``both_orders``: :mod:`authbench.studies.authority.consistency`) are compared
in a family of their own, ``position consistency`` (:func:`compare_consistency`):
consistency, conflict rate and both-orders accuracy, model vs model, judge
vs judge and w/ vs w/o text, Holm within it; :func:`compare` leaves them out.

A comparison with a Bradley–Terry cell (derivation ``bt``, ``bt_expected``;
not in the paper) is in its family's Bradley–Terry twin (``vs baseline
(Bradley–Terry)`` ..., :data:`BT_FAMILY`), Holm-adjusted there, so the
paper's derivations' adjusted p-values are those of a run without it.

:func:`compare` returns the frame (:func:`authbench.render.comparisons.finish`)
and the tags of the metric rows (:data:`~authbench.render.formatting.NOT_RANDOM_TAG`
``°``: the row's ``vs baseline`` comparison with ``baseline:random`` is not
``distinct == "yes"``; :data:`~authbench.render.formatting.NOT_BEST_TAG` ``≈``:
its ``vs column best`` comparison is not).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from authbench.config import split_model
from authbench.render.comparisons import comparison_row, finish
from authbench.render.formatting import NOT_BEST_TAG, NOT_RANDOM_TAG
from authbench.render.tables import is_baseline
from authbench.stats import IntervalSpec
from authbench.studies.authority.bradley_terry import DERIVATION as BT_DERIVATION
from authbench.studies.authority.consistency import DERIVATION as CONSISTENCY_DERIVATION
from authbench.studies.authority.judges import judge_of
from authbench.studies.authority.rows import ROW_KEY, expected_derivation
from authbench.studies.authority.tables import context_label

__all__ = ["BT_FAMILY", "CONSISTENCY_FAMILY", "FAMILIES", "RANDOM", "cells_of", "compare", "compare_consistency",
           "read_units", "split_orders", "tag_column"]

FAMILIES = ("vs baseline", "w/ vs w/o text", "model vs model", "prompt set vs prompt set", "judge vs judge",
            "vs column best")
# a comparison with a Bradley–Terry cell: its own family (``vs baseline (Bradley–Terry)`` ...), so the
# paper's derivations' Holm adjustments do not move
BT_FAMILY = " (Bradley–Terry)"
CONSISTENCY_FAMILY = "position consistency"
CONSISTENCY_METRICS = ("consistency", "conflict", "both_acc")
RANDOM = "baseline:random"
GROUP = ("benchmark", "setting", "difficulty", "metric")
CELL = ("model", "context", "judge", "derivation")
SYMBOL = {"rho": "ρ", "tau": "τ", "acc": "acc"}


Cells = dict  # (benchmark, setting, difficulty, metric) -> cell -> (unit codes, values), sorted by unit


def read_units(paths: Sequence[str], parse: str) -> Cells:
    """The units of ``paths`` (Parquet; each a cell's or the baselines') of
    the shown parse mode (the baselines' rows carry none and belong to
    both), as :func:`cells_of` gives them. Read file by file, keeping only
    each cell's unit codes and values (12 bytes a unit): the paper grid's
    DomainAuth report reads about a million units per model."""
    import pyarrow.parquet as pq

    columns = [*ROW_KEY, "unit", "value"]
    text = [c for c in columns if c != "value"]
    codes: dict[str, int] = {}
    out: Cells = defaultdict(dict)
    for path in paths:  # text columns as Parquet dictionaries (categoricals), never as a column of Python strings
        frame = pq.read_table(path, columns=columns, read_dictionary=text).to_pandas()
        mode = frame["parse"].astype(object).fillna("")
        for group, cells in cells_of(frame[((mode == "") | (mode == parse)).to_numpy()], codes).items():
            out[group].update(cells)
    return out


def cells_of(units: pd.DataFrame, codes: dict[str, int] | None = None) -> Cells:
    """(benchmark, setting, difficulty, metric) -> cell (model, context, judge,
    derivation) -> its units as (unit codes, values), sorted by unit code
    (``codes``: unit id -> code, shared by every call of one report): two
    cells judged the same units when their code arrays are equal."""
    codes = {} if codes is None else codes
    ids = pd.Categorical(units["unit"].astype(object).astype(str)) if not isinstance(
        units["unit"].dtype, pd.CategoricalDtype) else units["unit"].array
    mapped = np.fromiter((codes.setdefault(str(u), len(codes)) for u in ids.categories), dtype=np.int64,
                         count=len(ids.categories))
    unit = mapped[np.asarray(ids.codes)]
    values = units["value"].to_numpy(dtype=float)
    out: Cells = defaultdict(dict)
    for key, idx in units.groupby([*GROUP, *CELL], sort=False, observed=True).indices.items():
        key = tuple(str(k) for k in key)
        order = idx[np.argsort(unit[idx], kind="stable")]
        out[key[:4]][key[4:]] = (unit[order], values[order])
    return out


def _label(cell: tuple) -> str:
    model, context, judge, derivation = cell
    if is_baseline(model):
        return f"{model} {context_label(context)}"
    return f"{model} {judge}/{derivation} {context_label(context)}"


def _fitted(cell: tuple) -> bool:
    """Whether ``cell`` is a Bradley–Terry cell (derivation ``bt`` or its E[s] ``bt_expected``)."""
    return cell[3] in (BT_DERIVATION, expected_derivation(BT_DERIVATION))


def _main(cell: tuple, setting: str) -> bool:
    return cell[3] == ("direct" if setting == "pairs" else judge_of(cell[2]).derivation)


def _column(cell: tuple, setting: str) -> tuple | None:
    """The table column a cell's value sits in (None: the E[s] rows)."""
    if cell[3].endswith("expected"):
        return None
    return (cell[2], cell[3], cell[1]) if setting == "pairs" else (cell[2], cell[3])


def compare(units: pd.DataFrame | Cells, spec: IntervalSpec) -> tuple[pd.DataFrame, dict[tuple, str]]:
    """The comparisons of :data:`FAMILIES` (module docstring) of ``units``
    (a frame of unit rows, or :func:`read_units`' cells) and the tags:
    ``{(benchmark, model, context, judge, derivation, setting, difficulty,
    metric): "°≈"}`` for the LLM cells' metric rows (empty marks left out)."""
    rows: list[dict] = []
    refs: list[tuple] = []  # per row: (family, group, a, b)
    for group, cells in (units if isinstance(units, dict) else cells_of(units)).items():
        benchmark, setting, difficulty, metric = group
        what = f"{benchmark} {setting} {SYMBOL.get(metric, metric)}" + ("" if difficulty == "all" else f" {difficulty}")
        unit = "pairs" if metric == "acc" else "lists"

        def add(family: str, a: tuple, b: tuple) -> None:
            (xc, x), (yc, y) = cells[a], cells[b]
            if not np.array_equal(xc, yc):  # not the same units: no paired comparison
                return
            shown = family + BT_FAMILY if _fitted(a) or _fitted(b) else family
            rows.append(comparison_row(shown, what, _label(a), _label(b), unit, x, y, spec, scale=100.0,
                                       binary=metric == "acc"))
            refs.append((family, group, a, b))

        llm = [c for c in cells if not is_baseline(c[0])]
        for a in llm:
            for b in (c for c in cells if is_baseline(c[0]) and c[1] == a[1]):
                add("vs baseline", a, b)
        for a in llm:
            if a[1] == "w_text" and (a[0], "wo_text", *a[2:]) in cells:
                add("w/ vs w/o text", a, (a[0], "wo_text", *a[2:]))
        for _, same in _by(llm, lambda c: (c[1], c[2], c[3], split_model(c[0])[1])).items():
            for a, b in itertools.combinations(same, 2):
                add("model vs model", a, b)
        for a in llm:
            model, prompt_set = split_model(a[0])
            if (model, *a[1:]) in cells and model != a[0]:
                add("prompt set vs prompt set", a, (model, *a[1:]))
        for _, same in _by([c for c in llm if _main(c, setting)], lambda c: (c[0], c[1])).items():
            for a, b in itertools.combinations(same, 2):
                add("judge vs judge", a, b)
        for col, same in _by(llm, lambda c: _column(c, setting)).items():
            if col is None:
                continue
            means = [(float(cells[c][1].mean()) if len(cells[c][1]) else -np.inf) for c in same]
            best = same[int(np.argmax(means))]
            for a in same:
                if a != best:
                    add("vs column best", a, best)
    frame = finish(rows)
    tags: dict[tuple, str] = defaultdict(str)
    for (family, group, a, b), distinct in zip(refs, frame["distinct"]):
        if distinct == "yes":
            continue
        benchmark, setting, difficulty, metric = group
        key = (benchmark, *a, setting, difficulty, metric)
        if family == "vs baseline" and b[0] == RANDOM:
            tags[key] = NOT_RANDOM_TAG + tags[key]
        elif family == "vs column best":
            tags[key] += NOT_BEST_TAG
    return frame, dict(tags)


def split_orders(cells: Cells) -> tuple[Cells, Cells]:
    """:func:`read_units`' cells without and with the two-order rows (derivation ``both_orders``)."""
    one: Cells = defaultdict(dict)
    both: Cells = defaultdict(dict)
    for group, got in cells.items():
        for cell, arrays in got.items():
            (both if cell[3] == CONSISTENCY_DERIVATION else one)[group][cell] = arrays
    return dict(one), dict(both)


def compare_consistency(cells: Cells, spec: IntervalSpec) -> pd.DataFrame:
    """The ``position consistency`` family (module docstring) of the two-order cells of :func:`split_orders`."""
    rows: list[dict] = []
    for group, got in cells.items():
        benchmark, setting, difficulty, metric = group
        if metric not in CONSISTENCY_METRICS:
            continue
        what = f"{benchmark} {setting} {metric}"
        unit = "pairs" if setting == "pairs" else "lists"

        def add(a: tuple, b: tuple) -> None:
            (xc, x), (yc, y) = got[a], got[b]
            if np.array_equal(xc, yc):
                rows.append(comparison_row(CONSISTENCY_FAMILY, what, _label(a), _label(b), unit, x, y, spec,
                                           scale=100.0))

        llm = sorted(got)
        for a in llm:
            if a[1] == "w_text" and (a[0], "wo_text", *a[2:]) in got:
                add(a, (a[0], "wo_text", *a[2:]))
        for _, same in _by(llm, lambda c: (c[1], c[2], split_model(c[0])[1])).items():
            for a, b in itertools.combinations(same, 2):
                add(a, b)
        for _, same in _by(llm, lambda c: (c[0], c[1])).items():
            for a, b in itertools.combinations(same, 2):
                add(a, b)
    return finish(rows)


def _by(cells: Sequence[tuple], key) -> dict:
    out: dict = defaultdict(list)
    for c in cells:
        out[key(c)].append(c)
    return out


def tag_column(metrics: pd.DataFrame, tags: Mapping[tuple, str]) -> list[str]:
    """Each metric row's tags (``""`` for none), for the tables (column ``tag``)."""
    cols = ("benchmark", "model", "context", "judge", "derivation", "setting", "difficulty", "metric")
    keys = metrics[list(cols)].astype(str).itertuples(index=False, name=None)
    return [tags.get(k, "") for k in keys]
