"""Atomic outputs and cut instance files (a run stopped mid-write):
records.atomic_write never leaves a half-written file under the name, a full
disk is a named error that keeps the file written before, and read_jsonl
names the file and line of an instances file cut between two jobs."""

from __future__ import annotations

import builtins
import errno
import json

import pytest
from authbench import records
from authbench.errors import InputError, OutputError
from authbench.records import atomic_write, read_jsonl, seal_path, write_jsonl
from authbench.render import comparisons as C
from authbench.stats import IntervalSpec

ROWS = [{"instance_id": f"i{n}", "items": [{"domain": f"d{n}.com", "level": n}]} for n in range(4)]


def test_a_failing_writer_keeps_the_previous_file_and_leaves_no_part(tmp_path):
    target = tmp_path / "out" / "t.md"
    with atomic_write(target) as fh:
        fh.write("old\n")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_write(target) as fh:
            fh.write("new, half")
            raise RuntimeError("boom")
    assert target.read_bytes() == b"old\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["t.md"]


class _FullDisk:
    """A file whose writes fail with ENOSPC once ``room`` characters are written."""

    def __init__(self, fh, room: int):
        self.fh, self.room = fh, room

    def write(self, data):
        if len(data) > self.room:
            self.fh.write(data[: self.room])
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)
        return self.fh.write(data)

    def __getattr__(self, name):
        return getattr(self.fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.fh.__exit__(*exc)


def _frame(shift: float):
    spec = IntervalSpec(resamples=200, seed=1, min_units=5)
    a = [0.2 + shift, 0.1, 0.3, 0.2, 0.25, 0.4]
    return C.finish([C.comparison_row("w/ vs w/o", "fine ρ", "m w/", "m w/o", "lists", a, [0.1] * 6, spec)])


def test_a_full_disk_in_a_report_step_is_named_and_keeps_the_previous_report(tmp_path, monkeypatch):
    stem = tmp_path / "report" / "comparisons"
    tsv, md = C.write_comparisons(_frame(0.0), stem, "before")
    before = md.read_bytes()

    def full_open(path, mode="r", *args, **kw):
        fh = builtins.open(path, mode, *args, **kw)
        return _FullDisk(fh, 40) if str(path).endswith(".md.part") else fh

    monkeypatch.setattr(records, "open", full_open, raising=False)
    with pytest.raises(OutputError) as err:
        C.write_comparisons(_frame(0.3), stem, "after")
    assert str(err.value).startswith(f"{md}: cannot write (disk full)")
    assert md.read_bytes() == before
    assert not list(stem.parent.glob("*.part"))


def test_a_full_disk_at_the_final_flush_is_named_too(tmp_path, monkeypatch):
    target = tmp_path / "t.txt"
    records.write_text(target, "old\n")
    monkeypatch.setattr(records.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.EDQUOT, "quota")))
    with pytest.raises(OutputError, match="t.txt: cannot write \\(disk full\\)"):
        records.write_text(target, "new\n")
    assert target.read_bytes() == b"old\n" and not (tmp_path / "t.txt.part").exists()


def test_write_jsonl_bytes_and_seal(tmp_path):
    path = tmp_path / "fine.jsonl"
    write_jsonl(ROWS, path, seal=True)
    expected = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in ROWS).encode()
    assert path.read_bytes() == expected
    assert json.loads(seal_path(path).read_text())["lines"] == 4
    assert read_jsonl(path) == ROWS
    write_jsonl(ROWS, tmp_path / "plain.jsonl")
    assert not seal_path(tmp_path / "plain.jsonl").exists()
    # the same file rewritten without a seal (fewer rows): the old seal goes, the file reads
    write_jsonl(ROWS[:2], path)
    assert not seal_path(path).exists() and read_jsonl(path) == ROWS[:2]


@pytest.mark.parametrize("seal", [True, False])
def test_a_cut_inside_a_line_names_the_file_and_line(tmp_path, seal):
    path = tmp_path / "fine.jsonl"
    write_jsonl(ROWS, path, seal=seal)
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"\n", data.index(b"\n") + 1) + 7])  # line 3 cut after 6 bytes
    with pytest.raises(InputError, match=f"^{path}: line 3: the file ends inside a line"):
        read_jsonl(path)


def test_a_cut_inside_a_character_names_the_last_line(tmp_path):
    path = tmp_path / "fine.jsonl"
    write_jsonl([{"q": "é"}, {"q": "éé"}], path)
    data = path.read_bytes()
    path.write_bytes(data[:-4])  # inside the second é of line 2
    with pytest.raises(InputError, match=f"^{path}: line 2: the file ends inside a line"):
        read_jsonl(path)


def test_a_cut_at_a_line_boundary_is_caught_by_the_seal(tmp_path):
    path = tmp_path / "fine.jsonl"
    write_jsonl(ROWS, path, seal=True)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:2]))
    with pytest.raises(InputError, match=f"^{path}: line 3: missing: the file ends after line 2 but the step "
                                         "that wrote it wrote 4 lines"):
        read_jsonl(path)
    path.write_bytes(b"".join(lines[:2]) + lines[3] + lines[2])  # same lines, another order
    with pytest.raises(InputError, match="changed or damaged after it was written"):
        read_jsonl(path)


def test_a_damaged_line_is_named(tmp_path):
    path = tmp_path / "fine.jsonl"
    path.write_bytes(b'{"a": 1}\n\x00\x00\x00\n')  # a lost block read back as zeros
    with pytest.raises(InputError, match=f"^{path}: line 2: not a JSON record"):
        read_jsonl(path)
