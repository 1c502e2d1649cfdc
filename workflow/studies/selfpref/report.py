"""The self-preference report of one dataset: every table
(:mod:`authbench.studies.selfpref.tables`, declared once in
:data:`~authbench.studies.selfpref.outputs.SELFPREF`), Figure 3
(:mod:`authbench.studies.selfpref.figures`), the long TSVs of the rates and
score summaries (:mod:`authbench.studies.selfpref.rows`) and ``contents.md``,
written under one folder; every file is written even when the inputs are empty."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Mapping, Sequence

from authbench.records import write_tsv
from authbench.render.catalog import contents_md, plan, write_tables
from authbench.render.tables import TableSpec
from authbench.studies.selfpref.figures import fig3_heatmaps
from authbench.studies.selfpref.outputs import SELFPREF
from authbench.studies.scorecard import write_selfpref_scorecard
from authbench.studies.selfpref.rows import (RATE_COLUMNS, RERANK_SUMMARY_COLUMNS, preference_rates, rates_long,
                                             rerank_summary)
from authbench.studies.selfpref.tables import raw_score_tables, style_tables


def _tsv_value(v):
    if isinstance(v, bool) or v is None:
        return "" if v is None else str(v).lower()
    if isinstance(v, float):
        return "" if not math.isfinite(v) else f"{v:.6g}" if abs(v) >= 1e6 else repr(round(v, 6))
    return v


def _write_rows(rows: Sequence[Mapping], path: Path, columns: Sequence[str]) -> None:
    write_tsv([{k: _tsv_value(r.get(k)) for k in columns} for r in rows], path, columns)


@dataclass
class Inputs:
    """What a dataset's report is built from (the ``build`` of each item of
    :data:`~authbench.studies.selfpref.outputs.SELFPREF`); ``prefix`` heads
    every written caption (the dataset)."""

    rerank_rows: list
    gen_rows: list
    knowledge_levels: Mapping[str, Sequence[Mapping]]
    perplexity_rows: list
    passages: list
    self_map: Mapping[str, str]
    perplexity_model: str | None
    prefix: str

    @cached_property
    def raw(self) -> dict[str, TableSpec]:
        return raw_score_tables(self.rerank_rows)

    @cached_property
    def style(self) -> tuple[TableSpec, TableSpec]:
        return style_tables(self.gen_rows, self.passages)


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
    scorecard: Mapping | None = None,
) -> list[Path]:
    """Write every table of :data:`~authbench.studies.selfpref.outputs.SELFPREF`
    (``tables/<stem>.csv|md|tex``), ``figures/fig3_heatmaps.png``,
    ``rates.tsv`` (:func:`~authbench.studies.selfpref.rows.rates_long`), ``rerank_summary.tsv``
    (:func:`~authbench.studies.selfpref.rows.rerank_summary`), ``contents.md`` and ``scorecard.md/.tsv``
    (the paper's numbers beside these: :mod:`authbench.studies.scorecard`; ``scorecard``: its grid, None: no
    model is named) under ``outdir``; every
    file is written even when inputs are empty. ``dataset`` (e.g. ``nq``) is
    named in the captions, ``perplexity_model`` in Table 1's. Returns the paths."""
    outdir = Path(outdir)
    inputs = Inputs(list(rerank_rows or []), list(gen_rows or []), knowledge_levels or {},
                    list(perplexity_rows or []), list(passages or []), self_map or {}, perplexity_model,
                    f"[{dataset}] " if dataset else "")
    written = plan(SELFPREF, {})  # every item is always written
    paths = write_tables(SELFPREF, written["written"], inputs, outdir)
    paths.append(fig3_heatmaps(inputs.gen_rows, outdir / "figures" / "fig3_heatmaps.png"))
    rates_path = outdir / "rates.tsv"
    _write_rows(rates_long(inputs.gen_rows, inputs.passages), rates_path, RATE_COLUMNS)
    summary_path = outdir / "rerank_summary.tsv"
    summary = rerank_summary(inputs.rerank_rows)
    _write_rows(summary, summary_path, RERANK_SUMMARY_COLUMNS)
    contents = outdir / "contents.md"
    contents.write_text(contents_md(SELFPREF, written, f"Dataset: {dataset}." if dataset else ""), encoding="utf-8")
    card = write_selfpref_scorecard(outdir, dataset, inputs.knowledge_levels, inputs.passages, summary,
                                    preference_rates(inputs.gen_rows), inputs.self_map, scorecard)
    return paths + [rates_path, summary_path, contents, *card]
