"""``claims.md``, ``claims.tsv`` and ``claims_cells.tsv`` of a study's
report: every claim of the paper (``resources/claims/<paper>.yaml``,
:mod:`authbench.claims`) that reads one of the study's tables, with two
verdicts in the same words:

* on the published tables (:func:`authbench.claims.published_verdict`, the
  whole claim: k of n cases, *holds as worded* or *contradicted as worded*;
  read as printed, with the verdict of recomputed numbers where a case rests
  on one that disagrees with its own table);
* on this run's units (:func:`authbench.claims.run_verdict`): the claim's
  cases on the run's own grid (its quantified parts over the run's models,
  contexts, settings and datasets; its fixed parts as the paper's), each
  contrast tested on the units the study keyed by published key
  (:class:`authbench.studies.keyed.Keyed`, the scorecard's numbers too),
  Holm within the claim.

A claim that names a unit column for a metric (``column:
{self_preference: same_factuality}``) reads the numbers of that metric in it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import pandas as pd
from authbench.claims import Claim, Scope, load_paper_claims, published_verdict, run_verdict
from authbench.claims.places import compared_parts
from authbench.claims.kinds import KindError
from authbench.claims.published import summary_line
from authbench.claims.run import NOT_APPLICABLE, PARTLY, RUN_CLASSES, RunVerdict, cases_frame
from authbench.papers import load as load_published, paper_of
from authbench.records import atomic_write, write_frame, write_text
from authbench.render.catalog import CLAIMS
from authbench.stats import IntervalSpec
from authbench.studies.keyed import Keyed, keyed_frame

CLAIM_COLUMNS = ("claim", "title", "quantifier", "quantified", "fixed", "tables", "tables_here", "published_k",
                 "published_n", "published_verdict", "published_daggers", "published_recomputed", "published_note",
                 "run_verdict", "run_text", "run_cells", "run_supported", "run_contradicted", "run_undecided",
                 "run_not_in_run", "run_mean_margin", "run_flags", "evidence")
RUN_SUMMARY = {"supported": "supported", PARTLY: "supported on part of their cells", "contradicted": "contradicted",
               "undecided": "undecided", NOT_APPLICABLE: "not applicable to this run"}


def _tables(claim: Claim) -> tuple[int, ...]:
    return tuple(int(t) for t in claim.scope.tables)


def study_claims(paper: str, tables: Sequence[int], where: Mapping[str, str] | None = None
                 ) -> list[tuple[Claim, Claim]]:
    """``(claim, claim on this study's tables)`` for each claim of ``paper``
    that reads one of ``tables`` (and, with ``where``, e.g. ``{"dataset":
    "NQ"}``, whose scope does not leave that setting out): the second has its
    scope cut to ``tables`` when its kind still makes published cases there,
    else it is the whole claim."""
    published = load_published(paper)
    where = {k: str(v) for k, v in (where or {}).items()}
    out = []
    for claim in load_paper_claims(paper):
        mine = tuple(t for t in _tables(claim) if t in tables)
        if not mine or any(k in claim.scope.selector and v not in claim.scope.selector[k] for k, v in where.items()):
            continue
        here = claim
        cut = replace(claim, scope=Scope({**claim.scope.selector, "table": mine}))
        try:
            if published_verdict(cut, published).n:
                here = cut
        except (KindError, ValueError, KeyError):
            pass
        out.append((claim, here))
    return out


def fixed_parts(claim: Claim) -> list[str]:
    """The parts a claim fixes: those its scope names with values and those
    its test compares, the quantified ones aside."""
    parts = [p for p in claim.scope.selector if p != "table"] + sorted(compared_parts(claim))
    return [p for p in dict.fromkeys(parts) if p not in claim.quantified]


def write_claims(outdir: str | Path, paper: str, study: str, tables: Sequence[int], numbers: Sequence[Keyed],
                 report=None, spec: IntervalSpec | None = None, where: Mapping[str, str] | None = None,
                 alpha: float = 0.05) -> list[Path]:
    """Write ``claims.md``, ``claims.tsv`` (one row per claim) and
    ``claims_cells.tsv`` (one row per tested contrast or per case this run
    lacks) under ``outdir``, and the numbers they read as
    ``units_keyed.parquet`` (:func:`authbench.studies.keyed.keyed_frame`). ``numbers``: the study's numbers keyed by
    published key; ``report``: the report's declaration (the claim rows link
    to its tables); ``spec``: config ``intervals`` and ``seed``; ``where``:
    the setting this report is about (a self-preference dataset:
    ``{"dataset": "NQ"}``)."""
    out = Path(outdir)
    spec = spec or IntervalSpec()
    files = table_files(report) if report is not None else {}
    published = load_published(paper)
    flags = {k.key: k.flags for k in numbers if k.flags}
    named = {k.key.model for k in numbers if k.named and k.kind == "model"}
    rows, details, verdicts, run_verdicts = [], [], [], []
    for claim, here in study_claims(paper, tables, where):
        pub = published_verdict(claim, published)
        verdicts.append(pub)
        units = {}
        for k in numbers:
            got = k.unit_column(here.column_of(k.key.metric))
            if got is not None:
                units[k.key] = got
        run = run_verdict(here, units, spec, alpha, flags=flags, named=named)
        missing_column = [f"{m}: {c}" for m, c in here.column.items()
                          if not any(k.unit_column(c) is not None for k in numbers if k.key.metric == m)]
        if run.verdict == NOT_APPLICABLE and missing_column and any(k.key.metric in here.column for k in numbers):
            run = replace(run, needs=f"{run.needs}; this run's units have no column {', '.join(missing_column)}")
        run_verdicts.append(run)
        evidence = [f for f in ("comparisons.md",) if report is None or any(
            f in getattr(it, "names", ()) or f in report.extra for it in report.items + report.closing)]
        evidence += [files[t] for t in _tables(here) if t in files]
        rows.append({"claim": claim.id, "title": claim.title, "quantifier": claim.quantifier,
                     "quantified": ",".join(claim.quantified), "fixed": ",".join(fixed_parts(claim)),
                     "tables": ",".join(map(str, _tables(claim))), "tables_here": ",".join(map(str, _tables(here))),
                     "published_k": pub.k, "published_n": pub.n, "published_verdict": pub.verdict,
                     "published_daggers": "" if pub.marked is None else f"{pub.marked_holding} of {pub.marked}",
                     "published_recomputed": pub.recomputed if pub.disagreeing else "", "published_note": pub.note,
                     "run_verdict": run.verdict, "run_text": run.summary, "run_cells": run.n,
                     "run_supported": run.supported, "run_contradicted": run.contradicted,
                     "run_undecided": run.undecided, "run_not_in_run": run.missing,
                     "run_mean_margin": _num(run.mean_margin), "run_flags": "; ".join(run.flags),
                     "evidence": " ".join(evidence)})
        frame = cases_frame(run)
        if len(frame):
            details.append(frame)
    claims = pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))
    cases_out = pd.concat(details, ignore_index=True) if details else pd.DataFrame(columns=["claim", "cell"])
    write_frame(claims, out / "claims.tsv", sep="\t", index=False, na_rep="")
    write_frame(cases_out, out / "claims_cells.tsv", sep="\t", index=False, na_rep="")
    write_text(out / "claims.md", claims_md(paper, study, verdicts, run_verdicts, rows))
    with atomic_write(out / "units_keyed.parquet", "wb") as fh:
        keyed_frame(numbers, paper).to_parquet(fh, engine="pyarrow", index=False)
    return [out / name for name in CLAIMS]


def _num(x: float, nd: int = 2) -> str:
    return "" if x is None or not math.isfinite(x) else f"{x:.{nd}f}"


def run_summary(verdicts: Iterable[RunVerdict]) -> str:
    """``this run: 1 supported, 2 supported on part of their cases, 0 contradicted, 9 undecided, 3 not
    applicable to this run``."""
    found = [v.verdict for v in verdicts]
    return "this run: " + ", ".join(f"{found.count(s)} {RUN_SUMMARY[s]}" for s in RUN_CLASSES)


def _test_text(t) -> str:
    if not math.isfinite(t.effect):
        return f"no effect ({t.test}, n={t.n_units}): {t.status}"
    if math.isfinite(t.lo):
        return f"{t.effect:+.2f} [{t.lo:+.2f}, {t.hi:+.2f}] ({t.test}, n={t.n_units}, p_holm={t.p_holm:.3g}): {t.status}"
    return f"{t.effect:+.2f}, no interval or p ({t.why}; {t.test}): {t.status}"


def _case_lines(run: RunVerdict, limit: int = 12) -> list[str]:
    lines = []
    for case in run.cases[:limit]:
        if not case.contrasts:
            lines.append(f"  - {case.label}: not in this run ({case.reason})")
            continue
        flags = f" [flagged: {'; '.join(case.flags)}]" if case.flags else ""
        lines.append(f"  - {case.label}: {case.status}{flags} — " + "; ".join(_test_text(t) for t in case.contrasts))
        if case.power:
            lines.append(f"    - power: {case.power}")
    if len(run.cases) > limit:
        lines.append(f"  - … {len(run.cases) - limit} more cells in claims_cells.tsv")
    return lines


def claims_md(paper: str, study: str, verdicts, run_verdicts, rows: Sequence[Mapping]) -> str:
    title = paper_of(paper).title
    head = summary_line(f"{title} ({study}'s tables)", verdicts) + "; " + run_summary(run_verdicts)
    lines = [f"# Claims: {title}, {study}", "", head, "",
             "Each claim of the paper that reads this study's tables (resources/claims, docs/claims.md). Published: "
             "the whole claim on the paper's own tables, k of n cells, read as worded. This run: the claim on the "
             "run's own grid: its quantified parts range over this run's models (a model without a paper_name under "
             "its own name), contexts, settings and datasets; its fixed parts keep the paper's values (paired tests, "
             "Holm within the claim, alpha 0.05). Every contrast and every cell this run lacks: claims_cells.tsv.",
             "", "| Claim | Quantifier | Published (k of n) | Published verdict | This run | Cells (sup/con/und/not "
             "in run) | Evidence |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        links = ", ".join(f"[{Path(e).name}]({e})" for e in r["evidence"].split())
        shown = r["run_text"] if r["run_verdict"] in (PARTLY, NOT_APPLICABLE) else r["run_verdict"]
        lines.append(f"| {r['claim']}: {r['title']} | {r['quantifier']} | {r['published_k']} of {r['published_n']} "
                     f"| {r['published_verdict']} | {shown} | {r['run_supported']}/{r['run_contradicted']}/"
                     f"{r['run_undecided']}/{r['run_not_in_run']} of {r['run_cells']} | {links} |")
    lines.append("")
    for run, r in zip(run_verdicts, rows):
        lines += [f"## {r['claim']}: {r['title']}", "", f"> {run.claim.quote.strip()}", "",
                  f"Reading ({run.claim.quantifier}): {run.claim.reading.strip()}", "",
                  f"Quantified (over this run's values): {r['quantified'] or 'none'}. Fixed (the paper's values): "
                  f"{r['fixed'] or 'none'}. Tables here: {r['tables_here']} (claim: {r['tables']}).", ""]
        if r["published_note"]:
            lines += [f"Published: {r['published_note']}.", ""]
        lines += [f"This run: {run.summary}.", ""] + _case_lines(run) + [""]
    return "\n".join(lines).rstrip() + "\n"


def table_files(report) -> dict[int, str]:
    """Table number -> the report file of its item (``tables/table<N>_*.md``)."""
    import re

    out: dict[int, str] = {}
    for it in report.items:
        m = re.match(r"table(\d+)_", it.stem)
        if m and it.kind == "tables":
            out.setdefault(int(m.group(1)), f"tables/{it.stem}.md")
    return out
