"""The RAGAuth tables, built from the long accuracy rows
(:func:`authbench.studies.ragauth.report.accuracy_rows`, or the frame read
back from ``accuracy.tsv``):

* :func:`table5` -> :class:`~authbench.render.tables.TableSpec` in the layout of the
  paper's Table 5 (rows model x k), with two extra reference columns.
* :func:`topic_table` -> accuracy with its 95% interval and n, overall and per topic.

Every accuracy carries its interval (``lo`` / ``hi`` of the rows:
:func:`authbench.stats.mean_interval` over the cell's questions), Table 5's
fail% one over the row's answers (questions as clusters); a blank interval
(fewer than ``intervals.min_units`` questions) is said in the caption's note.
Table 5's filtered values not distinguishable from the same model's w/o
Filter (paired comparison, :func:`authbench.studies.ragauth.report.comparisons`)
carry ``°``.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import pandas as pd
from authbench.render.formatting import COUNT, FAIL, NOT_RANDOM_TAG, PCT, round2
from authbench.render.intervals import interval_words, shown_interval, with_blank_note
from authbench.render.tables import Column, TableSpec, baselines_last, build_table, is_baseline
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.ragauth.report import ACCURACY_COLUMNS, ALL, STRATEGY_LABELS, UNLABELLED, k_sort, norm_k
from authbench.studies.ragauth.words import NO_FILTER, PAPER_STRATEGIES, STRATEGIES

__all__ = ["table5", "topic_table"]


def _frame(rows, what: str) -> pd.DataFrame:
    df = rows.copy() if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    if df.empty:
        raise ValueError(f"{what}: no accuracy rows; expected the output of accuracy_rows()")
    missing = [c for c in ACCURACY_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing}; expected {list(ACCURACY_COLUMNS)}")
    df["model"] = df["model"].astype(str)
    df["strategy"] = df["strategy"].astype(str)
    unknown = sorted(set(df["strategy"]) - set(STRATEGIES))
    if unknown:
        raise ValueError(f"{what}: unknown strategy/strategies {unknown}; expected {list(STRATEGIES)}")
    df["k"] = [norm_k(s, k) for s, k in zip(df["strategy"], df["k"])]
    df["topic"] = df["topic"].astype(str)
    for col in ("n", "correct", "accuracy", "lo", "hi", "parse_failures"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    return df


def _index(df: pd.DataFrame, what: str) -> dict[tuple, dict]:
    out: dict[tuple, dict] = {}
    for rec in df.to_dict("records"):
        key = (rec["model"], rec["strategy"], rec["k"], rec["topic"])
        if key in out:
            raise ValueError(f"{what}: duplicate accuracy row for {key!r}")
        out[key] = rec
    return out


def _interval(hit) -> tuple[float, float]:
    return (math.nan, math.nan) if hit is None else shown_interval(hit["lo"], hit["hi"])


def table5(rows, units: pd.DataFrame | None = None, spec: IntervalSpec | None = None,
           tags: Mapping[tuple, str] | None = None) -> TableSpec:
    """Table 5: answer accuracy (%) on RAGAuth, rows model x k.

    ``rows`` are :func:`~authbench.studies.ragauth.report.accuracy_rows` dicts or the frame read back from
    :func:`~authbench.studies.ragauth.report.write_accuracy`; only the overall (``topic="all"``) rows are used.
    Columns, each only when its strategy occurs in the data: ``w/o Filter``
    (the model's single no-filter accuracy, repeated on every k row so that
    each row compares all four of the paper's strategies), ``Relevance``,
    ``Utility``, ``Authority``, then our references ``PageRank oracle`` and
    ``TLD prior``, then ``fail%``: the parse failures over all answers of the
    cells shown in the row (the no-filter cell included), in percent.  The k
    rows are every k of any filtered cell, sorted numerically; absent cells
    show ``–``.  Per row, the best / second-best of the paper's four columns
    are bold / underlined; the two reference columns are never marked.
    Intervals: the rows' ``lo`` / ``hi``; fail%'s over ``units``
    (:func:`~authbench.studies.ragauth.report.unit_frame`; none without).
    ``tags``: ``(model, strategy, k) -> "°"`` (not distinguishable from w/o
    Filter).
    """
    what = "table5"
    spec = spec or IntervalSpec()
    tags = tags or {}
    df = _frame(rows, what)
    df = df[df["topic"] == ALL]
    if df.empty:
        raise ValueError(f"{what}: no overall (topic='all') accuracy rows")
    look = _index(df, what)
    ks = sorted({k for k in df["k"] if k != ALL}, key=int)
    if not ks:
        raise ValueError(f"{what}: only no_filter cells found; Table 5 needs filtered cells with a top-k")
    present = [s for s in STRATEGIES if s in set(df["strategy"])]
    models = baselines_last(df["model"])
    table_rows = [(m, k) for m in models for k in ks]

    def _cell(model, strategy, k):
        return look.get((model, strategy, ALL if strategy == NO_FILTER else k, ALL))

    def _acc(r, s):
        hit = _cell(r[0], s, r[1])
        return math.nan if hit is None else round2(hit["accuracy"])

    def _fail(r):
        hits = [h for h in (_cell(r[0], s, r[1]) for s in present) if h is not None]
        n = sum(h["n"] for h in hits)
        if not n:
            return math.nan
        return round2(100.0 * sum(h["parse_failures"] for h in hits) / n)

    def _fail_interval(r):
        mine = units[(units["model"] == r[0]) & (((units["strategy"] == NO_FILTER) & (units["k"] == ALL))
                                                  | ((units["strategy"] != NO_FILTER) & (units["k"] == r[1])))]
        if mine.empty:
            return math.nan, math.nan
        lo, hi = mean_interval(mine["failed"].to_numpy(dtype=float), spec, ("ragauth-fail", r[0], r[1]),
                               clusters=mine["qid"].tolist())
        return round2(100.0 * lo), round2(100.0 * hi)

    def _tag(r, s):
        return tags.get((r[0], s, ALL if s == NO_FILTER else r[1]), "")

    cols = [
        Column((STRATEGY_LABELS[s],), PCT, lambda r, s=s: _acc(r, s), group="acc" if s in PAPER_STRATEGIES else None,
               interval=lambda r, s=s: _interval(_cell(r[0], s, r[1])), tag=lambda r, s=s: _tag(r, s))
        for s in present
    ]
    cols.append(Column((FAIL,), PCT, _fail, interval=None if units is None else _fail_interval))

    llm = [m for m in models if not is_baseline(m)]
    marked = [STRATEGY_LABELS[s] for s in present if s in PAPER_STRATEGIES]
    caption = (
        f"Answer accuracy (%) on RAGAuth across {len(llm)} model{'s' if len(llm) != 1 else ''} "
        f"under different filtering strategies and top-k settings (k in {{{', '.join(ks)}}}). "
        "Bold: best per LLM per k; underline: second best"
        + (f" (among {_join(marked)})." if marked else ".")
    )
    what_is = {
        "pagerank_oracle": "PageRank oracle: documents ranked by their true PageRank",
        "tld_prior": "TLD prior: documents ranked by a public-suffix prior",
    }
    extra = [what_is[s] for s in present if s in what_is]
    if extra:
        caption += " " + "; ".join(extra) + " (reference filters added by us, never marked)."
    if NO_FILTER in present:
        caption += " w/o Filter does not depend on k and is repeated on every k row."
    caption += " fail%: unparsed answers over all cells of the row (interval: questions as clusters)."
    caption += interval_words(spec, "questions")
    if NO_FILTER in present and len(present) > 1:
        caption += (f" {NOT_RANDOM_TAG}: not distinguishable from the model's w/o Filter (paired by question, "
                    "Holm-adjusted p ≥ 0.05 or too few questions; comparisons.md).")
    return with_blank_note(build_table(
        table_rows,
        table_rows,
        ["Model", "k"],
        cols,
        [is_baseline(m) for m, _ in table_rows],
        caption=caption,
    ), spec, "questions")


def _join(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def topic_table(rows, spec: IntervalSpec | None = None, tags: Mapping[tuple, str] | None = None) -> TableSpec:
    """Answer accuracy (%) with its bootstrap interval, overall and per topic
    (only the ``All`` group when the data carries no topic labels: the
    workflow always writes this table, so it must not depend on the data).

    Rows model x strategy x k (strategy shown by its Table 5 label, k ``all``
    for w/o Filter); column groups ``All`` and then one per topic (labels
    sorted, ``unlabelled`` last), each with ``acc`` (its interval: the rows'
    ``lo`` / ``hi``) and ``n``.  A topic absent from a cell shows
    ``–`` and n 0.  No highlighting; ``tags`` (Table 5's) on the ``All``
    accuracies.
    """
    what = "topic_table"
    spec = spec or IntervalSpec()
    tags = tags or {}
    df = _frame(rows, what)
    labels = set(df["topic"]) - {ALL}
    look = _index(df, what)
    topics = [ALL] + sorted(t for t in labels if t != UNLABELLED) + ([UNLABELLED] if UNLABELLED in labels else [])
    models = baselines_last(df["model"])
    cells = sorted(
        {(m, s, k) for m, s, k in zip(df["model"], df["strategy"], df["k"])},
        key=lambda c: (models.index(c[0]), STRATEGIES.index(c[1]), k_sort(c[2])),
    )

    def _get(r, topic, field):
        hit = look.get((*r, topic))
        if hit is None:
            return 0.0 if field == "n" else math.nan
        return hit["n"] if field == "n" else round2(hit[field])

    cols = []
    for t in topics:
        head = "All" if t == ALL else t
        cols += [
            Column((head, "acc"), PCT, lambda r, t=t: _get(r, t, "accuracy"),
                   interval=lambda r, t=t: _interval(look.get((*r, t))),
                   tag=lambda r, t=t: tags.get(r, "") if t == ALL else ""),
            Column((head, "n"), COUNT, lambda r, t=t: _get(r, t, "n")),
        ]
    caption = (
        "Answer accuracy (%) on RAGAuth per question topic, with the number of questions n."
        + interval_words(spec, "questions")
        + (f" {NOT_RANDOM_TAG} (All): not distinguishable from the model's w/o Filter (Table 5)." if tags else "")
    )
    return with_blank_note(build_table(
        cells,
        [(m, STRATEGY_LABELS[s], k) for m, s, k in cells],
        ["Model", "Strategy", "k"],
        cols,
        [False] * len(cells),
        caption=caption,
    ), spec, "questions")


