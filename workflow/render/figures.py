"""Shared figure style and deterministic saving for every study's figures
(AuthorityBench's in :mod:`authbench.studies.authority.figures`, the
self-preference heatmaps in :mod:`authbench.studies.selfpref.figures`, the cost
plot in :mod:`authbench.studies.authority.costs`).

Matplotlib only, Agg backend, deterministic output: figures are drawn under
:data:`STYLE_RC` and written by :func:`save_figure` (fixed dpi, date and
software metadata removed, a fixed ``svg.hashsalt``), so that re-running on
the same input gives identical bytes.  Figures are built on
:class:`matplotlib.figure.Figure` directly (:func:`new_figure`; no pyplot
global state).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

from authbench.records import atomic_write  # noqa: E402

__all__ = [
    "DPI",
    "METADATA",
    "STYLE_RC",
    "new_figure",
    "save_figure",
]

DPI = 150

# rcParams every figure is drawn under (matplotlib.rc_context(STYLE_RC)).
STYLE_RC = {
    "svg.hashsalt": "authbench",
    "svg.fonttype": "none",
    "pdf.fonttype": 42,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "savefig.dpi": DPI,
    "figure.dpi": DPI,
}
# savefig metadata per format: no dates, no software versions.
METADATA = {
    "png": {"Software": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
    "svg": {"Date": None, "Creator": None},
}


def new_figure(figsize: tuple[float, float]) -> Figure:
    """A :class:`~matplotlib.figure.Figure` of ``figsize`` inches at :data:`DPI`,
    constrained layout (call it inside ``matplotlib.rc_context(STYLE_RC)``)."""
    return Figure(figsize=figsize, dpi=DPI, layout="constrained")


def save_figure(fig: Figure, out_png: Path, formats: Iterable[str] = ("png", "pdf")) -> list[Path]:
    """Write ``fig`` as ``out_png`` and, for each further format, next to it
    with that suffix (default: the PNG and a PDF); creates the folder and
    returns the paths, PNG first."""
    out_png = Path(out_png)
    out_png.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = out_png if fmt == "png" else out_png.with_suffix(f".{fmt}")
        with atomic_write(path, "wb") as fh:
            fig.savefig(fh, format=fmt, dpi=DPI, metadata=METADATA[fmt])
        paths.append(path)
    return paths
