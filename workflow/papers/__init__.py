"""The papers whose numbers and conclusions the pipeline reproduces, one
:class:`Paper` each: its name, title, published numbers
(:mod:`authbench.papers.published`), claims file (:mod:`authbench.claims`)
and source text. A study names the paper it reproduces
(:attr:`authbench.studies.registry.Study.paper`); AuthorityBench is one paper
with three studies (DomainAuth, EntityAuth, RAGAuth).

* :func:`papers` -> the registered papers by name, the two shipped ones
  first (:data:`SHIPPED`); :func:`register` adds one (a study module of
  one's own declares its paper so: docs/architecture.md, "Add a paper");
* :func:`paper_of` -> one paper, a named error for an unknown name;
* :func:`load`, :func:`paper_models` (:mod:`~authbench.papers.published`),
  :func:`derived_numbers` (:mod:`~authbench.papers.derived`).

Light: nothing heavy is imported until a paper's numbers are read."""

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


def load(paper: str | None = None, directory: str | Path | None = None):
    """The published numbers of ``paper`` (None: every paper): :func:`authbench.papers.published.load`."""
    from authbench.papers.published import load as _load

    return _load(paper, directory)


def paper_models(paper: str) -> list[str]:
    """The model names ``paper``'s tables use: :func:`authbench.papers.published.paper_models`."""
    from authbench.papers.published import paper_models as _models

    return _models(paper)


def derived_numbers(paper: str | None = None, directory: str | Path | None = None):
    """The published numbers other published numbers determine: :func:`authbench.papers.derived.derived_numbers`."""
    from authbench.papers.derived import derived_numbers as _derived

    return _derived(paper, directory)
