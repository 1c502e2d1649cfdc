"""The two papers' published numbers, transcribed from their text versions:
``resources/published/authoritybench.tsv`` (AuthorityBench, submission
version, Tables 1-12) and ``resources/published/selfpref.tsv`` (the RAG
self-preference study, Tables 1-9); one row per printed number. The column
meanings, the vocabulary and every transcription decision are in
``resources/published/README.md``.

* :func:`load` -> one :class:`pandas.DataFrame` (``table`` an int, ``value``
  a float, every other column a string, ``""`` for an empty cell), each row
  checked; a bad row is an :class:`~authbench.errors.InputError` naming the
  file, the line, the column and what was expected.
* :func:`paper_models` -> the model names a paper's tables use.
* :func:`derived_numbers` -> every published number that other published
  numbers determine (a difference, an average, a number printed twice),
  printed against recomputed within the printed rounding.

The files are found relative to the repository (``resources/published/``
beside ``workflow/``), so this reads them from a checkout or an editable
install only."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from authbench.errors import InputError, excerpt
from authbench.records import read_records

__all__ = ["COLUMNS", "DERIVED", "DERIVED_COLUMNS", "DIRECTORY", "KEY", "MARKS", "PAPERS", "REPEATED",
           "derived_numbers", "half_unit", "load", "paper_models"]

DIRECTORY = Path(__file__).resolve().parents[1] / "resources" / "published"
PAPERS = {"authoritybench": "authoritybench.tsv", "selfpref": "selfpref.tsv"}
COLUMNS = ("paper", "table", "model", "judge", "context", "setting", "metric", "value", "mark", "where", "note")
# the columns that name one number: no two rows of a file share them
KEY = ("paper", "table", "model", "judge", "context", "setting", "metric")
CONTEXTS = ("", "wo_text", "w_text")
MARKS = ("bold", "underline", "dagger")  # a row's mark: "" or some of these joined by "+"
REQUIRED = ("metric", "where")  # never empty (paper, table, value: checked below)
NOT_MODELS = ("", "Average")  # model cells that name no model (Table 7-8 corpus rows, the Average rows)


def _check(path: Path, where: str, column: str, value: str, ok: bool, expected: str) -> None:
    if not ok:
        raise InputError(f"{path}: {where}, column {column!r}: found {excerpt(value)}; expected {expected}")


def _is_number(text: str) -> bool:
    try:
        return text == text.strip() and math.isfinite(float(text))
    except ValueError:
        return False


def _read(path: Path, paper: str) -> pd.DataFrame:
    """The checked rows of one shipped TSV (plain tab-separated, no quoting)."""
    records = read_records(path, "the published numbers (resources/published/README.md)", default="tsv",
                           quoted_tsv=False, pad_short=False)
    if tuple(records.columns) != COLUMNS:
        header = excerpt("\t".join(records.columns), quote=False)
        raise InputError(f"{path}: line 1: header {header}; "
                         f"expected the columns {', '.join(COLUMNS)} in this order")
    seen: dict[tuple, str] = {}
    for where, row in records.rows:
        for column in REQUIRED:
            _check(path, where, column, row[column], row[column] != "", "a value (the column is never empty)")
        _check(path, where, "paper", row["paper"], row["paper"] == paper, f"{paper!r} (the file's paper)")
        _check(path, where, "table", row["table"], row["table"].isdigit() and int(row["table"]) > 0,
               "the table number (a positive integer)")
        _check(path, where, "context", row["context"], row["context"] in CONTEXTS,
               "one of " + ", ".join(map(repr, CONTEXTS)))
        _check(path, where, "value", row["value"], _is_number(row["value"]), "a number, e.g. 41.97 or -0.06")
        marks = row["mark"].split("+") if row["mark"] else []
        _check(path, where, "mark", row["mark"], all(m in MARKS for m in marks) and len(set(marks)) == len(marks),
               "empty or " + ", ".join(MARKS) + " joined by '+'")
        key = tuple(row[c] for c in KEY)
        if key in seen:
            found = excerpt("\t".join(key), quote=False)
            raise InputError(f"{path}: {where}, columns {', '.join(KEY)}: found {found}, the key of {seen[key]} too; "
                             "expected each number once")
        seen[key] = where
    frame = pd.DataFrame([row for _, row in records.rows], columns=list(COLUMNS))
    return frame.astype({"table": int})  # value: the printed text (checked to parse as a number)


def _load_text(paper: str | None, directory: str | Path | None) -> pd.DataFrame:
    """:func:`load` with ``value`` the printed text (its digits give the rounding)."""
    if paper is not None and paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; expected one of {', '.join(PAPERS)}")
    folder = Path(directory) if directory is not None else DIRECTORY
    names = [paper] if paper is not None else list(PAPERS)
    return pd.concat([_read(folder / PAPERS[name], name) for name in names], ignore_index=True)


def load(paper: str | None = None, directory: str | Path | None = None) -> pd.DataFrame:
    """The published numbers of ``paper`` (``"authoritybench"`` or
    ``"selfpref"``; None: both, AuthorityBench first), rows in file order.
    ``directory``: another folder holding the TSVs (tests); default
    :data:`DIRECTORY`."""
    return _load_text(paper, directory).astype({"value": float})


def paper_models(paper: str) -> list[str]:
    """The sorted model names of ``paper``'s rows (the evaluated or
    evaluating LLMs; the ``Average`` rows and the model-less corpus rows
    left out)."""
    frame = load(paper)
    return sorted(set(frame["model"]) - set(NOT_MODELS))


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
    frame = _load_text(paper, directory)
    derivations = _Derivations(frame, Path(directory) if directory is not None else DIRECTORY)
    if paper in (None, "authoritybench"):
        _authoritybench(derivations)
    if paper in (None, "selfpref"):
        _selfpref(derivations)
    return pd.DataFrame(derivations.rows, columns=list(DERIVED_COLUMNS))
