"""AuthorityBench's figures: Figure 3 (label distributions, DomainAuth and
EntityAuth halves) and Figure 6 (PointJudge bias heatmap), in the shared
style of :mod:`authbench.render.figures`.

Every figure is written as PNG and PDF next to it, byte-identical when re-run
on the same input (see :func:`authbench.render.figures.save_figure`).
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from authbench.errors import excerpt
from authbench.render.figures import STYLE_RC, new_figure, save_figure
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.authority.tables import CONTEXT_ORDER, context_label
from matplotlib import colors as mcolors

__all__ = [
    "bias_matrix",
    "label_counts",
    "plot_bias_heatmap",
    "plot_entity_label_distribution",
    "plot_label_distribution",
]

FINE_LEVELS = tuple(range(10))
COARSE_LEVELS = tuple(range(5))


def _require(df: pd.DataFrame, cols: tuple[str, ...], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing}; expected {list(cols)}")
    if df.empty:
        raise ValueError(f"{what}: the input is empty; expected rows with columns {list(cols)}")


def _int_levels(series: pd.Series, allowed: tuple[int, ...], what: str) -> pd.Series:
    vals = pd.to_numeric(series, errors="coerce")
    bad = vals.isna() | ~vals.isin(allowed)
    if bad.any():
        raise ValueError(
            f"{what}: {int(bad.sum())} value(s) outside {allowed[0]}..{allowed[-1]}, "
            f"e.g. {excerpt(series[bad].iloc[0])}"
        )
    return vals.astype(int)


# --------------------------------------------------------------------------
# Figure 3
# --------------------------------------------------------------------------
def label_counts(labels: pd.DataFrame, key: str = "domain") -> tuple[pd.Series, pd.Series]:
    """Number of items (domains, or entities with ``key="entity"``) per fine
    level (0–9) and per coarse level (0–4).

    Every level appears, with 0 when no item has it.
    """
    what = "label_counts"
    _require(labels, (key, "level", "coarse"), what)
    fine = _int_levels(labels["level"], FINE_LEVELS, f"{what}: column 'level'")
    coarse = _int_levels(labels["coarse"], COARSE_LEVELS, f"{what}: column 'coarse'")
    fine_counts = fine.value_counts().reindex(FINE_LEVELS, fill_value=0).astype(int)
    coarse_counts = coarse.value_counts().reindex(COARSE_LEVELS, fill_value=0).astype(int)
    fine_counts.index.name, coarse_counts.index.name = "level", "coarse"
    return fine_counts, coarse_counts


def _bar_panel(ax, counts: pd.Series, title: str, xlabel: str, color: str, ylabel: str = "Number of domains") -> None:
    x = np.asarray(counts.index, dtype=int)
    y = counts.to_numpy(dtype=int)
    bars = ax.bar(x, y, color=color, edgecolor="black", linewidth=0.5)
    ax.bar_label(bars, labels=[str(v) for v in y], padding=2, fontsize=8)
    ax.set_xticks(x)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_ylim(0, max(1, int(y.max())) * 1.15)
    ax.spines[["top", "right"]].set_visible(False)


def plot_label_distribution(labels: pd.DataFrame, out_png: Path) -> list[Path]:
    """Figure 3 (DomainAuth half): bar charts of the fine (0–9) and coarse
    (0–4) authority levels with the count on each bar.

    Writes ``out_png`` and the PDF next to it; returns both paths.
    """
    fine, coarse = label_counts(labels)
    with matplotlib.rc_context(STYLE_RC):
        fig = new_figure((8.0, 3.2))
        ax_f, ax_c = fig.subplots(1, 2, width_ratios=[2, 1])
        _bar_panel(ax_f, fine, "Fine-grained (0–9)", "PageRank level", "#4C72B0")
        _bar_panel(ax_c, coarse, "Coarse-grained (0–4)", "Coarse level", "#DD8452")
        fig.suptitle(f"DomainAuth (N={len(labels)})")
        return save_figure(fig, out_png)


def plot_entity_label_distribution(labels: dict[str, pd.DataFrame], out_png: Path,
                                   score_names: dict[str, str] | None = None) -> list[Path]:
    """Figure 3 (EntityAuth half): per entity domain (in the given order), the
    number of entities per fine level 0–9 after binning (Eq. 1's log binning
    of sitelinks by default), with the corpus size and its score range in
    the panel title.

    ``labels`` maps a display name to that domain's labels (columns
    ``entity``, ``level``, ``coarse``, ``score``); ``score_names`` a display
    name to what its score is (default ``sitelinks``). Writes PNG and PDF.
    """
    if not labels:
        raise ValueError("plot_entity_label_distribution: no datasets given")
    colors = ("#4C72B0", "#55A868", "#C44E52", "#8172B2", "#CCB974", "#64B5CD")
    with matplotlib.rc_context(STYLE_RC):
        fig = new_figure((3.6 * len(labels), 3.2))
        axes = np.atleast_1d(fig.subplots(1, len(labels)))
        for i, (ax, (name, df)) in enumerate(zip(axes, labels.items())):
            fine, _ = label_counts(df, key="entity")
            column = "score" if "score" in df.columns else "sitelinks"  # a label table with sitelinks but no score column
            _require(df, (column,), f"plot_entity_label_distribution({name})")
            links = pd.to_numeric(df[column], errors="coerce")
            what = (score_names or {}).get(name, "sitelinks")
            title = f"{name} (N={len(df)}, {what} {links.min():g}–{links.max():g})"
            how = "log-binned" if what == "sitelinks" else "binned"
            _bar_panel(ax, fine, title, f"Authority level ({how} {what})", colors[i % len(colors)],
                       "Number of entities")
        fig.suptitle("EntityAuth")
        return save_figure(fig, out_png)


# --------------------------------------------------------------------------
# Figure 6
# --------------------------------------------------------------------------
def _row_keys(pred: pd.DataFrame) -> list[tuple[str, str]]:
    models = list(dict.fromkeys(pred["model"].astype(str)))
    ctx_seen = list(dict.fromkeys(pred["context"].astype(str)))
    ctx_order = [c for c in CONTEXT_ORDER if c in ctx_seen] + [c for c in ctx_seen if c not in CONTEXT_ORDER]
    present = set(zip(pred["model"].astype(str), pred["context"].astype(str)))
    return [(m, c) for m in models for c in ctx_order if (m, c) in present]


def bias_matrix(pred: pd.DataFrame, intervals: IntervalSpec | None = None, bound: int = 0) -> pd.DataFrame:
    """The matrix plotted in Figure 6.

    Rows ``"model (w/o)"`` / ``"model (w/)"`` for each model x context present
    (models in order of first appearance, w/o before w/); columns true levels
    0–9; cell = mean(pred − level) over the scored items (NaN predictions are
    excluded); NaN where no scored item has that level. With ``intervals``:
    the lower (``bound`` 0) or upper (1) bound of the mean's bootstrap
    interval over those items instead (NaN with too few items).
    """
    what = "bias_matrix"
    _require(pred, ("model", "context", "level", "pred"), what)
    level = _int_levels(pred["level"], FINE_LEVELS, f"{what}: column 'level'")
    df = pd.DataFrame(
        {
            "model": pred["model"].astype(str).to_numpy(),
            "context": pred["context"].astype(str).to_numpy(),
            "level": level.to_numpy(),
            "err": pd.to_numeric(pred["pred"], errors="coerce").to_numpy(dtype=float) - level.to_numpy(),
        }
    )
    groups = df.dropna(subset=["err"]).groupby(["model", "context", "level"])["err"]
    means = groups.mean() if intervals is None else groups.apply(
        lambda g: mean_interval(g.to_numpy(dtype=float), intervals, ("fig6", *g.name))[bound])
    keys = _row_keys(pred)
    data = np.full((len(keys), len(FINE_LEVELS)), np.nan)
    for i, key in enumerate(keys):
        for j, lv in enumerate(FINE_LEVELS):
            v = means.get((key[0], key[1], lv))
            if v is not None:
                data[i, j] = float(v)
    index = pd.Index([f"{m} ({context_label(c)})" for m, c in keys], name="model (context)")
    columns = pd.Index(list(FINE_LEVELS), name="level")
    return pd.DataFrame(data, index=index, columns=columns)


def plot_bias_heatmap(pred: pd.DataFrame, out_png: Path, intervals: IntervalSpec | None = None) -> list[Path]:
    """Figure 6: heatmap of mean(pred − true) per model x context and true
    level; red = over-estimation, blue = under-estimation, centred at 0,
    values annotated (with ``intervals``: their bootstrap interval over the
    items beneath, where there are enough), empty cells grey.

    Writes ``out_png`` and the PDF next to it; returns both paths.
    """
    mat = bias_matrix(pred)
    arr = mat.to_numpy(dtype=float)
    lo, hi = ((bias_matrix(pred, intervals, k).to_numpy(dtype=float) for k in (0, 1)) if intervals is not None
              else (np.full(arr.shape, np.nan),) * 2)
    finite = arr[np.isfinite(arr)]
    vlim = float(np.abs(finite).max()) if finite.size else 1.0
    vlim = vlim if vlim > 0 else 1.0
    cmap = matplotlib.colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")
    norm = mcolors.TwoSlopeNorm(vmin=-vlim, vcenter=0.0, vmax=vlim)

    nrows = arr.shape[0]
    with matplotlib.rc_context(STYLE_RC):
        fig = new_figure((7.5, 1.2 + 0.42 * nrows))
        ax = fig.subplots()
        im = ax.imshow(np.ma.masked_invalid(arr), cmap=cmap, norm=norm, aspect="auto")
        for i in range(nrows):
            for j in range(arr.shape[1]):
                v = arr[i, j]
                if math.isnan(v):
                    continue
                text = f"{v:.2f}"
                text = "0.00" if text == "-0.00" else text
                if not (math.isnan(lo[i, j]) or math.isnan(hi[i, j])):
                    text += f"\n[{lo[i, j]:.1f}, {hi[i, j]:.1f}]"
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=7 if "\n" not in text else 5,
                    color="white" if abs(v) > 0.6 * vlim else "black",
                )
        ax.set_xticks(range(arr.shape[1]), [str(c) for c in mat.columns])
        ax.set_yticks(range(nrows), list(mat.index))
        ax.set_xlabel("True authority level (PageRank)")
        ax.set_title("PointJudge prediction bias (predicted − true)")
        cbar = fig.colorbar(im, ax=ax, shrink=0.9)
        cbar.set_label("mean bias")
        return save_figure(fig, out_png)
