"""The self-preference study's passage tables (Chen et al.): Table 1
(:func:`table1`: knowledge levels and passage statistics per evaluator) and
the perplexity tests across authors (:func:`perplexity_anova_table`), built
on :mod:`authbench.studies.selfpref.table_common`.

Layouts
-------
* **Table 1** (:func:`table1`): one row per configured evaluator (its
  knowledge probed here, the passage statistics of its self author),
  ``Average`` (each evaluator once, when two or more), then below a rule
  (never averaged, with a footnote) every other knowledge run (a released
  run), every passage author no evaluator has as self, and ``Human``.
  Knowledge % per class over the run's level rows; Average Length = mean
  word count (``str.split``) of the author's ``normal`` TRUE passages
  (the report passes those of the questions in ``selfpref.rerank.scope``);
  Perplexity = mean over the author's ``normal`` TRUE perplexity rows (the
  same passages), ``†`` when the configured test against the human ones
  gives p < 0.05; "PPL (released GPT-2)" = the release's own values, when
  configured.
* **Perplexity tests** (``table_perplexity_anova``; the authors' ``anova.py``):
  over the ``normal`` TRUE perplexity rows of every author with at least two
  finite values (human first, then in order of appearance — the paper's
  human / GPT / Llama), :func:`authbench.stats.anova_tukey`: the one-way
  ANOVA and Tukey's HSD for every pair, with Welch's unadjusted p of the
  same pair beside it.  ``†``: p < 0.05.  Fewer than two such
  authors give the placeholder row.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

import numpy as np
from authbench.render.formatting import MISSING, TEXT, round_half_up
from authbench.render.tables import Column, TableSpec, build_table
from authbench.stats import DAGGER, Significance, anova_tukey, finite, mark, mean_or_nan, per_question, percent
from authbench.studies.selfpref.rows import (HUMAN, NORMAL, author_order, level_classes, normal_true_lengths,
                                             normal_true_perplexities, normal_true_perplexities_by_question)
from authbench.studies.selfpref.table_common import (NAN2, Intervals, count_cell, finished, if_intervals,
                                                     number_text, pct_cell, signed_text)

HUMAN_KEY = (-2, HUMAN)  # Table 1's human row


# --------------------------------------------------------------------------
# Table 1
# --------------------------------------------------------------------------
def table1(levels_by_author: Mapping[str, Sequence[Mapping]], passages, perplexity_rows,
           perplexity_model: str | None = None, iv: Intervals | None = None,
           released_perplexity: Mapping[str, Sequence[float]] | None = None,
           self_map: Mapping[str, str | None] | None = None, significance: str = "paired") -> TableSpec:
    """Table 1 as the paper lays it out: one row per configured evaluator
    (``self_map``: evaluator -> its self author; in its order), its knowledge
    levels (%) probed here and the passage statistics of its self author's
    ``normal`` TRUE passages, then ``Average`` (each evaluator once, when two
    or more); below a rule (the rows the table marks as baseline: never
    averaged), every other knowledge run (a released run: ``<author>
    (released run)``), every passage author no evaluator has as self, and
    ``Human``. ``†``: ``significance`` (config ``selfpref.significance``) of
    the row's perplexities against the human passages', per question, p <
    0.05. ``perplexity_model`` names the scoring LM in the caption. With
    ``iv``: every share, length and perplexity has its interval over the
    row's questions (Average: of the mean of the evaluators' values).
    ``released_perplexity`` (author -> the release's GPT-2 perplexities): the
    column "PPL (released GPT-2)", each author's mean of the released values
    (no test, no interval: the values' passages are not ours)."""
    classes = level_classes(levels_by_author)
    released = {a: finite(v) for a, v in (released_perplexity or {}).items()}
    lengths, order = normal_true_lengths(passages)
    ppl, ppl_authors = normal_true_perplexities(perplexity_rows)
    ppl_q = normal_true_perplexities_by_question(perplexity_rows, passages)
    order += ppl_authors + list(released)
    sig = Significance(significance)

    # rows: (kind, knowledge run or None, passage author or None)
    selves = {ev: a for ev, a in (self_map or {}).items() if a is not None}
    # the evaluators in the order of their knowledge runs (the config's), then any without one
    ordered = [k for k in classes if k in selves] + [ev for ev in selves if ev not in classes]
    evaluator_rows = [("evaluator", ev, selves[ev]) for ev in ordered]
    others = [("other", k, k) for k in classes if k not in selves]
    authors = [a for a in dict.fromkeys(order) if a != HUMAN]
    others += [("other", None, a) for a in authors if a not in selves.values() and a not in classes]
    rows = evaluator_rows + others
    averaged = [r for r in evaluator_rows]
    human_ppl = ppl_q.get(HUMAN, {})

    def knowledge(run, cls) -> float:
        c = classes.get(run) if run is not None else None
        return percent(c[cls], sum(c.values())) if c else math.nan

    def length(author) -> float:
        return mean_or_nan(np.asarray(lengths.get(author, []) if author else [], dtype=float))

    def row_of(key):
        return rows[key[0]] if key[0] >= 0 else None

    def avg_or(fn: Callable[[tuple], float], key) -> float:
        if key[0] >= 0:
            return fn(rows[key[0]])
        vals = finite(fn(r) for r in averaged)
        return float(np.mean(vals)) if len(vals) else math.nan

    def perplexity(key) -> tuple[float, str]:
        if key == HUMAN_KEY:
            m = mean_or_nan(finite(ppl.get(HUMAN, [])))
            p = math.nan
        elif key[0] < 0:  # Average: the evaluators' mean, tested per question on the mean of their values
            means = finite(mean_or_nan(finite(ppl.get(r[2], []))) for r in averaged)
            m = float(np.mean(means)) if len(means) else math.nan
            pooled = per_question((q, v) for r in averaged for q, v in ppl_q.get(r[2], {}).items())
            p = sig.p(pooled, human_ppl) if math.isfinite(m) else math.nan
        else:
            author = rows[key[0]][2]
            m = mean_or_nan(finite(ppl.get(author, []))) if author else math.nan
            p = sig.p(ppl_q.get(author, {}), human_ppl) if math.isfinite(m) else math.nan
        return round_half_up(m, 2), (number_text(m, 2) + mark(p)) if math.isfinite(m) else MISSING

    def interval(name, col, key, scale=1.0, where=None, by="author"):
        where = where or {}
        pick = (lambda r: r[1]) if by == "knowledge" else (lambda r: r[2])
        if key == HUMAN_KEY:
            return iv.mean(name, {"author": HUMAN, **where}, col, scale) if by != "knowledge" else NAN2
        if key[0] >= 0:
            who = pick(rows[key[0]])
            return iv.mean(name, {"author": who, **where}, col, scale) if who is not None else NAN2
        return iv.average(name, [{"author": pick(r), **where} for r in averaged if pick(r) is not None], col, scale)

    def column_value(fn):
        """A per-row value (the human row: of the human passages, no knowledge)."""
        return lambda key: (fn((None, None, HUMAN)) if key == HUMAN_KEY else avg_or(fn, key))

    normal_true = {"variant": NORMAL, "factual": True}
    cols = []
    for cls, lab in (("no", "No (%)"), ("partial", "Partial (%)"), ("full", "Full (%)")):
        get = column_value(lambda r, c=cls: knowledge(r[1], c))
        cols.append(Column(("Knowledge Level", lab), TEXT, lambda k, g=get: pct_cell(g(k)),
                           interval=if_intervals(iv, lambda k, c=cls: interval("knowledge", c, k, 100.0, by="knowledge"))))
    cols.append(Column(("Knowledge Level", "n"), TEXT,
                       lambda k: (count_cell(sum(classes[row_of(k)[1]].values()))
                                  if k[0] >= 0 and row_of(k)[1] in classes else (math.nan, MISSING))))
    get_length = column_value(lambda r: length(r[2]))
    cols.append(Column(("Passage Statistics", "Average Length"), TEXT,
                       lambda k: (round_half_up(get_length(k), 2), number_text(get_length(k), 2)),
                       interval=if_intervals(iv, lambda k: interval("passages", "words", k, where=normal_true))))
    cols.append(Column(("Passage Statistics", "Perplexity"), TEXT, perplexity,
                       interval=if_intervals(iv, lambda k: interval("perplexity", "perplexity", k, where=normal_true))))
    if released:
        def released_mean(r) -> float:
            return mean_or_nan(released.get(r[2], np.asarray([], dtype=float)) if r[2] else np.asarray([]))

        get_released = column_value(released_mean)
        cols.append(Column(("Passage Statistics", "PPL (released GPT-2)"), TEXT,
                           lambda k: (round_half_up(get_released(k), 2), number_text(get_released(k), 2))))

    def label(r) -> tuple[str, str]:
        kind, run, author = r
        if kind == "evaluator":
            return run, author
        return (f"{run} (released run)" if run is not None else author), author or MISSING

    keys = [(i, "") for i in range(len(evaluator_rows))] + ([(-1, "Average")] if len(averaged) >= 2 else [])
    keys += [(i, "") for i in range(len(evaluator_rows), len(rows))] + [HUMAN_KEY]
    labels = [label(rows[k[0]]) if k[0] >= 0 else ("Average", "–") for k in keys[:-1]] + [("Human", HUMAN)]
    below = [k[0] >= len(evaluator_rows) or k == HUMAN_KEY for k in keys]
    table = build_table(keys, labels, ["Model", "Passages"], cols, baseline=below)
    table.note = (
        "Average: the mean of the evaluator rows above it, each configured evaluator once (its knowledge probed "
        "here, the length and perplexity of its self author's passages: selfpref.self). Rows below the rule are "
        "outside the average: released knowledge runs (data), passage authors that are no evaluator's self, "
        "and Human." if rows else "")
    table.caption = (
        "Knowledge levels (share of questions answered correctly 0, 1-4 and 5 times out of 5) and "
        "statistics of the normal TRUE passages of the questions in scope (selfpref.rerank.scope: the sample by "
        "default; average length in words, mean perplexity under "
        f"{perplexity_model or 'the configured causal LM'}; the paper used GPT-2) per "
        f"evaluator (Passages: its self author's). {DAGGER} p < 0.05 ({sig.words()}, of the row's perplexities "
        "against the human passages')."
        + (" PPL (released GPT-2): the mean of the authors' released GPT-2 perplexities of that author's passages "
           "(their results/*_perplexity.json; data, not this run's passages)." if released else "")
        + (iv.words() if iv else "")
    )
    return finished(table, iv)


# --------------------------------------------------------------------------
# perplexity: one-way ANOVA and Tukey HSD (the authors' anova.py)
# --------------------------------------------------------------------------
def perplexity_anova(perplexity_rows) -> dict | None:
    """The one-way ANOVA and Tukey HSD over the authors' ``normal`` TRUE
    perplexities (see the module docstring): :func:`authbench.stats.anova_tukey`'s
    result, or ``None`` when fewer than two authors have two or more finite
    values."""
    values, order = normal_true_perplexities(perplexity_rows)
    groups = [(a, finite(values.get(a, []))) for a in author_order(order)]
    groups = [(a, x) for a, x in groups if len(x) >= 2]
    return anova_tukey(groups) if len(groups) >= 2 else None


def _p_text(p: float) -> str:
    if p is None or not math.isfinite(p):
        return MISSING
    return (f"{p:.3f}" if p >= 0.001 else f"{p:.1e}") + mark(p)


def perplexity_anova_table(perplexity_rows, perplexity_model: str | None = None) -> TableSpec:
    """The ANOVA row and one Tukey HSD row per pair of authors
    (:func:`perplexity_anova`); rows (Test, Groups)."""
    res = perplexity_anova(perplexity_rows)
    keys: list[tuple] = []
    cells: dict[tuple, dict] = {}
    if res is not None:
        key = ("One-way ANOVA", " / ".join("Human" if a == HUMAN else a for a, _, _ in res["groups"]))
        keys.append(key)
        f_text = f"F({res['df_between']}, {res['df_within']}) = {number_text(res['f'], 2)}"
        cells[key] = {"stat": (round_half_up(res["f"], 2), f_text), "p": (res["p"], _p_text(res["p"]))}
        for pr in res["pairs"]:
            key = ("Tukey HSD", f"{'Human' if pr['a'] == HUMAN else pr['a']} − {pr['b']}")
            keys.append(key)
            cells[key] = {"stat": (round_half_up(pr["diff"], 2), signed_text(pr["diff"])),
                          "ci": (math.nan, f"[{number_text(pr['low'], 2)}, {number_text(pr['high'], 2)}]"),
                          "p": (pr["p"], _p_text(pr["p"])), "welch": (pr["p_welch"], _p_text(pr["p_welch"]))}
    none = (math.nan, MISSING)
    cols = [Column(("F / mean difference",), TEXT, lambda k: cells[k].get("stat", none)),
            Column(("95% CI",), TEXT, lambda k: cells[k].get("ci", none)),
            Column(("p",), TEXT, lambda k: cells[k].get("p", none)),
            Column(("p (Welch)",), TEXT, lambda k: cells[k].get("welch", none))]
    groups = "; ".join(f"{'Human' if a == HUMAN else a}: n = {n}, mean {number_text(m, 2)}" for a, n, m in res["groups"]) \
        if res else ""
    caption = (
        "Perplexity of the normal TRUE passages of the questions in scope (selfpref.rerank.scope; under "
        f"{perplexity_model or 'the configured causal LM'}; the paper used GPT-2) across authors: one-way ANOVA "
        "and Tukey's HSD for every pair (mean difference, 95% family-wise interval, adjusted p), as in the "
        "authors' anova.py; p (Welch) = the unadjusted Welch t-test of the same pair (Table 1's marks follow "
        f"selfpref.significance). {DAGGER} p < 0.05."
    )
    return build_table(keys, keys, ["Test", "Groups"], cols, caption=caption,
                       note=f"Groups: {groups}." if groups else "")
