"""AuthorityBench / RAG self-preference pipeline (import name ``authbench``).

The package lives in the repository folder ``workflow/`` but is imported as
``authbench`` so that Snakefiles never rebind Snakemake's own ``workflow`` name.

:func:`lazy_exports` gives a subpackage's lazy public surface: its
``__init__`` names what other packages may use from it, by submodule, and
each name is imported on first use (PEP 562), so a light import (the
Snakefile's, a command-line step's) does not load every module of the
package.
"""

from __future__ import annotations

import importlib
from typing import Callable, Mapping, Sequence

__version__ = "0.1.0"


def lazy_exports(package: str, names: Mapping[str, Sequence[str]]) -> tuple[Callable[[str], object], list[str]]:
    """``(__getattr__, __all__)`` for ``package`` from ``{submodule: (name, ...)}``."""
    where = {name: sub for sub, subnames in names.items() for name in subnames}

    def getattr_(name: str) -> object:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{where[name]}"), name)

    return getattr_, sorted(where)
