"""Seeded randomness: every draw of the pipeline comes from a generator seeded
by the config's seed plus the names of what is drawn (a cell, an instance, a
purpose), never from global state, so a draw does not depend on the order in
which jobs run."""

from __future__ import annotations

import hashlib
import random


def rng(seed: int, *parts: object) -> random.Random:
    """A :class:`random.Random` seeded by SHA-256 of ``seed|part|part...``."""
    key = "|".join([str(seed), *map(str, parts)]).encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
