"""RAGAuth answer accuracy: the per-question records, bootstrap intervals,
paired comparisons, the long accuracy table and the report folder.

Input ("cells"): one entry per answer cell, i.e. per (model, strategy, k),
with its judgment rows, one per question::

    {"qid": str, "topic": str | None, "gold": "yes" | "no",
     "answer": "yes" | "no" | None, "status": "ok" | "wrong_format" | ...,
     "correct": bool, "n_docs": int, "selected": [docid, ...]}

``strategy`` is one of :data:`STRATEGIES`; ``k`` is ``"all"`` for
``no_filter`` and a positive int (or its string) otherwise.  A row counts as
a parse failure when its status is not ``"ok"`` or its answer is ``None``; a
row with answer ``None`` must not be marked correct.

Output:

* :func:`unit_frame` -> one checked record per cell and question
  (:data:`UNIT_COLUMNS`; ``units.parquet``), which the rest is computed from;
* :func:`accuracy_rows` -> long rows (:data:`ACCURACY_COLUMNS`), accuracy and
  its 95% interval (:func:`authbench.stats.mean_interval` over questions,
  config ``intervals``; blank below ``min_units`` questions) in percent,
  unrounded; one ``topic="all"`` row per cell plus, when any question
  carries a topic, one row per topic present in the cell (questions without
  a topic under ``"unlabelled"``);
* :func:`comparisons` -> the paired comparisons (``comparisons.tsv/.md``)
  and Table 5's ``°`` tags;
* the tables built from them: :mod:`authbench.studies.ragauth.tables`.
* :func:`report_data` is what the report folder is written from
  (:func:`authbench.studies.ragauth.outputs.write_rag_report`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np
import pandas as pd
from authbench.errors import excerpt
from authbench.records import atomic_write, write_tsv
from authbench.render.comparisons import comparison_row, finish
from authbench.render.formatting import NOT_RANDOM_TAG
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.ragauth.words import NO_FILTER, STRATEGIES

__all__ = [
    "ACCURACY_COLUMNS",
    "STRATEGIES",
    "STRATEGY_LABELS",
    "UNIT_COLUMNS",
    "accuracy_rows",
    "comparisons",
    "unit_frame",
    "report_data",
    "write_accuracy",
]

ALL = "all"
UNLABELLED = "unlabelled"
VS_NO_FILTER = "vs w/o Filter"

STRATEGY_LABELS = {
    "no_filter": "w/o Filter",
    "relevance": "Relevance",
    "utility": "Utility",
    "authority": "Authority",
    "pagerank_oracle": "PageRank oracle",
    "tld_prior": "TLD prior",
}

ACCURACY_COLUMNS = (
    "model",
    "strategy",
    "k",
    "topic",
    "n",
    "correct",
    "accuracy",
    "lo",
    "hi",
    "parse_failures",
)
UNIT_COLUMNS = ("model", "strategy", "k", "qid", "topic", "gold", "answer", "status", "correct", "failed")


# --------------------------------------------------------------------------
# long accuracy rows
# --------------------------------------------------------------------------
def norm_k(strategy: str, k) -> str:
    if strategy == NO_FILTER:
        if str(k) != ALL:
            raise ValueError(f"strategy 'no_filter' takes k='all', got k={k!r}")
        return ALL
    if isinstance(k, bool):
        raise ValueError(f"strategy {strategy!r}: k must be a positive int, got {k!r}")
    try:
        kf = float(k)
    except (TypeError, ValueError):
        raise ValueError(f"strategy {strategy!r}: k must be a positive int, got {k!r}") from None
    if not math.isfinite(kf) or kf != int(kf) or kf < 1:
        raise ValueError(f"strategy {strategy!r}: k must be a positive int, got {k!r}")
    return str(int(kf))


def _identity(key) -> tuple[str, str, str]:
    if isinstance(key, Mapping):
        try:
            model, strategy, k = key["model"], key["strategy"], key["k"]
        except KeyError as err:
            raise ValueError(f"cell identity {dict(key)!r} lacks {err.args[0]!r}; expected model, strategy, k") from None
    else:
        try:
            model, strategy, k = key
        except (TypeError, ValueError):
            raise ValueError(f"cell identity {key!r}: expected (model, strategy, k)") from None
    strategy = str(strategy)
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {list(STRATEGIES)}")
    return str(model), strategy, norm_k(strategy, k)


def _iter_cells(cells) -> Iterable[tuple[object, list]]:
    if isinstance(cells, Mapping):
        yield from cells.items()
        return
    for entry in cells:
        if isinstance(entry, Mapping) and "rows" in entry:
            yield entry, entry["rows"]
        else:
            try:
                key, judged = entry
            except (TypeError, ValueError):
                raise ValueError(
                    f"cell {entry!r}: expected (identity, rows) or a mapping with model, strategy, k and rows"
                ) from None
            yield key, judged


def _topic(value) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    if not text:
        return None
    if text in (ALL, UNLABELLED):
        raise ValueError(f"topic label {text!r} is reserved (it names the overall / unlabelled rows)")
    return text


def _check_row(row: Mapping, where: str) -> tuple[str, str | None, bool, bool]:
    for col in ("qid", "answer", "status", "correct"):
        if col not in row:
            raise ValueError(f"{where}: judgment row {excerpt(dict(row))} lacks {col!r}")
    answer = row["answer"]
    failed = row["status"] != "ok" or answer is None
    correct = row["correct"]
    if not isinstance(correct, (bool, np.bool_)):
        raise ValueError(f"{where}, qid {row['qid']!r}: 'correct' must be a bool, got {excerpt(correct)}")
    if answer is None and correct:
        raise ValueError(f"{where}, qid {row['qid']!r}: an unparsed answer (None) cannot be correct")
    return str(row["qid"]), _topic(row.get("topic")), bool(correct), failed


def unit_frame(cells) -> pd.DataFrame:
    """The checked per-question records of every answer cell (``units.parquet``,
    :data:`UNIT_COLUMNS`): ``cells`` as :func:`accuracy_rows` takes them;
    rows ordered by model (first appearance), strategy (:data:`STRATEGIES`),
    k (``all`` first, then numerically) and question id."""
    parsed: dict[tuple[str, str, str], list[tuple]] = {}
    models: list[str] = []
    for key, judged in _iter_cells(cells):
        ident = _identity(key)
        if ident in parsed:
            raise ValueError(f"duplicate answer cell {ident!r}")
        where = "cell (model={!r}, strategy={!r}, k={!r})".format(*ident)
        checked = [(*_check_row(r, where), r) for r in judged]
        qids = [q for q, *_ in checked]
        if len(set(qids)) != len(qids):
            dup = sorted({q for q in qids if qids.count(q) > 1})
            raise ValueError(f"{where}: duplicate question id(s) {dup}")
        parsed[ident] = sorted(checked, key=lambda c: c[0])  # intervals independent of input order
        if ident[0] not in models:
            models.append(ident[0])
    order = sorted(parsed, key=lambda i: (models.index(i[0]), STRATEGIES.index(i[1]), k_sort(i[2])))
    records = [{"model": m, "strategy": s, "k": k, "qid": q, "topic": t, "gold": r.get("gold"), "answer": r["answer"],
                "status": r["status"], "correct": c, "failed": f}
               for m, s, k in order for q, t, c, f, r in parsed[(m, s, k)]]
    return pd.DataFrame(records, columns=list(UNIT_COLUMNS)).astype({"correct": bool, "failed": bool})


def _stat_row(model, strategy, k, topic, sub: pd.DataFrame, spec: IntervalSpec) -> dict:
    n = len(sub)
    n_correct = int(sub["correct"].sum())
    low, high = mean_interval(sub["correct"].to_numpy(dtype=float), spec, ("ragauth", model, strategy, k, topic))
    return {
        "model": model,
        "strategy": strategy,
        "k": k,
        "topic": topic,
        "n": n,
        "correct": n_correct,
        "accuracy": 100.0 * n_correct / n if n else math.nan,
        "lo": 100.0 * low,
        "hi": 100.0 * high,
        "parse_failures": int(sub["failed"].sum()),
    }


def k_sort(k: str):
    return (-1, 0) if k == ALL else (0, int(k))


def _cells(units: pd.DataFrame):
    """(model, strategy, k) -> its rows, in the frame's order."""
    return {key: sub for key, sub in units.groupby(["model", "strategy", "k"], sort=False)}


def accuracy_rows(cells, spec: IntervalSpec, topics: bool = True) -> list[dict]:
    """Long accuracy rows, one per cell and topic (see the module docstring).

    ``cells`` is a mapping ``identity -> rows`` or an iterable of
    ``(identity, rows)`` pairs (or of mappings with ``model, strategy, k,
    rows``), or :func:`unit_frame`'s frame; an identity is ``(model,
    strategy, k)`` or a mapping with those keys.  Rows come out ordered by
    model (first appearance), strategy (:data:`STRATEGIES`), k (``all``
    first, then numerically) and topic (``all``, the labels sorted,
    ``unlabelled`` last).  Every (cell, topic) gets its own interval
    (:func:`authbench.stats.mean_interval` over its questions, seeded by
    ``(model, strategy, k, topic)``; blank with fewer than
    ``spec.min_units`` questions).
    """
    units = cells if isinstance(cells, pd.DataFrame) else unit_frame(cells)
    labelled = topics and bool(units["topic"].notna().any())
    out = []
    for (model, strategy, k), sub in _cells(units).items():
        out.append(_stat_row(model, strategy, k, ALL, sub, spec))
        if not labelled:
            continue
        present = set(sub["topic"].dropna())
        names = sorted(present) + ([UNLABELLED] if sub["topic"].isna().any() else [])
        for name in names:
            part = sub[sub["topic"].isna()] if name == UNLABELLED else sub[sub["topic"] == name]
            out.append(_stat_row(model, strategy, k, name, part, spec))
    return out


def comparisons(units: pd.DataFrame, spec: IntervalSpec) -> tuple[pd.DataFrame, dict[tuple, str]]:
    """The paired comparisons of the answer cells (``comparisons.tsv``),
    accuracy in percent, paired by question (McNemar's exact p beside the
    bootstrap): family ``vs w/o Filter (<model>)``: every filtered cell
    against the same model's no-filter cell; family ``model vs model
    (<strategy, k>)``: every two models in the same strategy and k. Also the Table 5 tags: ``(model, strategy,
    k) -> "°"`` for a filtered cell not distinguishable from w/o Filter
    (Holm-adjusted p ≥ 0.05, or too few questions for a test)."""
    cells = {key: sub.set_index("qid")["correct"].astype(float) for key, sub in _cells(units).items()}
    rows, keys = [], []

    def compare(family, a_key, b_key, a_name, b_name):
        both = cells[a_key].index.intersection(cells[b_key].index, sort=False)
        rows.append(comparison_row(family, "accuracy (%)", a_name, b_name, "questions",
                                   cells[a_key][both].tolist(), cells[b_key][both].tolist(), spec,
                                   scale=100.0, binary=True))
        keys.append(a_key if family.startswith(VS_NO_FILTER) else None)

    def name(m, s, k):
        return f"{m}, {STRATEGY_LABELS[s]}" + ("" if k == ALL else f", k={k}")

    for m, s, k in cells:
        if s != NO_FILTER and (m, NO_FILTER, ALL) in cells:
            compare(f"{VS_NO_FILTER} ({m})", (m, s, k), (m, NO_FILTER, ALL), name(m, s, k), name(m, NO_FILTER, ALL))
    models = list(dict.fromkeys(m for m, _, _ in cells))
    settings = sorted({(s, k) for _, s, k in cells}, key=lambda c: (STRATEGIES.index(c[0]), k_sort(c[1])))
    for s, k in settings:
        for i, a in enumerate(models):
            for b in models[i + 1:]:
                if (a, s, k) in cells and (b, s, k) in cells:
                    compare(f"model vs model ({STRATEGY_LABELS[s]}{'' if k == ALL else f', k={k}'})", (a, s, k),
                            (b, s, k), name(a, s, k), name(b, s, k))
    frame = finish(rows)
    tags = {key: NOT_RANDOM_TAG for key, d in zip(keys, frame["distinct"]) if key is not None and d != "yes"}
    return frame, tags


def write_accuracy(rows: Iterable[Mapping], path: str | Path) -> None:
    """The long accuracy rows as a TSV with the columns :data:`ACCURACY_COLUMNS`
    (a blank interval: empty fields)."""
    write_tsv(({k: "" if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in rows), path,
              ACCURACY_COLUMNS)


@dataclass
class RagauthData:
    """RAGAuth's report data (:class:`authbench.render.catalog.ReportData`):
    the accuracy rows, the per-question records, the interval settings, the
    paired comparisons' tags (Table 5's) and the scorecard's grid."""

    rows: list
    units: pd.DataFrame
    spec: IntervalSpec
    tags: Mapping[tuple, str] = field(default_factory=dict)
    scorecard_coverage: Mapping | None = None
    comparisons_title: str = "RAGAuth: paired comparisons"

    def compare(self):
        return comparisons(self.units, self.spec)

    def tagged(self, tags: Mapping[tuple, str]) -> "RagauthData":
        return replace(self, tags=dict(tags))

    def write_files(self, out: Path):
        write_accuracy(self.rows, out / "accuracy.tsv")
        return [out / "accuracy.tsv"], {}

    def contents_tail(self, comparisons: pd.DataFrame) -> str:
        return ""

    @cached_property
    def keyed(self) -> list:
        """Table 5's numbers keyed by published key, once, for the scorecard and the claims."""
        from authbench.studies.ragauth.keyed import rag_keyed
        from authbench.studies.scorecard import coverage_of

        params = self.scorecard_coverage or {"models": {}}
        return rag_keyed(self.rows, self.units, dict(coverage_of(self.scorecard_coverage, "authoritybench").names),
                         list(params["models"]))

    def scorecard(self, out: Path, built: Mapping) -> list[Path]:
        from authbench.studies.ragauth.keyed import rag_reason
        from authbench.studies.scorecard import write_paper_scorecard

        return write_paper_scorecard(out, "RAGAuth", "authoritybench", (5,), self.keyed, rag_reason,
                                     self.scorecard_coverage)

    def claims(self, out: Path, report) -> list[Path]:
        from authbench.studies.claims_report import write_claims

        return write_claims(out, "authoritybench", "RAGAuth", (5,), self.keyed, report, self.spec)


def report_data(cells, spec: IntervalSpec, outdir: str | Path, scorecard: Mapping | None = None) -> RagauthData:
    """The report data of the answer cells' records: ``units.parquet``
    (:func:`unit_frame`, written and read back: everything after reads the
    file) and the accuracy rows (:func:`accuracy_rows`); ``scorecard``: the
    grid of :func:`authbench.studies.scorecard.coverage_params` (None: no model is
    named)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    with atomic_write(outdir / "units.parquet", "wb") as fh:
        unit_frame(cells).to_parquet(fh, engine="pyarrow", index=False)
    units = pd.read_parquet(outdir / "units.parquet", engine="pyarrow")
    return RagauthData(accuracy_rows(units, spec), units, spec, scorecard_coverage=scorecard)
