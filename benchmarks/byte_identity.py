"""Are two runs' ``results/`` trees the same, timings aside? The check behind a
refactor that must not change outputs (docs/testing.md, "Byte identity of a
refactor").

    python benchmarks/byte_identity.py BEFORE/results AFTER/results

Every file of either tree is put in one class and the classes are printed as
a table (then every file of the last two classes):

* ``identical``: the same bytes;
* ``timing``: a file that records when or how fast (``logs/``, ``timings/``,
  ``history/**/version.json``, the response cache's shards, named by process
  id) or a ``manifest.json`` whose only differences are the load seconds and
  the pipeline's commit;
* ``job order``: a difference that follows from which of two cells sharing a
  prompt ran first (a ``manifest.json``'s ``cache_hits``/``engine_calls``, a
  ``samples.parquet``'s ``cached`` column, the cost table's cached count, the
  sample viewer's data copies of them; its assets are its code and compare as files);
* ``differs``: anything else, and ``only in one``: a file the other tree lacks.

Exit code 1 when a file differs or is in one tree only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TIMING_PARTS = ("logs", "timings", "cache")
TIMING_KEYS = {"model_load_seconds", "provenance.pipeline.commit"}
ORDER_KEYS = {"cache_hits", "engine_calls"}


def _flat(d, prefix: str = "") -> dict:
    if isinstance(d, dict):
        return {k: v for key, val in d.items() for k, v in _flat(val, f"{prefix}.{key}" if prefix else key).items()}
    if isinstance(d, list):
        return {k: v for i, val in enumerate(d) for k, v in _flat(val, f"{prefix}[{i}]").items()}
    return {prefix: d}


def _manifest(a: Path, b: Path) -> str:
    fa, fb = _flat(json.loads(a.read_text())), _flat(json.loads(b.read_text()))
    keys = {k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k)}
    if keys <= TIMING_KEYS:
        return "timing"
    return "job order" if keys <= TIMING_KEYS | ORDER_KEYS else "differs"


def _samples(a: Path, b: Path) -> str:
    import pyarrow.parquet as pq

    ta, tb = pq.read_table(a), pq.read_table(b)
    if ta.schema != tb.schema or ta.schema.metadata != tb.schema.metadata or ta.num_rows != tb.num_rows:
        return "differs"
    cols = [c for c in ta.column_names if not ta[c].equals(tb[c])]
    return "job order" if cols == ["cached"] else "differs"


def classify(rel: Path, a: Path, b: Path) -> str:
    if a.read_bytes() == b.read_bytes():
        return "identical"
    if rel.parts[0] in TIMING_PARTS or (rel.parts[0] == "history" and rel.name == "version.json"):
        return "timing"
    if rel.name == "manifest.json":
        return _manifest(a, b)
    if rel.name == "samples.parquet":
        return _samples(a, b)
    if rel.name in ("costs.csv", "costs.md") or ("viewer" in rel.parts and "data" in rel.parts):
        return "job order"  # a viewer's data (cache flags); its assets (the viewer's code) are compared as files
    return "differs"


def main(before: str, after: str) -> int:
    a_root, b_root = Path(before), Path(after)
    a_files = {p.relative_to(a_root) for p in a_root.rglob("*") if p.is_file()}
    b_files = {p.relative_to(b_root) for p in b_root.rglob("*") if p.is_file()}
    classes: dict[str, list[Path]] = {}
    for rel in sorted(a_files | b_files):
        if rel.parts[0] == "cache" or rel not in a_files or rel not in b_files:
            cls = "timing" if rel.parts[0] == "cache" else "only in one"
        else:
            cls = classify(rel, a_root / rel, b_root / rel)
        classes.setdefault(cls, []).append(rel)
    print("| class | files |\n|---|---:|")
    for cls in ("identical", "timing", "job order", "differs", "only in one"):
        print(f"| {cls} | {len(classes.get(cls, []))} |")
    for cls in ("differs", "only in one"):
        for rel in classes.get(cls, []):
            print(f"{cls}: {rel}")
    return 1 if classes.get("differs") or classes.get("only in one") else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    sys.exit(main(sys.argv[1], sys.argv[2]))
