"""ListJudge: a whole list per call (the paper's prompts F and G), in two
variants that differ in what the reply states: :class:`ListRank` a ranking
of the list's ids, :class:`ListScore` a score per id.

* Requests: one per list (``<instance_id>``); the template shows one
  ``item`` line per list item and may say the list's size (``{n}``) and
  last id (``{last_id}``).
* Derivation: ``direct``, the reply itself. ListRank: the ranking's
  positions (a reply that is not a clean permutation is repaired by the
  parser: first mention kept, missing ids appended in presentation order,
  counted as a parse failure); ListScore: the scores (unscored items rank
  last, tied). Under ``strict`` parsing a failed reply ranks nothing: the
  whole list is constant, ρ = τ = 0, counted in ``n_constant``.
* Predictions (lists only): ListScore an item's score; ListRank its
  position as a score, the fraction of the list's other items ranked below
  it (1 = first, 0 = last).
* Judge validity: ``position_constant`` (the same reply by position in
  many lists) and ``position_rho`` (presentation position vs. predicted
  value); the example reply is read for the list's size.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Any, Iterator, Mapping, Sequence

from authbench.llm.prompts import placeholders
from authbench.records import is_missing
from authbench.studies.authority import ranking as R
from authbench.studies.authority.consistency import Pair, reversed_order
from authbench.studies.authority.judges.base import Judge, position_rho
from authbench.studies.authority.rows import LABEL_KEY, list_rows, usable_value

__all__ = ["ListJudge", "ListRank", "ListScore"]


class ListJudge(Judge):
    """The list shape: what ListRank and ListScore share."""

    shape = "list"
    settings = ("fine", "coarse")
    family = "ListJudge"
    counts_lists = True
    optional_fields = frozenset({"n", "last_id"})
    item_line = True
    has_orders = True
    required: frozenset[str] = frozenset({"items"})  # its template's own placeholders

    def required_fields(self, fields: Sequence[str], benchmark: str) -> set[str]:
        return set(self.required)

    def example_params(self, n: int | None) -> dict:
        return {"n": n, "last_id": n - 1}

    # --- the reply format's reading (each variant) -------------------------------------------------------
    def predicted(self, value, n: int) -> list[float]:
        """The predicted value of each position of a usable reply."""
        raise NotImplementedError

    def position_values(self, value, n: int) -> dict[int, float | None]:
        """Each position's per-item prediction of a reply (None: no reply)."""
        raise NotImplementedError

    def vector(self, value, n: int) -> tuple:
        """A usable reply read by position (position_constant)."""
        raise NotImplementedError

    def vector_values(self, vector: tuple, n: int) -> dict[int, float]:
        """Predicted value per position of a reply vector (positions without a score left out)."""
        raise NotImplementedError

    # --- the shape ---------------------------------------------------------------------------------------
    def calls(self, setting: str, instances: Sequence[Mapping], seed: int,
              flips: dict | None = None) -> list[tuple[str, int, tuple[int, ...]]]:
        return [(inst["instance_id"], k, tuple(range(len(inst["items"])))) for k, inst in enumerate(instances)]

    def reversed_calls(self, calls):
        """Each list shown last item first (the request id stays the list's:
        the reversed job's own judgments file keeps them apart)."""
        return [(rid, k, tuple(positions[j] for j in reversed_order(len(positions)))) for rid, k, positions in calls]

    def shown_instances(self, instances, order):
        if order == "seeded":
            return list(instances)
        return [{**inst, "items": [inst["items"][j] for j in reversed_order(len(inst["items"]))]} for inst in instances]

    def both_orders(self, instances, first, second, parse, values):
        """Every item pair ``i < j`` of a list (``i`` shown before ``j`` in the
        first order, after it in the reversed one), each order preferring the
        item with the higher value; a list without a usable reply in either
        order is left out."""
        one = {j["request_id"]: usable_value(j, parse) for j in first}
        two = {j["request_id"]: usable_value(j, parse) for j in second}
        out = {}
        for inst in instances:
            iid, n = inst["instance_id"], len(inst["items"])
            v1, v2 = one.get(iid), self.unreversed(two.get(iid), n)
            if v1 is None or v2 is None:
                continue
            a, b = self.predicted(v1, n), self.predicted(v2, n)
            values[iid] = (a, b)
            out[iid] = [Pair(i, j, _higher(a, i, j), _higher(b, i, j)) for i, j in itertools.combinations(range(n), 2)]
        return out

    def request_ids(self, instance_id, pair):
        return instance_id, instance_id

    def unreversed(self, value, n: int):
        """A reply to the reversed list with its ids turned back into the
        list's positions (id ``d`` showed position ``n − 1 − d``); None stays None."""
        raise NotImplementedError

    def shown_fields(self, template) -> list[tuple[int | None, str]]:
        return [(None, f) for f in placeholders(template.item) if f != "id"]

    def render(self, template, items: Sequence[Mapping], positions: Sequence[int]) -> str:
        return template.render_list([items[p] for p in positions])

    @staticmethod
    def replies(judgments: Sequence[Mapping], parse: str) -> dict[str, Any]:
        """Instance id -> the reply's usable value."""
        return {j["request_id"]: usable_value(j, parse) for j in judgments}

    def evaluate(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                 parse: str = "strict", units: list | None = None) -> list[dict]:
        key = LABEL_KEY[setting]
        by_id = self.replies(judgments, parse)
        pairs = []
        for inst in instances:
            n = len(inst["items"])
            value = by_id[inst["instance_id"]]
            # strict: a failed reply ranks nothing
            pred = R.scores_to_predicted_values({}, n) if value is None else self.predicted(value, n)
            pairs.append(([it[key] for it in inst["items"]], pred))
        return list_rows(setting, self.name, "direct", instances, pairs, units)

    def grades(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
               parse: str = "strict") -> dict[str, dict]:
        """gold = the true levels in the order shown, correct null (ρ and τ are per list)."""
        key = LABEL_KEY[setting]
        by_id = {inst["instance_id"]: inst for inst in instances}
        return {j["request_id"]: {"gold": [it[key] for it in by_id[j["request_id"]]["items"]], "correct": None}
                for j in judgments}

    def gives_item_scores(self, setting: str) -> bool:
        return setting in ("fine", "coarse")

    def item_values(self, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                    parse: str = "strict") -> Iterator[tuple[Mapping, float | None]]:
        by_id = self.replies(judgments, parse)
        for inst in instances:
            value = by_id.get(inst["instance_id"])
            values = {} if value is None else self.position_values(value, len(inst["items"]))
            for i, item in enumerate(inst["items"]):
                yield item, values.get(i)

    def position_diagnostics(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                             parse: str = "strict") -> list[tuple[str, float, int]]:
        by_id = self.replies(judgments, parse)
        vectors, positions, values, used = [], [], [], 0
        for inst in instances:
            n = len(inst["items"])
            value = by_id.get(inst["instance_id"])
            if value is None:  # no usable reply: never matches
                continue
            vector = self.vector(value, n)
            vectors.append(vector)
            per_position = self.vector_values(vector, n)
            if per_position:
                used += 1
                positions += list(per_position)
                values += list(per_position.values())
        informative = Counter(v for v in vectors if len(set(self.vector_values(v, len(v)).values())) > 1)
        top = informative.most_common(1)[0][1] if informative else 0
        n_lists = len(instances)
        share = (top / n_lists if top >= 2 else 0.0) if n_lists else math.nan
        return [("position_constant", share, n_lists), ("position_rho", position_rho(positions, values), used)]

    def example_sizes(self, instances: Sequence[Mapping]) -> Mapping[str, int]:
        return {inst["instance_id"]: len(inst["items"]) for inst in instances}


def _higher(values: Sequence[float], i: int, j: int) -> int | None:
    return i if values[i] > values[j] else j if values[j] > values[i] else None


def _rank_fractions(values: Sequence[float], n: int) -> dict[int, float | None]:
    """``ranking_to_values``' n-1 (first) .. 0 (last) -> 1 .. 0; a negative
    value (strict: no parsed comparison) is no value."""
    return {i: (None if v < 0 else v / (n - 1)) for i, v in enumerate(values)}


class ListRank(ListJudge):
    """The reply ranks the list's ids, best first (``[4] > [0] > ...``)."""

    name = "list_rank"
    label = "ListRank"
    output = "ranking"
    variant = "ListRank"
    scores = False
    marker = "s"
    reply_vector = "ranking"
    required = frozenset({"items", "n"})

    def predicted(self, value, n: int) -> list[float]:
        return R.ranking_to_values(value, n)

    def position_values(self, value, n: int) -> dict[int, float | None]:
        return _rank_fractions(R.ranking_to_values(value, n), n)

    def vector(self, value, n: int) -> tuple:
        return tuple(int(i) for i in value)

    def unreversed(self, value, n: int):
        return None if value is None else [n - 1 - int(i) for i in value]

    def vector_values(self, vector: tuple, n: int) -> dict[int, float]:
        return dict(enumerate(R.ranking_to_values(list(vector), n)))


class ListScore(ListJudge):
    """The reply scores each id of the list (``{"0": 7, "1": 4, ...}``)."""

    name = "list_score"
    label = "ListScore"
    output = "list_scores"
    variant = "PointScore"
    scores = True
    marker = "D"

    @staticmethod
    def _by_position(value) -> dict[int, Any]:
        return {int(k): v for k, v in value.items()}

    def predicted(self, value, n: int) -> list[float]:
        return R.scores_to_predicted_values(self._by_position(value), n)

    def unreversed(self, value, n: int):
        return None if value is None else {str(n - 1 - int(k)): v for k, v in value.items()}

    def position_values(self, value, n: int) -> dict[int, float | None]:
        return {i: (None if v is None else float(v)) for i, v in self._by_position(value).items()}

    def vector(self, value, n: int) -> tuple:
        scores = self._by_position(value)
        return tuple(None if is_missing(scores.get(i)) else scores[i] for i in range(n))

    def vector_values(self, vector: tuple, n: int) -> dict[int, float]:
        return {i: float(v) for i, v in enumerate(vector) if v is not None}

    def item_scores(self, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                    parse: str = "strict") -> list[dict[int, Any]]:
        by_id = self.replies(judgments, parse)
        return [self._by_position(by_id[inst["instance_id"]] or {}) for inst in instances]
