"""What a prompt edit changed: a model cell's earlier versions,
kept by template hash, and the before/after diff of a cell whose template
changed.

* **History** (:func:`keep`): right after a cell writes ``samples.parquet``
  (:mod:`authbench.cells.samples`), the cell (:class:`authbench.cells.CellStep`) keeps it, with the text of its
  template(s), in ``<root>/<cell id>/<template_sha256>/`` (``samples.parquet``:
  a hard link where the file system allows, so the current version costs no
  space, as :func:`authbench.cells.samples.write_samples` always writes a new file;
  ``templates/``, ``version.json``). A rerun with the same template hash
  overwrites that version; at most ``versions`` are kept per cell, the newest
  (the current one always). The history lives OUTSIDE the workflow's declared
  outputs: Snakemake deletes a job's outputs before it reruns the job, so the
  previous version cannot survive inside them. Where it lives and how many
  versions it keeps is the cell's to read (:data:`authbench.cells.HISTORY_ENV`).
* **Diff** (:func:`cell_diff`, :func:`diff_md`, :func:`write_diffs`): the
  current samples against the newest kept version with a different template
  hash, paired by ``request_id`` (a retried request: its last try). The
  metric is the share correct over the requests judged right/wrong in both
  versions; a cell without ``correct`` uses the parse-success rate (status
  ``ok``) over the requests in both. Δ = after − before with its paired
  percentile-bootstrap interval (:func:`authbench.stats.paired_test`,
  the config's ``intervals`` and ``seed``), the replies that changed, the
  answers that flipped correct → wrong and wrong → correct (with example
  request ids), and the parse failures of each version.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from authbench.records import write_text
from authbench.cells.samples import read_samples

if TYPE_CHECKING:  # the diff's statistics: scipy, which a model job's environment (vLLM's) need not have
    from authbench.stats import IntervalSpec

VERSION = "version.json"


def _meta(path: str | Path) -> dict:
    import pyarrow.parquet as pq

    return json.loads(pq.read_schema(path).metadata[b"authbench"])


def _templates(template: str | Sequence[str] | None) -> list[str]:
    if template is None:
        return []
    return [str(template)] if isinstance(template, (str, Path)) else [str(t) for t in template]


def versions_of(root: str | Path, cell: str) -> list[Path]:
    """The kept versions (folders) of ``cell``, newest first."""
    folder = Path(root) / cell
    found = [d for d in folder.glob(f"*/{VERSION}")] if folder.is_dir() else []
    return [p.parent for p in sorted(found, key=lambda p: json.loads(p.read_text())["kept_ns"], reverse=True)]


def keep(samples: str | Path, template: str | Sequence[str] | None, root: str | Path, versions: int) -> Path:
    """Copy a cell's ``samples`` and its ``template`` file(s) to its history
    under ``root`` (keyed by the samples' ``template_sha256``), drop all but
    the ``versions`` newest versions; return the version's folder."""
    meta = _meta(samples)
    dest = Path(root) / meta["cell"] / (meta["template_sha256"] or "no-template")
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "templates").mkdir(parents=True)
    try:  # a hard link: the kept version costs no space while it is the current one
        os.link(samples, dest / "samples.parquet")
    except OSError:  # another file system, or one without hard links
        shutil.copyfile(samples, dest / "samples.parquet")
    names = []
    for i, t in enumerate(_templates(template)):
        names.append(f"{i}-{Path(t).name}")
        shutil.copyfile(t, dest / "templates" / names[-1])
    write_text(dest / VERSION, json.dumps({"cell": meta["cell"], "template_sha256": meta["template_sha256"],
                                           "templates": names, "kept_ns": time.time_ns()}) + "\n")
    for old in versions_of(root, meta["cell"])[max(versions, 1):]:
        shutil.rmtree(old)
    return dest


def template_text(version: Path) -> str:
    """The kept template text of a version (several files: each under a ``# <name>`` line)."""
    names = json.loads((version / VERSION).read_text())["templates"]
    texts = [(version / "templates" / n).read_text(encoding="utf-8") for n in names]
    if len(texts) == 1:
        return texts[0]
    return "".join(f"# {n.split('-', 1)[1]}\n{t}" for n, t in zip(names, texts))


# --------------------------------------------------------------------------
# the diff
# --------------------------------------------------------------------------
def _by_request(table) -> dict[str, dict]:
    """The request's own id -> {reply, status, correct} of its last try
    (:func:`authbench.cells.ids.base_id`)."""
    from authbench.cells.ids import base_id

    out: dict[str, dict] = {}
    cols = table.select(["request_id", "try", "reply", "status", "correct"]).to_pylist()
    for row in sorted(cols, key=lambda r: r["try"] or 0):
        out[base_id(row["request_id"])[0]] = row
    return out


def cell_diff(before, after, spec: IntervalSpec, examples: int = 5) -> dict[str, Any]:
    """The diff of two versions of a cell (``pyarrow`` tables of
    :mod:`authbench.cells.samples`): see the module docstring. ``examples``: how
    many request ids of each flip direction to list."""
    b, a = _by_request(before), _by_request(after)
    both = [rid for rid in a if rid in b]
    judged = [rid for rid in both if a[rid]["correct"] is not None and b[rid]["correct"] is not None]
    if judged:
        metric, units = "share correct", judged
        value = {rid: (float(bool(b[rid]["correct"])), float(bool(a[rid]["correct"]))) for rid in units}
    else:
        metric, units = "parse-success rate", both
        value = {rid: (float(b[rid]["status"] == "ok"), float(a[rid]["status"] == "ok")) for rid in units}
    before_v = [value[r][0] for r in units]
    after_v = [value[r][1] for r in units]
    from authbench.stats import paired_test

    paired = paired_test(after_v, before_v, spec).as_dict()
    to_wrong = [r for r in judged if b[r]["correct"] and not a[r]["correct"]]
    to_right = [r for r in judged if not b[r]["correct"] and a[r]["correct"]]
    return {
        "metric": metric,
        "units": len(units),
        "before": sum(before_v) / len(units) if units else math.nan,
        "after": sum(after_v) / len(units) if units else math.nan,
        "delta": paired["delta"], "lo": paired["lo"], "hi": paired["hi"],
        "requests_before": len(b), "requests_after": len(a), "requests_both": len(both),
        "replies_changed": sum(a[r]["reply"] != b[r]["reply"] for r in both),
        "correct_to_wrong": len(to_wrong), "wrong_to_correct": len(to_right),
        "correct_to_wrong_examples": to_wrong[:examples], "wrong_to_correct_examples": to_right[:examples],
        "parse_failures_before": sum(r["status"] != "ok" for r in b.values()),
        "parse_failures_after": sum(r["status"] != "ok" for r in a.values()),
    }


def _num(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.3f}"


def _delta(d: Mapping) -> str:
    interval = "" if math.isnan(d["lo"]) else f" [{d['lo']:+.3f}, {d['hi']:+.3f}]"
    return ("n/a" if math.isnan(d["delta"]) else f"{d['delta']:+.3f}") + interval


def diff_md(cell: str, d: Mapping, before_sha: str, after_sha: str, template_diff: str, level: float) -> str:
    """A cell's ``diff.md``: the numbers of :func:`cell_diff` and the template's unified diff."""
    graded = d["metric"] == "share correct"

    def flips(n: int, ids: Sequence[str]) -> str:
        if not graded:
            return "n/a (no request of this cell is right or wrong on its own)"
        return f"{n} (e.g. {', '.join(f'`{x}`' for x in ids) or 'none'})"

    over = "judged in" if graded else "present in"
    rows = [
        ("metric", f"{d['metric']} over the {d['units']} requests {over} both versions"),
        ("before → after", f"{_num(d['before'])} → {_num(d['after'])}"),
        (f"Δ after − before [{level:.0%} paired interval]", _delta(d)),
        ("requests before / after / in both", f"{d['requests_before']} / {d['requests_after']} / {d['requests_both']}"),
        ("replies that changed (of those in both)", str(d["replies_changed"])),
        ("correct → wrong", flips(d["correct_to_wrong"], d["correct_to_wrong_examples"])),
        ("wrong → correct", flips(d["wrong_to_correct"], d["wrong_to_correct_examples"])),
        ("parse failures before → after", f"{d['parse_failures_before']} → {d['parse_failures_after']}"),
    ]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    return (f"# Prompt edit: {cell}\n\nTemplate `{before_sha[:12]}` (before) → `{after_sha[:12]}` (after, the "
            f"current run).\n\n| | |\n|---|---|\n{table}\n\n## Template diff\n\n```diff\n{template_diff}```\n")


def template_diff(before: str, after: str, before_sha: str, after_sha: str) -> str:
    """The unified diff (difflib) of two template texts."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 f"template {before_sha[:12]}", f"template {after_sha[:12]}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def write_diffs(samples: Iterable[str], root: str | Path, folder: str | Path, index: str | Path,
                spec: IntervalSpec, examples: int, title: str) -> list[str]:
    """For each cell's current ``samples`` whose history under ``root`` holds
    an older version with another template hash: ``<folder>/<cell id>.md``
    (:func:`diff_md`); and ``index``, listing those cells (a table, then each
    cell's diff). Returns the cells with a diff."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    cells, listed, sections = [], [], []
    for path in samples:
        table, meta = read_samples(path)
        cell, sha = meta["cell"], meta["template_sha256"] or "no-template"
        kept = versions_of(root, cell)
        older = next((v for v in kept if v.name != sha), None)
        if older is None:
            continue
        before, _ = read_samples(older / "samples.parquet")
        current = Path(root) / cell / sha
        after_text = template_text(current) if (current / VERSION).is_file() else ""
        d = cell_diff(before, table, spec, examples)
        text = diff_md(cell, d, older.name, sha, template_diff(template_text(older), after_text, older.name, sha),
                       spec.level)
        out = folder / f"{cell}.md"
        write_text(out, text)
        cells.append(cell)
        rel = os.path.relpath(out, Path(index).parent)
        listed.append(f"| [{cell}]({rel}) | `{older.name[:12]}` → `{sha[:12]}` | {d['metric']} | "
                      f"{_num(d['before'])} → {_num(d['after'])} | {_delta(d)} | {d['replies_changed']} |")
        sections.append(text.replace("\n#", "\n##").replace("# Prompt edit", "## Prompt edit", 1))
    head = (f"# {title}: prompt-edit diffs\n\nCells whose template changed since a kept earlier run "
            "(history: `samples.versions` per cell, outside the workflow's outputs).\n\n")
    if not listed:
        body = "No cell has an earlier version with another template.\n"
    else:
        body = ("| cell | template | metric | before → after | Δ [interval] | replies changed |\n"
                "|---|---|---|---|---|---|\n" + "\n".join(listed) + "\n\n" + "\n".join(sections))
    write_text(index, head + body)
    return cells
