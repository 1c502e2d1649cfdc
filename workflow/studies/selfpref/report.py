"""The self-preference report of one dataset: every table
(:mod:`authbench.studies.selfpref.tables`), Figure 3
(:mod:`authbench.studies.selfpref.figures`) and the long TSVs of the rates and
score summaries (:mod:`authbench.studies.selfpref.rows`), written under one
folder; every file is written even when the inputs are empty."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Sequence

from authbench.records import write_tsv
from authbench.render.tables import write_table
from authbench.studies.selfpref.figures import fig3_heatmaps
from authbench.studies.selfpref.outputs import TABLE_STEMS
from authbench.studies.selfpref.rows import (RATE_COLUMNS, RERANK_SUMMARY_COLUMNS, preference_rates, rates_long,
                                             rerank_summary)
from authbench.studies.selfpref.tables import (knowledge_breakdown, perplexity_anova_table, raw_score_tables,
                                               style_tables, table1, table2, table3)


# --------------------------------------------------------------------------
# TSV output
# --------------------------------------------------------------------------
def _tsv_value(v):
    if isinstance(v, bool) or v is None:
        return "" if v is None else str(v).lower()
    if isinstance(v, float):
        return "" if not math.isfinite(v) else f"{v:.6g}" if abs(v) >= 1e6 else repr(round(v, 6))
    return v


def _write_rows(rows: Sequence[Mapping], path: Path, columns: Sequence[str]) -> None:
    write_tsv([{k: _tsv_value(r.get(k)) for k in columns} for r in rows], path, columns)


# --------------------------------------------------------------------------
# everything
# --------------------------------------------------------------------------
def write_selfpref_report(
    rerank_rows,
    gen_rows,
    knowledge_levels: Mapping[str, Sequence[Mapping]],
    perplexity_rows,
    passages,
    self_map: Mapping[str, str],
    outdir: str | Path,
    dataset: str | None = None,
    perplexity_model: str | None = None,
) -> list[Path]:
    """Write every table (``tables/<stem>.csv|md|tex`` for :data:`TABLE_STEMS`),
    ``figures/fig3_heatmaps.png``, ``rates.tsv`` (:func:`rates_long`) and
    ``rerank_summary.tsv`` (:func:`rerank_summary`) under ``outdir``; every
    file is written even when inputs are empty. ``dataset`` (e.g. ``nq``) is
    named in the captions, ``perplexity_model`` in Table 1's. Returns the paths."""
    outdir = Path(outdir)
    tables_dir = outdir / "tables"
    rerank_rows = list(rerank_rows or [])
    gen_rows = list(gen_rows or [])
    perplexity_rows = list(perplexity_rows or [])
    raw = raw_score_tables(rerank_rows)
    passages = list(passages or [])
    t4, t5 = style_tables(gen_rows, passages)
    specs = {
        "table1_knowledge": table1(knowledge_levels or {}, passages, perplexity_rows,
                                   perplexity_model),
        "table2_rerank": table2(rerank_rows, self_map or {}),
        "table3_preference": table3(preference_rates(gen_rows)),
        "table4_gen_by_qa": t4,
        "table5_long": t5,
        "table6_normal_true": raw["normal_true"],
        "table7_normal_false": raw["normal_false"],
        "table8_rag_true": raw["rag_true"],
        "table9_rag_false": raw["rag_false"],
        "table_knowledge_breakdown": knowledge_breakdown(gen_rows, passages),
        "table_perplexity_anova": perplexity_anova_table(perplexity_rows, perplexity_model),
    }
    paths: list[Path] = []
    for stem in TABLE_STEMS:
        spec = specs[stem]
        caption = f"[{dataset}] {spec.caption}" if dataset else None
        paths += write_table(spec, tables_dir / stem, caption)
    paths.append(fig3_heatmaps(gen_rows, outdir / "figures" / "fig3_heatmaps.png"))
    rates_path = outdir / "rates.tsv"
    _write_rows(rates_long(gen_rows, passages), rates_path, RATE_COLUMNS)
    summary_path = outdir / "rerank_summary.tsv"
    _write_rows(rerank_summary(rerank_rows), summary_path, RERANK_SUMMARY_COLUMNS)
    return paths + [rates_path, summary_path]

