"""Reading Snakemake's dry-run output in tests."""

import re


def job_counts(out: str) -> dict[str, int]:
    """Rule name -> number of jobs, from the "Job stats:" table of a dry run."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Job stats:"))
    counts = {}
    for line in lines[start + 3:]:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        counts[parts[0]] = int(parts[1])
    return counts


def scheduled_cells(out: str) -> dict[str, str]:
    """Cell id -> rule of every model job of a dry run with ``-p``: each
    model job's params JSON (in its printed shell command) names its cell
    (``"cell":"..."``, :class:`authbench.studies.jobs.CellParams`); no other
    job's params carry that key."""
    cells, rule = {}, None
    for line in out.splitlines():
        head = re.match(r"^(?:local)?rule (\w+):", line)
        if head:
            rule = head.group(1)
        for cell in re.findall(r'"cell":"([^"]+)"', line):
            if cells.setdefault(cell, rule) != rule:
                raise ValueError(f"cell {cell} is scheduled by {cells[cell]} and {rule}")
    return cells
