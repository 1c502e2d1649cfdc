"""A claim against the paper's own tables: :func:`published_verdict` counts
the cells that hold (k of n) and reads the quantifier:

* ``every``: *holds as worded* when k = n, *holds in k of n* when 0 < k < n,
  *contradicted by the paper's own table* when k = 0;
* ``most``: holds as worded when k > n/2, contradicted when k <= n/2;
* ``average``: holds as worded when the mean margin over the cells is in the
  claimed direction (> 0), contradicted otherwise.

Where a claim's tables print significance marks (daggers: the
self-preference study's Tables 1 and 2) the verdict also counts the cells
with a marked number. :func:`published_verdicts` gives both papers'
verdicts as rows for a TSV, :func:`summary_line` one line per paper."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable, Mapping

import pandas as pd
from authbench import published as published_numbers
from authbench.claims.cells import claim_cells
from authbench.claims.kinds import CellResult
from authbench.claims.load import load_paper_claims
from authbench.claims.model import Claim, Claims

HOLDS = "holds as worded"
CONTRADICTED = "contradicted by the paper's own table"
SIGNIFICANCE_MARKS = ("dagger",)  # the marks that say "significant" (README of resources/published)
COLUMNS = ("paper", "id", "title", "kind", "quantifier", "k", "n", "marked", "marked_holding", "mean_margin",
           "verdict")


@dataclass(frozen=True)
class Verdict:
    """A claim on the published tables: ``k`` of ``n`` cells hold; ``marked``:
    the cells with a significance-marked number (None when the claim's tables
    print no such mark), ``marked_holding`` those of them that hold;
    ``mean_margin``: the mean margin over the cells (in the claimed direction);
    ``verdict``: the quantifier's reading; ``cells``: every cell."""

    claim: Claim
    k: int
    n: int
    marked: int | None
    marked_holding: int | None
    mean_margin: float
    verdict: str
    cells: tuple[CellResult, ...]

    @property
    def short(self) -> str:
        """``hold`` / ``k of n`` / ``contradicted``: the verdict's class."""
        return {HOLDS: "hold", CONTRADICTED: "contradicted"}.get(self.verdict, "k of n")


def read_quantifier(quantifier: str, k: int, n: int, mean_margin: float) -> str:
    """The verdict of ``k`` of ``n`` holding cells under ``quantifier`` (module docstring)."""
    if n == 0:
        raise ValueError("no cells: a claim without cells has no verdict")
    if quantifier == "every":
        return HOLDS if k == n else CONTRADICTED if k == 0 else f"holds in {k} of {n}"
    if quantifier == "most":
        return HOLDS if 2 * k > n else CONTRADICTED
    if quantifier == "average":
        return HOLDS if mean_margin > 0 else CONTRADICTED
    raise ValueError(f"unknown quantifier {quantifier!r}; expected every, most or average")


def _marked_tables(frame: pd.DataFrame) -> set[int]:
    marks = frame["mark"].fillna("").astype(str).str.split("+")
    return {int(t) for t, m in zip(frame["table"], marks) if set(m) & set(SIGNIFICANCE_MARKS)}


def _is_marked(cell: CellResult) -> bool:
    return any(set(mark.split("+")) & set(SIGNIFICANCE_MARKS) for mark in cell.marks)


def published_verdict(claim: Claim, published_frame: pd.DataFrame) -> Verdict:
    """The claim's verdict on ``published_frame`` (the rows of
    :func:`authbench.published.load`)."""
    frame = published_frame[published_frame["paper"] == claim.paper] if "paper" in published_frame else published_frame
    cells = tuple(claim_cells(claim, frame))
    k, n = sum(c.holds for c in cells), len(cells)
    mean = round(sum(c.margin for c in cells) / n, 9) if n else float("nan")
    marked = marked_holding = None
    if "mark" in frame.columns and set(claim.scope.tables) & _marked_tables(frame):
        flagged = [c for c in cells if _is_marked(c)]
        marked, marked_holding = len(flagged), sum(c.holds for c in flagged)
    return Verdict(claim, k, n, marked, marked_holding, mean, read_quantifier(claim.quantifier, k, n, mean), cells)


@functools.lru_cache(maxsize=None)
def _published(paper: str) -> pd.DataFrame:
    return published_numbers.load(paper)


def paper_verdicts(paper: str, claims: Claims | None = None, published_frame: pd.DataFrame | None = None
                   ) -> list[Verdict]:
    """Every claim of ``paper`` (default: its shipped claims file) on its published tables."""
    frame = _published(paper) if published_frame is None else published_frame
    claims = load_paper_claims(paper, frame) if claims is None else claims
    return [published_verdict(c, frame) for c in claims]


def verdict_rows(verdicts: Iterable[Verdict]) -> pd.DataFrame:
    """One row per verdict, columns :data:`COLUMNS` (``marked`` empty where the
    tables print no significance mark)."""
    rows = [{"paper": v.claim.paper, "id": v.claim.id, "title": v.claim.title, "kind": v.claim.test.kind,
             "quantifier": v.claim.quantifier, "k": v.k, "n": v.n,
             "marked": "" if v.marked is None else v.marked,
             "marked_holding": "" if v.marked_holding is None else v.marked_holding,
             "mean_margin": f"{v.mean_margin:.4g}", "verdict": v.verdict} for v in verdicts]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def published_verdicts(papers: Iterable[str] = tuple(published_numbers.PAPERS)) -> pd.DataFrame:
    """Both papers' published verdicts (:func:`verdict_rows`), AuthorityBench first."""
    return pd.concat([verdict_rows(paper_verdicts(p)) for p in papers], ignore_index=True)


def summary_line(title: str, verdicts: Iterable[Verdict]) -> str:
    """``AuthorityBench: 17 claims — published tables: 6 hold as worded, 5 in k
    of n, 3 contradicted``."""
    verdicts = list(verdicts)
    count: Mapping[str, int] = {s: sum(v.short == s for v in verdicts) for s in ("hold", "k of n", "contradicted")}
    return (f"{title}: {len(verdicts)} claims — published tables: {count['hold']} hold as worded, "
            f"{count['k of n']} in k of n, {count['contradicted']} contradicted")
