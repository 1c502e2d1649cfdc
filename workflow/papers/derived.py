"""The shipped papers' published numbers that other published numbers
determine (:func:`derived_numbers`: a Diff that is its means' difference, an
Average over its rows, a number printed twice), printed against recomputed
within the printed rounding (``resources/published/README.md``,
"Recomputed numbers"). A paper declares its relations by naming a function
of this module (:attr:`authbench.papers.Paper.derived`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from authbench.errors import InputError, excerpt
from authbench.papers.published import KEY, load_text

__all__ = ["DERIVED", "DERIVED_COLUMNS", "REPEATED", "derived_numbers", "half_unit"]

# Numbers that other published numbers determine (resources/published/README.md, "Recomputed numbers").
DERIVED_COLUMNS = KEY + ("printed", "recomputed", "tolerance", "agrees", "kind", "relation", "rule", "from")
DERIVED = "derived"  # a caption or the paper's definitions make the number a function of other printed numbers
REPEATED = "repeated"  # the same number printed in two places: each is checked against the other
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


def _name(key: tuple) -> str:
    return excerpt(" | ".join(map(str, key)), quote=False)


def _settings(setting: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in setting.split(";")) if setting else {}


class _Derivations:
    """The rows of :func:`derived_numbers`, built one relation at a time."""

    def __init__(self, frame: pd.DataFrame, folder: Path) -> None:
        self.folder = folder
        self.rows: list[dict] = []
        self.records = frame.to_dict("records")
        self.text = {tuple(row[c] for c in KEY): row["value"] for row in self.records}

    def select(self, paper: str, table: int, **columns: str) -> list[tuple[tuple, dict[str, str]]]:
        """(key, parsed setting) of the rows of ``paper``'s ``table`` whose columns equal ``columns``."""
        return [(tuple(row[c] for c in KEY), _settings(row["setting"])) for row in self.records
                if row["paper"] == paper and row["table"] == table
                and all(row[c] == want for c, want in columns.items())]

    def _printed(self, key: tuple, relation: str) -> str:
        if key not in self.text:
            raise InputError(f"{self.folder}: the number {_name(key)} is missing; "
                             f"expected it for the relation {relation!r} (resources/published/README.md)")
        return self.text[key]

    def add(self, key: tuple, terms: list[tuple[float, tuple]], kind: str, relation: str, rule: str,
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
        self.rows.append(dict(zip(KEY, key)) | {
            "printed": float(printed), "recomputed": recomputed, "tolerance": tolerance,
            "agrees": bool(abs(float(printed) - recomputed) <= tolerance + SLACK), "kind": kind,
            "relation": relation, "rule": rule, "from": tuple(k for _, k in terms)})

    def twice(self, first: tuple, second: tuple, relation: str, rule: str) -> None:
        """One number printed at ``first`` and ``second``: a row for each, checked against the other."""
        self.add(first, [(1.0, second)], REPEATED, relation, rule)
        self.add(second, [(1.0, first)], REPEATED, relation, rule)

    def mean(self, key: tuple, terms: list[tuple], relation: str, rule: str) -> None:
        if not terms:
            raise InputError(f"{self.folder}: no numbers to average for {_name(key)}; "
                             f"expected the rows of the relation {relation!r} (resources/published/README.md)")
        self.add(key, [(1.0 / len(terms), k) for k in terms], DERIVED, relation, rule)


def _authoritybench(d: _Derivations) -> None:
    ab = "authoritybench"
    for table, main in MAIN_TABLE.items():  # Appendix F: PointScore_Pt "is the method we refer to as PointScore"
        for judge, (main_judge, name) in REPEATS.items():
            for key, _ in d.select(ab, table, judge=judge, metric="rho"):
                other = (ab, main, key[2], main_judge, key[4], key[5], "rho")
                d.twice(key, other, f"t9_12_{main_judge}", f"printed twice: Table {table} {judge} rho = "
                        f"Table {main} PairJudge {name} rho")
    for key, _ in d.select(ab, 8, metric="bias"):  # caption: Bias = avg.(predicted - true PageRank)
        pred, true = key[:6] + ("mean_pred_score",), (ab, 8, "", "", "", key[5], "true_mean_pagerank")
        d.add(key, [(1.0, pred), (-1.0, true)], DERIVED, "t8_bias",
              "Bias = Pred - the category's true mean PageRank (Table 8 caption)")


def _selfpref(d: _Derivations) -> None:
    sp = "selfpref"
    for key, setting in d.select(sp, 1, model="Average"):
        rows = [k for k, s in d.select(sp, 1, metric=key[6]) if s == setting and k[2] != "Average"]
        d.mean(key, rows, "t1_average", "Average = mean of the 5 models' rows of the dataset")
    for key, _ in d.select(sp, 1):
        if key[6] in LEVELS:
            others = [key[:6] + (level,) for level in LEVELS if level != key[6]]
            d.add(key, [(-1.0, k) for k in others], DERIVED, "t1_knowledge_sum",
                  "No + Partial + Full = 100 (0, 1-4 or 5 of 5 answers correct)", constant=100.0)
    for key, setting in d.select(sp, 2, metric="diff_h_minus_m"):
        human = key[:5] + (f"dataset={setting['dataset']};author=Human", "mean_score")
        d.add(key, [(1.0, human), (-1.0, key[:6] + ("mean_score",))], DERIVED, "t2_diff",
              f"Diff = Human-Written mean - the evaluator's own {setting['passage']} mean (Table 2)")
    for key, setting in d.select(sp, 2):
        if key[6] != "diff_h_minus_m":
            passage = setting.get("passage", "TRUE")  # the Human-Written column: TRUE passages
            table = RAW_TABLE[(key[3], passage)]
            author = "Human" if setting["author"] == "Human" else key[2]
            other = key[:1] + (table,) + key[2:5] + (f"dataset={setting['dataset']};author={author};"
                                                     f"passage={passage}", key[6])
            if author == "Human":
                relation, rule = "t2_human_repeat", f"Table 2 Human-Written = Table {table} Human"
            else:
                relation = f"t2_self_{passage.lower()}_repeat"
                rule = f"Table 2 own {passage} = Table {table} column of the evaluator itself"
            d.twice(key, other, relation, f"printed twice: {rule} (same evaluator, dataset, prompt)")
    table3 = d.select(sp, 3)
    for key, setting in table3:
        if key[2] == "Average":  # over the 15 evaluator x dataset rows (the evaluator's own column: none)
            rows = [k for k, s in table3 if k[2] != "Average" and s["other"] == setting["other"] and k[6] == key[6]]
            d.mean(key, rows, "t3_average", "Average = mean of the column's evaluator x dataset rows")
        elif setting["other"] == "Aggregated":
            rows = [k for k, s in table3 if k[2] == key[2] and s.get("dataset") == setting["dataset"]
                    and s["other"] != "Aggregated" and k[6] == key[6]]
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
    two places), ``relation`` (a short name) and ``rule`` (the relation in
    words).

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
            relations(derivations)
    return pd.DataFrame(derivations.rows, columns=list(DERIVED_COLUMNS))


# a paper's relations by the name its Paper declares (authbench.papers.Paper.derived)
RELATIONS = {"authoritybench": _authoritybench, "selfpref": _selfpref}
