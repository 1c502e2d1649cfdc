"""The position-consistency table (config ``position_consistency``; not in
the paper): per model × context × judge × label scale, the paper's metric of
the seeded order beside the two-order rows
(:func:`authbench.studies.authority.consistency.both_orders_rows`), with
their intervals, and the judge-validity flag on Cohen's κ between the orders
(:class:`authbench.studies.authority.diagnostics.ValidityRule` ``order_kappa``)."""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import pandas as pd
from authbench.render.formatting import COUNT, NUM, PCT, TEXT, round2
from authbench.render.tables import Column, TableSpec, build_table, is_baseline
from authbench.stats import finite_or_nan
from authbench.studies.authority.consistency import DERIVATION, KAPPA
from authbench.studies.authority.diagnostics import DAGGER, KAPPA_REASON
from authbench.studies.authority.judges import JUDGES, judge_of
from authbench.studies.authority.tables import TEX_LABELS, context_label

__all__ = ["plot_consistency", "table_consistency"]


def _split(metrics: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    both = metrics["derivation"].astype(str) == DERIVATION
    return metrics[both], metrics[~both]


def table_consistency(metrics: pd.DataFrame, benchmark: str, flags: Mapping[tuple, list[str]]) -> TableSpec:
    """The table of one dataset from its metric rows of one parse mode (the
    two-order rows, the judge-validity rows and the cells' own): one row per
    cell with two-order rows; ``flags`` :func:`~authbench.studies.authority.diagnostics.flagged_cells`
    (the ``flag`` column marks the cells flagged for κ)."""
    sub = metrics[(metrics["benchmark"].astype(str) == benchmark) & ~metrics["model"].astype(str).map(is_baseline)]
    both, own = _split(sub)
    values: dict[tuple, tuple[float, float, float, float]] = {}
    for rec in both.to_dict("records"):
        key = tuple(str(rec[k]) for k in ("model", "context", "judge", "setting", "metric"))
        values[key] = (finite_or_nan(rec["value"]), finite_or_nan(rec.get("lo", math.nan)),
                       finite_or_nan(rec.get("hi", math.nan)), finite_or_nan(rec["n"]))
    kappa = {tuple(str(r[k]) for k in ("model", "context", "judge", "setting")): finite_or_nan(r["value"])
             for r in own[(own["derivation"].astype(str) == "validity")
                          & (own["metric"].astype(str) == KAPPA)].to_dict("records")}
    paper: dict[tuple, float] = {}
    for (model, context, judge, setting), group in own.groupby(["model", "context", "judge", "setting"], sort=False):
        key = (str(model), str(context), str(judge), str(setting))
        if setting == "pairs":
            acc = group[(group["derivation"].astype(str) == "direct") & (group["metric"].astype(str) == "acc")]
            n = acc["n"].astype(float)
            paper[key] = float((acc["value"].astype(float) * n).sum() / n.sum()) if n.sum() else math.nan
        else:
            main = group[(group["derivation"].astype(str) == judge_of(str(judge)).derivation)
                         & (group["metric"].astype(str) == "rho")]
            paper[key] = finite_or_nan(main["value"].iloc[0]) if len(main) else math.nan
    order = {name: k for k, name in enumerate(JUDGES)}
    settings = {name: k for k, name in enumerate(("fine", "coarse", "pairs"))}
    cells = sorted({k[:4] for k in values},
                   key=lambda c: (c[0], c[1], order.get(c[2], 99), settings.get(c[3], 9), c[3]))

    def pct(metric: str, interval: bool = True) -> Column:
        def get(r):
            v = values.get((*r, metric))
            return math.nan if v is None else round2(v[0], 100)

        def bounds(r):
            v = values.get((*r, metric))
            return (math.nan, math.nan) if v is None else (round2(v[1], 100), round2(v[2], 100))

        return Column(("", LABELS[metric]), PCT, get, interval=bounds if interval else None)

    def raw(metric: str, kind: str = NUM) -> Column:
        def get(r):
            v = values.get((*r, metric))
            return math.nan if v is None else (v[0] if kind == COUNT else round2(v[0]))

        return Column(("", LABELS[metric]), kind, get)

    def flag(r):  # flags are keyed (benchmark, model, context, setting, judge)
        why = [w for w in flags.get((benchmark, r[0], r[1], r[3], r[2]), []) if w.startswith(KAPPA_REASON)]
        return (math.nan, DAGGER if why else "")

    columns = [Column(("", "paper"), PCT, lambda r: round2(paper.get(tuple(r), math.nan), 100)),
               pct("consistency"), pct("conflict"), pct("partial", False), pct("first_share", False),
               raw("first_p"), pct("both_acc"), pct("balanced_acc"), pct("rho"), pct("acc_consistent", False),
               pct("list_tau"), pct("list_alike", False), raw("lists_dropped", COUNT),
               Column(("", "kappa"), NUM, lambda r: round2(kappa.get(tuple(r), math.nan))),
               pct("chance_consistency", False), Column(("", "flag"), TEXT, flag)]
    present = [c for c in columns if c.label[1] in ("paper", "kappa", "flag")
               or any((*r, METRIC_OF[c.label[1]]) in values for r in cells)]
    labels = [(m, context_label(c), JUDGES[j].label if j in JUDGES else j, s) for m, c, j, s in cells]
    return build_table(cells, labels, ["Model", "Ctx", "Judge", "Setting"], present, [False] * len(cells),
                       tex_labels=TEX_LABELS)


LABELS = {"consistency": "consistent", "conflict": "conflict", "partial": "partial", "first_share": "first",
          "first_p": "first p", "both_acc": "both-acc", "balanced_acc": "balanced acc", "rho": "balanced rho",
          "acc_consistent": "acc on consistent", "list_tau": "tau(orders)", "list_alike": "alike",
          "lists_dropped": "dropped", "chance_consistency": "chance"}
METRIC_OF = {label: metric for metric, label in LABELS.items()}


def plot_consistency(metrics: pd.DataFrame, out_png) -> list:
    """The position-consistency figure: per pair and list cell (one panel per
    dataset), its consistency (%) with its 95% interval and, as a cross, the
    consistency a judge that picks the first-shown position as often would
    reach by chance, 2a(1 − a). Writes ``out_png`` and the PDF beside it."""
    import matplotlib
    from authbench.render.figures import STYLE_RC, new_figure, save_figure

    both = metrics[(metrics["derivation"].astype(str) == DERIVATION) & ~metrics["model"].astype(str).map(is_baseline)]
    benchmarks = list(dict.fromkeys(both["benchmark"].astype(str))) or ["-"]
    order = {name: k for k, name in enumerate(JUDGES)}
    with matplotlib.rc_context(STYLE_RC):
        height = max(2.5, 0.28 * max((both["metric"] == "consistency").sum(), 1) + 1.2)
        fig = new_figure((7.0, height))
        axes = fig.subplots(1, len(benchmarks), squeeze=False, sharex=True)[0]
        for ax, bench in zip(axes, benchmarks):
            sub = both[both["benchmark"].astype(str) == bench]
            cons = sub[sub["metric"].astype(str) == "consistency"].copy()
            cons["_o"] = [(m, order.get(j, 99), s) for m, j, s in zip(cons["model"], cons["judge"], cons["setting"])]
            cons = cons.sort_values("_o", key=lambda col: col.map(str))
            chance = {(r.model, r.context, r.judge, r.setting): r.value
                      for r in sub[sub["metric"].astype(str) == "chance_consistency"].itertuples()}
            y = np.arange(len(cons))
            values = cons["value"].astype(float).to_numpy() * 100
            lo = cons["lo"].astype(float).to_numpy() * 100 if "lo" in cons else np.full(len(cons), np.nan)
            hi = cons["hi"].astype(float).to_numpy() * 100 if "hi" in cons else np.full(len(cons), np.nan)
            err = np.vstack([np.where(np.isnan(lo), 0, values - lo), np.where(np.isnan(hi), 0, hi - values)])
            ax.errorbar(values, y, xerr=err, fmt="o", color="tab:blue", capsize=2, label="consistency")
            ax.plot([100 * float(chance.get((r.model, r.context, r.judge, r.setting), np.nan))
                     for r in cons.itertuples()], y, "x", color="tab:red", label="chance 2a(1-a)")
            ax.set_yticks(y, [f"{r.model} {context_label(r.context)} {JUDGES[r.judge].label if r.judge in JUDGES else r.judge}"
                              f" {r.setting}" for r in cons.itertuples()], fontsize=6)
            ax.set_xlim(-2, 102)
            ax.set_xlabel("consistent in both orders (%)")
            ax.set_title(bench, fontsize=8)
        axes[0].legend(fontsize=6, loc="lower right")
        return save_figure(fig, out_png)
