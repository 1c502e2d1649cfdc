"""Append-only JSON-lines progress cache: what lets an interrupted fetch resume.

Each finished item is one line ``{"key": ..., ...}``, appended and flushed
(``fsync``) as soon as its batch is answered, so a killed job loses at most the
batch in flight. On start, :meth:`ProgressCache.load` returns every finished
item; a torn last line (the job died mid-write) is ignored and counted. One
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
        with open(self.path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
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
