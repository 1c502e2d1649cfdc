"""The AuthorityBench reports: which tables and figures a DomainAuth or
EntityAuth report holds, with the paper's captions, written from the long
metrics table, the labels, the PointJudge predictions and the cell manifests.
The list of files is :mod:`authbench.studies.authority.outputs`'s."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd
from authbench.render import costs
from authbench.render.tables import stack_tables, write_table
from authbench.studies.authority import figures, tables
from authbench.studies.authority.outputs import DOMAIN_TABLES, ENTITY_TABLES, FAIL_NOTE

CAPTIONS = {
    "table1_fine": "Results on DomainAuth (fine-grained) as Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE,
    "table2_coarse": "Results on DomainAuth (coarse-grained) as Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE,
    "table9_derivations_fine": "PairJudge ranking derivation methods on DomainAuth (fine-grained), Spearman's rho (%).",
    "table10_derivations_coarse": "PairJudge ranking derivation methods on DomainAuth (coarse-grained), Spearman's rho (%).",
    "table3_pairs": "Pairwise accuracy (%) on easy vs. hard pairs on DomainAuth (ties and unparsable replies count as wrong).",
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
# Table 6 with entityauth.coarse_source: rescore (no coarse cells)
TABLE6_RESCORED = ("Results on EntityAuth (coarse-grained, 5-level, w/o text): the N=10 lists' judgments scored "
                   "against the coarse labels (entityauth.coarse_source: rescore; the paper judges N=5 lists), "
                   "Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE)


def report_folder(outdir: str | Path, metric_files: Sequence[str]) -> tuple[Path, pd.DataFrame]:
    """The report folder (tables/, figures/ created) and the concatenated metrics, saved as metrics.tsv."""
    out = Path(outdir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    metrics = pd.concat([pd.read_csv(f, sep="\t") for f in metric_files], ignore_index=True)
    metrics.to_csv(out / "metrics.tsv", sep="\t", index=False)
    return out, metrics


def write_costs(out: Path, manifests: Sequence[str], metrics: pd.DataFrame) -> None:
    table = costs.cost_rows(manifests)
    quality = costs.with_quality(table, metrics)
    costs.write_cost_table(table, quality, out / "tables" / "costs")
    costs.plot_cost_vs_rho(quality, out / "figures" / "cost_vs_rho.png")


def _table(stem: str, metrics: pd.DataFrame, dataset: str):
    kind, setting = DOMAIN_TABLES.get(stem) or ENTITY_TABLES[stem]
    if kind == "main":
        return tables.table_main(metrics, dataset, setting)
    if kind == "derivations":
        return tables.table_derivations(metrics, dataset, setting)
    return tables.table_pairs(metrics, dataset)


def write_domainauth_report(outdir: str | Path, metric_files: Sequence[str], labels: str, predictions: Sequence[str],
                            manifests: Sequence[str], stems: Sequence[str], category_order: Sequence[str]) -> None:
    """DomainAuth's tables ``stems`` (from :func:`authbench.studies.authority.outputs.domainauth_tables`),
    Figure 3, Figure 6 and Table 8 (with predictions), the cost table and metrics.tsv."""
    out, metrics = report_folder(outdir, metric_files)
    write_costs(out, manifests, metrics)
    for stem in stems:
        if stem != "table8_categories":
            write_table(_table(stem, metrics, "domainauth"), out / "tables" / stem, CAPTIONS[stem])
    figures.plot_label_distribution(pd.read_csv(labels, sep="\t", keep_default_na=False),
                                    out / "figures" / "fig3_label_distribution.png")
    if predictions:
        pred = pd.concat([pd.read_csv(f, sep="\t", keep_default_na=False, na_values=[""]) for f in predictions],
                         ignore_index=True)
        pred["category"] = pred["category"].where(pred["category"].notna(), None)
        figures.plot_bias_heatmap(pred, out / "figures" / "fig6_bias_heatmap.png")
        write_table(tables.table_categories(pred, category_order), out / "tables" / "table8_categories",
                    CAPTIONS["table8_categories"])


def write_entityauth_report(outdir: str | Path, metric_files: Sequence[str], datasets: Sequence[str],
                            labels: Sequence[str], reuse: Sequence[str], manifests: Sequence[str],
                            stems: Sequence[str], coarse_source: str = "lists") -> None:
    """EntityAuth's tables ``stems`` (one block per dataset), Figure 3, reuse.tsv, costs and metrics.tsv.
    ``coarse_source`` (``entityauth.coarse_source``) says where Table 6's rows come from (its caption)."""
    out, metrics = report_folder(outdir, metric_files)
    write_costs(out, manifests, metrics)
    reuse_table = pd.concat([pd.read_csv(f, sep="\t").assign(dataset=d) for d, f in zip(datasets, reuse)])
    reuse_table[["dataset", "setting", "level", "slots", "distinct", "max_uses"]].to_csv(
        out / "reuse.tsv", sep="\t", index=False)
    for stem in stems:
        parts = [(d.capitalize(), _table(stem, metrics, f"entityauth/{d}")) for d in datasets]
        caption = TABLE6_RESCORED if stem == "table6_coarse" and coarse_source == "rescore" else CAPTIONS[stem]
        write_table(stack_tables(parts, "Domain"), out / "tables" / stem, caption)
    label_tables: Mapping[str, pd.DataFrame] = {
        d.capitalize(): pd.read_csv(f, sep="\t", keep_default_na=False) for d, f in zip(datasets, labels)}
    figures.plot_entity_label_distribution(label_tables, out / "figures" / "fig3_entityauth_label_distribution.png")
