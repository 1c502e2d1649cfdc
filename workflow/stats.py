"""Statistics every study shares: the one bootstrap and the significance tests
(issue 20: one implementation, called by every study's report)."""

from __future__ import annotations
