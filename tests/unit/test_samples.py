"""The samples file (authbench.samples): round trip, canonical JSON, named errors."""

import json

import pytest

from authbench.samples import SAMPLE_COLUMNS, SamplesError, read_samples, write_samples


def test_round_trip_keeps_text_and_json(tmp_path):
    path = tmp_path / "samples.parquet"
    rows = [{"request_id": "a", "prompt": "P", "reply": "<script>alert(1)</script>\udcff".encode(
        "utf-8", "surrogateescape").decode("utf-8", "replace"), "status": "ok", "value": {"B": 2, "A": 1},
        "cached": True, "correct": None},
        {"request_id": "b", "prompt": "P", "reply": "", "status": "unparsed", "value": None, "gold": [3, 1]}]
    assert write_samples(rows, path, {"cell": "c", "study": "domainauth", "template_sha256": "t"}) == 2
    table, meta = read_samples(path)
    assert meta == {"cell": "c", "study": "domainauth", "template_sha256": "t", "format_version": 1}
    assert table.column_names == list(SAMPLE_COLUMNS)
    got = table.to_pylist()
    assert got[0]["value"] == '{"A": 1, "B": 2}' and got[1]["value"] is None
    assert json.loads(got[1]["gold"]) == [3, 1]
    assert got[0]["reply"].startswith("<script>") and got[0]["correct"] is None and got[0]["cached"] is True


def test_missing_and_damaged_files_are_named(tmp_path):
    with pytest.raises(SamplesError, match="no samples file"):
        read_samples(tmp_path / "nope.parquet")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    with pytest.raises(SamplesError, match="not a readable Parquet file"):
        read_samples(bad)
