"""RAGAuth's numbers keyed by published key (Table 5's answer accuracy),
once, for the scorecard and the claims: the overall (``topic = all``)
accuracy of each model, strategy and k with its interval, and its
questions' 0/1 correct as the units (:class:`authbench.studies.keyed.Keyed`).
A model is keyed by its ``paper_name`` where it has one, else by its own
name. Also why a published number has no counterpart (:func:`rag_reason`)."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import pandas as pd
from authbench.stats import finite_or_nan
from authbench.studies.keyed import Keyed, keyed, units_of

__all__ = ["rag_keyed", "rag_reason"]


def rag_keyed(accuracy: Iterable[Mapping], units: pd.DataFrame, names: Mapping[str, str],
              run_models: Sequence[str]) -> list[Keyed]:
    """Table 5 from RAGAuth's accuracy rows (``model, strategy, k, topic,
    accuracy, lo, hi``, percent; the ``all`` topic) and the answer cells'
    units (``units.parquet``: ``model, strategy, k, qid, correct``)."""
    per_cell = {}
    for (model, strategy, k), g in units.groupby(["model", "strategy", "k"], sort=False):
        per_cell[(str(model), str(strategy), str(k))] = units_of(
            g["qid"].astype(str).tolist(), pd.to_numeric(g["correct"], errors="coerce").tolist(), 100.0)
    out = []
    for r in accuracy:
        model = str(r["model"])
        if str(r["topic"]) != "all" or (model not in names and model not in run_models):
            continue
        out.append(keyed(5, "answer_accuracy", ours=model, model=names.get(model, model),
                         parts={"judge": str(r["strategy"]), "k": r["k"]}, named=model in names, unit_kind="questions",
                         units=per_cell.get((model, str(r["strategy"]), str(r["k"]))),
                         number=finite_or_nan(r["accuracy"]), lo=finite_or_nan(r.get("lo")),
                         hi=finite_or_nan(r.get("hi"))))
    return out


def rag_reason(row: Mapping, coverage) -> str:
    """Why a published Table 5 number (``row``: its parts) has no counterpart (``coverage``:
    :class:`authbench.studies.scorecard.Coverage`)."""
    from authbench.studies.scorecard import AVERAGE, NO_VALUE, NOT_CONFIGURED

    if row.get("model") == "Average":
        return AVERAGE
    if row.get("model") not in coverage.paper_names:
        return NOT_CONFIGURED
    if row.get("judge") not in coverage.covered.get("strategies", ()):
        return f"strategy not in the grid ({row.get('judge')})"
    k = row["k"]
    if k != "all" and k not in coverage.covered.get("k", ()):
        return f"k not in the grid (k={k})"
    return NO_VALUE
