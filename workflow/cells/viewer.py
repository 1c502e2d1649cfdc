"""A study's sample viewer: a static folder that opens from the
file system and from inside the report zip, showing what every model cell
sent and got back (:mod:`authbench.cells.samples`).

:func:`write_viewer` reads each cell's ``samples.parquet`` and writes

* ``index.html`` + the assets of ``report/viewer/`` (vanilla JS, no build);
* ``data/catalog.js``: every cell (its path parts: model, judge/step,
  context, setting), its counts (samples, parse failures, correct, wrong,
  cached), its judge-validity flags, or ``unavailable`` with the
  :class:`~authbench.cells.samples.SamplesError` reason (one bad cell never stops
  the rest);
* per cell ``data/<cell id>/index.js``: one light row per sample (column
  arrays: status, correct, cached, short value and gold; for a cell shown
  twice, its *twin*, each sample's outcome and its twin's row), and
  ``chunk_<k>.js`` holding :data:`CHUNK` samples' prompts (each distinct
  prompt once, front-coded: :func:`front_coded`) and replies, loaded only
  when a sample of the chunk is opened.

Twins: a cell shown a second time (AuthorityBench's ``position_consistency``:
the comparisons in the other order) has its second showing in its folder's
``reversed/`` and a :data:`TWINS` table there (request id, the twin's request
id, the outcome), which rides in the ``samples`` list; the viewer filters a
cell's samples by outcome and shows both replies side by side.

Data files are scripts calling ``ABV.catalog`` / ``ABV.index`` / ``ABV.chunk``
(``fetch`` does not work on ``file://``), their strings escaped by
:func:`js_json` so that no reply can close the script tag. The index and the
chunks pass their JSON :func:`packed` (gzip, then base64: about a fifth of
the plain JSON); viewer.js unpacks it with the browser's
``DecompressionStream``.
"""

from __future__ import annotations

import base64
import csv
import gzip
import json
import os
import re
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from authbench.records import write_bytes, write_text
from authbench.cells.samples import SamplesError, read_samples

CHUNK = 1000  # samples per chunk file
SHORT = 80  # characters of value / gold in the light index
ASSETS = ("index.html", "viewer.js", "viewer.css")
PICKERS = ("model", "judge", "context", "setting")
TWINS = "twins.tsv"  # a cell's pairing with its second showing (module docstring), in the second showing's folder
# statuses that are no parse failure: parsed, or an earlier try of a retried request (its last try counts)
NOT_FAILED = ("ok", "retried")

_UNSAFE = re.compile(r"[<>&\u2028\u2029]|[\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def js_json(value: Any) -> str:
    """``value`` as JSON safe inside a ``<script>`` file: ``<``, ``>``,
    ``&``, U+2028/2029 and lone surrogates (a non-UTF-8 byte read with
    ``surrogateescape``) written as ``\\uXXXX`` escapes (the surrogate stays
    visible as U+DCxx in the viewer, never dropped)."""
    return _UNSAFE.sub(_escape, json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def packed(value: Any) -> str:
    """:func:`js_json` of ``value``, UTF-8, gzipped (level 9, no timestamp:
    the same value gives the same bytes) and base64-encoded: a string of
    ``A-Za-z0-9+/=`` only, safe in any script."""
    return base64.b64encode(gzip.compress(js_json(value).encode("utf-8"), 9, mtime=0)).decode("ascii")


def cell_parts(rel: Sequence[str]) -> dict[str, str]:
    """The viewer's pickers of a cell folder (its path under the study's
    folder): the model is the folder after ``cells``, then the judge or step,
    the context, and the rest (with the dataset before ``cells``) as the
    setting; a folder without ``cells`` (``generated/<model>``) is
    step/model."""
    rel = list(rel)
    if "cells" in rel:
        i = rel.index("cells")
        pre, post = rel[:i], rel[i + 1:]
    else:
        pre, post = [], rel[1:] + rel[:1]
    vals = post + ["-"] * max(0, 3 - len(post))
    setting = "/".join(pre + vals[3:]) or "-"
    return {"model": vals[0], "judge": vals[1], "context": vals[2], "setting": setting}


def read_flags(costs: str | Path | None) -> dict[tuple, list[str]]:
    """The judge-validity flags of an AuthorityBench report's ``costs.csv``
    (columns flag, why): ``{(benchmark, model, judge, context, setting): [why]}``
    for every flagged cell (the benchmark's last path part)."""
    if not costs or not Path(costs).is_file():
        return {}
    with open(costs, newline="", encoding="utf-8") as fh:
        return {(r["benchmark"].rsplit("/", 1)[-1], r["model"], r["judge"], r["context"], r["setting"]):
                [w for w in (r.get("why") or "").split("; ") if w] or ["flagged"]
                for r in csv.DictReader(fh) if r.get("flag")}


def _short(text: str | None) -> str:
    if text is None:
        return ""
    return text if len(text) <= SHORT else text[:SHORT - 1] + "…"


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def front_coded(texts: Sequence[str]) -> list[list]:
    """``texts`` as ``[k, rest]`` pairs: the first ``k`` characters (UTF-16
    code units, as JavaScript counts) shared with the text before (prompts
    of one template share most of their text); viewer.js decodes them."""
    out, before = [], ""
    for text in texts:
        k = len(os.path.commonprefix([before, text]))
        out.append([len(text[:k].encode("utf-16-le")) // 2, text[k:]])  # k in JavaScript's UTF-16 units
        before = text
    return out


def read_twins(path: str | Path) -> dict[str, tuple[str, str]]:
    """A :data:`TWINS` table: request id -> (its twin's request id, outcome)."""
    with open(path, newline="", encoding="utf-8") as fh:
        return {r["request_id"]: (r["twin_request_id"], r["outcome"]) for r in csv.DictReader(fh, delimiter="\t")}


def _twin_columns(request_ids: Sequence[str], twins: Mapping[str, tuple[str, str]],
                  twin_ids: Sequence[str]) -> dict:
    """Per sample, its outcome (``""``: none) and its twin's row (-1: none;
    a retried request's last try)."""
    row = {rid: i for i, rid in enumerate(twin_ids)}
    got = [twins.get(rid) for rid in request_ids]
    return {"outcome": [g[1] if g else "" for g in got], "twin_row": [row.get(g[0], -1) if g else -1 for g in got]}


def _cell_data(table, twin: dict | None = None) -> tuple[dict, dict, Iterator[dict]]:
    """(counts, light index, its chunks one at a time) of one samples table
    (``twin``: :func:`_twin_columns` of a cell shown twice)."""
    cols = table.to_pydict()
    n = table.num_rows
    statuses = sorted({s or "" for s in cols["status"]})
    code = {s: i for i, s in enumerate(statuses)}
    correct = [-1 if c is None else int(bool(c)) for c in cols["correct"]]
    index = {
        "n": n, "statuses": statuses,
        "status": [code[s or ""] for s in cols["status"]],
        "correct": correct,
        "cached": [int(bool(c)) for c in cols["cached"]],
        "request_id": cols["request_id"], "try": cols["try"],
        "value": [_short(v) for v in cols["value"]],
        "gold": [_short(v) for v in cols["gold"]],
        "prompt_chars": [len(p or "") for p in cols["prompt"]],
        **(twin or {}),
    }
    counts = {"samples": n, "parse_failures": sum(1 for s in cols["status"] if s not in NOT_FAILED),
              "correct": correct.count(1), "wrong": correct.count(0), "cached": sum(index["cached"])}

    def chunk(start: int) -> dict:
        prompts: dict[str, int] = {}
        rows = []
        for i in range(start, min(n, start + CHUNK)):
            p = cols["prompt"][i] or ""
            rows.append({"p": prompts.setdefault(p, len(prompts)), "reply": cols["reply"][i],
                         "finish_reason": cols["finish_reason"][i], "prompt_sha256": cols["prompt_sha256"][i],
                         "prompt_tokens": cols["prompt_tokens"][i], "completion_tokens": cols["completion_tokens"][i],
                         **{k: _load(cols[k][i]) for k in ("value", "expected", "score_probs", "gold", "fields")}})
        return {"prompts": front_coded(list(prompts)), "rows": rows}

    return counts, index, (chunk(start) for start in range(0, n, CHUNK))


def write_viewer(outdir: str | Path, samples: Iterable[str | Path], root: str | Path, study: str,
                 assets: str | Path, flags: Mapping[tuple, list[str]] | None = None) -> dict:
    """Write the viewer of ``study`` under ``outdir`` from each cell's
    ``samples`` file (``root``: the study's folder, the cells' paths are
    shown relative to it), ``assets`` (``report/viewer``) and the
    judge-validity ``flags`` (:func:`read_flags`). Returns the catalog."""
    out = Path(outdir)
    if out.exists():
        shutil.rmtree(out)
    (out / "data").mkdir(parents=True)
    for name in ASSETS:
        write_bytes(out / name, (Path(assets) / name).read_bytes())
    flags = flags or {}
    paths = sorted(Path(p) for p in samples)
    twins = {p.parent.parent: p for p in paths if p.name == TWINS}  # the first showing's folder -> its twins
    paths = [p for p in paths if p.name != TWINS]
    ids = {p.parent: f"c{k}" for k, p in enumerate(paths)}
    cells = []
    for k, path in enumerate(paths):
        rel = path.parent.relative_to(root).parts
        parts = cell_parts(rel)
        bench = rel[rel.index("cells") - 1] if "cells" in rel and rel.index("cells") else Path(root).name
        key = (bench, parts["model"], parts["judge"], parts["context"], parts["setting"].rsplit("/", 1)[-1])
        entry = {"id": f"c{k}", "cell": "/".join(rel), **parts, "flags": flags.get(key, []),
                 "available": False, "reason": "", "counts": {}, "chunks": 0}
        cells.append(entry)
        folder = out / "data" / entry["id"]
        try:
            table, meta = read_samples(path)
            twin = None
            second = path.parent / "reversed" / path.name
            if path.parent in twins and second.parent in ids:
                entry["twin"] = ids[second.parent]
                twin = _twin_columns(table.column("request_id").to_pylist(), read_twins(twins[path.parent]),
                                     read_samples(second)[0].column("request_id").to_pylist())
            counts, index, chunks = _cell_data(table, twin)
            folder.mkdir()
            write_text(folder / "index.js", f"ABV.index({js_json(entry['id'])},\"{packed(index)}\");\n")
            for c, chunk in enumerate(chunks):
                write_text(folder / f"chunk_{c}.js", f"ABV.chunk({js_json(entry['id'])},{c},\"{packed(chunk)}\");\n")
        except SamplesError as err:
            entry["reason"] = str(err).replace(str(Path(root)), Path(root).name)
            continue
        except (ValueError, KeyError, TypeError) as err:  # readable, but a JSON column is not JSON
            shutil.rmtree(folder, ignore_errors=True)
            entry["reason"] = f"{'/'.join(rel)}/{path.name}: damaged samples ({type(err).__name__}: {err})"
            continue
        entry.update(available=True, counts=counts, chunks=-(-table.num_rows // CHUNK),
                     template_sha256=meta.get("template_sha256"))
    catalog = {"study": study, "pickers": list(PICKERS), "chunk": CHUNK, "cells": cells}
    write_text(out / "data" / "catalog.js", f"ABV.catalog({js_json(catalog)});\n")
    return catalog
