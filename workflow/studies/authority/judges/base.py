"""What every AuthorityBench judge declares and does: :class:`Judge`, the
base of the three shapes (:class:`~authbench.studies.authority.judges.point.PointJudge`,
:class:`~authbench.studies.authority.judges.listwise.ListJudge`,
:class:`~authbench.studies.authority.judges.pairwise.PairJudge`).

A judge is one object of the registry
(:data:`authbench.studies.authority.judges.JUDGES`). Every step that
depends on which judge a cell has asks that object: the template check
(:func:`authbench.studies.authority.prompts.load_template`), the requests of
a cell, the evaluation (judgments -> rankings -> metric rows and units), the
samples' grades, the per-item predictions, the judge-validity diagnostics,
the tables' headers, the keyed numbers of Tables 1-4, 6 and 9-12 and the
cost table. Nothing outside the package compares a judge's name.

The grid (:func:`authbench.studies.authority.grid.grid`) runs each judge
on the instance sets it declares (:attr:`Judge.settings`)."""

from __future__ import annotations

import math
from typing import Any, ClassVar, Iterator, Mapping, Sequence

from authbench.llm.prompts import placeholders
from authbench.studies.authority.metrics import spearman

__all__ = ["Judge", "position_rho", "request"]

Rows = list[dict]


def request(request_id: str, output: str, n: int, prompt: str) -> dict:
    """One request of a cell as a plain record."""
    return {"request_id": request_id, "output": output, "n": n, "prompt": prompt}


def position_rho(positions: list[float], values: list[float]) -> float:
    """Spearman's ρ between presentation positions and predicted values; NaN
    when either side is constant (the diagnostic ``position_rho``)."""
    if len(set(positions)) < 2 or len(set(values)) < 2:
        return math.nan
    return spearman(positions, values)


class Judge:
    """A judge: its declaration (class attributes) and its behaviour (methods
    each shape implements). Instances hold no state; the registry keeps one
    of each."""

    name: ClassVar[str]  # config `judges:`, the {judge} wildcard, the metric rows' judge column
    label: ClassVar[str]  # its name in the cost table and the judge-validity notes
    output: ClassVar[str]  # the reply format (resources/prompts/, authbench.llm.formats)
    shape: ClassVar[str]  # point (one item per call), list (a whole list), pair (two items)
    # the instance sets (cell settings) it runs on: fine (N=10 lists), coarse (N=5), pairs, bias (Figure 6's sample)
    settings: ClassVar[tuple[str, ...]]
    family: ClassVar[str]  # the paper's judge family, the tables' first header row
    variant: ClassVar[str] = ""  # its variant within the family, the second header row
    scores: ClassVar[bool]  # its replies are scores: E[s] beside the argmax (config expected_scores)
    derivations: ClassVar[tuple[str, ...]] = ("direct",)  # the rankings its list rows are derived by
    derivation: ClassVar[str] = "direct"  # the one of the main tables (1, 2, 4, 6) and the main comparisons
    # Tables 9-12: derivation -> the paper's column (the pair judges: how a ranking is derived from comparisons)
    derivation_labels: ClassVar[Mapping[str, str]] = {}
    pairs_header: ClassVar[str] = ""  # its column header in Table 3 (judges on the pairs set)
    marker: ClassVar[str]  # its marker in the cost-vs-ρ figure
    reply_vector: ClassVar[str] = "score vector"  # what one reply read by position is called (validity notes)
    counts_lists: ClassVar[bool] = False  # its validity minimum counts lists (else replies)
    optional_fields: ClassVar[frozenset[str]] = frozenset()  # template placeholders it may use besides its own
    item_line: ClassVar[bool] = False  # its template has an `item` line per list item
    flips_positions: ClassVar[bool] = False  # its calls show two items in a seeded coin flip's order
    # its calls can be shown a second time in the other order (config position_consistency: pair and list judges)
    has_orders: ClassVar[bool] = False
    # its scores averaged over both orders rank the items (Wang et al.'s balanced position calibration)
    averages_orders: ClassVar[bool] = False

    # --- declaration -----------------------------------------------------------------------------------
    @property
    def full_name(self) -> str:
        """``ListJudge PointScore``: the E[s] table's rows."""
        return f"{self.family} {self.variant}".strip()

    @property
    def short(self) -> str:
        """``Point``, ``ListRank``, ...: the constant-lists columns."""
        return self.label.removesuffix("Judge")

    @property
    def kind(self) -> str:
        """What its per-item predictions are: ``score`` or ``rank`` (a position)."""
        return "score" if self.scores else "rank"

    @property
    def fail_derivations(self) -> tuple[str, ...]:
        """Its derivations, the main one first: where Tables 9-12 read its parse-failure rate."""
        return (self.derivation, *(d for d in self.derivations if d != self.derivation))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # --- its template ----------------------------------------------------------------------------------
    def template_fields(self, fields: Sequence[str], benchmark: str) -> tuple[str, ...]:
        """The item fields its prompt shows of one item, given the benchmark's
        and context's ``fields`` (:data:`authbench.studies.authority.prompts.ITEM_FIELDS`)."""
        return tuple(fields)

    def required_fields(self, fields: Sequence[str], benchmark: str) -> set[str]:
        """The placeholders its template must use."""
        raise NotImplementedError

    def example_params(self, n: int | None) -> dict:
        """What its template's example reply is formatted with (lists: the list's size)."""
        return {}

    # --- a cell's requests and replies -----------------------------------------------------------------
    def calls(self, setting: str, instances: Sequence[Mapping], seed: int,
              flips: dict | None = None) -> list[tuple[str, int, tuple[int, ...]]]:
        """Every request of a cell as ``(request id, instance index, positions
        of the items shown, in order)``, before any prompt is rendered (the
        plan renders only the sampled ones). ``flips``: a memo of the pair
        shape's position coin flips, for a caller listing several cells of
        the same instances."""
        raise NotImplementedError

    def shown_fields(self, template) -> list[tuple[int | None, str]]:
        """``(item slot, field)`` in the order its prompt shows them (a list
        judge's item line: slot None, every item in turn)."""
        return [(0, f) for f in placeholders(template.template)]

    def render(self, template, items: Sequence[Mapping], positions: Sequence[int]) -> str:
        """The prompt of one call: ``items`` of its instance shown at ``positions``."""
        raise NotImplementedError

    def reversed_calls(self, calls: Sequence[tuple[str, int, tuple[int, ...]]]) -> list[tuple[str, int, tuple[int, ...]]]:
        """``calls`` shown in the other order: the reversed job of a cell
        (config ``position_consistency``; :mod:`authbench.studies.authority.consistency`)."""
        raise NotImplementedError(f"{self.name} shows one item per call: it has no other order")

    def order_calls(self, setting: str, instances: Sequence[Mapping], seed: int, order: str = "seeded",
                    flips: dict | None = None) -> list[tuple[str, int, tuple[int, ...]]]:
        """:meth:`calls` in ``order``: ``seeded`` (the cell's) or ``reversed``."""
        calls = self.calls(setting, instances, seed, flips)
        if order == "seeded":
            return calls
        if order == "reversed":
            return self.reversed_calls(calls)
        raise ValueError(f"order must be 'seeded' or 'reversed', got {order!r}")

    def shown_instances(self, instances: Sequence[Mapping], order: str) -> list[Mapping]:
        """``instances`` as the calls of ``order`` show them (its samples' grades; default: as they are)."""
        return list(instances)

    def both_orders(self, instances: Sequence[Mapping], first: Sequence[Mapping], second: Sequence[Mapping],
                    parse: str, values: dict) -> dict[str, list]:
        """Per instance id, its comparisons in both orders
        (:class:`authbench.studies.authority.consistency.Pair`) from a cell's
        judgments (``first``) and its reversed job's (``second``); ``values``
        gets a list judge's per-list values of both orders."""
        raise NotImplementedError(f"{self.name} shows one item per call: it has no other order")

    def request_ids(self, instance_id: str, pair) -> tuple[str, str]:
        """The request ids of one comparison (``pair``: its
        :class:`~authbench.studies.authority.consistency.Pair`; None: the
        instance's) in the seeded order and in the reversed job."""
        raise NotImplementedError(f"{self.name} shows one item per call: it has no other order")

    def requests(self, setting: str, instances: Sequence[Mapping], template, seed: int,
                 order: str = "seeded") -> Rows:
        """Every request of a cell (``request_id``, ``output``, ``n``, ``prompt``) in ``order``."""
        return [request(rid, self.output, len(positions), self.render(template, instances[k]["items"], positions))
                for rid, k, positions in self.order_calls(setting, instances, seed, order)]

    def evaluate(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                 parse: str = "strict", units: list | None = None) -> Rows:
        """The metric rows of a cell on label scale ``setting``
        (:func:`authbench.studies.authority.evaluate.evaluate_cell`)."""
        raise NotImplementedError

    def grades(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
               parse: str = "strict") -> dict[str, dict]:
        """Per request id, its ``gold`` and ``correct`` for the cell's samples
        (:func:`authbench.studies.authority.evaluate.sample_grades`)."""
        raise NotImplementedError

    # --- per-item predictions --------------------------------------------------------------------------
    def gives_item_scores(self, setting: str) -> bool:
        """Whether its cells on ``setting`` give their items a score or a position."""
        raise NotImplementedError

    def item_values(self, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                    parse: str = "strict") -> Iterator[tuple[Mapping, float | None]]:
        """``(item, value)`` for every item it gave a value or none
        (:mod:`authbench.studies.authority.predictions` averages an item's values)."""
        raise NotImplementedError

    # --- judge validity (authbench.studies.authority.diagnostics) -------------------------------------
    def position_diagnostics(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                             parse: str = "strict") -> list[tuple[str, float, int]]:
        """``(metric, value, n)`` of its shape's position diagnostics."""
        return []

    def example_sizes(self, instances: Sequence[Mapping]) -> Mapping[str, int] | None:
        """Per request id the list size its example reply is read for (None:
        the example does not depend on the request)."""
        return None

    def item_scores(self, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                    parse: str = "strict") -> list[dict[int, Any]]:
        """Per instance, the score of each item its ρ (pairs: its accuracy) is
        computed from (None: unscored); score judges only (``near_constant``)."""
        raise NotImplementedError(f"{self.name} gives no scores")
