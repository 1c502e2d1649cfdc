"""What every command-line step shares: parent folders and an index by key.
A model cell's step goes through :class:`authbench.cells.CellStep`."""

from __future__ import annotations

from pathlib import Path


def mkparent(*paths: str) -> None:
    for p in paths:
        Path(p).parent.mkdir(parents=True, exist_ok=True)


def index(rows, key: str = "pid") -> dict:
    return {r[key]: r for r in rows}
