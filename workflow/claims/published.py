"""A claim against the paper's own tables: :func:`published_verdict` counts
the cases that hold (k of n) and reads the quantifier. Every verdict is one
of two classes, read as the claim is worded:

* *holds as worded*: ``every`` with k = n; ``most`` with k > n/2;
  ``almost_all`` with k >= 90% of n; ``average`` with a mean margin over the
  cases in the claimed direction (> 0);
* *contradicted as worded (holds in k of n)* otherwise (``average``:
  *contradicted as worded (mean margin m)*).

A claim that says "significant(ly)" reads the paper's significance marks
(daggers: the self-preference study's Tables 1 and 2) by its
``test.significance``: ``required``, a case holds only when it goes the
claimed way *and* its number is marked; ``absence`` ("no significant ..."),
a case fails only when it goes against the claim *and* is marked;
``not_printed``, the paper prints no mark for the claimed contrast, so the
sign (or band) alone is read. Where the claim's tables print marks, the
verdict also counts the cases with a marked number (``marked``) and how many
of them hold. :func:`published_verdicts` gives both papers' verdicts as rows
for a TSV, :func:`summary_line` one line per paper."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Iterable

import pandas as pd
from authbench import papers as published_numbers
from authbench.claims.cases import claim_cases, scope_rows
from authbench.claims.keys import COLUMNS as KEY_COLUMNS
from authbench.claims.keys import SIGNIFICANCE_MARKS, Key, from_columns, rows_from_frame, significant
from authbench.claims.kinds import CaseResult, self_comparisons
from authbench.claims.load import load_paper_claims
from authbench.claims.model import ALMOST_ALL, Claim, Claims
from authbench.papers import derived as derived_relations

HOLDS = "holds as worded"
CONTRADICTED = "contradicted as worded"  # the verdict's prefix: "contradicted as worded (holds in k of n)"
UNPUBLISHED = "not in the published tables"  # the verdict's prefix of a claim tested on a run only
CLASSES = ("hold", "contradicted", "unpublished")  # Verdict.short
COLUMNS = ("paper", "id", "title", "kind", "quantifier", "k", "n", "marked", "marked_holding", "mean_margin",
           "verdict", "recomputed_k", "recomputed", "note")
__all__ = ["CLASSES", "COLUMNS", "CONTRADICTED", "HOLDS", "SIGNIFICANCE_MARKS", "Recomputed", "Verdict", "case_holds",
           "paper_verdicts", "published_verdict", "published_verdicts", "read_quantifier", "recomputed_numbers",
           "summary_line", "verdict_rows"]


@dataclass(frozen=True)
class Recomputed:
    """A printed number a claim's case rests on that disagrees with its own
    tables (:func:`authbench.papers.derived_numbers`), or that is computed
    from one that does: ``key``, ``printed``, ``value`` (the number the
    recomputed verdict reads), ``relation`` and ``why`` (the relation in
    words: for a number printed twice, which printing is taken and why);
    ``keeps_mark``: the printed significance mark stays only when the sign
    is unchanged."""

    key: Key
    printed: float
    value: float
    relation: str
    why: str

    @property
    def keeps_mark(self) -> bool:
        return _sign(self.value) == _sign(self.printed)

    def text(self) -> str:
        return f"{self.key}: printed {self.printed:g}, recomputed {self.value:.4g} ({self.relation}: {self.why})"


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


@dataclass(frozen=True)
class Verdict:
    """A claim on the published tables: ``k`` of ``n`` cases hold; ``marked``:
    the cases with a significance-marked number (None when the claim's tables
    print no such mark, or when the claim says the marks do not test its
    contrast: ``significance: not_printed``), ``marked_holding`` those of them
    that hold; ``mean_margin``: the mean margin over the cases (in the claimed
    direction); ``verdict``: the quantifier's reading; ``cases``: every case,
    its ``holds`` as read on the published table (the significance rule
    applied). ``disagreeing``: the labels of the cases resting on a printed
    number that disagrees with its own tables or is computed from one
    (``flagged``: those numbers, :class:`Recomputed`); the verdict reads them
    as printed, ``recomputed`` is the verdict on the recomputed numbers
    (every claim has one: the same as ``verdict`` when no case is flagged),
    ``recomputed_k`` its k; ``dropped_marks``: the flagged numbers whose
    printed significance mark the recomputed verdict drops (their sign
    changed). ``skipped``: the cases a ``skip_self`` claim left out (its b
    side was the a row itself)."""

    claim: Claim
    k: int
    n: int
    marked: int | None
    marked_holding: int | None
    mean_margin: float
    verdict: str
    cases: tuple[CaseResult, ...]
    disagreeing: tuple[str, ...] = ()
    recomputed: str = ""
    flagged: tuple[Recomputed, ...] = ()
    recomputed_k: int | None = None
    skipped: int = 0
    dropped_marks: tuple[Key, ...] = ()

    @property
    def note(self) -> str:
        """What the verdict's reading leaves out: the self-comparisons left
        out, and, read as printed, the cases resting on numbers that disagree
        with their own tables, each number recomputed, and the verdict the
        recomputed numbers give (empty: nothing to say)."""
        parts = []
        if self.skipped:
            parts.append(f"{self.skipped} self-comparison(s) left out (skip_self: the b side was the a row itself)")
        if self.disagreeing:
            dropped = self.dropped_marks
            parts.append(f"read as printed; {len(self.disagreeing)} cell(s) rest on a number that disagrees with its "
                         f"own tables or is computed from one ({'; '.join(f.text() for f in self.flagged)})"
                         + (f"; the dagger dropped where the sign changed ({', '.join(map(str, dropped))})"
                            if dropped else "")
                         + f"; with the recomputed number(s): {self.recomputed}")
        return "; ".join(parts)

    @property
    def short(self) -> str:
        """``hold`` / ``contradicted`` / ``unpublished``: the verdict's class."""
        if self.verdict.startswith(UNPUBLISHED):
            return "unpublished"
        return "hold" if self.verdict == HOLDS else "contradicted"


def holds_as_worded(quantifier: str, k: int, n: int, mean_margin: float) -> bool:
    """Whether ``k`` of ``n`` holding cases (mean margin ``mean_margin``) make
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
    """The verdict of ``k`` of ``n`` holding cases under ``quantifier``:
    :data:`HOLDS` or ``contradicted as worded (holds in k of n)`` (``average``:
    ``(mean margin m)``)."""
    if holds_as_worded(quantifier, k, n, mean_margin):
        return HOLDS
    if quantifier == "average":
        return f"{CONTRADICTED} (mean margin {mean_margin:.4g})"
    return f"{CONTRADICTED} (holds in {k} of {n})"


def _marked_tables(frame: pd.DataFrame) -> set[int]:
    return {int(t) for t, m in zip(frame["table"], frame["mark"].fillna("")) if significant(m)}


def _is_marked(case: CaseResult) -> bool:
    return any(significant(mark) for mark in case.marks)


def case_holds(claim: Claim, case: CaseResult) -> bool:
    """Whether ``cell`` holds on the published table: its margin, read with
    the claim's ``test.significance`` (``required``: and a marked number;
    ``absence``: or an unmarked one)."""
    rule = claim.test.significance
    if rule == "required":
        return case.holds and _is_marked(case)
    if rule == "absence":
        return case.holds or not _is_marked(case)
    return case.holds


def _read(claim: Claim, frame: pd.DataFrame) -> tuple[tuple[CaseResult, ...], int, int, float, str]:
    cases = tuple(replace(c, holds=case_holds(claim, c)) for c in claim_cases(claim, frame))
    k, n = sum(c.holds for c in cases), len(cases)
    mean = round(sum(c.margin for c in cases) / n, 9) if n else float("nan")
    return cases, k, n, mean, read_quantifier(claim.quantifier, k, n, mean)


def _key(record: dict) -> Key:
    """A derived row's key (:data:`authbench.papers.derived.KEY`, the 11-column layout)."""
    return from_columns({c: record[c] for c in KEY_COLUMNS}, published_numbers.paper_of(record["paper"]).legacy)


def _from_key(key: tuple) -> Key:
    return _key(dict(zip(("paper", *KEY_COLUMNS), key)))  # a derived row's ``from`` keys lead with the paper


def _digits(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if abs(x - round(x, 2)) < 1e-9 else f"{x:.4g}"


def _explain(record: dict) -> tuple[float, str]:
    """The value a claim's recomputed verdict reads for a disagreeing
    number, and why."""
    relation = record["relation"]
    if record["kind"] == derived_relations.REPEATED:
        other = _from_key(record["from"][0])
        taken, reason = derived_relations.printing_taken(relation, tuple(record[c] for c in derived_relations.KEY))
        if taken:
            return float(record["printed"]), (f"printed twice, Table {other.table} prints "
                                              f"{_digits(record['recomputed'])}; takes this printing, {reason}")
        return float(record["recomputed"]), (f"printed twice; takes Table {other.table}'s "
                                             f"{_digits(record['recomputed'])}, {reason}")
    if record["kind"] == derived_relations.GRANULAR:
        n = derived_relations.share_of(record["paper"], record["table"])[0]
        k, share = derived_relations.nearest_share(float(record["printed"]), n)
        return share, f"no integer k gives it as a share of {n}; the nearest is {k}/{n} = {share:.2f}"
    return float(record["recomputed"]), f"{record['rule']} = {_digits(record['recomputed'])}"


@functools.lru_cache(maxsize=None)
def recomputed_numbers(paper: str) -> dict[Key, Recomputed]:
    """Published key -> :class:`Recomputed`, of every number of ``paper`` that
    disagrees with its own tables (:func:`authbench.papers.derived_numbers`)
    or is computed (a ``derived`` relation) from one that does.

    A number with several disagreeing relations takes the first whose inputs
    all agree (a Table 2 FALSE Diff: the appendix's Human minus own column,
    not its own row's mean that disagrees with the appendix). A number printed
    twice takes the printing :func:`authbench.papers.derived.printing_taken`
    names (its own, or the other one), with the reason. A derived number
    whose relation agrees but one of whose inputs disagrees is flagged too;
    it keeps its printed value unless another relation recomputes it."""
    rows = published_numbers.derived_numbers(paper).to_dict("records")
    bad = [r for r in rows if not r["agrees"]]
    bad_keys = {_key(r) for r in bad}
    out: dict[Key, Recomputed] = {}
    for r in sorted(bad, key=lambda r: any(_from_key(f) in bad_keys for f in r["from"])):
        key = _key(r)
        if key not in out:
            value, why = _explain(r)
            out[key] = Recomputed(key, float(r["printed"]), value, r["relation"], why)
    for r in rows:
        key = _key(r)
        inputs = [_from_key(f) for f in r["from"] if _from_key(f) in bad_keys]
        if r["kind"] == derived_relations.DERIVED and inputs and key not in out:
            out[key] = Recomputed(key, float(r["printed"]), float(r["printed"]), r["relation"],
                                  f"computed from {', '.join(map(str, inputs))}, which disagree(s) with its own "
                                  "tables; no other relation recomputes it")
    return out


def _recomputed_frame(frame: pd.DataFrame, numbers: dict[Key, Recomputed], hit: list[int], keys: list[Key]
                      ) -> pd.DataFrame:
    """``frame`` with the flagged numbers recomputed; a significance mark kept only where the sign is unchanged."""
    fixed = frame.copy()
    index = fixed.index[hit]
    fixed.loc[index, "value"] = [numbers[keys[i]].value for i in hit]
    if "mark" in fixed.columns:
        marks = []
        for i, mark in zip(hit, fixed.loc[index, "mark"].fillna("")):
            kept = [m for m in str(mark).split("+") if m and (numbers[keys[i]].keeps_mark or
                                                              m not in SIGNIFICANCE_MARKS)]
            marks.append("+".join(kept))
        fixed.loc[index, "mark"] = marks
    return fixed


def published_verdict(claim: Claim, published_frame: pd.DataFrame) -> Verdict:
    """The claim's verdict on ``published_frame`` (the rows of
    :func:`authbench.papers.load`), read as printed; and the verdict on the
    recomputed numbers (:func:`recomputed_numbers`; the paper's shipped
    numbers only): the same where no case rests on a disagreeing number."""
    frame = published_frame[published_frame["paper"] == claim.paper] if "paper" in published_frame else published_frame
    if claim.unpublished:
        return Verdict(claim, 0, 0, None, None, float("nan"), f"{UNPUBLISHED} ({claim.unpublished})", ())
    cases, k, n, mean, verdict = _read(claim, frame)
    skipped = 0
    if claim.test.skip_self:
        test = claim.test
        skipped = self_comparisons(scope_rows(claim.scope, rows_from_frame(frame)), a=test.a, b=test.b)
    marked = marked_holding = None
    if ("mark" in frame.columns and claim.test.significance != "not_printed"
            and set(claim.scope.tables) & _marked_tables(frame)):
        flagged = [c for c in cases if _is_marked(c)]
        marked, marked_holding = len(flagged), sum(c.holds for c in flagged)
    numbers = recomputed_numbers(claim.paper) if claim.paper in published_numbers.papers() else {}
    keys = [r.key for r in rows_from_frame(frame)]
    hit = [i for i, key in enumerate(keys) if key in numbers]
    touched = [c for c in cases if any(key in numbers for key in c.rows)]
    if not touched:
        return Verdict(claim, k, n, marked, marked_holding, mean, verdict, cases, recomputed=verdict,
                       recomputed_k=k, skipped=skipped)
    used = dict.fromkeys(key for c in touched for key in c.rows if key in numbers)
    marked_keys = {key for c in touched for key, mark in zip(c.rows, c.marks) if significant(mark)}
    dropped = tuple(key for key in used if key in marked_keys and not numbers[key].keeps_mark)
    _, rk, _, _, recomputed = _read(claim, _recomputed_frame(frame, numbers, hit, keys))
    return Verdict(claim, k, n, marked, marked_holding, mean, verdict, cases, tuple(c.label for c in touched),
                   recomputed, tuple(numbers[key] for key in used), rk, skipped, dropped)


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
             "mean_margin": f"{v.mean_margin:.4g}" if v.n else "", "verdict": v.verdict,
             "recomputed_k": "" if v.recomputed_k is None else v.recomputed_k, "recomputed": v.recomputed,
             "note": v.note} for v in verdicts]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def published_verdicts(papers: Iterable[str] = tuple(published_numbers.papers())) -> pd.DataFrame:
    """Both papers' published verdicts (:func:`verdict_rows`), AuthorityBench first."""
    return pd.concat([verdict_rows(paper_verdicts(p)) for p in papers], ignore_index=True)


def summary_line(title: str, verdicts: Iterable[Verdict]) -> str:
    """``<title>: <n> claims — published tables: <h> hold as worded, <c>
    contradicted as worded`` (and ``, 1 not in the published tables`` when a
    claim is tested on a run only), counted from ``verdicts``."""
    verdicts = list(verdicts)
    count = {s: sum(v.short == s for v in verdicts) for s in CLASSES}
    claims = f"{len(verdicts)} claim{'' if len(verdicts) == 1 else 's'}"
    return (f"{title}: {claims} — published tables: {count['hold']} hold as worded, "
            f"{count['contradicted']} contradicted as worded"
            + (f", {count['unpublished']} {UNPUBLISHED}" if count["unpublished"] else ""))
