"""benchmarks/suite_durations.py: per-folder seconds and the slowest phases from
`pytest --durations=0` lines (the file the suite writes has the same lines)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("suite_durations", ROOT / "benchmarks" / "suite_durations.py")
sd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sd)

LOG = """pytest -q --durations=0
....                                                                     [100%]
============================= slowest durations ==============================
340.50s setup    tests/workflow/test_documented_commands.py::test_make_install[a b]
12.25s call     tests/unit/test_x.py::test_one
0.75s teardown tests/workflow/test_documented_commands.py::test_make_install[a b]
0.50s call     tests/unit/test_x.py::test_two
(12 durations < 0.005s hidden.)
2 passed in 354.00s
"""


def test_folders_sum_every_phase(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text(LOG)
    rows = sd.read(log)
    assert rows[0] == (340.5, "setup", "tests/workflow/test_documented_commands.py::test_make_install[a b]")
    assert sd.folder_seconds(rows) == [("tests/workflow", 341.25), ("tests/unit", 12.75)]
    table = sd.tables(rows, slowest=2)
    assert "| all (3 items) | 354 |" in table
    assert "| 12.2 | call | `tests/unit/test_x.py::test_one` |" in table and "0.50" not in table


def test_write_replaces_only_the_marked_section(tmp_path):
    log, doc = tmp_path / "log.txt", tmp_path / "README.md"
    log.write_text(LOG)
    doc.write_text(f"# CI time\nbefore\n{sd.BEGIN}\nold table\n{sd.END}\nafter\n")
    assert sd.main([str(log), "--write", str(doc), "--note", "commit abc"]) == 0
    text = doc.read_text()
    assert text.startswith("# CI time\nbefore\n") and text.endswith(f"{sd.END}\nafter\n")
    assert "old table" not in text and "commit abc\n\n| test folder |" in text


def test_a_file_without_durations_is_named(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("2 passed\n")
    with pytest.raises(SystemExit, match="empty.txt: no duration lines"):
        sd.read(empty)
