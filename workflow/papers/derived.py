"""The published numbers that other published numbers of their paper
determine (:func:`derived_numbers`: a Diff that is its means' difference, an
Average over its rows, a number printed twice, a share of a count), printed
against recomputed within the printed rounding (``resources/published/README.md``,
"Recomputed numbers"). A paper declares its relations by naming a module
(:attr:`authbench.papers.Paper.derived`) that defines ``relations(d)`` (it
adds its rows to a :class:`Derivations`), ``SHARE_OF`` (table -> (n, why):
its percentages that are shares of n) and ``TAKEN`` (relation -> (tables,
why): which printing of a number printed twice a claim takes); the shipped
papers' modules are in their studies' folders."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pandas as pd
from authbench.errors import InputError
from authbench.papers.published import KEY, as_columns, load_text

__all__ = ["DERIVED", "DERIVED_COLUMNS", "Derivations", "GRANULAR", "REPEATED", "derived_numbers", "fits_share",
           "half_unit", "nearest_share", "printing_taken", "relations_of", "share_of", "with_parts"]

# Numbers that other published numbers determine (resources/published/README.md, "Recomputed numbers").
DERIVED_COLUMNS = KEY + ("printed", "recomputed", "tolerance", "agrees", "kind", "relation", "rule", "from")
DERIVED = "derived"  # a caption or the paper's definitions make the number a function of other printed numbers
REPEATED = "repeated"  # the same number printed in two places: each is checked against the other
GRANULAR = "granular"  # a share of n: some integer k must give 100 k / n at the printed digits
SLACK = 1e-9  # float noise on top of the rounding allowance


def half_unit(text: str) -> float:
    """Half a unit of the last digit printed in ``text`` (``"3.28"`` -> 0.005,
    ``"0.5"`` -> 0.05, ``"17"`` -> 0.5): how far the unrounded number can lie
    from the printed one."""
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals


def _quantum(text: str):
    from decimal import Decimal

    return Decimal(1).scaleb(-(len(text.split(".", 1)[1]) if "." in text else 0))


def fits_share(text: str, n: int) -> bool:
    """Whether some integer k in 0..n gives 100 k / n rounded (half up) to the
    digits printed in ``text`` (``"71.67"`` fits n = 120: 86/120 = 71.666...;
    ``"71.76"`` does not). Exact, in decimals."""
    from decimal import ROUND_HALF_UP, Decimal

    if int(n) < 1:
        raise ValueError(f"fits_share: n {n!r}; expected a positive count")
    printed, q = Decimal(text), _quantum(text)
    k = int((printed * n / 100).to_integral_value())
    return any(0 <= j <= n and (Decimal(100 * j) / Decimal(n)).quantize(q, rounding=ROUND_HALF_UP) == printed
               for j in (k - 1, k, k + 1))


def nearest_share(value: float, n: int) -> tuple[int, float]:
    """The integer k whose share 100 k / n is nearest ``value``, and that share."""
    k = min(max(round(value * n / 100), 0), n)
    return k, 100.0 * k / n


def relations_of(paper: str) -> ModuleType | None:
    """The relations module ``paper`` names (:attr:`authbench.papers.Paper.derived`); None: it names none."""
    from authbench.papers.registry import paper_of

    spec = paper_of(paper).derived
    if not spec:
        return None
    try:
        return importlib.import_module(spec)
    except ImportError as exc:
        raise InputError(f"paper {paper!r}: its derived module {spec!r} does not import ({exc}); expected a module "
                         "with relations(d), SHARE_OF and TAKEN (authbench.papers.derived)") from exc


def share_of(paper: str, table: int) -> tuple[int, str]:
    """The count n whose shares ``paper``'s ``table`` prints, and where n comes from (its module's ``SHARE_OF``)."""
    shares = getattr(relations_of(paper), "SHARE_OF", {})
    if int(table) not in shares:
        raise ValueError(f"share_of: paper {paper!r} table {table} prints no shares of a count; its tables that do: "
                         f"{', '.join(map(str, shares)) or 'none'}")
    return shares[int(table)]


def printing_taken(relation: str, key: tuple) -> tuple[bool, str]:
    """For a number printed twice (``relation`` a :data:`REPEATED` one of the
    paper ``key[0]``, ``key`` one printing's key, :data:`KEY` order): whether
    a claim's recomputed verdict takes this printing, and why (the paper's
    module's ``TAKEN``)."""
    taken = getattr(relations_of(key[0]), "TAKEN", {})
    if relation not in taken:
        raise ValueError(f"printing_taken: {relation!r} is not a relation of numbers printed twice; "
                         f"expected one of {', '.join(taken)}")
    tables, why = taken[relation]
    return int(key[1]) in tables, why


def with_parts(key, **changes):
    """``key`` with some parts changed (``table`` and ``metric`` too; ``""``: the part dropped)."""
    from authbench.claims.keys import from_parts

    return from_parts({**key.parts(), **changes})


class Derivations:
    """The rows of :func:`derived_numbers`, built one relation at a time, on
    the published keys (:class:`authbench.claims.Key`: each paper's own
    parts); a row names its number in the 11-column layout (:data:`KEY`,
    :func:`~authbench.papers.published.as_columns`)."""

    def __init__(self, frame: pd.DataFrame, folder: Path) -> None:
        from authbench.claims.keys import rows_from_frame

        self.folder = folder
        self.paper = ""  # the paper whose relations run (derived_numbers sets it)
        self.rows: list[dict] = []
        published = rows_from_frame(frame)
        self.keys = [(p, r.key) for p, r in zip(frame["paper"], published)]
        self.parts = {k: r.parts for k, r in zip(self.keys, published)}  # read by every select
        shown = as_columns(frame)[list(KEY)].itertuples(index=False, name=None)
        self.shown = dict(zip(self.keys, shown))  # (paper, key) -> its key columns
        self.text = dict(zip(self.keys, frame["value"]))  # the printed text

    def select(self, table: int, **parts: str) -> list:
        """The keys of the paper's ``table`` whose parts equal ``parts`` (``metric`` too)."""
        return [k for p, k in self.keys if p == self.paper and k.table == table
                and all(self.parts[(p, k)].get(name, "") == want for name, want in parts.items())]

    def _printed(self, key, relation: str) -> str:
        if (self.paper, key) not in self.text:
            raise InputError(f"{self.folder}: the number {self.paper} {key} is missing; "
                             f"expected it for the relation {relation!r} (resources/published/README.md)")
        return self.text[(self.paper, key)]

    def add(self, key, terms: list[tuple[float, object]], kind: str, relation: str, rule: str,
            constant: float = 0.0) -> None:
        """``key``'s printed number against ``constant + sum(coefficient * term)``, within the
        rounding allowance of :func:`derived_numbers`."""
        printed = self._printed(key, relation)
        values = [(c, self._printed(k, relation)) for c, k in terms]
        recomputed = constant + sum(c * float(v) for c, v in values)
        if kind == REPEATED:  # one number rounded twice: equal at the coarser printing's digits
            tolerance = max(half_unit(printed), *(half_unit(v) for _, v in values))
        else:
            tolerance = half_unit(printed) + sum(abs(c) * half_unit(v) for c, v in values)
        self.rows.append(dict(zip(KEY, self.shown[(self.paper, key)])) | {
            "printed": float(printed), "recomputed": recomputed, "tolerance": tolerance,
            "agrees": bool(abs(float(printed) - recomputed) <= tolerance + SLACK), "kind": kind,
            "relation": relation, "rule": rule, "from": tuple(self.shown[(self.paper, k)] for _, k in terms)})

    def share(self, key, n: int, relation: str, rule: str) -> None:
        """``key``'s printed percentage against the shares of ``n``: ``recomputed``
        the nearest share 100 k / n, ``agrees`` when some k gives the printed
        digits (:func:`fits_share`)."""
        printed = self._printed(key, relation)
        _, nearest = nearest_share(float(printed), n)
        self.rows.append(dict(zip(KEY, self.shown[(self.paper, key)])) | {
            "printed": float(printed), "recomputed": nearest, "tolerance": half_unit(printed),
            "agrees": fits_share(printed, n), "kind": GRANULAR, "relation": relation, "rule": rule, "from": ()})

    def twice(self, first, second, relation: str, rule: str) -> None:
        """One number printed at ``first`` and ``second``: a row for each, checked against the other."""
        self.add(first, [(1.0, second)], REPEATED, relation, rule)
        self.add(second, [(1.0, first)], REPEATED, relation, rule)

    def mean(self, key, terms: list, relation: str, rule: str) -> None:
        if not terms:
            raise InputError(f"{self.folder}: no numbers to average for {self.paper} {key}; "
                             f"expected the rows of the relation {relation!r} (resources/published/README.md)")
        self.add(key, [(1.0 / len(terms), k) for k in terms], DERIVED, relation, rule)


def derived_numbers(paper: str | None = None, directory: str | Path | None = None) -> pd.DataFrame:
    """Every published number that other published numbers of its paper
    determine, one row per number and relation (columns
    :data:`DERIVED_COLUMNS`): the number's key (:data:`KEY`, as in the TSV),
    ``printed`` (its value), ``recomputed`` (unrounded, from the numbers in
    ``from``: a tuple of their keys), ``tolerance``, ``agrees``
    (``|printed - recomputed| <= tolerance``), ``kind`` (:data:`DERIVED`:
    a caption or definition makes it a function of the others;
    :data:`REPEATED`: the same number printed elsewhere, a row for each of the
    two places; :data:`GRANULAR`: a percentage of a count n, ``agrees`` when
    some integer k gives 100 k / n at the printed digits, ``recomputed`` the
    nearest such share, ``from`` empty), ``relation`` (a short name) and
    ``rule`` (the relation in words).

    Rounding rule, ``h`` being half a unit of the last printed digit
    (:func:`half_unit`): a derived number ``constant + sum(c_i * x_i)`` is
    allowed ``h(printed) + sum(|c_i| * h(x_i))``, the widest gap rounding
    alone can open (a difference of two 2-decimal numbers printed to 2
    decimals: 0.015; a mean of five 1-decimal numbers printed to 2: 0.055);
    a number printed twice ``max(h(a), h(b))``: two roundings of one number
    agree at the coarser one's digits (both to 2 decimals: 0.005, so they
    must be equal). ``agrees`` allows 1e-9 more for float noise. The
    relations, their counts and the mismatches are listed in
    ``resources/published/README.md`` ("Recomputed numbers")."""
    from authbench.papers.registry import paper_of, papers

    derivations = Derivations(load_text(paper, directory), Path(directory) if directory is not None else
                               paper_of(paper or next(iter(papers()))).published.parent)
    for name in [paper_of(paper).name] if paper is not None else list(papers()):
        relations = relations_of(name)
        if relations is not None:
            derivations.paper = name
            relations.relations(derivations)
    return pd.DataFrame(derivations.rows, columns=list(DERIVED_COLUMNS))
