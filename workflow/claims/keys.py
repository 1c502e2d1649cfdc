"""Keys and selectors of published numbers, in the papers' vocabulary.

A number is named by its :class:`Key` (``table``, ``model``, ``judge``,
``context``, ``setting``, ``metric``: the key of
``resources/published/*.tsv`` without the paper). ``setting`` is
``key=value`` pairs joined by ``;``; its canonical form sorts the keys, so
``dataset=NQ;other=Human`` and ``other=Human;dataset=NQ`` name one number.

A *part* of a key is ``table``, ``model``, ``judge``, ``context``, ``metric``
or one setting key (``domain``, ``dataset``, ``k`` ...); a claim's
selectors name parts. A *selector* maps part names to the allowed values.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, NamedTuple

import pandas as pd

FIXED = ("table", "model", "judge", "context", "metric")  # the parts that are columns
NOT_MODELS = ("", "Average")  # left out of a scope that does not name models
SIGNIFICANCE_MARKS = ("dagger",)  # the marks that say "significant" (resources/published/README.md)


class Key(NamedTuple):
    """One published number's key (the TSV's key columns, ``paper`` aside)."""

    table: int
    model: str
    judge: str
    context: str
    setting: str
    metric: str

    @property
    def settings(self) -> dict[str, str]:
        return parse_setting(self.setting)

    def parts(self) -> dict[str, Any]:
        """Every part of the key: the fixed ones and each setting key."""
        return {"table": self.table, "model": self.model, "judge": self.judge, "context": self.context,
                "metric": self.metric, **self.settings}

    def __str__(self) -> str:
        return label(self.parts())


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


def place_key(table: int, metric: str, model: str = "", judge: str = "", context: str = "",
             **settings: Any) -> Key:
    """A key from its parts: ``place_key(3, "pair_accuracy", model="Qwen3-8B",
    judge="point", context="wo_text", difficulty="hard")``."""
    return Key(int(table), str(model), str(judge), str(context), render_setting({k: str(v) for k, v in
                                                                                 settings.items()}), str(metric))


def from_parts(parts: Mapping[str, Any]) -> Key:
    """The key whose parts are ``parts`` (absent fixed parts are empty)."""
    settings = {k: v for k, v in parts.items() if k not in FIXED}
    return place_key(parts["table"], parts.get("metric", ""), parts.get("model", ""), parts.get("judge", ""),
                    parts.get("context", ""), **settings)


def canonical(key: Iterable) -> Key:
    """Any 6-tuple in :class:`Key` order as a canonical :class:`Key` (table an
    int, the setting's keys sorted)."""
    return _canonical(*key)


@functools.lru_cache(maxsize=65536)
def _canonical(table, model, judge, context, setting, metric) -> Key:
    # Memoized: a report reads the same published keys once per claim.
    return Key(int(table), str(model), str(judge), str(context), render_setting(parse_setting(str(setting))),
               str(metric))


@functools.lru_cache(maxsize=65536)
def _parts(key: Key) -> dict[str, Any]:
    return key.parts()


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


def significant(mark: str) -> bool:
    """Whether a published mark (``dagger``, ``underline+dagger`` ...) says
    the number is significant (:data:`SIGNIFICANCE_MARKS`)."""
    return bool(set(str(mark or "").split("+")) & set(SIGNIFICANCE_MARKS))


def rows_from_frame(frame: pd.DataFrame) -> list[Row]:
    """The rows of a frame with the columns ``table``, ``model``, ``judge``,
    ``context``, ``setting``, ``metric``, ``value`` (and optionally ``mark``),
    in frame order."""
    missing = [c for c in (*FIXED, "setting", "value") if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the column(s) {', '.join(missing)}")
    marks = frame["mark"].tolist() if "mark" in frame.columns else [""] * len(frame)
    columns = [frame[c].tolist() for c in ("table", "model", "judge", "context", "setting", "metric", "value")]
    return [Row(_canonical(t, mo, j, c, s, me), float(v), str(mk or ""))
            for t, mo, j, c, s, me, v, mk in zip(*columns, marks)]


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
    named part present with an allowed value (a row without a named setting
    key does not match)."""
    return all(name in parts and parts[name] in allowed for name, allowed in selector.items())


def label(parts: Mapping[str, Any], leave_out: Iterable[str] = ()) -> str:
    """``table=1 model=Qwen3-8B judge=point context=wo_text metric=rho`` (empty
    parts and ``leave_out`` omitted; settings after the fixed parts)."""
    skip = set(leave_out)
    order = [p for p in FIXED if p != "metric"] + sorted(k for k in parts if k not in FIXED) + ["metric"]
    return " ".join(f"{p}={parts[p]}" for p in order if p in parts and p not in skip and parts[p] != "")
