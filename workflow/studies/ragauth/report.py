"""RAGAuth answer accuracy: bootstrap intervals, the long accuracy table and
the paper's Table 5 (plus a per-topic companion table).

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

* :func:`accuracy_rows` -> long rows (:data:`ACCURACY_COLUMNS`), accuracy and
  bootstrap CI in percent, unrounded; one ``topic="all"`` row per cell plus,
  when any question carries a topic, one row per topic present in the cell
  (questions without a topic under ``"unlabelled"``).
* :func:`table5` -> :class:`~authbench.render.tables.TableSpec` in the layout of the
  paper's Table 5 (rows model x k), with two extra reference columns.
* :func:`topic_table` -> accuracy with 95% CI and n, overall and per topic.
* :func:`write_rag_report` writes ``accuracy.tsv``, both tables and ``contents.md``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from authbench.errors import excerpt
from authbench.records import write_tsv
from authbench.render.tables import (
    COUNT,
    FAIL,
    PCT,
    Column,
    TableSpec,
    baselines_last,
    build_table,
    is_baseline,
    round2,
)
from authbench.stats import percentile_bootstrap

__all__ = [
    "ACCURACY_COLUMNS",
    "STRATEGIES",
    "STRATEGY_LABELS",
    "accuracy_rows",
    "table5",
    "topic_table",
    "write_accuracy",
    "write_rag_report",
]

NO_FILTER = "no_filter"
ALL = "all"
UNLABELLED = "unlabelled"

# Canonical order: the paper's strategies first, then our two references.
STRATEGIES = ("no_filter", "relevance", "utility", "authority", "pagerank_oracle", "tld_prior")
PAPER_STRATEGIES = ("no_filter", "relevance", "utility", "authority")
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
    "ci_low",
    "ci_high",
    "parse_failures",
)


# --------------------------------------------------------------------------
# long accuracy rows
# --------------------------------------------------------------------------
def _norm_k(strategy: str, k) -> str:
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
    return str(model), strategy, _norm_k(strategy, k)


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


def _mean_rows(x: np.ndarray) -> np.ndarray:
    return x.mean(axis=1)


def _stat_row(model, strategy, k, topic, judged, n_boot, seed) -> dict:
    judged = sorted(judged, key=lambda r: r[0])  # bootstrap independent of input order
    flags = [c for _, _, c, _ in judged]
    n = len(flags)
    n_correct = sum(flags)
    low, high, _ = percentile_bootstrap((np.asarray(flags, dtype=float),), {"accuracy": _mean_rows}, n_boot,
                                        (seed, "ragauth-bootstrap", model, strategy, k, topic))["accuracy"]
    return {
        "model": model,
        "strategy": strategy,
        "k": k,
        "topic": topic,
        "n": n,
        "correct": n_correct,
        "accuracy": 100.0 * n_correct / n if n else math.nan,
        "ci_low": 100.0 * low,
        "ci_high": 100.0 * high,
        "parse_failures": sum(1 for _, _, _, f in judged if f),
    }


def _k_sort(k: str):
    return (-1, 0) if k == ALL else (0, int(k))


def accuracy_rows(cells, n_boot: int, seed: int, topics: bool = True) -> list[dict]:
    """Long accuracy rows, one per cell and topic (see the module docstring).

    ``cells`` is a mapping ``identity -> rows`` or an iterable of
    ``(identity, rows)`` pairs (or of mappings with ``model, strategy, k,
    rows``); an identity is ``(model, strategy, k)`` or a mapping with those
    keys.  Rows come out ordered by model (first appearance), strategy
    (:data:`STRATEGIES`), k (``all`` first, then numerically) and topic
    (``all``, the labels sorted, ``unlabelled`` last).  Every (cell, topic)
    gets its own bootstrap stream, seeded by ``(seed, model, strategy, k,
    topic)``.
    """
    parsed: dict[tuple[str, str, str], list[tuple]] = {}
    models: list[str] = []
    for key, judged in _iter_cells(cells):
        ident = _identity(key)
        if ident in parsed:
            raise ValueError(f"duplicate answer cell {ident!r}")
        where = "cell (model={!r}, strategy={!r}, k={!r})".format(*ident)
        checked = [_check_row(r, where) for r in judged]
        qids = [q for q, *_ in checked]
        if len(set(qids)) != len(qids):
            dup = sorted({q for q in qids if qids.count(q) > 1})
            raise ValueError(f"{where}: duplicate question id(s) {dup}")
        parsed[ident] = checked
        if ident[0] not in models:
            models.append(ident[0])
    labelled = topics and any(t is not None for rows in parsed.values() for _, t, _, _ in rows)

    out = []
    order = sorted(parsed, key=lambda i: (models.index(i[0]), STRATEGIES.index(i[1]), _k_sort(i[2])))
    for model, strategy, k in order:
        judged = parsed[(model, strategy, k)]
        out.append(_stat_row(model, strategy, k, ALL, judged, n_boot, seed))
        if not labelled:
            continue
        present = {t for _, t, _, _ in judged}
        names = sorted(t for t in present if t is not None) + ([UNLABELLED] if None in present else [])
        for name in names:
            want = None if name == UNLABELLED else name
            sub = [r for r in judged if r[1] == want]
            out.append(_stat_row(model, strategy, k, name, sub, n_boot, seed))
    return out


def write_accuracy(rows: Iterable[Mapping], path: str | Path) -> None:
    """The long accuracy rows as a TSV with the columns :data:`ACCURACY_COLUMNS`."""
    write_tsv(rows, path, ACCURACY_COLUMNS)


# --------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------
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
    df["k"] = [_norm_k(s, k) for s, k in zip(df["strategy"], df["k"])]
    df["topic"] = df["topic"].astype(str)
    for col in ("n", "correct", "accuracy", "ci_low", "ci_high", "parse_failures"):
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


def table5(rows) -> TableSpec:
    """Table 5: answer accuracy (%) on RAGAuth, rows model x k.

    ``rows`` are :func:`accuracy_rows` dicts or the frame read back from
    :func:`write_accuracy`; only the overall (``topic="all"``) rows are used.
    Columns, each only when its strategy occurs in the data: ``w/o Filter``
    (the model's single no-filter accuracy, repeated on every k row so that
    each row compares all four of the paper's strategies), ``Relevance``,
    ``Utility``, ``Authority``, then our references ``PageRank oracle`` and
    ``TLD prior``, then ``fail%``: the parse failures over all answers of the
    cells shown in the row (the no-filter cell included), in percent.  The k
    rows are every k of any filtered cell, sorted numerically; absent cells
    show ``–``.  Per row, the best / second-best of the paper's four columns
    are bold / underlined; the two reference columns are never marked.
    """
    what = "table5"
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

    cols = [
        Column((STRATEGY_LABELS[s],), PCT, lambda r, s=s: _acc(r, s), group="acc" if s in PAPER_STRATEGIES else None)
        for s in present
    ]
    cols.append(Column((FAIL,), PCT, _fail))

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
    caption += " fail%: unparsed answers over all cells of the row."
    return build_table(
        table_rows,
        table_rows,
        ["Model", "k"],
        cols,
        [is_baseline(m) for m, _ in table_rows],
        caption=caption,
    )


def _join(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def topic_table(rows) -> TableSpec:
    """Answer accuracy (%) with its bootstrap interval, overall and per topic
    (only the ``All`` group when the data carries no topic labels: the
    workflow always writes this table, so it must not depend on the data).

    Rows model x strategy x k (strategy shown by its Table 5 label, k ``all``
    for w/o Filter); column groups ``All`` and then one per topic (labels
    sorted, ``unlabelled`` last), each with ``acc``, ``CI low``, ``CI high``
    (95% percentile bootstrap) and ``n``.  A topic absent from a cell shows
    ``–`` and n 0.  No highlighting.
    """
    what = "topic_table"
    df = _frame(rows, what)
    labels = set(df["topic"]) - {ALL}
    look = _index(df, what)
    topics = [ALL] + sorted(t for t in labels if t != UNLABELLED) + ([UNLABELLED] if UNLABELLED in labels else [])
    models = baselines_last(df["model"])
    cells = sorted(
        {(m, s, k) for m, s, k in zip(df["model"], df["strategy"], df["k"])},
        key=lambda c: (models.index(c[0]), STRATEGIES.index(c[1]), _k_sort(c[2])),
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
            Column((head, "acc"), PCT, lambda r, t=t: _get(r, t, "accuracy")),
            Column((head, "CI low"), PCT, lambda r, t=t: _get(r, t, "ci_low")),
            Column((head, "CI high"), PCT, lambda r, t=t: _get(r, t, "ci_high")),
            Column((head, "n"), COUNT, lambda r, t=t: _get(r, t, "n")),
        ]
    caption = (
        "Answer accuracy (%) on RAGAuth per question topic, with 95% percentile-bootstrap "
        "intervals over questions (CI low / CI high) and the number of questions n."
    )
    return build_table(
        cells,
        [(m, STRATEGY_LABELS[s], k) for m, s, k in cells],
        ["Model", "Strategy", "k"],
        cols,
        [False] * len(cells),
        caption=caption,
    )


def write_rag_report(rows, outdir: str | Path) -> list[Path]:
    """``accuracy.tsv`` (:func:`write_accuracy`), the tables of
    :data:`~authbench.studies.ragauth.outputs.RAGAUTH` (``tables/table5_ragauth``
    and ``tables/table5_topics``, ``.csv/.md/.tex``) and ``contents.md`` under
    ``outdir``; return the tables' paths."""
    from authbench.render.catalog import contents_md, plan, write_tables
    from authbench.studies.ragauth.outputs import RAGAUTH

    outdir = Path(outdir)
    rows = list(rows)
    write_accuracy(rows, outdir / "accuracy.tsv")
    written = plan(RAGAUTH, {})  # every item is always written
    paths = write_tables(RAGAUTH, written["written"], rows, outdir)
    (outdir / "contents.md").write_text(contents_md(RAGAUTH, written), encoding="utf-8")
    return paths
