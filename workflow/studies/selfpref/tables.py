"""The self-preference study's tables (Chen et al.): Tables 1, 2, 3, 4-5
(Appendix A), 6-9 (Appendix C), the knowledge breakdown of Section 4.2.3 and
the perplexity tests, each a :class:`~authbench.render.tables.TableSpec` built
from the checked input rows (:mod:`authbench.studies.selfpref.rows`) with
the shared tests of :mod:`authbench.stats` (the configured t-test of
``selfpref.significance``, :class:`~authbench.stats.Significance`: paired per
question by default, or Welch; ``†`` for p < 0.05; the one-way ANOVA and
Tukey HSD).

Layouts
-------
* **Table 2** (paper layout, generalised to several model authors): rows are
  (evaluator, model author), the evaluator's self author first and labelled
  ``"<author> (self)"`` (these rows are the paper's Table 2), then every other
  non-human author the evaluator scored.  Per setting (Normal, RAG): ``Human``
  (human TRUE passages), ``Model`` TRUE and FALSE, and ``Diff (H − M)`` TRUE
  and FALSE.  As in the paper's numbers (3.85 − 4.07 = −0.22, 3.85 − 3.99 =
  −0.14; Section 4.1.2), *both* differences use the human TRUE passages: the
  FALSE difference is human TRUE − model FALSE.  ``†`` on a difference when
  the configured test (``selfpref.significance``: paired over the questions
  scored on both sides by default, or Welch) of the same two score samples
  gives p < 0.05; the caption names the test and counts the questions a
  paired test dropped.  Differences come from the unrounded means.  Tables 2 and 6-9 use the ``normal`` variant only.
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
* **Empty input** never fails: a table without rows gets one placeholder row
  of ``–``, so every declared file exists.

Rendering: the tables are built with :func:`authbench.render.tables.build_table`;
the ``TableSpec``'s ``values`` hold the primary number of each
cell (mean, difference or rate, rounded as shown) and ``cells`` the displayed
text with ``±`` and ``†``; every column is of kind
:data:`authbench.render.tables.TEXT`, so :func:`authbench.render.tables.write_table` writes
``.csv`` (the cell text; missing empty, ASCII minus), ``.md`` and ``.tex``
from the text cells (``marks`` "best" bold), like every other table.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

import numpy as np
from authbench.records import InputError
from authbench.render.tables import (MISSING, NOT_RANDOM_TAG, TEXT, Column, TableSpec, build_table,
                                     interval_words, round_half_up, shown_interval, with_blank_note)
from authbench.stats import (DAGGER, IntervalSpec, Significance, anova_tukey, difference_interval, finite,
                             groups_interval, mark, mean_interval, mean_or_nan, per_question, percent, sample_std)
from authbench.studies.selfpref.rows import (
    ALL,
    COMBOS,
    HUMAN,
    KNOWLEDGE,
    NORMAL,
    PROMPTS,
    UNKNOWN,
    GenRecord,
    aggregated,
    author_order,
    evaluator_selves,
    gen_records,
    gold_answers,
    level_classes,
    normal_true_lengths,
    normal_true_perplexities,
    normal_true_perplexities_by_question,
    other_authors_of,
    rate_stats,
    rerank_groups,
    variant_authors,
)

AGGREGATED = "aggregated"  # Table 3: the mean of the per-author cells
PROMPT_LABELS = {"normal": "Normal Setting", "rag": "RAG Setting"}
PM = "±"
NAN2 = (math.nan, math.nan)
HUMAN_KEY = (-2, HUMAN)  # Table 1's human row


# --------------------------------------------------------------------------
# intervals
# --------------------------------------------------------------------------
class Intervals:
    """The 95% intervals of a report's tables, from the per-unit records
    (:func:`authbench.studies.selfpref.rows.unit_frames`, read back from the
    report's parquet files), questions resampled as clusters; ``tags``:
    Table 3's ``°`` (a rate not distinguishable from 50%), keyed
    ``(evaluator, other author, metric)``. A builder given none shows no
    intervals."""

    def __init__(self, units, spec: IntervalSpec, tags=None):
        self.units, self.spec, self.tags = units, spec, dict(tags or {})

    def _sub(self, name: str, where: Mapping, col: str):
        df = self.units[name]
        for c, v in where.items():
            df = df[df[c] == v]
        return df[df[col].notna()]

    def mean(self, name: str, where: Mapping, col: str, scale: float = 1.0) -> tuple[float, float]:
        sub = self._sub(name, where, col)
        lo, hi = mean_interval(sub[col].to_numpy(dtype=float), self.spec, (name, col, *where.items()),
                               clusters=sub["qid"].tolist())
        return shown_interval(lo, hi, scale)

    def average(self, name: str, wheres: Sequence[Mapping], col: str, scale: float = 1.0,
                weights: Sequence[float] | None = None) -> tuple[float, float]:
        """Of the (weighted) mean of the groups' means (groups without units left out)."""
        subs = [(self._sub(name, w, col), x) for w, x in zip(wheres, weights or [1.0] * len(wheres))]
        subs = [(sub, x) for sub, x in subs if len(sub)]
        if not subs:
            return NAN2
        lo, hi = groups_interval([(sub[col].to_numpy(dtype=float), sub["qid"].tolist()) for sub, _ in subs],
                                 self.spec, (name, col, "average", *(tuple(w.items()) for w in wheres)),
                                 [x for _, x in subs])
        return shown_interval(lo, hi, scale)

    def difference(self, name: str, a: Mapping, b: Mapping, col: str) -> tuple[float, float]:
        sa, sb = self._sub(name, a, col), self._sub(name, b, col)
        lo, hi = difference_interval((sa[col].to_numpy(dtype=float), sa["qid"].tolist()),
                                     (sb[col].to_numpy(dtype=float), sb["qid"].tolist()), self.spec,
                                     (name, col, "difference", *a.items(), "vs", *b.items()))
        return shown_interval(lo, hi)

    def words(self, unit: str = "questions") -> str:
        return interval_words(self.spec, unit, clusters=True)


def _finish(table: TableSpec, iv: Intervals | None) -> TableSpec:
    """The blank-interval sentence of the caption's note (fewer than ``min_units`` questions)."""
    return table if iv is None else with_blank_note(table, iv.spec, "questions")


def _with(iv: Intervals | None, get):
    """A column's interval getter (none without intervals)."""
    return None if iv is None else get


# --------------------------------------------------------------------------
# cell text
# --------------------------------------------------------------------------
def number_text(x: float, nd: int) -> str:
    """Plain (md) text of a number: ``–`` when missing, en dash as minus (as
    :func:`authbench.render.tables.format_cell`)."""
    if x is None or not math.isfinite(x):
        return MISSING
    r = round_half_up(x, nd)
    text = f"{abs(r):.{nd}f}"
    return f"{MISSING}{text}" if r < 0 else text


def _signed(x: float, nd: int = 2) -> str:
    if x is None or not math.isfinite(x):
        return MISSING
    r = round_half_up(x, nd)
    text = f"{abs(r):.{nd}f}"
    return f"+{text}" if r > 0 else f"{MISSING}{text}" if r < 0 else text


def _pm(mean: float, std: float, nd: int = 2) -> str:
    if not math.isfinite(mean):
        return MISSING
    if not math.isfinite(std):
        return number_text(mean, nd)
    return f"{number_text(mean, nd)}{PM}{number_text(std, nd)}"


# --------------------------------------------------------------------------
# Table 2 and Tables 6-9: reranking scores
# --------------------------------------------------------------------------
def _failure_note(groups: dict, evaluators: list[str]) -> str:
    parts = []
    for ev in evaluators:
        fails = sum(g.failures for k, g in groups.items() if k[0] == ev and k[2] == NORMAL)
        total = fails + sum(len(g.scores) for k, g in groups.items() if k[0] == ev and k[2] == NORMAL)
        parts.append(f"{ev} {fails}/{total}")
    return ("Unparsed scores (excluded): " + "; ".join(parts) + ".") if parts else ""


def _scores_at(ev, prompt, factual, author) -> dict:
    return {"evaluator": ev, "prompt": prompt, "variant": NORMAL, "factual": factual, "author": author}


def table2(rows, self_map: Mapping[str, str], iv: Intervals | None = None,
           significance: str = "paired") -> TableSpec:
    """Table 2: relevance scores on human-written vs. model-written passages,
    normal and RAG prompts (``normal`` variant). See the module docstring for
    the layout: rows (evaluator, model author), self author first. With
    ``iv`` every mean and difference has its interval (the difference's:
    both samples' questions resampled together). ``†`` on a difference:
    ``significance`` (config ``selfpref.significance``, :class:`~authbench.stats.Significance`)
    of the human TRUE scores against the model's, per question, p < 0.05."""
    groups, evaluators, authors = rerank_groups(rows)
    sig = Significance(significance)
    for ev in evaluators:
        if ev not in (self_map or {}):
            raise InputError(f"table2: evaluator {ev!r} has no self author in self_map {dict(self_map or {})}")

    def scores(ev, prompt, factual, author) -> np.ndarray:
        g = groups.get((ev, prompt, NORMAL, factual, author))
        return np.asarray(g.scores if g else [], dtype=float)

    def by_question(ev, prompt, factual, author) -> dict:
        g = groups.get((ev, prompt, NORMAL, factual, author))
        return g.by_question() if g else {}

    row_keys, row_labels = [], []
    for ev in evaluators:
        own = self_map[ev]
        scored = [a for a in authors if a != HUMAN and any(k[0] == ev and k[4] == a for k in groups)]
        for author in [own] + [a for a in scored if a != own]:
            row_keys.append((ev, author))
            row_labels.append((ev, f"{author} (self)" if author == own else author))

    cols: list[Column] = []
    for prompt in PROMPTS:
        setting = PROMPT_LABELS[prompt]

        def human(key, p=prompt):
            x = scores(key[0], p, True, HUMAN)
            return round_half_up(mean_or_nan(x), 2), _pm(mean_or_nan(x), sample_std(x))

        cols.append(Column((setting, "Human", "TRUE"), TEXT, human, interval=_with(
            iv, lambda k, p=prompt: iv.mean("rerank", _scores_at(k[0], p, True, HUMAN), "score"))))
        for factual, lab in ((True, "TRUE"), (False, "FALSE")):
            def model(key, p=prompt, f=factual):
                x = scores(key[0], p, f, key[1])
                return round_half_up(mean_or_nan(x), 2), _pm(mean_or_nan(x), sample_std(x))

            cols.append(Column((setting, "Model", lab), TEXT, model, interval=_with(
                iv, lambda k, p=prompt, f=factual: iv.mean("rerank", _scores_at(k[0], p, f, k[1]), "score"))))
        for factual, lab in ((True, "TRUE"), (False, "FALSE")):
            def diff(key, p=prompt, f=factual):
                h, m = scores(key[0], p, True, HUMAN), scores(key[0], p, f, key[1])
                d = mean_or_nan(h) - mean_or_nan(m)
                pv = (sig.p(by_question(key[0], p, True, HUMAN), by_question(key[0], p, f, key[1]))
                      if math.isfinite(d) else math.nan)
                return round_half_up(d, 2), (_signed(d) + mark(pv)) if math.isfinite(d) else MISSING

            cols.append(Column((setting, "Diff (H − M)", lab), TEXT, diff, interval=_with(
                iv, lambda k, p=prompt, f=factual: iv.difference(
                    "rerank", _scores_at(k[0], p, True, HUMAN), _scores_at(k[0], p, f, k[1]), "score"))))
    caption = (
        "Relevance scores (1–5, mean ± std) on human-written (TRUE) and model-generated passages "
        "under the normal and RAG prompts. Diff = Human − Model: human TRUE vs. model TRUE, and "
        f"human TRUE vs. model FALSE. {DAGGER} p < 0.05 ({{test}}). Rows marked (self): the "
        "evaluator's own passages." + (iv.words() if iv else "")
    )
    table = build_table(row_keys, row_labels, ["Evaluator", "Model"], cols, note=_failure_note(groups, evaluators))
    table.caption = caption.replace("{test}", sig.words())  # the cells are built: the dropped questions counted
    return _finish(table, iv)


_RAW_TABLES = (("normal", True), ("normal", False), ("rag", True), ("rag", False))


def raw_score_tables(rows, iv: Intervals | None = None) -> dict[str, TableSpec]:
    """Tables 6-9: mean ± std score per evaluator (rows) and author (columns,
    human first), ``normal`` variant, each mean with its interval given
    ``iv``. Keys ``normal_true``, ``normal_false``, ``rag_true``, ``rag_false``."""
    groups, evaluators, authors = rerank_groups(rows)
    out = {}
    for prompt, factual in _RAW_TABLES:
        fac = "TRUE" if factual else "FALSE"
        head = f"{PROMPT_LABELS[prompt]} & {fac} passages"
        cols = []
        for author in authors:
            def cell(key, a=author, p=prompt, f=factual):
                g = groups.get((key[0], p, NORMAL, f, a))
                x = np.asarray(g.scores if g else [], dtype=float)
                return round_half_up(mean_or_nan(x), 2), _pm(mean_or_nan(x), sample_std(x))

            cols.append(Column((head, "Human" if author == HUMAN else author), TEXT, cell, interval=_with(
                iv, lambda k, a=author, p=prompt, f=factual: iv.mean("rerank", _scores_at(k[0], p, f, a), "score"))))
        caption = (f"{PROMPT_LABELS[prompt]} scores (mean ± std) for {fac} passages, per evaluator and author."
                   + (iv.words() if iv else ""))
        out[f"{prompt}_{fac.lower()}"] = _finish(build_table(
            [(ev,) for ev in evaluators], [(ev,) for ev in evaluators], ["Evaluator"], cols, caption=caption), iv)
    return out


# --------------------------------------------------------------------------
# Table 3: preference rates
# --------------------------------------------------------------------------
def _pct_cell(v: float) -> tuple[float, str]:
    r = round_half_up(v, 1)
    return r, number_text(r, 1)


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
            cols.append(Column((head, lab), TEXT, lambda k, o=other, kk=key: _pct_cell(get(k[0], o, kk)),
                               interval=_with(iv, lambda k, o=other, kk=key: interval(k[0], o, kk)),
                               tag=_with(iv, lambda k, o=other, kk=key: iv.tags.get((k[0], o, kk), ""))))
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
    return _finish(build_table(keys, keys, ["Evaluator"], cols, caption=caption, mark_rule=lambda v: v > 50.0), iv)


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
    cols = [Column(("Self (%)", c), TEXT, lambda k, c=c: _pct_cell(stat(k, c, "self_pref")),
                   interval=_with(iv, lambda k, c=c: interval(k, c, "self_chosen"))) for c in combos]
    cols.append(Column(("Factual (%)", "TF+FT"), TEXT, lambda k: _pct_cell(stat(k, ALL, "factual_pref")),
                       interval=_with(iv, lambda k: interval(k, ALL, "true_chosen"))))
    cols += [Column(("Accuracy (%)", c), TEXT, lambda k, c=c: _pct_cell(stat(k, c, "accuracy")),
                    interval=_with(iv, lambda k, c=c: interval(k, c, "correct"))) for c in combos]
    cols.append(Column(("n", "ok"), TEXT, lambda k: _count(stat(k, ALL, "n_ok"))))
    cols.append(Column(("n", "graded"), TEXT, lambda k: _count(stat(k, ALL, "n_graded"))))
    cols.append(Column(("n", "not ok"), TEXT, lambda k: _count(stat(k, ALL, "not_ok"))))
    caption = (
        "Self preference (%) by the evaluator's prior knowledge of the question (no / partial / full: "
        "0, 1-4, 5 correct answers out of 5) and the factuality of the (self, other) passages; Factual = "
        "true passage chosen among asymmetric pairs; Accuracy = the evaluator's answer matches the gold "
        "answer (the authors' check), among the ok comparisons (graded: those with a known gold)."
        + (iv.words() if iv else "")
    )
    return _finish(build_table(keys, keys, ["Evaluator", "Knowledge"], cols, caption=caption), iv)


def _count(n: int) -> tuple[float, str]:
    return float(n), str(int(n))


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
        Column((head,), TEXT, lambda k: cell(k, "self_pref", _pct_cell),
               interval=_with(iv, lambda k: interval(k, "self_chosen"))),
        Column(("Order (%)",), TEXT, lambda k: cell(k, "order_pref", _pct_cell),
               interval=_with(iv, lambda k: interval(k, "first"))),
        Column(("n",), TEXT, lambda k: cell(k, "n_ok", _count)),
        Column(("not ok",), TEXT, lambda k: cell(k, "not_ok", _count)),
    ]
    labels = [(ev, "Human" if other == HUMAN else other) for ev, other in keys]
    note = "; ".join(f"{ev} (self {own}): no {variant} passage of {own} distinct from its other variants is left "
                     "after the import (a copy of another variant is dropped as duplicate_variant: drops.tsv, "
                     "import log)" for ev, own in missing)
    return _finish(build_table(keys, labels, ["Evaluator", "Versus"], cols,
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
        cols.append(Column(("Knowledge Level", lab), TEXT, lambda k, g=get: _pct_cell(g(k)),
                           interval=_with(iv, lambda k, c=cls: interval("knowledge", c, k, 100.0, by="knowledge"))))
    cols.append(Column(("Knowledge Level", "n"), TEXT,
                       lambda k: (_count(sum(classes[row_of(k)[1]].values()))
                                  if k[0] >= 0 and row_of(k)[1] in classes else (math.nan, MISSING))))
    get_length = column_value(lambda r: length(r[2]))
    cols.append(Column(("Passage Statistics", "Average Length"), TEXT,
                       lambda k: (round_half_up(get_length(k), 2), number_text(get_length(k), 2)),
                       interval=_with(iv, lambda k: interval("passages", "words", k, where=normal_true))))
    cols.append(Column(("Passage Statistics", "Perplexity"), TEXT, perplexity,
                       interval=_with(iv, lambda k: interval("perplexity", "perplexity", k, where=normal_true))))
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
    return _finish(table, iv)


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
            cells[key] = {"stat": (round_half_up(pr["diff"], 2), _signed(pr["diff"])),
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


