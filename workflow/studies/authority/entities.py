"""EntityAuth dataset build: Ni et al. (2025) entity QA files -> labeled entities.

Rules (also in docs/decisions/entityauth-data.md):

* Input: JSON lines with ``question``, ``question_entity`` and ``popularity``
  (the entity's number of Wikidata sitelinks; or the ``label`` block's
  ``column``), as in Ni et al. and as written by the Wikidata fetcher. Other
  keys (``reference``, ``qid`` ...) are not read (the build log lists them).
* Row-level drops, each counted: ``duplicate_entity`` (a name seen before in
  the same file: the first row wins), ``nonpositive_popularity`` (log binning
  only: a score <= 0 has no logarithm, so Eq. 1 cannot bin it). Entity-level:
  ``above_top_level`` (only with ``top: drop``).
* Corpus: ``corpus`` entities drawn uniformly without replacement, seeded
  (paper: 10,000 basketball, 10,000 movies, 2,000 songs); ``null`` or a number
  >= the file's size keeps every entity. Entities not drawn are counted as
  ``not_in_corpus``.
* Levels: by default Eq. 1 log binning of ``popularity`` over the corpus's
  own [min, max] sitelink range ("for a domain with a count range"), s = smax
  clipped to 9; coarse level = fine // 2 as for DomainAuth. A dataset's
  ``label`` block names another numeric key and rule
  (:func:`authbench.studies.authority.labels.bin_scores`: integer,
  equal_width, quantile, log); ``popularity`` must hold integer counts,
  another key any number. The binned value is the label table's ``score``.
* Other formats by the file's name (:func:`authbench.records.read_records`):
  ``.csv``, ``.tsv``, ``.json`` (a list of records, or an object of records
  keyed by ``question_entity``), ``.parquet``; any other name is JSON lines.
* Broken input (invalid JSON, a missing key, a non-integer count, bytes that are
  not UTF-8, an empty file) stops with :class:`InputError` naming file, line and
  key. A corpus whose counts are all equal cannot be binned: a named error.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterable

from authbench.errors import InputError, LabelError, excerpt
from authbench.records import atomic_write, read_records, text_of, write_drop_table
from authbench.seeding import rng
from authbench.studies.authority.labels import BENCHMARK_LEVELS, LabelSpec, bin_scores, bin_table, coarse_level

REQUIRED_KEYS = ("question", "question_entity")
POPULARITY = "popularity"  # Ni et al.'s sitelink count: the default score key
DEFAULT_LABEL = LabelSpec(POPULARITY, "log", BENCHMARK_LEVELS, "include")


@dataclass(frozen=True)
class Entity:
    entity: str
    question: str
    score: float  # the binned value: the sitelink count for Ni et al.'s data (an int when integral)
    level: int
    coarse: int


DROP_REASONS = ("duplicate_entity", "nonpositive_popularity", "not_in_corpus")


def drop_reasons(spec: LabelSpec) -> tuple[str, ...]:
    """The drop reasons a build under ``spec`` can give: ``above_top_level``
    only with ``top: drop``."""
    return DROP_REASONS + (("above_top_level",) if spec.top == "drop" else ())


def _number(value, key: str, path: Path, line: str) -> int | float:
    """A row's score: ``popularity`` must be an integer sitelink count (Ni et
    al.'s format); another key any finite number (an int when integral)."""
    counts = key == POPULARITY
    what = "an integer sitelink count" if counts else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"{path}: {line}, key '{key}': {excerpt(value)} is not {what}")
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not math.isfinite(number) or (counts and not number.is_integer()):
        raise InputError(f"{path}: {line}, key '{key}': {excerpt(value)} is not {what}")
    return int(number) if number.is_integer() else number


def read_entity_file(path: str | Path, spec: LabelSpec | None = None,
                     unused: set | None = None) -> tuple[list[tuple[str, str, int | float]], Counter]:
    """(name, question, score) per usable row, and the row drops. ``unused``
    (a set, if given) collects the keys nothing reads. The file is JSON lines
    (any name but those below), or by its name a CSV, TSV, JSON (a list of
    records, or an object of records keyed by ``question_entity``) or Parquet
    file (:func:`authbench.records.read_records`)."""
    spec = spec or DEFAULT_LABEL
    key = spec.column
    path = Path(path)
    expected = f"records with {', '.join((*REQUIRED_KEYS, key))}"
    table = read_records(path, expected, key="question_entity", default="jsonl")
    rows, drops, seen = [], Counter(), set()
    for line, obj in table.rows:
        for k in (*REQUIRED_KEYS, key):
            if k not in obj:
                raise InputError(f"{path}: {line}: missing key '{k}' (expected {', '.join((*REQUIRED_KEYS, key))})")
        if unused is not None:
            unused.update(k for k in obj if k not in (*REQUIRED_KEYS, key))
        name = (text_of(obj["question_entity"]) or "").strip()
        if not name:
            raise InputError(f"{path}: {line}, key 'question_entity': empty entity name")
        count = _number(obj[key], key, path, line)
        if name in seen:
            drops["duplicate_entity"] += 1
            continue
        seen.add(name)
        if spec.binning == "log" and count <= 0:
            drops["nonpositive_popularity"] += 1
            continue
        rows.append((name, (text_of(obj["question"]) or "").strip(), count))
    return rows, drops


@dataclass
class EntityBuild:
    """What :func:`build_entity_labels` returns (as
    :class:`authbench.studies.authority.domains.DomainBuild`)."""

    entities: list[Entity]
    drops: Counter
    bins: list[dict]
    spec: LabelSpec
    n_top: int
    unused_keys: list[str]


def build_entity_labels(path: str | Path, corpus: int | None, seed: int, dataset: str,
                        label: LabelSpec | None = None) -> EntityBuild:
    """Read, draw the corpus, bin by ``label`` (default: Eq. 1 on popularity).
    Entities are returned sorted by name."""
    spec = label or DEFAULT_LABEL
    unused: set = set()
    rows, drops = read_entity_file(path, spec, unused)
    rows.sort(key=lambda r: r[0])
    if corpus is not None and corpus < len(rows):
        chosen = rng(seed, "entityauth-corpus", dataset).sample(range(len(rows)), corpus)
        drops["not_in_corpus"] += len(rows) - corpus
        rows = [rows[i] for i in sorted(chosen)]
    try:
        binned = bin_scores([r[2] for r in rows], spec)
    except LabelError as err:
        what = "log-bin the corpus's sitelink counts" if spec == DEFAULT_LABEL else \
            f"bin the corpus's '{spec.column}' scores ({spec.binning})"
        raise InputError(f"{path}: cannot {what}: {str(err).replace('scores equal', 'counts equal')}") from None
    out = []
    for (name, q, s), lv in zip(rows, binned.levels):
        if lv is None:
            drops["above_top_level"] += 1
            continue
        out.append(Entity(name, q, s, lv, coarse_level(lv)))
    return EntityBuild(out, drops, bin_table([r[2] for r in rows], binned), spec, binned.n_top, sorted(unused))


def build_entities(path: str | Path, corpus: int | None, seed: int, dataset: str,
                   label: LabelSpec | None = None) -> tuple[list[Entity], Counter]:
    """:func:`build_entity_labels`' entities and drops."""
    built = build_entity_labels(path, corpus, seed, dataset, label)
    return built.entities, built.drops


def write_entities(entities: Iterable[Entity], path: str | Path) -> None:
    with atomic_write(path, "w", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow([f.name for f in fields(Entity)])
        for e in entities:
            writer.writerow([getattr(e, f.name) for f in fields(Entity)])


def read_entities(path: str | Path) -> list[Entity]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    out = []
    for r in rows:
        score = float(r["score"])
        out.append(Entity(r["entity"], r["question"], int(score) if score.is_integer() else score, int(r["level"]),
                          int(r["coarse"])))
    return out


def entity_item(e: Entity) -> dict:
    """An instance item: what the prompts and the metrics need."""
    return {"entity": e.entity, "question": e.question, "score": e.score, "level": e.level, "coarse": e.coarse}


def write_entity_drops(drops: Counter, kept: int, path: str | Path, reasons: Iterable[str] = DROP_REASONS) -> None:
    write_drop_table(drops, {r: "entity" for r in reasons}, kept, "entity", path)
