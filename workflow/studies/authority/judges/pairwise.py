"""PairJudge: two items per call (the paper's prompts C, D and E), in two
variants: :class:`PairRank` answers which item is more authoritative,
:class:`PairScore` scores both.

* Requests: one per comparison, ``<instance_id>:<a>-<b>`` where ``a`` is
  the list position shown as "A". Fine lists: each non-anchor vs every
  anchor plus every anchor pair (35 calls for 10 items and 5 anchors);
  coarse lists: every pair (10 calls for 5 items); the pairs setting: the
  pair as sampled. Which item sits in position A is a seeded coin flip per
  comparison, recorded in the id and the judgment.
* Derivations on lists (:mod:`authbench.studies.authority.ranking`):
  ``bubble`` — BubbleSort from the presentation order, with the anchor rule
  where a pair was not compared (PairRank's main number; PairScore's
  PointScore_Bbl of Tables 9-12) — and, for PairScore, ``average`` —
  AverageScore, each item's mean score over its comparisons (the paper's
  main number, PointScore_Pt). Under ``strict`` parsing an item without one
  parsed comparison ranks last in BubbleSort. Both judges also give ``bt``,
  the Bradley–Terry strengths of a cell's lists fitted together with one
  order effect (:mod:`authbench.studies.authority.bradley_terry`; new rows
  beside the paper's, PairRank_BT and PointScore_BT in Tables 9-12; the
  order effect, the pull of position A in logits, is a judge-validity
  diagnostic). On the pairs setting:
  ``direct``, the reply's verdict (a tie or an unparsed reply is wrong).
* Predictions: PairScore an item's AverageScore (lists and pairs); PairRank
  (lists only) its BubbleSort position as a score, the fraction of the
  list's other items ranked below it. A pair's single PairRank choice is no
  position on a scale, so PairRank's pairs cells give no predictions.
* Judge validity: ``position_rho`` (A = 0, B = 1 vs. the predicted value),
  ``a_share`` (decisive replies preferring A), ``a_expected`` (how often A
  is truly higher) and, on lists, ``order_effect`` (the Bradley–Terry fit's).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from typing import Any, Iterable, Iterator, Mapping, Sequence

from authbench.llm.prompts import placeholders
from authbench.records import is_missing
from authbench.seeding import rng
from authbench.studies.authority import bradley_terry as BT
from authbench.studies.authority import metrics as M
from authbench.studies.authority import ranking as R
from authbench.errors import InputError
from authbench.studies.authority.consistency import Pair, preferred
from authbench.studies.authority.judges.base import Judge, position_rho
from authbench.studies.authority.rows import LABEL_KEY, list_rows, pair_outcome, pair_rows, usable_value

__all__ = ["PairJudge", "PairRank", "PairScore", "comparisons_of", "flip_keys", "pair_ids", "position_flip"]


def comparisons_of(inst: Mapping, setting: str) -> list[tuple[int, int]]:
    """The position pairs a list or pair of ``setting`` is compared on."""
    n = len(inst["items"])
    if setting == "pairs":
        return [(0, 1)]
    if setting == "coarse" or not inst.get("anchors"):
        return list(itertools.combinations(range(n), 2))
    anchors = inst["anchors"]
    others = [i for i in range(n) if i not in anchors]
    return [(x, a) for x in others for a in anchors] + list(itertools.combinations(anchors, 2))


def position_flip(seed: int, iid: str, i: int, j: int) -> bool:
    """The seeded coin flip that shows item ``j`` of a comparison in position A."""
    return rng(seed, "position", iid, i, j).random() < 0.5


def flip_keys(setting: str, instances: Sequence[Mapping]) -> list[tuple[str, int, int]]:
    """The ``(instance id, i, j)`` of every comparison of ``setting`` whose
    positions a coin flips (:func:`position_flip`): the keys of
    :meth:`PairJudge.calls`' memo."""
    if setting == "pairs":
        return []
    return [(inst["instance_id"], i, j) for inst in instances for i, j in comparisons_of(inst, setting)]


def _flipped(seed: int, iid: str, i: int, j: int, memo: dict | None) -> bool:
    if memo is None:
        return position_flip(seed, iid, i, j)
    key = (iid, i, j)
    flip = memo.get(key)
    if flip is None:
        flip = memo[key] = position_flip(seed, iid, i, j)
    return flip


def pair_ids(request_id: str) -> tuple[str, int, int]:
    """``<instance_id>:<a>-<b>`` -> (instance id, position shown as A, as B)."""
    instance_id, positions = request_id.rsplit(":", 1)
    a, b = positions.split("-")
    return instance_id, int(a), int(b)


def _strict_bubble_values(values: list[float], records: Sequence[Mapping]) -> list[float]:
    """Strict parsing: an item without one parsed comparison has no prediction
    and ranks last (tied) instead of keeping its presentation-order place."""
    seen = {i for r in records if r["ok"] for i in (r["a"], r["b"])}
    return [v if i in seen else -1.0 for i, v in enumerate(values)]


class PairJudge(Judge):
    """The pair shape: what PairRank and PairScore share."""

    shape = "pair"
    flips_positions = True
    has_orders = True
    settings = ("fine", "coarse", "pairs")
    family = "PairJudge"
    mode: str  # how BubbleSort reads a comparison (authbench.studies.authority.ranking): rank or score

    def required_fields(self, fields: Sequence[str], benchmark: str) -> set[str]:
        return {f"{f}_{s}" for f in fields for s in ("a", "b")}

    # --- the reply format's reading (each variant) -------------------------------------------------------
    def read(self, record: dict, value) -> None:
        """Put a usable reply's value into its comparison record."""
        raise NotImplementedError

    def verdict(self, true_a: float, true_b: float, rec: Mapping) -> tuple[list, bool]:
        """Its prediction for one comparison record and whether it is correct."""
        raise NotImplementedError

    def pair_values(self, rec: Mapping) -> tuple[float, float] | None:
        """The values it gave A and B in one comparison (None: no usable reply)."""
        raise NotImplementedError

    # --- the shape ---------------------------------------------------------------------------------------
    def calls(self, setting: str, instances: Sequence[Mapping], seed: int,
              flips: dict | None = None) -> list[tuple[str, int, tuple[int, ...]]]:
        out = []
        for k, inst in enumerate(instances):
            iid = inst["instance_id"]
            for i, j in comparisons_of(inst, setting):
                a, b = (i, j)
                if setting != "pairs" and _flipped(seed, iid, i, j, flips):
                    a, b = j, i
                out.append((f"{iid}:{a}-{b}", k, (a, b)))
        return out

    def reversed_calls(self, calls):
        """Each comparison with its A and B swapped (the pairs setting too): ``<instance_id>:<b>-<a>``."""
        return [(f"{rid.rsplit(':', 1)[0]}:{b}-{a}", k, (b, a)) for rid, k, (a, b) in calls]

    def both_orders(self, instances, first, second, parse, values):
        """Each comparison ``a``-``b`` of ``first`` with its ``b``-``a`` of
        ``second`` (a comparison without it: an :class:`~authbench.errors.InputError`)."""
        one, two = self.comparisons(first, parse), self.comparisons(second, parse)
        out = {}
        for inst in instances:
            iid = inst["instance_id"]
            others = {(r["a"], r["b"]): r for r in two.get(iid, [])}
            pairs = []
            for r1 in one.get(iid, []):
                r2 = others.get((r1["b"], r1["a"]))
                if r2 is None:
                    raise InputError(f"reversed judgments: no reply to {iid}:{r1['b']}-{r1['a']}, the other order "
                                     f"of {iid}:{r1['a']}-{r1['b']} (the two files are not one cell's orders)")
                pairs.append(Pair(r1["a"], r1["b"], preferred(r1, self.mode), preferred(r2, self.mode),
                                  self.balanced(r1, r2)))
            out[iid] = pairs
        return out

    def request_ids(self, instance_id, pair):
        return f"{instance_id}:{pair.x}-{pair.y}", f"{instance_id}:{pair.y}-{pair.x}"

    def balanced(self, first: Mapping, second: Mapping) -> int | None:
        """The item a comparison's scores averaged over both orders put higher (None: none)."""
        return None

    def shown_fields(self, template) -> list[tuple[int | None, str]]:
        """A pair template's ``domain_a`` is slot 0's ``domain``, ``domain_b`` slot 1's."""
        parts = [f.rpartition("_") for f in placeholders(template.template)]
        return [(0 if side == "a" else 1, base) for base, _, side in parts]

    def render(self, template, items: Sequence[Mapping], positions: Sequence[int]) -> str:
        return template.render_pair(items[positions[0]], items[positions[1]])

    def comparisons(self, judgments: Iterable[Mapping], parse: str = "strict") -> dict[str, list[dict]]:
        """Its judgments grouped per instance as comparison records for
        :mod:`authbench.studies.authority.ranking` (``ok``: the reply parsed cleanly)."""
        out: dict[str, list[dict]] = defaultdict(list)
        for j in judgments:
            iid, a, b = pair_ids(j["request_id"])
            rec = {"a": a, "b": b, "choice": None, "score_a": None, "score_b": None, "ok": j["status"] == "ok"}
            self.read(rec, usable_value(j, parse))
            out[iid].append(rec)
        return out

    def derive(self, derivation: str, records: Sequence[Mapping], n: int, anchors, parse: str) -> list[float]:
        """The predicted values of a list's items by one of its per-list derivations (``bt`` fits a cell's
        lists together: :meth:`evaluate`)."""
        if derivation == "bubble":
            values = R.ranking_to_values(R.bubble_ranking(records, n, self.mode, anchors), n)
            return _strict_bubble_values(values, records) if parse == "strict" else values
        if derivation == "average":
            return R.scores_to_predicted_values(R.average_score(records, n), n)
        raise ValueError(f"{self.name}: unknown derivation {derivation!r}; expected one of {self.derivations}")

    def evaluate(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                 parse: str = "strict", units: list | None = None) -> list[dict]:
        key = LABEL_KEY[setting]
        comps = self.comparisons(judgments, parse)
        if setting == "pairs":
            outcomes = []
            for inst in instances:
                (rec,) = comps[inst["instance_id"]]
                pred, ok = self.verdict(inst["items"][rec["a"]][key], inst["items"][rec["b"]][key], rec)
                outcomes.append(pair_outcome(inst, key, rec["a"], pred, ok))
            return pair_rows(setting, self.name, outcomes, units)
        rows = []
        for derivation in self.derivations:
            if derivation == BT.DERIVATION:  # the cell's lists in one fit: their strengths and one order effect
                fit = BT.bradley_terry(BT.instance_lists(instances, comps), self.mode)
                predicted = [R.scores_to_predicted_values(s, len(inst["items"]))
                             for inst, s in zip(instances, fit.strengths)]
            else:
                predicted = [self.derive(derivation, comps[inst["instance_id"]], len(inst["items"]),
                                         inst.get("anchors"), parse) for inst in instances]
            pairs = [([it[key] for it in inst["items"]], values) for inst, values in zip(instances, predicted)]
            rows += list_rows(setting, self.name, derivation, instances, pairs, units)
        return rows

    def grades(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
               parse: str = "strict") -> dict[str, dict]:
        """gold = ``"A"`` / ``"B"`` (the one with the higher level) or ``"tie"``;
        correct = :meth:`verdict` under ``parse`` (the evaluation's verdict;
        null for a tie, which no pair metric counts)."""
        key = LABEL_KEY[setting]
        by_id = {inst["instance_id"]: inst for inst in instances}
        out = {}
        for iid, records in self.comparisons(judgments, parse).items():
            items = by_id[iid]["items"]
            for rec in records:
                la, lb = items[rec["a"]][key], items[rec["b"]][key]
                tie = la == lb
                out[f"{iid}:{rec['a']}-{rec['b']}"] = {"gold": "tie" if tie else "A" if la > lb else "B",
                                                       "correct": None if tie else self.verdict(la, lb, rec)[1]}
        return out

    def item_values(self, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                    parse: str = "strict") -> Iterator[tuple[Mapping, float | None]]:
        comps = self.comparisons(judgments, parse)
        for inst in instances:
            values = self.instance_values(inst, comps.get(inst["instance_id"], []))
            for i, item in enumerate(inst["items"]):
                yield item, values.get(i)

    def instance_values(self, inst: Mapping, records: Sequence[Mapping]) -> dict[int, float | None]:
        """Each position's per-item prediction from a list's (pair's) comparisons."""
        raise NotImplementedError

    def position_diagnostics(self, setting: str, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                             parse: str = "strict") -> list[tuple[str, float, int]]:
        key = LABEL_KEY[setting]
        comps = self.comparisons(judgments, parse)
        positions, values, used = [], [], 0
        a_votes, decisive, a_true, unequal = 0, 0, 0, 0
        for inst in instances:
            for rec in comps.get(inst["instance_id"], []):
                la, lb = inst["items"][rec["a"]][key], inst["items"][rec["b"]][key]
                if la != lb:
                    unequal += 1
                    a_true += la > lb
                given = self.pair_values(rec)
                if given is None:
                    continue
                va, vb = given
                used += 1
                positions += [0.0, 1.0]
                values += [va, vb]
                if va != vb:
                    decisive += 1
                    a_votes += va > vb
        nan = float("nan")
        out = [("position_rho", position_rho(positions, values), used),
               ("a_share", a_votes / decisive if decisive else nan, decisive),
               ("a_expected", a_true / unequal if unequal else nan, unequal)]
        if setting != "pairs":  # the Bradley–Terry fit's order effect (one comparison per pair sets no strengths)
            fit = BT.bradley_terry(BT.instance_lists(instances, comps), self.mode)
            out.append(("order_effect", BT.order_effect(fit), fit.used))
        return out


class PairRank(PairJudge):
    """The reply names the more authoritative item (``A`` or ``B``)."""

    name = "pair_rank"
    label = "PairRank"
    output = "pair_choice"
    variant = "PairRank"
    scores = False
    mode = "rank"
    derivations = ("bubble", "bt")
    derivation = "bubble"
    derivation_labels = {"bubble": "PairRank", "bt": "PairRank_BT"}
    pairs_header = "PairJudge(PR)"
    marker = "^"

    def read(self, record: dict, value) -> None:
        record["choice"] = value

    def verdict(self, true_a: float, true_b: float, rec: Mapping) -> tuple[list, bool]:
        return [rec["choice"]], M.choice_correct(true_a, true_b, rec["choice"])

    def pair_values(self, rec: Mapping) -> tuple[float, float] | None:
        if rec["choice"] not in ("A", "B"):
            return None
        return (1.0, 0.0) if rec["choice"] == "A" else (0.0, 1.0)

    def gives_item_scores(self, setting: str) -> bool:
        return setting in ("fine", "coarse")

    def instance_values(self, inst: Mapping, records: Sequence[Mapping]) -> dict[int, float | None]:
        # BubbleSort over the list's comparisons (anchor rule); an item
        # without one usable comparison has no position
        n = len(inst["items"])
        values = R.ranking_to_values(R.bubble_ranking(records, n, "rank", inst.get("anchors")), n)
        seen = {i for r in records if r["choice"] is not None for i in (r["a"], r["b"])}
        return {i: (v / (n - 1) if i in seen else None) for i, v in enumerate(values)}


class PairScore(PairJudge):
    """The reply scores both items (``{"A": 7, "B": 4}``)."""

    name = "pair_score"
    label = "PairScore"
    output = "pair_scores"
    variant = "PointScore"
    scores = True
    mode = "score"
    averages_orders = True
    derivations = ("bubble", "average", "bt")
    derivation = "average"
    derivation_labels = {"bubble": "PointScore_Bbl", "average": "PointScore_Pt", "bt": "PointScore_BT"}
    pairs_header = "PairJudge(S)"
    marker = "v"

    def read(self, record: dict, value) -> None:
        if value is not None:
            record["score_a"], record["score_b"] = value["A"], value["B"]

    def verdict(self, true_a: float, true_b: float, rec: Mapping) -> tuple[list, bool]:
        pred = [rec["score_a"], rec["score_b"]]
        return pred, M.pair_correct(true_a, true_b, *pred)

    def pair_values(self, rec: Mapping) -> tuple[float, float] | None:
        if is_missing(rec["score_a"]) or is_missing(rec["score_b"]):
            return None
        return float(rec["score_a"]), float(rec["score_b"])

    def gives_item_scores(self, setting: str) -> bool:
        return setting in ("fine", "coarse", "pairs")

    def balanced(self, first: Mapping, second: Mapping) -> int | None:
        scores = [first["score_a"], first["score_b"], second["score_a"], second["score_b"]]
        if any(is_missing(v) for v in scores):
            return None
        sa, sb = float(scores[0]) + float(scores[3]), float(scores[1]) + float(scores[2])
        return first["a"] if sa > sb else first["b"] if sb > sa else None

    def balanced_values(self, inst: Mapping, first, second, parse: str) -> list[float]:
        """A list's AverageScore over both orders' comparisons, as predicted values."""
        iid, n = inst["instance_id"], len(inst["items"])
        records = [r for judgments in (first, second) for r in self.comparisons(judgments, parse).get(iid, [])]
        return R.scores_to_predicted_values(R.average_score(records, n), n)

    def instance_values(self, inst: Mapping, records: Sequence[Mapping]) -> dict[int, float | None]:
        return R.average_score(records, len(inst["items"]))

    def item_scores(self, instances: Sequence[Mapping], judgments: Sequence[Mapping],
                    parse: str = "strict") -> list[dict[int, Any]]:
        """AverageScore, the main derivation (pairs: the reply's two scores)."""
        comps = self.comparisons(judgments, parse)
        return [R.average_score(comps[inst["instance_id"]], len(inst["items"])) for inst in instances]
