"""Position consistency: a pair or list judge's verdicts with the items shown
in both orders (issue "Position consistency"; MT-Bench, Wang et al. 2023,
"Judging the Judges" 2024).

A comparison of items ``x`` and ``y`` is judged twice: once with ``x`` as A,
once with ``y`` as A. Each order's verdict is the item it prefers (None: a
tie or an unparsed reply). The comparison is

* *consistent* when both orders prefer the same item;
* a *conflict* when they prefer different items, that is the same
  position (the first, A, or the second, B);
* *partial* when either order gives no preferred item (a tie or an unparsed
  reply).

The three shares sum to 1. Against chance: a judge that picks position A
with probability ``a`` whatever the items is consistent with probability
``2a(1 − a)`` (0 for an always-A judge, 0.5 for a coin).

A list judge's list is shown a second time in reversed order: the two
orders' per-item values (ListRank: the position as a score, ListScore: the
score) are compared by Kendall's τ-b (ListScore has ties) and by the share
of item pairs ordered alike (both orders put the same item higher, or both
tie it). A position-only list judge (the identity ranking) gets τ = −1 and
no pair ordered alike. Reversal leaves the middle item of an odd-length list
in place.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from authbench.records import is_missing

__all__ = ["CONFLICT", "CONSISTENT", "DERIVATION", "KAPPA", "ORDER_SUFFIX", "OUTCOMES", "PARTIAL", "Shares",
           "Pair", "TWIN_COLUMNS", "both_orders_rows", "chance_consistency", "check_pair", "classify", "cohen_kappa",
           "first_position_test", "list_agreement", "outcome", "preferred", "reversed_order", "shares"]

CONSISTENT, CONFLICT, PARTIAL = "consistent", "conflict", "partial"
OUTCOMES = (CONSISTENT, CONFLICT, PARTIAL)
DERIVATION = "both_orders"  # the derivation column of the two-order metric rows (never a paper table's)
KAPPA = "order_kappa"  # the judge-validity diagnostic: Cohen's κ between the two orders' item choices
ORDER_SUFFIX = "/reversed"  # a reversed job's cell id: the cell's own, then this
TWIN_COLUMNS = ("request_id", "twin_request_id", "outcome")  # authbench.cells.viewer.TWINS: the viewer's pairing


def preferred(record: Mapping[str, Any], mode: str) -> int | None:
    """The item a comparison record prefers (``a``, ``b``: the items shown
    as A and B): PairRank's choice, PairScore's higher score; None for a tie
    or an unparsed reply."""
    if mode == "rank":
        choice = record.get("choice")
        return record["a"] if choice == "A" else record["b"] if choice == "B" else None
    if mode == "score":
        sa, sb = record.get("score_a"), record.get("score_b")
        if is_missing(sa) or is_missing(sb) or float(sa) == float(sb):
            return None
        return record["a"] if float(sa) > float(sb) else record["b"]
    raise ValueError(f"mode must be 'rank' or 'score', got {mode!r}")


def outcome(x: int, p1: int | None, p2: int | None) -> tuple[str, str | None]:
    """One comparison in both orders: ``x`` the item shown first in the
    first order (second in the other), ``p1``, ``p2`` the item each order
    prefers (None: none). Its outcome and, for a conflict, the position
    preferred in both (``"A"``: the first shown, or ``"B"``)."""
    if p1 is None or p2 is None:
        return PARTIAL, None
    if p1 == p2:
        return CONSISTENT, None
    return CONFLICT, "A" if p1 == x else "B"


def classify(first: Mapping[str, Any], second: Mapping[str, Any], mode: str) -> tuple[str, str | None]:
    """One comparison record in both orders (``second`` shows ``first``'s B
    item as A): :func:`outcome`."""
    if {first["a"], first["b"]} != {second["a"], second["b"]} or first["a"] == second["a"]:
        raise ValueError(f"not one comparison in both orders: {first['a']}-{first['b']} and "
                         f"{second['a']}-{second['b']}")
    return outcome(first["a"], preferred(first, mode), preferred(second, mode))


@dataclass(frozen=True)
class Shares:
    """A cell's outcome counts and shares (``n``: comparisons in both orders)."""

    consistent: int
    conflict: int
    partial: int
    first_in_conflicts: int  # conflicts that prefer position A in both orders

    @property
    def n(self) -> int:
        return self.consistent + self.conflict + self.partial

    def share(self, outcome: str) -> float:
        return getattr(self, outcome) / self.n if self.n else math.nan

    @property
    def first_share(self) -> float:
        """The share of conflicts that prefer position A (NaN without a conflict)."""
        return self.first_in_conflicts / self.conflict if self.conflict else math.nan


def shares(outcomes: Iterable[tuple[str, str | None]]) -> Shares:
    """Counts of :func:`classify`'s outcomes."""
    counts = {CONSISTENT: 0, CONFLICT: 0, PARTIAL: 0}
    first = 0
    for outcome, position in outcomes:
        counts[outcome] += 1
        first += position == "A"
    return Shares(counts[CONSISTENT], counts[CONFLICT], counts[PARTIAL], first)


def first_position_test(s: Shares) -> float:
    """The exact two-sided binomial p of the first-position share among
    conflicts against 0.5 (NaN without a conflict)."""
    if not s.conflict:
        return math.nan
    from scipy import stats

    return float(stats.binomtest(s.first_in_conflicts, s.conflict, 0.5).pvalue)


def chance_consistency(a_share: float) -> float:
    """The consistency of a judge that picks position A with probability
    ``a_share`` whatever the items: ``2a(1 − a)``."""
    return 2.0 * a_share * (1.0 - a_share)


def cohen_kappa(pairs: Iterable[tuple[int, int]]) -> float:
    """Cohen's κ between the two orders' item choices over the comparisons
    decisive in both: each choice coded 1 when it is the comparison's
    lower-numbered item (``pairs``: (order-1 code, order-2 code)). NaN
    without a comparison, or when chance agreement is 1."""
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return math.nan
    observed = sum(x == y for x, y in pairs) / n
    p1, p2 = sum(x for x, _ in pairs) / n, sum(y for _, y in pairs) / n
    expected = p1 * p2 + (1 - p1) * (1 - p2)
    return math.nan if expected == 1 else (observed - expected) / (1 - expected)


def reversed_order(n: int) -> list[int]:
    """The presentation of a list shown the second time: position ``k``
    shows the item shown first at position ``n − 1 − k``."""
    return list(range(n - 1, -1, -1))


def list_agreement(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """Two orders' per-item values of one list (indexed by item): Kendall's
    τ-b between them and the share of item pairs ordered alike (the same
    item higher in both, or tied in both)."""
    if len(first) != len(second) or len(first) < 2:
        raise ValueError(f"two orders of one list need the same items (>= 2): {len(first)} vs {len(second)}")
    alike = [math.copysign(1, a - b) * (a != b) == math.copysign(1, c - d) * (c != d)
             for (a, c), (b, d) in itertools.combinations(list(zip(first, second)), 2)]
    from authbench.studies.authority.metrics import kendall_tau_b

    return kendall_tau_b(first, second), sum(alike) / len(alike)


# --- a cell in both orders: its metric rows and units ----------------------------------------------------


def check_pair(seeded: Mapping[str, Any], reversed_: Mapping[str, Any], seeded_path: str, reversed_path: str) -> None:
    """The two manifests a consistency step pairs: the reversed job's cell is
    the seeded cell's with :data:`ORDER_SUFFIX`, on the same instances,
    template and model; else an :class:`~authbench.errors.InputError` naming both files."""
    from authbench.errors import InputError

    cell = seeded.get("cell", "")
    if cell.endswith(ORDER_SUFFIX) or reversed_.get("cell") != cell + ORDER_SUFFIX:
        raise InputError(f"{seeded_path} (cell {cell!r}) and {reversed_path} (cell {reversed_.get('cell')!r}): "
                         f"not a cell and its reversed job (expected the second to be the first + {ORDER_SUFFIX!r}; "
                         "config position_consistency)")
    for key, part in (("instances", "sha256"), ("template", "sha256"), ("model", "model")):
        a, b = (seeded.get(key) or {}).get(part), (reversed_.get(key) or {}).get(part)
        if a != b:
            raise InputError(f"{seeded_path} and {reversed_path}: the two orders disagree on {key} {part} "
                             f"({a!r} vs {b!r}): rerun the reversed job (snakemake --forcerun authority_judge_reversed)")


@dataclass
class Pair:
    """One comparison in both orders: ``x`` shown first in the first order,
    ``y`` second; ``p1``, ``p2`` the item each order prefers; ``balanced``
    the item the scores averaged over both orders put higher (None: tied or
    unscored; PairScore only)."""

    x: int
    y: int
    p1: int | None
    p2: int | None
    balanced: int | None = None


def both_orders_rows(judge, setting: str, instances: Sequence[Mapping], first: Sequence[Mapping],
                     second: Sequence[Mapping], parse: str = "strict", units: list | None = None) -> list[dict]:
    """The two-order metric rows of a cell (derivation :data:`DERIVATION`; the
    module docstring and docs/decisions/position-consistency.md) on label
    scale ``setting`` (``judge``: the judge object, :func:`~authbench.studies.authority.judges.judge_of`):
    ``first`` the cell's judgments, ``second`` its
    reversed job's. Each instance (a list or a pair) is a unit; a row's value
    is the mean over the instances it is defined on. Also the judge-validity
    row :data:`KAPPA` (derivation ``validity``)."""
    from authbench.studies.authority.rows import LABEL_KEY, list_rows, row

    key = LABEL_KEY[setting]
    values: dict[str, tuple] = {}  # list judges: per list, both orders' per-item values
    comps = judge.both_orders(instances, first, second, parse, values)
    per_metric: dict[str, list[tuple[str, float]]] = {m: [] for m in (
        "consistency", "conflict", "partial", "first_share", "both_acc", "balanced_acc", "acc_consistent",
        "list_tau", "list_alike")}
    kappa_codes, a_votes, decisive, constant = [], 0, 0, 0
    all_outcomes = []

    def mean_of(metric: str, iid: str, flags: list[bool]) -> None:
        if flags:
            per_metric[metric].append((iid, sum(flags) / len(flags)))

    for inst in instances:
        iid = inst["instance_id"]
        if iid not in comps:
            continue
        items, pairs = inst["items"], comps[iid]
        outcomes = [outcome(p.x, p.p1, p.p2) for p in pairs]
        all_outcomes += outcomes
        for name in OUTCOMES:
            mean_of({CONSISTENT: "consistency", CONFLICT: "conflict", PARTIAL: "partial"}[name], iid,
                    [o == name for o, _ in outcomes])
        mean_of("first_share", iid, [pos == "A" for o, pos in outcomes if o == CONFLICT])
        unequal = [(p, o) for p, (o, _) in zip(pairs, outcomes) if items[p.x][key] != items[p.y][key]]
        higher = {id(p): p.x if items[p.x][key] > items[p.y][key] else p.y for p, _ in unequal}
        mean_of("both_acc", iid, [p.p1 == p.p2 == higher[id(p)] for p, _ in unequal])
        mean_of("acc_consistent", iid, [p.p1 == higher[id(p)] for p, o in unequal if o == CONSISTENT])
        if judge.averages_orders:
            mean_of("balanced_acc", iid, [p.balanced == higher[id(p)] for p, _ in unequal])
        for p in pairs:
            for pick, shown_a in ((p.p1, p.x), (p.p2, p.y)):
                if pick is not None:
                    decisive += 1
                    a_votes += pick == shown_a
            if p.p1 is not None and p.p2 is not None:
                kappa_codes.append((int(p.p1 == p.x), int(p.p2 == p.x)))
        if iid in values:
            tau, alike = list_agreement(*values[iid])
            if math.isnan(tau):  # a constant list in either order
                constant += 1
                tau = 0.0
            per_metric["list_tau"].append((iid, tau))
            per_metric["list_alike"].append((iid, alike))
    rows = []
    for metric, got in per_metric.items():
        if not got:
            continue
        rows.append(row(setting, judge.name, DERIVATION, "all", metric, sum(v for _, v in got) / len(got), len(got),
                        constant if metric == "list_tau" else 0))
        if units is not None:
            units += [{"setting": setting, "judge": judge.name, "derivation": DERIVATION, "difficulty": "all",
                       "metric": metric, "unit": iid, "value": float(v), "items": "", "truth": "", "pred": "",
                       "status": "ok", "a_item": ""} for iid, v in got]
    s = shares(all_outcomes)
    a = a_votes / decisive if decisive else math.nan
    rows += [row(setting, judge.name, DERIVATION, "all", "first_p", first_position_test(s), s.conflict),
             row(setting, judge.name, DERIVATION, "all", "chance_consistency", chance_consistency(a), decisive)]
    if judge.counts_lists:  # list judges: the lists left out (no usable reply in an order)
        rows.append(row(setting, judge.name, DERIVATION, "all", "lists_dropped",
                        float(len(instances) - len(comps)), len(instances)))
    if judge.averages_orders and setting != "pairs":
        # Wang et al.'s balanced position calibration on lists: each list ranked by both orders' scores
        lists = [([it[key] for it in inst["items"]], judge.balanced_values(inst, first, second, parse))
                 for inst in instances]
        rows += list_rows(setting, judge.name, DERIVATION, instances, lists, units)
    rows.append(row(setting, judge.name, "validity", "all", KAPPA, cohen_kappa(kappa_codes), len(kappa_codes)))
    return rows


def twin_rows(judge, instances: Sequence[Mapping], first: Sequence[Mapping], second: Sequence[Mapping],
              parse: str = "strict") -> list[dict]:
    """Each request of a cell with its reversed job's request and its outcome
    (:data:`TWIN_COLUMNS`; the sample viewer's filter and side-by-side
    replies, :data:`authbench.cells.viewer.TWINS`): a pair's own; a list's
    ``conflict`` when any of its item pairs is one, else ``partial`` when
    any is, else ``consistent``; a list left out (no usable reply in an
    order) ``partial``."""
    comps = judge.both_orders(instances, first, second, parse, {})
    out: dict[str, dict] = {}
    for inst in instances:
        iid = inst["instance_id"]
        pairs = comps.get(iid)
        if pairs is None:
            rid, twin = judge.request_ids(iid, None)
            out[rid] = {"request_id": rid, "twin_request_id": twin, "outcome": PARTIAL}
            continue
        for p in pairs:
            rid, twin = judge.request_ids(iid, p)
            got = outcome(p.x, p.p1, p.p2)[0]
            was = out.get(rid, {}).get("outcome", CONSISTENT)
            worst = max(was, got, key=(CONSISTENT, PARTIAL, CONFLICT).index)
            out[rid] = {"request_id": rid, "twin_request_id": twin, "outcome": worst}
    return list(out.values())
