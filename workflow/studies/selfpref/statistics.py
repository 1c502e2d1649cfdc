"""The self-preference study's data statistics (its paper has no such table;
the pipeline writes it next to AuthorityBench's Table 7, in the benchmark
statistics of :mod:`authbench.studies.statistics`, its hook ``Study.statistics``):
per dataset the imported questions, the passages per author and variant
(true / false), the questions usable for the main comparisons and the
import's drops. Counted from the ``selfpref_import`` step's files, so no
model has to run first."""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Mapping, Sequence

from authbench.errors import InputError, excerpt
from authbench.records import read_jsonl, read_utf8
from authbench.render.catalog import Table, builders_caption
from authbench.render.formatting import COUNT
from authbench.render.tables import Column, TableSpec, build_table
from authbench.studies.selfpref.cell_list import selfpref_cells
from authbench.studies.selfpref.data import complete_questions
from authbench.studies.selfpref import layout as sp_layout


def dataset_rows(dataset: str, questions: str | Path, passages: str | Path, drops: str | Path,
                 authors: Sequence[str]) -> tuple[list[dict], str]:
    """Rows (one per author and variant) and a note sentence for one dataset."""
    n_questions = len(read_jsonl(questions))
    imported = read_jsonl(passages)
    counts: dict[tuple, Counter] = defaultdict(Counter)
    qids: dict[tuple, set] = defaultdict(set)
    for p in imported:
        # a human false passage kept for evaluators of given selves (``false_for``) is its own row
        for_self = p.get("for_self")
        variant = f'{p["variant"]}, for {"/".join(for_self)}' if for_self else p["variant"]
        key = (p["author"], variant)
        counts[key]["true" if p["factual"] else "false"] += 1
        qids[key].add(p["qid"])
    rows = [{"dataset": dataset, "author": a, "variant": v, "questions": len(qids[(a, v)]),
             "true": counts[(a, v)]["true"], "false": counts[(a, v)]["false"]} for a, v in sorted(counts)]
    reader = csv.DictReader(io.StringIO(read_utf8(drops, "a drop table: reason, author, count")), delimiter="\t")
    if not {"reason", "author", "count"} <= set(reader.fieldnames or []):
        raise InputError(f"{drops}: line 1: expected columns reason, author, count")
    dropped: Counter = Counter()
    for line, r in enumerate(reader, start=2):
        try:
            dropped[(r["author"], r["reason"])] += int(r["count"])
        except (TypeError, ValueError):
            raise InputError(f"{drops}: line {line}, column 'count': {excerpt(r['count'])} is not an integer") from None
    per_author = Counter()
    for (author, _), n in dropped.items():
        per_author[author] += n
    parts = [f"{a} {n} (" + ", ".join(f"{reason} {dropped[(a, reason)]}" for (aa, reason) in sorted(dropped)
                                      if aa == a and dropped[(a, reason)]) + ")"
             for a, n in sorted(per_author.items()) if n]
    note = (f"{dataset}: {n_questions} questions imported, {len(complete_questions(imported, authors))} with a true "
            f"and a false passage of every author ({', '.join(authors)}); passages dropped: "
            + ("; ".join(parts) or "none") + ".")
    return rows, note


def table_statistics(rows: Sequence[dict], notes: Sequence[str]) -> TableSpec:
    cols = [Column(("Questions", ""), COUNT, lambda r: float(r["questions"])),
            Column(("Passages", "true"), COUNT, lambda r: float(r["true"])),
            Column(("Passages", "false"), COUNT, lambda r: float(r["false"]))]
    return build_table(list(rows), [(r["dataset"], r["author"], r["variant"]) for r in rows],
                       ["Dataset", "Author", "Variant"], cols, note=" ".join(notes),
                       caption="Self-preference study (Chen et al.): imported questions and passages per author "
                               "and variant (true / false answer).")


# --- the hook: what a config counts, its table, the step's files and params ----------------------------

def selfpref_datasets(config: Mapping[str, Any]) -> list[str]:
    """The self-preference datasets the data table counts (none when the study has no evaluator)."""
    cells = selfpref_cells(config)
    return cells.datasets if cells.evaluators else []


def _counted(config: Mapping[str, Any]) -> str | None:
    return "" if selfpref_datasets(config) else None


def _table(imports: Sequence[tuple], authors: Sequence[str]) -> TableSpec:
    rows, notes = [], []
    for ds, questions, passages, drops in imports:
        got, note = dataset_rows(ds, questions, passages, drops, authors)
        rows += got
        notes.append(note)
    return table_statistics(rows, notes)


TABLES = (
    Table("selfpref_statistics", "Self-preference study data",
          "Self-preference study data: imported questions and true / false passages per author and variant, usable "
          "questions and the import's drops.", _counted, build=lambda x: _table(*x), caption_of=builders_caption),
)
# the step's input files (its CLI options): each dataset's imported questions, passages and drops, in the order
# of params "selfpref"
ARGS = ("sp_questions*", "sp_passages*", "sp_drops*")


def inputs(config: Mapping[str, Any], layout) -> dict[str, list[str]]:
    sp = selfpref_datasets(config)
    return {"sp_questions": [sp_layout.questions(layout, d) for d in sp],
            "sp_passages": [sp_layout.imported(layout, d) for d in sp],
            "sp_drops": [layout.drops(f"selfpref/{d}") for d in sp]}


def params(config: Mapping[str, Any]) -> dict[str, Any]:
    sp = selfpref_datasets(config)
    return {"selfpref": sp, "authors": config["selfpref"]["authors"] if sp else []}


def load(files: Mapping[str, Any], params: Mapping[str, Any]) -> tuple[list[tuple], list[str]]:
    """``(imports, authors)``: one ``(dataset, questions, passages, drops)`` per dataset."""
    return (list(zip(params["selfpref"], files["sp_questions"], files["sp_passages"], files["sp_drops"])),
            params["authors"])
