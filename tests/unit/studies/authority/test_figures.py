"""Tests for authbench.studies.authority.figures (paper Figure 3, DomainAuth half, and Figure 6)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from authbench.studies.authority import figures as F

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def labels():
    levels = [0, 0, 0, 1, 3, 3, 9]
    return pd.DataFrame({
        "domain": [f"d{i}.com" for i in range(len(levels))],
        "level": levels,
        "coarse": [lv // 2 for lv in levels],
    })


@pytest.fixture
def pred():
    rows = [
        # model, context, domain, level, pred
        ("m1", "wo_text", "a", 0, 3.0),
        ("m1", "wo_text", "b", 0, 4.0),
        ("m1", "wo_text", "c", 9, 6.0),
        ("m1", "wo_text", "d", 5, np.nan),  # unscored: level 5 stays empty
        ("m1", "w_text", "a", 0, 0.0),
        ("m1", "w_text", "c", 9, 9.5),
        ("m2", "wo_text", "a", 0, 1.0),
        ("m2", "wo_text", "e", 2, 1.0),
        ("m2", "wo_text", "f", 2, 4.0),
        ("m2", "wo_text", "g", 2, 0.0),
    ]
    df = pd.DataFrame(rows, columns=["model", "context", "domain", "level", "pred"])
    df["category"] = None
    # w/ listed before w/o in the data: the matrix must still put w/o first
    return pd.concat([df[df.context == "w_text"], df[df.context != "w_text"]], ignore_index=True)


def test_label_counts(labels):
    fine, coarse = F.label_counts(labels)
    assert fine.tolist() == [3, 1, 0, 2, 0, 0, 0, 0, 0, 1]
    assert list(fine.index) == list(range(10))
    assert coarse.tolist() == [4, 2, 0, 0, 1]


def test_label_counts_rejects_bad_levels(labels):
    with pytest.raises(ValueError, match="level"):
        F.label_counts(labels.assign(level=[0, 1, 2, 3, 4, 5, 10]))
    with pytest.raises(ValueError, match="empty"):
        F.label_counts(labels.iloc[0:0])
    with pytest.raises(ValueError, match="coarse"):
        F.label_counts(labels.drop(columns=["coarse"]))


def test_plot_label_distribution_writes_valid_files(labels, tmp_path):
    out = tmp_path / "sub" / "fig3.png"
    paths = F.plot_label_distribution(labels, out)
    assert paths == [out, out.with_suffix(".pdf")]
    png = out.read_bytes()
    assert png[:8] == PNG_MAGIC and len(png) > 5000
    assert out.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"


def test_bias_matrix_values(pred):
    mat = F.bias_matrix(pred)
    assert list(mat.index) == ["m1 (w/o)", "m1 (w/)", "m2 (w/o)"]
    assert list(mat.columns) == list(range(10))
    expected = pd.DataFrame(np.nan, index=mat.index, columns=mat.columns)
    expected.loc["m1 (w/o)", 0] = ((3 - 0) + (4 - 0)) / 2  # 3.5
    expected.loc["m1 (w/o)", 9] = 6 - 9  # -3
    expected.loc["m1 (w/)", 0] = 0.0
    expected.loc["m1 (w/)", 9] = 0.5
    expected.loc["m2 (w/o)", 0] = 1.0
    expected.loc["m2 (w/o)", 2] = ((1 - 2) + (4 - 2) + (0 - 2)) / 3  # -1/3
    pd.testing.assert_frame_equal(mat, expected, check_names=False)
    assert np.isnan(mat.loc["m1 (w/o)", 5])  # only an unscored item at level 5
    # the bounds of each mean's bootstrap interval over its items (blank with too few)
    from authbench.stats import IntervalSpec

    spec = IntervalSpec(resamples=200, seed=1, min_units=3)
    lo, hi = F.bias_matrix(pred, spec, 0), F.bias_matrix(pred, spec, 1)
    assert lo.loc["m2 (w/o)", 2] <= mat.loc["m2 (w/o)", 2] <= hi.loc["m2 (w/o)", 2]
    assert lo.loc["m2 (w/o)", 2] < hi.loc["m2 (w/o)", 2]
    assert lo.drop(index="m2 (w/o)").isna().all().all() and lo.loc["m2 (w/o)"].notna().sum() == 1  # < 3 items


def test_bias_matrix_rejects_bad_input(pred):
    with pytest.raises(ValueError, match="empty"):
        F.bias_matrix(pred.iloc[0:0])
    with pytest.raises(ValueError, match="pred"):
        F.bias_matrix(pred.drop(columns=["pred"]))
    with pytest.raises(ValueError, match="level"):
        F.bias_matrix(pred.assign(level=12))


def test_plot_bias_heatmap_writes_valid_files(pred, tmp_path):
    out = tmp_path / "fig6.png"
    paths = F.plot_bias_heatmap(pred, out)
    assert paths == [out, out.with_suffix(".pdf")]
    png = out.read_bytes()
    assert png[:8] == PNG_MAGIC and len(png) > 5000
    pdf = out.with_suffix(".pdf").read_bytes()
    assert pdf[:5] == b"%PDF-" and b"CreationDate" not in pdf


def test_figures_are_deterministic(pred, labels, tmp_path):
    a = F.plot_bias_heatmap(pred, tmp_path / "a" / "fig6.png")
    b = F.plot_bias_heatmap(pred, tmp_path / "b" / "fig6.png")
    c = F.plot_label_distribution(labels, tmp_path / "a" / "fig3.png")
    d = F.plot_label_distribution(labels, tmp_path / "b" / "fig3.png")
    for x, y in zip(a + c, b + d):
        assert x.read_bytes() == y.read_bytes(), x.name


def test_heatmap_changes_with_data(pred, tmp_path):
    a = F.plot_bias_heatmap(pred, tmp_path / "a.png")[0].read_bytes()
    b = F.plot_bias_heatmap(pred.assign(pred=pred["pred"] + 1), tmp_path / "b.png")[0].read_bytes()
    assert a != b
