"""The AuthorityBench judges' names and the instance sets (cell settings)
each runs on: what the config layer needs, and nothing more.
:mod:`authbench.config` builds the cell grid from :data:`SETTINGS_FOR_JUDGE`
and :mod:`authbench.vocab` the rules' ``{judge}`` wildcard from
:data:`JUDGE_NAMES` (the schema's ``judges`` enum equals it, a test checks);
neither may import ``authbench.studies``, so this base module holds them.

Everything a judge is and does — its reply format, shape, derivations,
request building, evaluation, predictions, diagnostics and table labels —
lives in its class in :mod:`authbench.studies.authority.judges`, which reads
each judge's name and settings from here (one source)."""

from __future__ import annotations

# The paper's judge order (the main tables' columns). `bias` is the
# PointJudge-only sample behind Figure 6 and Table 8; lists are judged by
# every judge; pairs (Table 3) by the pair judges and PointJudge.
SETTINGS_FOR_JUDGE = {
    "point": ("fine", "coarse", "pairs", "bias"),
    "list_rank": ("fine", "coarse"),
    "list_score": ("fine", "coarse"),
    "pair_rank": ("fine", "coarse", "pairs"),
    "pair_score": ("fine", "coarse", "pairs"),
}
JUDGE_NAMES = tuple(SETTINGS_FOR_JUDGE)
