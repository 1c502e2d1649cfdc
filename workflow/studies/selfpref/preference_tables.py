"""The self-preference study's generation-phase tables (Chen et al.): Table 3
(:func:`table3`: self / order / factual preference), the knowledge breakdown
of Section 4.2.3 (:func:`knowledge_breakdown`) and Tables 4-5 (Appendix A,
:func:`style_tables`: writing style), built on
:mod:`authbench.studies.selfpref.table_common`.

Layouts
-------
* **Table 3**: rows evaluator (plus ``Average``, the mean of the evaluator
  rows, when there are two or more), columns other author × Self / Self
  (same fact.) / Order / Factual, ``Aggregated`` and ``Pooled`` (+ its
  ``n``); one decimal.  ``Self`` is the paper's (all four factuality
  combinations); ``Self (same fact.)`` (an addition) the same share over
  the pairs whose passages are both true or both false (TT, FF:
  ``rows.same_factuality``), where factuality cannot decide the choice.
  ``Aggregated`` is the paper's: the unweighted mean of the evaluator's
  per-author cells, each metric apart (every one of the paper's 15 Aggregated
  triples is the mean of its five per-author cells; we average the unrounded
  rates, the paper its rounded integer cells, so the two may differ by < 0.5).
  ``Pooled`` is the rate over all of the evaluator's comparisons (``all``),
  ``n`` its ok comparisons.  The caption's rule "values greater
  than 50% are bold" is implemented as mark ``"best"`` on every displayed
  rate > 50.0 (no best/second-best ranking: ``highlight_groups`` is empty;
  ``n`` carries no value and is never bold).  Table 3, Figure 3 and the
  knowledge breakdown use the ``normal`` variant.
* **Tables 4-5** (writing style): generation rows of variant ``qa`` / ``long``
  with both passages true (the paper restricts both to true answers).  Such a
  row is read as: the *self* passage is the styled one (Gen-by-QA, or long)
  and the other passage is a normal one (as ``requests.comparisons`` builds
  them: self ``qa`` vs human, self ``long`` vs ``<self>:normal``), so the
  style preference is the share of ``ok`` rows choosing ``self``.  Rows
  (evaluator, versus = other author); columns preference (%), the order
  preference, the ``ok`` comparisons and the not-ok rows.  An evaluator
  whose self author has no passage of the variant among the passages while
  another author has (the import drops a variant identical to another as
  ``duplicate_variant``: the release's ``llama_qa`` is ``llama_long``) gets a
  row reading "no distinct Gen-by-QA passages" (or long) and a note, never a
  number.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
from authbench.render.formatting import MISSING, NOT_RANDOM_TAG, TEXT
from authbench.render.tables import Column, TableSpec, build_table
from authbench.stats import finite
from authbench.studies.selfpref.rows import (ALL, COMBOS, HUMAN, KNOWLEDGE, NORMAL, UNKNOWN, GenRecord, aggregated,
                                             author_order, evaluator_selves, gen_records, gold_answers,
                                             other_authors_of, rate_stats, variant_authors)
from authbench.studies.selfpref.table_common import (NAN2, Intervals, count_cell, finished, if_intervals,
                                                     pct_cell)

AGGREGATED = "aggregated"  # Table 3: the mean of the per-author cells


# --------------------------------------------------------------------------
# Table 3: preference rates
# --------------------------------------------------------------------------
# rate -> unit column (Table 3's intervals; the paired comparisons vs 50%: report.comparisons)
UNIT_OF = {"self_pref": "self_chosen", "order_pref": "first", "factual_pref": "true_chosen",
           "self_pref_same": "self_same"}
# Table 3's metrics in their column order: the paper's Self, the same-factuality Self beside it, Order, Factual
TABLE3_METRICS = (("self_pref", "Self"), ("self_pref_same", "Self (same fact.)"), ("order_pref", "Order"),
                  ("factual_pref", "Factual"))


def _pref_at(ev: str, other: str, variant: str = NORMAL, **more) -> dict:
    return {"evaluator": ev, "variant": variant, **({} if other == ALL else {"other_author": other}), **more}


def table3(rates: Sequence[Mapping], iv: Intervals | None = None) -> TableSpec:
    """Table 3 from :func:`~authbench.studies.selfpref.rows.preference_rates`: rows evaluator (+ ``Average``
    when two or more), columns other author × Self / Self (same fact.) /
    Order / Factual (%) (:data:`TABLE3_METRICS`; a rate a row lacks is ``–``),
    ``Aggregated`` = the unweighted mean of the evaluator's per-author cells
    (each metric apart; a cell without a value is skipped), as in the paper,
    and ``Pooled`` = the rate over all of the evaluator's comparisons (the
    ``all`` rows) with its ``n`` (ok comparisons). ``Average`` is the mean of
    the evaluator rows (its ``n`` their sum). Displayed values > 50 are bold
    (never ``n``). With ``iv``: every rate's interval over its comparisons
    (Aggregated and Average: of the mean of the cells, the questions of all
    resampled together) and ``°`` on the evaluator × author and Pooled rates
    not distinguishable from 50%."""
    rates = [r for r in (rates or []) if r.get("factuality", ALL) == ALL and r.get("knowledge", ALL) == ALL]
    evaluators = list(dict.fromkeys(str(r["evaluator"]) for r in rates))
    others = author_order(str(r["other_author"]) for r in rates if r["other_author"] != ALL)
    look = {(str(r["evaluator"]), str(r["other_author"])): r for r in rates}
    avg = len(evaluators) >= 2

    def one(ev, other, key) -> float:
        if other == AGGREGATED:
            return aggregated(rates, ev, key)
        r = look.get((ev, other))
        return math.nan if r is None or r.get(key) is None else float(r[key])

    def get(ev, other, key) -> float:
        if ev == "Average":
            vals = finite(one(e, other, key) for e in evaluators)
            return float(np.mean(vals)) if len(vals) else math.nan
        return one(ev, other, key)

    def n_ok(ev) -> tuple[float, str]:
        rows = [look[(e, ALL)] for e in (evaluators if ev == "Average" else [ev]) if (e, ALL) in look]
        return (math.nan, str(sum(int(r["n_ok"]) for r in rows))) if rows else (math.nan, MISSING)

    def interval(ev, other, key) -> tuple[float, float]:
        col, evs = UNIT_OF[key], evaluators if ev == "Average" else [ev]
        if other == AGGREGATED:
            wheres, weights = [], []
            for e in evs:
                mine = [o for o in others if (e, o) in look]
                wheres += [_pref_at(e, o) for o in mine]
                weights += [1.0 / len(mine)] * len(mine)
            return iv.average("comparisons", wheres, col, 100.0, weights)
        if ev == "Average":
            return iv.average("comparisons", [_pref_at(e, other) for e in evs if (e, other) in look], col, 100.0)
        return iv.mean("comparisons", _pref_at(ev, other), col, 100.0)

    cols = []
    for other in others + [AGGREGATED, ALL]:
        head = {AGGREGATED: "Aggregated", ALL: "Pooled"}.get(other, "Human" if other == HUMAN else other)
        for key, lab in TABLE3_METRICS:
            cols.append(Column((head, lab), TEXT, lambda k, o=other, kk=key: pct_cell(get(k[0], o, kk)),
                               interval=if_intervals(iv, lambda k, o=other, kk=key: interval(k[0], o, kk)),
                               tag=if_intervals(iv, lambda k, o=other, kk=key: iv.tags.get((k[0], o, kk), ""))))
    cols.append(Column(("Pooled", "n"), TEXT, lambda k: n_ok(k[0])))
    keys = [(ev,) for ev in evaluators] + ([("Average",)] if avg else [])
    caption = (
        "Preferences in the generation phase (% of comparisons): Self = the evaluator's own passage chosen "
        "(both orders, all four factuality combinations: the paper's); Self (same fact.) = the same, among the "
        "pairs whose two passages are both true or both false (TT, FF), where factuality cannot decide the "
        "choice; Order = the passage shown first chosen; Factual = "
        "the true passage chosen, among factuality-asymmetric pairs. Aggregated: the unweighted mean of the "
        "per-author cells (as in the paper); Pooled: all comparisons of the evaluator together, n = its "
        "comparisons with a choice. Values greater than 50% are marked in bold."
    )
    if iv is not None:
        caption += iv.words() + (f" {NOT_RANDOM_TAG} (per-author and Pooled rates): not distinguishable from 50% (no "
                                 "preference; bootstrap over questions, Holm-adjusted p ≥ 0.05 or too few questions; "
                                 "comparisons.md).")
    return finished(build_table(keys, keys, ["Evaluator"], cols, caption=caption, mark_rule=lambda v: v > 50.0), iv)


# --------------------------------------------------------------------------
# Section 4.2.3: knowledge breakdown
# --------------------------------------------------------------------------
def knowledge_breakdown(gen_rows, passages=None, iv: Intervals | None = None) -> TableSpec:
    """Section 4.2.3: per evaluator × knowledge class (no / partial / full,
    then ``unknown`` when rows lack it), ``normal`` variant: the self
    preference (%) per factuality combination and pooled, the factual
    preference, the answer accuracy (%) per combination and pooled — the
    share of ok comparisons whose answer matches the gold
    (:func:`authbench.studies.selfpref.answers.answer_matches`; gold from the
    true ``passages``; the paper's "65-70%" in the no-knowledge class) — and
    the counts (``graded``: ok rows with an answer and a known gold). With
    ``iv``: every rate's interval over its comparisons (questions as clusters)."""
    recs = [g for g in gen_records(gen_rows, gold=gold_answers(passages)) if g.variant == NORMAL]
    keys = []
    for ev, _ in evaluator_selves(recs):
        present = {g.knowledge for g in recs if g.evaluator == ev}
        keys += [(ev, k) for k in KNOWLEDGE + (UNKNOWN,) if k in present]

    def stat(key, combo, field_):
        sub = [g for g in recs if g.evaluator == key[0] and g.knowledge == key[1]
               and (combo == ALL or g.combo == combo)]
        return rate_stats(sub)[field_]

    def interval(key, combo, col):
        more = {"knowledge": key[1], **({} if combo == ALL else {"combo": combo})}
        return iv.mean("comparisons", _pref_at(key[0], ALL, **more), col, 100.0)

    combos = [c[0] for c in COMBOS] + [ALL]
    cols = [Column(("Self (%)", c), TEXT, lambda k, c=c: pct_cell(stat(k, c, "self_pref")),
                   interval=if_intervals(iv, lambda k, c=c: interval(k, c, "self_chosen"))) for c in combos]
    cols.append(Column(("Factual (%)", "TF+FT"), TEXT, lambda k: pct_cell(stat(k, ALL, "factual_pref")),
                       interval=if_intervals(iv, lambda k: interval(k, ALL, "true_chosen"))))
    cols += [Column(("Accuracy (%)", c), TEXT, lambda k, c=c: pct_cell(stat(k, c, "accuracy")),
                    interval=if_intervals(iv, lambda k, c=c: interval(k, c, "correct"))) for c in combos]
    cols.append(Column(("n", "ok"), TEXT, lambda k: count_cell(stat(k, ALL, "n_ok"))))
    cols.append(Column(("n", "graded"), TEXT, lambda k: count_cell(stat(k, ALL, "n_graded"))))
    cols.append(Column(("n", "not ok"), TEXT, lambda k: count_cell(stat(k, ALL, "not_ok"))))
    caption = (
        "Self preference (%) by the evaluator's prior knowledge of the question (no / partial / full: "
        "0, 1-4, 5 correct answers out of 5) and the factuality of the (self, other) passages; Factual = "
        "true passage chosen among asymmetric pairs; Accuracy = the evaluator's answer matches the gold "
        "answer (the authors' check), among the ok comparisons (graded: those with a known gold)."
        + (iv.words() if iv else "")
    )
    return finished(build_table(keys, keys, ["Evaluator", "Knowledge"], cols, caption=caption), iv)


# --------------------------------------------------------------------------
# Appendix A: Tables 4 and 5
# --------------------------------------------------------------------------
NO_DISTINCT = {"qa": "no distinct Gen-by-QA passages", "long": "no distinct long passages"}


def _style_table(recs: Sequence[GenRecord], variant: str, head: str, caption: str,
                 missing: Sequence[tuple[str, str]] = (), iv: Intervals | None = None) -> TableSpec:
    """``missing``: (evaluator, self author) rows to show as "no distinct ...
    passages" instead of numbers."""
    sub = [g for g in recs if g.variant == variant and g.combo == "TT"]
    keys = [(ev, other) for ev, _ in evaluator_selves(sub) for other in other_authors_of([g for g in sub if g.evaluator == ev])]
    absent = [(ev, HUMAN if variant == "qa" else f"{own}:normal") for ev, own in missing]
    keys += absent

    def stat(key, field_):
        return rate_stats([g for g in sub if g.evaluator == key[0] and g.other_author == key[1]])[field_]

    def cell(key, field_, fmt):
        if key in absent:
            return (math.nan, NO_DISTINCT[variant]) if field_ == "self_pref" else (math.nan, MISSING)
        return fmt(stat(key, field_))

    def interval(key, col):
        if key in absent:
            return NAN2
        return iv.mean("comparisons", _pref_at(key[0], key[1], variant, combo="TT"), col, 100.0)

    cols = [
        Column((head,), TEXT, lambda k: cell(k, "self_pref", pct_cell),
               interval=if_intervals(iv, lambda k: interval(k, "self_chosen"))),
        Column(("Order (%)",), TEXT, lambda k: cell(k, "order_pref", pct_cell),
               interval=if_intervals(iv, lambda k: interval(k, "first"))),
        Column(("n",), TEXT, lambda k: cell(k, "n_ok", count_cell)),
        Column(("not ok",), TEXT, lambda k: cell(k, "not_ok", count_cell)),
    ]
    labels = [(ev, "Human" if other == HUMAN else other) for ev, other in keys]
    note = "; ".join(f"{ev} (self {own}): no {variant} passage of {own} distinct from its other variants is left "
                     "after the import (a copy of another variant is dropped as duplicate_variant: drops.tsv, "
                     "import log)" for ev, own in missing)
    return finished(build_table(keys, labels, ["Evaluator", "Versus"], cols,
                               caption=caption + (iv.words() if iv else ""), note=f"{note}." if note else ""), iv)


def _without_variant(recs: Sequence[GenRecord], passages, variant: str) -> list[tuple[str, str]]:
    """(evaluator, self author) of the evaluators without ``variant`` rows
    whose self author has no ``variant`` passage in ``passages`` while some
    other author has (i.e. the style data exist, but none of the self's)."""
    have = variant_authors(passages, variant)
    if not have:
        return []
    done = {g.evaluator for g in recs if g.variant == variant}
    return [(ev, own) for ev, own in evaluator_selves(recs) if ev not in done and own not in have]


def style_tables(gen_rows, passages=None, iv: Intervals | None = None) -> tuple[TableSpec, TableSpec]:
    """Tables 4 and 5: per evaluator and the passage it was compared with
    (``Versus``: the other author, e.g. ``human`` for Gen-by-QA and
    ``<self>:normal`` for long in the study's style run), the share of ``ok``
    comparisons (both passages true) in which the styled self passage was
    chosen — Gen-by-QA (variant ``qa``) and long (variant ``long``). With
    ``passages`` (the study's passages), an evaluator whose self author has no
    passage of the variant while others have (the import dropped its copies
    as ``duplicate_variant``: the release's ``llama_qa`` is ``llama_long``)
    gets a row saying "no distinct Gen-by-QA passages" instead of a number."""
    recs = gen_records(gen_rows)
    t4 = _style_table(recs, "qa", "Gen-By-QA Preference (%)",
                      "Preference to passages generated from the QA pair (Gen-by-QA) over normal passages, "
                      "true answers only. Order: the passage shown first chosen.",
                      _without_variant(recs, passages, "qa"), iv)
    t5 = _style_table(recs, "long", "Long Passage Preference (%)",
                      "Preference to long passages (≥ 300 words) over normal-length passages, true answers "
                      "only. Order: the passage shown first chosen.",
                      _without_variant(recs, passages, "long"), iv)
    return t4, t5
