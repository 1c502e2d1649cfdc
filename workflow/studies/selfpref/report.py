"""Statistics, tables and figures of the RAG self-preference study (Chen et al.):
Tables 1, 2, 3, 4-5 (Appendix A), 6-9 (Appendix C), Figure 3 and the
knowledge breakdown of Section 4.2.3.

Inputs are lists of dict rows (the shapes of the shared spec):

* rerank judgments ``{"evaluator", "pid", "qid", "author", "variant", "factual",
  "prompt": "normal"|"rag", "score": 1..5 | None, "status"}``; ``evaluator`` is
  added by the caller; an optional ``tries`` (default 1) counts the requests
  sent for the row, retries included (both kinds of judgment rows), summed
  into the ``tries`` column of ``rerank_summary.tsv`` and ``rates.tsv``;
* generation judgments ``{"evaluator", "self_author", "other_author",
  "self_factual", "other_factual", "order": "self_first"|"other_first",
  "variant", "chosen": "self"|"other"|None, "status", "knowledge"}``;
* knowledge levels ``{"qid", "level": 0..5, "class": "no"|"partial"|"full"}``
  per author (``class`` is derived from ``level`` when absent: 0 no, 5 full,
  else partial, i.e. five tries);
* perplexity rows ``{"pid", "author", "variant", "factual", "perplexity"}`` and
  passages ``{"pid", "author", "variant", "factual", "text"}``.

A row that is not a mapping, lacks a field, or has a value of the wrong kind
raises :class:`~authbench.records.InputError` naming the input, the row
(1-based) and the field.  ``variant`` defaults to ``normal`` when absent.

Policies
--------
* **Scores.** A rerank row whose ``score`` is ``None`` is a parse failure: it
  is counted and left out of every mean, std and test.  ``std`` is the sample
  std (ddof=1); fewer than two scores give NaN.  Tables 2 and 6-9 use the
  ``normal`` variant only.
* **Welch.** :func:`welch` is ``scipy.stats.ttest_ind(equal_var=False)`` on the
  finite values; fewer than two per side gives ``(nan, nan)`` (two constant
  samples give scipy's answer: NaN when equal, p = 0 when they differ).  ``†`` marks
  ``p < 0.05`` (:func:`mark`); NaN is never marked.
* **Table 2** (paper layout, generalised to several model authors): rows are
  (evaluator, model author), the evaluator's self author first and labelled
  ``"<author> (self)"`` (these rows are the paper's Table 2), then every other
  non-human author the evaluator scored.  Per setting (Normal, RAG): ``Human``
  (human TRUE passages), ``Model`` TRUE and FALSE, and ``Diff (H − M)`` TRUE
  and FALSE.  As in the paper's numbers (3.85 − 4.07 = −0.22, 3.85 − 3.99 =
  −0.14; Section 4.1.2), *both* differences use the human TRUE passages: the
  FALSE difference is human TRUE − model FALSE.  ``†`` on a difference when
  Welch's p of the same two score samples is < 0.05.  Differences come from
  the unrounded means.
* **Preference rates** (Table 3's caption): over the ``ok`` rows (status
  ``ok`` and a choice) — *self* = share choosing the self passage, *order* =
  share choosing the passage shown first; *factual* = share choosing the true
  passage among the ``ok`` factuality-asymmetric rows (TF, FT).  A row with
  status ``ok`` but no choice counts as not ok (``no_choice``).  Rates are
  percentages; an empty denominator gives NaN (``–``).  ``all`` pools every
  other author (the rate over all comparisons).  Table 3, Figure 3 and the
  knowledge breakdown use the ``normal`` variant.
* **Answer accuracy** (Section 4.2.3; knowledge breakdown and ``rates.tsv``'s
  ``n_graded`` / ``correct`` / ``accuracy``): among the ``ok`` rows whose
  question has a known gold (``answer_in`` of its true passages,
  :func:`gold_answers`) and that carry an ``answer``, the share whose answer
  matches the gold (:func:`authbench.studies.selfpref.answers.answer_matches`,
  the authors' ``check_bag_of_words``).
* **Table 3**: rows evaluator (plus ``Average``, the mean of the evaluator
  rows, when there are two or more), columns other author × Self / Order /
  Factual, ``Aggregated`` and ``Pooled`` (+ its ``n``); one decimal.
  ``Aggregated`` is the paper's: the unweighted mean of the evaluator's
  per-author cells, each metric apart (every one of the paper's 15 Aggregated
  triples is the mean of its five per-author cells; we average the unrounded
  rates, the paper its rounded integer cells, so the two may differ by < 0.5).
  ``Pooled`` is the rate over all of the evaluator's comparisons (``all``),
  ``n`` its ok comparisons.  The caption's rule "values greater
  than 50% are bold" is implemented as mark ``"best"`` on every displayed
  rate > 50.0 (no best/second-best ranking: ``highlight_groups`` is empty;
  ``n`` carries no value and is never bold).
* **Tables 4-5** (writing style): generation rows of variant ``qa`` / ``long``
  with both passages true (the paper restricts both to true answers).  Such a
  row is read as: the *self* passage is the styled one (Gen-by-QA, or long)
  and the other passage is a normal one (as ``study.comparisons`` builds
  them: self ``qa`` vs human, self ``long`` vs ``<self>:normal``), so the
  style preference is the share of ``ok`` rows choosing ``self``.  Rows
  (evaluator, versus = other author); columns preference (%), the order
  preference, the ``ok`` comparisons and the not-ok rows.  An evaluator
  whose self author has no passage of the variant among the passages while
  another author has (the import drops a variant identical to another as
  ``duplicate_variant``: the release's ``llama_qa`` is ``llama_long``) gets a
  row reading "no distinct Gen-by-QA passages" (or long) and a note, never a
  number.
* **Table 1**: rows = authors with knowledge levels (in the given order), then
  other non-human passage / perplexity authors, ``Average`` (mean of the model
  rows, when two or more) and ``Human``.  Knowledge % per class over the
  author's level rows; Average Length = mean word count (``str.split``) of the
  author's ``normal`` TRUE passages; Perplexity = mean over the author's
  ``normal`` TRUE perplexity rows (the same passages), ``†`` when Welch's test
  against the human ones gives p < 0.05.
* **Perplexity tests** (``table_perplexity_anova``; the authors' ``anova.py``):
  over the ``normal`` TRUE perplexity rows of every author with at least two
  finite values (human first, then in order of appearance — the paper's
  human / GPT / Llama), the one-way ANOVA (``scipy.stats.f_oneway``: F with
  its degrees of freedom, p) and Tukey's HSD for every pair
  (``scipy.stats.tukey_hsd``, the same test as statsmodels'
  ``pairwise_tukeyhsd`` the authors used: mean difference A − B, its 95%
  family-wise interval, the adjusted p), with Welch's p of the same pair beside
  it (Table 1's test, unadjusted).  ``†``: p < 0.05.  Fewer than two such
  authors give the placeholder row.
* **Empty input** never fails: a table without rows gets one placeholder row
  of ``–``, and the figure a "no data" panel, so every declared file exists.

Rendering: the tables are built with :func:`authbench.render.tables.build_table`;
the ``TableSpec``'s ``values`` hold the primary number of each
cell (mean, difference or rate, rounded as shown) and ``cells`` the displayed
text with ``±`` and ``†``; every column is of kind
:data:`authbench.render.tables.TEXT`, so :func:`authbench.render.tables.write_table` writes
``.csv`` (the cell text; missing empty, ASCII minus), ``.md`` and ``.tex``
from the text cells (``marks`` "best" bold), like every other table.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from authbench.errors import excerpt  # noqa: E402
from authbench.records import InputError, write_tsv  # noqa: E402
from authbench.render.figures import STYLE_RC, new_figure, save_figure  # noqa: E402
from authbench.render.catalog import contents_md, plan, write_tables  # noqa: E402
from authbench.render.tables import MISSING, TEXT, Column, TableSpec, build_table, round_half_up  # noqa: E402
from authbench.studies.selfpref.outputs import SELFPREF  # noqa: E402
from scipy import stats  # noqa: E402

__all__ = [
    "COMBOS",
    "RATE_COLUMNS",
    "RERANK_SUMMARY_COLUMNS",
    "fig3_heatmaps",
    "gold_answers",
    "knowledge_breakdown",
    "mark",
    "perplexity_anova",
    "perplexity_anova_table",
    "preference_rates",
    "rates_long",
    "raw_score_tables",
    "rerank_summary",
    "style_tables",
    "table1",
    "table2",
    "table3",
    "welch",
    "write_selfpref_report",
]

HUMAN = "human"
ALL = "all"
AGGREGATED = "aggregated"  # Table 3: the mean of the per-author cells
NORMAL = "normal"
PROMPTS = ("normal", "rag")
PROMPT_LABELS = {"normal": "Normal Setting", "rag": "RAG Setting"}
VARIANT_ORDER = ("normal", "long", "qa")
KNOWLEDGE = ("no", "partial", "full")
UNKNOWN = "unknown"
ORDERS = ("self_first", "other_first")
CHOICES = ("self", "other")
DAGGER = "†"
PM = "±"
ALPHA = 0.05
# (label, self_factual, other_factual), the paper's order TT, TF, FT, FF
COMBOS = (("TT", True, True), ("TF", True, False), ("FT", False, True), ("FF", False, False))
_COMBO_OF = {(s, o): lab for lab, s, o in COMBOS}

RERANK_SUMMARY_COLUMNS = (
    "evaluator", "prompt", "variant", "factual", "author", "n_rows", "n", "failures", "mean", "std", "tries",
)
RATE_COLUMNS = (
    "variant", "evaluator", "self_author", "other_author", "factuality", "knowledge",
    "n_rows", "n_ok", "self_chosen", "self_pref", "first_chosen", "order_pref",
    "n_asym", "true_chosen", "factual_pref", "n_graded", "correct", "accuracy", "not_ok", "not_ok_by_status", "tries",
)


# --------------------------------------------------------------------------
# statistics helpers
# --------------------------------------------------------------------------
def _finite(values: Iterable) -> np.ndarray:
    out = []
    for v in values:
        if v is None or isinstance(v, bool):
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            out.append(f)
    return np.asarray(out, dtype=float)


def welch(a: Iterable[float], b: Iterable[float]) -> tuple[float, float]:
    """Welch's t-test ``(t, p)`` of ``a`` vs ``b`` (two-sided), on the finite
    values; ``(nan, nan)`` when either side has fewer than two."""
    x, y = _finite(a), _finite(b)
    if len(x) < 2 or len(y) < 2:
        return math.nan, math.nan
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.ttest_ind(x, y, equal_var=False)
    return float(res.statistic), float(res.pvalue)


def mark(p: float, alpha: float = ALPHA) -> str:
    """``"†"`` when ``p < alpha`` (NaN / None: ``""``)."""
    try:
        pf = float(p)
    except (TypeError, ValueError):
        return ""
    return DAGGER if math.isfinite(pf) and pf < alpha else ""


def _mean(x: np.ndarray) -> float:
    return float(np.mean(x)) if len(x) else math.nan


def _std(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1)) if len(x) >= 2 else math.nan


def _pct(k: int, n: int) -> float:
    return k * 100.0 / n if n else math.nan


def _fmt(x: float, nd: int) -> str:
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
    return _fmt(mean, nd) if not math.isfinite(std) else f"{_fmt(mean, nd)}{PM}{_fmt(std, nd)}"


def _author_order(authors: Iterable[str]) -> list[str]:
    seen = list(dict.fromkeys(authors))
    return ([HUMAN] if HUMAN in seen else []) + [a for a in seen if a != HUMAN]


# --------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------
def _row(rows, what: str):
    if rows is None:
        return
    for i, r in enumerate(rows, 1):
        if not isinstance(r, Mapping):
            raise InputError(f"{what}: row {i}: expected a mapping (dict), got {type(r).__name__}")
        yield i, r


def _field(r: Mapping, key: str, what: str, i: int):
    if key not in r:
        raise InputError(f"{what}: row {i}: missing field {key!r}")
    return r[key]


def _str(r: Mapping, key: str, what: str, i: int, allowed: Sequence[str] | None = None) -> str:
    v = _field(r, key, what, i)
    if not isinstance(v, str) or not v:
        raise InputError(f"{what}: row {i}: field {key!r} must be a non-empty string, got {excerpt(v)}")
    if allowed is not None and v not in allowed:
        raise InputError(f"{what}: row {i}: field {key!r} is {excerpt(v)}; expected one of {list(allowed)}")
    return v


def _bool(r: Mapping, key: str, what: str, i: int) -> bool:
    v = _field(r, key, what, i)
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    if isinstance(v, (int, np.integer)) and v in (0, 1):
        return bool(v)
    raise InputError(f"{what}: row {i}: field {key!r} must be true or false, got {excerpt(v)}")


def _tries(r: Mapping, what: str, i: int) -> int:
    """A judgment row's ``tries`` (requests sent for it, retries included);
    1 when absent (rows written before retries existed)."""
    v = r.get("tries", 1)
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise InputError(f"{what}: row {i}: field 'tries' is {excerpt(v)}; expected an integer >= 1")
    return v


def _variant(r: Mapping, what: str, i: int) -> str:
    v = r.get("variant", NORMAL)
    if v is None:
        return NORMAL
    if not isinstance(v, str) or not v:
        raise InputError(f"{what}: row {i}: field 'variant' must be a string, got {excerpt(v)}")
    return v


def _number(r: Mapping, key: str, what: str, i: int, nullable: bool = True) -> float | None:
    v = _field(r, key, what, i)
    if v is None and nullable:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise InputError(f"{what}: row {i}: field {key!r} must be a number{' or null' if nullable else ''}, got {excerpt(v)}")
    return float(v)


# --------------------------------------------------------------------------
# pointwise reranking: summary, Table 2, Tables 6-9
# --------------------------------------------------------------------------
@dataclass
class _Scores:
    scores: list
    failures: int = 0
    tries: int = 0  # engine requests over the group's rows (retries included)


def _rerank_groups(rows, what: str = "rerank judgments") -> tuple[dict, list[str], list[str]]:
    """{(evaluator, prompt, variant, factual, author): _Scores}, evaluators and
    authors in order of appearance."""
    groups: dict[tuple, _Scores] = {}
    evaluators, authors = [], []
    for i, r in _row(rows, what):
        ev = _str(r, "evaluator", what, i)
        author = _str(r, "author", what, i)
        prompt = _str(r, "prompt", what, i, PROMPTS)
        factual = _bool(r, "factual", what, i)
        variant = _variant(r, what, i)
        score = _number(r, "score", what, i)
        if score is not None and not (math.isfinite(score) and 1 <= score <= 5):
            raise InputError(f"{what}: row {i}: field 'score' is {excerpt(score)}; expected 1..5 or null")
        g = groups.setdefault((ev, prompt, variant, factual, author), _Scores([]))
        g.tries += _tries(r, what, i)
        if score is None:
            g.failures += 1
        else:
            g.scores.append(score)
        evaluators.append(ev)
        authors.append(author)
    return groups, list(dict.fromkeys(evaluators)), _author_order(authors)


def rerank_summary(rows) -> list[dict]:
    """Per evaluator × prompt × variant × factual × author: ``n_rows``, ``n``
    (parsed scores), ``failures`` (score null), ``mean`` and sample ``std`` of
    the parsed scores, ``tries`` (requests sent for the rows, retries
    included: ``n_rows`` when nothing was retried). Order: evaluators and authors (human first) as they
    appear, prompt normal before rag, TRUE before FALSE."""
    groups, evaluators, authors = _rerank_groups(rows)
    variants = [v for v in VARIANT_ORDER if any(k[2] == v for k in groups)]
    variants += sorted({k[2] for k in groups} - set(variants))
    out = []
    for ev in evaluators:
        for prompt in PROMPTS:
            for variant in variants:
                for factual in (True, False):
                    for author in authors:
                        g = groups.get((ev, prompt, variant, factual, author))
                        if g is None:
                            continue
                        x = np.asarray(g.scores, dtype=float)
                        out.append({
                            "evaluator": ev, "prompt": prompt, "variant": variant, "factual": factual,
                            "author": author, "n_rows": len(x) + g.failures, "n": len(x),
                            "failures": g.failures, "mean": _mean(x), "std": _std(x), "tries": g.tries,
                        })
    return out


def _failure_note(groups: dict, evaluators: list[str]) -> str:
    parts = []
    for ev in evaluators:
        fails = sum(g.failures for k, g in groups.items() if k[0] == ev and k[2] == NORMAL)
        total = fails + sum(len(g.scores) for k, g in groups.items() if k[0] == ev and k[2] == NORMAL)
        parts.append(f"{ev} {fails}/{total}")
    return ("Unparsed scores (excluded): " + "; ".join(parts) + ".") if parts else ""


def table2(rows, self_map: Mapping[str, str]) -> TableSpec:
    """Table 2: relevance scores on human-written vs. model-written passages,
    normal and RAG prompts (``normal`` variant). See the module docstring for
    the layout: rows (evaluator, model author), self author first."""
    groups, evaluators, authors = _rerank_groups(rows)
    for ev in evaluators:
        if ev not in (self_map or {}):
            raise InputError(f"table2: evaluator {ev!r} has no self author in self_map {dict(self_map or {})}")

    def scores(ev, prompt, factual, author) -> np.ndarray:
        g = groups.get((ev, prompt, NORMAL, factual, author))
        return np.asarray(g.scores if g else [], dtype=float)

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
            return round_half_up(_mean(x), 2), _pm(_mean(x), _std(x))

        cols.append(Column((setting, "Human", "TRUE"), TEXT, human))
        for factual, lab in ((True, "TRUE"), (False, "FALSE")):
            def model(key, p=prompt, f=factual):
                x = scores(key[0], p, f, key[1])
                return round_half_up(_mean(x), 2), _pm(_mean(x), _std(x))

            cols.append(Column((setting, "Model", lab), TEXT, model))
        for factual, lab in ((True, "TRUE"), (False, "FALSE")):
            def diff(key, p=prompt, f=factual):
                h, m = scores(key[0], p, True, HUMAN), scores(key[0], p, f, key[1])
                d = _mean(h) - _mean(m)
                _, pv = welch(h, m)
                return round_half_up(d, 2), (_signed(d) + mark(pv)) if math.isfinite(d) else MISSING

            cols.append(Column((setting, "Diff (H − M)", lab), TEXT, diff))
    caption = (
        "Relevance scores (1–5, mean ± std) on human-written (TRUE) and model-generated passages "
        "under the normal and RAG prompts. Diff = Human − Model: human TRUE vs. model TRUE, and "
        f"human TRUE vs. model FALSE. {DAGGER} p < 0.05 (Welch's t-test). Rows marked (self): the "
        "evaluator's own passages."
    )
    return build_table(row_keys, row_labels, ["Evaluator", "Model"], cols, caption=caption,
                       note=_failure_note(groups, evaluators))


_RAW_TABLES = (("normal", True), ("normal", False), ("rag", True), ("rag", False))


def raw_score_tables(rows) -> dict[str, TableSpec]:
    """Tables 6-9: mean ± std score per evaluator (rows) and author (columns,
    human first), ``normal`` variant. Keys ``normal_true``, ``normal_false``,
    ``rag_true``, ``rag_false``."""
    groups, evaluators, authors = _rerank_groups(rows)
    out = {}
    for prompt, factual in _RAW_TABLES:
        fac = "TRUE" if factual else "FALSE"
        head = f"{PROMPT_LABELS[prompt]} & {fac} passages"
        cols = []
        for author in authors:
            def cell(key, a=author, p=prompt, f=factual):
                g = groups.get((key[0], p, NORMAL, f, a))
                x = np.asarray(g.scores if g else [], dtype=float)
                return round_half_up(_mean(x), 2), _pm(_mean(x), _std(x))

            cols.append(Column((head, "Human" if author == HUMAN else author), TEXT, cell))
        caption = f"{PROMPT_LABELS[prompt]} scores (mean ± std) for {fac} passages, per evaluator and author."
        out[f"{prompt}_{fac.lower()}"] = build_table([(ev,) for ev in evaluators], [(ev,) for ev in evaluators],
                                                     ["Evaluator"], cols, caption=caption)
    return out


# --------------------------------------------------------------------------
# generation phase: preference rates
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Gen:
    evaluator: str
    self_author: str
    other_author: str
    variant: str
    combo: str
    knowledge: str
    status: str  # "ok" or the reason it is not ok
    chosen: str | None  # for ok rows only
    first: bool | None
    asym: bool
    true_chosen: bool | None
    correct: bool | None = None  # ok rows with a known gold only: the answer matches the gold
    tries: int = 1  # requests sent for this comparison (retries included)


def gold_answers(passages) -> dict[str, str]:
    """qid -> gold answer, read from the ``answer_in`` of the question's true
    passages (every sampled question has them)."""
    gold: dict[str, str] = {}
    for i, r in _row(passages, "passages"):
        if _bool(r, "factual", "passages", i) and isinstance(r.get("answer_in"), str):
            gold.setdefault(str(r.get("qid")), r["answer_in"])
    return gold


def _gen_records(rows, what: str = "generation judgments", gold: Mapping[str, str] | None = None) -> list[_Gen]:
    """The rows as :class:`_Gen`; with ``gold`` (qid -> gold answer) an ok row
    with an ``answer`` is graded (``correct``) by
    :func:`authbench.studies.selfpref.answers.answer_matches`, the authors'
    correctness check."""
    from authbench.studies.selfpref.answers import answer_matches

    out, self_of = [], {}
    for i, r in _row(rows, what):
        ev = _str(r, "evaluator", what, i)
        own = _str(r, "self_author", what, i)
        other = _str(r, "other_author", what, i)
        if self_of.setdefault(ev, own) != own:
            raise InputError(f"{what}: row {i}: evaluator {ev!r} has self_author {own!r} here "
                             f"but {self_of[ev]!r} in an earlier row")
        sf, of = _bool(r, "self_factual", what, i), _bool(r, "other_factual", what, i)
        order = _str(r, "order", what, i, ORDERS)
        variant = _variant(r, what, i)
        chosen = _field(r, "chosen", what, i)
        if chosen is not None and chosen not in CHOICES:
            raise InputError(f"{what}: row {i}: field 'chosen' is {excerpt(chosen)}; expected 'self', 'other' or null")
        status = _str(r, "status", what, i)
        know = r.get("knowledge")
        if know is not None and know not in KNOWLEDGE:
            raise InputError(f"{what}: row {i}: field 'knowledge' is {excerpt(know)}; expected one of {list(KNOWLEDGE)} or null")
        ok = status == "ok" and chosen is not None
        if status == "ok" and chosen is None:
            status = "no_choice"
        asym = sf != of
        first = ((chosen == "self") == (order == "self_first")) if ok else None
        true_chosen = ((chosen == "self") == sf) if ok and asym else None
        truth = (gold or {}).get(str(r.get("qid")))
        answer = r.get("answer")
        correct = answer_matches(answer, truth) if ok and truth is not None and isinstance(answer, str) else None
        out.append(_Gen(ev, own, other, variant, _COMBO_OF[(sf, of)], know or UNKNOWN, status,
                        chosen if ok else None, first, asym, true_chosen, correct, _tries(r, what, i)))
    return out


def _stats(recs: Sequence[_Gen]) -> dict:
    ok = [g for g in recs if g.status == "ok"]
    asym = [g for g in ok if g.asym]
    n_self = sum(g.chosen == "self" for g in ok)
    n_first = sum(bool(g.first) for g in ok)
    n_true = sum(bool(g.true_chosen) for g in asym)
    graded = [g for g in ok if g.correct is not None]
    n_correct = sum(bool(g.correct) for g in graded)
    bad = Counter(g.status for g in recs if g.status != "ok")
    return {
        "n_rows": len(recs), "n_ok": len(ok),
        "self_chosen": n_self, "self_pref": _pct(n_self, len(ok)),
        "first_chosen": n_first, "order_pref": _pct(n_first, len(ok)),
        "n_asym": len(asym), "true_chosen": n_true, "factual_pref": _pct(n_true, len(asym)),
        "n_graded": len(graded), "correct": n_correct, "accuracy": _pct(n_correct, len(graded)),
        "not_ok": sum(bad.values()),
        "not_ok_by_status": ";".join(f"{k}={bad[k]}" for k in sorted(bad)),
        "tries": sum(g.tries for g in recs),
    }


def _evaluators(recs: Sequence[_Gen]) -> list[tuple[str, str]]:
    return list(dict.fromkeys((g.evaluator, g.self_author) for g in recs))


def _others(recs: Sequence[_Gen]) -> list[str]:
    return _author_order(g.other_author for g in recs)


def preference_rates(gen_rows, variant: str = NORMAL) -> list[dict]:
    """Table 3's rates per evaluator × other author, then ``other_author="all"``
    (pooled), over the rows of ``variant`` (``None``: every variant).

    Each dict: ``variant, evaluator, self_author, other_author, factuality
    ("all"), knowledge ("all")``, the counts ``n_rows, n_ok, self_chosen,
    first_chosen, n_asym, true_chosen, not_ok``, ``not_ok_by_status``
    (``"status=count;..."``), ``tries`` (requests sent, retries included) and
    the percentages ``self_pref`` (self_chosen / n_ok), ``order_pref``
    (first_chosen / n_ok), ``factual_pref`` (true_chosen / n_asym).
    """
    recs = [g for g in _gen_records(gen_rows) if variant is None or g.variant == variant]
    out = []
    for ev, own in _evaluators(recs):
        mine = [g for g in recs if g.evaluator == ev]
        for other in _others(mine) + [ALL]:
            sub = mine if other == ALL else [g for g in mine if g.other_author == other]
            out.append({"variant": variant if variant is not None else ALL, "evaluator": ev, "self_author": own,
                        "other_author": other, "factuality": ALL, "knowledge": ALL, **_stats(sub)})
    return out


def rates_long(gen_rows, passages=None) -> list[dict]:
    """Every rate group, for ``rates.tsv``: per variant × evaluator × other
    author (and ``all``) × factuality (``all``, TT, TF, FT, FF) × knowledge
    (``all``, no, partial, full, unknown); groups without rows are left out
    except the ``all``/``all`` ones. With ``passages`` the answers are graded
    against the gold (``n_graded``, ``correct``, ``accuracy``)."""
    recs = _gen_records(gen_rows, gold=gold_answers(passages))
    variants = [v for v in VARIANT_ORDER if any(g.variant == v for g in recs)]
    variants += sorted({g.variant for g in recs} - set(variants))
    out = []
    for variant in variants:
        vrecs = [g for g in recs if g.variant == variant]
        for ev, own in _evaluators(vrecs):
            mine = [g for g in vrecs if g.evaluator == ev]
            for other in _others(mine) + [ALL]:
                sub = mine if other == ALL else [g for g in mine if g.other_author == other]
                for combo in (ALL,) + tuple(c[0] for c in COMBOS):
                    csub = sub if combo == ALL else [g for g in sub if g.combo == combo]
                    for know in (ALL,) + KNOWLEDGE + (UNKNOWN,):
                        ksub = csub if know == ALL else [g for g in csub if g.knowledge == know]
                        if not ksub and (combo != ALL or know != ALL):
                            continue
                        out.append({"variant": variant, "evaluator": ev, "self_author": own, "other_author": other,
                                    "factuality": combo, "knowledge": know, **_stats(ksub)})
    return out


def _pct_cell(v: float) -> tuple[float, str]:
    r = round_half_up(v, 1)
    return r, _fmt(r, 1)


def table3(rates: Sequence[Mapping]) -> TableSpec:
    """Table 3 from :func:`preference_rates`: rows evaluator (+ ``Average``
    when two or more), columns other author × Self / Order / Factual (%),
    ``Aggregated`` = the unweighted mean of the evaluator's per-author cells
    (each metric apart; a cell without a value is skipped), as in the paper,
    and ``Pooled`` = the rate over all of the evaluator's comparisons (the
    ``all`` rows) with its ``n`` (ok comparisons). ``Average`` is the mean of
    the evaluator rows (its ``n`` their sum). Displayed values > 50 are bold
    (never ``n``)."""
    rates = [r for r in (rates or []) if r.get("factuality", ALL) == ALL and r.get("knowledge", ALL) == ALL]
    evaluators = list(dict.fromkeys(str(r["evaluator"]) for r in rates))
    others = _author_order(str(r["other_author"]) for r in rates if r["other_author"] != ALL)
    look = {(str(r["evaluator"]), str(r["other_author"])): r for r in rates}
    avg = len(evaluators) >= 2

    def one(ev, other, key) -> float:
        if other == AGGREGATED:
            vals = _finite(one(ev, o, key) for o in others)
            return float(np.mean(vals)) if len(vals) else math.nan
        r = look.get((ev, other))
        return math.nan if r is None else float(r[key]) if r[key] is not None else math.nan

    def get(ev, other, key) -> float:
        if ev == "Average":
            vals = _finite(one(e, other, key) for e in evaluators)
            return float(np.mean(vals)) if len(vals) else math.nan
        return one(ev, other, key)

    def n_ok(ev) -> tuple[float, str]:
        rows = [look[(e, ALL)] for e in (evaluators if ev == "Average" else [ev]) if (e, ALL) in look]
        return (math.nan, str(sum(int(r["n_ok"]) for r in rows))) if rows else (math.nan, MISSING)

    cols = []
    for other in others + [AGGREGATED, ALL]:
        head = {AGGREGATED: "Aggregated", ALL: "Pooled"}.get(other, "Human" if other == HUMAN else other)
        for key, lab in (("self_pref", "Self"), ("order_pref", "Order"), ("factual_pref", "Factual")):
            cols.append(Column((head, lab), TEXT, lambda k, o=other, kk=key: _pct_cell(get(k[0], o, kk))))
    cols.append(Column(("Pooled", "n"), TEXT, lambda k: n_ok(k[0])))
    keys = [(ev,) for ev in evaluators] + ([("Average",)] if avg else [])
    caption = (
        "Preferences in the generation phase (% of comparisons): Self = the evaluator's own passage chosen "
        "(both orders, all four factuality combinations); Order = the passage shown first chosen; Factual = "
        "the true passage chosen, among factuality-asymmetric pairs. Aggregated: the unweighted mean of the "
        "per-author cells (as in the paper); Pooled: all comparisons of the evaluator together, n = its "
        "comparisons with a choice. Values greater than 50% are marked in bold."
    )
    return build_table(keys, keys, ["Evaluator"], cols, caption=caption, mark_rule=lambda v: v > 50.0)


# --------------------------------------------------------------------------
# Figure 3
# --------------------------------------------------------------------------
def _fig3_data(recs: Sequence[_Gen], ev: str) -> tuple[pd.DataFrame, np.ndarray]:
    mine = [g for g in recs if g.evaluator == ev]
    cols = _others(mine) + [ALL]
    data = np.full((len(COMBOS), len(cols)), np.nan)
    annot = np.full((len(COMBOS), len(cols)), "", dtype=object)
    for i, (combo, sf, of) in enumerate(COMBOS):
        for j, other in enumerate(cols):
            sub = [g for g in mine if g.combo == combo and (other == ALL or g.other_author == other)]
            s = _stats(sub)
            if not s["n_ok"]:
                continue
            data[i, j] = s["self_pref"]
            fac = _fmt(s["factual_pref"], 0) if sf != of else MISSING
            annot[i, j] = f"{_fmt(s['self_pref'], 0)} / {_fmt(s['order_pref'], 0)} / {fac}"
    index = pd.Index([c[0] for c in COMBOS], name="factuality (self, other)")
    columns = pd.Index(["Human" if c == HUMAN else c for c in cols], name="other author")
    return pd.DataFrame(data, index=index, columns=columns), annot


def fig3_heatmaps(gen_rows, path: str | Path) -> Path:
    """Figure 3: one heatmap per evaluator (``normal`` variant); rows the
    factuality combination (self, other) TT / TF / FT / FF, columns the other
    author and ``all``; colour = self preference (%), annotation
    ``self / order / factual`` (factual ``–`` for symmetric rows). Writes a PNG."""
    recs = [g for g in _gen_records(gen_rows) if g.variant == NORMAL]
    evaluators = [ev for ev, _ in _evaluators(recs)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context(STYLE_RC):
        if not evaluators:
            fig = new_figure((4.0, 2.5))
            ax = fig.subplots()
            ax.text(0.5, 0.5, "no generation judgments", ha="center", va="center")
            ax.set_axis_off()
        else:
            selves = dict(_evaluators(recs))
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


# --------------------------------------------------------------------------
# Section 4.2.3: knowledge breakdown
# --------------------------------------------------------------------------
def knowledge_breakdown(gen_rows, passages=None) -> TableSpec:
    """Section 4.2.3: per evaluator × knowledge class (no / partial / full,
    then ``unknown`` when rows lack it), ``normal`` variant: the self
    preference (%) per factuality combination and pooled, the factual
    preference, the answer accuracy (%) per combination and pooled — the
    share of ok comparisons whose answer matches the gold
    (:func:`authbench.studies.selfpref.answers.answer_matches`; gold from the
    true ``passages``; the paper's "65-70%" in the no-knowledge class) — and
    the counts (``graded``: ok rows with an answer and a known gold)."""
    recs = [g for g in _gen_records(gen_rows, gold=gold_answers(passages)) if g.variant == NORMAL]
    keys = []
    for ev, _ in _evaluators(recs):
        present = {g.knowledge for g in recs if g.evaluator == ev}
        keys += [(ev, k) for k in KNOWLEDGE + (UNKNOWN,) if k in present]

    def stat(key, combo, field_):
        sub = [g for g in recs if g.evaluator == key[0] and g.knowledge == key[1]
               and (combo == ALL or g.combo == combo)]
        return _stats(sub)[field_]

    combos = [c[0] for c in COMBOS] + [ALL]
    cols = [Column(("Self (%)", c), TEXT, lambda k, c=c: _pct_cell(stat(k, c, "self_pref"))) for c in combos]
    cols.append(Column(("Factual (%)", "TF+FT"), TEXT, lambda k: _pct_cell(stat(k, ALL, "factual_pref"))))
    cols += [Column(("Accuracy (%)", c), TEXT, lambda k, c=c: _pct_cell(stat(k, c, "accuracy"))) for c in combos]
    cols.append(Column(("n", "ok"), TEXT, lambda k: _count(stat(k, ALL, "n_ok"))))
    cols.append(Column(("n", "graded"), TEXT, lambda k: _count(stat(k, ALL, "n_graded"))))
    cols.append(Column(("n", "not ok"), TEXT, lambda k: _count(stat(k, ALL, "not_ok"))))
    caption = (
        "Self preference (%) by the evaluator's prior knowledge of the question (no / partial / full: "
        "0, 1-4, 5 correct answers out of 5) and the factuality of the (self, other) passages; Factual = "
        "true passage chosen among asymmetric pairs; Accuracy = the evaluator's answer matches the gold "
        "answer (the authors' check), among the ok comparisons (graded: those with a known gold)."
    )
    return build_table(keys, keys, ["Evaluator", "Knowledge"], cols, caption=caption)


def _count(n: int) -> tuple[float, str]:
    return float(n), str(int(n))


# --------------------------------------------------------------------------
# Appendix A: Tables 4 and 5
# --------------------------------------------------------------------------
NO_DISTINCT = {"qa": "no distinct Gen-by-QA passages", "long": "no distinct long passages"}


def _style_table(recs: Sequence[_Gen], variant: str, head: str, caption: str,
                 missing: Sequence[tuple[str, str]] = ()) -> TableSpec:
    """``missing``: (evaluator, self author) rows to show as "no distinct ...
    passages" instead of numbers."""
    sub = [g for g in recs if g.variant == variant and g.combo == "TT"]
    keys = [(ev, other) for ev, _ in _evaluators(sub) for other in _others([g for g in sub if g.evaluator == ev])]
    absent = [(ev, HUMAN if variant == "qa" else f"{own}:normal") for ev, own in missing]
    keys += absent

    def stat(key, field_):
        return _stats([g for g in sub if g.evaluator == key[0] and g.other_author == key[1]])[field_]

    def cell(key, field_, fmt):
        if key in absent:
            return (math.nan, NO_DISTINCT[variant]) if field_ == "self_pref" else (math.nan, MISSING)
        return fmt(stat(key, field_))

    cols = [
        Column((head,), TEXT, lambda k: cell(k, "self_pref", _pct_cell)),
        Column(("Order (%)",), TEXT, lambda k: cell(k, "order_pref", _pct_cell)),
        Column(("n",), TEXT, lambda k: cell(k, "n_ok", _count)),
        Column(("not ok",), TEXT, lambda k: cell(k, "not_ok", _count)),
    ]
    labels = [(ev, "Human" if other == HUMAN else other) for ev, other in keys]
    note = "; ".join(f"{ev} (self {own}): no {variant} passage of {own} distinct from its other variants is left "
                     "after the import (a copy of another variant is dropped as duplicate_variant: drops.tsv, "
                     "import log)" for ev, own in missing)
    return build_table(keys, labels, ["Evaluator", "Versus"], cols, caption=caption,
                       note=f"{note}." if note else "")


def _without_variant(recs: Sequence[_Gen], passages, variant: str) -> list[tuple[str, str]]:
    """(evaluator, self author) of the evaluators without ``variant`` rows
    whose self author has no ``variant`` passage in ``passages`` while some
    other author has (i.e. the style data exist, but none of the self's)."""
    what = "passages"
    have = {_str(r, "author", what, i) for i, r in _row(passages, what) if _variant(r, what, i) == variant}
    if not have:
        return []
    done = {g.evaluator for g in recs if g.variant == variant}
    return [(ev, own) for ev, own in _evaluators(recs) if ev not in done and own not in have]


def style_tables(gen_rows, passages=None) -> tuple[TableSpec, TableSpec]:
    """Tables 4 and 5: per evaluator and the passage it was compared with
    (``Versus``: the other author, e.g. ``human`` for Gen-by-QA and
    ``<self>:normal`` for long in the study's style run), the share of ``ok``
    comparisons (both passages true) in which the styled self passage was
    chosen — Gen-by-QA (variant ``qa``) and long (variant ``long``). With
    ``passages`` (the study's passages), an evaluator whose self author has no
    passage of the variant while others have (the import dropped its copies
    as ``duplicate_variant``: the release's ``llama_qa`` is ``llama_long``)
    gets a row saying "no distinct Gen-by-QA passages" instead of a number."""
    recs = _gen_records(gen_rows)
    t4 = _style_table(recs, "qa", "Gen-By-QA Preference (%)",
                      "Preference to passages generated from the QA pair (Gen-by-QA) over normal passages, "
                      "true answers only. Order: the passage shown first chosen.",
                      _without_variant(recs, passages, "qa"))
    t5 = _style_table(recs, "long", "Long Passage Preference (%)",
                      "Preference to long passages (≥ 300 words) over normal-length passages, true answers "
                      "only. Order: the passage shown first chosen.",
                      _without_variant(recs, passages, "long"))
    return t4, t5


# --------------------------------------------------------------------------
# Table 1
# --------------------------------------------------------------------------
def _level_class(r: Mapping, what: str, i: int) -> str:
    cls = r.get("class")
    if cls is not None:
        if cls not in KNOWLEDGE:
            raise InputError(f"{what}: row {i}: field 'class' is {excerpt(cls)}; expected one of {list(KNOWLEDGE)}")
        return cls
    level = _number(r, "level", what, i, nullable=False)
    if level not in (0, 1, 2, 3, 4, 5):
        raise InputError(f"{what}: row {i}: field 'level' is {excerpt(level)}; expected 0..5")
    return "no" if level == 0 else "full" if level == 5 else "partial"


def table1(levels_by_author: Mapping[str, Sequence[Mapping]], passages, perplexity_rows,
           perplexity_model: str | None = None) -> TableSpec:
    """Table 1: knowledge levels (%) and passage statistics per author (see the
    module docstring for the rows); ``†``: Welch p < 0.05 against human.
    ``perplexity_model`` names the scoring LM in the caption."""
    classes: dict[str, Counter] = {}
    for author, rows in (levels_by_author or {}).items():
        what = f"knowledge levels ({author})"
        classes[str(author)] = Counter(_level_class(r, what, i) for i, r in _row(rows, what))
    lengths: dict[str, list[int]] = {}
    order = []
    what = "passages"
    for i, r in _row(passages, what):
        author = _str(r, "author", what, i)
        order.append(author)
        if _variant(r, what, i) == NORMAL and _bool(r, "factual", what, i):
            text = _field(r, "text", what, i)
            if not isinstance(text, str):
                raise InputError(f"{what}: row {i}: field 'text' must be a string, got {excerpt(text)}")
            lengths.setdefault(author, []).append(len(text.split()))
    ppl: dict[str, list[float]] = {}
    what = "perplexity rows"
    for i, r in _row(perplexity_rows, what):
        author = _str(r, "author", what, i)
        order.append(author)
        value = _number(r, "perplexity", what, i)
        if _variant(r, what, i) == NORMAL and _bool(r, "factual", what, i) and value is not None:
            ppl.setdefault(author, []).append(value)

    models = list(classes) + [a for a in dict.fromkeys(order) if a != HUMAN and a not in classes]
    human_ppl = ppl.get(HUMAN, [])

    def knowledge(author, cls) -> float:
        c = classes.get(author)
        return _pct(c[cls], sum(c.values())) if c else math.nan

    def length(author) -> float:
        return _mean(np.asarray(lengths.get(author, []), dtype=float))

    def perplexity(author) -> tuple[float, str]:
        x = _finite(ppl.get(author, []))
        if author == "Average":
            means = _finite(_mean(_finite(ppl.get(a, []))) for a in models)
            pooled = _finite(v for a in models for v in ppl.get(a, []))
            m = float(np.mean(means)) if len(means) else math.nan
            p = welch(pooled, human_ppl)[1]
        else:
            m = _mean(x)
            p = welch(x, human_ppl)[1] if author != HUMAN else math.nan
        return round_half_up(m, 2), (_fmt(m, 2) + mark(p)) if math.isfinite(m) else MISSING

    def avg_or(fn: Callable[[str], float], author) -> float:
        if author != "Average":
            return fn(author)
        vals = _finite(fn(a) for a in models)
        return float(np.mean(vals)) if len(vals) else math.nan

    cols = []
    for cls, lab in (("no", "No (%)"), ("partial", "Partial (%)"), ("full", "Full (%)")):
        cols.append(Column(("Knowledge Level", lab), TEXT,
                           lambda a, c=cls: _pct_cell(avg_or(lambda x: knowledge(x, c), a[0]))))
    cols.append(Column(("Knowledge Level", "n"), TEXT,
                       lambda a: _count(sum(classes[a[0]].values())) if a[0] in classes else (math.nan, MISSING)))
    cols.append(Column(("Passage Statistics", "Average Length"), TEXT,
                       lambda a: (round_half_up(avg_or(length, a[0]), 2), _fmt(avg_or(length, a[0]), 2))))
    cols.append(Column(("Passage Statistics", "Perplexity"), TEXT, lambda a: perplexity(a[0])))
    keys = [(a,) for a in models] + ([("Average",)] if len(models) >= 2 else []) + [(HUMAN,)]
    labels = [("Human",) if k == (HUMAN,) else k for k in keys]
    caption = (
        "Knowledge levels (share of questions answered correctly 0, 1-4 and 5 times out of 5) and "
        "statistics of the normal TRUE passages (average length in words, mean perplexity under "
        f"{perplexity_model or 'the configured causal LM'}; the paper used GPT-2) per "
        f"author. {DAGGER} p < 0.05 (Welch's t-test of the perplexities against the human passages)."
    )
    return build_table(keys, labels, ["Model"], cols, caption=caption)


# --------------------------------------------------------------------------
# perplexity: one-way ANOVA and Tukey HSD (the authors' anova.py)
# --------------------------------------------------------------------------
def perplexity_anova(perplexity_rows) -> dict | None:
    """The one-way ANOVA and Tukey HSD over the authors' ``normal`` TRUE
    perplexities (see the module docstring). ``None`` when fewer than two
    authors have two or more finite values; else ``{"groups": [(author, n,
    mean)], "f", "df_between", "df_within", "p", "pairs": [{"a", "b",
    "diff" (mean a − mean b), "low", "high" (95% CI), "p" (Tukey),
    "p_welch"}]}``."""
    values: dict[str, list[float]] = {}
    order = []
    what = "perplexity rows"
    for i, r in _row(perplexity_rows, what):
        author = _str(r, "author", what, i)
        value = _number(r, "perplexity", what, i)
        order.append(author)
        if _variant(r, what, i) == NORMAL and _bool(r, "factual", what, i) and value is not None:
            values.setdefault(author, []).append(value)
    groups = [(a, _finite(values.get(a, []))) for a in _author_order(order)]
    groups = [(a, x) for a, x in groups if len(x) >= 2]
    if len(groups) < 2:
        return None
    samples = [x for _, x in groups]
    n_total = sum(len(x) for x in samples)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        anova = stats.f_oneway(*samples)
        tukey = stats.tukey_hsd(*samples)
        ci = tukey.confidence_interval(confidence_level=0.95)
    pairs = []
    for i, j in itertools.combinations(range(len(groups)), 2):
        pairs.append({"a": groups[i][0], "b": groups[j][0], "diff": float(tukey.statistic[i, j]),
                      "low": float(ci.low[i, j]), "high": float(ci.high[i, j]), "p": float(tukey.pvalue[i, j]),
                      "p_welch": welch(samples[i], samples[j])[1]})
    return {"groups": [(a, len(x), float(np.mean(x))) for a, x in groups], "f": float(anova.statistic),
            "df_between": len(groups) - 1, "df_within": n_total - len(groups), "p": float(anova.pvalue),
            "pairs": pairs}


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
        f_text = f"F({res['df_between']}, {res['df_within']}) = {_fmt(res['f'], 2)}"
        cells[key] = {"stat": (round_half_up(res["f"], 2), f_text), "p": (res["p"], _p_text(res["p"]))}
        for pr in res["pairs"]:
            key = ("Tukey HSD", f"{'Human' if pr['a'] == HUMAN else pr['a']} − {pr['b']}")
            keys.append(key)
            cells[key] = {"stat": (round_half_up(pr["diff"], 2), _signed(pr["diff"])),
                          "ci": (math.nan, f"[{_fmt(pr['low'], 2)}, {_fmt(pr['high'], 2)}]"),
                          "p": (pr["p"], _p_text(pr["p"])), "welch": (pr["p_welch"], _p_text(pr["p_welch"]))}
    none = (math.nan, MISSING)
    cols = [Column(("F / mean difference",), TEXT, lambda k: cells[k].get("stat", none)),
            Column(("95% CI",), TEXT, lambda k: cells[k].get("ci", none)),
            Column(("p",), TEXT, lambda k: cells[k].get("p", none)),
            Column(("p (Welch)",), TEXT, lambda k: cells[k].get("welch", none))]
    groups = "; ".join(f"{'Human' if a == HUMAN else a}: n = {n}, mean {_fmt(m, 2)}" for a, n, m in res["groups"]) \
        if res else ""
    caption = (
        "Perplexity of the normal TRUE passages (under "
        f"{perplexity_model or 'the configured causal LM'}; the paper used GPT-2) across authors: one-way ANOVA "
        "and Tukey's HSD for every pair (mean difference, 95% family-wise interval, adjusted p), as in the "
        f"authors' anova.py; p (Welch) = Table 1's unadjusted Welch t-test of the same pair. {DAGGER} p < 0.05."
    )
    return build_table(keys, keys, ["Test", "Groups"], cols, caption=caption,
                       note=f"Groups: {groups}." if groups else "")


# --------------------------------------------------------------------------
# TSV output
# --------------------------------------------------------------------------
def _tsv_value(v):
    if isinstance(v, bool) or v is None:
        return "" if v is None else str(v).lower()
    if isinstance(v, float):
        return "" if not math.isfinite(v) else f"{v:.6g}" if abs(v) >= 1e6 else repr(round(v, 6))
    return v


def _write_rows(rows: Sequence[Mapping], path: Path, columns: Sequence[str]) -> None:
    write_tsv([{k: _tsv_value(r.get(k)) for k in columns} for r in rows], path, columns)


# --------------------------------------------------------------------------
# everything
# --------------------------------------------------------------------------


@dataclass
class Inputs:
    """What a dataset's report is built from (the ``build`` of each item of
    :data:`~authbench.studies.selfpref.outputs.SELFPREF`); ``prefix`` heads
    every written caption (the dataset)."""

    rerank_rows: list
    gen_rows: list
    knowledge_levels: Mapping[str, Sequence[Mapping]]
    perplexity_rows: list
    passages: list
    self_map: Mapping[str, str]
    perplexity_model: str | None
    prefix: str

    @cached_property
    def raw(self) -> dict[str, TableSpec]:
        return raw_score_tables(self.rerank_rows)

    @cached_property
    def style(self) -> tuple[TableSpec, TableSpec]:
        return style_tables(self.gen_rows, self.passages)


def write_selfpref_report(
    rerank_rows,
    gen_rows,
    knowledge_levels: Mapping[str, Sequence[Mapping]],
    perplexity_rows,
    passages,
    self_map: Mapping[str, str],
    outdir: str | Path,
    dataset: str | None = None,
    perplexity_model: str | None = None,
) -> list[Path]:
    """Write every table of :data:`~authbench.studies.selfpref.outputs.SELFPREF`
    (``tables/<stem>.csv|md|tex``), ``figures/fig3_heatmaps.png``,
    ``rates.tsv`` (:func:`rates_long`), ``rerank_summary.tsv``
    (:func:`rerank_summary`) and ``contents.md`` under ``outdir``; every
    file is written even when inputs are empty. ``dataset`` (e.g. ``nq``) is
    named in the captions, ``perplexity_model`` in Table 1's. Returns the paths."""
    outdir = Path(outdir)
    inputs = Inputs(list(rerank_rows or []), list(gen_rows or []), knowledge_levels or {},
                    list(perplexity_rows or []), list(passages or []), self_map or {}, perplexity_model,
                    f"[{dataset}] " if dataset else "")
    written = plan(SELFPREF, {})  # every item is always written
    paths = write_tables(SELFPREF, written["written"], inputs, outdir)
    paths.append(fig3_heatmaps(inputs.gen_rows, outdir / "figures" / "fig3_heatmaps.png"))
    rates_path = outdir / "rates.tsv"
    _write_rows(rates_long(inputs.gen_rows, inputs.passages), rates_path, RATE_COLUMNS)
    summary_path = outdir / "rerank_summary.tsv"
    _write_rows(rerank_summary(inputs.rerank_rows), summary_path, RERANK_SUMMARY_COLUMNS)
    contents = outdir / "contents.md"
    contents.write_text(contents_md(SELFPREF, written, f"Dataset: {dataset}." if dataset else ""), encoding="utf-8")
    return paths + [rates_path, summary_path, contents]
