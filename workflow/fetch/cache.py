"""Append-only JSON-lines progress cache: what lets an interrupted fetch resume.

Each finished item is one line ``{"key": ..., ...}``, appended and flushed
(``fsync``) as soon as its batch is answered, so a killed job loses at most the
batch in flight. On start, :meth:`ProgressCache.load` returns every finished
item; a torn last line (the job died mid-write, possibly inside a multibyte
character) is ignored and counted, also after later appends. Lines are split
at ``\n`` only. One
fetch job writes one cache file: it is not meant for concurrent writers.
Delete the file to fetch everything again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Mapping


class ProgressCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.torn_lines = 0

    def load(self) -> dict[str, dict]:
        done: dict[str, dict] = {}
        if not self.path.exists():
            return done
        # bytes, decoded line by line inside the try: a line cut inside a
        # multibyte character (UnicodeDecodeError, a ValueError) is torn too
        with open(self.path, "rb") as fh:
            for raw in fh:
                if not raw.strip():
                    continue
                try:
                    rec = json.loads(raw.decode("utf-8"))
                    done[str(rec["key"])] = rec
                except (ValueError, KeyError, TypeError):
                    self.torn_lines += 1
        return done

    def add(self, records: Iterable[Mapping]) -> None:
        records = list(records)
        if not records:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            # a torn last line from a killed run must not swallow the next record
            if fh.tell() and not self._ends_with_newline():
                fh.write("\n")
            for rec in records:
                if "key" not in rec:
                    raise ValueError("cache records need a 'key'")
                fh.write(json.dumps(rec, sort_keys=True, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"
