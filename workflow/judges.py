"""The AuthorityBench judges, declared once: each judge's name, the reply
format it asks for, the instance sets (cell settings) it runs on, its shape
(one item, a list, a pair), the derivation its main-table number comes from
and whether its replies are scores (E[s], :mod:`authbench.llm.expected`).
Every judge list of the package, the rules' ``{judge}`` wildcard
(:func:`authbench.studies.registry.wildcard_constraints`) and the schema's ``judges``
enum (a test checks it) derive from :data:`JUDGES`.

A base module (no authbench imports), not under ``studies/authority/``:
:mod:`authbench.config` builds the cell grid from :data:`SETTINGS_FOR_JUDGE`
and must not import ``authbench.studies``."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Judge:
    name: str
    label: str  # its name in the cost table and the judge-validity notes
    output: str  # the reply format (resources/prompts/, authbench.llm.parse)
    settings: tuple[str, ...]  # the instance sets it runs on
    shape: str  # point (one item per call), list (a whole list), pair (two items)
    derivation: str  # the derivation of its main-table number (Tables 1, 2, 4, 6)
    scores: bool  # its replies are scores: E[s] beside the argmax (config expected_scores)
    family: str  # the paper's judge family, the tables' first header row (PointJudge, ListJudge, PairJudge)
    variant: str  # its variant within the family, the second header row ("" for PointJudge)

    @property
    def full_name(self) -> str:  # "ListJudge PointScore" (the E[s] table's rows)
        return f"{self.family} {self.variant}".strip()

    @property
    def short(self) -> str:  # "Point", "ListRank", ... (the constant-lists columns)
        return self.label.removesuffix("Judge")


# The paper's judge order (the main tables' columns). `bias` is the
# PointJudge-only sample behind Figure 6 and Table 8; lists are judged by
# every judge; pairs (Table 3) by the pair judges and PointJudge.
JUDGES = {j.name: j for j in (
    Judge("point", "PointJudge", "score", ("fine", "coarse", "pairs", "bias"), "point", "direct", True,
          "PointJudge", ""),
    Judge("list_rank", "ListRank", "ranking", ("fine", "coarse"), "list", "direct", False, "ListJudge", "ListRank"),
    Judge("list_score", "ListScore", "list_scores", ("fine", "coarse"), "list", "direct", True,
          "ListJudge", "PointScore"),
    Judge("pair_rank", "PairRank", "pair_choice", ("fine", "coarse", "pairs"), "pair", "bubble", False,
          "PairJudge", "PairRank"),
    Judge("pair_score", "PairScore", "pair_scores", ("fine", "coarse", "pairs"), "pair", "average", True,
          "PairJudge", "PointScore"),
)}

JUDGE_NAMES = tuple(JUDGES)
SETTINGS_FOR_JUDGE = {j.name: j.settings for j in JUDGES.values()}
OUTPUT_FORMAT = {j.name: j.output for j in JUDGES.values()}
JUDGE_LABELS = {j.name: j.label for j in JUDGES.values()}
MAIN_DERIVATION = {j.name: j.derivation for j in JUDGES.values()}
# the judges whose replies are scores: E[s] beside the argmax (config expected_scores)
SCORE_JUDGES = tuple(j.name for j in JUDGES.values() if j.scores)
# the judges that compare two items (Tables 9-12: their derivations)
PAIR_JUDGES = tuple(j.name for j in JUDGES.values() if j.shape == "pair")


def judges_on(setting: str) -> tuple[str, ...]:
    """The judges that run on an instance set (cell setting), in :data:`JUDGES`' order."""
    return tuple(j.name for j in JUDGES.values() if setting in j.settings)


# the judges that run on the pairs instance set (Table 3)
PAIRS_SETTING_JUDGES = judges_on("pairs")
# Table 3's column order: the pair judges, then PointJudge
PAIRS_TABLE_ORDER = tuple(sorted(PAIRS_SETTING_JUDGES, key=lambda name: JUDGES[name].shape != "pair"))
