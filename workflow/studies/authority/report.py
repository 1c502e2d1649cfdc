"""The AuthorityBench reports written from the long metrics table, the
labels, the PointJudge predictions and the cell manifests. Which tables and
figures a DomainAuth or EntityAuth report holds, with the paper's captions,
is declared in :mod:`authbench.studies.authority.outputs`
(:data:`~authbench.studies.authority.outputs.DOMAINAUTH`,
:data:`~authbench.studies.authority.outputs.ENTITYAUTH`); :class:`AuthorityData`
builds them and adds what the data says to their captions: the parse mode,
judge validity, the intervals (from the metric rows' ``lo`` / ``hi``) and the
paired comparisons' tags (:mod:`authbench.studies.authority.comparisons`,
written beside the tables as ``comparisons.tsv`` / ``comparisons.md``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd
from authbench.records import write_frame
from authbench.studies.authority import costs
from authbench.render.formatting import NOT_BEST_TAG, NOT_RANDOM_TAG
from authbench.render.intervals import blank_interval_words, interval_words
from authbench.render.tables import TableSpec, stack_tables
from authbench.stats import ALPHA, IntervalSpec
from authbench.studies.authority import figures, tables
from authbench.studies.authority.comparisons import compare, compare_consistency, read_units, split_orders, tag_column
from authbench.studies.authority.consistency import DERIVATION as CONSISTENCY_DERIVATION
from authbench.studies.authority.diagnostics import (DAGGER, DIAGNOSTICS, FLAGGED_MEANS, ValidityRule, flagged_cells,
                                                     has_diagnostics, validity_frame, validity_note)
from authbench.studies.authority.domains import describe_categories
from authbench.studies.authority.rows import PARSE_MODES
from authbench.studies.authority.outputs import Results

log = logging.getLogger("authbench")

PARSE_TEXT = {
    "strict": "a failed reply contributes no prediction: its items rank last, its pair counts as wrong",
    "lenient": "a failed reply contributes what the parser recovered: the last verdict, a ranking repaired in "
               "presentation order",
}


def read_metrics(metric_files: Sequence[str]) -> pd.DataFrame:
    """The cells' and baselines' metric rows, concatenated (both parse modes: column ``parse``)."""
    return pd.concat([pd.read_csv(f, sep="\t") for f in metric_files], ignore_index=True)


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
    validity = validity_frame(metrics, rule)  # with the optional diagnostics the metrics hold
    validity = validity[[*costs.CELL_COLUMNS, *(c for c in validity.columns if c not in costs.CELL_COLUMNS)]]
    if validity.empty:  # metrics written before the diagnostics existed: no claim either way
        caption = ""
    costs.write_cost_table(table, quality, out / "tables" / "costs", validity, md_hidden=("why",), caption=caption)
    costs.plot_cost_vs_rho(quality, out / "figures" / "cost_vs_rho.png")
    if quality["rho"].notna().any():
        return "written"
    return "written, empty: no fine or coarse list cell with a rho in this grid (config key 'settings')"


def interval_note(spec: TableSpec, units: str, intervals: IntervalSpec | None, show: str) -> str:
    """The caption's sentences on the intervals (why one is blank) and the
    paired-comparison tags of ``spec``."""
    if intervals is None or not any(spec.with_interval):
        return ""
    text = interval_words(intervals, units, show) + blank_interval_words(spec, intervals, units)
    tags = "".join(spec.tags.to_numpy().ravel().tolist())
    test = (f"paired bootstrap over the same {units}, Holm-adjusted p ≥ {ALPHA} within its family or too few "
            f"{units}; comparisons.md")
    if NOT_RANDOM_TAG in tags:
        text += f" {NOT_RANDOM_TAG}: not distinguishable from baseline:random ({test})."
    if NOT_BEST_TAG in tags:
        text += f" {NOT_BEST_TAG}: not distinguishable from the best value of its column (same test, against it)."
    return text


@dataclass
class AuthorityData:
    """A DomainAuth or EntityAuth report's data (:class:`authbench.render.catalog.ReportData`):
    the metric rows of both parse modes (``every``; the shown mode's with the
    paired comparisons' tags in ``metrics``, the other's in ``alt``, None
    when the rows carry no parse mode), the datasets (several: one stacked
    block each), the validity rule, the cells' units and manifests, and what
    the figures and the scorecard read (DomainAuth's PointJudge predictions,
    the label files)."""

    name: str  # the report's (DomainAuth, EntityAuth)
    every: pd.DataFrame
    datasets: Sequence[str]
    parse: str
    rule: ValidityRule | None
    units: Sequence[str] = ()
    manifests: Sequence[str] = ()
    labels: Sequence[str] = ()
    coarse_source: str = "lists"
    predictions: pd.DataFrame | None = None
    category_order: Sequence[str] = ()
    categories: Mapping[str, Mapping] | None = None
    intervals: IntervalSpec | None = None  # config intervals (their caption sentence; Table 8's)
    show: str = "inline"  # config intervals.show
    reuse: Sequence[str] = ()  # EntityAuth: each dataset's reuse.tsv
    score_names: Mapping[str, str] | None = None  # EntityAuth: dataset -> what its labels' score is (Figure 3)
    scorecard_coverage: Mapping | None = None  # authbench.studies.scorecard.coverage_params (None: no model is named)
    tags: Mapping[tuple, str] = field(default_factory=dict)

    @cached_property
    def one_order(self) -> pd.DataFrame:
        """The rows of the seeded order: all but the two-order rows (config
        ``position_consistency``), which only their own table reads."""
        if "derivation" not in self.every.columns:
            return self.every
        return self.every[self.every["derivation"].astype(str) != CONSISTENCY_DERIVATION]

    @cached_property
    def metrics(self) -> pd.DataFrame:
        shown = parse_rows(self.one_order, self.parse)
        return shown.assign(tag=tag_column(shown, self.tags))

    @cached_property
    def alt(self) -> pd.DataFrame | None:
        return parse_rows(self.one_order, other_mode(self.parse)) if "parse" in self.every.columns else None

    def consistency_table(self):
        """The position-consistency table (:mod:`authbench.studies.authority.consistency_table`), stacked per dataset."""
        from authbench.studies.authority.consistency_table import table_consistency

        shown, flags = parse_rows(self.every, self.parse), flagged_cells(self.metrics, self.rule)
        if len(self.datasets) == 1 and not self.is_entity:
            return table_consistency(shown, self.datasets[0], flags)
        return stack_tables([(d.split("/", 1)[1].capitalize(), table_consistency(shown, d, flags))
                             for d in self.datasets], "Domain")

    # --- ReportData ------------------------------------------------------------------------

    @property
    def comparisons_title(self) -> str:
        return f"{self.name}: paired comparisons (parsing: {self.parse})"

    @cached_property
    def _orders(self):
        return split_orders(read_units(self.units, self.parse))

    @property
    def unit_cells(self):
        """The cells' units of the shown parse mode (:func:`read_units`), the two-order rows' left out."""
        return self._orders[0]

    def compare(self):
        frame, tags = compare(self.unit_cells, self.intervals)
        if self._orders[1]:  # config position_consistency: its own family, Holm within it
            frame = pd.concat([frame, compare_consistency(self._orders[1], self.intervals)], ignore_index=True)
        log.info("%s: %d paired comparisons, %d distinguishable", self.name, len(frame),
                 int((frame["distinct"] == "yes").sum()))
        return frame, tags

    def tagged(self, tags: Mapping[tuple, str]) -> "AuthorityData":
        return replace(self, tags=dict(tags))

    def write_files(self, out: Path):
        """metrics.tsv (both parse modes), EntityAuth's reuse.tsv, the cost table and figure."""
        write_frame(self.every, out / "metrics.tsv", sep="\t", index=False)
        if self.reuse:
            reuse = pd.concat([pd.read_csv(f, sep="\t").assign(dataset=d.split("/", 1)[1])
                               for d, f in zip(self.datasets, self.reuse)])
            write_frame(reuse[["dataset", "setting", "level", "slots", "distinct", "max_uses"]], out / "reuse.tsv",
                        sep="\t", index=False)
        return [out / "metrics.tsv"], {"cost_vs_rho": write_costs(out, self.manifests, self.metrics, self.rule)}

    def contents_tail(self, comparisons: pd.DataFrame) -> str:
        n_yes = int((comparisons["distinct"] == "yes").sum())
        return (f"| Paired comparisons | comparisons.md, comparisons.tsv | written: {len(comparisons)} comparisons, "
                f"{n_yes} distinguishable |\n")

    @cached_property
    def keyed(self) -> list:
        """The report's numbers keyed by published key, once, for the scorecard
        and the claims (:mod:`authbench.studies.authority.keyed`)."""
        from authbench.studies.authority.keyed import authority_keyed, categories_keyed
        from authbench.studies.scorecard import coverage_of

        params = self.scorecard_coverage or {"models": {}}
        names = dict(coverage_of(self.scorecard_coverage, "authoritybench").names)
        rescored = params.get("rescored", "")
        spent = costs.cost_rows(self.manifests)
        tokens = {(r.benchmark, r.model, r.judge, r.context, r.setting): float(r.prompt_tokens + r.completion_tokens)
                  for r in spent.itertuples(index=False)}
        out = authority_keyed(self.metrics, self.unit_cells, names, list(params["models"]),
                              {6: rescored, 12: rescored} if rescored else {}, flagged_cells(self.metrics, self.rule),
                              tokens)
        if not self.is_entity:
            out += categories_keyed(self.predictions, names, list(params["models"]), params.get("bias_scope", ""))
        return out

    @property
    def tables_here(self) -> tuple[int, ...]:
        from authbench.studies.authority.keyed import DOMAINAUTH_TABLES, ENTITYAUTH_TABLES

        return ENTITYAUTH_TABLES if self.is_entity else DOMAINAUTH_TABLES

    def scorecard(self, out: Path, built: Mapping) -> list[Path]:
        from authbench.studies.authority.keyed import authority_reason
        from authbench.studies.scorecard import write_paper_scorecard

        return write_paper_scorecard(out, self.name, "authoritybench", self.tables_here, self.keyed, authority_reason,
                                     self.scorecard_coverage)

    def claims(self, out: Path, report) -> list[Path]:
        from authbench.studies.claims_report import write_claims

        spec = self.intervals or IntervalSpec()
        return write_claims(out, "authoritybench", self.name, self.tables_here, self.keyed, report, spec)

    # --- the figures (Figure.build of DOMAINAUTH / ENTITYAUTH) ------------------------------

    @property
    def is_entity(self) -> bool:
        return self.datasets[0].startswith("entityauth/")

    def label_figure(self, path: Path) -> Path:
        """Figure 3: DomainAuth's levels, or each EntityAuth dataset's."""
        if not self.is_entity:
            figures.plot_label_distribution(pd.read_csv(self.labels[0], sep="\t", keep_default_na=False), path)
            return path
        names = [d.split("/", 1)[1] for d in self.datasets]
        tables_ = {n.capitalize(): pd.read_csv(f, sep="\t", keep_default_na=False) for n, f in zip(names, self.labels)}
        figures.plot_entity_label_distribution(tables_, path,
                                               {d.capitalize(): n for d, n in (self.score_names or {}).items()})
        return path

    def consistency_figure(self, path: Path) -> Path:
        """The position-consistency figure (config ``position_consistency``)."""
        from authbench.studies.authority.consistency_table import plot_consistency

        plot_consistency(parse_rows(self.every, self.parse), path)
        return path

    def bias_figure(self, path: Path) -> Path:
        """Figure 6: PointJudge's bias per true level."""
        figures.plot_bias_heatmap(self.predictions, path, self.intervals)
        return path

    # --- the tables (Table.build of DOMAINAUTH / ENTITYAUTH) -------------------------------

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
        # a metrics file without intervals: no claim either way
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


def read_predictions(files: Sequence[str]) -> pd.DataFrame | None:
    """DomainAuth's PointJudge predictions (Table 8, Figure 6), None without any."""
    if not files:
        return None
    pred = pd.concat([pd.read_csv(f, sep="\t", keep_default_na=False, na_values=[""]) for f in files],
                     ignore_index=True)
    pred["category"] = pred["category"].where(pred["category"].notna(), None)
    return pred


def write_domainauth_report(outdir: str | Path, metric_files: Sequence[str], labels: str, predictions: Sequence[str],
                            manifests: Sequence[str], choice: Mapping, category_order: Sequence[str],
                            categories: Mapping[str, Mapping] | None = None, parse: str = "strict",
                            validity: Mapping | None = None, grid: str = "", scorecard: Mapping | None = None,
                            units: Sequence[str] = (), intervals: IntervalSpec = IntervalSpec(),
                            show: str = "inline") -> list[Path]:
    """DomainAuth's report folder (:func:`authbench.render.catalog.write_report` of
    :data:`~authbench.studies.authority.outputs.DOMAINAUTH`): ``choice`` its
    written and skipped stems; ``categories`` the config's category rules
    (worded in Table 8's caption); ``parse`` the parse mode the tables show;
    ``validity`` config ``judge_validity`` (None: its defaults), the rule
    behind ``†``; ``grid`` contents.md's summary of the grid; ``scorecard``
    :func:`authbench.studies.scorecard.coverage_params`; ``units`` the cells' and
    baselines' units (the paired comparisons); ``intervals``, ``show``: config
    ``intervals``."""
    from authbench.render.catalog import write_report
    from authbench.studies.authority.outputs import DOMAINAUTH

    data = AuthorityData(DOMAINAUTH.name, read_metrics(metric_files), ["domainauth"], parse,
                  ValidityRule.from_config(validity), units, manifests, [labels],
                  predictions=read_predictions(predictions), category_order=category_order, categories=categories,
                  intervals=intervals, show=show, scorecard_coverage=scorecard)
    return write_report(DOMAINAUTH, data, outdir, choice, show, grid)


def write_entityauth_report(outdir: str | Path, metric_files: Sequence[str], datasets: Sequence[str],
                            labels: Sequence[str], reuse: Sequence[str], manifests: Sequence[str],
                            choice: Mapping, coarse_source: str = "lists", parse: str = "strict",
                            validity: Mapping | None = None, grid: str = "",
                            score_names: Mapping[str, str] | None = None, scorecard: Mapping | None = None,
                            units: Sequence[str] = (), intervals: IntervalSpec = IntervalSpec(),
                            show: str = "inline") -> list[Path]:
    """EntityAuth's report folder (of :data:`~authbench.studies.authority.outputs.ENTITYAUTH`;
    one block per dataset): as :func:`write_domainauth_report`'s, and
    ``coarse_source`` (``entityauth.coarse_source``: where Table 6's rows come
    from), each dataset's ``reuse.tsv``, ``score_names`` (dataset -> what its
    labels' score is, for Figure 3; default sitelinks)."""
    from authbench.render.catalog import write_report
    from authbench.studies.authority.outputs import ENTITYAUTH

    data = AuthorityData(ENTITYAUTH.name, read_metrics(metric_files), [f"entityauth/{d}" for d in datasets], parse,
                  ValidityRule.from_config(validity), units, manifests, labels, coarse_source=coarse_source,
                  intervals=intervals, show=show, reuse=reuse, score_names=score_names, scorecard_coverage=scorecard)
    return write_report(ENTITYAUTH, data, outdir, choice, show, grid)
