"""The self-preference study's figure (Chen et al., Figure 3): per evaluator a
heatmap of its self preference by the factuality of the (self, other)
passages and the other author, ``normal`` variant, in the shared style of
:mod:`authbench.render.figures`; without generation judgments a "no data"
panel, so the declared file always exists."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from authbench.render.figures import STYLE_RC, new_figure, save_figure  # noqa: E402
from authbench.render.formatting import MISSING  # noqa: E402
from authbench.studies.selfpref.rows import (ALL, COMBOS, HUMAN, NORMAL, GenRecord, evaluator_selves,  # noqa: E402
                                             gen_records, other_authors_of, rate_stats)
from authbench.studies.selfpref.table_common import number_text  # noqa: E402


def _fig3_data(recs: Sequence[GenRecord], ev: str) -> tuple[pd.DataFrame, np.ndarray]:
    mine = [g for g in recs if g.evaluator == ev]
    cols = other_authors_of(mine) + [ALL]
    data = np.full((len(COMBOS), len(cols)), np.nan)
    annot = np.full((len(COMBOS), len(cols)), "", dtype=object)
    for i, (combo, sf, of) in enumerate(COMBOS):
        for j, other in enumerate(cols):
            sub = [g for g in mine if g.combo == combo and (other == ALL or g.other_author == other)]
            s = rate_stats(sub)
            if not s["n_ok"]:
                continue
            data[i, j] = s["self_pref"]
            fac = number_text(s["factual_pref"], 0) if sf != of else MISSING
            annot[i, j] = f"{number_text(s['self_pref'], 0)} / {number_text(s['order_pref'], 0)} / {fac}"
    index = pd.Index([c[0] for c in COMBOS], name="factuality (self, other)")
    columns = pd.Index(["Human" if c == HUMAN else c for c in cols], name="other author")
    return pd.DataFrame(data, index=index, columns=columns), annot


def fig3_heatmaps(gen_rows, path: str | Path) -> Path:
    """Figure 3: one heatmap per evaluator (``normal`` variant); rows the
    factuality combination (self, other) TT / TF / FT / FF, columns the other
    author and ``all``; colour = self preference (%), annotation
    ``self / order / factual`` (factual ``–`` for symmetric rows). Writes a PNG."""
    recs = [g for g in gen_records(gen_rows) if g.variant == NORMAL]
    evaluators = [ev for ev, _ in evaluator_selves(recs)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context(STYLE_RC):
        if not evaluators:
            fig = new_figure((4.0, 2.5))
            ax = fig.subplots()
            ax.text(0.5, 0.5, "no generation judgments", ha="center", va="center")
            ax.set_axis_off()
        else:
            selves = dict(evaluator_selves(recs))
            frames = [_fig3_data(recs, ev) for ev in evaluators]
            widths = [max(2.0, 1.25 * df.shape[1]) for df, _ in frames]
            fig = new_figure((max(sum(widths) + 1.6, 6.0), 3.0))
            axes = fig.subplots(1, len(frames) + 1, width_ratios=widths + [0.12])
            cax = axes[-1]
            for k, (ax, ev, (df, annot)) in enumerate(zip(axes[:-1], evaluators, frames)):
                with warnings.catch_warnings():  # seaborn 0.13's own cmap.set_bad call
                    warnings.simplefilter("ignore", PendingDeprecationWarning)
                    sns.heatmap(df, ax=ax, annot=annot, fmt="", cmap="RdBu_r", vmin=0, vmax=100, center=50,
                                mask=df.isna(), linewidths=0.5, linecolor="white", cbar=k == 0,
                                cbar_ax=cax if k == 0 else None, annot_kws={"fontsize": 7},
                                cbar_kws={"label": "self preference (%)"})
                ax.set_facecolor("#d9d9d9")
                ax.set_title(f"{ev} (self: {selves[ev]})")
                ax.tick_params(axis="y", rotation=0)
                if k:
                    ax.set_ylabel("")
            fig.suptitle("Self / order / factual preference (%) by factuality of (self, other)")
        save_figure(fig, path, formats=("png",))
    return path


