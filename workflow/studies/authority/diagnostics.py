"""Judge-validity diagnostics: does a cell's judge read the items, or does it
answer by presentation position, copy the prompt's example reply or barely
vary its predictions?

A judge that gives every list the same score vector by position, or answers
"A" to every comparison, still gets a ρ or an accuracy: how well the seeded
presentation order happens to match the levels. These diagnostics say when a
cell's number means nothing (docs/decisions/judge-validity.md).

Per cell, label scale and parse mode (the values the metrics use:
:func:`authbench.studies.authority.rows.usable_value`), written as metric
rows with derivation :data:`DERIVATION` (``n``: the replies behind the value):

``position_constant`` (list judges)
    share of the cell's lists whose reply, read by position (ListScore: the
    score of position 0, 1, ...; ListRank: the ranking of positions), equals
    the most common such vector. Only a vector that at least two lists give
    and that is not constant within its list counts (an all-equal vector is a
    constant list, already counted in ``n_constant``); otherwise 0.
    ``n`` = the cell's lists (a list without a usable reply never matches).
``position_rho`` (list and pair judges)
    Spearman's ρ between presentation position (list position 0..N-1; pair:
    A = 0, B = 1) and the predicted value of every item that has one, pooled
    over the cell (ListRank: N-1 for the first ranked ... 0 for the last;
    ListScore, PairScore: the score; PairRank: 1 for the chosen item, 0 for
    the other). Negative: earlier positions are judged more authoritative.
    Presentation order is shuffled independently of the levels, so a judge
    that reads the items has a ρ near 0. NaN when the positions or the
    values are constant. ``n`` = replies with a usable value.
``example_copy`` (templates that declare an ``example``)
    share of the cell's replies whose value agrees with the example's, both
    parsed by the judge's own parser: a score map (``{"A": 7, "B": 4}``, a
    ListScore example ``{"0": 7, "1": 4, ..., "9": 8}``) agrees when every id
    the example scores has the example's score; anything else (a ranking: the
    example ``[4] > [0]`` completed by the parser's repair rule) when it is
    equal. ``n`` = the cell's replies (a reply without a usable value never
    agrees).
``a_share`` (pair judges)
    share of the decisive replies that prefer the item shown as A (PairRank:
    "A"; PairScore: score A > score B; equal scores are not decisive).
    ``n`` = decisive replies.
``a_expected`` (pair judges)
    share of the cell's comparisons whose A item is truly higher on the label
    scale (comparisons of equal labels left out): what a judge that reads the
    items answers. The A/B assignment is a seeded coin flip (lists) or the
    sampled order (pairs), so this is near 0.5. ``n`` = those comparisons.
``order_effect`` (pair judges, lists)
    the order effect ``h`` of the Bradley–Terry fit of the cell's lists
    (:mod:`authbench.studies.authority.bradley_terry`): in logits, the pull
    of the position shown as A beyond what the items' strengths explain
    (0: none; an always-"A" judge: large and positive). Descriptive: no flag
    rule reads it. ``n`` = the comparisons in the fit (ties half-wins,
    unparsed replies dropped).
``near_constant`` (score judges: PointJudge, ListJudge-PointScore, PairJudge-PointScore)
    share of the cell's lists in which at least ``near_constant`` (config
    ``judge_validity``, default 0.9) of the items get one predicted score:
    the scores the cell's ρ ranks (PointJudge, ListScore: the judge's scores;
    PairScore: AverageScore, the paper's main derivation). Unscored items
    share no score (a failed reply is the parse-failure rate's business).
    ``pairs`` setting: the share of pairs whose two items get the same score
    (a tie; PointJudge: the two items' scores, PairScore: the reply's).
    Rank judges (ListRank, PairRank's BubbleSort ranking and choices) order
    every item, so they have no row. ``n`` = the cell's lists (pairs).

The flag rule (:class:`ValidityRule`, config ``judge_validity``) is applied
when the report is written (:func:`flagged_cells`), so changing a threshold
reruns only the reports (``near_constant``, the share of a list's items, is
read by the evaluate step: it defines the row). A flagged cell's values carry
``†`` in every results table and in the cost table, and the table's caption
names the cell and why.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, fields
from typing import Any, Mapping, Sequence

import pandas as pd
from authbench.errors import ConfigError, TemplateError
from authbench.llm.parse import parse_reply
from authbench.records import is_missing
from authbench.studies.authority.judges import Judge, judge_label, judge_of
from authbench.studies.authority.rows import usable_value

__all__ = [
    "DAGGER",
    "DERIVATION",
    "DIAGNOSTICS",
    "FLAGGED_MEANS",
    "ValidityRule",
    "cell_diagnostics",
    "example_value",
    "flagged_cells",
    "has_diagnostics",
    "validity_frame",
    "validity_note",
]

DERIVATION = "validity"  # the derivation column of the diagnostic metric rows
DIAGNOSTICS = ("position_constant", "position_rho", "example_copy", "a_share", "a_expected", "order_effect",
               "near_constant")
# diagnostics only some runs have (a column of the validity table only then): Cohen's κ between a cell's two
# orders (config position_consistency; authbench.studies.authority.consistency.KAPPA)
OPTIONAL_DIAGNOSTICS = ("order_kappa",)
KAPPA_REASON = "κ between the item choices of its two orders"  # the head of an order_kappa flag's reason
DAGGER = "†"
# what a flagged cell's judge does (captions of the results tables and the cost table)
FLAGGED_MEANS = "the judge answers by presentation position, copies the prompt's example or barely varies its scores"


# --------------------------------------------------------------------------
# the example reply of a template
# --------------------------------------------------------------------------
def _states_something(value: Any, status: str) -> bool:
    if isinstance(value, Mapping):
        return any(not is_missing(v) for v in value.values())
    if isinstance(value, list):  # a ranking: the repaired identity when no id was found
        return status not in ("wrong_format", "empty")
    return not is_missing(value)


def example_value(template, n: int | None = None) -> Any:
    """The parsed value of ``template``'s example reply for a list of ``n``
    items (None when the template declares no example). An example that
    states nothing in the judge's reply format is a :class:`TemplateError`."""
    text = template.example_reply(n) if template is not None else None
    if text is None:
        return None
    needs_n = template.output in ("ranking", "list_scores")
    result = parse_reply(template.output, text, n if needs_n else None)
    if not _states_something(result.value, result.status):
        raise TemplateError(f"{template.path}: the example {text!r} states no {template.output} reply "
                            f"({result.status}: {result.detail})")
    return result.value


def _agrees(value: Any, example: Any) -> bool:
    if value is None:
        return False
    if isinstance(example, Mapping):
        if not isinstance(value, Mapping):
            return False
        got = {str(k): v for k, v in value.items()}
        return all(got.get(str(k)) == v for k, v in example.items() if not is_missing(v))
    if isinstance(example, list):
        return isinstance(value, list) and [int(x) for x in value] == [int(x) for x in example]
    return value == example


# --------------------------------------------------------------------------
# per-cell diagnostics
# --------------------------------------------------------------------------
def _row(setting: str, judge: str, metric: str, value: float, n: int) -> dict:
    return {"setting": setting, "judge": judge, "derivation": DERIVATION, "difficulty": "all", "metric": metric,
            "value": value, "n": n, "n_constant": 0}


def _example_row(judge: Judge, setting, instances, judgments, parse, template) -> list[dict]:
    if template is None or template.example is None:
        return []
    sizes = judge.example_sizes(instances)  # lists: the example is read for each list's size
    examples: dict[int | None, Any] = {}
    copies = 0
    for j in judgments:
        n = sizes.get(j["request_id"]) if sizes is not None else None
        if sizes is not None and n is None:  # not a list of this cell: agrees with nothing
            continue
        if n not in examples:
            examples[n] = example_value(template, n)
        copies += _agrees(usable_value(j, parse), examples[n])
    total = len(judgments)
    return [_row(setting, judge.name, "example_copy", copies / total if total else math.nan, total)]


def _near_constant_row(judge: Judge, setting, instances, judgments, parse, near_constant: float) -> list[dict]:
    if not judge.scores or setting == "bias":
        return []
    hits = 0
    for inst, scores in zip(instances, judge.item_scores(instances, judgments, parse)):
        given = Counter(float(v) for v in scores.values() if not is_missing(v))
        hits += bool(given) and given.most_common(1)[0][1] / len(inst["items"]) >= near_constant
    n = len(instances)
    return [_row(setting, judge.name, "near_constant", hits / n if n else math.nan, n)]


def cell_diagnostics(judge: str, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                     parse: str = "strict", template=None, near_constant: float | None = None) -> list[dict]:
    """The diagnostic metric rows of one cell on one label scale (see the
    module docstring), in the shape of
    :func:`authbench.studies.authority.evaluate.evaluate_cell`'s rows: the
    judge's shape's position diagnostics
    (:meth:`~authbench.studies.authority.judges.base.Judge.position_diagnostics`),
    then ``example_copy`` and ``near_constant``.
    ``template``: the cell's :class:`~authbench.studies.authority.prompts.PromptTemplate`
    (its ``example``); None leaves out ``example_copy``. ``near_constant``:
    the share of a list's items on one score that makes the list near-constant
    (config ``judge_validity.near_constant``; None: :class:`ValidityRule`'s default)."""
    usable_value({"status": "ok", "value": None}, parse)  # checks the mode
    shaped = judge_of(judge)
    rows = [_row(setting, judge, metric, value, n)
            for metric, value, n in shaped.position_diagnostics(setting, instances, judgments, parse)]
    share = ValidityRule.near_constant if near_constant is None else near_constant
    return (rows + _example_row(shaped, setting, instances, judgments, parse, template)
            + _near_constant_row(shaped, setting, instances, judgments, parse, share))


# --------------------------------------------------------------------------
# the flag rule
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class ValidityRule:
    """When a cell's diagnostics say its judge answers by position, copies
    the example or barely varies its scores (config ``judge_validity``;
    docs/decisions/judge-validity.md):

    * ``position_constant`` ≥ this share of lists (list judges);
    * ``|position_rho|`` ≥ this (list and pair judges);
    * ``example_copy`` ≥ this share of replies;
    * ``|a_share − a_expected|`` ≥ ``a_share_gap`` (pair judges);
    * ``near_constant`` > ``near_constant_lists`` (score judges), the share
      of lists in which ≥ ``near_constant`` of the items get one score — a
      share the evaluate step computes (:func:`cell_diagnostics`); here
      ``near_constant`` only words the reason;
    * ``order_kappa`` ≤ this (config ``position_consistency``: Cohen's κ
      between the item choices of a cell's two orders; ``min_calls``
      comparisons, lists too: their item pairs);

    each only when at least ``min_lists`` lists (list judges; ``near_constant``
    on a list setting) or ``min_calls`` replies (pair and point judges;
    ``near_constant`` on ``pairs``: pairs) stand behind it.
    """

    position_constant: float = 0.8
    position_rho: float = 0.8
    example_copy: float = 0.5
    a_share_gap: float = 0.4
    near_constant: float = 0.9
    near_constant_lists: float = 0.5
    min_lists: int = 2
    min_calls: int = 10
    order_kappa: float = 0.0

    @classmethod
    def from_config(cls, section: Mapping | None) -> "ValidityRule":
        """The rule of config ``judge_validity`` (None: the defaults)."""
        section = dict(section or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(section) - known)
        if unknown:
            raise ConfigError(f"judge_validity: unknown key(s) {unknown}; expected {sorted(known)}")
        return cls(**section)

    def reasons(self, judge: str, diag: Mapping[str, tuple[float, float]], setting: str | None = None) -> list[str]:
        """Why a cell is flagged (empty: it is not), from its diagnostics
        ``metric -> (value, n)`` on label scale ``setting`` (``pairs``:
        ``near_constant`` counts pairs; anything else: lists)."""
        shaped = judge_of(judge)
        least = self.min_lists if shaped.counts_lists else self.min_calls
        out = []

        def get(metric, least=least):
            value, n = diag.get(metric, (math.nan, 0))
            value = float(value) if not is_missing(value) else math.nan
            n = 0 if is_missing(n) else int(n)
            return value, n, n >= least and not math.isnan(value)

        value, n, ok = get("position_constant")
        if ok and value >= self.position_constant:
            out.append(f"the same {shaped.reply_vector} by position in {round(value * n)} of {n} lists")
        value, n, ok = get("position_rho")
        if ok and abs(value) >= self.position_rho:
            out.append(f"ρ(presentation position, prediction) = {value:+.2f}")
        value, n, ok = get("example_copy")
        if ok and value >= self.example_copy:
            out.append(f"the prompt's example reply in {round(value * n)} of {n} replies")
        value, n, ok = get("a_share")
        expected = get("a_expected")[0]
        if ok and not math.isnan(expected) and abs(value - expected) >= self.a_share_gap:
            out.append(f"prefers A in {round(value * n)} of {n} decisive comparisons "
                       f"(A is truly higher in {expected:.0%})")
        value, n, ok = get("order_kappa", self.min_calls)
        if ok and value <= self.order_kappa:
            out.append(f"{KAPPA_REASON} = {value:+.2f} over {n} comparisons "
                       f"(≤ {self.order_kappa:g}: its verdicts follow the position shown)")
        pairs = setting == "pairs"
        value, n, ok = get("near_constant", self.min_calls if pairs else self.min_lists)
        if ok and value > self.near_constant_lists:
            out.append(f"the same score for both items in {round(value * n)} of {n} pairs" if pairs else
                       f"one score for ≥ {self.near_constant:.0%} of the items in {round(value * n)} of {n} lists")
        return out


CELL_KEY = ("benchmark", "model", "context", "setting", "judge")


def _diagnostic_rows(metrics: pd.DataFrame) -> pd.DataFrame:
    if "derivation" not in metrics.columns:
        return metrics.iloc[0:0]
    rows = metrics[metrics["derivation"].astype(str) == DERIVATION]
    if "parse" in rows.columns:
        modes = {str(m) for m in rows["parse"] if not is_missing(m) and str(m)}
        if len(modes) > 1:
            raise ValueError(f"judge validity: metrics of several parse modes {sorted(modes)}; "
                             "select one first (authbench.studies.authority.report.parse_rows)")
    return rows


def flagged_cells(metrics: pd.DataFrame, rule: ValidityRule | None = None) -> dict[tuple, list[str]]:
    """Flagged cells of a long metrics table (one parse mode): ``(benchmark,
    model, context, setting, judge) -> reasons``; ``setting`` is the label
    scale of the rows (a cell scored on two scales is judged on each)."""
    rule = rule or ValidityRule()
    rows = _diagnostic_rows(metrics)
    out: dict[tuple, list[str]] = {}
    for key, group in rows.groupby(list(CELL_KEY), sort=False):
        diag = {str(r.metric): (r.value, r.n) for r in group.itertuples(index=False)}
        reasons = rule.reasons(str(key[-1]), diag, str(key[3]))
        if reasons:
            out[tuple(str(k) for k in key)] = reasons
    return out


def validity_frame(metrics: pd.DataFrame, rule: ValidityRule | None = None) -> pd.DataFrame:
    """One row per (cell, label scale): the diagnostics (columns
    :data:`DIAGNOSTICS`), ``flag`` (``†`` or empty) and ``why``."""
    rows = _diagnostic_rows(metrics)
    optional = [d for d in OPTIONAL_DIAGNOSTICS if d in set(rows["metric"].astype(str))]
    columns = [*CELL_KEY, *DIAGNOSTICS, *optional, "flag", "why"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    wide = rows.assign(value=pd.to_numeric(rows["value"], errors="coerce")).pivot_table(
        index=list(CELL_KEY), columns="metric", values="value", aggfunc="first", dropna=False).reset_index()
    wide.columns = [str(c) for c in wide.columns]
    for name in DIAGNOSTICS:
        if name not in wide.columns:
            wide[name] = math.nan
    flags = flagged_cells(metrics, rule)
    keys = [tuple(str(x) for x in k) for k in wide[list(CELL_KEY)].itertuples(index=False)]
    wide["flag"] = [DAGGER if k in flags else "" for k in keys]
    wide["why"] = ["; ".join(flags.get(k, [])) for k in keys]
    return wide[columns]


def has_diagnostics(metrics: pd.DataFrame, benchmarks: Sequence[str], setting: str) -> bool:
    """Whether any judge-validity row exists for ``benchmarks`` on ``setting``
    (metrics written before the diagnostics existed have none)."""
    rows = _diagnostic_rows(metrics)
    return bool(len(rows[rows["benchmark"].astype(str).isin(list(benchmarks))
                         & (rows["setting"].astype(str) == setting)]))


def validity_note(flags: Mapping[tuple, list[str]], benchmarks: Sequence[str], setting: str,
                  judges: Sequence[str], context_label=str, dataset_label=None, checked: bool = True) -> str:
    """The caption sentence of a results table: which of its cells carry ``†``
    and why, or that none does (nothing when no cell was ``checked``)."""
    parts = []
    for (bench, model, context, scale, judge), reasons in flags.items():
        if bench in benchmarks and scale == setting and judge in judges:
            where = f"{dataset_label(bench)} " if dataset_label else ""
            parts.append(f"{where}{model} {context_label(context)} {judge_label(judge)}: "
                         + "; ".join(reasons))
    rule = "(judge-validity rule, docs/decisions.md; thresholds: config judge_validity)"
    if not parts and not checked:
        return ""
    if not parts:
        return (" Judge validity: no cell answers by presentation position, copies the prompt's example or barely "
                f"varies its scores {rule}.")
    return (f" {DAGGER}: {FLAGGED_MEANS}, so the number says nothing about authority {rule}: "
            + " | ".join(parts) + ".")
