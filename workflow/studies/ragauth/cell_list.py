"""What RAGAuth runs (:func:`rag_cells`): its input file and its answer
cells, or why it is left out of the run."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from authbench.config import models_for
from authbench.paths import Layout
from authbench.studies.ragauth import layout as rag_layout

@dataclasses.dataclass(frozen=True)
class RagCells:
    """What RAGAuth runs: its input file, its answer cells as
    ``(model, strategy, topk)`` (``topk`` = ``all`` or ``k<k>``) and, when it
    does not run, the one line the run log shows instead."""

    source: str | None
    built: bool
    cells: list[tuple[str, str, str]]
    note: str | None = None


def coverage(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """RAGAuth's parts of every report's scorecard coverage
    (:func:`authbench.studies.scorecard.coverage_params`): its strategies and k."""
    rag = config.get("ragauth") or {}  # an optional section
    return {"strategies": list(rag.get("strategies") or []), "k": [str(k) for k in rag.get("k") or []]}


def rag_cells(config: Mapping[str, Any], exists) -> RagCells:
    """RAGAuth runs when it is listed in ``studies`` and its file exists
    (``exists`` = os.path.exists), or is built from the researcher's own data
    (``ragauth.build``). A missing file is not an error: the release is not
    redistributed, so RAGAuth is simply left out of ``all``, with a note."""
    rag = config.get("ragauth")
    if "ragauth" not in config.get("studies", ()) or not rag:
        return RagCells(None, False, [])
    built = bool(rag.get("build"))
    source = rag_layout.built(Layout(config["results"])) if built else rag.get("source")
    if not built and (not source or not exists(source)):
        where = f"'{source}' does not exist" if source else "is null"
        return RagCells(source, False, [], f"RAGAuth is left out of this run: ragauth.source {where}. Put the "
                       "RAGAuth release (Figure 5's JSON format) there, or build one from your own data "
                       "(docs/studies.md, 'RAGAuth').")
    cells = []
    for model in models_for(config, "ragauth"):
        for strategy in rag["strategies"]:
            if strategy == "no_filter":
                cells.append((model, strategy, "all"))
            else:
                cells += [(model, strategy, f"k{k}") for k in rag["k"]]
    return RagCells(source, built, cells)
