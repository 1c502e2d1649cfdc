"""The paper registry: :class:`Paper` and the registered papers (the two
shipped ones first). The package's surface is :mod:`authbench.papers`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from authbench.errors import ConfigError

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


@dataclass(frozen=True)
class Paper:
    """A paper: ``name`` (the key of its published numbers and claims),
    ``title`` (the claims' summary lines), ``published`` (its numbers' TSV),
    ``claims`` (its claims file), ``source`` (the text its quotes are taken
    from, under ``../shared/papers/`` beside the checkout) and ``derived``
    (the name of its relations between printed numbers in
    :mod:`authbench.papers.derived`; None: none declared)."""

    name: str
    title: str
    published: Path
    claims: Path
    source: str = ""
    derived: str | None = None


SHIPPED = (
    Paper("authoritybench", "AuthorityBench", RESOURCES / "published" / "authoritybench.tsv",
          RESOURCES / "claims" / "authoritybench.yaml", "authoritybench_submission.txt", "authoritybench"),
    Paper("selfpref", "RAG self-preference", RESOURCES / "published" / "selfpref.tsv",
          RESOURCES / "claims" / "selfpref.yaml", "rag_self_preference.txt", "selfpref"),
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
