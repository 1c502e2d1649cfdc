"""Content-addressed response cache under every engine.

A response is stored under the SHA-256 of (model identity, sampling
parameters, the exact request): the model's name/path and revision, the
prompt format, temperature/top_p/seed, the token budget and the decoding
constraint (grammar or slots, and how slots are decoded) and the prompt text.
The engine is *not* part of the key: the same model served by llama.cpp in
process or behind an OpenAI-compatible server answers from one cache. So no
prompt is computed twice — not across cells (PointJudge cells of different
settings share their domains), not across reruns, not after a killed job.

Storage, built for a cluster filesystem (millions of replies, many concurrent
jobs, NFS): append-only **shards**, ``<root>/shards/<writer>.jsonl``, one per
job (the writer's name is its cell, host, pid and a random tag: one writer per
file, never a lock). A shard starts with a header line (format and key
recipe version) and holds one line per reply, ``{"k": key, "c": checksum,
"r": record}``; replies are buffered and written a batch at a time (the
engine's chunk) with ONE ``fsync`` per batch. When the job ends the shard gets
an index, ``<writer>.idx`` (sorted 64-bit key prefixes and byte offsets),
written under a temporary name and renamed. So a cell adds two files, not one
per reply. Readers use every index (a NumPy binary search per shard) and scan
the few shards without one (a running or killed writer); a torn last line
(a kill mid-write), a garbage line, a record whose checksum does not match its
key and body, and a shard of another format or key recipe are skipped and
counted (:attr:`ResponseCache.problems`, in the cell's manifest): the prompt
is computed again, a wrong reply is never served. A shard its writer has
created but not yet written to (empty, or the header unfinished) holds no
record: skipped, not counted. Two jobs computing the same prompt both store
it; either copy is right (:func:`audit` reads every shard and counts them).
Replies cached by earlier releases (one JSON file per reply,
``<root>/<key[:2]>/<key>.json``) are still read.

Score distributions (``expected_scores``, :mod:`authbench.llm.expected`) are
NOT part of the key: asking for them does not change the reply, so a
request keeps its key whether it asks or not. They are a field of the record
(``score_probs``); a request that asks for them takes only a record that has
them (``get_many(accept=...)``), an older copy without them is passed over
(counted as ``recomputed_for_score_probs``), the reply is computed again and
stored once more under the same key, with them. A record with them serves a
request that does not ask.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import uuid
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from authbench.config import GenerateConfig, model_spec
from authbench.errors import CacheError
from authbench.llm.models import model_revision

KEY_VERSION = 1  # bump when the key's recipe changes


def model_identity(model_config: Mapping[str, Any]) -> dict:
    """What identifies a model's outputs, from its config alone (no loading):
    name or path, revision (for ``package:<module>`` the installed package's
    version, for ``parts:<name>`` the pinned SHA-256), prompt format, how
    constrained replies are decoded and, for vLLM, the dtype it runs at; the
    instant engine (no model) is marked, so its keys never meet a model's."""
    model_config = model_spec(model_config)  # the schema's defaults
    spec = model_config["model"]
    revision = model_config.get("revision")
    if revision is None:
        revision = model_revision(spec)
    ident = {
        "model": spec,
        "revision": revision,
        "prompt_format": model_config["prompt_format"],
        "constrain_with": model_config["constrain_with"],
    }
    if model_config.get("engine") == "instant":
        # no model: its replies must never be served to a real engine's run of the same name
        ident["not_a_model"] = "instant"
    if model_config.get("engine") == "vllm":
        # vLLM runs the weights at this precision (a parts:/package: GGUF is
        # dequantised): its replies must not be served to llama.cpp's Q4 run
        ident["dtype"] = (model_config.get("vllm") or {}).get("dtype") or "auto"
    return ident


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_key(**fields: Any) -> str:
    """The one key recipe: SHA-256 of the canonical JSON of ``fields`` plus
    ``"v": KEY_VERSION``. Every cached result (a reply, a perplexity) is
    stored under the key of exactly what determines it."""
    return hashlib.sha256(_canonical({"v": KEY_VERSION, **fields}).encode("utf-8")).hexdigest()


def request_key(model: Mapping, generate: GenerateConfig, prompt: str, max_tokens: int,
                grammar: str | None, slots: Any) -> str:
    """A generation request's key: model identity (without ``constrain_with``,
    which is part of the constraint), sampling settings, token budget,
    constraint and the exact prompt."""
    constraint = None
    if slots is not None or grammar is not None:
        constraint = {"slots": slots, "grammar": grammar, "constrain_with": model.get("constrain_with")}
    identity = {k: v for k, v in model.items() if k != "constrain_with"}
    return content_key(model=identity, generate=asdict(generate), max_tokens=max_tokens, constraint=constraint,
                       prompt=prompt)


def perplexity_key(model: Mapping[str, Any], text: str) -> str:
    """A perplexity's key: ``task: perplexity`` (never equal to a generation
    key), the identity of :func:`authbench.llm.runner.perplexity_identity` and the text."""
    return content_key(task="perplexity", model=dict(model), text=text)


SHARD_FORMAT = 2  # the layout below; a shard of another format is skipped (counted)
_PREFIX = 16  # hex digits of a key kept in a shard's index (64 bits)
_INDEX_DTYPE = [("prefix", "<u8"), ("offset", "<u8")]


class ResponseCache:
    """Append-only shard files, one writer per file (see the module docstring).

    ``writer`` names this process's shard (a cell id; host, pid and a random
    tag are added, so two jobs never share a file); ``batch`` records are
    written per ``write`` + ``fsync`` (the runner sets it to the engine's
    chunk). :meth:`get_many` finds keys in every shard (through each closed
    shard's index, by scanning the few without one) and in the per-file
    layout of earlier releases. Records that cannot be trusted are skipped and
    counted in :attr:`problems` (reason -> count): the prompt is then computed
    again.
    """

    def __init__(self, root: str | Path, writer: str | None = None, batch: int = 1):
        self.root = Path(root)
        self.shards = self.root / "shards"
        self.batch = max(1, int(batch))
        self._writer = writer
        self._slug = re.sub(r"[^A-Za-z0-9._-]+", "_", writer or "writer").strip("_")[:120]
        self.path = self._new_path()
        self.problems: Counter = Counter()
        self.fsyncs = 0
        self._fh = None
        self._buffer: list[tuple[str, str]] = []
        self._offsets: list[tuple[int, int]] = []
        self._index: list[tuple[Path, Any]] | None = None
        self._scanned: dict[str, list[tuple[Path, int]]] = {}
        self.refused: set[str] = set()  # keys of the last get_many found only in refused copies

    def _new_path(self) -> Path:
        return self.shards / f"{self._slug}.{socket.gethostname()}.{os.getpid()}.{uuid.uuid4().hex[:8]}.jsonl"

    # --- writing ------------------------------------------------------------
    def put(self, key: str, record: Mapping) -> None:
        body = _canonical(dict(record))
        self._buffer.append((key, body))
        if len(self._buffer) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Write the buffered records with one write and one fsync. A failing
        write (a full disk) is a :class:`~authbench.errors.CacheError`; every
        record flushed before stays readable (a torn last line is skipped)."""
        if not self._buffer:
            return
        try:
            if self._fh is None:
                self.shards.mkdir(parents=True, exist_ok=True)
                self._fh = open(self.path, "ab")
                head = {"authbench_cache": SHARD_FORMAT, "key_version": KEY_VERSION}
                if self._writer:  # the cell that wrote it: the plan reads measured reply lengths by cell
                    head["writer"] = self._writer
                self._fh.write((_canonical(head) + "\n").encode("utf-8"))
            start = self._fh.tell()
            lines = []
            for key, body in self._buffer:
                line = f'{{"k":"{key}","c":"{_check(key, body)}","r":{body}}}\n'.encode("utf-8")
                self._offsets.append((int(key[:_PREFIX], 16), start))
                start += len(line)
                lines.append(line)
            self._fh.write(b"".join(lines))
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self.fsyncs += 1
        except OSError as err:
            raise CacheError(f"response cache {self.path}: cannot write ({err.strerror or err}); the records "
                             "written before are kept, rerun once there is space") from None
        self._buffer.clear()

    def close(self) -> None:
        """Flush, and write the shard's index (sorted 64-bit key prefixes and
        offsets) under a temporary name, renamed into place."""
        self.flush()
        if self._fh is None:
            return
        self._fh.close()
        self._fh = None
        import numpy as np

        index = np.array(sorted(self._offsets), dtype=_INDEX_DTYPE)
        final = self.path.with_suffix(".idx")
        tmp = final.with_name(f".{final.name}.tmp")
        index.tofile(tmp)
        os.replace(tmp, final)
        # written: readable like any other shard; later puts go to a new one
        self.path, self._offsets, self._index, self._scanned = self._new_path(), [], None, {}

    # --- reading ------------------------------------------------------------
    def _load(self) -> list[tuple[Path, Any]]:
        """(shard, index) of every closed shard; shards without an index (a
        writer still running, or killed) are scanned into ``_scanned``."""
        import numpy as np

        if self._index is not None:
            return self._index
        self._index = []
        for shard in sorted(self.shards.glob("*.jsonl")) if self.shards.is_dir() else []:
            if shard == self.path:
                continue
            if not self._header_ok(shard):
                continue
            idx = shard.with_suffix(".idx")
            if idx.is_file():
                data = np.fromfile(idx, dtype=_INDEX_DTYPE)
                self._index.append((shard, data))
            else:
                self._scan(shard)
        return self._index

    def _header_ok(self, shard: Path) -> bool:
        with open(shard, "rb") as fh:
            problem = _header_problem(fh.readline())
        if problem == "shard_of_another_format":
            self.problems[problem] += 1
        return problem == ""

    def _scan(self, shard: Path) -> None:
        with open(shard, "rb") as fh:
            fh.readline()
            offset = fh.tell()
            for line in fh:
                if line.endswith(b"\n") and line.startswith(b'{"k":"'):
                    self._scanned.setdefault(line[6:70].decode("ascii", "replace"), []).append((shard, offset))
                elif line.strip():
                    self.problems["torn_or_garbage_line"] += 1
                offset += len(line)

    def _read(self, shard: Path, offset: int, key: str, handles: dict) -> dict | None:
        fh = handles.get(shard)
        if fh is None:
            fh = handles[shard] = open(shard, "rb")
        fh.seek(offset)
        got = _record(fh.readline(), key)
        if isinstance(got, str):
            self.problems[got] += 1
            return None
        return None if got is None else {**got[1], "key": key}  # None: another key with the same 64-bit prefix

    def get_many(self, keys: Iterable[str], accept: Callable[[str, dict], bool] | None = None) -> dict[str, dict]:
        """The stored records of ``keys`` (each looked up once), by key.

        ``accept(key, record)``: a record it refuses is passed over and the
        search goes on to the key's other copies (a reply stored again with
        more in it: the score distributions of
        :mod:`authbench.llm.expected`); keys found only in refused copies
        are in :attr:`refused` afterwards."""
        import numpy as np

        wanted = list(dict.fromkeys(keys))
        found: dict[str, dict] = {}
        self.refused = set()
        if not wanted:
            return found
        ok = accept or (lambda key, record: True)

        def take(key: str, record: dict | None) -> None:
            if record is None:
                return
            if ok(key, record):
                found[key] = record
            else:
                self.refused.add(key)

        shards = self._load()
        handles: dict = {}
        try:
            for key in wanted:
                for shard, offset in self._scanned.get(key, ()):
                    if key not in found:
                        take(key, self._read(shard, offset, key, handles))
            prefixes = np.array([int(k[:_PREFIX], 16) for k in wanted], dtype="<u8")
            for shard, index in shards:
                if not len(index):
                    continue
                pos = np.searchsorted(index["prefix"], prefixes)
                for i in np.nonzero(index["prefix"][np.minimum(pos, len(index) - 1)] == prefixes)[0]:
                    key = wanted[i]
                    j = int(pos[i])
                    while key not in found and j < len(index) and index["prefix"][j] == prefixes[i]:
                        take(key, self._read(shard, int(index["offset"][j]), key, handles))
                        j += 1
        finally:
            for fh in handles.values():
                fh.close()
        legacy_dirs = self._legacy_dirs()
        for key in wanted:  # the per-file layout of earlier releases
            if key not in found and key[:2] in legacy_dirs:
                take(key, self._legacy(key))
        self.refused -= set(found)
        return found

    def _legacy_dirs(self) -> set[str]:
        """The ``<key[:2]>`` folders of the per-file layout (none in a cache made by this release)."""
        if not self.root.is_dir():
            return set()
        return {p.name for p in self.root.iterdir() if len(p.name) == 2 and p.is_dir()}

    def _legacy(self, key: str) -> dict | None:
        path = self.root / key[:2] / f"{key}.json"
        try:
            with open(path, encoding="utf-8") as fh:
                record = json.load(fh)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except ValueError:
            self.problems["torn_or_garbage_line"] += 1
            return None
        return record if isinstance(record, dict) and record.get("key") == key else None


_HEAD = len('{"k":"') + 64 + len('","c":"') + 16 + len('","r":')  # bytes before a record's body


def stored_replies(root: str | Path, per_writer: int | None = None) -> Iterator[tuple[str | None, dict]]:
    """Every trusted record under ``root`` with the cell that wrote it (its
    shard header's ``writer``; None for a shard written before headers named
    it), at most ``per_writer`` records of each shard: what the plan reads
    measured reply lengths and parse failures from. Damaged lines and shards
    of another format are skipped."""
    shards = Path(root) / "shards"
    for shard in sorted(shards.glob("*.jsonl")) if shards.is_dir() else []:
        try:
            with open(shard, "rb") as fh:
                first = fh.readline()
                if _header_problem(first):
                    continue
                writer = json.loads(first).get("writer")
                for n, line in enumerate(fh):
                    if per_writer is not None and n >= per_writer:
                        break
                    got = _record(line)
                    if isinstance(got, tuple):
                        yield writer, got[1]
        except OSError:
            continue


def _header_problem(first: bytes) -> str:
    """Why a shard's first line is not this release's header: ``""`` (it is),
    ``"being_written"`` (empty or unfinished: its writer has created the file
    and not yet written its first batch, or was killed before; it holds no
    record, so nothing is lost: skipped, not counted) or
    ``"shard_of_another_format"``."""
    if not first.endswith(b"\n"):
        return "being_written"
    try:
        head = json.loads(first)
        ok = head.get("authbench_cache") == SHARD_FORMAT and head.get("key_version") == KEY_VERSION
    except (ValueError, AttributeError):
        ok = False
    return "" if ok else "shard_of_another_format"


def _record(line: bytes, key: str | None = None) -> tuple[str, dict] | str | None:
    """A shard line ``{"k":"<key>","c":"<checksum>","r":<body>}`` -> ``(key,
    record)``; ``None`` if it holds another key than ``key`` (given); else why
    it cannot be trusted (``torn_or_garbage_line``,
    ``record_does_not_match_its_key``). The checksum is verified over the
    body's bytes as written, then the body is parsed."""
    head, body = line[:_HEAD], line[_HEAD:-2]
    if not (head.startswith(b'{"k":"') and head.endswith(b'","r":') and line.endswith(b"}\n")):
        return "torn_or_garbage_line"
    got = head[6:70].decode("ascii", "replace")
    if key is not None and got != key:
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or head[77:93].decode("ascii", "replace") != _check(got, text):
        return "record_does_not_match_its_key"
    try:
        return got, json.loads(text)
    except ValueError:
        return "torn_or_garbage_line"


def audit(root: str | Path) -> dict:
    """Read every line of every shard under ``root`` (no index used): the
    number of ``shards`` and of those without an index (``unindexed``: a
    writer running or killed), every trusted record's key with its number of
    copies (``keys``, a Counter: a key stored twice was computed by two
    jobs), and the lines and shards that cannot be trusted by reason
    (``damaged``, a Counter; a shard still ``being_written`` is not damage)."""
    keys: Counter = Counter()
    damaged: Counter = Counter()
    shards = sorted((Path(root) / "shards").glob("*.jsonl"))
    for shard in shards:
        with open(shard, "rb") as fh:
            problem = _header_problem(fh.readline())
            if problem:
                damaged[problem] += problem == "shard_of_another_format"
                continue
            for line in fh:
                got = _record(line)
                if isinstance(got, tuple):
                    keys[got[0]] += 1
                else:
                    damaged[got] += 1
    return {"shards": len(shards), "unindexed": sum(not s.with_suffix(".idx").is_file() for s in shards),
            "keys": keys, "damaged": +damaged}


def _check(key: str, body: str) -> str:
    """A record's checksum: its key and canonical body (a record edited, cut
    or moved to another key no longer matches)."""
    return hashlib.sha256(f"{key}\n{body}".encode("utf-8")).hexdigest()[:16]
