"""A model cell's samples: one row per request the cell sent,
with what a reader needs to see what the judge did: the rendered prompt, the
raw reply, parse status and parsed value, E[s] and the score distribution
where present, the gold and whether the reply counted as correct (where the
study knows), and whether the reply came from the response cache.

Written as ``samples.parquet`` beside the cell's ``responses.jsonl``
(pyarrow, zstd, dictionary-encoded strings: a prompt repeated across rows
is stored once). JSON-valued columns hold canonical JSON text (``null`` when
absent) so that one schema serves every study. The file's key-value metadata
``authbench`` holds :data:`META_KEYS` as JSON.

The sample viewer (:mod:`authbench.cells.viewer`) and a cell's before/after
diff on a prompt edit read these files through :func:`read_samples`, which
turns a missing or damaged file into one named :class:`SamplesError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from authbench.errors import InputError
from authbench.records import atomic_write

FORMAT_VERSION = 1

# column -> pyarrow type name; JSON columns hold canonical JSON text
SAMPLE_COLUMNS: dict[str, str] = {
    "request_id": "string",
    "try": "int32",  # 0 = the first try; retried cells (self-preference) have one row per try
    "prompt": "string",
    "prompt_sha256": "string",
    "reply": "string",
    "finish_reason": "string",
    "prompt_tokens": "int64",
    "completion_tokens": "int64",
    "cached": "bool",  # served from the response cache in the run that wrote the file
    "status": "string",  # the parse status of the judgment ("ok", "unparsed", ...)
    "value": "json",  # the parsed value
    "expected": "json",  # E[s] (the shape of value), where score distributions were asked for
    "score_probs": "json",  # the score distributions behind E[s]
    "gold": "json",  # what the study counts as right for this request (true levels, the pair's truth, answers)
    "correct": "bool",  # null where a single request has no right/wrong (a list's ρ is per list)
    "fields": "json",  # every other field of the judgment row
}
JSON_COLUMNS = tuple(c for c, t in SAMPLE_COLUMNS.items() if t == "json")
# the file metadata: which cell, which study (the cell name's first part), which template version
# (:func:`authbench.cells.templates_sha256`)
META_KEYS = ("cell", "study", "template_sha256", "format_version")


class SamplesError(InputError):
    """A samples file that is missing, unreadable or not of this format."""


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON text (sorted keys, no ASCII escaping)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _schema():
    import pyarrow as pa

    types = {"string": pa.string(), "json": pa.string(), "int32": pa.int32(), "int64": pa.int64(), "bool": pa.bool_()}
    return pa.schema([(c, types[t]) for c, t in SAMPLE_COLUMNS.items()])


def write_samples(rows: Iterable[Mapping[str, Any]], path: str | Path, meta: Mapping[str, Any]) -> int:
    """Write ``rows`` (dicts keyed by :data:`SAMPLE_COLUMNS`; a JSON column
    takes any JSON-able value, a missing column is null) to ``path`` with
    ``meta`` (:data:`META_KEYS`) as the file's metadata; return the row count."""
    import io

    import pyarrow.json as pj
    import pyarrow.parquet as pq

    # built by pyarrow's JSON reader (C++), which, unlike pa.array, never imports
    # pandas: a fifth of a second in every model job; the file is the same
    lines = io.BytesIO()
    n = 0
    for row in rows:
        record = {c: None if (v := row.get(c)) is None else canonical_json(v) if c in JSON_COLUMNS else v
                  for c in SAMPLE_COLUMNS}
        lines.write(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
        n += 1
    schema = _schema().with_metadata({"authbench": canonical_json(
        {**{k: meta.get(k) for k in META_KEYS}, "format_version": FORMAT_VERSION})})
    if n:
        lines.seek(0)
        table = pj.read_json(lines, read_options=pj.ReadOptions(block_size=max(1 << 20, lines.getbuffer().nbytes + 1)),
                             parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error"))
        table = table.replace_schema_metadata(schema.metadata)
    else:
        table = schema.empty_table()
    # atomic, and always a new file (the cell's history may hold a hard link to the old one)
    with atomic_write(path, "wb") as fh:
        pq.write_table(table, fh, compression="zstd", use_dictionary=True)
    return table.num_rows


def read_samples(path: str | Path):
    """``(table, meta)`` of a samples file (a ``pyarrow.Table`` with every
    :data:`SAMPLE_COLUMNS` column, and the file's metadata). A missing,
    unreadable or foreign file raises :class:`SamplesError` naming the file
    and the reason."""
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_file():
        raise SamplesError(f"{path}: no samples file (the cell has not run, or its samples were removed)")
    try:
        table = pq.read_table(path)
    except Exception as err:  # pyarrow raises several types for a damaged file
        raise SamplesError(f"{path}: not a readable Parquet file ({type(err).__name__}: {err})") from None
    missing = [c for c in SAMPLE_COLUMNS if c not in table.column_names]
    raw = (table.schema.metadata or {}).get(b"authbench")
    if missing or raw is None:
        raise SamplesError(f"{path}: not a samples file: "
                           + (f"missing columns {missing}" if missing else "no 'authbench' metadata"))
    try:
        meta = json.loads(raw)
    except ValueError:
        raise SamplesError(f"{path}: its 'authbench' metadata is not JSON") from None
    return table, meta
