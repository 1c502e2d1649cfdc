"""Label scales shared by the benchmarks: the coarse mapping, Eq. 1's log
binning, and the binning rules that turn any numeric score column into the
benchmark's fine levels (config ``label:`` blocks; docs/decisions/labels.md).

Binning rules (:data:`BINNINGS`), each mapping a score ``s`` to a level
``0 .. levels-1``:

* ``integer``: the score is already an integer level ``0 .. levels``
  (Open PageRank's 0-10). ``levels`` itself is the *top value* (PageRank 10):
  handled by the top rule. Anything else (a fraction, a negative, above
  ``levels``) is a named error.
* ``equal_width``: ``floor(levels * (s - lo) / (hi - lo))`` over ``range``
  ``[lo, hi]`` (default: the corpus's min and max). ``s == hi`` gives
  ``levels``: the top value.
* ``quantile``: equally filled levels by rank: ``floor(levels * r / n)`` with
  ``r`` the number of items whose score is strictly smaller (ties share a
  level; ``n`` items). The maximum always lands in a level below ``levels``:
  quantile bins have no top value.
* ``log``: Eq. 1, ``digitize(s, logspace(log10 lo, log10 hi, levels + 1)) - 1``
  over ``range`` (default: the corpus's min and max). ``s == hi`` gives
  ``levels`` (Eq. 1's 10): the top value. Float rounding at ``s == lo``
  (-1) is clipped to 0. Scores must be > 0.

The top rule (``top``): ``include`` puts the top value into the top level
``levels - 1`` (not a level of its own); ``drop`` removes those items,
counted (``pagerank_10`` for Open PageRank integers, as in the paper;
``above_top_level`` otherwise). Default: ``drop`` for ``integer`` binning
of Open PageRank's ``page_rank`` column, ``include`` for everything else.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from authbench.config import with_defaults
from authbench.errors import ConfigError, LabelError

FINE_LEVELS = tuple(range(10))
COARSE_LEVELS = tuple(range(5))

BINNINGS = ("integer", "equal_width", "quantile", "log")
TOP_RULES = ("include", "drop")
OPEN_PAGERANK_COLUMN = "page_rank"  # the Open PageRank integer (shipped table, fetchers' label table)
# The benchmark's fine scale: N=10 lists (one item per level 0-9), coarse = level // 2, judges score 0-9.
BENCHMARK_LEVELS = len(FINE_LEVELS)


def coarse_level(level: int) -> int:
    """Fine level 0..9 -> coarse level 0..4: {0,1}->0, {2,3}->1, {4,5}->2, {6,7}->3, {8,9}->4."""
    if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 9:
        raise ValueError(f"fine level must be an integer 0..9, got {level!r}")
    return level // 2


@dataclass(frozen=True)
class LabelSpec:
    """How a score column becomes levels (a config ``label:`` block, defaults filled in)."""

    column: str
    binning: str
    levels: int = BENCHMARK_LEVELS
    top: str = "include"
    range: tuple[float, float] | None = None

    @property
    def open_pagerank(self) -> bool:
        """Integer binning of Open PageRank's column: the paper's 0-10 scale, whose 10 is excluded."""
        return self.binning == "integer" and self.column == OPEN_PAGERANK_COLUMN

    @property
    def top_reason(self) -> str:
        """The drop reason of items at the top value under ``top: drop``."""
        return "pagerank_10" if self.open_pagerank else "above_top_level"


def label_spec(block: Mapping[str, Any] | None, default_column: str, default_binning: str,
               where: str = "label") -> LabelSpec:
    """A config ``label:`` block (or None) with its defaults: ``column`` and
    ``binning`` from the dataset (DomainAuth: ``page_rank``/``integer``;
    EntityAuth: ``popularity``/``log``), ``levels`` 10, ``top`` per the rule
    in the module docstring. Impossible combinations are a :class:`ConfigError`
    naming ``where`` (the config key)."""
    block = with_defaults(block or {}, "$defs/label")
    unknown = sorted(set(block) - {"column", "binning", "levels", "top", "range"})
    if unknown:
        raise ConfigError(f"config key '{where}': unknown key(s) {unknown}; "
                          "allowed: column, binning, levels, top, range")
    column = str(block.get("column") or default_column)
    binning = block.get("binning") or default_binning
    if binning not in BINNINGS:
        raise ConfigError(f"config key '{where}.binning': {binning!r} is not one of {', '.join(BINNINGS)}")
    levels = block["levels"]
    if isinstance(levels, bool) or not isinstance(levels, int) or levels < 2:
        raise ConfigError(f"config key '{where}.levels': {levels!r} is not an integer >= 2")
    if levels != BENCHMARK_LEVELS:
        raise ConfigError(
            f"config key '{where}.levels': {levels} levels; AuthorityBench's fine scale has {BENCHMARK_LEVELS} "
            f"(N={BENCHMARK_LEVELS} lists with one item per level 0-{BENCHMARK_LEVELS - 1}, coarse = level // 2, "
            f"judges score 0-{BENCHMARK_LEVELS - 1}), so the benchmark's labels need levels: {BENCHMARK_LEVELS}")
    default_top = "drop" if binning == "integer" and column == OPEN_PAGERANK_COLUMN else "include"
    top = block.get("top") or default_top
    if top not in TOP_RULES:
        raise ConfigError(f"config key '{where}.top': {top!r} is not one of {', '.join(TOP_RULES)}")
    if binning == "quantile" and top == "drop":
        raise ConfigError(f"config key '{where}.top': quantile levels have no top value of their own (the "
                          "maximum is always in the top level); leave top out or set it to include")
    rng = block.get("range")
    if rng is not None:
        if binning not in ("equal_width", "log"):
            raise ConfigError(f"config key '{where}.range': only equal_width and log binning take a range")
        if len(rng) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rng) \
                or not rng[0] < rng[1]:
            raise ConfigError(f"config key '{where}.range': {rng!r} is not [low, high] with low < high")
        if binning == "log" and rng[0] <= 0:
            raise ConfigError(f"config key '{where}.range': log binning needs a low end > 0, got {rng[0]}")
        rng = (float(rng[0]), float(rng[1]))
    return LabelSpec(column, binning, levels, top, rng)


def describe_label(spec: LabelSpec) -> str:
    """The rule in words (run log, Table 7's caption)."""
    top = spec.levels
    if spec.binning == "integer":
        text = f"'{spec.column}' as integer levels 0-{top - 1}"
        if spec.open_pagerank:
            text = f"Open PageRank integers ('{spec.column}') as levels 0-{top - 1}"
        rule = (f"{top} dropped" + (" (the paper's 0-9 scale)" if spec.open_pagerank else "")
                if spec.top == "drop" else f"{top} merged into {top - 1}")
        return f"{text}; {rule}"
    where = f"[{spec.range[0]:g}, {spec.range[1]:g}]" if spec.range else "the corpus's [min, max]"
    if spec.binning == "quantile":
        return f"'{spec.column}' in {top} equally filled quantile levels (ties share a level)"
    name = "equal-width" if spec.binning == "equal_width" else "log-spaced (Eq. 1)"
    rule = "maximum dropped" if spec.top == "drop" else f"maximum in level {top - 1}"
    return f"'{spec.column}' in {top} {name} levels over {where}; {rule}"


@dataclass
class Binned:
    """:func:`bin_scores`'s result: a level per score (None: dropped at the
    top), the lower/upper edge of every level (None where the rule has no
    edges: quantile, whose levels are bounded by their items' scores), and how
    many scores sat at the top value."""

    levels: list[int | None]
    edges: list[tuple[float | None, float | None]]
    n_top: int


def _finite(scores: Sequence) -> list[float]:
    values = []
    for i, s in enumerate(scores):
        try:
            v = float(s)
        except (TypeError, ValueError):
            raise LabelError(f"score #{i} is {s!r}: not a number") from None
        if not math.isfinite(v):
            raise LabelError(f"score #{i} is {s!r}: not a finite number")
        values.append(v)
    return values


def _bounds(values: list[float], spec: LabelSpec) -> tuple[float, float]:
    lo, hi = spec.range if spec.range else (min(values), max(values))
    if hi <= lo:
        raise LabelError(f"all scores equal ({lo:g}): no range to bin")
    outside = [i for i, s in enumerate(values) if s < lo or s > hi]
    if outside:
        i = outside[0]
        raise LabelError(f"score #{i} ({values[i]:g}) lies outside the range [{lo:g}, {hi:g}]")
    return lo, hi


def _raw_levels(values: list[float], spec: LabelSpec) -> tuple[list[int], list[tuple[float | None, float | None]]]:
    """Levels 0..levels (``levels`` = the top value) and the edges."""
    n_lv = spec.levels
    if spec.binning == "integer":
        for i, s in enumerate(values):
            if not s.is_integer() or not 0 <= s <= n_lv:
                raise LabelError(f"score #{i} is {s:g}: integer binning needs an integer 0..{n_lv}")
        return [int(s) for s in values], [(float(lv), float(lv)) for lv in range(n_lv)]
    if spec.binning == "quantile":
        order = sorted(values)
        smaller: dict[float, int] = {}
        for r, s in enumerate(order):
            smaller.setdefault(s, r)
        n = len(values)
        return [n_lv * smaller[s] // n for s in values], [(None, None)] * n_lv
    import numpy as np

    lo, hi = _bounds(values, spec)
    if spec.binning == "equal_width":
        width = (hi - lo) / n_lv
        out = [n_lv if s == hi else min(n_lv - 1, max(0, math.floor(n_lv * (s - lo) / (hi - lo)))) for s in values]
        edges = [(lo + k * width, lo + (k + 1) * width if k < n_lv - 1 else hi) for k in range(n_lv)]
        return out, edges
    # log: Eq. 1
    bad = [i for i, s in enumerate(values) if s <= 0]
    if bad:
        raise LabelError(f"score #{bad[0]} is {values[bad[0]]:g}: log binning needs scores > 0")
    edges = np.logspace(math.log10(lo), math.log10(hi), n_lv + 1)
    raw = np.digitize(values, edges) - 1
    out = [n_lv if s == hi else int(min(max(v, 0), n_lv - 1)) for s, v in zip(values, raw)]
    return out, [(float(edges[k]), float(edges[k + 1])) for k in range(n_lv)]


def bin_scores(scores: Sequence, spec: LabelSpec) -> Binned:
    """Levels of ``scores`` under ``spec`` (module docstring). A score the rule
    cannot bin (not a number, outside the given range, <= 0 under log, a
    non-integer under integer binning) or a corpus whose scores are all equal
    (equal_width, log) is a :class:`LabelError` naming the score."""
    values = _finite(scores)
    if not values:
        return Binned([], [(None, None)] * spec.levels, 0)
    raw, edges = _raw_levels(values, spec)
    top = spec.levels
    n_top = sum(1 for lv in raw if lv == top)
    if spec.top == "include":
        levels = [min(lv, top - 1) for lv in raw]
    else:
        levels = [None if lv == top else lv for lv in raw]
    return Binned(levels, edges, n_top)


def bin_table(scores: Sequence[float], binned: Binned) -> list[dict]:
    """One row per level: its rule edges (where the rule has them), the
    lowest and highest score in it, and its number of items; then a
    ``dropped`` row for the items dropped at the top value (if any)."""
    per_level: dict[int, list[float]] = {lv: [] for lv in range(len(binned.edges))}
    dropped: list[float] = []
    for s, lv in zip(scores, binned.levels):
        (dropped if lv is None else per_level[lv]).append(float(s))
    rows = []
    for lv, (low, high) in enumerate(binned.edges):
        got = per_level[lv]
        rows.append({"level": lv, "lower_edge": low, "upper_edge": high, "min_score": min(got) if got else None,
                     "max_score": max(got) if got else None, "items": len(got)})
    if dropped:
        rows.append({"level": "dropped", "lower_edge": None, "upper_edge": None, "min_score": min(dropped),
                     "max_score": max(dropped), "items": len(dropped)})
    return rows


BIN_COLUMNS = ("level", "lower_edge", "upper_edge", "min_score", "max_score", "items")


def histogram_text(levels: Sequence[int | None], n_levels: int = BENCHMARK_LEVELS) -> str:
    """``levels 0..9: 101 / 165 / ...`` for the run log."""
    counts = Counter(lv for lv in levels if lv is not None)
    return f"levels 0..{n_levels - 1}: " + " / ".join(str(counts.get(lv, 0)) for lv in range(n_levels))


def log_bin(counts, smin: float | None = None, smax: float | None = None) -> list[int]:
    """EntityAuth's Eq. 1: ``np.digitize(s, np.logspace(log10 smin, log10 smax, 11)) - 1``.

    ``smin``/``smax`` default to the range of ``counts`` (one domain's range, as
    in the paper). Edge cases (docs/decisions/labels-from-any-score.md):

    * ``s == smax`` lands on the last edge, which Eq. 1 maps to 10: it is
      clipped to 9. Float rounding can also put ``s == smin`` just below the
      first edge (-1): clipped to 0.
    * a count <= 0 (or not finite) has no logarithm: :class:`LabelError`;
    * all counts equal (``smin == smax``): there is no range to bin:
      :class:`LabelError`;
    * a count outside a given ``[smin, smax]``: :class:`LabelError`.
    """
    values = [float(c) for c in counts]
    for i, s in enumerate(values):
        if not math.isfinite(s) or s <= 0:
            raise LabelError(f"count #{i} is {counts[i]!r}: log binning needs counts > 0")
    if not values:
        return []
    lo = min(values) if smin is None else float(smin)
    hi = max(values) if smax is None else float(smax)
    if lo <= 0:
        raise LabelError(f"smin is {lo}: log binning needs counts > 0")
    if hi <= lo:
        raise LabelError(f"all counts equal ({lo:g}) or smax <= smin: no range to log-bin")
    spec = LabelSpec("count", "log", BENCHMARK_LEVELS, "include", (lo, hi))
    try:
        return [int(v) for v in bin_scores(values, spec).levels]
    except LabelError as err:
        raise LabelError(str(err).replace("score #", "count #")) from None


# --- secondary labels -------------------------------------------------------

# Names a secondary label cannot take: the label tables' and predictions' own columns.
RESERVED_NAMES = frozenset({"domain", "entity", "suffix", "level", "coarse", "n_urls", "category", "text", "score",
                            "question", "model", "context", "judge", "setting", "pred", "kind", "n_scores", "item"})


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def match_value(raw: str, allowed: Sequence[str]) -> str | None:
    """The entry of ``allowed`` that ``raw`` names: the same text, else the
    same number (``0.0`` and ``0`` name ``0``); None when none does."""
    if raw in allowed:
        return raw
    number = _number(raw)
    if number is None:
        return None
    return next((v for v in allowed if _number(v) == number), None)


@dataclass(frozen=True)
class SecondarySpec:
    """A second label carried from the source to the predictions (config
    ``secondary.labels.<name>``). ``values`` (ordered low -> high) makes it
    categorical, coded 0, 1, ...; with two values it is binary (ROC AUC
    besides ρ, the second value the positive class). Without ``values`` it
    is numeric. An empty cell is "not labelled". ``value_map`` (config
    ``map``): a file's value -> the label (one of ``values``, a number for a
    numeric label) or None ("not labelled"), applied first. Values and map
    keys match as text, else as numbers (:func:`match_value`)."""

    name: str
    values: tuple[str, ...] | None = None
    value_map: tuple[tuple[str, str | None], ...] = ()

    @property
    def kind(self) -> str:
        if self.values is None:
            return "numeric"
        return "binary" if len(self.values) == 2 else "ordinal"

    def value(self, raw: str | None) -> tuple[str, bool]:
        """The label a cell gives as text (``""``: not labelled; a categorical
        label's value as ``values`` writes it) and whether the value map made
        it "not labelled". An unknown category or a non-number is a
        :class:`LabelError` saying what is allowed."""
        raw = (raw or "").strip()
        if not raw:
            return "", False
        key = match_value(raw, [k for k, _ in self.value_map])
        if key is not None:
            mapped = dict(self.value_map)[key]
            return ("", True) if mapped is None else (mapped, False)
        mapping = (f"; the map turns {', '.join(k for k, _ in self.value_map)} into labels"
                   if self.value_map else "; 'map:' in the label's config turns other codes into labels or null")
        if self.values is not None:
            got = match_value(raw, self.values)
            if got is None:
                raise LabelError(f"{raw!r} is not one of {list(self.values)} (secondary label '{self.name}'; "
                                 f"numbers match numerically{mapping})")
            return got, False
        if _number(raw) is None:
            raise LabelError(f"{raw!r} is not a number (secondary label '{self.name}' is numeric; give it "
                             f"values: [...] to read it as categories{mapping})")
        return raw, False

    def code(self, raw: str) -> float | None:
        """The number behind a cell (None when not labelled); errors as :meth:`value`."""
        label, _ = self.value(raw)
        if not label:
            return None
        return float(self.values.index(label)) if self.values is not None else float(label)


SECONDARY_SCHEMA = "properties/domainauth/properties/secondary/properties/labels/additionalProperties"


def secondary_specs(block: Mapping[str, Any] | None, where: str = "secondary") -> list[SecondarySpec]:
    """The ``labels`` of a config ``secondary:`` block, in config order. A
    ``map`` value that is not a label (not one of ``values``; not a number
    for a numeric label) is a :class:`ConfigError`."""
    out = []
    for name, spec in ((block or {}).get("labels") or {}).items():
        if name in RESERVED_NAMES:
            raise ConfigError(f"config key '{where}.labels.{name}': '{name}' names a column of the label table or "
                              f"the predictions; rename the column (reserved: {', '.join(sorted(RESERVED_NAMES))})")
        spec = with_defaults(spec or {}, SECONDARY_SCHEMA)
        values = spec.get("values")
        if values is not None:
            values = tuple(str(v) for v in values)
            if len(values) < 2 or len(set(values)) != len(values):
                raise ConfigError(f"config key '{where}.labels.{name}.values': {list(values)} needs two or more "
                                  "distinct values, ordered low to high")
        value_map = []
        for key, label in spec["map"].items():
            text = None if label is None else str(label)
            if text is not None and (match_value(text, values) is None if values is not None else _number(text) is None):
                allowed = f"one of {list(values)}" if values is not None else "a number"
                raise ConfigError(f"config key '{where}.labels.{name}.map.{key}': {label!r} is not a label "
                                  f"({allowed}, or null: not labelled)")
            value_map.append((str(key), text if text is None or values is None else match_value(text, values)))
        out.append(SecondarySpec(str(name), values, tuple(value_map)))
    return out
