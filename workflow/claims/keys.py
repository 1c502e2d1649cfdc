"""Keys and selectors of published numbers, in each paper's own vocabulary.

A number is named by its :class:`Key`: its ``table``, its ``metric`` and
the paper's own named *parts* (``model``, ``judge``, ``prompt``,
``dataset``, ``k`` ...: whatever its published TSV's key columns say,
``resources/published/README.md``). A part with an empty value is no part,
so a key is the same however its parts were spelled or ordered.

A claim's selectors name parts (``table`` and ``metric`` are parts too). A
*selector* maps part names to the allowed values. ``model`` is the one part
the claims know by name: a number's evaluated or evaluating LLM, which a run
maps to its own models.

The 11-column layout (``table``, ``model``, ``judge``, ``context``,
``setting``, ``metric``: :data:`COLUMNS`) is how keys were written before
papers named their own parts, and how the run's persisted files
(``scorecard.tsv``, ``units_keyed.parquet``, the derived rows) still write
them: :func:`from_columns` and :func:`to_columns` convert, a paper's
:attr:`authbench.papers.Paper.legacy` saying which part its ``judge`` or
``context`` column holds.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, NamedTuple

import pandas as pd

NOT_MODELS = ("", "Average")  # left out of a scope that does not name models
SIGNIFICANCE_MARKS = ("dagger",)  # the marks that say "significant" (resources/published/README.md)
# the columns of a published TSV or frame that do not name its number, and those that are no part of its key
NOT_KEY = ("paper", "value", "mark", "where", "note")
NOT_PARTS = ("table", "metric", *NOT_KEY)
COLUMNS = ("table", "model", "judge", "context", "setting", "metric")  # the 11-column layout's key (paper aside)
SETTING = "setting"  # that layout's column of packed parts: key=value joined by ';'


class Key(NamedTuple):
    """One published number's key: ``table``, ``metric`` and ``named``, the
    other parts as (name, value) pairs sorted by name, none empty."""

    table: int
    metric: str
    named: tuple[tuple[str, str], ...] = ()

    @property
    def model(self) -> str:
        """The ``model`` part ("" when the key has none)."""
        return self.part("model")

    def part(self, name: str) -> str:
        """The value of the part ``name`` ("" when the key has none)."""
        return dict(self.named).get(name, "")

    def parts(self) -> dict[str, Any]:
        """Every part of the key, ``table`` and ``metric`` included."""
        return {"table": self.table, **dict(self.named), "metric": self.metric}

    def __str__(self) -> str:
        return label(self.parts())


def lead_parts() -> tuple[str, ...]:
    """The parts a label names first, in this order: every registered
    paper's :attr:`~authbench.papers.Paper.parts` (the others follow sorted)."""
    from authbench.papers.registry import papers

    return tuple(dict.fromkeys(p for paper in papers().values() for p in paper.parts))


def ordered(names: Iterable[str], metric_last: bool = True) -> list[str]:
    """Part names in label order: ``table``, the :func:`lead_parts`, the
    others sorted, ``metric`` (last, or after the lead parts)."""
    names = set(names)
    lead = [p for p in lead_parts() if p in names]
    rest = sorted(names - set(lead) - {"table", "metric"})
    head = [p for p in ("table",) if p in names]
    metric = [p for p in ("metric",) if p in names]
    return head + lead + (rest + metric if metric_last else metric + rest)


def parse_setting(setting: str) -> dict[str, str]:
    """``"dataset=NQ;other=Human"`` -> ``{"dataset": "NQ", "other": "Human"}``."""
    out: dict[str, str] = {}
    for item in filter(None, setting.split(";")):
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"setting {setting!r}: {item!r} is not key=value")
        out[name] = value
    return out


def render_setting(settings: Mapping[str, Any]) -> str:
    """The canonical setting string: keys sorted, ``key=value`` joined by ``;``."""
    return ";".join(f"{k}={settings[k]}" for k in sorted(settings))


def place_key(table: int, metric: str, **parts: Any) -> Key:
    """A key from its parts: ``place_key(3, "pair_accuracy", model="Qwen3-8B",
    judge="point", context="wo_text", difficulty="hard")``."""
    return _key(int(table), str(metric), tuple(sorted((str(k), str(v)) for k, v in parts.items() if str(v) != "")))


@functools.lru_cache(maxsize=65536)
def _key(table: int, metric: str, named: tuple) -> Key:
    # Memoized: a report reads the same published keys once per claim.
    return Key(table, metric, named)


def from_parts(parts: Mapping[str, Any]) -> Key:
    """The key whose parts are ``parts`` (``table``; ``metric`` absent: empty)."""
    return place_key(parts["table"], parts.get("metric", ""),
                     **{k: v for k, v in parts.items() if k not in ("table", "metric")})


def from_columns(record: Mapping[str, Any], legacy: Mapping[str, str] | None = None) -> Key:
    """The key of a published row or a persisted one: ``table``, ``metric``,
    each other column (:data:`NOT_PARTS` aside) a part, ``setting`` unpacked
    into its parts; ``legacy``: column -> the part it holds (a paper's
    :attr:`~authbench.papers.Paper.legacy`, e.g. ``{"judge": "prompt"}``)."""
    names = legacy or {}
    parts: dict[str, Any] = {}
    for column, value in record.items():
        if column == SETTING:
            parts.update(parse_setting(str(value)))
        elif column not in NOT_PARTS:
            parts[names.get(column, column)] = value
    return place_key(record["table"], record["metric"], **parts)


def to_columns(key: Key, legacy: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``key`` in the 11-column layout (:data:`COLUMNS`): ``model``, ``judge``
    and ``context`` the parts ``legacy`` maps them to (themselves by
    default), every other part packed into ``setting`` (canonical order)."""
    names = legacy or {}
    rest = dict(key.named)
    fixed = {c: rest.pop(names.get(c, c), "") for c in COLUMNS[1:4]}
    return {"table": key.table, **fixed, SETTING: render_setting(rest), "metric": key.metric}


def canonical(key: Iterable) -> Key:
    """A :class:`Key` (its parts re-read: values as strings, empty ones
    dropped) or a 6-tuple in the 11-column layout's order (:data:`COLUMNS`)
    as a canonical :class:`Key`."""
    if isinstance(key, Key):
        return from_parts(key.parts())
    values = tuple(key)
    if len(values) != len(COLUMNS):
        raise ValueError(f"{values!r}: expected a Key or ({', '.join(COLUMNS)})")
    return from_columns(dict(zip(COLUMNS, values)))


@dataclass(frozen=True)
class Row:
    """A published (or a run's) number: its key, value and the paper's mark."""

    key: Key
    value: float
    mark: str = ""
    parts: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not self.parts:
            object.__setattr__(self, "parts", _parts(self.key))  # shared among equal keys: read only


@functools.lru_cache(maxsize=65536)
def _parts(key: Key) -> dict[str, Any]:
    return key.parts()


def significant(mark: str) -> bool:
    """Whether a published mark (``dagger``, ``underline+dagger`` ...) says
    the number is significant (:data:`SIGNIFICANCE_MARKS`)."""
    return bool(set(str(mark or "").split("+")) & set(SIGNIFICANCE_MARKS))


def rows_from_frame(frame: pd.DataFrame) -> list[Row]:
    """The rows of a published frame (``table``, ``metric``, ``value``,
    optionally ``mark``; every other column but :data:`NOT_PARTS` a part,
    :func:`from_columns`), in frame order."""
    missing = [c for c in ("table", "metric", "value") if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the column(s) {', '.join(missing)}")
    marks = frame["mark"].tolist() if "mark" in frame.columns else [""] * len(frame)
    keys = [c for c in frame.columns if c not in NOT_KEY]
    return [Row(_from_columns(tuple(zip(keys, values))), float(v), str(mk or ""))
            for values, v, mk in zip(zip(*(frame[c].tolist() for c in keys)), frame["value"].tolist(), marks)]


@functools.lru_cache(maxsize=65536)
def _from_columns(items: tuple) -> Key:
    return from_columns(dict(items))


def normalize_selector(selector: Mapping[str, Any] | None) -> dict[str, tuple]:
    """A selector with every value a tuple (a scalar becomes a 1-tuple),
    ``table`` values as ints and every other value as a string."""
    out: dict[str, tuple] = {}
    for name, allowed in (selector or {}).items():
        values = allowed if isinstance(allowed, (list, tuple)) else [allowed]
        out[name] = tuple(int(v) for v in values) if name == "table" else tuple(str(v) for v in values)
    return out


def matches(parts: Mapping[str, Any], selector: Mapping[str, tuple]) -> bool:
    """Whether a row with ``parts`` is one the (normalized) selector allows: every
    named part present with an allowed value (a row without a named part
    does not match)."""
    return all(name in parts and parts[name] in allowed for name, allowed in selector.items())


def label(parts: Mapping[str, Any], leave_out: Iterable[str] = ()) -> str:
    """``table=1 model=Qwen3-8B judge=point context=wo_text metric=rho`` (empty
    parts and ``leave_out`` omitted; :func:`ordered`)."""
    skip = set(leave_out)
    return " ".join(f"{p}={parts[p]}" for p in ordered(parts) if p not in skip and parts[p] != "")
