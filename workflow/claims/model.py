"""The claims of a paper as data: :class:`Claims` (one file) of :class:`Claim`
(quote, where, :class:`Scope`, :class:`Test`, units, quantifier, reading).
Built by :func:`authbench.claims.load.load_claims`; docs/claims.md describes
every field."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator, Mapping

QUANTIFIERS = ("every", "most", "almost_all", "average")
ALMOST_ALL = Fraction(9, 10)  # the share of cases "almost all" asks for (docs/claims.md), exact
UNITS = ("lists", "pairs", "questions", "items")
# how a claim's "significant(ly)" is read on the published tables (published.py)
SIGNIFICANCE = ("required", "absence", "not_printed")
# the kinds whose case is one printed number against a constant: the paper's
# significance mark on that number tests the case's own contrast, so only they
# can read marks (significance required / absence)
MARKED_KINDS = ("rate_vs_50", "bias_sign")
# the ties rule a test has when the claim does not say: a difference must be
# strict; a tie at a column's extreme still counts for the picked value
DEFAULT_TIES = {"difference": "fail", "best_in_column": "hold", "closer_to_50": "fail"}


@dataclass(frozen=True)
class Where:
    """Where the quote is: the section's name and the 1-based line of the paper's .txt."""

    section: str
    line: int


@dataclass(frozen=True)
class Scope:
    """The published rows a claim reads: part name -> allowed values (tuples;
    ``table`` values are ints). Without ``model`` the paper's models are in
    scope, not its ``Average`` rows nor the model-less corpus rows."""

    selector: Mapping[str, tuple]

    @property
    def tables(self) -> tuple[int, ...]:
        return tuple(self.selector["table"])


@dataclass(frozen=True)
class Test:
    """A claim's test: the ``kind`` (:data:`authbench.claims.kinds.KINDS`) and
    its fields; unused fields are None. ``pairing``: whether a run's two
    sides are compared over the units both share (``paired``) or as two
    independent samples (``unpaired``). ``significance``: how the claim's
    "significant(ly)" reads the paper's significance marks on the published
    tables (:data:`SIGNIFICANCE`; None when the claim does not say
    significant); it does not change a run's test. ``threshold``: how far a
    difference must go in its direction ("substantially"); ``skip_self``: a
    difference's b side that is the a row itself is left out (else an
    error); ``all_best``: a best-in-column claim needs every picked value
    above every other one."""

    kind: str
    direction: str
    a: Mapping[str, Any] | None = None
    b: Mapping[str, Any] | None = None
    tolerance: float | None = None
    order: tuple[str, ...] | None = None
    strict: bool | None = None
    over: str | None = None
    best: tuple[str, ...] | None = None
    ties: str | None = None
    pairing: str = "paired"
    significance: str | None = None
    threshold: float | None = None
    skip_self: bool = False
    all_best: bool = False

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments of the kind's function."""
        names = {"difference": ("a", "b", "direction", "ties", "threshold", "skip_self"),
                 "rate_vs_50": ("direction", "tolerance"),
                 "monotone_size": ("order", "direction", "strict"), "bias_sign": ("direction", "tolerance"),
                 "best_in_column": ("over", "best", "direction", "ties", "all_best"),
                 "closer_to_50": ("a", "b", "direction", "ties", "skip_self")}[self.kind]
        return {n: getattr(self, n) for n in names}


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, tested on its published tables and on a run.
    ``quantified``: the parts the claim ranges over ("all LLMs", every
    context, setting or dataset), which on a run range over the run's own
    values; every other part is fixed (:mod:`authbench.claims.places`).
    ``column``: metric -> the unit column a run's numbers of that metric are
    read in (e.g. ``self_preference: same_factuality``; a metric not named:
    the number's own units). ``unpublished``: why the published tables cannot
    test the claim (no table prints its numbers, e.g. cost): it is tested on
    a run only, its scope's rows giving the cases' structure."""

    def column_of(self, metric: str) -> str | None:
        """The unit column of ``metric``'s numbers (None: their own units)."""
        return self.column.get(metric)

    id: str
    paper: str
    title: str
    quote: str
    where: Where
    scope: Scope
    test: Test
    units: Mapping[int, str]
    quantifier: str
    wording: str
    reading: str
    quantified: tuple[str, ...] = ()
    column: Mapping[str, str] = field(default_factory=dict)
    unpublished: str | None = None

    def unit(self, table: int) -> str:
        """What one unit of ``table`` is (lists, pairs, questions, items)."""
        return self.units[int(table)]


@dataclass(frozen=True)
class Claims:
    """The claims of one paper, in file order; ``claims["AB-03"]`` by id."""

    paper: str
    title: str
    source: str
    path: Path
    claims: tuple[Claim, ...] = field(default_factory=tuple)

    def __iter__(self) -> Iterator[Claim]:
        return iter(self.claims)

    def __len__(self) -> int:
        return len(self.claims)

    def __getitem__(self, claim_id: str) -> Claim:
        for claim in self.claims:
            if claim.id == claim_id:
                return claim
        raise KeyError(f"{self.path}: no claim {claim_id!r}; the claims are {', '.join(c.id for c in self)}")
