"""The AuthorityBench judges: one class per judge, one module per shape
(:mod:`.point`, :mod:`.listwise`, :mod:`.pairwise`, on the base
:class:`~authbench.studies.authority.judges.base.Judge`), and the registry
:data:`JUDGES` in the paper's order (the main tables' columns).

Every judge list of the study derives from the registry (the helpers
below): the grid's judges and their instance sets, the rules' ``{judge}``
wildcard, the tables' columns. Adding a judge: docs/architecture.md, "Add a judge"."""

from __future__ import annotations

from authbench.studies.authority.bradley_terry import DERIVATION as BT_DERIVATION
from authbench.studies.authority.judges.base import Judge
from authbench.studies.authority.judges.listwise import ListJudge, ListRank, ListScore
from authbench.studies.authority.judges.pairwise import PairJudge, PairRank, PairScore
from authbench.studies.authority.judges.point import PointJudge

__all__ = ["DERIVATION_COLUMNS", "DERIVATION_JUDGES", "JUDGES", "JUDGE_NAMES", "POINT", "PAIRS_TABLE_ORDER",
           "SCORE_JUDGES", "Judge", "ListJudge", "ListRank", "ListScore", "PairJudge", "PairRank", "PairScore", "PointJudge", "judge_label",
           "judge_of", "judges_on", "main_derivation"]

# The judge of Table 8 and Figure 6 (the bias sample's per-item scores).
POINT = PointJudge()
# The registry, in the paper's judge order.
JUDGES: dict[str, Judge] = {j.name: j for j in (POINT, ListRank(), ListScore(), PairRank(), PairScore())}
JUDGE_NAMES = tuple(JUDGES)  # config `judges:` (the schema's enum equals it, a test checks), the {judge} wildcard


def judge_of(name: str) -> Judge:
    """The judge named ``name`` (a ValueError naming the known judges otherwise)."""
    try:
        return JUDGES[name]
    except KeyError:
        raise ValueError(f"unknown judge {name!r}; expected one of {list(JUDGES)}") from None


def judges_on(setting: str) -> tuple[str, ...]:
    """The judges that run on an instance set (cell setting), in the registry's order."""
    return tuple(name for name, j in JUDGES.items() if setting in j.settings)


def main_derivation(name: str) -> str | None:
    """The derivation of a judge's number in the main tables (None: no judge of the registry)."""
    judge = JUDGES.get(name)
    return None if judge is None else judge.derivation


def judge_label(name: str) -> str:
    """A judge's label (``PointJudge``, ``ListRank``, ...; an unknown name as it is)."""
    judge = JUDGES.get(name)
    return name if judge is None else judge.label


# the judges whose replies are scores: E[s] beside the argmax (config expected_scores)
SCORE_JUDGES = tuple(name for name, j in JUDGES.items() if j.scores)
# the judges with columns in Tables 9-12 (the pair judges' ranking derivations)
DERIVATION_JUDGES = tuple(name for name, j in JUDGES.items() if j.derivation_labels)
# Tables 9-12's columns: (the column, judge, derivation): the paper's, then the Bradley–Terry ones
DERIVATION_COLUMNS = tuple(sorted(((label, name, d) for name in DERIVATION_JUDGES
                                   for d, label in JUDGES[name].derivation_labels.items()),
                                  key=lambda column: column[2] == BT_DERIVATION))
# Table 3's column order: the judges on the pairs set, those comparing two items first
PAIRS_TABLE_ORDER = tuple(sorted(judges_on("pairs"), key=lambda name: JUDGES[name].shape != "pair"))
