"""The self-preference report of one dataset: every table
(:mod:`~authbench.studies.selfpref.passage_tables`,
:mod:`~authbench.studies.selfpref.score_tables`,
:mod:`~authbench.studies.selfpref.preference_tables`; declared once in
:data:`~authbench.studies.selfpref.outputs.SELFPREF`), Figure 3
(:mod:`authbench.studies.selfpref.figures`), the long TSVs of the rates and
score summaries (:mod:`authbench.studies.selfpref.rows`), the per-unit
records (``units_<name>.parquet``: :func:`~authbench.studies.selfpref.rows.unit_frames`),
which the tables' intervals and the paired comparisons (:func:`comparisons`,
``comparisons.tsv/.md``) are computed from, and ``contents.md``, written
under one folder; every file is written even when the inputs are empty."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd
from authbench.records import atomic_write, write_text, write_tsv
from authbench.render.catalog import contents_md, report_choice, write_report, write_tables
from authbench.render.comparisons import comparison_row, finish, reference_row
from authbench.render.formatting import NOT_RANDOM_TAG
from authbench.render.tables import TableSpec, spec_from_json, spec_to_json
from authbench.stats import DAGGER, IntervalSpec
from authbench.studies.selfpref.outputs import SELFPREF, SELFPREF_DATASETS
from authbench.studies.selfpref.released import PER_PASSAGE_COLUMNS, per_passage
from authbench.studies.selfpref.marks import write_selfpref_scorecard
from authbench.studies.selfpref.rows import (ALL, NORMAL, RATE_COLUMNS, RERANK_SUMMARY_COLUMNS,
                                             author_order, preference_rates, rates_long, rerank_summary, unit_frames)
from authbench.studies.selfpref.preference_tables import UNIT_OF, style_tables
from authbench.studies.selfpref.score_tables import raw_score_tables
from authbench.studies.selfpref.table_common import PROMPT_LABELS, Intervals


def _tsv_value(v):
    if isinstance(v, bool) or v is None:
        return "" if v is None else str(v).lower()
    if isinstance(v, float):
        return "" if not math.isfinite(v) else f"{v:.6g}" if abs(v) >= 1e6 else repr(round(v, 6))
    return v


def _write_rows(rows: Sequence[Mapping], path: Path, columns: Sequence[str]) -> None:
    write_tsv([{k: _tsv_value(r.get(k)) for k in columns} for r in rows], path, columns)


@dataclass
class SelfprefData:
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
    iv: Intervals | None = None
    released_perplexity: Mapping[str, Sequence[float]] | None = None
    significance: str = "paired"  # config selfpref.significance: Tables 1-2's marks
    scored_passages: list | None = None  # of the questions in selfpref.rerank.scope: Table 1's statistics
    units: Mapping[str, pd.DataFrame] = field(default_factory=dict)  # units_<name>.parquet, as read back
    spec: IntervalSpec = field(default_factory=IntervalSpec)
    dataset: str | None = None
    qids: Sequence[str] = ()  # the dataset's questions in order (perplexity_released.tsv)
    released: Mapping = field(default_factory=dict)  # perplexity_order, model, knowledge/perplexity file names
    scorecard_coverage: Mapping | None = None

    @cached_property
    def raw(self) -> dict[str, TableSpec]:
        return raw_score_tables(self.rerank_rows, self.iv)

    @cached_property
    def style(self) -> tuple[TableSpec, TableSpec]:
        return style_tables(self.gen_rows, self.passages, self.iv)

    # the report writer's protocol (authbench.render.catalog.ReportData)
    @property
    def comparisons_title(self) -> str:
        return f"Self-preference{f' [{self.dataset}]' if self.dataset else ''}: paired comparisons"

    def compare(self):
        return comparisons(self.units, self.spec)

    def tagged(self, tags: Mapping) -> "SelfprefData":
        return replace(self, iv=Intervals(self.units, self.spec, tags))

    @cached_property
    def summary(self) -> list:
        return rerank_summary(self.rerank_rows)

    def write_files(self, out: Path):
        paths = [out / "rates.tsv", out / "rerank_summary.tsv", out / "perplexity_released.tsv"]
        _write_rows(rates_long(self.gen_rows, self.passages), paths[0], RATE_COLUMNS)
        _write_rows(self.summary, paths[1], RERANK_SUMMARY_COLUMNS)
        _write_rows(per_passage(self.released_perplexity, self.perplexity_rows, list(self.qids),
                                self.released.get("perplexity_order", "unknown"),
                                self.released.get("model") or self.perplexity_model), paths[2], PER_PASSAGE_COLUMNS)
        return paths, {}

    def contents_tail(self, comparisons) -> str:
        return ""

    @cached_property
    def keyed(self) -> list:
        """The dataset's numbers keyed by published key, once, for the scorecard and the claims
        (:func:`authbench.studies.selfpref.keyed.selfpref_keyed`)."""
        from authbench.studies.scorecard import coverage_of
        from authbench.studies.selfpref.keyed import dataset_label, selfpref_keyed

        params = self.scorecard_coverage or {"models": {}}
        names = dict(coverage_of(self.scorecard_coverage, "selfpref", datasets=(dataset_label(self.dataset or ""),)).names)
        return selfpref_keyed(self.dataset or "", knowledge=self.knowledge_levels, passages=self.scored_passages,
                              summary=self.summary, rates=preference_rates(self.gen_rows), units=self.units,
                              self_map=self.self_map, names=names,
                              run_models=[m for m in params["models"] if m in self.self_map],
                              released=[a for a in self.knowledge_levels if a not in self.self_map],
                              released_perplexity=self.released_perplexity, files=self.released)

    def scorecard(self, out: Path, built: Mapping) -> list[Path]:
        return write_selfpref_scorecard(out, self.dataset, self.keyed, self.scorecard_coverage,
                                        marks=our_marks(built, self.self_map), significance=self.significance)

    def claims(self, out: Path, report) -> list[Path]:
        from authbench.studies.claims_report import write_claims

        from authbench.studies.selfpref.keyed import dataset_label

        return write_claims(out, "selfpref", f"Self-preference{f' [{self.dataset}]' if self.dataset else ''}",
                            tuple(range(1, 10)), self.keyed, report, self.spec,
                            {"dataset": dataset_label(self.dataset or "")})


def _per_question(df: pd.DataFrame, col: str) -> pd.Series:
    return df.groupby("qid", sort=True)[col].mean()


def comparisons(units: Mapping[str, pd.DataFrame], spec: IntervalSpec) -> tuple[pd.DataFrame, dict]:
    """The paired comparisons of a dataset's report (``normal`` variant),
    questions as the resampling units: reranking scores author vs author
    (per evaluator, prompt, factuality; per-question means), model vs model
    (the same passages scored by two evaluators, questions as clusters); the
    generation rates (self / order / factual and the same-factuality self,
    ``self_pref_same``: :data:`~authbench.studies.selfpref.preference_tables.UNIT_OF`)
    vs 50% (every comparison,
    questions as clusters: Table 3's ``°`` tags, ``(evaluator, other author,
    rate) -> "°"``), author vs author (per evaluator) and model vs model (per
    other author both compared with; per-question means). Families (Holm):
    per evaluator, or per prompt and factuality / rate for model vs model."""
    rows, tag_keys = [], []

    def add(family, what, a, b, unit, va, vb, scale, clusters=None, key=None):
        rows.append(comparison_row(family, what, a, b, unit, va, vb, spec, scale=scale, clusters=clusters))
        tag_keys.append(key)

    def pairs(family, what, per: Mapping[str, pd.Series], name, scale):
        names = list(per)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                both = per[a].index.intersection(per[b].index)
                add(family, what, name(a), name(b), "questions", per[a][both].tolist(), per[b][both].tolist(), scale)

    scores = units["rerank"][(units["rerank"]["variant"] == NORMAL) & units["rerank"]["score"].notna()]
    for (ev, prompt, factual), sub in scores.groupby(["evaluator", "prompt", "factual"], sort=False):
        per = {a: _per_question(sub[sub["author"] == a], "score") for a in author_order(sub["author"])}
        pairs(f"scores: author vs author ({ev})", f"score ({prompt}, {'TRUE' if factual else 'FALSE'})", per,
              lambda a, ev=ev: f"{ev}: {a}", 1.0)
    for (prompt, factual, author), sub in scores.groupby(["prompt", "factual", "author"], sort=False):
        per = {ev: g.groupby("pid", sort=True).agg(score=("score", "mean"), qid=("qid", "first"))
               for ev, g in sub.groupby("evaluator", sort=False)}
        evs = list(per)
        for i, a in enumerate(evs):
            for b in evs[i + 1:]:
                both = per[a].index.intersection(per[b].index)
                add(f"scores: model vs model ({prompt}, {'TRUE' if factual else 'FALSE'})", f"score ({author})", a, b,
                    "questions (passages paired)", per[a].loc[both, "score"].tolist(),
                    per[b].loc[both, "score"].tolist(), 1.0, clusters=per[a].loc[both, "qid"].tolist())
    gen = units["comparisons"][units["comparisons"]["variant"] == NORMAL]
    for key, col in UNIT_OF.items():
        for ev, mine in gen.groupby("evaluator", sort=False):
            for other in author_order(mine["other_author"]) + [ALL]:
                sub = mine if other == ALL else mine[mine["other_author"] == other]
                sub = sub[sub[col].notna()]
                if sub.empty:
                    continue
                rows.append(reference_row(f"preference vs 50% ({ev})", f"{key} (%)", f"{ev} vs {other}", "50%",
                                          "questions (comparisons)", sub[col].tolist(), 50.0, spec, scale=100.0,
                                          clusters=sub["qid"].tolist()))
                tag_keys.append((ev, other, key))
            per = {o: _per_question(mine[(mine["other_author"] == o) & mine[col].notna()], col)
                   for o in author_order(mine["other_author"])}
            pairs(f"preference: author vs author ({ev})", f"{key} (%)", per, lambda o, ev=ev: f"{ev} vs {o}", 100.0)
        for other in author_order(gen["other_author"]):
            sub = gen[(gen["other_author"] == other) & gen[col].notna()]
            per = {ev: _per_question(g, col) for ev, g in sub.groupby("evaluator", sort=False)}
            pairs(f"preference: model vs model ({key})", f"{key} (%) vs {other}", per, lambda ev: ev, 100.0)
    frame = finish(rows)
    tags = {k: NOT_RANDOM_TAG for k, d in zip(tag_keys, frame["distinct"]) if k is not None and d != "yes"}
    return frame, tags


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
    spec: IntervalSpec | None = None,
    intervals: str = "inline",
    scorecard: Mapping | None = None,
    released_perplexity: Mapping[str, Sequence[float]] | None = None,
    released: Mapping | None = None,
    significance: str = "paired",
    qids: Sequence[str] | None = None,
    built_path: str | Path | None = None,
    scope: set[str] | None = None,
) -> list[Path]:
    """Write every table of :data:`~authbench.studies.selfpref.outputs.SELFPREF`
    (``tables/<stem>.csv|md|tex``), ``figures/fig3_heatmaps.png``,
    ``rates.tsv`` (:func:`~authbench.studies.selfpref.rows.rates_long`), ``rerank_summary.tsv``
    (:func:`~authbench.studies.selfpref.rows.rerank_summary`), ``contents.md`` and ``scorecard.md/.tsv``
    (the paper's numbers beside these: :mod:`authbench.studies.scorecard`; ``scorecard``: its grid, None: no
    model is named) under ``outdir``; every
    file is written even when inputs are empty. ``dataset`` (e.g. ``nq``) is
    named in the captions, ``perplexity_model`` in Table 1's; ``significance``
    (config ``selfpref.significance``) the test of Tables 1-2's marks; ``spec`` (config
    ``intervals``; default settings without) the intervals and comparisons,
    ``intervals`` how Markdown and LaTeX show them. Also writes the
    ``units_<name>.parquet`` records and ``comparisons.tsv/.md``.
    ``released_perplexity`` (author -> the release's GPT-2 perplexities,
    :mod:`authbench.studies.selfpref.released`): Table 1's released column,
    the scorecard's data rows and ``perplexity_released.tsv`` (per author:
    compared per passage with ours, or why not; ``released``: ``perplexity_order``,
    ``model`` = our perplexity model's hub id, ``knowledge``/``perplexity``
    file names for the scorecard; ``qids``: the dataset's questions in
    order). At ``built_path``: the built
    tables (:func:`write_datasets_report` stacks them over datasets).
    ``scope``: the questions behind Table 1's passage statistics (config
    ``selfpref.rerank.scope``,
    :func:`~authbench.studies.selfpref.data.scoped_questions`; None: every
    passage's); perplexity rows of other passages are left out. Returns the paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    passages = list(passages or [])
    scored = passages if scope is None else [p for p in passages if p.get("qid") in scope]
    pids = {str(p.get("pid")) for p in scored}
    perplexity_rows = [r for r in perplexity_rows or [] if scope is None or str(r.get("pid")) in pids]
    rerank_rows, gen_rows, knowledge_levels = list(rerank_rows or []), list(gen_rows or []), knowledge_levels or {}
    units = {}
    for name, frame in unit_frames(rerank_rows, gen_rows, knowledge_levels, perplexity_rows, passages, scored).items():
        with atomic_write(outdir / f"units_{name}.parquet", "wb") as fh:
            frame.to_parquet(fh, engine="pyarrow", index=False)
        units[name] = pd.read_parquet(outdir / f"units_{name}.parquet", engine="pyarrow")
    data = SelfprefData(rerank_rows, gen_rows, knowledge_levels, perplexity_rows, passages, self_map or {},
                  perplexity_model, f"[{dataset}] " if dataset else "",
                  released_perplexity=dict(released_perplexity or {}), significance=significance,
                  scored_passages=scored, units=units, spec=spec or IntervalSpec(), dataset=dataset,
                  qids=list(qids or []), released=dict(released or {}), scorecard_coverage=scorecard)
    built: dict = {}
    paths = write_report(SELFPREF, data, outdir, report_choice(SELFPREF, {}), intervals,
                         f"Dataset: {dataset}." if dataset else "", built)
    if built_path is not None:
        write_text(built_path, json.dumps({stem: {"caption": caption, "table": spec_to_json(spec)}
                                           for stem, (spec, caption) in built.items()}, allow_nan=False) + "\n")
    return paths


def our_marks(built: Mapping[str, tuple], self_map: Mapping[str, str]) -> dict[tuple, bool]:
    """The † marks of Tables 1-2 as built (``built``: stem -> (TableSpec,
    caption)) for the scorecard's :func:`~authbench.studies.selfpref.marks.mark_agreement`:
    ``(1, evaluator, "", "")`` its Table 1 perplexity, ``(2, evaluator,
    prompt, "TRUE"|"FALSE")`` its Table 2 self difference; a cell without a
    value has no mark (left out)."""
    out: dict[tuple, bool] = {}

    def marked(spec, row, col) -> bool | None:
        if row not in spec.values.index or col not in spec.values.columns:
            return None
        if not math.isfinite(float(spec.values.loc[row, col])):
            return None
        return str(spec.entries.loc[row, col]).endswith(DAGGER)

    if "table1_knowledge" in built:
        spec = built["table1_knowledge"][0]
        for ev, own in self_map.items():
            got = marked(spec, (ev, own), ("Passage Statistics", "Perplexity"))
            if got is not None:
                out[(1, ev, "", "")] = got
    if "table2_rerank" in built:
        spec = built["table2_rerank"][0]
        for ev, own in self_map.items():
            for prompt, heading in PROMPT_LABELS.items():
                for passage in ("TRUE", "FALSE"):
                    got = marked(spec, (ev, f"{own} (self)"), (heading, "Diff (H − M)", passage))
                    if got is not None:
                        out[(2, ev, prompt, passage)] = got
    return out


def write_datasets_report(built: Mapping[str, str | Path], outdir: str | Path, intervals: str = "inline",
                          keyed: Sequence[str | Path] = (), spec: IntervalSpec | None = None) -> list[Path]:
    """Every table of :data:`~authbench.studies.selfpref.outputs.SELFPREF_DATASETS`
    under ``outdir``: each dataset report's table (``built``: dataset label ->
    the tables its report kept, :func:`write_selfpref_report`'s ``built_path``)
    stacked with one block of rows per dataset, in ``built``'s order,
    ``contents.md``, and the claims over every dataset (``keyed``: each
    dataset report's ``units_keyed.parquet``; a claim "in all three
    datasets" is tested here on the run's datasets). A dataset whose file is
    not a report's tables is an ``InputError`` naming it."""
    from authbench.errors import InputError
    from authbench.studies.claims_report import write_claims
    from authbench.studies.keyed import read_keyed

    tables: dict[str, dict] = {}
    for label, path in built.items():
        try:
            got = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{path}: cannot read dataset {label!r}'s report tables ({exc})") from exc
        try:
            tables[label] = {stem: (spec_from_json(t["table"]), t["caption"]) for stem, t in got.items()}
        except (AttributeError, TypeError, KeyError, ValueError) as exc:
            raise InputError(f"{path}: dataset {label!r}: expected the tables a self-preference report kept "
                             f"(stem -> {{caption, table}}): {type(exc).__name__} {exc}") from exc
    outdir = Path(outdir)
    written = report_choice(SELFPREF_DATASETS, {})
    paths = write_tables(SELFPREF_DATASETS, written["written"], tables, outdir, intervals)
    contents = outdir / "contents.md"
    write_text(contents, contents_md(SELFPREF_DATASETS, written, f"Datasets: {', '.join(built)}."))
    numbers = [n for path in keyed for n in read_keyed(path, "selfpref")]
    paths += write_claims(outdir, "selfpref", "Self-preference, all datasets", tuple(range(1, 10)), numbers,
                          SELFPREF_DATASETS, spec)
    return paths + [contents]
