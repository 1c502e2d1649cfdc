"""Secondary labels: how a judge's per-item scores relate to a second label
of the researcher's (e.g. a domain's reliability), beside the primary label
(the authority level) — with intervals that say when a number means little.

Inputs are the cells' ``predictions.tsv`` (:mod:`authbench.studies.authority.predictions`),
which carry the secondary label columns. Per model x judge x context
(docs/decisions/labels-from-any-score.md, "Secondary labels"):

* an item's score is the mean of its values over every cell of that model,
  judge and context (weighted by how many values each cell had); items the
  judge gave no value are left out and counted (``unscored``);
* primary: Spearman's ρ between the scores and the fine level, over every
  scored item;
* each secondary label: ρ between the scores and the label's codes
  (categories in config order 0, 1, ...; numbers as they are) over the
  scored items that carry the label; a binary label (two values) also gets
  ROC AUC = P(score of a random positive > score of a random negative) +
  ½ P(tie), the Mann-Whitney U over n₁·n₀, positive = the second value;
* a 95% percentile-bootstrap interval for each: config ``intervals.resamples`` resamples of
  the items (with replacement), drawn from a generator seeded by (seed,
  model, judge, context, label); ρ and AUC of one label share the draws.
  A resample where the number is undefined (constant scores or labels for
  ρ, one class only for AUC) is left out of the interval; ``boot_defined``
  counts the ones used. A point value that is undefined is NaN (–).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
from authbench.records import write_frame
from authbench.render.formatting import COUNT, PCT, TEXT, round2
from authbench.render.table_writers import write_table
from authbench.render.tables import Column, TableSpec, build_table
from authbench.stats import percentile_bootstrap
from authbench.studies.authority.labels import SecondarySpec
from scipy.stats import rankdata

LONG_COLUMNS = ("model", "context", "judge", "kind", "label", "label_kind", "metric", "value", "lo", "hi",
                "n", "n_pos", "n_neg", "unscored", "boot", "boot_defined")
PRIMARY = "level"


# --------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------
def _pearson_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair; NaN where a row is constant."""
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    num = (a * b).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _rho_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman ρ per row: Pearson r of the midranks."""
    return _pearson_rows(rankdata(x, axis=1), rankdata(y, axis=1))


def _auc_rows(scores: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """ROC AUC per row from midranks: (R₁ - n₁(n₁+1)/2) / (n₁ n₀); NaN with one class."""
    ranks = rankdata(scores, axis=1)
    n1 = positive.sum(axis=1)
    n0 = positive.shape[1] - n1
    u = (ranks * positive).sum(axis=1) - n1 * (n1 + 1) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((n1 > 0) & (n0 > 0), u / np.where((n1 > 0) & (n0 > 0), n1 * n0, 1), np.nan)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's ρ (midranks for ties); NaN when either side is constant or n < 2."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"length mismatch: {x.shape} vs {y.shape}")
    if x.size < 2:
        return math.nan
    return float(_rho_rows(x[None, :], y[None, :])[0])


def roc_auc(scores: Sequence[float], positive: Sequence[bool]) -> float:
    """ROC AUC of ``scores`` for the ``positive`` class (ties count ½); NaN with one class only."""
    s = np.asarray(scores, dtype=float)
    p = np.asarray(positive, dtype=bool)
    if s.shape != p.shape or s.ndim != 1:
        raise ValueError(f"length mismatch: {s.shape} vs {p.shape}")
    if s.size == 0:
        return math.nan
    return float(_auc_rows(s[None, :], p[None, :])[0])


def bootstrap(scores: Sequence[float], labels: Sequence[float], n_boot: int, seed_parts: tuple,
              binary: bool, level: float = 0.95) -> dict:
    """Point values and percentile intervals of ρ (and, ``binary``, AUC with
    ``labels == 1`` positive) over ``n_boot`` item resamples (module docstring;
    :func:`authbench.stats.percentile_bootstrap`). Returns ``{"rho": (value,
    low, high, defined), "auc": ...}``."""
    x = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=float)
    statistics = {"rho": _rho_rows}
    values = {"rho": spearman(x, y) if x.size else math.nan}
    if binary:
        statistics["auc"] = lambda s, lab: _auc_rows(s, lab == 1)
        values["auc"] = roc_auc(x, y == 1)
    intervals = percentile_bootstrap((x, y), statistics, n_boot, seed_parts, level)
    return {k: (values[k], *intervals[k]) for k in statistics}


# --------------------------------------------------------------------------
# item scores and the long table
# --------------------------------------------------------------------------
def item_scores(predictions: pd.DataFrame, key: str = "domain") -> pd.DataFrame:
    """Per model, judge, context and item: the mean of its values over the
    cells (``pred`` weighted by ``n_scores``), its number of values, its level
    and secondary labels (every column after :data:`PREDICTION_COLUMNS`)."""
    from authbench.studies.authority.predictions import PREDICTION_COLUMNS

    missing = [c for c in PREDICTION_COLUMNS if c not in predictions.columns and c != "category"]
    if missing:
        raise ValueError(f"predictions: missing column(s) {missing}; expected {list(PREDICTION_COLUMNS)}")
    extra = [c for c in predictions.columns if c not in PREDICTION_COLUMNS]
    df = predictions.copy()
    df["pred"] = pd.to_numeric(df["pred"], errors="coerce")
    df["n_scores"] = pd.to_numeric(df["n_scores"], errors="coerce").fillna(0)
    df["weighted"] = df["pred"].fillna(0) * df["n_scores"]
    group = ["model", "judge", "context", key]
    agg = df.groupby(group, sort=False).agg(weighted=("weighted", "sum"), n_scores=("n_scores", "sum"),
                                            level=("level", "first"), kind=("kind", "first"),
                                            **{c: (c, "first") for c in extra}).reset_index()
    agg["pred"] = np.where(agg["n_scores"] > 0, agg["weighted"] / agg["n_scores"].where(agg["n_scores"] > 0, 1),
                           np.nan)
    return agg[[*group, "kind", "level", "pred", "n_scores", *extra]]


def secondary_rows(scores: pd.DataFrame, specs: Sequence[SecondarySpec], n_boot: int, seed: int) -> list[dict]:
    """The long rows (:data:`LONG_COLUMNS`): per model, judge, context the
    primary level's ρ and each secondary label's ρ (and AUC when binary)."""
    rows = []
    for (model, judge, context), g in scores.groupby(["model", "judge", "context"], sort=False):
        kind = str(g["kind"].iloc[0])
        scored = g[g["pred"].notna()]
        ident = {"model": model, "context": context, "judge": judge, "kind": kind}
        labels = [(PRIMARY, "level", None)] + [(s.name, s.kind, s) for s in specs]
        for name, label_kind, spec in labels:
            if spec is None:
                have = g
                codes = pd.to_numeric(scored["level"], errors="coerce")
            else:
                raw = g[name].fillna("").astype(str).str.strip()
                have = g[raw != ""]
                codes = scored[name].fillna("").astype(str).str.strip().map(spec.code)
            use = codes.notna()
            x, y = scored["pred"][use].to_numpy(float), codes[use].to_numpy(float)
            binary = label_kind == "binary"
            stats = bootstrap(x, y, n_boot, (seed, "secondary", model, judge, context, name), binary)
            n_pos = int((y == 1).sum()) if binary else None
            for metric, (value, low, high, defined) in stats.items():
                rows.append({**ident, "label": name, "label_kind": label_kind, "metric": metric, "value": value,
                             "lo": low, "hi": high, "n": int(use.sum()), "n_pos": n_pos,
                             "n_neg": int(use.sum()) - n_pos if binary else None,
                             "unscored": int(len(have) - use.sum()), "boot": n_boot, "boot_defined": defined})
    return rows


# --------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------
def table_secondary(long: pd.DataFrame, specs: Sequence[SecondarySpec], n_boot: int) -> TableSpec:
    """One row per model x judge x context; per label (the primary level
    first) ρ with its interval (and AUC with its interval for a binary
    label) in %, and n. No highlighting: the intervals are the point."""
    keys = list(dict.fromkeys(zip(long["model"].astype(str), long["judge"].astype(str), long["context"].astype(str))))
    index = {(str(r["model"]), str(r["judge"]), str(r["context"]), str(r["label"]), str(r["metric"])): r
             for r in long.to_dict("records")}
    kinds = {(str(r["model"]), str(r["judge"]), str(r["context"])): str(r["kind"]) for r in long.to_dict("records")}

    def get(key, label, metric, field):
        r = index.get((*key, label, metric))
        if r is None:
            return math.nan
        v = r[field]
        if field in ("n", "unscored"):
            return float(v)
        return round2(v, 100)

    def interval(key, label, metric):
        low, high = get(key, label, metric, "lo"), get(key, label, metric, "hi")
        return (math.nan, "–" if math.isnan(low) else f"[{low:.2f}, {high:.2f}]")

    labels = [(PRIMARY, "primary: level", False)] + [(s.name, s.name, s.kind == "binary") for s in specs]
    cols = [Column(("", "scores"), TEXT, lambda k: (math.nan, kinds.get(k, "")))]
    for name, head, binary in labels:
        for metric, sym in (("rho", "ρ"), ("auc", "AUC")) if binary else (("rho", "ρ"),):
            cols.append(Column((head, sym), PCT, lambda k, n=name, m=metric: get(k, n, m, "value")))
            cols.append(Column((head, f"{sym} 95% CI"), TEXT, lambda k, n=name, m=metric: interval(k, n, m)))
        cols.append(Column((head, "n"), COUNT, lambda k, n=name: get(k, n, "rho", "n")))
    caption = ("Judge scores against the primary label (fine level) and each secondary label, per model, judge and "
               "context: Spearman's ρ (%) and, for a binary label, ROC AUC (%; 50 = chance), each with a 95% "
               f"percentile-bootstrap interval over items ({n_boot} resamples); n = scored items with the label. "
               "An item's score is its mean over every cell of the judge (scores: PointJudge, ListScore, "
               "PairScore's AverageScore; rank: ListRank's and PairRank's list positions as the fraction of the "
               "list ranked below). An interval that spans 0 (ρ) or 50 (AUC) means the number says little.")
    return build_table(keys, [(m, j, c) for m, j, c in keys], ["Model", "Judge", "Ctx"], cols, [True] * len(keys),
                       caption=caption, tex_labels={"ρ": r"$\rho$", "ρ 95% CI": r"$\rho$ 95\% CI"})


def write_secondary_report(out: str | Path, prediction_files: Sequence[str], specs: Sequence[SecondarySpec],
                           n_boot: int, seed: int, parse: str) -> None:
    """``item_scores.tsv``, ``secondary.tsv`` (long, unrounded) and
    ``tables/secondary_labels.{csv,md,tex}`` under ``out``."""
    out = Path(out)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    text = {s.name: str for s in specs}  # "0" / "1" categories stay text
    preds = pd.concat([pd.read_csv(f, sep="\t", keep_default_na=False, na_values=[""], dtype=text)
                       for f in prediction_files], ignore_index=True)
    scores = item_scores(preds)
    write_frame(scores, out / "item_scores.tsv", sep="\t", index=False)
    long = pd.DataFrame(secondary_rows(scores, specs, n_boot, seed), columns=list(LONG_COLUMNS))
    long = long.astype({"n_pos": "Int64", "n_neg": "Int64"})  # empty, not NaN, for non-binary labels
    write_frame(long, out / "secondary.tsv", sep="\t", index=False)
    spec = table_secondary(long, specs, n_boot)
    write_table(spec, out / "tables" / "secondary_labels",
                spec.caption + f" Parsing: {parse} (a failed reply gives its items no score; they are counted "
                "in secondary.tsv, column unscored).")
