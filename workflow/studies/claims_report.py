"""``claims.md``, ``claims.tsv`` and ``claims_cells.tsv`` of a study's
report: every claim of the paper (``resources/claims/<paper>.yaml``,
:mod:`authbench.claims`) that reads one of the study's tables, with two
verdicts:

* on the published tables (:func:`authbench.claims.published_verdict`, the
  whole claim: k of n cells and the quantifier's reading);
* on this run's units (:func:`authbench.claims.run_verdict`): the claim's
  cells of this study's tables, each contrast tested on the units the study
  wrote (lists, pairs, questions, items), Holm within the claim.

A run's numbers reach the claims under the published keys through each
study's adapter (:func:`authority_units`, :func:`category_units`,
:func:`rag_units`, :func:`selfpref_units`). A model is keyed by its
``paper_name``; a model without one (the demo's) stands in the cells of the
paper's first model in the claim's scope when the run names no paper model
at all, so a claim "for all LLMs" is tested on the run's own models. A claim
naming specific paper models, or picking one (a best-in-column claim), is
then ``not run``. Self-preference claims on
Table 3's ``self_preference`` read the same-factuality pairs (both passages
true or both false) as their units: in a true-vs-false pair the factual
passage decides the choice.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from authbench.claims import CellUnits, Claim, Scope, cell_key, load_paper_claims, published_verdict, run_verdict
from authbench.claims.keys import canonical
from authbench.claims.kinds import KindError
from authbench.claims.published import summary_line
from authbench.claims.run import NOT_RUN, RunVerdict, cells_frame
from authbench.published import load as load_published
from authbench.records import write_frame, write_text

CLAIM_COLUMNS = ("claim", "title", "quantifier", "tables", "tables_here", "published_k", "published_n",
                 "published_verdict", "published_daggers", "run_verdict", "run_cells", "run_supported",
                 "run_contradicted", "run_undecided", "run_missing", "run_partial", "run_mean_margin", "evidence")
RUN_VERDICTS = ("supported", "contradicted", "undecided", NOT_RUN)
TITLES = {"authoritybench": "AuthorityBench", "selfpref": "RAG self-preference"}


def _selector_tables(claim: Claim) -> tuple[int, ...]:
    return tuple(int(t) for t in claim.scope.tables)


def study_claims(paper: str, tables: Sequence[int], where: Mapping[str, str] | None = None
                 ) -> list[tuple[Claim, Claim]]:
    """``(claim, claim on this study's cells)`` for each claim of ``paper``
    that reads one of ``tables`` (and, with ``where``, e.g. ``{"dataset":
    "NQ"}``, one of that setting's cells): the second has its scope cut to
    ``tables`` and ``where`` when its kind still makes published cells there,
    else it is the whole claim (its other cells are then not run here)."""
    published = load_published(paper)
    where = {k: (str(v),) for k, v in (where or {}).items()}
    out = []
    for claim in load_paper_claims(paper):
        mine = tuple(t for t in _selector_tables(claim) if t in tables)
        if not mine or any(k in claim.scope.selector and v[0] not in claim.scope.selector[k]
                           for k, v in where.items()):
            continue
        here = claim
        cut = replace(claim, scope=Scope({**claim.scope.selector, "table": mine, **where}))
        try:
            if published_verdict(cut, published).n:
                here = cut
        except (KindError, ValueError, KeyError):
            pass
        out.append((claim, here))
    return out


def structure(paper: str, claim: Claim, run_models: Sequence[str], named: bool) -> pd.DataFrame:
    """The published rows whose cells the run's verdict reads: the paper's
    when the run names a paper model (``named``); otherwise the rows of the
    scope's first paper model, once per run model under its name."""
    frame = load_published(paper)
    if named or "model" in claim.scope.selector or not run_models:
        return frame
    in_scope = frame[frame["table"].isin(_selector_tables(claim))]
    models = [m for m in dict.fromkeys(in_scope["model"].astype(str)) if m not in ("", "Average")]
    if not models:
        return frame
    template = frame[frame["model"].astype(str) == models[0]]
    others = frame[~frame["model"].astype(str).isin(models)]
    return pd.concat([others] + [template.assign(model=m) for m in run_models], ignore_index=True)


def write_claims(outdir: str | Path, paper: str, study: str, tables: Sequence[int],
                 cells: Mapping[tuple, CellUnits], run_models: Sequence[str], named: bool,
                 table_files: Mapping[int, str], min_units: int = 5, seed: int = 0,
                 where: Mapping[str, str] | None = None) -> list[Path]:
    """Write ``claims.md``, ``claims.tsv`` (one row per claim) and
    ``claims_cells.tsv`` (one row per tested contrast or missing cell) under
    ``outdir``. ``cells``: the run's units under the published keys;
    ``run_models``: the run's model names as keyed; ``named``: whether they
    are paper names; ``table_files``: table number -> its file in the report
    folder (the claim rows link to them); ``where``: the setting this report
    is about (a self-preference dataset: ``{"dataset": "NQ"}``)."""
    out = Path(outdir)
    units = {canonical(k): v for k, v in cells.items()}
    published = load_published(paper)
    rows, details, verdicts, run_verdicts = [], [], [], []
    for claim, here in study_claims(paper, tables, where):
        pub = published_verdict(claim, published)
        verdicts.append(pub)
        try:
            run = run_verdict(here, units, min_units=min_units, seed=seed,
                              published=structure(paper, here, run_models, named))
        except KindError:  # the claim picks a paper model the stand-ins cannot be: the paper's cells, not run
            run = run_verdict(here, units, min_units=min_units, seed=seed, published=published)
        run_verdicts.append(run)
        evidence = ["comparisons.md"] + [table_files[t] for t in _selector_tables(here) if t in table_files]
        daggers = "" if pub.marked is None else f"{pub.marked_holding} of {pub.marked}"
        rows.append({"claim": claim.id, "title": claim.title, "quantifier": claim.quantifier,
                     "tables": ",".join(map(str, _selector_tables(claim))),
                     "tables_here": ",".join(map(str, _selector_tables(here))),
                     "published_k": pub.k, "published_n": pub.n, "published_verdict": pub.verdict,
                     "published_daggers": daggers, "run_verdict": run.verdict, "run_cells": run.n,
                     "run_supported": run.supported, "run_contradicted": run.contradicted,
                     "run_undecided": run.undecided, "run_missing": run.missing,
                     "run_partial": run.partial or "", "run_mean_margin": _num(run.mean_margin),
                     "evidence": " ".join(evidence)})
        frame = cells_frame(run)
        if len(frame):
            details.append(frame)
    claims = pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))
    cells_out = pd.concat(details, ignore_index=True) if details else pd.DataFrame(columns=["claim", "cell"])
    write_frame(claims, out / "claims.tsv", sep="\t", index=False)
    write_frame(cells_out, out / "claims_cells.tsv", sep="\t", index=False)
    write_text(out / "claims.md", claims_md(paper, study, verdicts, run_verdicts, rows, named))
    return [out / "claims.md", out / "claims.tsv", out / "claims_cells.tsv"]


def _num(x: float, nd: int = 2) -> str:
    return "" if x is None or not math.isfinite(x) else f"{x:.{nd}f}"


def run_summary(verdicts: Iterable[RunVerdict]) -> str:
    """``this run: 0 supported, 2 contradicted, 9 undecided, 3 not run``."""
    found = [v.verdict for v in verdicts]
    return "this run: " + ", ".join(f"{found.count(s)} {s}" for s in RUN_VERDICTS)


def _cell_lines(run: RunVerdict, limit: int = 12) -> list[str]:
    lines = []
    for cell in run.cells[:limit]:
        if not cell.contrasts:
            lines.append(f"  - {cell.label}: not run ({len(cell.missing)} of its numbers missing)")
            continue
        tests = "; ".join(f"{t.effect:+.2f} [{t.lo:+.2f}, {t.hi:+.2f}] ({t.test}, n={t.n_units}, "
                          f"p_holm={t.p_holm:.3g}): {t.status}" if math.isfinite(t.effect) else
                          f"no effect ({t.test}, n={t.n_units}): {t.status}" for t in cell.contrasts)
        lines.append(f"  - {cell.label}: {cell.status} — {tests}")
    if len(run.cells) > limit:
        lines.append(f"  - … {len(run.cells) - limit} more cells in claims_cells.tsv")
    return lines


def claims_md(paper: str, study: str, verdicts, run_verdicts, rows: Sequence[Mapping], named: bool) -> str:
    title = TITLES.get(paper, paper)
    head = summary_line(f"{title} ({study}'s tables)", verdicts) + "; " + run_summary(run_verdicts)
    who = ("the run's models under their paper names" if named else
           "the run's own models, standing in the cells of the paper's first model of each claim "
           "(no model has a paper_name)")
    lines = [f"# Claims: {title}, {study}", "", head, "",
             "Each claim of the paper that reads this study's tables (resources/claims, docs/claims.md). "
             "Published: the whole claim on the paper's own tables, k of n cells. This run: the claim's cells "
             f"of this study's tables on its units ({who}): supported / contradicted / undecided / not run "
             "(paired tests, Holm within the claim, alpha 0.05). Every contrast: claims_cells.tsv.", "",
             "| Claim | Quantifier | Published (k of n) | Published verdict | This run | Cells (sup/con/und/missing) "
             "| Evidence |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        links = ", ".join(f"[{Path(e).name}]({e})" for e in r["evidence"].split())
        lines.append(f"| {r['claim']}: {r['title']} | {r['quantifier']} | {r['published_k']} of {r['published_n']} "
                     f"| {r['published_verdict']} | {r['run_verdict']} | {r['run_supported']}/{r['run_contradicted']}/"
                     f"{r['run_undecided']}/{r['run_missing']} of {r['run_cells']} | {links} |")
    lines.append("")
    for run, r in zip(run_verdicts, rows):
        lines += [f"## {r['claim']}: {r['title']}", "", f"> {run.claim.quote.strip()}", "",
                  f"Reading ({run.claim.quantifier}): {run.claim.reading.strip()}", "",
                  f"Tables here: {r['tables_here']} (claim: {r['tables']}). This run: {run.summary}.", ""]
        lines += _cell_lines(run) + [""]
    return "\n".join(lines).rstrip() + "\n"


# --- the studies' units under the published keys -----------------------------------------------

def _units(ids: Sequence[Any], values: Sequence[float], scale: float) -> CellUnits | None:
    v = np.asarray(values, dtype=float)
    keep = np.isfinite(v)
    ids = [str(u) for u, k in zip(ids, keep) if k]
    return CellUnits(ids, v[keep].tolist(), scale) if ids else None


def authority_units(cells: Mapping[tuple, Mapping[tuple, tuple]], names: Mapping[str, str],
                    run_models: Sequence[str]) -> dict:
    """DomainAuth's / EntityAuth's units (:func:`authbench.studies.authority.comparisons.read_units`:
    group -> cell -> (unit codes, values)) under Tables 1-4, 6, 9-12's keys
    (:func:`authbench.studies.scorecard.authority_keys`): a list's ρ or τ, a
    pair's 0/1, in percent."""
    from authbench.studies.scorecard import authority_keys

    out = {}
    for (benchmark, setting, difficulty, metric), by_cell in cells.items():
        for (model, context, judge, derivation), (codes, values) in by_cell.items():
            label = names.get(model, model if model in run_models else None)
            if label is None:
                continue
            for table, judge_label, where, name in authority_keys(benchmark, setting, difficulty, metric, judge,
                                                                  derivation):
                units = _units(codes, values, 100.0)
                if units is not None:
                    out[cell_key(table, name, label, judge_label, context, **where)] = units
    return out


def category_units(predictions: pd.DataFrame | None, names: Mapping[str, str], run_models: Sequence[str]) -> dict:
    """Table 8's per-domain PointJudge bias (prediction − true level) and
    prediction, per model, context and category: the domains are the units."""
    out: dict = {}
    if predictions is None or predictions.empty:
        return out
    df = predictions.assign(level=pd.to_numeric(predictions["level"], errors="coerce"),
                            pred=pd.to_numeric(predictions["pred"], errors="coerce"),
                            category=predictions["category"].map(lambda c: str(c).strip().lower().lstrip(".")
                                                                 if isinstance(c, str) and c.strip() else None))
    df = df[df["category"].notna() & df["pred"].notna()]
    for (model, context, cat), g in df.groupby(["model", "context", "category"], sort=False):
        label = names.get(str(model), str(model) if str(model) in run_models else None)
        if label is None:
            continue
        for metric, values in (("bias", g["pred"] - g["level"]), ("mean_pred_score", g["pred"])):
            units = _units(g["domain"].astype(str).tolist(), values.tolist(), 1.0)
            if units is not None and len(set(units.units)) == len(units.units):
                out[cell_key(8, metric, label, "point", str(context), category=cat)] = units
    return out


def rag_units(units: pd.DataFrame, names: Mapping[str, str], run_models: Sequence[str]) -> dict:
    """Table 5's answer accuracy: each question's 0/1 correct, per model,
    strategy and k (the ``all`` topic), in percent."""
    out = {}
    for (model, strategy, k), g in units.groupby(["model", "strategy", "k"], sort=False):
        label = names.get(str(model), str(model) if str(model) in run_models else None)
        if label is None:
            continue
        cell = _units(g["qid"].astype(str).tolist(), pd.to_numeric(g["correct"], errors="coerce").tolist(), 100.0)
        if cell is not None:
            out[cell_key(5, "answer_accuracy", label, str(strategy), "", k=str(k))] = cell
    return out


SCORE_TABLES = {("normal", True): 6, ("normal", False): 7, ("rag", True): 8, ("rag", False): 9}
# Table 3's metric -> its unit column; self preference: the same-factuality pairs' (rows.same_factuality)
RATE_METRICS = {"self_preference": "self_same", "order_preference": "first", "factual_preference": "true_chosen"}


def selfpref_where(dataset: str) -> dict[str, str]:
    """A self-preference dataset's setting in the paper's keys (``nq`` -> ``{"dataset": "NQ"}``)."""
    from authbench.studies.scorecard import SP_DATASETS

    return {"dataset": SP_DATASETS.get(dataset.lower(), dataset)}


def selfpref_units(units: Mapping[str, pd.DataFrame], dataset: str, self_map: Mapping[str, str],
                   names: Mapping[str, str], run_models: Sequence[str]) -> dict:
    """One dataset's self-preference units (``units_<name>.parquet``) under
    Tables 2, 3 and 6-9's keys, questions as the units: a question's mean
    score of an author's passages (Tables 6-9, Table 2's Human and self
    rows), its mean human − self difference (Table 2's Diff), its share of
    comparisons where the evaluator chose its own passage (same-factuality
    pairs only), the first one, the true one (Table 3), in percent."""
    from authbench.studies.scorecard import SP_DATASETS, sp_author_names
    from authbench.studies.selfpref.rows import NORMAL

    ds = SP_DATASETS.get(dataset.lower(), dataset)
    keyed = {ev: names.get(ev, ev if ev in run_models else None) for ev in self_map}
    keyed = {ev: label for ev, label in keyed.items() if label is not None}
    authors = sp_author_names(self_map, {**{ev: ev for ev in keyed}, **names})
    out = {}
    rerank = units.get("rerank")
    if rerank is not None and len(rerank):
        scores = rerank[(rerank["variant"] == NORMAL) & rerank["score"].notna()]
        for (ev, prompt, factual, author), g in scores.groupby(["evaluator", "prompt", "factual", "author"],
                                                               sort=False):
            if ev not in keyed or str(author) not in authors:
                continue
            per_q = g.groupby("qid", sort=True)["score"].mean()
            passage = "TRUE" if bool(factual) else "FALSE"
            cell = _units(per_q.index.tolist(), per_q.tolist(), 1.0)
            table = SCORE_TABLES.get((str(prompt), bool(factual)))
            if cell is None or table is None:
                continue
            out[cell_key(table, "mean_score", keyed[ev], str(prompt), "", dataset=ds, author=authors[str(author)],
                         passage=passage)] = cell
            if authors[str(author)] == "Human" and bool(factual):
                out[cell_key(2, "mean_score", keyed[ev], str(prompt), "", dataset=ds, author="Human")] = cell
            if str(author) == self_map.get(ev):
                out[cell_key(2, "mean_score", keyed[ev], str(prompt), "", dataset=ds, author="self",
                             passage=passage)] = cell
                human = scores[(scores["evaluator"] == ev) & (scores["prompt"] == prompt)
                               & (scores["author"].map(lambda a: authors.get(str(a))) == "Human")
                               & scores["factual"].astype(bool)].groupby("qid", sort=True)["score"].mean()
                both = human.index.intersection(per_q.index)
                diff = _units(both.tolist(), (human[both] - per_q[both]).tolist(), 1.0)
                if diff is not None:
                    out[cell_key(2, "diff_h_minus_m", keyed[ev], str(prompt), "", dataset=ds, author="self",
                                 passage=passage)] = diff
    comparisons = units.get("comparisons")
    if comparisons is not None and len(comparisons):
        gen = comparisons[comparisons["variant"] == NORMAL]
        for ev, mine in gen.groupby("evaluator", sort=False):
            if ev not in keyed:
                continue
            groups = [("Aggregated", mine)] + [(authors.get(str(o)), g) for o, g in mine.groupby("other_author",
                                                                                                 sort=False)]
            for other, g in groups:
                if other is None:
                    continue
                for metric, col in RATE_METRICS.items():
                    sub = g[g[col].notna()]
                    per_q = sub.groupby("qid", sort=True)[col].mean()
                    cell = _units(per_q.index.tolist(), per_q.tolist(), 100.0)
                    if cell is not None:
                        out[cell_key(3, metric, keyed[ev], "", "", dataset=ds, other=other)] = cell
    return out


def table_files(report: Any) -> dict[int, str]:
    """Table number -> the report file of its item (``tables/table<N>_*.md``)."""
    import re

    out: dict[int, str] = {}
    for it in report.items:
        m = re.match(r"table(\d+)_", it.stem)
        if m and it.kind == "tables":
            out.setdefault(int(m.group(1)), f"tables/{it.stem}.md")
    return out
