"""A cell's prompt-edit history and diff (authbench.cells.history):
the diff's arithmetic against hand-computed values, the bounded history."""

import math

import pytest
from authbench.cells.history import cell_diff, diff_md, keep, versions_of, write_diffs
from authbench.cells.samples import read_samples, write_samples
from authbench.stats import IntervalSpec, paired_test

SPEC = IntervalSpec(resamples=200, seed=7, level=0.95, min_units=5)


def _rows(spec):
    """(request_id, reply, status, correct[, try]) -> sample rows."""
    return [{"request_id": r[0], "reply": r[1], "status": r[2], "correct": r[3], "try": r[4] if len(r) > 4 else 0}
            for r in spec]


BEFORE = _rows([("p0", "A", "ok", True), ("p1", "A", "ok", True), ("p2", "A", "ok", True), ("p3", "A", "ok", True),
                ("p4", "B", "ok", False), ("p5", "B", "ok", False), ("p6", "??", "unparsed", None)])
AFTER = _rows([("p1", "A", "ok", True), ("p2", "B", "ok", False), ("p3", "A", "ok", True), ("p4", "A", "ok", True),
               ("p5", "A", "ok", True), ("p6", "A", "ok", True), ("p7", "A", "ok", True)])


def _table(tmp_path, name, rows, sha="t", cell="domainauth/m/pair/wo_text/pairs"):
    path = tmp_path / name
    write_samples(rows, path, {"cell": cell, "study": "domainauth", "template_sha256": sha})
    return path


def test_diff_counts_match_hand_computed_values(tmp_path):
    before, _ = read_samples(_table(tmp_path, "b.parquet", BEFORE))
    after, _ = read_samples(_table(tmp_path, "a.parquet", AFTER))
    d = cell_diff(before, after, SPEC, examples=1)
    # judged right/wrong in both: p1..p5 (p6 unparsed before, p0/p7 in one version only)
    assert d["metric"] == "share correct" and d["units"] == 5
    assert d["before"] == pytest.approx(3 / 5) and d["after"] == pytest.approx(4 / 5)
    assert d["delta"] == pytest.approx(0.2)
    ref = paired_test([1, 0, 1, 1, 1], [1, 1, 1, 0, 0], SPEC)
    assert (d["lo"], d["hi"]) == (ref.lo, ref.hi) and d["lo"] <= 0.2 <= d["hi"]
    assert (d["requests_before"], d["requests_after"], d["requests_both"]) == (7, 7, 6)
    assert d["replies_changed"] == 4  # p2, p4, p5, p6
    assert (d["correct_to_wrong"], d["correct_to_wrong_examples"]) == (1, ["p2"])
    assert (d["wrong_to_correct"], d["wrong_to_correct_examples"]) == (2, ["p4"])  # examples=1
    assert (d["parse_failures_before"], d["parse_failures_after"]) == (1, 0)


def test_without_correct_the_metric_is_parse_success_and_last_try_counts(tmp_path):
    before = _rows([("a", "x", "ok", None), ("b", "", "unparsed", None), ("c", "x", "ok", None)])
    after = _rows([("a", "x", "ok", None), ("b", "", "retried", None, 0), ("b#retry1", "y", "ok", None, 1),
                   ("c", "", "unparsed", None)])
    b, _ = read_samples(_table(tmp_path, "b.parquet", before))
    a, _ = read_samples(_table(tmp_path, "a.parquet", after))
    d = cell_diff(b, a, SPEC)
    assert d["metric"] == "parse-success rate" and d["units"] == 3
    assert d["before"] == pytest.approx(2 / 3) and d["after"] == pytest.approx(2 / 3) and d["delta"] == 0
    assert math.isnan(d["lo"]) and math.isnan(d["hi"])  # 3 units < min_units 5: no interval
    assert d["replies_changed"] == 2 and (d["parse_failures_before"], d["parse_failures_after"]) == (1, 1)
    assert d["correct_to_wrong"] == d["wrong_to_correct"] == 0
    text = diff_md("c", d, "b" * 64, "a" * 64, "", 0.95)
    assert "| metric | parse-success rate over the 3 requests present in both versions |" in text
    assert "| correct → wrong | n/a (no request of this cell is right or wrong on its own) |" in text


def test_history_keeps_the_newest_versions_and_overwrites_a_rerun(tmp_path):
    root, tpl = tmp_path / "history", tmp_path / "t.yaml"
    cell = "domainauth/m/pair/wo_text/pairs"
    for sha in ("v1", "v2", "v3"):
        tpl.write_text(f"prompt {sha}\n")
        keep(_table(tmp_path, f"{sha}.parquet", BEFORE, sha), str(tpl), root, 2)
    assert [v.name for v in versions_of(root, cell)] == ["v3", "v2"]  # v1 dropped
    tpl.write_text("prompt v2 again\n")
    keep(_table(tmp_path, "v2b.parquet", AFTER, "v2"), [str(tpl)], root, 2)
    assert [v.name for v in versions_of(root, cell)] == ["v2", "v3"]
    assert (root / cell / "v2" / "templates" / "0-t.yaml").read_text() == "prompt v2 again\n"
    assert read_samples(root / cell / "v2" / "samples.parquet")[0].num_rows == len(AFTER)
    keep(tmp_path / "v1.parquet", str(tpl), root, 1)
    assert [v.name for v in versions_of(root, cell)] == ["v1"]


def test_write_diffs_lists_only_cells_with_an_older_template(tmp_path):
    root, tpl = tmp_path / "history", tmp_path / "t.yaml"
    tpl.write_text("Which is more authoritative?\nAnswer A or B.\n")
    keep(_table(tmp_path, "old.parquet", BEFORE, "old"), str(tpl), root, 3)
    tpl.write_text("Which source is more authoritative?\nAnswer A or B.\n")
    current = _table(tmp_path, "new.parquet", AFTER, "new")
    keep(current, str(tpl), root, 3)
    alone = _table(tmp_path, "alone.parquet", AFTER, "new", cell="domainauth/m/point/wo_text/fine")
    keep(alone, str(tpl), root, 3)
    index = tmp_path / "report" / "diffs.md"
    cells = write_diffs([str(current), str(alone)], root, tmp_path / "report" / "diffs", index, SPEC, 5, "DomainAuth")
    assert cells == ["domainauth/m/pair/wo_text/pairs"]
    text = (tmp_path / "report" / "diffs" / "domainauth/m/pair/wo_text/pairs.md").read_text()
    assert "-Which is more authoritative?\n+Which source is more authoritative?\n" in text
    assert "| 0.600 → 0.800 |" in text and "| correct → wrong | 1 (e.g. `p2`) |" in text
    assert "| parse failures before → after | 1 → 0 |" in text
    assert "| replies that changed (of those in both) | 4 |" in text
    idx = index.read_text()
    assert "[domainauth/m/pair/wo_text/pairs](diffs/domainauth/m/pair/wo_text/pairs.md)" in idx
    assert "point/wo_text/fine" not in idx
    assert write_diffs([str(alone)], root, tmp_path / "d2", tmp_path / "d2.md", SPEC, 5, "X") == []
    assert "No cell has an earlier version" in (tmp_path / "d2.md").read_text()


def test_the_current_version_is_a_hard_link_that_a_rewrite_leaves_alone(tmp_path):
    from authbench.cells.history import keep
    from authbench.cells.samples import read_samples, write_samples

    samples = tmp_path / "cell" / "samples.parquet"
    meta = {"cell": "domainauth/m/point/wo_text/fine", "study": "domainauth", "template_sha256": "t1"}
    write_samples([{"request_id": "a", "reply": "first"}], samples, meta)
    kept = keep(samples, None, tmp_path / "history", 3) / "samples.parquet"
    assert kept.stat().st_ino == samples.stat().st_ino  # no second copy of the bytes
    write_samples([{"request_id": "a", "reply": "second"}], samples, meta)  # a rerun by hand: same path
    assert read_samples(kept)[0].column("reply").to_pylist() == ["first"]
    assert read_samples(samples)[0].column("reply").to_pylist() == ["second"]
    assert not list(samples.parent.glob("*.part"))
