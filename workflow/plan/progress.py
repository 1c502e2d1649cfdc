"""A run against its plan, from the submitting shell (:func:`progress_lines`;
``python -m authbench.cli progress --results <folder>``, ``make progress``).

Reads ``<results>/plan_cells.tsv`` (``snakemake plan``: each model job's
planned engine seconds and model load), the cell manifests (a finished
cell: its engine seconds and model load of the run that made it) and the
model jobs' logs under ``<results>/logs/`` (a running cell: its last
progress line, written at least every 20 s by
:class:`authbench.llm.runner.Progress`). The logs are the rules' ``log:``
files, so this works the same under Slurm, where a job's console output
goes to the cluster's job log and not to the submitting shell.

Per model: ``n of N cells, engine m of M min planned, about t min left``.
``m`` is what the finished cells took (engine and model loads) plus the
running cells' time so far; ``t`` is each running cell's own estimate
("about ... left") plus the planned time of the cells not started, scaled
by how the finished cells compared with their plan (their actual / planned
time, kept within 0.25x-4x; 1 before any finished).
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from pathlib import Path

PROGRESS_LINE = re.compile(r"(?P<cell>[^\s:]+): (?P<done>\d+)/(?P<total>\d+) requests, [\d,.]+ tokens/s over "
                           r"(?P<over>[^,]+?)(?:, about (?P<left>.+?) left|, time left not known yet)?\s*$")
DURATION = re.compile(r"(?:(\d+) min)?\s*(?:(\d+) s)?")
TAIL_BYTES = 65536


def _seconds(text: str) -> float:
    m = DURATION.fullmatch(text.strip())
    return 0.0 if m is None else 60 * int(m.group(1) or 0) + int(m.group(2) or 0)


def last_progress(log: Path) -> dict | None:
    """The last progress line of a job log, parsed (None: there is none)."""
    try:
        with open(log, "rb") as fh:
            fh.seek(max(0, log.stat().st_size - TAIL_BYTES))
            lines = fh.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        m = PROGRESS_LINE.search(line)
        if m:
            return {"cell": m["cell"], "done": int(m["done"]), "total": int(m["total"]),
                    "over": _seconds(m["over"]), "left": None if m["left"] is None else _seconds(m["left"]),
                    "when": log.stat().st_mtime}
    return None


def _finished(results: Path) -> dict[str, tuple[float, float]]:
    """Cell id -> (engine seconds, model load seconds) of every cell manifest under ``results``."""
    out = {}
    for path in results.rglob("manifest.json"):
        try:
            m = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(m, dict) and m.get("cell"):
            out[str(m["cell"])] = (float(m.get("engine_seconds_this_run", m.get("seconds", 0)) or 0),
                                   float(m.get("model_load_seconds") or 0))
    return out


def progress_lines(results: str | Path) -> list[str]:
    """One line per model of the plan (module docstring); a line saying why when there is no plan."""
    results = Path(results)
    cells_tsv = results / "plan_cells.tsv"
    if not cells_tsv.is_file():
        return [f"progress: no plan at {cells_tsv} (run `snakemake plan` first, with the same --configfile)"]
    with open(cells_tsv, newline="", encoding="utf-8") as fh:
        planned = [r for r in csv.DictReader(fh, delimiter="\t") if r.get("in_run", "yes") == "yes"]
    finished = _finished(results)
    running = {}
    logs = results / "logs"
    for log in logs.rglob("*.log") if logs.is_dir() else []:
        got = last_progress(log)
        if got and got["cell"] not in finished and got["done"] < got["total"]:
            running[got["cell"]] = got
    by_model: dict[str, list[dict]] = defaultdict(list)
    for row in planned:
        by_model[row["model"]].append(row)
    out = []
    for model, rows in by_model.items():
        def plan_s(r):
            return float(r["engine_seconds"] or 0) + float(r["load_seconds"] or 0)

        total = sum(plan_s(r) for r in rows)
        done = [r for r in rows if r["cell"] in finished]
        spent = sum(sum(finished[r["cell"]]) for r in done)
        planned_done = sum(plan_s(r) for r in done if sum(finished[r["cell"]]) > 0)
        actual_done = sum(sum(finished[r["cell"]]) for r in done if sum(finished[r["cell"]]) > 0)
        ratio = min(4.0, max(0.25, actual_done / planned_done)) if planned_done > 0 else 1.0
        left = 0.0
        for r in rows:
            if r["cell"] in finished:
                continue
            run = running.get(r["cell"])
            if run is None:
                left += plan_s(r) * ratio
                continue
            spent += run["over"]
            left += run["left"] if run["left"] is not None else plan_s(r) * ratio * (1 - run["done"] / run["total"])
        rated = any(r["engine_seconds"] not in ("", None) for r in rows)
        when = (f"engine {spent / 60:,.1f} of {total / 60:,.1f} min planned, about {left / 60:,.1f} min left"
                if rated else f"engine {spent / 60:,.1f} min so far (the plan has no time for it)")
        active = sum(1 for r in rows if r["cell"] in running)
        out.append(f"progress: {model}: {len(done)} of {len(rows)} cells"
                   + (f" ({active} running)" if active else "") + f", {when}")
    return out or ["progress: the plan lists no model cell"]
