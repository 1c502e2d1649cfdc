"""AuthorityBench's cost table and cost-vs-ρ figure: the cost of each cell
(from its manifest) beside its quality, i.e. the paper's cost-effectiveness
claim (ListJudge cheapest for its ρ, PairJudge dearest), measured. A cell's
quality is its judge's main derivation's ρ; the figure's label and marker
of a judge are its class's (:mod:`authbench.studies.authority.judges`).

Per cell: prompts (requests of the judge), unique prompts, cache hits, prompt
and completion tokens and engine seconds — the seconds it took to compute the
cell's replies, whenever they were computed (a cached reply keeps the seconds
of the run that made it), so the number is the cell's cost, not this run's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd
from authbench.records import write_frame, write_text
from authbench.studies.authority.judges import JUDGES, main_derivation

COST_COLUMNS = ("benchmark", "model", "judge", "context", "setting", "prompts", "unique_prompts", "cache_hits",
                "prompt_tokens", "completion_tokens", "engine_seconds")


def cost_rows(manifest_paths: Iterable[str | Path]) -> pd.DataFrame:
    rows = []
    for path in manifest_paths:
        m = json.loads(Path(path).read_text())
        *bench, model, judge, context, setting = m["cell"].split("/")
        rows.append({"benchmark": "/".join(bench), "model": model, "judge": judge, "context": context,
                     "setting": setting, "prompts": m["n_calls"], "unique_prompts": m["unique_requests"],
                     "cache_hits": m["cache_hits"], "prompt_tokens": m["prompt_tokens"],
                     "completion_tokens": m["completion_tokens"], "engine_seconds": m["engine_seconds"]})
    return pd.DataFrame(rows, columns=list(COST_COLUMNS))


def with_quality(costs: pd.DataFrame, metrics: pd.DataFrame) -> pd.DataFrame:
    """Costs of the list cells (fine/coarse) joined with their main ρ (%);
    a grid without list cells (``settings: [bias]`` or ``[pairs]``) gives
    an empty table with the same columns."""
    main = metrics[(metrics["metric"] == "rho") & (metrics["difficulty"] == "all")
                   & (metrics["derivation"] == metrics["judge"].map(main_derivation))]
    main = main.rename(columns={"setting": "scale", "value": "rho"})
    lists = costs[costs["setting"].isin(["fine", "coarse"])]
    out = lists.merge(main[["benchmark", "model", "judge", "context", "scale", "rho"]],
                      left_on=["benchmark", "model", "judge", "context", "setting"],
                      right_on=["benchmark", "model", "judge", "context", "scale"], how="left")
    out["rho"] = out["rho"] * 100
    return out.drop(columns="scale")


CELL_COLUMNS = ["benchmark", "model", "judge", "context", "setting"]


def write_cost_table(costs: pd.DataFrame, quality: pd.DataFrame, stem: Path, extra: pd.DataFrame | None = None,
                     md_hidden: tuple[str, ...] = (), caption: str = "") -> list[Path]:
    """CSV and Markdown: every cell's cost; the list cells with their ρ (%).
    ``extra``: more per-cell columns (keyed by :data:`CELL_COLUMNS`, e.g. the
    AuthorityBench judge-validity diagnostics), numbers rounded to two
    decimals; ``md_hidden`` of them are left out of the Markdown (long text,
    kept in the CSV); ``caption`` is appended to the Markdown's caption."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    table = costs.merge(quality[[*CELL_COLUMNS, "rho"]], on=CELL_COLUMNS, how="left")
    if extra is not None:
        table = table.merge(extra, on=CELL_COLUMNS, how="left")
        for col in extra.columns.difference(CELL_COLUMNS):
            if pd.api.types.is_numeric_dtype(table[col]):
                table[col] = table[col].round(2)
    table = table.sort_values(["benchmark", "model", "context", "setting", "judge"], kind="stable")
    table["rho"] = table["rho"].round(2)
    table["engine_seconds"] = table["engine_seconds"].round(2)
    csv_path, md_path = stem.with_suffix(".csv"), stem.with_suffix(".md")
    write_frame(table, csv_path, index=False)
    shown = table.drop(columns=[c for c in md_hidden if c in table.columns])
    head = "| " + " | ".join(shown.columns) + " |\n|" + "|".join(["---"] * len(shown.columns)) + "|\n"
    body = "".join("| " + " | ".join("–" if pd.isna(v) else str(v) for v in row) + " |\n"
                   for row in shown.itertuples(index=False))
    write_text(md_path, "Cost per cell (prompts, tokens, engine seconds, cache hits) and the main Spearman's rho (%) "
               "of list cells." + caption + "\n\n" + head + body)
    return [csv_path, md_path]


def plot_cost_vs_rho(quality: pd.DataFrame, out_png: Path) -> list[Path]:
    """One panel per label scale: engine seconds of the cell (log x) vs ρ (%),
    one marker per judge, one point per model x benchmark x context."""
    import matplotlib
    from authbench.render.figures import STYLE_RC, new_figure, save_figure

    data = quality.dropna(subset=["rho"])
    scales = [s for s in ("fine", "coarse") if (data["setting"] == s).any()] or ["fine"]
    with matplotlib.rc_context(STYLE_RC):
        fig = new_figure((4.2 * len(scales), 3.4))
        axes = np.atleast_1d(fig.subplots(1, len(scales)))
        for ax, scale in zip(axes, scales):
            sub = data[data["setting"] == scale]
            for judge in JUDGES.values():
                pts = sub[sub["judge"] == judge.name]
                if pts.empty:
                    continue
                x = pts["engine_seconds"].clip(lower=1e-3)
                ax.scatter(x, pts["rho"], marker=judge.marker, label=judge.label, s=28)
            ax.set_xscale("log")
            ax.set_xlabel("engine seconds per cell (log)")
            ax.set_ylabel("Spearman's ρ (%)")
            ax.set_title(f"{scale}-grained lists")
            ax.axhline(0, color="grey", linewidth=0.5)
            ax.spines[["top", "right"]].set_visible(False)
        if data.empty:  # a grid without list cells (settings: [bias] or [pairs])
            axes[0].text(0.5, 0.5, "no fine or coarse list cell\nwith a ρ in this grid", ha="center", va="center",
                         transform=axes[0].transAxes, fontsize=8, color="grey")
        else:
            axes[0].legend(fontsize=7, frameon=False)
        fig.suptitle("Cost vs. quality per judge")
        return save_figure(fig, out_png)
