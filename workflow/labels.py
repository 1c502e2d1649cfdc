"""Label scales shared by the benchmarks."""

from __future__ import annotations

FINE_LEVELS = tuple(range(10))
COARSE_LEVELS = tuple(range(5))


def coarse_level(level: int) -> int:
    """Fine level 0..9 -> coarse level 0..4: {0,1}->0, {2,3}->1, {4,5}->2, {6,7}->3, {8,9}->4."""
    if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 9:
        raise ValueError(f"fine level must be an integer 0..9, got {level!r}")
    return level // 2
