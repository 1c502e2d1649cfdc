"""The shipped papers' published numbers that other published numbers
determine (:func:`derived_numbers`: a Diff that is its means' difference, an
Average over its rows, a number printed twice), printed against recomputed
within the printed rounding (``resources/published/README.md``,
"Recomputed numbers"). A paper declares its relations by naming a function
of this module (:attr:`authbench.papers.Paper.derived`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from authbench.errors import InputError
from authbench.papers.published import KEY, as_columns, load_text

__all__ = ["DERIVED", "DERIVED_COLUMNS", "GRANULAR", "REPEATED", "SHARE_OF", "TAKEN", "derived_numbers", "fits_share",
           "half_unit", "nearest_share", "printing_taken"]

# Numbers that other published numbers determine (resources/published/README.md, "Recomputed numbers").
DERIVED_COLUMNS = KEY + ("printed", "recomputed", "tolerance", "agrees", "kind", "relation", "rule", "from")
DERIVED = "derived"  # a caption or the paper's definitions make the number a function of other printed numbers
REPEATED = "repeated"  # the same number printed in two places: each is checked against the other
GRANULAR = "granular"  # a share of n: some integer k must give 100 k / n at the printed digits
# the n of each table whose percentages are shares of a count (resources/published/README.md, "Granular")
SHARE_OF = {("authoritybench", 3): (5000, "the 5,000 pairs of each difficulty (Table 7: Hard/Easy 5k)"),
            ("authoritybench", 5): (120, "RAGAuth's 120 queries (Table 7; §3.4)"),
            ("selfpref", 1): (700, "the 700 sampled questions of each dataset (§3.1, line 78: \"we randomly selected "
                                   "700 paired passages from each dataset\"; config/paper.yaml items: 700)")}
# For a number printed twice with two values: which printing a claim's recomputed verdict takes, and why
# (relation -> (the tables whose printing is taken, the reason)).
_MAIN = ("the main table's printing: the body discusses Tables 1, 2, 4 and 6 and Appendix F repeats them; for "
         "Qwen3-8B PairRank the running text backs Table 1 (§4.2 (2): Qwen3-8B under PairJudge-PairRank "
         "\"performs considerably worse than same-sized models (Tables 1 & 2)\", as Table 1's 15.18 / 11.38 do and "
         "Table 9's 44.19 / 53.05 would not: 53.05 is above Llama-3-8B's 49.06)")
_APPENDIX = ("the appendix's printing (Tables 6-9): each of Table 2's own-FALSE cells that disagrees repeats "
             "another evaluator's column of Table 7/9 or none (NQ Gemini's 3.14±0.92 is Table 7's LLaMA column), a "
             "copy slip in Table 2, while Tables 6-9 print every author's column")
TAKEN = {"t9_12_pair_rank": ((1, 2, 4, 6), _MAIN), "t9_12_pair_score": ((1, 2, 4, 6), _MAIN),
         "t2_human_repeat": ((6, 8), _APPENDIX), "t2_self_true_repeat": ((6, 8), _APPENDIX),
         "t2_self_false_repeat": ((7, 9), _APPENDIX)}
MAIN_TABLE = {9: 1, 10: 2, 11: 4, 12: 6}  # AuthorityBench Tables 9-12 repeat these tables' PairJudge rho
REPEATS = {"PairRank": ("pair_rank", "PairRank"), "PointScore_Pt": ("pair_score", "PointScore")}
LEVELS = ("knowledge_no", "knowledge_partial", "knowledge_full")  # self-preference Table 1: 0, 1-4, 5 of 5 correct
RAW_TABLE = {("normal", "TRUE"): 6, ("normal", "FALSE"): 7, ("rag", "TRUE"): 8, ("rag", "FALSE"): 9}
SLACK = 1e-9  # float noise on top of the rounding allowance


def half_unit(text: str) -> float:
    """Half a unit of the last digit printed in ``text`` (``"3.28"`` -> 0.005,
    ``"0.5"`` -> 0.05, ``"17"`` -> 0.5): how far the unrounded number can lie
    from the printed one."""
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals


def _quantum(text: str):
    from decimal import Decimal

    return Decimal(1).scaleb(-(len(text.split(".", 1)[1]) if "." in text else 0))


def fits_share(text: str, n: int) -> bool:
    """Whether some integer k in 0..n gives 100 k / n rounded (half up) to the
    digits printed in ``text`` (``"71.67"`` fits n = 120: 86/120 = 71.666...;
    ``"71.76"`` does not). Exact, in decimals."""
    from decimal import ROUND_HALF_UP, Decimal

    if int(n) < 1:
        raise ValueError(f"fits_share: n {n!r}; expected a positive count")
    printed, q = Decimal(text), _quantum(text)
    k = int((printed * n / 100).to_integral_value())
    return any(0 <= j <= n and (Decimal(100 * j) / Decimal(n)).quantize(q, rounding=ROUND_HALF_UP) == printed
               for j in (k - 1, k, k + 1))


def nearest_share(value: float, n: int) -> tuple[int, float]:
    """The integer k whose share 100 k / n is nearest ``value``, and that share."""
    k = min(max(round(value * n / 100), 0), n)
    return k, 100.0 * k / n


def printing_taken(relation: str, key: tuple) -> tuple[bool, str]:
    """For a number printed twice (``relation`` a :data:`REPEATED` one, ``key``
    one printing's key, :data:`KEY` order): whether a claim's recomputed
    verdict takes this printing, and why (:data:`TAKEN`)."""
    if relation not in TAKEN:
        raise ValueError(f"printing_taken: {relation!r} is not a relation of numbers printed twice; "
                         f"expected one of {', '.join(TAKEN)}")
    tables, why = TAKEN[relation]
    return int(key[1]) in tables, why


def _with(key, **changes):
    """``key`` with some parts changed (``table`` and ``metric`` too; ``""``: the part dropped)."""
    from authbench.claims.keys import from_parts

    return from_parts({**key.parts(), **changes})


class _Derivations:
    """The rows of :func:`derived_numbers`, built one relation at a time, on
    the published keys (:class:`authbench.claims.Key`: each paper's own
    parts); a row names its number in the 11-column layout (:data:`KEY`,
    :func:`~authbench.papers.published.as_columns`)."""

    def __init__(self, frame: pd.DataFrame, folder: Path) -> None:
        from authbench.claims.keys import rows_from_frame

        self.folder = folder
        self.paper = ""  # the paper whose relations run (derived_numbers sets it)
        self.rows: list[dict] = []
        published = rows_from_frame(frame)
        self.keys = [(p, r.key) for p, r in zip(frame["paper"], published)]
        self.parts = {k: r.parts for k, r in zip(self.keys, published)}  # read by every select
        shown = as_columns(frame)[list(KEY)].itertuples(index=False, name=None)
        self.shown = dict(zip(self.keys, shown))  # (paper, key) -> its key columns
        self.text = dict(zip(self.keys, frame["value"]))  # the printed text

    def select(self, table: int, **parts: str) -> list:
        """The keys of the paper's ``table`` whose parts equal ``parts`` (``metric`` too)."""
        return [k for p, k in self.keys if p == self.paper and k.table == table
                and all(self.parts[(p, k)].get(name, "") == want for name, want in parts.items())]

    def _printed(self, key, relation: str) -> str:
        if (self.paper, key) not in self.text:
            raise InputError(f"{self.folder}: the number {self.paper} {key} is missing; "
                             f"expected it for the relation {relation!r} (resources/published/README.md)")
        return self.text[(self.paper, key)]

    def add(self, key, terms: list[tuple[float, object]], kind: str, relation: str, rule: str,
            constant: float = 0.0) -> None:
        """``key``'s printed number against ``constant + sum(coefficient * term)``, within the
        rounding allowance of :func:`derived_numbers`."""
        printed = self._printed(key, relation)
        values = [(c, self._printed(k, relation)) for c, k in terms]
        recomputed = constant + sum(c * float(v) for c, v in values)
        if kind == REPEATED:  # one number rounded twice: equal at the coarser printing's digits
            tolerance = max(half_unit(printed), *(half_unit(v) for _, v in values))
        else:
            tolerance = half_unit(printed) + sum(abs(c) * half_unit(v) for c, v in values)
        self.rows.append(dict(zip(KEY, self.shown[(self.paper, key)])) | {
            "printed": float(printed), "recomputed": recomputed, "tolerance": tolerance,
            "agrees": bool(abs(float(printed) - recomputed) <= tolerance + SLACK), "kind": kind,
            "relation": relation, "rule": rule, "from": tuple(self.shown[(self.paper, k)] for _, k in terms)})

    def share(self, key, n: int, relation: str, rule: str) -> None:
        """``key``'s printed percentage against the shares of ``n``: ``recomputed``
        the nearest share 100 k / n, ``agrees`` when some k gives the printed
        digits (:func:`fits_share`)."""
        printed = self._printed(key, relation)
        _, nearest = nearest_share(float(printed), n)
        self.rows.append(dict(zip(KEY, self.shown[(self.paper, key)])) | {
            "printed": float(printed), "recomputed": nearest, "tolerance": half_unit(printed),
            "agrees": fits_share(printed, n), "kind": GRANULAR, "relation": relation, "rule": rule, "from": ()})

    def twice(self, first, second, relation: str, rule: str) -> None:
        """One number printed at ``first`` and ``second``: a row for each, checked against the other."""
        self.add(first, [(1.0, second)], REPEATED, relation, rule)
        self.add(second, [(1.0, first)], REPEATED, relation, rule)

    def mean(self, key, terms: list, relation: str, rule: str) -> None:
        if not terms:
            raise InputError(f"{self.folder}: no numbers to average for {self.paper} {key}; "
                             f"expected the rows of the relation {relation!r} (resources/published/README.md)")
        self.add(key, [(1.0 / len(terms), k) for k in terms], DERIVED, relation, rule)


def _authoritybench(d: _Derivations) -> None:
    for table, main in MAIN_TABLE.items():  # Appendix F: PointScore_Pt "is the method we refer to as PointScore"
        for judge, (main_judge, name) in REPEATS.items():
            for key in d.select(table, judge=judge, metric="rho"):
                d.twice(key, _with(key, table=main, judge=main_judge), f"t9_12_{main_judge}",
                        f"printed twice: Table {table} {judge} rho = Table {main} PairJudge {name} rho")
    n, what = SHARE_OF[("authoritybench", 3)]
    for key in d.select(3, metric="pair_accuracy"):
        d.share(key, n, "t3_granular", f"a share of {n} pairs, {what}: 100 k / {n} for an integer k")
    n, what = SHARE_OF[("authoritybench", 5)]
    for key in d.select(5, metric="answer_accuracy"):
        d.share(key, n, "t5_granular", f"a share of {n} questions, {what}: 100 k / {n} for an integer k")
    for key in d.select(8, metric="bias"):  # caption: Bias = avg.(predicted - true PageRank)
        pred = _with(key, metric="mean_pred_score")
        true = _with(key, metric="true_mean_pagerank", model="", judge="", context="")  # the caption's, per category
        d.add(key, [(1.0, pred), (-1.0, true)], DERIVED, "t8_bias",
              "Bias = Pred - the category's true mean PageRank (Table 8 caption)")


def _selfpref(d: _Derivations) -> None:
    def same_but(a, b, *names: str) -> bool:
        def rest(k):
            return k.table, k.metric, [part for part in k.named if part[0] not in names]
        return rest(a) == rest(b)

    for key in d.select(1, model="Average"):
        rows = [k for k in d.select(1, metric=key.metric) if same_but(k, key, "model") and k.model != "Average"]
        d.mean(key, rows, "t1_average", "Average = mean of the 5 models' rows of the dataset")
    for key in d.select(1):
        if key.metric in LEVELS:
            others = [_with(key, metric=level) for level in LEVELS if level != key.metric]
            d.add(key, [(-1.0, k) for k in others], DERIVED, "t1_knowledge_sum",
                  "No + Partial + Full = 100 (0, 1-4 or 5 of 5 answers correct)", constant=100.0)
    n, what = SHARE_OF[("selfpref", 1)]
    for key in d.select(1):
        if key.metric in LEVELS and key.model != "Average":
            d.share(key, n, "t1_granular", f"a share of {n} questions, {what}: 100 k / {n} for an integer k")
    for key in d.select(2, metric="diff_h_minus_m"):
        passage, prompt = key.part("passage"), key.part("prompt")
        human = _with(key, metric="mean_score", author="Human", passage="")
        d.add(key, [(1.0, human), (-1.0, _with(key, metric="mean_score"))], DERIVED, "t2_diff",
              f"Diff = Human-Written mean - the evaluator's own {passage} mean (Table 2)")
        if passage == "FALSE":  # the same Diff from the appendix: Table 6/8 Human - Table 7/9 own column
            true_table, false_table = RAW_TABLE[(prompt, "TRUE")], RAW_TABLE[(prompt, "FALSE")]
            appendix_human = _with(key, table=true_table, metric="mean_score", author="Human", passage="TRUE")
            appendix_own = _with(key, table=false_table, metric="mean_score", author=key.model, passage="FALSE")
            d.add(key, [(1.0, appendix_human), (-1.0, appendix_own)], DERIVED, "t2_false_diff_appendix",
                  f"FALSE Diff = Table {true_table} Human mean - Table {false_table} column of the evaluator itself")
    for key in d.select(2):
        if key.metric != "diff_h_minus_m":
            passage = key.part("passage") or "TRUE"  # the Human-Written column: TRUE passages
            table = RAW_TABLE[(key.part("prompt"), passage)]
            author = "Human" if key.part("author") == "Human" else key.model
            other = _with(key, table=table, author=author, passage=passage)
            if author == "Human":
                relation, rule = "t2_human_repeat", f"Table 2 Human-Written = Table {table} Human"
            else:
                relation = f"t2_self_{passage.lower()}_repeat"
                rule = f"Table 2 own {passage} = Table {table} column of the evaluator itself"
            d.twice(key, other, relation, f"printed twice: {rule} (same evaluator, dataset, prompt)")
    table3 = d.select(3)
    for key in table3:
        other = key.part("other")
        if key.model == "Average":  # over the 15 evaluator x dataset rows (the evaluator's own column: none)
            rows = [k for k in table3 if k.model != "Average" and k.part("other") == other and k.metric == key.metric]
            d.mean(key, rows, "t3_average", "Average = mean of the column's evaluator x dataset rows")
        elif other == "Aggregated":
            rows = [k for k in table3 if same_but(k, key, "other") and k.part("other") != "Aggregated"]
            d.mean(key, rows, "t3_aggregated", "Aggregated = mean of the row's 5 per-author cells")


def derived_numbers(paper: str | None = None, directory: str | Path | None = None) -> pd.DataFrame:
    """Every published number that other published numbers of its paper
    determine, one row per number and relation (columns
    :data:`DERIVED_COLUMNS`): the number's key (:data:`KEY`, as in the TSV),
    ``printed`` (its value), ``recomputed`` (unrounded, from the numbers in
    ``from``: a tuple of their keys), ``tolerance``, ``agrees``
    (``|printed - recomputed| <= tolerance``), ``kind`` (:data:`DERIVED`:
    a caption or definition makes it a function of the others;
    :data:`REPEATED`: the same number printed elsewhere, a row for each of the
    two places; :data:`GRANULAR`: a percentage of a count n, ``agrees`` when
    some integer k gives 100 k / n at the printed digits, ``recomputed`` the
    nearest such share, ``from`` empty), ``relation`` (a short name) and
    ``rule`` (the relation in words).

    Rounding rule, ``h`` being half a unit of the last printed digit
    (:func:`half_unit`): a derived number ``constant + sum(c_i * x_i)`` is
    allowed ``h(printed) + sum(|c_i| * h(x_i))``, the widest gap rounding
    alone can open (a difference of two 2-decimal numbers printed to 2
    decimals: 0.015; a mean of five 1-decimal numbers printed to 2: 0.055);
    a number printed twice ``max(h(a), h(b))``: two roundings of one number
    agree at the coarser one's digits (both to 2 decimals: 0.005, so they
    must be equal). ``agrees`` allows 1e-9 more for float noise. The
    relations, their counts and the mismatches are listed in
    ``resources/published/README.md`` ("Recomputed numbers")."""
    from authbench.papers.registry import paper_of, papers

    derivations = _Derivations(load_text(paper, directory), Path(directory) if directory is not None else
                               paper_of(paper or next(iter(papers()))).published.parent)
    for name in [paper_of(paper).name] if paper is not None else list(papers()):
        relations = RELATIONS.get(paper_of(name).derived or "")
        if relations is not None:
            derivations.paper = name
            relations(derivations)
    return pd.DataFrame(derivations.rows, columns=list(DERIVED_COLUMNS))


# a paper's relations by the name its Paper declares (authbench.papers.Paper.derived)
RELATIONS = {"authoritybench": _authoritybench, "selfpref": _selfpref}
