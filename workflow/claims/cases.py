"""A claim's rows and cases: the rows its scope selects, cut by its test's
kind into cases, each one test of the claim (a row of ``claims_cells.tsv``;
the reports call them the claim's cells, "holds in k of n": the older word). Shared by the
loader's checks, the published verdict and a run's verdict, so all three
read the same cases."""

from __future__ import annotations

from typing import Sequence

import pandas as pd
from authbench.claims.keys import NOT_MODELS, Row, matches, rows_from_frame
from authbench.claims.kinds import KINDS, CaseResult
from authbench.claims.model import Claim, Scope


def scope_rows(scope: Scope, rows: Sequence[Row]) -> list[Row]:
    """The rows ``scope`` selects, in their order (without a ``model``
    selector, the rows of ``Average`` and of no model are left out)."""
    keep_all_models = "model" in scope.selector
    return [r for r in rows if matches(r.parts, scope.selector) and (keep_all_models or r.key.model not in NOT_MODELS)]


def claim_cases(claim: Claim, published: pd.DataFrame | Sequence[Row], fill: bool = False) -> list[CaseResult]:
    """The claim's cases on ``published`` (its kind on the rows in scope);
    :class:`~authbench.claims.kinds.KindError` when the rows do not make the
    kind's cases. ``fill`` (a run's rows): a partner row the rows lack (a
    difference's b side, a model of a monotone column, a picked value of a
    column) is a row without a value, so the case is one the run lacks."""
    rows = rows_from_frame(published) if isinstance(published, pd.DataFrame) else list(published)
    return KINDS[claim.test.kind](scope_rows(claim.scope, rows), fill=fill, **claim.test.arguments())
