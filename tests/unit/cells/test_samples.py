"""The samples file (authbench.cells.samples): round trip, canonical JSON, named errors."""

import json

import pytest

from authbench.cells.samples import SAMPLE_COLUMNS, SamplesError, read_samples, write_samples


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


def test_samples_file_is_the_one_pyarrow_tables_write_and_needs_no_pandas(tmp_path):
    """write_samples builds its table with pyarrow's JSON reader (no pandas
    import in a model job); the file is byte for byte the one a table built
    from Python lists writes, for rows and for none."""
    import subprocess
    import sys

    import pyarrow as pa
    import pyarrow.parquet as pq

    from authbench.cells.samples import JSON_COLUMNS, SAMPLE_COLUMNS, _schema, canonical_json, write_samples

    rows = [{"request_id": "a", "try": 0, "prompt": "Ünïcode ☃ \"quoted\"", "reply": None, "prompt_tokens": 5,
             "cached": True, "value": {"b": 2, "a": [1, None]}, "correct": False},
            {"request_id": "b", "try": 1, "prompt": "x", "gold": 3, "fields": {"n": 1}}]
    meta = {"cell": "c", "study": "s", "template_sha256": "t"}
    for batch in (rows, []):
        cols = {c: [None if r.get(c) is None else canonical_json(r[c]) if c in JSON_COLUMNS else r[c] for r in batch]
                for c in SAMPLE_COLUMNS}
        schema = _schema().with_metadata({"authbench": canonical_json({**meta, "format_version": 1})})
        pq.write_table(pa.Table.from_pydict(cols, schema=schema), tmp_path / "lists.parquet", compression="zstd",
                       use_dictionary=True)
        assert write_samples(batch, tmp_path / "samples.parquet", meta) == len(batch)
        assert (tmp_path / "samples.parquet").read_bytes() == (tmp_path / "lists.parquet").read_bytes()
    code = ("import sys; from authbench.cells.samples import write_samples; "
            f"write_samples([{{'request_id': 'a'}}], {str(tmp_path / 'p.parquet')!r}, {{}}); print('pandas' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
