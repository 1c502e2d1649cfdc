"""AuthorityBench's part of the benchmark statistics
(:mod:`authbench.studies.statistics`, its hook ``Study.statistics``): Table 7,
counted from the datasets this run built: per sub-benchmark and entity set the
corpus size (labelled items), the items per fine level, the N=5 / N=10 lists,
the hard / easy pairs and the drops of the build; RAGAuth's questions and
documents when RAGAuth runs; and Table 7's scorecard.

Inputs are the build's own files: ``labels.tsv`` (a ``level`` column, one
row per item), ``drops.tsv`` (``reason, unit, count``; the ``kept`` row is
not a drop) and the instance files (JSON lines; a list's N is its number of
items, a pair has a ``difficulty``), and RAGAuth's dataset report.
"""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from authbench.errors import InputError, excerpt
from authbench.records import read_jsonl, read_utf8
from authbench.render.catalog import SCORECARD, Table, builders_caption
from authbench.render.formatting import COUNT, MISSING, TEXT
from authbench.render.tables import Column, TableSpec, build_table
from authbench.studies.authority.grid import entity_datasets
from authbench.studies.authority.labels import FINE_LEVELS
from authbench.studies.authority.outputs import baseline_inputs
from authbench.studies.keyed import Keyed, keyed
from authbench.studies.ragauth.cell_list import rag_cells
from authbench.studies.ragauth import layout as rag_layout

# Sub-benchmark -> (authority proxy, score scale) as Table 7 of the paper.
PROXY = {"DomainAuth": ("PageRank", "0-9 / 0-4"), "EntityAuth": ("Sitelinks", "0-9"), "RAGAuth": ("–", "N/A")}


@dataclass
class DatasetStats:
    subtask: str                      # DomainAuth, EntityAuth, RAGAuth
    name: str                         # Web Domains, Basketball, ... (Table 7's "Domain")
    corpus: int = 0
    levels: Counter = field(default_factory=Counter)
    lists: Counter = field(default_factory=Counter)    # N -> lists
    pairs: Counter = field(default_factory=Counter)    # difficulty -> pairs
    drops: list[dict] = field(default_factory=list)     # reason, unit, count
    documents: int | None = None      # RAGAuth only
    proxy: str | None = None          # the authority proxy when a label block names another score
    rule: str = ""                    # how the scores became levels (labels.describe_label)


def _tsv(path: str | Path, columns: Sequence[str], expected: str) -> list[dict]:
    reader = csv.DictReader(io.StringIO(read_utf8(path, expected)), delimiter="\t")
    missing = [c for c in columns if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{path}: line 1: missing column(s) {missing} (expected {expected})")
    return list(reader)


def _int(value: str, path, line: int, column: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(f"{path}: line {line}, column '{column}': {excerpt(value)} is not an integer") from None


def dataset_stats(subtask: str, name: str, labels: str | Path, drops: str | Path,
                  instances: Sequence[str | Path]) -> DatasetStats:
    """Counts of one built dataset (DomainAuth or one EntityAuth set)."""
    stats = DatasetStats(subtask, name)
    rows = _tsv(labels, ["level"], "a label table with a level column")
    stats.corpus = len(rows)
    stats.levels = Counter(_int(r["level"], labels, i, "level") for i, r in enumerate(rows, start=2))
    for i, r in enumerate(_tsv(drops, ["reason", "unit", "count"], "a drop table: reason, unit, count"), start=2):
        if r["reason"] != "kept":
            stats.drops.append({"reason": r["reason"], "unit": r["unit"], "count": _int(r["count"], drops, i, "count")})
    for path in instances:
        for inst in read_jsonl(path):
            if "difficulty" in inst:
                stats.pairs[inst["difficulty"]] += 1
            elif len(inst["items"]) > 1:  # a list (the bias sample holds single items)
                stats.lists[len(inst["items"])] += 1
    return stats


def rag_stats(dataset_report: str | Path) -> DatasetStats:
    """RAGAuth's questions and documents from the ``ragauth_dataset`` step's report (``what, count``)."""
    counts = {r["what"]: _int(r["count"], dataset_report, i, "count")
              for i, r in enumerate(_tsv(dataset_report, ["what", "count"], "RAGAuth's dataset report: what, count"),
                                    start=2)}
    topics = [w.split(":", 1)[1] for w in counts if w.startswith("topic:")]
    stats = DatasetStats("RAGAuth", ", ".join(t.title() for t in topics) or "Questions")
    stats.corpus, stats.documents = counts.get("questions", 0), counts.get("documents", 0)
    return stats


def _cell(text: str):
    return (float("nan"), text)


def _instances(d: DatasetStats, counts: Counter, key) -> int | None:
    """A count of lists or pairs; – (None) where the sub-benchmark has none of
    that kind (EntityAuth's pairs, as in the paper; everything of RAGAuth)."""
    if d.subtask == "RAGAuth" or (d.subtask == "EntityAuth" and not counts.get(key)):
        return None
    return counts.get(key, 0)


def table_statistics(datasets: Sequence[DatasetStats], easy_min_delta: int, hard_max_delta: int) -> TableSpec:
    """Table 7: one row per sub-benchmark (and entity set), the paper's columns
    with the counts of this run, and the drops of each build."""
    rows = list(datasets)

    def count(get):
        return lambda d: float(get(d)) if get(d) is not None else float("nan")

    cols = [
        Column(("Authority proxy", ""), TEXT, lambda d: _cell(d.proxy or PROXY.get(d.subtask, ("–", "–"))[0])),
        Column(("Score scale", ""), TEXT, lambda d: _cell(
            "0-9 / 0-4" if d.subtask == "EntityAuth" and d.lists.get(5) else PROXY.get(d.subtask, ("–", "–"))[1])),
        Column(("Corpus", ""), COUNT, count(lambda d: d.corpus)),
        Column(("Listwise", "N=5"), COUNT, count(lambda d: _instances(d, d.lists, 5))),
        Column(("Listwise", "N=10"), COUNT, count(lambda d: _instances(d, d.lists, 10))),
        Column(("Pairwise", "hard"), COUNT, count(lambda d: _instances(d, d.pairs, "hard"))),
        Column(("Pairwise", "easy"), COUNT, count(lambda d: _instances(d, d.pairs, "easy"))),
        Column(("Dropped", "rows"), COUNT, count(
            lambda d: sum(x["count"] for x in d.drops if x["unit"] == "row") if d.subtask != "RAGAuth" else None)),
        Column(("Dropped", "items"), COUNT, count(
            lambda d: sum(x["count"] for x in d.drops if x["unit"] != "row") if d.subtask != "RAGAuth" else None)),
    ]
    rag = [d for d in rows if d.subtask == "RAGAuth"]
    note = "".join(f" RAGAuth: {d.corpus} queries, {d.documents} documents"
                   + (f" ({d.documents / d.corpus:.1f} per query)." if d.corpus else ".") for d in rag)
    caption = ("Overview of the AuthorityBench built by this run (the paper's Table 7). Corpus: unique labelled "
               "items (RAGAuth: queries). Listwise: N=5 (coarse, one item per level 0-4) and N=10 (fine, one per "
               f"level 0-9) lists. Pairwise: hard (0 < gap ≤ {hard_max_delta}) and easy (gap ≥ {easy_min_delta}) "
               "pairs, gap = difference of the two PageRank levels. Dropped: input rows and items (domains, entities) the "
               "build removed, per reason in table7_drops; items per level in table7_levels.")
    return build_table(rows, [(d.subtask, d.name) for d in rows], ["Sub-task", "Domain"], cols,
                       caption=caption, note=note.strip())


def table_levels(datasets: Sequence[DatasetStats]) -> TableSpec:
    """Items per fine level (0-9) of every labelled corpus (Figure 3's counts)."""
    rows = [d for d in datasets if d.subtask != "RAGAuth"]
    cols = [Column(("level", str(lv)), COUNT, lambda d, lv=lv: float(d.levels.get(lv, 0))) for lv in FINE_LEVELS]
    cols.append(Column(("total", ""), COUNT, lambda d: float(d.corpus)))
    rules = "; ".join(f"{d.name}: {d.rule}" for d in rows if d.rule)
    return build_table(rows, [(d.subtask, d.name) for d in rows], ["Sub-task", "Domain"], cols,
                       caption="Items per authority level (0-9) of each labelled corpus."
                       + (f" Levels from {rules}." if rules else ""))


def table_drops(datasets: Sequence[DatasetStats]) -> TableSpec:
    """Every drop reason of every build (zeros included), with its unit."""
    rows = [(d, x) for d in datasets for x in d.drops]
    cols = [Column(("unit",), TEXT, lambda r: _cell(r[1]["unit"] or MISSING)),
            Column(("count",), COUNT, lambda r: float(r[1]["count"]))]
    return build_table(rows, [(d.subtask, d.name, x["reason"]) for d, x in rows], ["Sub-task", "Domain", "Reason"],
                       cols, caption="What the dataset builds dropped, per reason (rows of the input, or items).")


def entity_title(dataset: str) -> str:
    """``entityauth/songs`` -> ``Songs`` (Table 7's Domain column)."""
    return dataset.split("/", 1)[-1].replace("_", " ").title()


def collect(datasets: Sequence[Mapping], rag: str | Path | None) -> list[DatasetStats]:
    """``datasets``: one mapping per DomainAuth/EntityAuth dataset with
    ``dataset`` (``domainauth`` or ``entityauth/<set>``), ``labels``, ``drops``
    and ``instances`` (paths), and optionally ``label`` (its config ``label:``
    block; None = the dataset's default rule); ``rag``: RAGAuth's dataset
    report, if it runs."""
    from authbench.studies.authority.labels import describe_label, label_spec

    out = []
    for d in datasets:
        entity = d["dataset"].startswith("entityauth/")
        stats = dataset_stats("EntityAuth" if entity else "DomainAuth",
                              entity_title(d["dataset"]) if entity else "Web Domains",
                              d["labels"], d["drops"], d["instances"])
        block = d.get("label")
        spec = label_spec(block, "popularity" if entity else "page_rank", "log" if entity else "integer")
        stats.rule = describe_label(spec)
        if block and spec.column != ("popularity" if entity else "page_rank"):
            stats.proxy = f"{spec.column} ({spec.binning.replace('_', '-')})"
        out.append(stats)
    if rag:
        out.append(rag_stats(rag))
    return out


# --- the hook: what a config counts, its tables, the step's files and params, the writer -------------

def authority_datasets(config: Mapping[str, Any]) -> list[str]:
    """The AuthorityBench datasets Table 7 counts: DomainAuth (when it runs) and every EntityAuth set."""
    return (["domainauth"] if "domainauth" in config["studies"] else []) + entity_datasets(config)


def rag_ran(config: Mapping[str, Any]) -> bool:
    """Whether RAGAuth runs (its file exists or is built): Table 7 counts its queries."""
    return bool(rag_cells(config, os.path.exists).cells)


def _counted(config: Mapping[str, Any]) -> str | None:
    return "" if authority_datasets(config) or rag_ran(config) else None


@dataclass
class Counted:
    """What Table 7 is built from (:func:`load`): the datasets' counts, the Pairwise gap thresholds and
    the scorecard's params (None: no model is named)."""

    authority: list[DatasetStats]
    easy_min_delta: int
    hard_max_delta: int
    scorecard: Mapping | None = None  # authbench.studies.scorecard.coverage_params


TABLES = (
    Table("table7_statistics", "Table 7: benchmark statistics",
          "Table 7: overview of the AuthorityBench datasets this run built: corpus size, N=5 / N=10 lists, hard / "
          "easy pairs and the rows and items each build dropped (RAGAuth: queries and documents).", _counted,
          build=lambda x: table_statistics(x.authority, x.easy_min_delta, x.hard_max_delta),
          caption_of=builders_caption, also=SCORECARD),  # Table 7's counts beside the paper's (write)
    Table("table7_levels", "Table 7 (detail): items per level",
          "Table 7 (detail): items per authority level 0-9 of each labelled corpus (DomainAuth, each EntityAuth "
          "set).", _counted, build=lambda x: table_levels(x.authority), caption_of=builders_caption),
    Table("table7_drops", "Table 7 (detail): drops per reason",
          "Table 7 (detail): every drop reason of every dataset build, with its unit (input row or item) and count.",
          _counted, build=lambda x: table_drops(x.authority), caption_of=builders_caption),
)
# the step's input files (its CLI options): every dataset's labels and drops, the sampled instance sets of each
# in the order of params "instance_sets", RAGAuth's dataset report
ARGS = ("labels*", "drops*", "instances*", "rag?")


def _label_block(config: Mapping[str, Any], dataset: str) -> Mapping | None:
    """A dataset's config ``label:`` block (None: the dataset's default rule)."""
    if dataset == "domainauth":
        return config["domainauth"].get("label")
    return config["entityauth"]["datasets"][dataset.removeprefix("entityauth/")].get("label")


def inputs(config: Mapping[str, Any], layout) -> dict[str, list[str]]:
    """The built datasets Table 7 counts: every AuthorityBench dataset's labels, drops and sampled instance
    sets (those its baselines read), and RAGAuth's dataset report."""
    ds = authority_datasets(config)
    return {"labels": [layout.labels(d) for d in ds], "drops": [layout.drops(d) for d in ds],
            "instances": [layout.instances(d, s) for d in ds for s in baseline_inputs(config, d)["instance_sets"]],
            "rag": [rag_layout.dataset(layout)] if rag_ran(config) else []}


def params(config: Mapping[str, Any]) -> dict[str, Any]:
    """What the step reads besides its files: the datasets in the order of its files, their label blocks
    and instance sets, the Pairwise gap thresholds, and the scorecard's coverage."""
    from authbench.studies.scorecard import coverage_params

    sampling = config["domainauth"]["sampling"]
    ds = authority_datasets(config)
    return {"datasets": ds, "labels": [_label_block(config, d) for d in ds],
            "instance_sets": [baseline_inputs(config, d)["instance_sets"] for d in ds],
            "easy_min_delta": sampling["easy_min_delta"], "hard_max_delta": sampling["hard_max_delta"],
            "scorecard": coverage_params(config, "domainauth")}


def load(files: Mapping[str, Any], params: Mapping[str, Any]) -> Counted:
    """Table 7's counts from the step's files (``files``: :data:`ARGS` by name) and :func:`params`."""
    names, sets = params["datasets"], params["instance_sets"]
    if not len(names) == len(files["labels"]) == len(files["drops"]) == len(sets):
        raise InputError("benchmark-statistics: --labels, --drops and params datasets/instance_sets differ in length")
    datasets, start = [], 0
    for name, labels, drops, n_sets, block in zip(names, files["labels"], files["drops"], sets, params["labels"]):
        datasets.append({"dataset": name, "labels": labels, "drops": drops, "label": block,
                         "instances": files["instances"][start:start + len(n_sets)]})
        start += len(n_sets)
    return Counted(collect(datasets, files["rag"]), params["easy_min_delta"], params["hard_max_delta"],
                   params.get("scorecard"))


def statistics_keyed(stats: Sequence[DatasetStats], asked: Mapping[str, Mapping[str, int]]) -> list[Keyed]:
    """Table 7's counts from the built datasets, keyed by published key
    (:class:`authbench.studies.keyed.Keyed`, all ``data`` numbers): corpus
    items, N=5 / N=10 lists, hard / easy pairs, RAGAuth's queries and
    documents per query. ``asked``:
    :func:`authbench.studies.authority.grid.sample_sizes`: a count the config sets
    smaller than the paper's is scoped as a sample rather than a miss."""
    out = []

    def count(parts: Mapping[str, Any], metric: str, value: float, asked_for=None) -> None:
        out.append(keyed(7, metric, ours="", parts=parts, kind="data", number=float(value),
                         asked=float("nan") if asked_for is None else float(asked_for)))

    for d in stats:
        if d.subtask == "RAGAuth":
            count({"subtask": "RAGAuth"}, "queries", d.corpus)
            if d.corpus:
                count({"subtask": "RAGAuth"}, "docs_per_query", (d.documents or 0) / d.corpus)
            continue
        entity = d.subtask == "EntityAuth"
        sizes = asked.get(f"EntityAuth/{d.name.lower()}" if entity else "DomainAuth", {})
        base = {"subtask": d.subtask, **({"domain": d.name.lower()} if entity else {})}
        count(base, "corpus_items", d.corpus, sizes.get("corpus"))
        for n, what in ((5, "coarse_lists"), (10, "fine_lists")):
            if d.lists.get(n) or not entity:
                count({**base, "list_size": n}, "listwise_instances", d.lists.get(n, 0), sizes.get(what))
        if not entity:
            for diff in ("hard", "easy"):
                count({**base, "difficulty": diff}, "pairwise_instances", d.pairs.get(diff, 0),
                      sizes.get(f"{diff}_pairs"))
    return out


def statistics_reason(row: Mapping, coverage) -> str:
    """Why a published Table 7 number (``row``: its parts) has no counterpart."""
    if row["metric"].startswith("score_scale"):
        return "the label scale is the design, not a count (Table 7's text cell)"
    if row.get("subtask") == "EntityAuth" and row.get("domain") not in coverage.covered.get("entity_datasets", ()):
        return f"dataset not in the grid (EntityAuth {row.get('domain')})"
    if row.get("subtask") == "RAGAuth":
        return "RAGAuth not in this run"
    return "not built by this run"


def write(outdir: str | Path, written: Sequence[str], counted: Counted) -> list[Path]:
    """With Table 7 its scorecard (Table 7's counts beside the paper's: :mod:`authbench.studies.scorecard`)."""
    if "table7_statistics" not in written:
        return []
    from authbench.studies.scorecard import write_paper_scorecard

    asked = counted.scorecard["samples"] if counted.scorecard else {}
    return write_paper_scorecard(outdir, "benchmark statistics (Table 7)", "authoritybench", (7,),
                                 statistics_keyed(counted.authority, asked), statistics_reason, counted.scorecard)
