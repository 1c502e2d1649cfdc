"""A claim on a run's own units: :func:`run_verdict`.

The run gives, per cell key (the published keys: table, the model as the
paper names it, judge, context, setting, metric), a :class:`CellUnits`: the
unit ids of that cell and one value per unit (a list's ρ, a pair's 0/1
correct, a question's score ...), with the ``scale`` that puts their mean in
the paper's unit (100 for 0/1 values of a percentage). The claim's cells are
the published ones (:func:`authbench.claims.cells.claim_cells`), read with the
run's values; each cell's contrasts are tested on the units
(:mod:`authbench.claims.inference`: paired bootstrap for lists, questions and
items, McNemar exact for pairs, unpaired bootstrap for a claim with
``pairing: unpaired``, one-sample bootstrap against 50 or 0), and the p of
every contrast of the claim are Holm-adjusted together
(:func:`authbench.stats.holm`).

A contrast is *supported* when its margin is in the claimed direction and
its adjusted p < ``alpha``, *contradicted* when the margin is the other way
and adjusted p < ``alpha``, *undecided* otherwise (too few units, or not
distinguishable). A cell is supported when all its contrasts are,
contradicted when one is, undecided otherwise. The claim, over its n cells:

* ``every``: supported when every cell is; contradicted when a cell is;
* ``most``: supported when more than n/2 cells are; contradicted when
  n/2 or more cells are (the rest can no longer make a majority);
* ``average``: the mean of the cells' margins, its draws averaged over the
  cells: supported / contradicted when it is distinguishable from 0 in
  / against the claimed direction;
* otherwise undecided; and ``not run`` when some cell's numbers are missing
  from the run (``missing`` counts those cells; ``partial`` is the verdict
  the cells present would give).

ties (``ties: hold``, ``strict: false``) only say how the paper's printed
equal numbers count: on a run's units "maintains" is not something a test
can show, so such a cell is at best undecided, never contradicted by a
difference that is not distinguishable.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from authbench import published as published_numbers
from authbench.claims.cells import claim_cells
from authbench.claims.inference import Inference, Sample, infer, share_p
from authbench.claims.keys import Key, Row, canonical, rows_from_frame
from authbench.claims.kinds import CellResult
from authbench.claims.model import Claim
from authbench.errors import ConfigError, InputError, excerpt
from authbench.stats import holm

SUPPORTED, CONTRADICTED, UNDECIDED, NOT_RUN = "supported", "contradicted", "undecided", "not run"
MIN_RESAMPLES = 10_000


@dataclass(frozen=True)
class CellUnits:
    """One cell of a run: ``units`` (ids, unique), ``values`` (one per unit,
    finite) and ``scale`` (the factor that puts the mean of ``values`` in the
    paper's unit: 100 for 0/1 or fraction values of a percentage)."""

    units: Sequence[Any]
    values: Sequence[float]
    scale: float = 1.0

    def __post_init__(self) -> None:
        units, values = tuple(self.units), np.asarray(list(self.values), dtype=float)
        if len(units) != len(values):
            raise InputError(f"CellUnits: {len(units)} unit ids but {len(values)} values; expected one value per unit")
        if len(set(units)) != len(units):
            seen: set = set()
            twice = next(u for u in units if u in seen or seen.add(u))
            raise InputError(f"CellUnits: unit {excerpt(twice)} occurs twice; expected unique unit ids")
        if not np.isfinite(values).all():
            raise InputError(f"CellUnits: value {values[~np.isfinite(values)][0]!r} is not a finite number")
        if not (isinstance(self.scale, (int, float)) and math.isfinite(self.scale) and self.scale > 0):
            raise InputError(f"CellUnits: scale {self.scale!r}; expected a positive number")
        object.__setattr__(self, "units", units)
        object.__setattr__(self, "values", tuple(values.tolist()))

    @property
    def value(self) -> float:
        """The cell's number in the paper's unit: scale × the mean over units (NaN without units)."""
        return self.scale * float(np.mean(self.values)) if self.values else math.nan

    def sample(self) -> Sample:
        raw = np.asarray(self.values, dtype=float)
        return Sample(self.units, raw * self.scale, raw)


@dataclass(frozen=True)
class ContrastTest:
    """One contrast of a cell on the run: ``a`` against ``b`` (None: against
    ``reference``); ``test`` (paired bootstrap, McNemar exact, unpaired or
    one-sample bootstrap), ``n_units`` tested (shared units when paired),
    ``dropped`` (units on one side only), ``effect`` a − b (or a − reference)
    in the paper's unit with its interval ``lo``–``hi``, ``margin`` in the
    claimed direction, ``p``, the Holm-adjusted ``p_holm`` and the ``status``."""

    a: Key
    b: Key | None
    reference: float | None
    test: str
    n_units: int
    dropped: int
    effect: float
    lo: float
    hi: float
    margin: float
    p: float
    p_holm: float
    status: str


@dataclass(frozen=True)
class RunCell:
    """A claim cell on the run: its label and parts, the run's values of its
    rows, the point margin and whether that holds as the paper's cell would,
    the ``status`` (supported / contradicted / undecided / not run), the
    ``missing`` row keys and every contrast's test."""

    cell: tuple
    label: str
    rows: tuple[Key, ...]
    values: tuple[float, ...]
    margin: float
    holds: bool
    status: str
    missing: tuple[Key, ...] = ()
    contrasts: tuple[ContrastTest, ...] = ()


@dataclass(frozen=True)
class RunVerdict:
    """A claim's verdict on a run (module docstring): counts over its ``n``
    cells, ``missing`` cells, ``partial`` (the present cells' verdict when some
    are missing, else None), ``mean_margin`` with ``mean_p`` (the ``average``
    reading), the resamples used and every cell."""

    claim: Claim
    verdict: str
    n: int
    supported: int
    contradicted: int
    undecided: int
    missing: int
    partial: str | None
    mean_margin: float
    mean_p: float
    alpha: float
    resamples: int
    cells: tuple[RunCell, ...] = field(repr=False, default=())

    @property
    def summary(self) -> str:
        """``supported (40 of 40 cells)`` / ``not run (3 of 40 cells missing)``."""
        if self.verdict == NOT_RUN:
            return f"{NOT_RUN} ({self.missing} of {self.n} cells missing)"
        return (f"{self.verdict} ({self.supported} supported, {self.contradicted} contradicted, "
                f"{self.undecided} undecided of {self.n} cells)")


@functools.lru_cache(maxsize=None)
def _published_rows(paper: str) -> tuple[Row, ...]:
    return tuple(rows_from_frame(published_numbers.load(paper)))


def _units(cells: Mapping[tuple, CellUnits]) -> dict[Key, CellUnits]:
    out = {}
    for key, units in cells.items():
        try:
            canon = canonical(key)
        except (TypeError, ValueError):
            raise InputError(f"run cells: key {excerpt(repr(key))}; expected (table, model, judge, context, "
                             f"setting, metric), e.g. authbench.claims.cell_key(1, 'rho', model=...)") from None
        if not isinstance(units, CellUnits):
            raise InputError(f"run cells: {canon}: {type(units).__name__}; expected a CellUnits")
        out[canon] = units
    return out


def resamples_for(contrasts: int, alpha: float) -> int:
    """Resamples enough that a family of ``contrasts`` bootstrap p-values can
    reach Holm-adjusted p < ``alpha``: the smallest p is 2 / (R + 1), so R >=
    4·m/alpha puts the family's floor at alpha/2 (at least
    :data:`MIN_RESAMPLES`)."""
    return max(MIN_RESAMPLES, math.ceil(4 * contrasts / alpha))


def _status(margin: float, p: float, alpha: float) -> str:
    if math.isfinite(p) and p < alpha and math.isfinite(margin) and margin != 0:
        return SUPPORTED if margin > 0 else CONTRADICTED
    return UNDECIDED


def _combine(statuses: Sequence[str]) -> str:
    if statuses and all(s == SUPPORTED for s in statuses):
        return SUPPORTED
    return CONTRADICTED if CONTRADICTED in statuses else UNDECIDED


def _quantify(quantifier: str, statuses: Sequence[str], mean_margin: float, mean_p: float, alpha: float) -> str:
    n, sup, con = len(statuses), statuses.count(SUPPORTED), statuses.count(CONTRADICTED)
    if n == 0:
        return UNDECIDED
    if quantifier == "every":
        return SUPPORTED if sup == n else CONTRADICTED if con else UNDECIDED
    if quantifier == "most":
        return SUPPORTED if 2 * sup > n else CONTRADICTED if 2 * (n - con) <= n else UNDECIDED
    if quantifier == "almost_all":  # >= 90% supported; contradicted once more than 10% are (90% out of reach)
        return SUPPORTED if 10 * sup >= 9 * n else CONTRADICTED if 10 * con > n else UNDECIDED
    return _status(mean_margin, mean_p, alpha)


def _mean_margin(cells: Sequence[tuple[CellResult, list[Inference]]]) -> tuple[float, float]:
    """The mean of the cells' margins and the share p of its draws (each cell's
    draws: the smallest of its contrasts' resampled margins)."""
    margins = [c.margin for c, _ in cells]
    mean = float(np.mean(margins)) if margins else math.nan
    if not cells or any(not math.isfinite(i.p) for _, inf in cells for i in inf):
        return mean, math.nan
    draws = np.mean([np.min([i.draws for i in inf], axis=0) for _, inf in cells], axis=0)
    return mean, share_p(draws)


def _infer_cell(claim: Claim, cell: CellResult, units: Mapping[Key, CellUnits], resamples: int, alpha: float,
                seed: int, min_units: int) -> list[Inference]:
    """The test of each contrast of one cell whose numbers the run has."""
    out = []
    for j, c in enumerate(cell.contrasts):
        pairs = claim.unit(c.a.table) == "pairs"
        sides = [(c.a, units[c.a].sample())] + ([] if c.b is None else [(c.b, units[c.b].sample())])
        for key, side in sides:
            if pairs and not np.isin(side.raw, (0.0, 1.0)).all():
                raise InputError(f"run cells: {key}: claim {claim.id} reads table {key.table} as pairs; "
                                 f"expected 0/1 values (correct or not) per pair")
        b = sides[1][1] if len(sides) == 2 else None
        out.append(infer(c, sides[0][1], b, pairs, claim.test.pairing == "paired", resamples, alpha,
                         (seed, "claims", claim.id, cell.label, j), min_units))
    return out


def _check_resamples(claim: Claim, resamples: int | None, m: int, alpha: float) -> int:
    """The resamples to use for a family of ``m`` contrasts: :func:`resamples_for`
    when None; a :class:`ConfigError` when so few that no contrast could reach
    Holm-adjusted p < ``alpha``."""
    needed = resamples_for(m, alpha)
    if resamples is None:
        return needed
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ConfigError(f"run_verdict: resamples {resamples!r}; expected a positive int (or None)")
    if 2 * m / (resamples + 1) >= alpha:
        raise ConfigError(f"run_verdict: claim {claim.id}: {resamples} resamples for {m} contrasts: the smallest "
                          f"Holm-adjusted bootstrap p would be {2 * m / (resamples + 1):.3g} >= alpha {alpha}; "
                          f"expected at least {math.floor(2 * m / alpha)} (resamples=None takes {needed})")
    return resamples


def run_verdict(claim: Claim, cells: Mapping[tuple, CellUnits], alpha: float = 0.05, resamples: int | None = None,
                seed: int = 0, min_units: int = 5, published: pd.DataFrame | None = None) -> RunVerdict:
    """The claim on a run's units (module docstring). ``resamples`` None:
    :func:`resamples_for` the claim's contrasts; so few that no contrast could
    reach alpha is a :class:`ConfigError`. ``min_units``: fewer units (shared
    ones when paired) leave a contrast undecided. ``published``: the published
    numbers whose cells the claim reads (default: the paper's)."""
    if not 0 < alpha < 1:
        raise ConfigError(f"run_verdict: alpha {alpha!r}; expected a number between 0 and 1")
    units = _units(cells)
    if published is None:
        base = _published_rows(claim.paper)
    else:
        base = rows_from_frame(published[published["paper"] == claim.paper] if "paper" in published else published)
    # the published cells, read with the run's numbers (NaN where the run lacks one)
    structure = claim_cells(claim, [Row(r.key, units[r.key].value if r.key in units else math.nan) for r in base])
    present = [i for i, c in enumerate(structure) if all(k in units for k in c.rows)]
    resamples = _check_resamples(claim, resamples, sum(len(structure[i].contrasts) for i in present), alpha)
    inferences = {i: _infer_cell(claim, structure[i], units, resamples, alpha, seed, min_units) for i in present}
    adjusted = iter(holm([inf.p for i in present for inf in inferences[i]]))
    run_cells = []
    for i, cell in enumerate(structure):
        if i not in inferences:
            missing = tuple(k for k in cell.rows if k not in units)
            run_cells.append(RunCell(cell.cell, cell.label, cell.rows, cell.values, cell.margin, False, NOT_RUN,
                                     missing))
            continue
        tests = []
        for c, inf in zip(cell.contrasts, inferences[i]):
            p_holm = next(adjusted)
            tests.append(ContrastTest(c.a, c.b, c.reference if c.b is None else None, inf.test, inf.n_units,
                                      inf.dropped, inf.effect, inf.lo, inf.hi, inf.margin, inf.p, p_holm,
                                      _status(inf.margin, p_holm, alpha)))
        run_cells.append(RunCell(cell.cell, cell.label, cell.rows, cell.values, cell.margin, cell.holds,
                                 _combine([t.status for t in tests]), (), tuple(tests)))
    statuses = [c.status for c in run_cells if c.status != NOT_RUN]
    mean_margin, mean_p = _mean_margin([(structure[i], inferences[i]) for i in present])
    verdict = _quantify(claim.quantifier, statuses, mean_margin, mean_p, alpha)
    n_missing = len(run_cells) - len(statuses)
    partial = (verdict if statuses else None) if n_missing else None
    return RunVerdict(claim, NOT_RUN if n_missing else verdict, len(run_cells), statuses.count(SUPPORTED),
                      statuses.count(CONTRADICTED), statuses.count(UNDECIDED), n_missing, partial, mean_margin, mean_p,
                      alpha, resamples, tuple(run_cells))


def cells_frame(verdict: RunVerdict) -> pd.DataFrame:
    """One row per contrast of a run verdict (cells not run: one row each):
    the cell, the contrast, the test, units, effect with its interval, p,
    Holm-adjusted p and the statuses."""
    rows = []
    for cell in verdict.cells:
        base = {"claim": verdict.claim.id, "cell": cell.label, "cell_status": cell.status}
        if not cell.contrasts:
            rows.append({**base, "missing": "; ".join(map(str, cell.missing))})
        for t in cell.contrasts:
            rows.append({**base, "a": str(t.a), "b": "" if t.b is None else str(t.b),
                         "reference": "" if t.reference is None else t.reference, "test": t.test,
                         "units": t.n_units, "dropped": t.dropped, "effect": t.effect, "lo": t.lo, "hi": t.hi,
                         "margin": t.margin, "p": t.p, "p_holm": t.p_holm, "status": t.status})
    return pd.DataFrame(rows)
