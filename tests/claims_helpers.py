"""Hand-made published frames and claims files for the claims tests
(tests/unit/claims/)."""

from __future__ import annotations

import copy

import pandas as pd
import yaml
from authbench.claims import load_claims

COLUMNS = ("paper", "table", "model", "judge", "context", "setting", "metric", "value", "mark")


def frame(*rows, paper: str = "authoritybench") -> pd.DataFrame:
    """Rows as (table, model, judge, context, setting, metric, value[, mark])."""
    full = [(paper, *r) if len(r) == 8 else (paper, *r, "") for r in rows]
    return pd.DataFrame(full, columns=list(COLUMNS))


CLAIM = {
    "id": "T-01",
    "title": "a claim",
    "quote": "A quote.",
    "where": {"section": "1 Intro", "line": 3},
    "scope": {"table": [1]},
    "test": {"kind": "difference", "a": {"judge": "x"}, "b": {"judge": "y"}, "direction": "greater"},
    "units": {1: "lists"},
    "quantifier": "every",
    "quantified": ["model"],
    "wording": "always",
    "reading": "x beats y.",
}


def claim_doc(*changes: dict, paper: str = "authoritybench") -> dict:
    """A claims document of one claim per ``changes`` entry (each overlays
    :data:`CLAIM`; ids T-01, T-02, ... unless given)."""
    claims = []
    for i, change in enumerate(changes or ({},), start=1):
        claim = copy.deepcopy(CLAIM)
        claim["id"] = f"T-{i:02d}"
        claim.update(copy.deepcopy(change))
        claims.append(claim)
    return {"paper": paper, "title": "Test paper", "source": "paper.txt", "claims": claims}


def load_doc(tmp_path, doc: dict, published: pd.DataFrame, name: str = "claims.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return load_claims(path, published)
