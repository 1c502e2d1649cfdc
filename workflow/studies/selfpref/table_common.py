"""What the self-preference tables share (the tables themselves:
:mod:`~authbench.studies.selfpref.passage_tables` Table 1 and the perplexity
tests, :mod:`~authbench.studies.selfpref.score_tables` Tables 2 and 6-9,
:mod:`~authbench.studies.selfpref.preference_tables` Tables 3-5 and the
knowledge breakdown): the report's intervals (:class:`Intervals`), the text of
a cell (:func:`number_text`, :func:`signed_text`, :func:`pm_text`,
:func:`pct_cell`, :func:`count_cell`) and the prompt settings' labels.

Each table is a :class:`~authbench.render.tables.TableSpec` built from the
checked input rows (:mod:`authbench.studies.selfpref.rows`) with the shared
tests of :mod:`authbench.stats` (the configured t-test of
``selfpref.significance``, :class:`~authbench.stats.Significance`: paired per
question by default, or Welch; ``†`` for p < 0.05; the one-way ANOVA and
Tukey HSD).

* **Empty input** never fails: a table without rows gets one placeholder row
  of ``–``, so every declared file exists.
* **Rendering**: the tables are built with
  :func:`authbench.render.tables.build_table`; the ``TableSpec``'s ``values``
  hold the primary number of each cell (mean, difference or rate, rounded as
  shown) and ``cells`` the displayed text with ``±`` and ``†``; every column
  is of kind :data:`authbench.render.formatting.TEXT`, so
  :func:`authbench.render.table_writers.write_table` writes ``.csv`` (the cell
  text; missing empty, ASCII minus), ``.md`` and ``.tex`` from the text cells
  (``marks`` "best" bold), like every other table.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from authbench.render.formatting import MISSING, round_half_up
from authbench.render.intervals import interval_words, shown_interval, with_blank_note
from authbench.render.tables import TableSpec
from authbench.stats import IntervalSpec, difference_interval, groups_interval, mean_interval

PROMPT_LABELS = {"normal": "Normal Setting", "rag": "RAG Setting"}
PM = "±"
NAN2 = (math.nan, math.nan)


# --------------------------------------------------------------------------
# intervals
# --------------------------------------------------------------------------
class Intervals:
    """The 95% intervals of a report's tables, from the per-unit records
    (:func:`authbench.studies.selfpref.rows.unit_frames`, read back from the
    report's parquet files), questions resampled as clusters; ``tags``:
    Table 3's ``°`` (a rate not distinguishable from 50%), keyed
    ``(evaluator, other author, metric)``. A builder given none shows no
    intervals."""

    def __init__(self, units, spec: IntervalSpec, tags=None):
        self.units, self.spec, self.tags = units, spec, dict(tags or {})

    def _sub(self, name: str, where: Mapping, col: str):
        df = self.units[name]
        for c, v in where.items():
            df = df[df[c] == v]
        return df[df[col].notna()]

    def mean(self, name: str, where: Mapping, col: str, scale: float = 1.0) -> tuple[float, float]:
        sub = self._sub(name, where, col)
        lo, hi = mean_interval(sub[col].to_numpy(dtype=float), self.spec, (name, col, *where.items()),
                               clusters=sub["qid"].tolist())
        return shown_interval(lo, hi, scale)

    def average(self, name: str, wheres: Sequence[Mapping], col: str, scale: float = 1.0,
                weights: Sequence[float] | None = None) -> tuple[float, float]:
        """Of the (weighted) mean of the groups' means (groups without units left out)."""
        subs = [(self._sub(name, w, col), x) for w, x in zip(wheres, weights or [1.0] * len(wheres))]
        subs = [(sub, x) for sub, x in subs if len(sub)]
        if not subs:
            return NAN2
        lo, hi = groups_interval([(sub[col].to_numpy(dtype=float), sub["qid"].tolist()) for sub, _ in subs],
                                 self.spec, (name, col, "average", *(tuple(w.items()) for w in wheres)),
                                 [x for _, x in subs])
        return shown_interval(lo, hi, scale)

    def difference(self, name: str, a: Mapping, b: Mapping, col: str) -> tuple[float, float]:
        sa, sb = self._sub(name, a, col), self._sub(name, b, col)
        lo, hi = difference_interval((sa[col].to_numpy(dtype=float), sa["qid"].tolist()),
                                     (sb[col].to_numpy(dtype=float), sb["qid"].tolist()), self.spec,
                                     (name, col, "difference", *a.items(), "vs", *b.items()))
        return shown_interval(lo, hi)

    def words(self, unit: str = "questions") -> str:
        return interval_words(self.spec, unit, clusters=True)


def finished(table: TableSpec, iv: Intervals | None) -> TableSpec:
    """The blank-interval sentence of the caption's note (fewer than ``min_units`` questions)."""
    return table if iv is None else with_blank_note(table, iv.spec, "questions")


def if_intervals(iv: Intervals | None, get):
    """A column's interval (or tag) getter (none without intervals)."""
    return None if iv is None else get


# --------------------------------------------------------------------------
# cell text
# --------------------------------------------------------------------------
def number_text(x: float, nd: int) -> str:
    """Plain (md) text of a number: ``–`` when missing, en dash as minus (as
    :func:`authbench.render.formatting.format_entry`)."""
    if x is None or not math.isfinite(x):
        return MISSING
    r = round_half_up(x, nd)
    text = f"{abs(r):.{nd}f}"
    return f"{MISSING}{text}" if r < 0 else text


def signed_text(x: float, nd: int = 2) -> str:
    """:func:`number_text` with an explicit ``+`` on a positive number."""
    if x is None or not math.isfinite(x):
        return MISSING
    r = round_half_up(x, nd)
    text = f"{abs(r):.{nd}f}"
    return f"+{text}" if r > 0 else f"{MISSING}{text}" if r < 0 else text


def pm_text(mean: float, std: float, nd: int = 2) -> str:
    """``mean±std`` (the mean alone without a std; ``–`` without a mean)."""
    if not math.isfinite(mean):
        return MISSING
    if not math.isfinite(std):
        return number_text(mean, nd)
    return f"{number_text(mean, nd)}{PM}{number_text(std, nd)}"


def pct_cell(v: float) -> tuple[float, str]:
    """A rate's cell (value, text) with one decimal."""
    r = round_half_up(v, 1)
    return r, number_text(r, 1)


def count_cell(n: int) -> tuple[float, str]:
    """A count's cell (value, text)."""
    return float(n), str(int(n))
