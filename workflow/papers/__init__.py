"""The papers whose numbers and conclusions the pipeline reproduces, one
:class:`Paper` each: its name, title, published numbers
(:mod:`authbench.papers.published`), claims file (:mod:`authbench.claims`)
and source text. A study names the paper it reproduces
(:attr:`authbench.studies.registry.Study.paper`); AuthorityBench is one paper
with three studies (DomainAuth, EntityAuth, RAGAuth).

* :func:`papers` -> the registered papers by name, the shipped ones first
  (:data:`SHIPPED`, from ``resources/papers/``); :func:`register` adds one (a study module of
  one's own declares its paper so: docs/architecture.md, "Add a paper");
* :func:`paper_of` -> one paper, a named error for an unknown name;
* :func:`load`, :func:`paper_models` (:mod:`~authbench.papers.published`),
  :func:`derived_numbers` (:mod:`~authbench.papers.derived`).

Light: nothing heavy is imported until a paper's numbers are read."""

from __future__ import annotations

from pathlib import Path

from authbench.papers.registry import RESOURCES, SHIPPED, Paper, paper_of, papers, register

__all__ = ["RESOURCES", "SHIPPED", "Paper", "derived_numbers", "load", "paper_models", "paper_of", "papers",
           "register"]


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
