"""Tests for authbench.render.formatting: one value's text per style,
half-up rounding on the decimal repr, LaTeX escaping."""

from __future__ import annotations

import math

import pytest
from authbench.render import formatting as F


@pytest.mark.parametrize(
    "value,kind,style,expected",
    [
        (71.35, F.PCT, "md", "71.35"),
        (math.nan, F.PCT, "md", "–"),
        (math.nan, F.PCT, "tex", "--"),
        (math.nan, F.PCT, "csv", ""),
        (3.28, F.SIGNED, "md", "+3.28"),
        (-0.06, F.SIGNED, "md", "–0.06"),
        (-0.06, F.SIGNED, "tex", "$-$0.06"),
        (3.28, F.SIGNED, "tex", "$+$3.28"),
        (-0.06, F.SIGNED, "csv", "-0.06"),
        (0.0, F.SIGNED, "md", "0.00"),
        (7.0, F.COUNT, "md", "7"),
    ],
)
def test_format_entry(value, kind, style, expected):
    assert F.format_entry(value, kind, style) == expected


def test_round_half_up_on_decimal_repr():
    assert F.round2(0.71346, 100) == 71.35
    assert F.round2(0.71345, 100) == 71.35  # binary 71.34499.. must not win
    assert F.round2(0.71344, 100) == 71.34
    assert math.isnan(F.round2(float("inf"), 100))


def test_latex_escape():
    assert F.latex_escape("a_b 50% R&D $x #1 {y}") == r"a\_b 50\% R\&D \$x \#1 \{y\}"
    assert F.latex_escape("ρ") == r"$\rho$"
