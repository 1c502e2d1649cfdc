"""The AuthorityBench reports written from the long metrics table, the
labels, the PointJudge predictions and the cell manifests. Which tables and
figures a DomainAuth or EntityAuth report holds, with the paper's captions,
is declared in :mod:`authbench.studies.authority.outputs`
(:data:`~authbench.studies.authority.outputs.DOMAINAUTH`,
:data:`~authbench.studies.authority.outputs.ENTITYAUTH`); :class:`Inputs`
builds them and adds what the data says to their captions: the parse mode,
judge validity, the intervals (from the metric rows' ``lo`` / ``hi``) and the
paired comparisons' tags (:mod:`authbench.studies.authority.comparisons`,
written beside the tables as ``comparisons.tsv`` / ``comparisons.md``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd
from authbench.records import write_frame, write_text
from authbench.render import costs
from authbench.render.catalog import Report, contents_md, write_tables
from authbench.render.comparisons import write_comparisons
from authbench.render.tables import NOT_BEST_TAG, NOT_RANDOM_TAG, TableSpec, has_blank_interval, stack_tables
from authbench.stats import ALPHA, IntervalSpec
from authbench.studies.authority import figures, tables
from authbench.studies.authority.comparisons import compare, read_units, tag_column
from authbench.studies.authority.diagnostics import (DAGGER, DIAGNOSTICS, FLAGGED_MEANS, ValidityRule, flagged_cells,
                                                     has_diagnostics, validity_frame, validity_note)
from authbench.studies.authority.domains import describe_categories
from authbench.studies.authority.evaluate import PARSE_MODES
from authbench.studies.authority.outputs import DOMAINAUTH, ENTITYAUTH, Results
from authbench.studies.scorecard import DOMAINAUTH_TABLES, ENTITYAUTH_TABLES, write_authority_scorecard

log = logging.getLogger("authbench")

PARSE_TEXT = {
    "strict": "a failed reply contributes no prediction: its items rank last, its pair counts as wrong",
    "lenient": "a failed reply contributes what the parser recovered: the last verdict, a ranking repaired in "
               "presentation order",
}


def report_folder(outdir: str | Path, metric_files: Sequence[str]) -> tuple[Path, pd.DataFrame]:
    """The report folder (tables/, figures/ created) and the concatenated
    metrics, saved as metrics.tsv (both parse modes: column ``parse``)."""
    out = Path(outdir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    metrics = pd.concat([pd.read_csv(f, sep="\t") for f in metric_files], ignore_index=True)
    write_frame(metrics, out / "metrics.tsv", sep="\t", index=False)
    return out, metrics


def other_mode(parse: str) -> str:
    if parse not in PARSE_MODES:
        raise ValueError(f"parse mode must be one of {PARSE_MODES}, got {parse!r}")
    return PARSE_MODES[1 - PARSE_MODES.index(parse)]


def parse_rows(metrics: pd.DataFrame, parse: str) -> pd.DataFrame:
    """The metric rows of one parse mode; rows without a mode (the non-LLM
    baselines parse nothing) belong to both. A table without the ``parse``
    column is returned as it is."""
    other_mode(parse)
    if "parse" not in metrics.columns:
        return metrics
    mode = metrics["parse"]
    return metrics[mode.isna() | (mode.astype(str) == "") | (mode.astype(str) == parse)]


def parse_note(shown: TableSpec, other: TableSpec | None, parse: str) -> str:
    """The caption's sentence on parse modes: which mode produced the numbers
    and what the other mode gives: how many of the table's judge values
    (the marked columns: ρ, τ, accuracy) differ, and by how much at most."""
    alt = other_mode(parse)
    text = f" Parsing: {parse} ({PARSE_TEXT[parse]})."
    if other is None:
        return text
    columns = [c for labels in shown.highlight_groups.values() for c in labels]
    a = shown.values[columns]
    b = other.values.reindex(index=a.index, columns=columns)
    both_nan = a.isna() & b.isna()
    changed = ~both_nan & ((a - b).abs().fillna(float("inf")) > 0)
    n_values, n_changed = int(a.notna().sum().sum()), int(changed.sum().sum())
    if n_changed == 0:
        return text + f" {alt.capitalize()} parsing ({PARSE_TEXT[alt]}) gives the same {n_values} values here."
    largest = (a - b).abs().max().max()
    return (text + f" {alt.capitalize()} parsing ({PARSE_TEXT[alt]}) changes {n_changed} of {n_values} values here"
            + (f", by at most {largest:.2f} points" if pd.notna(largest) else "")
            + " (both modes in metrics.tsv, column parse; config key parse).")


VALIDITY_COLUMNS = (*DIAGNOSTICS, "flag", "why")


def write_costs(out: Path, manifests: Sequence[str], metrics: pd.DataFrame, rule: ValidityRule | None = None) -> str:
    """The cost table with each cell's judge-validity diagnostics (on its own
    label scale), ``flag`` ``†`` and, in the CSV, ``why``; the cost-vs-ρ figure.
    Returns the figure's line for contents.md (empty when the grid has no list
    cell with a ρ)."""
    table = costs.cost_rows(manifests)
    quality = costs.with_quality(table, metrics)
    cells = set(table[["benchmark", "model", "context", "setting", "judge"]].astype(str).itertuples(index=False))
    named = [f"{b} {m} {tables.context_label(c)} {s} {j}: " + "; ".join(why)
             for (b, m, c, s, j), why in flagged_cells(metrics, rule).items() if (b, m, c, s, j) in cells]
    caption = (f" Judge validity (docs/decisions.md): {', '.join(DIAGNOSTICS)}; flag {DAGGER}: {FLAGGED_MEANS}"
               + (" (" + " | ".join(named) + ")." if named else "; no cell is flagged."))
    validity = validity_frame(metrics, rule)[[*costs.CELL_COLUMNS, *VALIDITY_COLUMNS]]
    if validity.empty:  # metrics written before the diagnostics existed: no claim either way
        caption = ""
    costs.write_cost_table(table, quality, out / "tables" / "costs", validity, md_hidden=("why",), caption=caption)
    costs.plot_cost_vs_rho(quality, out / "figures" / "cost_vs_rho.png")
    if quality["rho"].notna().any():
        return "written"
    return "written, empty: no fine or coarse list cell with a rho in this grid (config key 'settings')"


def write_contents(out: Path, report: Report, grid: str, plan: Mapping, costs_status: str,
                   comparisons: pd.DataFrame) -> None:
    """``contents.md`` of a report folder (:func:`authbench.render.catalog.contents_md`:
    every table of the study, written or skipped with the reason, a grid
    without some setting or judge, then the paired comparisons); the skipped
    ones are also logged."""
    for stem, reason in plan["skipped"].items():
        log.info("%s: %s skipped: %s", report.name, report.item(stem).title, reason)
    n_yes = int((comparisons["distinct"] == "yes").sum())
    row = (f"| Paired comparisons | comparisons.md, comparisons.tsv | written: {len(comparisons)} comparisons, "
           f"{n_yes} distinguishable |\n")
    write_text(out / "contents.md", contents_md(report, plan, grid, {"cost_vs_rho": costs_status}) + row)


def write_report_comparisons(out: Path, report: Report, units: Sequence[str], parse: str,
                             spec: IntervalSpec) -> tuple[pd.DataFrame, dict]:
    """``comparisons.tsv`` / ``comparisons.md`` of the cells' units (the shown
    parse mode) and the tags of the metric rows."""
    frame, tags = compare(read_units(units, parse), spec)
    write_comparisons(frame, out / "comparisons", f"{report.name}: paired comparisons (parsing: {parse})")
    log.info("%s: %d paired comparisons, %d distinguishable", report.name, len(frame),
             int((frame["distinct"] == "yes").sum()))
    return frame, tags


def interval_note(spec: TableSpec, units: str, intervals: IntervalSpec | None, show: str) -> str:
    """The caption's sentences on the intervals (why one is blank) and the
    paired-comparison tags of ``spec``."""
    if intervals is None or not any(spec.with_interval):
        return ""
    where = "in the CSV (lo, hi)" if show == "off" else "[lo, hi]"
    text = (f" {where}: {intervals.level:.0%} percentile-bootstrap interval over the {units} "
            f"({intervals.resamples} resamples, seeded)")
    if has_blank_interval(spec):
        text += f"; blank: fewer than {intervals.min_units} {units}"
    text += "."
    tags = "".join(spec.tags.to_numpy().ravel().tolist())
    test = (f"paired bootstrap over the same {units}, Holm-adjusted p ≥ {ALPHA} within its family or too few "
            f"{units}; comparisons.md")
    if NOT_RANDOM_TAG in tags:
        text += f" {NOT_RANDOM_TAG}: not distinguishable from baseline:random ({test})."
    if NOT_BEST_TAG in tags:
        text += f" {NOT_BEST_TAG}: not distinguishable from the best value of its column (same test, against it)."
    return text


@dataclass
class Inputs:
    """What a report's tables are built from (``build``/``caption_of`` of the
    items of :data:`~authbench.studies.authority.outputs.DOMAINAUTH` and
    :data:`~authbench.studies.authority.outputs.ENTITYAUTH`): the metric rows
    of the shown parse mode (``metrics``) and of the other (``alt``, None when
    the rows carry no parse mode), the datasets (several: one stacked block
    each), the validity rule, and DomainAuth's PointJudge predictions."""

    metrics: pd.DataFrame
    alt: pd.DataFrame | None
    datasets: Sequence[str]
    parse: str
    rule: ValidityRule | None
    coarse_source: str = "lists"
    predictions: pd.DataFrame | None = None
    category_order: Sequence[str] = ()
    categories: Mapping[str, Mapping] | None = None
    intervals: IntervalSpec | None = None  # config intervals (their caption sentence; Table 8's)
    show: str = "inline"  # config intervals.show

    def _spec(self, results: Results, metrics: pd.DataFrame) -> TableSpec:
        if len(self.datasets) == 1 and not self.datasets[0].startswith("entityauth/"):
            return results.build(metrics, self.datasets[0], self.rule)
        return stack_tables([(d.split("/", 1)[1].capitalize(), results.build(metrics, d, self.rule))
                             for d in self.datasets], "Domain")

    def results(self, results: Results) -> TableSpec:
        return self._spec(results, self.metrics)

    def results_caption(self, results: Results, caption: str, spec: TableSpec) -> str:
        """The definition's caption (Table 6's rescored one under
        ``coarse_source: rescore``), the parse-mode sentence and the
        judge-validity sentence (its cells marked ``†`` and why)."""
        other = self._spec(results, self.alt) if self.alt is not None and results.judges else None
        head = results.rescored if results.rescored and self.coarse_source == "rescore" else caption
        entity = self.datasets[0].startswith("entityauth/")
        units = {"pairs": "pairs", "expected": "lists or pairs"}.get(results.kind, "lists")
        # metrics written before issue 21 have no intervals: no claim either way
        note = interval_note(spec, units, self.intervals if "lo" in self.metrics.columns else None, self.show)
        if not results.judges:  # the E[s] table marks nothing (its rows are not the results tables')
            return head + parse_note(spec, other, self.parse) + note
        return head + parse_note(spec, other, self.parse) + validity_note(
            flagged_cells(self.metrics, self.rule), self.datasets, results.setting, results.judges,
            tables.context_label, (lambda b: b.split("/", 1)[1].capitalize()) if entity else None,
            has_diagnostics(self.metrics, self.datasets, results.setting)) + note

    def categories_table(self) -> TableSpec:
        return tables.table_categories(self.predictions, self.category_order, intervals=self.intervals)

    def categories_caption(self, caption: str, spec: TableSpec) -> str:
        """Table 8's: the category rules (config), what a failed reply gives
        and the intervals (over the scored items)."""
        return (caption + (" " + describe_categories(self.categories) if self.categories else "")
                + (" Parsing: strict (a failed reply contributes no score: its item counts as unscored)."
                   if self.parse == "strict" else
                   " Parsing: lenient (a failed reply contributes the score the parser recovered, if any).")
                + interval_note(spec, "scored items", self.intervals, self.show))


def _inputs(every: pd.DataFrame, parse: str, datasets: Sequence[str], rule: ValidityRule | None,
            tags: Mapping[tuple, str], **more) -> Inputs:
    """The report's inputs: the shown parse mode's rows with their comparison
    tags (column ``tag``), the other mode's rows."""
    shown = parse_rows(every, parse)
    shown = shown.assign(tag=tag_column(shown, tags))
    return Inputs(shown, parse_rows(every, other_mode(parse)) if "parse" in every.columns else None,
                  list(datasets), parse, rule, **more)


def write_domainauth_report(outdir: str | Path, metric_files: Sequence[str], labels: str, predictions: Sequence[str],
                            manifests: Sequence[str], plan: Mapping, category_order: Sequence[str],
                            categories: Mapping[str, Mapping] | None = None, parse: str = "strict",
                            validity: Mapping | None = None, grid: str = "", scorecard: Mapping | None = None,
                            units: Sequence[str] = (), intervals: IntervalSpec = IntervalSpec(),
                            show: str = "inline") -> None:
    """DomainAuth's tables of ``plan`` (:func:`authbench.render.catalog.plan` of
    :data:`~authbench.studies.authority.outputs.DOMAINAUTH`: written and
    skipped stems), Figure 3, Figure 6 (with predictions), the cost table,
    metrics.tsv and contents.md (``grid``: the grid's one-line summary).
    ``categories``: the config's category rules (worded in Table 8's caption);
    ``parse``: the parse mode whose numbers the tables show; ``validity``:
    config ``judge_validity`` (None: its defaults), the rule behind ``†``; ``scorecard``: the grid
    (:func:`authbench.studies.scorecard.grid_params`) of ``scorecard.md`` (None: no model is named);
    ``units``: the cells' and baselines' units (the paired comparisons);
    ``intervals``, ``show``: config ``intervals``."""
    out, every = report_folder(outdir, metric_files)
    rule = ValidityRule.from_config(validity)
    pred = None
    if predictions:
        pred = pd.concat([pd.read_csv(f, sep="\t", keep_default_na=False, na_values=[""]) for f in predictions],
                         ignore_index=True)
        pred["category"] = pred["category"].where(pred["category"].notna(), None)
    frame, tags = write_report_comparisons(out, DOMAINAUTH, units, parse, intervals)
    inputs = _inputs(every, parse, ["domainauth"], rule, tags, predictions=pred, category_order=category_order,
                     categories=categories, intervals=intervals, show=show)
    write_contents(out, DOMAINAUTH, grid, plan, write_costs(out, manifests, inputs.metrics, rule), frame)
    write_tables(DOMAINAUTH, plan["written"], inputs, out, show)
    figures.plot_label_distribution(pd.read_csv(labels, sep="\t", keep_default_na=False),
                                    out / "figures" / "fig3_label_distribution.png")
    if pred is not None:
        figures.plot_bias_heatmap(pred, out / "figures" / "fig6_bias_heatmap.png", intervals)
    write_authority_scorecard(out, DOMAINAUTH.name, DOMAINAUTH_TABLES, inputs.metrics, scorecard, pred)


def write_entityauth_report(outdir: str | Path, metric_files: Sequence[str], datasets: Sequence[str],
                            labels: Sequence[str], reuse: Sequence[str], manifests: Sequence[str],
                            plan: Mapping, coarse_source: str = "lists", parse: str = "strict",
                            validity: Mapping | None = None, grid: str = "",
                            score_names: Mapping[str, str] | None = None, scorecard: Mapping | None = None,
                            units: Sequence[str] = (), intervals: IntervalSpec = IntervalSpec(),
                            show: str = "inline") -> None:
    """EntityAuth's tables of ``plan`` (one block per dataset), Figure 3, reuse.tsv, costs, metrics.tsv and
    contents.md (``plan``, ``grid``: as :func:`write_domainauth_report`'s, of
    :data:`~authbench.studies.authority.outputs.ENTITYAUTH`).
    ``coarse_source`` (``entityauth.coarse_source``) says where Table 6's rows come from (its caption);
    ``parse``: the parse mode whose numbers the tables show; ``validity``:
    config ``judge_validity`` (None: its defaults), the rule behind ``†``; ``score_names``: dataset -> what
    its labels' score is, for Figure 3 (default sitelinks); ``scorecard``, ``units``, ``intervals``, ``show``:
    as :func:`write_domainauth_report`'s."""
    out, every = report_folder(outdir, metric_files)
    rule = ValidityRule.from_config(validity)
    frame, tags = write_report_comparisons(out, ENTITYAUTH, units, parse, intervals)
    inputs = _inputs(every, parse, [f"entityauth/{d}" for d in datasets], rule, tags, coarse_source=coarse_source,
                     intervals=intervals, show=show)
    write_contents(out, ENTITYAUTH, grid, plan, write_costs(out, manifests, inputs.metrics, rule), frame)
    reuse_table = pd.concat([pd.read_csv(f, sep="\t").assign(dataset=d) for d, f in zip(datasets, reuse)])
    write_frame(reuse_table[["dataset", "setting", "level", "slots", "distinct", "max_uses"]], out / "reuse.tsv",
                sep="\t", index=False)
    write_tables(ENTITYAUTH, plan["written"], inputs, out, show)
    label_tables: Mapping[str, pd.DataFrame] = {
        d.capitalize(): pd.read_csv(f, sep="\t", keep_default_na=False) for d, f in zip(datasets, labels)}
    figures.plot_entity_label_distribution(label_tables, out / "figures" / "fig3_entityauth_label_distribution.png",
                                           {d.capitalize(): n for d, n in (score_names or {}).items()})
    write_authority_scorecard(out, ENTITYAUTH.name, ENTITYAUTH_TABLES, inputs.metrics, scorecard)
