"""RAGAuth answer accuracy: bootstrap intervals, the long accuracy table and
the report folder.

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
* the tables built from them: :mod:`authbench.studies.ragauth.tables`.
* :func:`write_rag_report` writes ``accuracy.tsv``, both tables and ``contents.md``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np
from authbench.errors import excerpt
from authbench.records import write_tsv
from authbench.stats import percentile_bootstrap

__all__ = [
    "ACCURACY_COLUMNS",
    "STRATEGIES",
    "STRATEGY_LABELS",
    "accuracy_rows",
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


def k_sort(k: str):
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
    order = sorted(parsed, key=lambda i: (models.index(i[0]), STRATEGIES.index(i[1]), k_sort(i[2])))
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


def write_rag_report(rows, outdir: str | Path, scorecard: Mapping | None = None) -> list[Path]:
    """``accuracy.tsv`` (:func:`write_accuracy`), the tables of
    :data:`~authbench.studies.ragauth.outputs.RAGAUTH` (``tables/table5_ragauth``
    and ``tables/table5_topics``, ``.csv/.md/.tex``), ``contents.md`` and
    ``scorecard.md/.tsv`` (``scorecard``: the grid of
    :func:`authbench.studies.scorecard.grid_params`; None: no model is named)
    under ``outdir``; return the tables' paths."""
    from authbench.render.catalog import contents_md, plan, write_tables
    from authbench.studies.ragauth.outputs import RAGAUTH
    from authbench.studies.scorecard import write_rag_scorecard

    outdir = Path(outdir)
    rows = list(rows)
    write_accuracy(rows, outdir / "accuracy.tsv")
    written = plan(RAGAUTH, {})  # every item is always written
    paths = write_tables(RAGAUTH, written["written"], rows, outdir)
    (outdir / "contents.md").write_text(contents_md(RAGAUTH, written), encoding="utf-8")
    write_rag_scorecard(outdir, rows, scorecard)
    return paths
