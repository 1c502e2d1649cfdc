"""The self-preference report's input rows (Chen et al.): their shapes and
checks, and the groups every table, the figure and the TSVs count from.

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
  std (ddof=1); fewer than two scores give NaN.
* **Preference rates** (Table 3's caption): over the ``ok`` rows (status
  ``ok`` and a choice) — *self* = share choosing the self passage, *order* =
  share choosing the passage shown first; *factual* = share choosing the true
  passage among the ``ok`` factuality-asymmetric rows (TF, FT).  A row with
  status ``ok`` but no choice counts as not ok (``no_choice``).  Rates are
  percentages; an empty denominator gives NaN (``–``).  ``all`` pools every
  other author (the rate over all comparisons).
* **Same-factuality self preference** (``n_same``, ``self_chosen_same``,
  ``self_pref_same``; Table 3's "Self (same fact.)"; an addition, the paper
  reports the pooled *self* only): *self* over the ``ok`` rows whose two
  passages have the same factuality (TT or FF, :func:`same_factuality`),
  where factuality cannot decide the choice; the same counting rules as
  *self*, restricted to those rows.
* **Answer accuracy** (Section 4.2.3; knowledge breakdown and ``rates.tsv``'s
  ``n_graded`` / ``correct`` / ``accuracy``): among the ``ok`` rows whose
  question has a known gold (``answer_in`` of its true passages,
  :func:`gold_answers`) and that carry an ``answer``, the share whose answer
  matches the gold (:func:`authbench.studies.selfpref.answers.answer_matches`,
  the authors' ``check_bag_of_words``).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
from authbench.errors import excerpt
from authbench.llm.formats import FORMATS
from authbench.records import InputError
from authbench.stats import finite, mean_or_nan, per_question, percent, sample_std

LO, HI = FORMATS["hash_rating"].score_range  # the reranking scores (the ###n*** reply format)

HUMAN = "human"
ALL = "all"
NORMAL = "normal"
PROMPTS = ("normal", "rag")
VARIANT_ORDER = ("normal", "long", "qa")
KNOWLEDGE = ("no", "partial", "full")
UNKNOWN = "unknown"
ORDERS = ("self_first", "other_first")
CHOICES = ("self", "other")
# (label, self_factual, other_factual), the paper's order TT, TF, FT, FF
COMBOS = (("TT", True, True), ("TF", True, False), ("FT", False, True), ("FF", False, False))
_COMBO_OF = {(s, o): lab for lab, s, o in COMBOS}
SAME_FACTUALITY = tuple(lab for lab, s, o in COMBOS if s == o)  # TT, FF: factuality cannot decide the choice

RERANK_SUMMARY_COLUMNS = (
    "evaluator", "prompt", "variant", "factual", "author", "n_rows", "n", "failures", "mean", "std", "tries",
)
RATE_COLUMNS = (
    "variant", "evaluator", "self_author", "other_author", "factuality", "knowledge",
    "n_rows", "n_ok", "self_chosen", "self_pref", "first_chosen", "order_pref",
    "n_asym", "true_chosen", "factual_pref", "n_graded", "correct", "accuracy", "not_ok", "not_ok_by_status", "tries",
    "n_same", "self_chosen_same", "self_pref_same",
)



def author_order(authors: Iterable[str]) -> list[str]:
    """Distinct authors in order of appearance, human first."""
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


def level_classes(levels_by_author: Mapping[str, Sequence[Mapping]]) -> dict[str, Counter]:
    """Per author, how many of its knowledge-level rows are of each class."""
    classes: dict[str, Counter] = {}
    for author, rows in (levels_by_author or {}).items():
        what = f"knowledge levels ({author})"
        classes[str(author)] = Counter(_level_class(r, what, i) for i, r in _row(rows, what))
    return classes


def _normal_true(rows, what: str, value, every_row: bool) -> tuple[dict[str, list], list[str]]:
    """Per author ``value(r, i)`` of its ``normal`` TRUE rows (None values left
    out), and the authors of every row in order; ``every_row``: ``value``
    checks every row, not only those it keeps."""
    out: dict[str, list] = {}
    order = []
    for i, r in _row(rows, what):
        author = _str(r, "author", what, i)
        order.append(author)
        v = value(r, i) if every_row else None
        if _variant(r, what, i) == NORMAL and _bool(r, "factual", what, i):
            v = v if every_row else value(r, i)
            if v is not None:
                out.setdefault(author, []).append(v)
    return out, order


def normal_true_lengths(passages) -> tuple[dict[str, list[int]], list[str]]:
    """Per author the word counts (``str.split``) of its ``normal`` TRUE
    passages, and the authors of every passage in order."""
    what = "passages"

    def words(r, i):
        text = _field(r, "text", what, i)
        if not isinstance(text, str):
            raise InputError(f"{what}: row {i}: field 'text' must be a string, got {excerpt(text)}")
        return len(text.split())

    return _normal_true(passages, what, words, every_row=False)


def normal_true_perplexities(perplexity_rows) -> tuple[dict[str, list[float]], list[str]]:
    """Per author the perplexities of its ``normal`` TRUE passages (null
    values left out), and the authors of every row in order."""
    what = "perplexity rows"
    return _normal_true(perplexity_rows, what, lambda r, i: _number(r, "perplexity", what, i), every_row=True)


def _perplexity_qid(r: Mapping, i: int, qid_of: Mapping[str, str]) -> str:
    """A perplexity row's question: its own ``qid``, else its passage's
    (``qid_of``: pid -> qid), else its own cluster ``#<row>``."""
    if r.get("qid") is not None:
        return str(r["qid"])
    qid = qid_of.get(str(r.get("pid")))
    return f"#{i}" if qid is None else str(qid)


def normal_true_perplexities_by_question(perplexity_rows, passages) -> dict[str, dict]:
    """Per author: question -> the perplexity of its ``normal`` TRUE passage
    (:func:`_perplexity_qid`; a question's several values averaged), for the
    paired tests."""
    qid_of = {str(p.get("pid")): p.get("qid") for p in passages or []}
    what = "perplexity rows"
    pairs: dict[str, list] = {}
    for i, r in _row(perplexity_rows, what):
        if _variant(r, what, i) == NORMAL and _bool(r, "factual", what, i):
            pairs.setdefault(_str(r, "author", what, i), []).append(
                (_perplexity_qid(r, i, qid_of), _number(r, "perplexity", what, i)))
    return {a: per_question(v) for a, v in pairs.items()}


def variant_authors(passages, variant: str) -> set[str]:
    """The authors with a passage of ``variant``."""
    what = "passages"
    return {_str(r, "author", what, i) for i, r in _row(passages, what) if _variant(r, what, i) == variant}


# --------------------------------------------------------------------------
# pointwise reranking: score groups and their summary
# --------------------------------------------------------------------------
@dataclass
class _Scores:
    scores: list
    failures: int = 0
    tries: int = 0  # engine requests over the group's rows (retries included)
    qids: list = field(default_factory=list)  # the question of each score (the paired tests)

    def by_question(self) -> dict:
        """question -> its mean score (a question's several passages averaged)."""
        return per_question(zip(self.qids, self.scores))


def rerank_groups(rows, what: str = "rerank judgments") -> tuple[dict, list[str], list[str]]:
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
        if score is not None and not (math.isfinite(score) and LO <= score <= HI):
            raise InputError(f"{what}: row {i}: field 'score' is {excerpt(score)}; expected {LO}..{HI} or null")
        g = groups.setdefault((ev, prompt, variant, factual, author), _Scores([]))
        g.tries += _tries(r, what, i)
        if score is None:
            g.failures += 1
        else:
            g.scores.append(score)
            g.qids.append(_qid(r, i))
        evaluators.append(ev)
        authors.append(author)
    return groups, list(dict.fromkeys(evaluators)), author_order(authors)


def rerank_summary(rows) -> list[dict]:
    """Per evaluator × prompt × variant × factual × author: ``n_rows``, ``n``
    (parsed scores), ``failures`` (score null), ``mean`` and sample ``std`` of
    the parsed scores, ``tries`` (requests sent for the rows, retries
    included: ``n_rows`` when nothing was retried). Order: evaluators and authors (human first) as they
    appear, prompt normal before rag, TRUE before FALSE."""
    groups, evaluators, authors = rerank_groups(rows)
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
                            "failures": g.failures, "mean": mean_or_nan(x), "std": sample_std(x), "tries": g.tries,
                        })
    return out


# --------------------------------------------------------------------------
# generation phase: comparison records and preference rates
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class GenRecord:
    """One generation judgment, checked (:func:`gen_records`)."""

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
    qid: str = ""  # the question compared on (the resampling cluster of the intervals)


def same_factuality(g: GenRecord) -> bool:
    """Whether a comparison's self and other passages have the same
    factuality (both true or both false: :data:`SAME_FACTUALITY`), i.e. it
    counts towards the same-factuality self preference (``self_pref_same``,
    the units' ``self_same``)."""
    return g.combo in SAME_FACTUALITY


def gold_answers(passages) -> dict[str, str]:
    """qid -> gold answer, read from the ``answer_in`` of the question's true
    passages (every sampled question has them)."""
    gold: dict[str, str] = {}
    for i, r in _row(passages, "passages"):
        if _bool(r, "factual", "passages", i) and isinstance(r.get("answer_in"), str):
            gold.setdefault(str(r.get("qid")), r["answer_in"])
    return gold


def gen_records(rows, what: str = "generation judgments", gold: Mapping[str, str] | None = None) -> list[GenRecord]:
    """The rows as :class:`GenRecord`; with ``gold`` (qid -> gold answer) an ok row
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
        out.append(GenRecord(ev, own, other, variant, _COMBO_OF[(sf, of)], know or UNKNOWN, status,
                        chosen if ok else None, first, asym, true_chosen, correct, _tries(r, what, i),
                        _qid(r, i)))
    return out


def _qid(r: Mapping, i: int) -> str:
    """A row's question (its own cluster, ``#<row>``, when the row names none)."""
    return str(r["qid"]) if r.get("qid") is not None else f"#{i}"


def _flag(v: bool | None) -> float:
    return math.nan if v is None else float(v)


UNIT_FRAMES = {
    "rerank": ("evaluator", "prompt", "variant", "factual", "author", "qid", "pid", "score"),
    "comparisons": ("evaluator", "self_author", "other_author", "variant", "combo", "knowledge", "qid", "status",
                    "self_chosen", "first", "true_chosen", "correct", "self_same"),
    "knowledge": ("author", "qid", "class", "no", "partial", "full"),
    "passages": ("author", "pid", "qid", "variant", "factual", "words"),
    "perplexity": ("author", "pid", "qid", "variant", "factual", "perplexity"),
}


def unit_frames(rerank_rows, gen_rows, knowledge_levels, perplexity_rows, passages,
                scored: Sequence[Mapping] | None = None) -> dict[str, "pd.DataFrame"]:
    """The checked per-unit records (``units_<name>.parquet``,
    :data:`UNIT_FRAMES`): every rerank score (NaN: unparsed), every
    generation comparison (``self_chosen`` / ``first`` 1 or 0 for an ok row,
    ``true_chosen`` for an ok asymmetric one, ``correct`` for a graded one
    against the gold of ``passages``, ``self_same`` = ``self_chosen`` for an
    ok same-factuality one (:func:`same_factuality`), NaN otherwise), every knowledge probe
    (its class), every passage (its words) of ``scored`` (Table 1's
    passages; None: ``passages``) and every perplexity row.
    ``qid`` is the resampling cluster of every interval (a perplexity row
    without one takes its passage's)."""
    import pandas as pd

    what = "rerank judgments"
    rerank = [{"evaluator": _str(r, "evaluator", what, i), "prompt": _str(r, "prompt", what, i, PROMPTS),
               "variant": _variant(r, what, i), "factual": _bool(r, "factual", what, i),
               "author": _str(r, "author", what, i), "qid": _qid(r, i), "pid": str(r.get("pid")),
               "score": _number(r, "score", what, i)} for i, r in _row(rerank_rows, what)]
    comparisons = [{"evaluator": g.evaluator, "self_author": g.self_author, "other_author": g.other_author,
                    "variant": g.variant, "combo": g.combo, "knowledge": g.knowledge, "qid": g.qid,
                    "status": g.status, "self_chosen": _flag(None if g.chosen is None else g.chosen == "self"),
                    "first": _flag(g.first), "true_chosen": _flag(g.true_chosen), "correct": _flag(g.correct),
                    "self_same": _flag(g.chosen == "self" if g.chosen is not None and same_factuality(g) else None)}
                   for g in gen_records(gen_rows, gold=gold_answers(passages))]
    knowledge = [{"author": str(author), "qid": _qid(r, i), "class": _level_class(r, f"knowledge levels ({author})", i)}
                 for author, rows in (knowledge_levels or {}).items()
                 for i, r in _row(rows, f"knowledge levels ({author})")]
    knowledge = [{**k, **{c: float(k["class"] == c) for c in KNOWLEDGE}} for k in knowledge]
    what = "passages"
    texts = [{"author": _str(r, "author", what, i), "pid": str(r.get("pid")), "qid": _qid(r, i),
              "variant": _variant(r, what, i), "factual": _bool(r, "factual", what, i),
              "words": len(str(_field(r, "text", what, i)).split())}
             for i, r in _row(passages if scored is None else scored, what)]
    qid_of = {t["pid"]: t["qid"] for t in texts}
    what = "perplexity rows"
    ppl = [{"author": _str(r, "author", what, i), "pid": str(r.get("pid")),
            "qid": _perplexity_qid(r, i, qid_of),
            "variant": _variant(r, what, i), "factual": _bool(r, "factual", what, i),
            "perplexity": _number(r, "perplexity", what, i)} for i, r in _row(perplexity_rows, what)]
    data = {"rerank": rerank, "comparisons": comparisons, "knowledge": knowledge, "passages": texts,
            "perplexity": ppl}
    numeric = {"score", "self_chosen", "first", "true_chosen", "correct", "self_same", "words", "perplexity",
               *KNOWLEDGE}
    return {name: pd.DataFrame(data[name], columns=list(cols)).astype({c: float for c in cols if c in numeric})
            for name, cols in UNIT_FRAMES.items()}


def rate_stats(recs: Sequence[GenRecord]) -> dict:
    """The counts and rates of :data:`RATE_COLUMNS` (after the group columns) over ``recs``."""
    ok = [g for g in recs if g.status == "ok"]
    asym = [g for g in ok if g.asym]
    n_self = sum(g.chosen == "self" for g in ok)
    n_first = sum(bool(g.first) for g in ok)
    n_true = sum(bool(g.true_chosen) for g in asym)
    graded = [g for g in ok if g.correct is not None]
    n_correct = sum(bool(g.correct) for g in graded)
    same = [g for g in ok if same_factuality(g)]
    n_self_same = sum(g.chosen == "self" for g in same)
    bad = Counter(g.status for g in recs if g.status != "ok")
    return {
        "n_rows": len(recs), "n_ok": len(ok),
        "self_chosen": n_self, "self_pref": percent(n_self, len(ok)),
        "first_chosen": n_first, "order_pref": percent(n_first, len(ok)),
        "n_asym": len(asym), "true_chosen": n_true, "factual_pref": percent(n_true, len(asym)),
        "n_graded": len(graded), "correct": n_correct, "accuracy": percent(n_correct, len(graded)),
        "not_ok": sum(bad.values()),
        "not_ok_by_status": ";".join(f"{k}={bad[k]}" for k in sorted(bad)),
        "tries": sum(g.tries for g in recs),
        "n_same": len(same), "self_chosen_same": n_self_same, "self_pref_same": percent(n_self_same, len(same)),
    }


def evaluator_selves(recs: Sequence[GenRecord]) -> list[tuple[str, str]]:
    """(evaluator, self author) in order of appearance."""
    return list(dict.fromkeys((g.evaluator, g.self_author) for g in recs))


def other_authors_of(recs: Sequence[GenRecord]) -> list[str]:
    """The other authors of ``recs``, human first."""
    return author_order(g.other_author for g in recs)


def preference_rates(gen_rows, variant: str = NORMAL) -> list[dict]:
    """Table 3's rates per evaluator × other author, then ``other_author="all"``
    (pooled), over the rows of ``variant`` (``None``: every variant).

    Each dict: ``variant, evaluator, self_author, other_author, factuality
    ("all"), knowledge ("all")``, the counts ``n_rows, n_ok, self_chosen,
    first_chosen, n_asym, true_chosen, not_ok``, ``not_ok_by_status``
    (``"status=count;..."``), ``tries`` (requests sent, retries included) and
    the percentages ``self_pref`` (self_chosen / n_ok), ``order_pref``
    (first_chosen / n_ok), ``factual_pref`` (true_chosen / n_asym); then
    ``n_same`` (the ok comparisons whose passages have the same factuality,
    TT or FF), ``self_chosen_same`` and ``self_pref_same``
    (self_chosen_same / n_same).
    """
    recs = [g for g in gen_records(gen_rows) if variant is None or g.variant == variant]
    out = []
    for ev, own in evaluator_selves(recs):
        mine = [g for g in recs if g.evaluator == ev]
        for other in other_authors_of(mine) + [ALL]:
            sub = mine if other == ALL else [g for g in mine if g.other_author == other]
            out.append({"variant": variant if variant is not None else ALL, "evaluator": ev, "self_author": own,
                        "other_author": other, "factuality": ALL, "knowledge": ALL, **rate_stats(sub)})
    return out


def aggregated(rates: Iterable[Mapping], evaluator: str, key: str) -> float:
    """Table 3's ``Aggregated`` (the paper's): the unweighted mean of
    ``evaluator``'s per-other-author rates ``key`` among ``rates``
    (:func:`preference_rates` rows; the pooled ``all`` row and a rate without
    a value left out); NaN when none has one."""
    return mean_or_nan(finite(r[key] for r in rates if str(r["evaluator"]) == evaluator
                              and r["other_author"] != ALL and r.get(key) is not None))


def rates_long(gen_rows, passages=None) -> list[dict]:
    """Every rate group, for ``rates.tsv``: per variant × evaluator × other
    author (and ``all``) × factuality (``all``, TT, TF, FT, FF) × knowledge
    (``all``, no, partial, full, unknown); groups without rows are left out
    except the ``all``/``all`` ones. With ``passages`` the answers are graded
    against the gold (``n_graded``, ``correct``, ``accuracy``)."""
    recs = gen_records(gen_rows, gold=gold_answers(passages))
    variants = [v for v in VARIANT_ORDER if any(g.variant == v for g in recs)]
    variants += sorted({g.variant for g in recs} - set(variants))
    out = []
    for variant in variants:
        vrecs = [g for g in recs if g.variant == variant]
        for ev, own in evaluator_selves(vrecs):
            mine = [g for g in vrecs if g.evaluator == ev]
            for other in other_authors_of(mine) + [ALL]:
                sub = mine if other == ALL else [g for g in mine if g.other_author == other]
                for combo in (ALL,) + tuple(c[0] for c in COMBOS):
                    csub = sub if combo == ALL else [g for g in sub if g.combo == combo]
                    for know in (ALL,) + KNOWLEDGE + (UNKNOWN,):
                        ksub = csub if know == ALL else [g for g in csub if g.knowledge == know]
                        if not ksub and (combo != ALL or know != ALL):
                            continue
                        out.append({"variant": variant, "evaluator": ev, "self_author": own, "other_author": other,
                                    "factuality": combo, "knowledge": know, **rate_stats(ksub)})
    return out


