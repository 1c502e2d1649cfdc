"""Spreading the plan's heavy loops over the cores it was given
(:func:`fork_map`): counting the sampled prompts' tokens and drawing the
judge cells' position coin flips. Forked processes inherit the parent's
memory (the prompts and the loaded vocabularies are never pickled, only
the results); llama.cpp's tokenizer is not safe to share between threads,
so processes, not threads."""

from __future__ import annotations

import multiprocessing
from typing import Any, Callable, Sequence

_WORK: tuple | None = None  # (function, items) while a pool runs: what its forked workers read


def fork_map(fn: Callable[[Any], Any], items: Sequence, workers: int) -> list:
    """``[fn(x) for x in items]``, in ``workers`` forked processes (in this
    one when ``workers`` <= 1, the items are few or the platform cannot fork)."""
    global _WORK
    if workers <= 1 or len(items) < 64 * workers or "fork" not in multiprocessing.get_all_start_methods():
        return [fn(x) for x in items]
    _WORK = (fn, items)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_part, [(k, workers) for k in range(workers)])
    finally:
        _WORK = None
    out: list = [None] * len(items)
    for k, part in enumerate(parts):
        out[k::workers] = part
    return out


def _part(share: tuple[int, int]) -> list:
    k, n = share
    fn, items = _WORK
    return [fn(x) for x in items[k::n]]
