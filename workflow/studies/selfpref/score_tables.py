"""The self-preference study's reranking-score tables (Chen et al.): Table 2
(:func:`table2`: human vs. model passages) and Tables 6-9 (Appendix C,
:func:`raw_score_tables`: every author's mean score), built on
:mod:`authbench.studies.selfpref.table_common`.

Layout of **Table 2** (the paper's, generalised to several model authors):
rows are (evaluator, model author), the evaluator's self author first and
labelled ``"<author> (self)"`` (these rows are the paper's Table 2), then
every other non-human author the evaluator scored.  Per setting (Normal,
RAG): ``Human`` (human TRUE passages), ``Model`` TRUE and FALSE, and ``Diff
(H − M)`` TRUE and FALSE.  As in the paper's numbers (3.85 − 4.07 = −0.22,
3.85 − 3.99 = −0.14; Section 4.1.2), *both* differences use the human TRUE
passages: the FALSE difference is human TRUE − model FALSE.  ``†`` on a
difference when the configured test (``selfpref.significance``: paired over
the questions scored on both sides by default, or Welch) of the same two
score samples gives p < 0.05; the caption names the test and counts the
questions a paired test dropped.  Differences come from the unrounded means.
Tables 2 and 6-9 use the ``normal`` variant only.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
from authbench.records import InputError
from authbench.render.formatting import MISSING, TEXT, round_half_up
from authbench.render.tables import Column, TableSpec, build_table
from authbench.stats import DAGGER, Significance, mark, mean_or_nan, sample_std
from authbench.studies.selfpref.rows import HUMAN, NORMAL, PROMPTS, rerank_groups
from authbench.studies.selfpref.table_common import (PROMPT_LABELS, Intervals, finished, if_intervals, pm_text,
                                                     signed_text)


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
        heading = PROMPT_LABELS[prompt]

        def human(key, p=prompt):
            x = scores(key[0], p, True, HUMAN)
            return round_half_up(mean_or_nan(x), 2), pm_text(mean_or_nan(x), sample_std(x))

        cols.append(Column((heading, "Human", "TRUE"), TEXT, human, interval=if_intervals(
            iv, lambda k, p=prompt: iv.mean("rerank", _scores_at(k[0], p, True, HUMAN), "score"))))
        for factual, lab in ((True, "TRUE"), (False, "FALSE")):
            def model(key, p=prompt, f=factual):
                x = scores(key[0], p, f, key[1])
                return round_half_up(mean_or_nan(x), 2), pm_text(mean_or_nan(x), sample_std(x))

            cols.append(Column((heading, "Model", lab), TEXT, model, interval=if_intervals(
                iv, lambda k, p=prompt, f=factual: iv.mean("rerank", _scores_at(k[0], p, f, k[1]), "score"))))
        for factual, lab in ((True, "TRUE"), (False, "FALSE")):
            def diff(key, p=prompt, f=factual):
                h, m = scores(key[0], p, True, HUMAN), scores(key[0], p, f, key[1])
                d = mean_or_nan(h) - mean_or_nan(m)
                pv = (sig.p(by_question(key[0], p, True, HUMAN), by_question(key[0], p, f, key[1]))
                      if math.isfinite(d) else math.nan)
                return round_half_up(d, 2), (signed_text(d) + mark(pv)) if math.isfinite(d) else MISSING

            cols.append(Column((heading, "Diff (H − M)", lab), TEXT, diff, interval=if_intervals(
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
    return finished(table, iv)


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
                return round_half_up(mean_or_nan(x), 2), pm_text(mean_or_nan(x), sample_std(x))

            cols.append(Column((head, "Human" if author == HUMAN else author), TEXT, cell, interval=if_intervals(
                iv, lambda k, a=author, p=prompt, f=factual: iv.mean("rerank", _scores_at(k[0], p, f, a), "score"))))
        caption = (f"{PROMPT_LABELS[prompt]} scores (mean ± std) for {fac} passages, per evaluator and author."
                   + (iv.words() if iv else ""))
        out[f"{prompt}_{fac.lower()}"] = finished(build_table(
            [(ev,) for ev in evaluators], [(ev,) for ev in evaluators], ["Evaluator"], cols, caption=caption), iv)
    return out
