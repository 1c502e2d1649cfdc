"""The papers' claims as data, tested on the published tables and on a run.

* :func:`load_claims` reads a claims file (``resources/claims/<paper>.yaml``;
  docs/claims.md) into :class:`Claims` of :class:`Claim`, checked against the
  schema and against the published numbers of its paper.
* :data:`KINDS`: the test kinds (``difference``, ``rate_vs_50``,
  ``monotone_size``, ``bias_sign``, ``best_in_column``, ``closer_to_50``), one
  pure function each.
* :func:`published_verdict`: k of n cases on the paper's own tables (the
  paper's significance marks read by the claim's ``test.significance``) and
  the quantifier's reading, *holds as worded* or *contradicted as worded
  (holds in k of n)*; :func:`published_verdicts` both papers as TSV rows,
  :func:`summary_line` one line per paper.
* :func:`run_verdict`: a claim on a run's own units (:class:`PlaceUnits` per
  case key): per-case effects with intervals, paired tests, Holm within the
  claim, and ``supported`` / ``contradicted`` / ``undecided`` / ``not run``;
  :func:`cells_frame` one row per tested contrast.
"""

from authbench.claims.keys import Key, place_key
from authbench.claims.kinds import (
    KINDS,
    CaseResult,
    Contrast,
    best_in_column,
    bias_sign,
    closer_to_50,
    difference,
    monotone_size,
    rate_vs_50,
)
from authbench.claims.load import claims_path, load_claims, load_paper_claims
from authbench.claims.model import Claim, Claims, Scope, Test, Where
from authbench.claims.published import (
    Verdict,
    paper_verdicts,
    published_verdict,
    published_verdicts,
    summary_line,
    verdict_rows,
)
from authbench.claims.run import PlaceUnits, ContrastTest, RunCase, RunVerdict, cases_frame, run_verdict
from authbench.claims.schema import known_kinds

__all__ = ["KINDS", "CaseResult", "PlaceUnits", "Claim", "Claims", "Contrast", "ContrastTest", "Key", "RunCase",
           "RunVerdict", "Scope", "Test", "Verdict", "Where", "best_in_column", "bias_sign", "place_key", "cases_frame",
           "closer_to_50",
           "claims_path", "difference", "known_kinds", "load_claims", "load_paper_claims", "monotone_size",
           "paper_verdicts", "published_verdict", "published_verdicts", "rate_vs_50", "run_verdict",
           "summary_line", "verdict_rows"]
