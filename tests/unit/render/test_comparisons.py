"""authbench.render.comparisons: rows from paired units, Holm per family,
the TSV/Markdown writer."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from authbench.render import comparisons as C
from authbench.stats import IntervalSpec, holm, mcnemar_exact

SPEC = IntervalSpec(resamples=2000, seed=1, min_units=5)


def test_rows_holm_and_writer(tmp_path):
    a = [1.0] * 18 + [0.0] * 2  # 90% correct
    b = [1.0] * 8 + [0.0] * 12  # 40% correct, paired with a
    rows = [C.comparison_row("vs baseline", "pairs acc (all)", "m", "baseline:random", "pairs", a, b, SPEC,
                             scale=100, binary=True),
            C.comparison_row("vs baseline", "pairs acc (hard)", "m", "baseline:random", "pairs", a[:4], b[:4], SPEC,
                             scale=100, binary=True),
            C.comparison_row("w/ vs w/o", "fine ρ", "m w/", "m w/o", "lists", [0.2, 0.1, 0.3, 0.2, 0.25],
                             [0.2, 0.1, 0.3, 0.2, 0.25], SPEC)]
    frame = C.finish(rows)
    assert frame.loc[0, "delta"] == pytest.approx(50.0)
    # 0/1 units paired one to one: the p is McNemar's exact p (10 discordant pairs, all for a: 2 * 0.5 ** 10)
    assert frame.loc[0, "p"] == pytest.approx(mcnemar_exact([x > .5 for x in a], [x > .5 for x in b]))
    assert frame.loc[0, "p"] == pytest.approx(2 * 0.5 ** 10) and frame.loc[0, "test"] == "McNemar exact"
    assert frame.loc[2, "test"] == "paired bootstrap"
    assert frame.loc[0, "lo"] > 0 and frame.loc[0, "distinct"] == "yes"
    assert math.isnan(frame.loc[1, "lo"]) and frame.loc[1, "distinct"] == ""  # 4 units < min_units
    # Holm inside the family "vs baseline" only (its NaN row does not count): one p, unchanged
    assert frame.loc[0, "p_holm"] == pytest.approx(holm([frame.loc[0, "p"]])[0])
    assert frame.loc[2, "delta"] == 0 and frame.loc[2, "distinct"] == "no"
    tsv, md = C.write_comparisons(frame, tmp_path / "comparisons", "DomainAuth: paired comparisons")
    back = pd.read_csv(tsv, sep="\t")
    assert list(back.columns) == list(C.COLUMNS) and len(back) == 3
    text = md.read_text()
    assert "3 paired comparisons; 1 distinguishable" in text and "## w/ vs w/o" in text
    assert "| pairs acc (all) | m | baseline:random | 20 | +50.00 [" in text
