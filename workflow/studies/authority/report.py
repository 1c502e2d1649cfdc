"""The AuthorityBench reports: which tables and figures a DomainAuth or
EntityAuth report holds, with the paper's captions, written from the long
metrics table, the labels, the PointJudge predictions and the cell manifests.
The list of files is :mod:`authbench.studies.authority.outputs`'s."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd
from authbench.judges import JUDGE_NAMES, PAIR_JUDGES, PAIRS_TABLE_ORDER
from authbench.render import costs
from authbench.render.tables import stack_tables, write_table
from authbench.render.tables import TableSpec
from authbench.studies.authority import figures, tables
from authbench.studies.authority.diagnostics import (DAGGER, ValidityRule, flagged_cells, has_diagnostics,
                                                     validity_frame, validity_note)
from authbench.studies.authority.domains import describe_categories
from authbench.studies.authority.evaluate import PARSE_MODES
from authbench.studies.authority.outputs import DOMAIN_TABLES, ENTITY_TABLES, EXPECTED_TABLE, FAIL_NOTE

log = logging.getLogger("authbench")

CAPTIONS = {
    "table1_fine": "Results on DomainAuth (fine-grained) as Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE,
    "table2_coarse": "Results on DomainAuth (coarse-grained) as Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE,
    "table9_derivations_fine": "PairJudge ranking derivation methods on DomainAuth (fine-grained), Spearman's rho (%)."
                               + FAIL_NOTE,
    "table10_derivations_coarse": "PairJudge ranking derivation methods on DomainAuth (coarse-grained), "
                                  "Spearman's rho (%)." + FAIL_NOTE,
    "table3_pairs": "Pairwise accuracy (%) on easy vs. hard pairs on DomainAuth (ties count as wrong). Bold: best; "
                    "underline: second best, per row and context." + FAIL_NOTE,
    "table8_categories": "Mean predicted score and scoring bias (predicted - true PageRank) of PointJudge per domain category.",
    "table4_fine": "Results on EntityAuth (fine-grained, 10-level, w/o text) across domains as Spearman's rho (%) "
                   "and Kendall's tau (%)." + FAIL_NOTE,
    "table6_coarse": "Results on EntityAuth (coarse-grained, 5-level, w/o text) on N=5 lists, one entity per coarse "
                     "level (PairJudge: all 10 pairs), as Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE,
    "table11_derivations_fine": "PairJudge ranking derivation methods on EntityAuth (fine-grained), Spearman's rho (%)."
                                + FAIL_NOTE,
    "table12_derivations_coarse": "PairJudge ranking derivation methods on EntityAuth (coarse-grained), "
                                  "Spearman's rho (%)." + FAIL_NOTE,
}
CAPTIONS[EXPECTED_TABLE] = (
    "Expected-score judging (not in the paper): each score judge's argmax scores and E[s] = sum of p(s) x s over "
    "the score tokens (renormalised at each score slot), as Spearman's rho (%), Kendall's tau (%), constant lists "
    "and pairwise accuracy (%). PairJudge PointScore: AverageScore. fallback%: score slots whose E[s] is the argmax "
    "for want of a distribution (config expected_scores).")
# Table 6 with entityauth.coarse_source: rescore (no coarse cells)
TABLE6_RESCORED = ("Results on EntityAuth (coarse-grained, 5-level, w/o text): the N=10 lists' judgments scored "
                   "against the coarse labels (entityauth.coarse_source: rescore; the paper judges N=5 lists), "
                   "Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE)


# what each report file is, for the report's contents.md
TITLES = {
    "table1_fine": "Table 1: DomainAuth fine-grained rho, tau",
    "table9_derivations_fine": "Table 9: PairJudge derivations, fine-grained",
    "table2_coarse": "Table 2: DomainAuth coarse-grained rho, tau",
    "table10_derivations_coarse": "Table 10: PairJudge derivations, coarse-grained",
    "table3_pairs": "Table 3: pairwise accuracy, easy vs. hard pairs",
    "table8_categories": "Table 8: PointJudge scores per domain category (with Figure 6, the bias heatmap)",
    "table4_fine": "Table 4: EntityAuth fine-grained rho, tau",
    "table6_coarse": "Table 6: EntityAuth coarse-grained rho, tau",
    "table11_derivations_fine": "Table 11: PairJudge derivations, fine-grained",
    "table12_derivations_coarse": "Table 12: PairJudge derivations, coarse-grained",
}


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
    metrics.to_csv(out / "metrics.tsv", sep="\t", index=False)
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


# the judges whose values a table of each kind shows (the judge-validity sentence names only those)
TABLE_JUDGES = {"main": JUDGE_NAMES, "derivations": PAIR_JUDGES, "pairs": PAIRS_TABLE_ORDER}
VALIDITY_COLUMNS = ("position_constant", "position_rho", "example_copy", "a_share", "a_expected", "flag", "why")


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
    caption = (f" Judge validity (docs/decisions.md): {', '.join(VALIDITY_COLUMNS[:5])}; flag {DAGGER}: the judge "
               "answers by presentation position or copies the prompt's example"
               + (" (" + " | ".join(named) + ")." if named else "; no cell is flagged."))
    validity = validity_frame(metrics, rule)[[*costs.CELL_COLUMNS, *VALIDITY_COLUMNS]]
    if validity.empty:  # metrics written before the diagnostics existed: no claim either way
        caption = ""
    costs.write_cost_table(table, quality, out / "tables" / "costs", validity, md_hidden=("why",), caption=caption)
    costs.plot_cost_vs_rho(quality, out / "figures" / "cost_vs_rho.png")
    if quality["rho"].notna().any():
        return "written"
    return "written, empty: no fine or coarse list cell with a rho in this grid (config key 'settings')"


def write_contents(out: Path, title: str, grid: str, stems: Sequence[str], skipped: Mapping[str, str],
                   costs_status: str) -> None:
    """``contents.md`` of a report folder: every table of the study, written
    or skipped with the reason (a grid without some setting or judge), and
    the figures; the skipped ones are also logged."""
    rows = [(TITLES.get(stem, stem), f"tables/{stem}.csv/.md/.tex", "written") for stem in stems]
    rows += [(TITLES.get(stem, stem), "-", f"skipped: {reason}") for stem, reason in skipped.items()]
    rows.append(("Cost per cell", "tables/costs.csv/.md", "written"))
    rows.append(("Cost vs. rho", "figures/cost_vs_rho.png", costs_status))
    for stem, reason in skipped.items():
        log.info("%s: %s skipped: %s", title, TITLES.get(stem, stem), reason)
    text = (f"# {title} report\n\n{grid}\n\n| What | File | Status |\n|---|---|---|\n"
            + "".join(f"| {what} | {file} | {status} |\n" for what, file, status in rows))
    (out / "contents.md").write_text(text, encoding="utf-8")


def _table(stem: str, metrics: pd.DataFrame, dataset: str, rule: ValidityRule | None = None):
    kind, setting = DOMAIN_TABLES.get(stem) or ENTITY_TABLES[stem]
    if kind == "expected":
        return tables.table_expected(metrics, dataset)
    if kind == "main":
        return tables.table_main(metrics, dataset, setting, rule)
    if kind == "derivations":
        return tables.table_derivations(metrics, dataset, setting, rule)
    return tables.table_pairs(metrics, dataset, rule)


def table_validity_note(stem: str, metrics: pd.DataFrame, benchmarks: Sequence[str], rule: ValidityRule | None,
                        dataset_label=None) -> str:
    """The caption sentence on judge validity of a results table: its cells
    marked ``†`` and why (:func:`authbench.studies.authority.diagnostics.validity_note`)."""
    kind, setting = DOMAIN_TABLES.get(stem) or ENTITY_TABLES[stem]
    if kind not in TABLE_JUDGES:  # the E[s] table marks nothing (its rows are not the results tables')
        return ""
    return validity_note(flagged_cells(metrics, rule), benchmarks, setting, TABLE_JUDGES[kind],
                         tables.context_label, dataset_label, has_diagnostics(metrics, benchmarks, setting))


def write_domainauth_report(outdir: str | Path, metric_files: Sequence[str], labels: str, predictions: Sequence[str],
                            manifests: Sequence[str], stems: Sequence[str], category_order: Sequence[str],
                            categories: Mapping[str, Mapping] | None = None, parse: str = "strict",
                            validity: Mapping | None = None, skipped: Mapping[str, str] | None = None,
                            grid: str = "") -> None:
    """DomainAuth's tables ``stems`` (from :func:`authbench.studies.authority.outputs.domainauth_tables`),
    Figure 3, Figure 6 and Table 8 (with predictions), the cost table, metrics.tsv and contents.md
    (``skipped``: the tables the grid has no data for, with the reason; ``grid``: its one-line summary).
    ``categories``: the config's category rules (worded in Table 8's caption);
    ``parse``: the parse mode whose numbers the tables show; ``validity``:
    config ``judge_validity`` (None: its defaults), the rule behind ``†``."""
    out, every = report_folder(outdir, metric_files)
    metrics, alt = parse_rows(every, parse), parse_rows(every, other_mode(parse))
    rule = ValidityRule.from_config(validity)
    costs_status = write_costs(out, manifests, metrics, rule)
    write_contents(out, "DomainAuth", grid, stems, skipped or {}, costs_status)
    for stem in stems:
        if stem != "table8_categories":
            spec = _table(stem, metrics, "domainauth", rule)
            other = _table(stem, alt, "domainauth", rule) if "parse" in every.columns and stem != EXPECTED_TABLE else None
            write_table(spec, out / "tables" / stem, CAPTIONS[stem] + parse_note(spec, other, parse)
                        + table_validity_note(stem, metrics, ["domainauth"], rule))
    figures.plot_label_distribution(pd.read_csv(labels, sep="\t", keep_default_na=False),
                                    out / "figures" / "fig3_label_distribution.png")
    if predictions:
        pred = pd.concat([pd.read_csv(f, sep="\t", keep_default_na=False, na_values=[""]) for f in predictions],
                         ignore_index=True)
        pred["category"] = pred["category"].where(pred["category"].notna(), None)
        figures.plot_bias_heatmap(pred, out / "figures" / "fig6_bias_heatmap.png")
        caption = CAPTIONS["table8_categories"] + (" " + describe_categories(categories) if categories else "")
        caption += (" Parsing: strict (a failed reply contributes no score: its item counts as unscored)."
                    if parse == "strict" else
                    " Parsing: lenient (a failed reply contributes the score the parser recovered, if any).")
        write_table(tables.table_categories(pred, category_order), out / "tables" / "table8_categories", caption)


def write_entityauth_report(outdir: str | Path, metric_files: Sequence[str], datasets: Sequence[str],
                            labels: Sequence[str], reuse: Sequence[str], manifests: Sequence[str],
                            stems: Sequence[str], coarse_source: str = "lists", parse: str = "strict",
                            validity: Mapping | None = None, skipped: Mapping[str, str] | None = None,
                            grid: str = "", score_names: Mapping[str, str] | None = None) -> None:
    """EntityAuth's tables ``stems`` (one block per dataset), Figure 3, reuse.tsv, costs, metrics.tsv and
    contents.md (``skipped``, ``grid``: as :func:`write_domainauth_report`'s).
    ``coarse_source`` (``entityauth.coarse_source``) says where Table 6's rows come from (its caption);
    ``parse``: the parse mode whose numbers the tables show; ``validity``:
    config ``judge_validity`` (None: its defaults), the rule behind ``†``; ``score_names``: dataset -> what
    its labels' score is, for Figure 3 (default sitelinks)."""
    out, every = report_folder(outdir, metric_files)
    metrics, alt = parse_rows(every, parse), parse_rows(every, other_mode(parse))
    rule = ValidityRule.from_config(validity)
    costs_status = write_costs(out, manifests, metrics, rule)
    write_contents(out, "EntityAuth", grid, stems, skipped or {}, costs_status)
    reuse_table = pd.concat([pd.read_csv(f, sep="\t").assign(dataset=d) for d, f in zip(datasets, reuse)])
    reuse_table[["dataset", "setting", "level", "slots", "distinct", "max_uses"]].to_csv(
        out / "reuse.tsv", sep="\t", index=False)
    for stem in stems:
        spec = stack_tables([(d.capitalize(), _table(stem, metrics, f"entityauth/{d}", rule)) for d in datasets],
                            "Domain")
        other = (stack_tables([(d.capitalize(), _table(stem, alt, f"entityauth/{d}", rule)) for d in datasets],
                              "Domain") if "parse" in every.columns and stem != EXPECTED_TABLE else None)
        caption = TABLE6_RESCORED if stem == "table6_coarse" and coarse_source == "rescore" else CAPTIONS[stem]
        caption += parse_note(spec, other, parse) + table_validity_note(
            stem, metrics, [f"entityauth/{d}" for d in datasets], rule, lambda b: b.split("/", 1)[1].capitalize())
        write_table(spec, out / "tables" / stem, caption)
    label_tables: Mapping[str, pd.DataFrame] = {
        d.capitalize(): pd.read_csv(f, sep="\t", keep_default_na=False) for d, f in zip(datasets, labels)}
    figures.plot_entity_label_distribution(label_tables, out / "figures" / "fig3_entityauth_label_distribution.png",
                                           {d.capitalize(): n for d, n in (score_names or {}).items()})
