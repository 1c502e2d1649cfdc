"""PointJudge: one item per call, a 0-9 authority score (the paper's
Appendix A prompt).

* Requests: one per distinct item of the setting (``item:<key>``, the key
  being the domain or the entity name); lists and pairs are then ranked and
  compared by these scores. EntityAuth's prompt (H) also shows the entity's
  own question.
* Derivation: ``direct``. A list's predicted values are the scores
  (unscored items rank last, tied); a pair is correct when the scores order
  it like the truth (a tie is wrong). The ``bias`` setting gives no rows
  (Table 8 and Figure 6 read its predictions).
* Predictions: an item's score, any setting (the prompt depends only on the
  item, so every setting gives the same reply).
* Judge validity: no position diagnostics (one item per call);
  ``near_constant`` on its scores.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Sequence

from authbench.studies.authority.judges.base import Judge
from authbench.studies.authority.rows import LABEL_KEY, evaluate_scores, usable_value
from authbench.studies.authority.sampling import item_key

__all__ = ["PointJudge"]


class PointJudge(Judge):
    name = "point"
    label = "PointJudge"
    output = "score"
    shape = "point"
    settings = ("fine", "coarse", "pairs", "bias")  # the only judge of the bias sample
    family = "PointJudge"
    scores = True
    pairs_header = "PointJudge"
    marker = "o"
    # the fields its prompt shows beside the item's own, per benchmark
    EXTRA_FIELDS = {"entityauth": ("question",)}

    def template_fields(self, fields: Sequence[str], benchmark: str) -> tuple[str, ...]:
        return tuple(fields) + self.EXTRA_FIELDS.get(benchmark, ())

    def required_fields(self, fields: Sequence[str], benchmark: str) -> set[str]:
        return set(self.template_fields(fields, benchmark))

    @staticmethod
    def item_of(request_id: str) -> str:
        """The item key of a request id ``item:<key>``."""
        return request_id.split(":", 1)[1]

    def calls(self, setting: str, instances: Sequence[Mapping], seed: int,
              flips: dict | None = None) -> list[tuple[str, int, tuple[int, ...]]]:
        out, seen = [], set()
        for k, inst in enumerate(instances):
            for p, item in enumerate(inst["items"]):
                key = item_key(item)
                if key in seen:
                    continue
                seen.add(key)
                out.append((f"item:{key}", k, (p,)))
        return out

    def render(self, template, items: Sequence[Mapping], positions: Sequence[int]) -> str:
        return template.render_point(items[positions[0]])

    def scores_by_item(self, judgments: Sequence[Mapping], parse: str) -> dict[str, Any]:
        """Item key -> the score it contributes (None: unscored)."""
        return {self.item_of(j["request_id"]): usable_value(j, parse) for j in judgments}

    def evaluate(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                 parse: str = "strict", units: list | None = None) -> list[dict]:
        by_key = self.scores_by_item(judgments, parse)
        return evaluate_scores(setting, self.name, instances, lambda inst, i: by_key[item_key(inst["items"][i])],
                               units)

    def grades(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
               parse: str = "strict") -> dict[str, dict]:
        """gold = the item's level on the setting's scale, correct null."""
        key = LABEL_KEY[setting]
        level = {item_key(it): it[key] for inst in instances for it in inst["items"]}
        return {j["request_id"]: {"gold": level[self.item_of(j["request_id"])], "correct": None} for j in judgments}

    def gives_item_scores(self, setting: str) -> bool:
        return True

    def item_values(self, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                    parse: str = "strict") -> Iterator[tuple[Mapping, float | None]]:
        by_key = self.scores_by_item(judgments, parse)
        seen = set()
        for inst in instances:
            for item in inst["items"]:
                key = item_key(item)
                if key in seen:
                    continue
                seen.add(key)
                value = by_key.get(key)
                yield item, None if value is None else float(value)

    def item_scores(self, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                    parse: str = "strict") -> list[dict[int, Any]]:
        by_key = self.scores_by_item(judgments, parse)
        return [{i: by_key[item_key(it)] for i, it in enumerate(inst["items"])} for inst in instances]
