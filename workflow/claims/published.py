"""A claim against the paper's own tables: :func:`published_verdict` counts
the cells that hold (k of n) and reads the quantifier. Every verdict is one
of two classes, read as the claim is worded:

* *holds as worded*: ``every`` with k = n; ``most`` with k > n/2;
  ``almost_all`` with k >= 90% of n; ``average`` with a mean margin over the
  cells in the claimed direction (> 0);
* *contradicted as worded (holds in k of n)* otherwise (``average``:
  *contradicted as worded (mean margin m)*).

A claim that says "significant(ly)" reads the paper's significance marks
(daggers: the self-preference study's Tables 1 and 2) by its
``test.significance``: ``required``, a cell holds only when it goes the
claimed way *and* its number is marked; ``absence`` ("no significant ..."),
a cell fails only when it goes against the claim *and* is marked;
``not_printed``, the paper prints no mark for the claimed contrast, so the
sign (or band) alone is read. Where the claim's tables print marks, the
verdict also counts the cells with a marked number (``marked``) and how many
of them hold. :func:`published_verdicts` gives both papers' verdicts as rows
for a TSV, :func:`summary_line` one line per paper."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Iterable

import pandas as pd
from authbench import papers as published_numbers
from authbench.claims.cases import claim_cases
from authbench.claims.keys import SIGNIFICANCE_MARKS, canonical, significant
from authbench.claims.kinds import CaseResult
from authbench.claims.load import load_paper_claims
from authbench.claims.model import ALMOST_ALL, Claim, Claims

HOLDS = "holds as worded"
CONTRADICTED = "contradicted as worded"  # the verdict's prefix: "contradicted as worded (holds in k of n)"
UNPUBLISHED = "not in the published tables"  # the verdict's prefix of a claim tested on a run only
CLASSES = ("hold", "contradicted", "unpublished")  # Verdict.short
COLUMNS = ("paper", "id", "title", "kind", "quantifier", "k", "n", "marked", "marked_holding", "mean_margin",
           "verdict", "recomputed", "note")
__all__ = ["CLASSES", "COLUMNS", "CONTRADICTED", "HOLDS", "SIGNIFICANCE_MARKS", "Verdict", "cell_holds",
           "paper_verdicts", "published_verdict", "published_verdicts", "read_quantifier", "summary_line",
           "verdict_rows"]


@dataclass(frozen=True)
class Verdict:
    """A claim on the published tables: ``k`` of ``n`` cells hold; ``marked``:
    the cells with a significance-marked number (None when the claim's tables
    print no such mark, or when the claim says the marks do not test its
    contrast: ``significance: not_printed``), ``marked_holding`` those of them
    that hold; ``mean_margin``: the mean margin over the cells (in the claimed
    direction); ``verdict``: the quantifier's reading; ``cells``: every cell,
    its ``holds`` as read on the published table (the significance rule
    applied). ``disagreeing``: the cells resting on a printed number that
    disagrees with its own table (:func:`authbench.papers.derived_numbers`:
    a Diff that is not its means' difference, a number printed twice with two
    values); the verdict reads them as printed, ``recomputed`` is the verdict
    with the recomputed (or other printed) number instead."""

    claim: Claim
    k: int
    n: int
    marked: int | None
    marked_holding: int | None
    mean_margin: float
    verdict: str
    cells: tuple[CaseResult, ...]
    disagreeing: tuple[str, ...] = ()
    recomputed: str = ""

    @property
    def note(self) -> str:
        """Read as printed: the cells whose printed numbers disagree with their
        own table, and the verdict the recomputed numbers would give (empty:
        none disagrees)."""
        if not self.disagreeing:
            return ""
        return (f"read as printed; {len(self.disagreeing)} cell(s) rest on a number that disagrees with its own "
                f"table ({'; '.join(self.disagreeing)}); with the recomputed number(s): {self.recomputed}")

    @property
    def short(self) -> str:
        """``hold`` / ``contradicted`` / ``unpublished``: the verdict's class."""
        if self.verdict.startswith(UNPUBLISHED):
            return "unpublished"
        return "hold" if self.verdict == HOLDS else "contradicted"


def holds_as_worded(quantifier: str, k: int, n: int, mean_margin: float) -> bool:
    """Whether ``k`` of ``n`` holding cells (mean margin ``mean_margin``) make
    the quantifier hold as worded (module docstring)."""
    if n == 0:
        raise ValueError("no cells: a claim without cells has no verdict")
    if quantifier == "every":
        return k == n
    if quantifier == "most":
        return 2 * k > n
    if quantifier == "almost_all":
        return k >= ALMOST_ALL * n  # exact: 10·k >= 9·n
    if quantifier == "average":
        return mean_margin > 0
    raise ValueError(f"unknown quantifier {quantifier!r}; expected every, most, almost_all or average")


def read_quantifier(quantifier: str, k: int, n: int, mean_margin: float) -> str:
    """The verdict of ``k`` of ``n`` holding cells under ``quantifier``:
    :data:`HOLDS` or ``contradicted as worded (holds in k of n)`` (``average``:
    ``(mean margin m)``)."""
    if holds_as_worded(quantifier, k, n, mean_margin):
        return HOLDS
    if quantifier == "average":
        return f"{CONTRADICTED} (mean margin {mean_margin:.4g})"
    return f"{CONTRADICTED} (holds in {k} of {n})"


def _marked_tables(frame: pd.DataFrame) -> set[int]:
    return {int(t) for t, m in zip(frame["table"], frame["mark"].fillna("")) if significant(m)}


def _is_marked(cell: CaseResult) -> bool:
    return any(significant(mark) for mark in cell.marks)


def cell_holds(claim: Claim, cell: CaseResult) -> bool:
    """Whether ``cell`` holds on the published table: its margin, read with
    the claim's ``test.significance`` (``required``: and a marked number;
    ``absence``: or an unmarked one)."""
    rule = claim.test.significance
    if rule == "required":
        return cell.holds and _is_marked(cell)
    if rule == "absence":
        return cell.holds or not _is_marked(cell)
    return cell.holds


def _read(claim: Claim, frame: pd.DataFrame) -> tuple[tuple[CaseResult, ...], int, int, float, str]:
    cells = tuple(replace(c, holds=cell_holds(claim, c)) for c in claim_cases(claim, frame))
    k, n = sum(c.holds for c in cells), len(cells)
    mean = round(sum(c.margin for c in cells) / n, 9) if n else float("nan")
    return cells, k, n, mean, read_quantifier(claim.quantifier, k, n, mean)


@functools.lru_cache(maxsize=None)
def _disagreeing(paper: str) -> dict[tuple, float]:
    """The published key -> its recomputed (or other printed) value, of every
    number that disagrees with its own table."""
    rows = published_numbers.derived_numbers(paper)
    rows = rows[~rows["agrees"]]
    out: dict[tuple, float] = {}
    for r in rows.to_dict("records"):
        key = (int(r["table"]), str(r["model"]), str(r["judge"]), str(r["context"]), str(r["setting"]), str(r["metric"]))
        out.setdefault(key, float(r["recomputed"]))
    return out


def published_verdict(claim: Claim, published_frame: pd.DataFrame) -> Verdict:
    """The claim's verdict on ``published_frame`` (the rows of
    :func:`authbench.papers.load`), read as printed; where a cell rests on
    a number that disagrees with its own table (the paper's shipped numbers
    only), also the verdict with the recomputed number."""
    frame = published_frame[published_frame["paper"] == claim.paper] if "paper" in published_frame else published_frame
    if claim.unpublished:
        return Verdict(claim, 0, 0, None, None, float("nan"), f"{UNPUBLISHED} ({claim.unpublished})", ())
    cells, k, n, mean, verdict = _read(claim, frame)
    marked = marked_holding = None
    if ("mark" in frame.columns and claim.test.significance != "not_printed"
            and set(claim.scope.tables) & _marked_tables(frame)):
        flagged = [c for c in cells if _is_marked(c)]
        marked, marked_holding = len(flagged), sum(c.holds for c in flagged)
    wrong = _disagreeing(claim.paper) if claim.paper in published_numbers.papers() else {}
    keys = list(zip(frame["table"].astype(int), frame["model"].astype(str), frame["judge"].astype(str),
                    frame["context"].astype(str), frame["setting"].astype(str), frame["metric"].astype(str)))
    hit = [i for i, key in enumerate(keys) if key in wrong]
    disagreeing, recomputed = (), ""
    if hit:
        printed = {canonical(keys[i]): keys[i] for i in hit}
        touched = [c for c in cells if any(k in printed for k in c.rows)]
        if touched:
            fixed = frame.copy()
            fixed.loc[fixed.index[hit], "value"] = [wrong[keys[i]] for i in hit]
            disagreeing = tuple(f"{c.label}: printed {', '.join(f'{v:g}' for k, v in zip(c.rows, c.values) if k in printed)}"
                                for c in touched)
            recomputed = _read(claim, fixed)[4]
    return Verdict(claim, k, n, marked, marked_holding, mean, verdict, cells, disagreeing, recomputed)


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
             "mean_margin": f"{v.mean_margin:.4g}" if v.n else "", "verdict": v.verdict, "recomputed": v.recomputed,
             "note": v.note} for v in verdicts]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def published_verdicts(papers: Iterable[str] = tuple(published_numbers.papers())) -> pd.DataFrame:
    """Both papers' published verdicts (:func:`verdict_rows`), AuthorityBench first."""
    return pd.concat([verdict_rows(paper_verdicts(p)) for p in papers], ignore_index=True)


def summary_line(title: str, verdicts: Iterable[Verdict]) -> str:
    """``AuthorityBench: 19 claims — published tables: 10 hold as worded, 9
    contradicted as worded`` (and ``, 1 not in the published tables`` when a
    claim is tested on a run only)."""
    verdicts = list(verdicts)
    count = {s: sum(v.short == s for v in verdicts) for s in CLASSES}
    return (f"{title}: {len(verdicts)} claims — published tables: {count['hold']} hold as worded, "
            f"{count['contradicted']} contradicted as worded"
            + (f", {count['unpublished']} {UNPUBLISHED}" if count["unpublished"] else ""))
