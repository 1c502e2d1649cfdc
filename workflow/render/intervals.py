"""What every study's tables say of their intervals, through one helper: a
cell's interval in display units (:func:`shown_interval`), the caption's
sentence on how the intervals were made (:func:`interval_words`) and why a
shown value has none (:func:`blank_interval_words`, :func:`with_blank_note`,
:func:`has_blank_interval`).

The intervals themselves are a :class:`~authbench.render.tables.Column`'s
``interval`` getter's ``(lo, hi)``; the CSV always gets a ``<column> lo`` and
``<column> hi`` column after it, and Markdown and LaTeX show them by the mode
:func:`~authbench.render.table_writers.write_table` is given (config
``intervals.show``): ``inline`` (``26.11 [12.03, 40.20]``), ``columns`` (lo /
hi columns, as the CSV) or ``off``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from authbench.render.formatting import round2
from authbench.render.tables import TableSpec

__all__ = ["blank_interval_words", "has_blank_interval", "interval_words", "shown_interval", "with_blank_note"]


def shown_interval(lo: float, hi: float, scale: float = 1) -> tuple[float, float]:
    """A value cell's interval in display units (:func:`round2`; NaN: none)."""
    return round2(lo, scale), round2(hi, scale)


def interval_words(intervals: Any, units: str, show: str = "inline", clusters: bool = False) -> str:
    """The caption's sentence on a table's intervals (``intervals``: an
    :class:`~authbench.stats.IntervalSpec`; ``show``: config ``intervals.show``,
    ``off`` points at the CSV; ``clusters``: the ``units`` are resampled as
    clusters of several values each)."""
    where = "in the CSV (lo, hi)" if show == "off" else "[lo, hi]"
    how = f", {units} resampled as clusters" if clusters else f" over the {units}"
    return f" {where}: {intervals.level:.0%} percentile-bootstrap interval{how} ({intervals.resamples} resamples, seeded)."


def blank_interval_words(table: TableSpec, intervals: Any, units: str) -> str:
    """Why a shown value of ``table`` has no interval ("" when each has one)."""
    if not has_blank_interval(table):
        return ""
    return f" No interval: fewer than {intervals.min_units} {units} behind the value."


def with_blank_note(table: TableSpec, intervals: Any, units: str) -> TableSpec:
    """``table`` with :func:`blank_interval_words` at the end of its note."""
    table.note = (table.note + blank_interval_words(table, intervals, units)).strip()
    return table


def has_blank_interval(table: TableSpec) -> bool:
    """Whether a shown value of a column with intervals has none (too few
    units behind it): the caption must then say why."""
    shown = np.isfinite(table.values.to_numpy(dtype=float)) & np.asarray(table.with_interval, dtype=bool)[None, :]
    return bool((shown & (np.isnan(table.lo.to_numpy(dtype=float)) | np.isnan(table.hi.to_numpy(dtype=float)))).any())
