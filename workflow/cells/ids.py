"""The one request-id convention of a cell that asks a request more than once.

* A *retry* (a reply that did not settle asked again,
  :meth:`authbench.cells.step.CellStep.run_retried`) is sent as
  ``<id>#retry<t>`` for ``t >= 1``; try 0 keeps the bare id. It is the same
  request: its judgment belongs to its last try, and :func:`base_id` reads
  the request's own id and the try back.
* A *try* of a cell that asks every request several times by design (the
  knowledge probes, :meth:`authbench.cells.step.CellStep.run_tries`) is a
  request of its own, ``<id>#<t>`` for every ``t`` from 0 (:func:`tried_id`),
  judged on its own: :func:`base_id` leaves it whole.
"""

from __future__ import annotations

RETRY_MARK = "#retry"


def retried_id(request_id: str, t: int) -> str:
    """The id try ``t`` of a retried request is sent with (try 0: the request's own)."""
    return request_id if t == 0 else f"{request_id}{RETRY_MARK}{t}"


def tried_id(request_id: str, t: int) -> str:
    """The id of try ``t`` of a request asked every time (a request of its own)."""
    return f"{request_id}#{t}"


def base_id(request_id: str) -> tuple[str, int]:
    """A request id as sent -> (the request's own id, its retry): ``x#retry2``
    -> ``("x", 2)``; ``x`` and a try's ``q#3`` -> themselves, 0."""
    base, mark, t = request_id.rpartition(RETRY_MARK)
    return (base, int(t)) if mark and t.isdigit() else (request_id, 0)
