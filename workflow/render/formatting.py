"""How a table's values are shown: the cell kinds (:data:`PCT`, :data:`NUM`,
:data:`SIGNED`, :data:`COUNT`, :data:`TEXT`), the missing mark and the short
tags appended to a value, half-up rounding to display units
(:func:`round_half_up`, :func:`round2`) and one value's text in each output
style (:func:`format_entry`, :func:`text_entry`; Markdown, LaTeX with
:func:`latex_escape`, CSV).  The table model is :mod:`authbench.render.tables`,
the files :mod:`authbench.render.table_writers`.

A column's ``tag`` getter appends short marks to the shown value in Markdown
and LaTeX (:data:`NOT_RANDOM_TAG`, :data:`NOT_BEST_TAG`: not distinguishable
from ``baseline:random`` / from the column's best); the CSV keeps plain
numbers.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

from authbench.records import is_missing

__all__ = [
    "COUNT",
    "FAIL",
    "MISSING",
    "NOT_BEST_TAG",
    "NOT_RANDOM_TAG",
    "NUM",
    "PCT",
    "SIGNED",
    "TEXT",
    "format_entry",
    "latex_escape",
    "round2",
    "round_half_up",
    "text_entry",
]

MISSING = "–"  # en dash, as in the paper
FAIL = "fail%"  # header of a parse-failure column

# Cell kinds: how a value is formatted.
PCT = "pct"  # already x100, two decimals
NUM = "num"  # two decimals
SIGNED = "signed"  # two decimals with explicit sign
COUNT = "count"  # integer
TEXT = "text"  # the spec's ``entries`` text as is (mean±std, a † mark): see text_entry

NOT_RANDOM_TAG = "°"  # paired comparison: not distinguishable from baseline:random
NOT_BEST_TAG = "≈"  # paired comparison: not distinguishable from the column's best


def round_half_up(x, ndigits: int = 2, scale: float = 1) -> float:
    """Round ``x * scale`` half-up to ``ndigits`` decimals, on the decimal repr.

    Working on ``repr(x)`` avoids binary artefacts: 0.71345 -> 71.35, not
    71.34.  Non-finite and non-numeric values and ``None`` become NaN.
    """
    if x is None:
        return math.nan
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return math.nan
    if not math.isfinite(xf):
        return math.nan
    d = Decimal(repr(xf)) * (scale if isinstance(scale, int) else Decimal(repr(float(scale))))
    return float(d.quantize(Decimal(1).scaleb(-ndigits), rounding=ROUND_HALF_UP))


def round2(x, scale: float = 1) -> float:
    """:func:`round_half_up` to two decimals: ``round2(0.71345, 100) == 71.35``."""
    return round_half_up(x, 2, scale)


def text_entry(text: str, style: str = "md") -> str:
    """A :data:`TEXT` cell (already formatted, e.g. ``4.50±0.58``, ``+3.00†``,
    ``–0.22``) in ``style``: md as is; csv with missing empty, ASCII minus and
    no plus sign; tex escaped, with signs before a digit in math mode."""
    text = str(text)
    if style == "md":
        return text
    if text == MISSING:
        return "" if style == "csv" else "--"
    if style == "csv":
        return re.sub(r"(^|[\s/])\+(?=\d)", r"\1", re.sub(r"–(?=\d)", "-", text))
    signed = re.sub(r"–(?=\d)", "−", text)  # latex_escape: − -> $-$
    return "$+$".join(latex_escape(part) for part in re.split(r"\+(?=\d)", signed))


def format_entry(value: float, kind: str, style: str = "md") -> str:
    """Format one value (already in display units).

    ``style`` is ``"md"`` (plain text: missing as –, negative sign as –),
    ``"tex"`` (missing as ``--``, signs in math mode) or ``"csv"`` (no markup,
    missing as an empty string, ASCII minus, no plus sign).
    """
    if is_missing(value):
        return {"md": MISSING, "tex": "--", "csv": ""}[style]
    if kind == COUNT:
        return str(int(round(value)))
    if kind in (PCT, NUM):
        return f"{value:.2f}"
    if kind == SIGNED:
        mag = f"{abs(value):.2f}"
        if style == "csv":
            return f"{value:.2f}" if value != 0 else mag
        if value > 0:
            return f"$+${mag}" if style == "tex" else f"+{mag}"
        if value < 0:
            return f"$-${mag}" if style == "tex" else f"{MISSING}{mag}"
        return mag
    raise ValueError(f"unknown cell kind {kind!r}")


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "ρ": r"$\rho$",
    "τ": r"$\tau$",
    "–": "--",
    "−": "$-$",
    "±": r"$\pm$",
    "†": r"$^{\dagger}$",
    "<": "$<$",
    ">": "$>$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "°": r"$^{\circ}$",
    "≈": r"$^{\approx}$",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX special characters (``_ % & $ # { } ~ ^ \\``) in a label."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in str(text))
