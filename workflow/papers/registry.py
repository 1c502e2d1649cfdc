"""The paper registry: :class:`Paper` and the registered papers (the shipped
ones first: each declared by a file ``resources/papers/<name>.yaml``, in
name order). The package's surface is :mod:`authbench.papers`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from authbench.errors import ConfigError

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
PAPERS = RESOURCES / "papers"  # one <name>.yaml per shipped paper: Paper's fields, paths relative to RESOURCES


@dataclass(frozen=True)
class Paper:
    """A paper: ``name`` (the key of its published numbers and claims),
    ``title`` (the claims' summary lines), ``published`` (its numbers' TSV),
    ``claims`` (its claims file), ``source`` (the text its quotes are taken
    from, under ``../shared/papers/`` beside the checkout), ``derived``
    (the module of its relations between printed numbers,
    :mod:`authbench.papers.derived`; None: none declared), ``parts`` (the
    parts of its keys a claim label names first, in this order;
    :func:`authbench.claims.keys.ordered`), ``legacy`` (an 11-column TSV
    column -> the part it holds, where that is not the column's name, e.g.
    ``{"judge": "prompt"}``: how its 11-column TSV loads and how the run's
    persisted 11-column files write its keys) and ``values`` (part -> the
    values its rows may hold, checked on load; absent: any)."""

    name: str
    title: str
    published: Path
    claims: Path
    source: str = ""
    derived: str | None = None
    parts: tuple[str, ...] = ("model",)
    legacy: Mapping[str, str] = field(default_factory=dict, hash=False)
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)


_FIELDS = ("title", "published", "claims", "source", "derived", "parts", "legacy", "values")


def shipped(folder: Path = PAPERS) -> tuple[Paper, ...]:
    """The papers declared in ``folder`` (``<name>.yaml``: ``title``, ``published`` and ``claims`` relative to
    :data:`RESOURCES`, optionally ``source``, ``derived``, ``parts``, ``legacy``, ``values``), in name order;
    a file missing a field, or with one it does not know, is a named error."""
    import yaml

    out = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a mapping of {', '.join(_FIELDS)}")
        wrong = [f"unknown key {k!r}" for k in sorted(set(data) - set(_FIELDS))]
        wrong += [f"no {k!r}" for k in _FIELDS[:3] if k not in data]
        if wrong:
            raise ConfigError(f"{path}: {'; '.join(wrong)}; expected the keys {', '.join(_FIELDS)} (the first three "
                              "required)")
        out.append(Paper(path.stem, data["title"], RESOURCES / data["published"], RESOURCES / data["claims"],
                         data.get("source") or "", data.get("derived"), tuple(data.get("parts") or ("model",)),
                         dict(data.get("legacy") or {}),
                         {part: tuple(v) for part, v in (data.get("values") or {}).items()}))
    return tuple(out)


SHIPPED = shipped()
_REGISTRY: dict[str, Paper] = {p.name: p for p in SHIPPED}


def register(paper: Paper) -> Paper:
    """Add ``paper`` to the registry (again: the same paper is a no-op; another one under a taken name is a
    named error)."""
    have = _REGISTRY.get(paper.name)
    if have is not None and have != paper:
        raise ConfigError(f"paper {paper.name!r} is registered twice, as {have} and as {paper}; expected one name "
                          "per paper")
    _REGISTRY[paper.name] = paper
    return paper


def papers() -> dict[str, Paper]:
    """The registered papers by name, the shipped ones first."""
    return dict(_REGISTRY)


def paper_of(name: str) -> Paper:
    """The registered paper ``name``; a named error naming the known ones."""
    if name not in _REGISTRY:
        raise ConfigError(f"unknown paper {name!r}; the registered papers: {', '.join(_REGISTRY)}")
    return _REGISTRY[name]
