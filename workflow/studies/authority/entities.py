"""EntityAuth dataset build: Ni et al. (2025) entity QA files -> labeled entities.

Rules (also in docs/decisions.md):

* Input: JSON lines with ``question``, ``question_entity`` and ``popularity``
  (the entity's number of Wikidata sitelinks), as in Ni et al. and as written
  by the Wikidata fetcher. Other keys (``reference``, ``qid`` ...) are ignored.
* Row-level drops, each counted: ``duplicate_entity`` (a name seen before in
  the same file: the first row wins), ``nonpositive_popularity`` (a count <= 0
  has no logarithm, so Eq. 1 cannot bin it).
* Corpus: ``corpus`` entities drawn uniformly without replacement, seeded
  (paper: 10,000 basketball, 10,000 movies, 2,000 songs); ``null`` or a number
  >= the file's size keeps every entity. Entities not drawn are counted as
  ``not_in_corpus``.
* Levels: Eq. 1 log binning (:func:`authbench.studies.authority.labels.log_bin`) over the
  corpus's own [min, max] sitelink range ("for a domain with a count range"),
  s = smax clipped to 9; coarse level = fine // 2 as for DomainAuth.
* Broken input (invalid JSON, a missing key, a non-integer count, bytes that are
  not UTF-8, an empty file) stops with :class:`InputError` naming file, line and
  key. A corpus whose counts are all equal cannot be binned: a named error.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from authbench.errors import InputError, LabelError, excerpt
from authbench.records import read_dataclass_tsv, read_utf8, write_dataclass_tsv, write_drop_table
from authbench.seeding import rng
from authbench.studies.authority.labels import coarse_level, log_bin

REQUIRED_KEYS = ("question", "question_entity", "popularity")


@dataclass(frozen=True)
class Entity:
    entity: str
    question: str
    sitelinks: int
    level: int
    coarse: int


DROP_REASONS = ("duplicate_entity", "nonpositive_popularity", "not_in_corpus")


def _count(value, path: Path, line: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"{path}: line {line}, key 'popularity': {excerpt(value)} is not an integer sitelink count")
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not number.is_integer():
        raise InputError(f"{path}: line {line}, key 'popularity': {excerpt(value)} is not an integer sitelink count")
    return int(number)


def read_entity_file(path: str | Path) -> tuple[list[tuple[str, str, int]], Counter]:
    """(name, question, sitelinks) per usable row, and the row drops."""
    path = Path(path)
    text = read_utf8(path, f"JSON lines with {', '.join(REQUIRED_KEYS)}")
    rows, drops, seen = [], Counter(), set()
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as err:
            raise InputError(f"{path}: line {line}, column {err.colno}: not valid JSON ({err.msg})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}: line {line}: expected a JSON object")
        for key in REQUIRED_KEYS:
            if key not in obj:
                raise InputError(f"{path}: line {line}: missing key '{key}' (expected {', '.join(REQUIRED_KEYS)})")
        name = str(obj["question_entity"]).strip()
        if not name:
            raise InputError(f"{path}: line {line}, key 'question_entity': empty entity name")
        count = _count(obj["popularity"], path, line)
        if name in seen:
            drops["duplicate_entity"] += 1
            continue
        seen.add(name)
        if count <= 0:
            drops["nonpositive_popularity"] += 1
            continue
        rows.append((name, str(obj["question"]).strip(), count))
    return rows, drops


def build_entities(path: str | Path, corpus: int | None, seed: int, dataset: str) -> tuple[list[Entity], Counter]:
    """Read, draw the corpus, bin. Entities are returned sorted by name."""
    rows, drops = read_entity_file(path)
    rows.sort(key=lambda r: r[0])
    if corpus is not None and corpus < len(rows):
        chosen = rng(seed, "entityauth-corpus", dataset).sample(range(len(rows)), corpus)
        drops["not_in_corpus"] += len(rows) - corpus
        rows = [rows[i] for i in sorted(chosen)]
    try:
        levels = log_bin([r[2] for r in rows])
    except LabelError as err:
        raise InputError(f"{path}: cannot log-bin the corpus's sitelink counts: {err}") from None
    out = [Entity(name, q, s, lv, coarse_level(lv)) for (name, q, s), lv in zip(rows, levels)]
    return out, drops


def write_entities(entities: Iterable[Entity], path: str | Path) -> None:
    write_dataclass_tsv(entities, Entity, path)


def read_entities(path: str | Path) -> list[Entity]:
    return read_dataclass_tsv(path, Entity)


def entity_item(e: Entity) -> dict:
    """An instance item: what the prompts and the metrics need."""
    return {"entity": e.entity, "question": e.question, "sitelinks": e.sitelinks, "level": e.level, "coarse": e.coarse}


def write_entity_drops(drops: Counter, kept: int, path: str | Path) -> None:
    write_drop_table(drops, {r: "entity" for r in DROP_REASONS}, kept, "entity", path)
