"""DomainAuth's and EntityAuth's numbers keyed by published key
(:class:`authbench.studies.keyed.Keyed`), once, for the scorecard and the
claims: Tables 1-4, 6 and 9-12 from the metric rows (the number and its
interval as the tables print them, ×100) with each row's units (a list's ρ
or τ, a pair's 0/1: :func:`authbench.studies.authority.comparisons.read_units`),
and Table 8 from the PointJudge bias predictions (the domains as units). A
model is keyed by its ``paper_name`` where it has one, else by its own
name (``named`` False). Also why a published number has no counterpart
(:func:`authority_reason`)."""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd
from authbench.stats import finite_or_nan
from authbench.studies.authority.bradley_terry import DERIVATION as BT_DERIVATION
from authbench.studies.authority.judges import DERIVATION_COLUMNS, POINT, main_derivation
from authbench.studies.keyed import Keyed, keyed, units_of

__all__ = ["AUTHORITY_TABLES", "DERIVATIONS", "DOMAINAUTH_TABLES", "ENTITYAUTH_TABLES", "PER_KTOKEN", "authority_keyed",
           "authority_keys", "authority_reason", "categories_keyed", "clean_category"]

# Tables 9-12: the paper's derivation column -> (judge, derivation) of our metric rows, from the judges
# (the Bradley–Terry columns are ours, not the paper's: they stand nowhere in its tables, claims or scorecard)
DERIVATIONS = {label: (judge, derivation) for label, judge, derivation in DERIVATION_COLUMNS
               if derivation != BT_DERIVATION}
# (benchmark kind, setting) -> (main table, derivations table)
AUTHORITY_TABLES = {("domainauth", "fine"): (1, 9), ("domainauth", "coarse"): (2, 10),
                    ("entityauth", "fine"): (4, 11), ("entityauth", "coarse"): (6, 12)}
DOMAINAUTH_TABLES = (1, 2, 3, 8, 9, 10)
ENTITYAUTH_TABLES = (4, 6, 11, 12)
SETTING_OF = {1: "fine", 9: "fine", 4: "fine", 11: "fine", 2: "coarse", 10: "coarse", 6: "coarse", 12: "coarse",
              3: "pairs", 8: "bias"}


def authority_keys(benchmark: str, setting: str, difficulty: str, metric: str, judge: str, derivation: str
                   ) -> list[tuple[int, str, dict, str]]:
    """Where a metric row (or its units) of ours stands in the paper: ``(table,
    judge column, setting parts, metric)`` for each of Tables 1-4, 6, 9-12 it
    fills (none: a row the paper does not print)."""
    kind, _, domain = benchmark.partition("/")
    out = []
    if setting == "pairs" and kind == "domainauth" and metric == "acc" and derivation == "direct" \
            and difficulty in ("easy", "hard"):
        out.append((3, judge, {"difficulty": difficulty}, "pair_accuracy"))
    tables = AUTHORITY_TABLES.get((kind, setting))
    if tables is None or difficulty != "all" or metric not in ("rho", "tau"):
        return out
    where = {"domain": domain} if domain else {}
    if derivation == main_derivation(judge):
        out.append((tables[0], judge, where, metric))
    for label, (j, d) in DERIVATIONS.items():
        if (j, d) == (judge, derivation) and metric == "rho":
            out.append((tables[1], label, where, metric))
    return out


def _model_label(model: str, names: Mapping[str, str], run_models: Sequence[str]) -> tuple[str, bool] | None:
    """How a model is keyed: its paper name (named), else its own name when it is one of the run's models."""
    if model in names:
        return names[model], True
    return (model, False) if model in run_models else None


PER_KTOKEN = "per_ktoken"  # the unit column of a list's rho per thousand tokens its judge spent on one list


def authority_keyed(metrics: pd.DataFrame, unit_cells: Mapping, names: Mapping[str, str],
                    run_models: Sequence[str], scopes: Mapping[int, str] | None = None,
                    flags: Mapping[tuple, Sequence[str]] | None = None,
                    tokens: Mapping[tuple, float] | None = None) -> list[Keyed]:
    """Tables 1-4, 6, 9-12 from the long metrics table of the shown parse mode
    (columns of ``authbench.studies.authority.rows.METRIC_COLUMNS``, with
    ``lo``/``hi``): the number ×100 as printed, each where
    :func:`authority_keys` puts it, with the row's units from ``unit_cells``
    (``read_units``: group -> cell -> (unit codes, values)). ``names``: our
    model -> its paper name; ``run_models``: every model of the run (the
    unnamed are keyed by their own name); ``scopes``: table -> how its
    numbers were made where it differs from the paper; ``flags``: the
    judge-validity flags per (benchmark, model, context, setting, judge);
    ``tokens``: the prompt and completion tokens of each such cell (the cost
    table), which give a list's ρ its :data:`PER_KTOKEN` column: ρ (%) over
    the thousands of tokens the judge spent on one list (the cell's tokens
    over its lists)."""
    scopes, flags, tokens = scopes or {}, flags or {}, tokens or {}
    out = []
    for rec in metrics.to_dict("records"):
        model = str(rec["model"])
        label = _model_label(model, names, run_models)
        if label is None:
            continue
        group = (str(rec["benchmark"]), str(rec["setting"]), str(rec["difficulty"]), str(rec["metric"]))
        cell = (model, str(rec["context"]), str(rec["judge"]), str(rec["derivation"]))
        found = unit_cells.get(group, {}).get(cell)
        units = units_of([str(u) for u in found[0]], found[1], 100.0) if found is not None else None
        flagged = tuple(flags.get((group[0], model, cell[1], group[1], cell[2]), ()))
        spent = tokens.get((group[0], model, cell[2], cell[1], group[1]))
        columns = {}
        if units is not None and spent and group[3] == "rho" and group[1] in ("fine", "coarse"):
            per_list = spent / len(units.units) / 1000.0
            columns = {PER_KTOKEN: units_of(units.units, [v / per_list for v in units.values], 100.0)}
        for table, judge, where, metric in authority_keys(*group, cell[2], cell[3]):
            out.append(keyed(table, metric, ours=model, model=label[0],
                             parts={"judge": judge, "context": cell[1], **where}, named=label[1], units=units,
                             columns=columns,
                             unit_kind="pairs" if table == 3 else "lists",
                             number=finite_or_nan(rec["value"]) * 100, lo=finite_or_nan(rec.get("lo")) * 100,
                             hi=finite_or_nan(rec.get("hi")) * 100, scope=scopes.get(table, ""), flags=flagged))
    return out


def clean_category(c) -> str | None:
    """A domain's category as Table 8 keys it (``.gov`` -> ``gov``; None: none)."""
    return str(c).strip().lower().lstrip(".") if isinstance(c, str) and c.strip() else None


def categories_keyed(predictions: pd.DataFrame | None, names: Mapping[str, str], run_models: Sequence[str],
                     subset: str = "") -> list[Keyed]:
    """Table 8 from the PointJudge bias predictions (``model, context,
    domain, level, pred, category``): per model, context and category the
    mean prediction and bias (prediction − true level) over the scored
    domains, the domains as units (``model`` rows); and the caption's true
    mean PageRank and number of domains (``data`` rows, over the unique
    domains; ``subset``: the scope when the bias sample is smaller than the
    paper's)."""
    if predictions is None or predictions.empty:
        return []
    df = predictions.assign(level=pd.to_numeric(predictions["level"], errors="coerce"),
                            pred=pd.to_numeric(predictions["pred"], errors="coerce"),
                            category=predictions["category"].map(clean_category))
    df = df[df["category"].notna()]
    out = []
    for (model, context, cat), g in df.groupby(["model", "context", "category"], sort=False):
        scored = g[g["pred"].notna()].drop_duplicates("domain")
        label = _model_label(str(model), names, run_models)
        if label is None or not len(scored):
            continue
        for metric, values in (("mean_pred_score", scored["pred"]), ("bias", scored["pred"] - scored["level"])):
            out.append(keyed(8, metric, ours=str(model), model=label[0],
                             parts={"judge": POINT.name, "context": str(context), "category": cat},
                             named=label[1], unit_kind="items",
                             units=units_of(scored["domain"].astype(str).tolist(), values.tolist())))
    for cat, g in df.drop_duplicates("domain").groupby("category", sort=False):
        for metric, value in (("true_mean_pagerank", g["level"].mean()), ("n_domains", len(g))):
            out.append(keyed(8, metric, ours="", parts={"category": cat}, kind="data", number=float(value),
                             scope=subset))
    return out


def authority_reason(row: Mapping, coverage) -> str:
    """Why a published AuthorityBench number (Tables 1-4, 6, 8-12; ``row``:
    its parts) has no counterpart (``coverage``:
    :class:`authbench.studies.scorecard.Coverage`)."""
    from authbench.studies.scorecard import AVERAGE, NO_VALUE, NOT_CONFIGURED

    model, judge, context = (row.get(p, "") for p in ("model", "judge", "context"))
    if model == "Average":
        return AVERAGE
    if model and model not in coverage.paper_names:
        return NOT_CONFIGURED
    table = int(row["table"])
    judges = DERIVATIONS.get(judge, (judge,))[:1] if judge else ()
    if judges and judges[0] not in coverage.judges:
        return f"judge not in the grid ({judges[0]})"
    if context and context not in coverage.contexts:
        return f"context not in the grid ({context})"
    if table in DOMAINAUTH_TABLES and SETTING_OF[table] not in coverage.settings:
        return f"setting not in the grid ({SETTING_OF[table]})"
    if "domain" in row and row["domain"] not in coverage.covered.get("entity_datasets", ()):
        return f"dataset not in the grid (EntityAuth {row['domain']})"
    if table == 8:
        return f"no {row['category']} domain scored in this run's bias sample"
    return NO_VALUE
