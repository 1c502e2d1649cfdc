"""The paper registry: :class:`Paper` and the registered papers (the two
shipped ones first). The package's surface is :mod:`authbench.papers`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from authbench.errors import ConfigError

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


@dataclass(frozen=True)
class Paper:
    """A paper: ``name`` (the key of its published numbers and claims),
    ``title`` (the claims' summary lines), ``published`` (its numbers' TSV),
    ``claims`` (its claims file), ``source`` (the text its quotes are taken
    from, under ``../shared/papers/`` beside the checkout), ``derived``
    (the name of its relations between printed numbers in
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


SHIPPED = (
    Paper("authoritybench", "AuthorityBench", RESOURCES / "published" / "authoritybench.tsv",
          RESOURCES / "claims" / "authoritybench.yaml", "authoritybench_submission.txt", "authoritybench",
          parts=("model", "judge", "context"), values={"context": ("", "wo_text", "w_text")}),
    Paper("selfpref", "RAG self-preference", RESOURCES / "published" / "selfpref.tsv",
          RESOURCES / "claims" / "selfpref.yaml", "rag_self_preference.txt", "selfpref",
          parts=("model", "prompt"), legacy={"judge": "prompt"}),
)
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
