"""A claim on a run's own units: :func:`run_verdict`.

The run gives, per published key (table, metric and the paper's parts; a
model keyed by its ``paper_name`` where it has one, else by its own name), a
:class:`PlaceUnits`: the unit ids of that number and one value per unit (a
list's ρ, a pair's 0/1 correct, a question's score ...), with
the ``scale`` that puts their mean in the paper's unit and, where a unit
pools several observations, their ``weights``.

The claim's cases are the places it names among the run's own numbers
(:mod:`authbench.claims.places`): its quantified parts range over what the
run has, its fixed parts keep the paper's values (a fixed model needs a
model of the run with that ``paper_name``). The cases the run lacks are
listed with their reason; the others are tested, each contrast on its units
(:mod:`authbench.claims.inference`: the pipeline's one test per kind of
contrast), and the p of every contrast of the claim are Holm-adjusted
together (:func:`authbench.stats.holm`).

A contrast is *supported* when its margin is in the claimed direction and
its adjusted p < ``alpha``, *contradicted* when the margin is the other way
and adjusted p < ``alpha``, *undecided* otherwise (too few units, or not
distinguishable). A case is supported when all its contrasts are,
contradicted when one is, undecided otherwise. The claim, over the n cases
it names (those the run lacks included), reads the quantifier with the same
words as on the published tables:

* ``every``: supported when every case is; contradicted when one case is;
* ``most``: supported when more than n/2 cases are; contradicted when
  n/2 or more cases are (the rest can no longer make a majority);
* ``almost_all``: supported when at least 90% of the cases are;
  contradicted when more than 10% are (90% is out of reach);
* ``average``: the mean of the tested cases' margins, its draws averaged
  over the cases: supported / contradicted when it is distinguishable from
  0 in / against the claimed direction;
* otherwise *supported on k of n cells* (its words; k of n cases) when k cases are supported (a class
  of its own, never counted as supported), else undecided; *not applicable
  to this run* when no case can be tested (a fixed paper model, a context,
  a unit column the run lacks), with what it needs.

A case whose numbers the judge-validity diagnostics flag (a judge that
answers by position, a near-constant one) carries the flag, and so does a
verdict resting on it. An undecided case gets a power line
(:mod:`authbench.claims.power`). ties (``ties: hold``, ``strict: false``)
only say how the paper's printed equal numbers count: on a run's units
"maintains" is not something a test can show, so such a case is at best
undecided, never contradicted by a difference that is not distinguishable.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from authbench import papers as published_numbers
from authbench.claims.cases import claim_cases, scope_rows
from authbench.claims.places import fixed_models, missing_reason, ranging_parts, run_rows
from authbench.claims.inference import UNPAIRED, Inference, Sample, infer
from authbench.claims.keys import Key, Row, canonical, rows_from_frame
from authbench.claims.kinds import CaseResult, KindError
from authbench.claims.model import Claim
from authbench.claims.power import power_line, printed_sd
from authbench.errors import ConfigError, InputError, excerpt
from authbench.stats import IntervalSpec, holm, wald_p

SUPPORTED, CONTRADICTED, UNDECIDED = "supported", "contradicted", "undecided"
PARTLY, NOT_APPLICABLE, MISSING = "supported on part", "not applicable", "missing"
RUN_CLASSES = (SUPPORTED, PARTLY, CONTRADICTED, UNDECIDED, NOT_APPLICABLE)
RUN_WORDS = {SUPPORTED: "supported", PARTLY: "supported on k of n cells", CONTRADICTED: "contradicted",
             UNDECIDED: "undecided", NOT_APPLICABLE: "not applicable to this run"}


@dataclass(frozen=True)
class PlaceUnits:
    """The units behind one number of a run in a published place (a key):
    ``units`` (ids, unique), ``values`` (one per unit,
    finite), ``scale`` (the factor that puts the mean of ``values`` in the
    paper's unit: 100 for 0/1 or fraction values of a percentage) and
    ``weights`` (None: each unit is one observation; else how many
    observations each unit's value is the mean of, e.g. a question's
    comparisons: the case's number is then the pooled mean)."""

    units: Sequence[Any]
    values: Sequence[float]
    scale: float = 1.0
    weights: Sequence[float] | None = None

    def __post_init__(self) -> None:
        units, values = tuple(self.units), np.asarray(list(self.values), dtype=float)
        if len(units) != len(values):
            raise InputError(f"PlaceUnits: {len(units)} unit ids but {len(values)} values; expected one value per unit")
        if len(set(units)) != len(units):
            seen: set = set()
            twice = next(u for u in units if u in seen or seen.add(u))
            raise InputError(f"PlaceUnits: unit {excerpt(twice)} occurs twice; expected unique unit ids")
        if not np.isfinite(values).all():
            raise InputError(f"PlaceUnits: value {values[~np.isfinite(values)][0]!r} is not a finite number")
        if not (isinstance(self.scale, (int, float)) and math.isfinite(self.scale) and self.scale > 0):
            raise InputError(f"PlaceUnits: scale {self.scale!r}; expected a positive number")
        object.__setattr__(self, "units", units)
        object.__setattr__(self, "values", tuple(values.tolist()))
        if self.weights is not None:
            w = np.asarray(list(self.weights), dtype=float)
            if len(w) != len(values) or not (np.isfinite(w) & (w > 0)).all():
                raise InputError(f"PlaceUnits: {len(w)} weights for {len(values)} units; expected one positive "
                                 "finite weight per unit")
            object.__setattr__(self, "weights", tuple(w.tolist()))

    @property
    def value(self) -> float:
        """The case's number in the paper's unit: scale × the (weighted) mean over units (NaN without units)."""
        if not self.values:
            return math.nan
        if self.weights is None:
            return self.scale * float(np.mean(self.values))
        return self.scale * float(np.dot(self.values, self.weights) / np.sum(self.weights))

    def sample(self) -> Sample:
        weights = None if self.weights is None else np.asarray(self.weights, dtype=float)
        return Sample(self.units, np.asarray(self.values, dtype=float), weights, float(self.scale))


@dataclass(frozen=True)
class ContrastTest:
    """One contrast of a case on the run: ``a`` against ``b`` (None: against
    ``reference``); ``test`` (paired bootstrap, McNemar exact, unpaired or
    one-sample bootstrap), ``n_units`` tested (shared units when paired),
    ``dropped`` (units on one side only), ``effect`` a − b (or a − reference)
    in the paper's unit with its interval ``lo``–``hi``, ``margin`` in the
    claimed direction, ``p``, the Holm-adjusted ``p_holm``, the ``status``,
    ``sd`` the per-unit spread and ``why`` the reason a blank interval or p
    is blank."""

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
    sd: float = math.nan
    why: str = ""


@dataclass(frozen=True)
class RunCase:
    """A claim's case on the run: its label and parts, its rows' keys, the
    ``status`` (supported / contradicted / undecided, or missing: the run
    lacks one of its numbers, ``missing`` and ``reason`` say which and why),
    every contrast's test, the judge-validity ``flags`` of its numbers and,
    undecided, its ``power`` line."""

    parts: tuple
    label: str
    rows: tuple[Key, ...]
    status: str
    missing: tuple[Key, ...] = ()
    reason: str = ""
    contrasts: tuple[ContrastTest, ...] = ()
    flags: tuple[str, ...] = ()
    power: str = ""


@dataclass(frozen=True)
class RunVerdict:
    """A claim's verdict on a run (module docstring): its class
    (:data:`RUN_CLASSES`), counts over the ``n`` cases it names (``missing``:
    those the run lacks), ``mean_margin`` with ``mean_p`` (the ``average``
    reading), ``needs`` (not applicable: what the claim needs), the
    ``flags`` of the tested cases, the resamples used and every case."""

    claim: Claim
    verdict: str
    n: int
    supported: int
    contradicted: int
    undecided: int
    missing: int
    mean_margin: float
    mean_p: float
    alpha: float
    resamples: int
    cases: tuple[RunCase, ...] = field(repr=False, default=())
    needs: str = ""
    flags: tuple[str, ...] = ()

    @property
    def tested(self) -> int:
        return self.n - self.missing

    @property
    def summary(self) -> str:
        """``supported (8 of 8 cells)``, ``supported on 3 of 8 cells``, ``not
        applicable to this run: needs ...``, with the flags it rests on."""
        if self.verdict == NOT_APPLICABLE:
            return f"{RUN_WORDS[NOT_APPLICABLE]}: {self.needs}"
        counts = (f"{self.supported} supported, {self.contradicted} contradicted, {self.undecided} undecided"
                  + (f", {self.missing} not in this run" if self.missing else "") + f" of {self.n} cells")
        if self.verdict == PARTLY:
            k = self.supported if self.claim.quantifier != "average" else self.tested
            head = f"supported on {k} of {self.n} cells ({counts})"
        else:
            head = f"{self.verdict} ({counts})"
        return head + (f"; rests on flagged cells: {'; '.join(self.flags)}" if self.flags else "")


@functools.lru_cache(maxsize=None)
def _published_rows(paper: str) -> tuple[Row, ...]:
    return tuple(rows_from_frame(published_numbers.load(paper)))


def _units(places: Mapping[tuple, PlaceUnits]) -> dict[Key, PlaceUnits]:
    out = {}
    for key, units in places.items():
        try:
            canon = canonical(key)
        except (TypeError, ValueError):
            raise InputError(f"run cells: key {excerpt(repr(key))}; expected a published key, e.g. "
                             "authbench.claims.place_key(1, 'rho', model=...)") from None
        if not isinstance(units, PlaceUnits):
            raise InputError(f"run cells: {canon}: {type(units).__name__}; expected a PlaceUnits")
        out[canon] = units
    return out


def _status(margin: float, p: float, alpha: float) -> str:
    if math.isfinite(p) and p < alpha and math.isfinite(margin) and margin != 0:
        return SUPPORTED if margin > 0 else CONTRADICTED
    return UNDECIDED


def _combine(statuses: Sequence[str]) -> str:
    if statuses and all(s == SUPPORTED for s in statuses):
        return SUPPORTED
    return CONTRADICTED if CONTRADICTED in statuses else UNDECIDED


def _quantify(quantifier: str, n: int, statuses: Sequence[str], mean_margin: float, mean_p: float,
              alpha: float) -> str:
    """The claim's class over its ``n`` named cases, ``statuses`` those of the tested ones (module docstring)."""
    sup, con = statuses.count(SUPPORTED), statuses.count(CONTRADICTED)
    if quantifier == "every":
        decided = SUPPORTED if sup == n else CONTRADICTED if con else None
    elif quantifier == "most":
        decided = SUPPORTED if 2 * sup > n else CONTRADICTED if 2 * (n - con) <= n else None
    elif quantifier == "almost_all":  # >= 90% supported; contradicted once more than 10% are (90% out of reach)
        decided = SUPPORTED if 10 * sup >= 9 * n else CONTRADICTED if 10 * con > n else None
    else:
        decided = _status(mean_margin, mean_p, alpha)
        if decided == SUPPORTED and len(statuses) < n:
            return PARTLY
        return decided
    if decided is not None:
        return decided
    return PARTLY if sup else UNDECIDED


def _mean_margin(cases: Sequence[tuple[CaseResult, list[Inference]]]) -> tuple[float, float]:
    """The mean of the cases' margins and the Wald p of its draws (each case's
    draws: the smallest of its contrasts' resampled margins)."""
    margins = [min(i.margin for i in inf) for _, inf in cases]
    mean = float(np.mean(margins)) if margins else math.nan
    if not cases or any(not i.draws.size for _, inf in cases for i in inf):
        return mean, math.nan
    draws = np.mean([np.min([i.draws for i in inf], axis=0) for _, inf in cases], axis=0)
    return mean, wald_p(mean, draws)


def _infer_case(claim: Claim, case: CaseResult, units: Mapping[Key, PlaceUnits], spec: IntervalSpec
                ) -> list[Inference]:
    """The test of each contrast of one case whose numbers the run has."""
    out = []
    for c in case.contrasts:
        pairs = claim.unit(c.a.table) == "pairs"
        sides = [(c.a, units[c.a].sample())] + ([] if c.b is None else [(c.b, units[c.b].sample())])
        for key, side in sides:
            if pairs and not np.isin(side.raw, (0.0, 1.0)).all():
                raise InputError(f"run cells: {key}: claim {claim.id} reads table {key.table} as pairs; "
                                 f"expected 0/1 values (correct or not) per pair")
        b = sides[1][1] if len(sides) == 2 else None
        out.append(infer(c, sides[0][1], b, pairs, claim.test.pairing == "paired", spec))
    return out


def _blank_why(inf: Inference, min_units: int) -> str:
    if math.isfinite(inf.p):
        return ""
    if inf.n_units < max(min_units, 1):
        return f"{inf.n_units} units, below min_units {min_units}"
    return "no interval: the resampled effects are undefined"


def _not_applicable(claim: Claim, needs: str, alpha: float, resamples: int, cases=()) -> RunVerdict:
    return RunVerdict(claim, NOT_APPLICABLE, len(cases), 0, 0, 0, len(cases), math.nan, math.nan, alpha, resamples,
                      tuple(cases), needs)


def _needs(cases: Sequence[RunCase]) -> str:
    reasons = list(dict.fromkeys(c.reason for c in cases if c.reason))
    shown = "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else "")
    return f"none of its {len(cases)} cells is in this run ({shown})" if cases else "no cell"


def _excluded(claim: Claim, base: Sequence[Row]) -> dict[str, set[str]]:
    """Per quantified part the scope names: the paper's values of it (in the
    scope's tables) that the scope leaves out; a run's value among them is
    left out too (``other: [Human, ...]`` leaves out ``Aggregated``)."""
    out = {}
    for part in claim.quantified:
        if part in claim.scope.selector and part != "table":
            allowed = set(map(str, claim.scope.selector[part]))
            seen = {str(r.parts[part]) for r in base if r.key.table in claim.scope.tables and part in r.parts}
            out[part] = seen - allowed
    return out


def run_verdict(claim: Claim, places: Mapping[tuple, PlaceUnits], spec: IntervalSpec | None = None,
                alpha: float = 0.05, published: pd.DataFrame | None = None,
                flags: Mapping[tuple, Sequence[str]] | None = None, named: Iterable[str] = ()) -> RunVerdict:
    """The claim on a run's units (module docstring): ``places`` each place key
    (:func:`place_key`) -> its :class:`PlaceUnits`. ``spec``: resamples,
    seed and ``min_units`` (config ``intervals``; fewer units leave a
    contrast undecided); ``published``: the published numbers whose rows the
    claim reads (default: the paper's); ``flags``: key -> the judge-validity
    flags of that number; ``named``: the paper names the run's models have
    (a fixed model part needs one)."""
    if not 0 < alpha < 1:
        raise ConfigError(f"run_verdict: alpha {alpha!r}; expected a number between 0 and 1")
    base_spec = spec or IntervalSpec()
    spec = IntervalSpec(base_spec.resamples, base_spec.seed, 1 - alpha, base_spec.min_units)
    units, flags, named = _units(places), {canonical(k): tuple(v) for k, v in (flags or {}).items()}, set(named)
    if published is None:
        base = _published_rows(claim.paper)
    else:
        base = rows_from_frame(published[published["paper"] == claim.paper] if "paper" in published else published)
    in_scope = scope_rows(claim.scope, base)
    needed = fixed_models(claim, in_scope)
    present_models = {k.model for k in units} & named
    if needed and not set(needed) & present_models:
        return _not_applicable(claim, f"a model with paper_name {' or '.join(needed)} (no model of this run has one)",
                               alpha, spec.resamples)
    excluded = _excluded(claim, base)
    keys = [k for k in units if not any(str(k.parts().get(p)) in v for p, v in excluded.items())]
    rows = run_rows(claim, in_scope, keys)
    if not rows:
        what = ", ".join(p for p in ranging_parts(claim)) or "its tables"
        return _not_applicable(claim, f"numbers of table(s) {', '.join(map(str, claim.scope.tables))} "
                                      f"over {what}: none in this run", alpha, spec.resamples)
    try:
        structure = claim_cases(claim, [Row(k, units[k].value if k in units else math.nan) for k in rows], fill=True)
    except KindError as exc:
        return _not_applicable(claim, str(exc), alpha, spec.resamples)
    if not structure:
        absent = [t for t in claim.scope.tables if not any(k.table == t for k in units)]
        return _not_applicable(claim, "its cells need numbers of table(s) " + ", ".join(map(str, absent or
                               claim.scope.tables)) + " too, which this run's numbers here do not have",
                               alpha, spec.resamples)
    present = [i for i, c in enumerate(structure) if all(k in units for k in c.rows)]
    inferences = {i: _infer_case(claim, structure[i], units, spec) for i in present}
    adjusted = iter(holm([inf.p for i in present for inf in inferences[i]]))
    published_margin = _published_margins(claim, in_scope)
    sd_printed = {r.key: r.value for r in base if r.key.metric == "sd_score"}
    run_cases = []
    for i, case in enumerate(structure):
        if i not in inferences:
            missing = tuple(k for k in case.rows if k not in units)
            run_cases.append(RunCase(case.parts, case.label, case.rows, MISSING, missing,
                                     missing_reason(missing[0], units.keys(), named)))
            continue
        tests = []
        for c, inf in zip(case.contrasts, inferences[i]):
            p_holm = next(adjusted)
            tests.append(ContrastTest(c.a, c.b, c.reference if c.b is None else None, inf.test, inf.n_units,
                                      inf.dropped, inf.effect, inf.lo, inf.hi, inf.margin, inf.p, p_holm,
                                      _status(inf.margin, p_holm, alpha), inf.sd, _blank_why(inf, spec.min_units)))
        status = _combine([t.status for t in tests])
        case_flags = tuple(dict.fromkeys(f for k in case.rows for f in flags.get(k, ())))
        power = ""
        if status == UNDECIDED:
            effect = published_margin.get(case.label, published_margin.get("", math.nan))
            spreads = [(t.sd if t.n_units >= 2 and math.isfinite(t.sd) else printed_sd([t.a] + ([t.b] if t.b else []),
                                                                                      sd_printed),
                        "this run's units" if t.n_units >= 2 and math.isfinite(t.sd) else "the paper's printed sd",
                        t.test == UNPAIRED) for t in tests]
            power = power_line(effect, spreads, any(c.tolerance is not None for c in case.contrasts), alpha)
        run_cases.append(RunCase(case.parts, case.label, case.rows, status, (), "", tuple(tests), case_flags, power))
    tested = [c for c in run_cases if c.status != MISSING]
    if not tested:
        return _not_applicable(claim, _needs(run_cases), alpha, spec.resamples, run_cases)
    mean_margin, mean_p = _mean_margin([(structure[i], inferences[i]) for i in present])
    statuses = [c.status for c in tested]
    verdict = _quantify(claim.quantifier, len(run_cases), statuses, mean_margin, mean_p, alpha)
    flagged = {}
    for c in tested:
        for f in c.flags:
            flagged[f] = flagged.get(f, 0) + 1
    return RunVerdict(claim, verdict, len(run_cases), statuses.count(SUPPORTED), statuses.count(CONTRADICTED),
                      statuses.count(UNDECIDED), len(run_cases) - len(tested), mean_margin, mean_p, alpha,
                      spec.resamples, tuple(run_cases), "",
                      tuple(f"{f} ({n} of {len(tested)} cells)" for f, n in flagged.items()))


def _published_margins(claim: Claim, in_scope: Sequence[Row]) -> dict[str, float]:
    """The published margin of each case by label, and under ``""`` their
    mean: the effects an undecided case's power line aims at (none for a
    claim the published tables cannot test)."""
    if claim.unpublished:
        return {}
    try:
        cases = claim_cases(claim, in_scope)
    except KindError:
        return {}
    out = {c.label: c.margin for c in cases}
    out[""] = float(np.mean([c.margin for c in cases])) if cases else math.nan
    return out


def _blank(x: float) -> Any:
    return "" if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def cases_frame(verdict: RunVerdict) -> pd.DataFrame:
    """One row per contrast of a run verdict (a case the run lacks: one row
    with its missing numbers and the reason); an interval or p that cannot
    be computed is blank, its reason in ``why``."""
    rows = []
    for case in verdict.cases:
        base = {"claim": verdict.claim.id, "cell": case.label, "cell_status": case.status,
                "flags": "; ".join(case.flags), "power": case.power}
        if not case.contrasts:
            rows.append({**base, "units": "", "dropped": "", "missing": "; ".join(map(str, case.missing)),
                         "why": case.reason})
        for t in case.contrasts:
            rows.append({**base, "a": str(t.a), "b": "" if t.b is None else str(t.b),
                         "reference": _blank(t.reference), "test": t.test, "units": t.n_units,
                         "dropped": t.dropped, "effect": _blank(t.effect), "lo": _blank(t.lo), "hi": _blank(t.hi),
                         "margin": _blank(t.margin), "p": _blank(t.p), "p_holm": _blank(t.p_holm),
                         "status": t.status, "why": t.why})
    columns = ["claim", "cell", "cell_status", "a", "b", "reference", "test", "units", "dropped", "effect", "lo",
               "hi", "margin", "p", "p_holm", "status", "why", "flags", "power", "missing"]
    return pd.DataFrame(rows, columns=columns).astype(object).fillna("")
