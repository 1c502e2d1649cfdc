"""AuthorityBench judge requests: sampled instances -> one request per call.

One cell (model x judge x context x setting) asks these requests through
:func:`authbench.llm.runner.generate_replies`. Request ids name what was asked, so
judgments can be joined back to instances; each judge shape lists its calls
and renders them (:meth:`authbench.studies.authority.judges.base.Judge.calls`
and ``render``: an item per PointJudge call, a list per ListJudge call, a
comparison per PairJudge call, the position shown as A a seeded coin flip).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from authbench.studies.authority.judges import judge_of
from authbench.studies.authority.prompts import PromptTemplate


def build_requests(
    judge: str, setting: str, instances: Sequence[Mapping], template: PromptTemplate, seed: int,
    order: str = "seeded",
) -> list[dict]:
    """Every request of a cell as a plain record (id, prompt, format, n);
    ``order`` ``reversed``: the cell's reversed job (config ``position_consistency``)."""
    return judge_of(judge).requests(setting, instances, template, seed, order)
