"""Where the test suite's time goes, from a ``pytest --durations=0`` run.

    python benchmarks/suite_durations.py DURATIONS            # the tables, Markdown
    python benchmarks/suite_durations.py --folders DURATIONS  # one line per test folder (.ci/run's end)
    python benchmarks/suite_durations.py DURATIONS --write benchmarks/README.md --note "..."

DURATIONS is the console output of ``pytest --durations=0`` or the file the
suite writes where ``AUTHBENCH_TEST_TIMES`` names one (``.ci/run`` sets it;
tests/conftest.py): the same lines, ``1.23s call     tests/x.py::test``.
Other lines are skipped. The tables: the seconds of each test folder (every
phase of every item: setup, call, teardown) and the slowest items (one line
per phase, as pytest prints them). ``--write`` replaces what stands between
the two ``suite-durations`` markers of the file (benchmarks/README.md, "CI
time") with the tables, under ``--note`` (which run: commit, machine).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

LINE = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s+(setup|call|teardown)\s+(\S.*?)\s*$")
BEGIN, END = "<!-- suite-durations: begin (benchmarks/suite_durations.py --write) -->", "<!-- suite-durations: end -->"


def read(path: Path) -> list[tuple[float, str, str]]:
    """(seconds, phase, node id) of every duration line, slowest first."""
    rows = []
    for line in path.read_text(errors="replace").splitlines():
        m = LINE.match(line)
        if m:
            rows.append((float(m.group(1)), m.group(2), m.group(3)))
    if not rows:
        raise SystemExit(f"{path}: no duration lines ('1.23s call     tests/x.py::test'): "
                         "was it a `pytest --durations=0` run?")
    return sorted(rows, key=lambda r: -r[0])


def folder(nodeid: str) -> str:
    parts = nodeid.split("::", 1)[0].split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def folder_seconds(rows) -> list[tuple[str, float]]:
    totals = Counter()
    for seconds, _, nodeid in rows:
        totals[folder(nodeid)] += seconds
    return totals.most_common()


def tables(rows, slowest: int = 30) -> str:
    items = len({nodeid for _, _, nodeid in rows})
    out = ["| test folder | seconds |", "|---|---:|"]
    out += [f"| `{name}` | {seconds:,.0f} |" for name, seconds in folder_seconds(rows)]
    out += [f"| all ({items:,} items) | {sum(r[0] for r in rows):,.0f} |", "",
            f"The {slowest} slowest phases:", "", "| seconds | phase | test |", "|---:|---|---|"]
    out += [f"| {seconds:.1f} | {when} | `{nodeid}` |" for seconds, when, nodeid in rows[:slowest]]
    return "\n".join(out)


def write(target: Path, body: str) -> None:
    text = target.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{target}: no markers {BEGIN!r} ... {END!r} to write between")
    head, rest = text.split(BEGIN, 1)
    target.write_text(head + BEGIN + "\n" + body + "\n" + END + rest.split(END, 1)[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("durations", type=Path)
    ap.add_argument("--folders", action="store_true", help="one line per test folder and its seconds")
    ap.add_argument("--slowest", type=int, default=30)
    ap.add_argument("--write", type=Path, help="the Markdown file whose marked section to replace")
    ap.add_argument("--note", default="", help="what run the tables are of (commit, machine), above them")
    args = ap.parse_args(argv)
    rows = read(args.durations)
    if args.folders:
        for name, seconds in folder_seconds(rows):
            print(f"{name:<22} {seconds:6.0f} s")
        return 0
    body = (args.note.strip() + "\n\n" if args.note.strip() else "") + tables(rows, args.slowest)
    if args.write:
        write(args.write, body)
    else:
        print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
