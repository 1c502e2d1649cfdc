"""The papers' numbers beside ours: each report's ``scorecard.md`` and
``scorecard.tsv``.

Every published number of a report's tables (:mod:`authbench.papers`) is
matched to the number this run reproduced in the same place: the same
published key (table, metric and the paper's parts, the model the config
maps to the paper's row by ``models.<name>.paper_name``), in the paper's
units; ``scorecard.tsv`` writes the keys in the 11-column layout
(:func:`authbench.papers.published.as_columns`). Each study gives its numbers keyed by published key, once
(:class:`authbench.studies.keyed.Keyed`: the scorecard and the claims read
the same ones) and says why a published number has no counterpart (its
``*_reason`` function and :class:`Coverage`); :func:`compare` matches,
:func:`write_scorecard` writes.

A row is ``model`` (a judge's or evaluator's number: it needs a configured
model) or ``data`` (counted from the shipped or built data alone: corpus
sizes, the caption's category means, the released GPT-3.5 knowledge levels),
compared on every run, the demo included; a data row of a sample the config
makes smaller than the paper's says so in ``scope`` instead of counting as a
miss. ``lo``/``hi``: the reproduced number's 95% interval where the study
computed one; ``inside`` is then ``yes``/``no``, else ``n/a``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import pandas as pd
from authbench.config import paper_name
from authbench.claims.keys import COLUMNS as KEY
from authbench.claims.keys import rows_from_frame
from authbench.papers import load, paper_models
from authbench.papers.published import as_columns
from authbench.records import write_frame, write_text
from authbench.studies.keyed import RELEASED_RUN, Keyed, scorecard_rows

__all__ = ["AVERAGE", "COLUMNS", "NOT_CONFIGURED", "NO_VALUE", "Coverage", "compare", "coverage_of", "coverage_params",
           "write_paper_scorecard", "write_scorecard"]

# the columns of scorecard.tsv: a number's key in the 11-column layout (KEY, authbench.claims.keys.COLUMNS) and more
COLUMNS = ("kind", "table", "model", "ours", "judge", "context", "setting", "metric", "reproduced", "lo", "hi",
           "published", "delta", "inside", "scope", "where")
MISSING_COLUMNS = ("table", "model", "judge", "context", "setting", "metric", "published", "reason", "where")

# reasons a published number has no counterpart
NOT_CONFIGURED = "model not configured (no model with this paper_name)"
AVERAGE = "the paper's average over its models (not recomputed)"
NO_VALUE = "in the grid, but the run gave no value"

def coverage_params(config: Mapping[str, Any], study: str) -> dict:
    """What a report step needs to tell a missing counterpart's reason
    (rules pass it as ``params["scorecard"]``; plain config values, no
    heavy import): every active model's ``paper_name`` (None: none) of
    ``study``'s models, the judges, contexts and settings, and the parts
    every registered study adds (:attr:`authbench.studies.registry.Study.coverage`:
    AuthorityBench's EntityAuth datasets and sample sizes, RAGAuth's strategies and k)."""
    from authbench.config import models_for
    from authbench.studies.registry import coverage_parts

    return {"models": {name: spec.get("paper_name") for name, spec in models_for(config, study).items()},
            "judges": list(config["judges"]), "contexts": list(config["contexts"]),
            "settings": list(config["settings"]), **coverage_parts(config)}


BASE = ("models", "judges", "contexts", "settings")  # coverage_params' own keys; the rest are the studies' parts


@dataclass(frozen=True)
class Coverage:
    """What one report's run covers, as the scorecard reads it: ``names`` our model ->
    its paper name (in this paper), the judges, contexts and settings that ran,
    and ``covered``: the parts the studies add (:attr:`authbench.studies.registry.Study.coverage`;
    a study reads its own, e.g. ``covered.get("strategies", ())``)."""

    names: Mapping[str, str]
    judges: Sequence[str] = ()
    contexts: Sequence[str] = ()
    settings: Sequence[str] = ()
    datasets: Sequence[str] = ()  # self-preference: the paper's labels of this report's dataset
    covered: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, params: Mapping[str, Any], paper: str, **more) -> Coverage:
        known = paper_models(paper)
        named = {m: paper_name(given, paper, known) for m, given in params["models"].items()}
        names = {m: n for m, n in named.items() if n is not None}
        return cls(names, params["judges"], params["contexts"], params["settings"],
                   covered={k: v for k, v in params.items() if k not in BASE}, **more)

    @property
    def paper_names(self) -> set[str]:
        return set(self.names.values())


# --- matching and writing ---------------------------------------------------------------------

def compare(paper: str, tables: Sequence[int], numbers: Sequence[Keyed], reason,
            published: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Match every published number of ``paper``'s ``tables`` to this run's
    ``numbers`` with its key (several configured models may share a paper
    name: one row each; :func:`authbench.studies.keyed.scorecard_rows`: the
    data rows and the named models' rows). Returns the matched rows
    (:data:`COLUMNS`) and the published numbers without a counterpart
    (:data:`MISSING_COLUMNS`; ``reason(parts)`` says why, from the published
    number's parts: ``table``, ``metric`` and the paper's own; a number that
    is NaN is no counterpart). The keys meet as keys; the rows show the
    published key in the 11-column layout, as the paper's file writes it."""
    pub = load(paper) if published is None else published
    pub = pub[pub["table"].isin(list(tables))].reset_index(drop=True)
    rows = rows_from_frame(pub)
    canon = [repr(tuple(r.key)) for r in rows]
    parts = {c: r.parts for c, r in zip(canon, rows)}
    shown = as_columns(pub, paper).assign(canon=canon)
    ours = pd.DataFrame(scorecard_rows(numbers, paper),
                        columns=[*KEY, "key", "ours", "reproduced", "lo", "hi", "kind", "scope", "asked"])
    ours = ours[ours["reproduced"].notna()]
    ours = ours.assign(canon=[repr(tuple(k)) for k in ours["key"]]).drop(columns=[*KEY, "key"])
    merged = shown.merge(ours, on="canon", how="left", indicator=True)
    hit = merged[merged["_merge"] == "both"].rename(columns={"value": "published"})
    sampled = hit["asked"].notna() & (hit["asked"] != hit["published"])
    hit = hit.assign(delta=hit["reproduced"] - hit["published"],
                     scope=hit["scope"].where(~sampled, [f"sample: the config asks for {a:g}" for a in hit["asked"]]))
    inside = [("yes" if lo <= p <= hi else "no") if not (math.isnan(lo) or math.isnan(hi)) else "n/a"
              for lo, hi, p in zip(hit["lo"].astype(float), hit["hi"].astype(float), hit["published"])]
    hit = hit.assign(inside=inside)[list(COLUMNS)].reset_index(drop=True)
    miss = merged[merged["_merge"] == "left_only"].rename(columns={"value": "published"})
    miss = miss.assign(reason=[reason(parts[c]) for c in miss["canon"]])[list(MISSING_COLUMNS)]
    return hit, miss.reset_index(drop=True)


COUNTS = ("corpus_items", "listwise_instances", "pairwise_instances", "queries", "n_domains")  # shown as integers


def _fmt(x: float, metric: str = "") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.0f}" if metric in COUNTS else f"{x:.2f}"


def summary(hit: pd.DataFrame, miss: pd.DataFrame) -> str:
    """The scorecard's first line: numbers compared, inside the interval (of
    those with one), median |Δ| (of the judges' numbers: the data rows are
    counts of other units), the data rows (those on a smaller sample), and the published numbers without a counterpart."""
    model, data = hit[hit["kind"] == "model"], hit[hit["kind"] == "data"]
    with_interval = hit[hit["inside"] != "n/a"]
    median = model["delta"].abs().median() if len(model) else math.nan
    runs = data["ours"].astype(str).str.startswith(RELEASED_RUN)
    sampled = int(((data["scope"] != "") & ~runs).sum())
    return (f"{len(hit)} published numbers compared: {len(model)} judge numbers, "
            f"{int((with_interval['inside'] == 'yes').sum())} of the {len(with_interval)} with an interval inside it, "
            f"median |Δ| {_fmt(median) or '–'}; {len(data)} from data alone ({sampled} on a smaller sample than the "
            f"paper's, {int(runs.sum())} of the authors' released runs); {len(miss)} published numbers without a "
            "counterpart.")


EXPLAIN = ("Each published number (resources/published/) beside the number this run reproduced in the same place, "
           "in the paper's units; [lo, hi]: its 95% interval where the run has one (inside: the published value lies "
           "in it; n/a: no interval). kind data: counted from the data alone; scope: where the config samples less "
           "than the paper did.")
HEADER = ("| kind | table | model | ours | judge | context | setting | metric | reproduced | [lo, hi] | published | Δ "
          "| inside | scope |")


def scorecard_md(title: str, hit: pd.DataFrame, miss: pd.DataFrame) -> str:
    """The scorecard as Markdown: title, :func:`summary`, what the columns
    mean, the compared numbers, the missing ones counted by reason."""
    lines = [f"# Scorecard: {title}", "", summary(hit, miss), "", EXPLAIN, ""]
    if len(hit):
        lines += [HEADER, "|" + "---|" * 14]
        for r in hit.to_dict("records"):
            interval = f"[{_fmt(r['lo'])}, {_fmt(r['hi'])}]" if r["inside"] != "n/a" else ""
            lines.append("| " + " | ".join(str(x) for x in (
                r["kind"], r["table"], r["model"], r["ours"], r["judge"], r["context"], r["setting"], r["metric"],
                _fmt(r["reproduced"], r["metric"]), interval, _fmt(r["published"], r["metric"]),
                _fmt(r["delta"], r["metric"]), r["inside"], r["scope"]))
                + " |")
        lines.append("")
    if len(miss):
        lines += ["## Published numbers without a counterpart", "", "| reason | tables | numbers |", "|---|---|---|"]
        for reason, g in miss.groupby("reason", sort=True):
            tables = ", ".join(str(t) for t in sorted(set(g["table"])))
            lines.append(f"| {reason} | {tables} | {len(g)} |")
        lines.append("")
    return "\n".join(lines)


def write_scorecard(outdir: str | Path, title: str, hit: pd.DataFrame, miss: pd.DataFrame,
                    extra: str = "") -> list[Path]:
    """``scorecard.md`` (the summary line, the compared numbers, the missing
    ones counted by reason; then ``extra``, e.g. the significance marks) and
    ``scorecard.tsv`` (the compared numbers, then the missing ones with
    ``reason``) under ``outdir``."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    md, tsv = out / "scorecard.md", out / "scorecard.tsv"
    write_text(md, scorecard_md(title, hit, miss) + (f"\n{extra}" if extra else ""))
    frame = pd.concat([hit.assign(reason=""), miss.assign(kind="", inside="")], ignore_index=True)
    frame = frame.reindex(columns=[*COLUMNS, "reason"])
    write_frame(frame, tsv, sep="\t", index=False, float_format="%.6g")
    return [md, tsv]


# --- each report's scorecard ------------------------------------------------------------------

def coverage_of(params: Mapping[str, Any] | None, paper: str, **more) -> Coverage:
    """The report's :class:`Coverage` from :func:`coverage_params` (None: no model is named)."""
    return Coverage.of(params, paper, **more) if params else Coverage({}, **more)


def write_paper_scorecard(outdir: str | Path, title: str, paper: str, tables: Iterable[int],
                          numbers: Sequence[Keyed], reason_of: Callable[[Mapping, Coverage], str],
                          params: Mapping[str, Any] | None, extra: str = "", **coverage_more) -> list[Path]:
    """A report's scorecard (:func:`write_scorecard`): ``numbers`` this run's
    numbers keyed by published key, ``reason_of(row, grid)`` why a published
    one has no counterpart; ``params``: :func:`coverage_params` (None: no model
    is named); ``extra``: a section after the numbers."""
    coverage = coverage_of(params, paper, **coverage_more)
    return write_scorecard(outdir, title, *compare(paper, tables, numbers, lambda r: reason_of(r, coverage)),
                           extra=extra)
