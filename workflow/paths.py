"""The results folder's layout, declared once: every path under config
``results`` that a rule reads or writes, and the cell ids that manifests and
the response cache carry. ``rules/*.smk`` take their inputs and outputs from a
:class:`Layout`, and so does the package (the RAGAuth plan's built file, a
model's file). Any argument may be a Snakemake wildcard (``"{model}"``): one
function gives a rule's output pattern and the concrete paths another rule
asks for. (The command line gets every path as an argument: it builds none.)

A cell (one model job of a study) lives in ``<results>/<study>/cells/<id
without study>`` and is identified by ``<study>/<model>/<part>/...``;
``study`` is ``domainauth``, ``entityauth/<name>`` (an AuthorityBench
dataset), ``ragauth`` or ``selfpref/<dataset>``. Light imports only: the
Snakefile loads this module on every run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

REPORT_SUBFOLDERS = ("tables", "figures")


def cell_id(study: str, model: str, *parts: str) -> str:
    """The id of a cell: its manifest's ``cell`` and its cache writer."""
    return "/".join((study, model, *parts))


def split_cell_id(cell: str, dataset_level: Iterable[str]) -> tuple[str, str, tuple[str, ...]]:
    """:func:`cell_id` read back: ``(study, model, parts)``; ``dataset_level``:
    the studies whose ids carry a dataset after the study's name
    (:func:`authbench.studies.registry.dataset_level`)."""
    parts = cell.split("/")
    cut = 2 if parts[0] in set(dataset_level) else 1
    if len(parts) <= cut:
        return cell, "", ()
    return "/".join(parts[:cut]), parts[cut], tuple(parts[cut + 1:])


def report_outdir(files: Iterable[str]) -> str:
    """The report folder a report rule's ``--outdir`` names, derived from the
    files it writes (those under ``tables/`` and ``figures/`` included)."""
    folders = {f.rsplit("/", 1)[0] for f in files}
    folders = {f.rsplit("/", 1)[0] if f.rsplit("/", 1)[-1] in REPORT_SUBFOLDERS else f for f in folders}
    if len(folders) != 1:
        raise ValueError(f"report files in more than one folder: {sorted(folders)}")
    return folders.pop()


@dataclass(frozen=True)
class Layout:
    """The folder ``root`` (config ``results``) and everything under it."""

    root: str

    @property
    def logs(self) -> str:  # every rule's log: two configs never share logs
        return f"{self.root}/logs"

    @property
    def fetch(self) -> str:
        return f"{self.root}/fetch"

    @property
    def statistics(self) -> str:  # Table 7 and the self-preference data table
        return f"{self.root}/statistics"

    @property
    def timings(self) -> str:  # the judge jobs' benchmark files
        return f"{self.root}/timings"

    @property
    def provenance(self) -> str:
        return f"{self.root}/provenance"

    @property
    def history(self) -> str:  # every model cell's earlier versions (authbench.cells.history): outside any rule's outputs
        return f"{self.root}/history"

    def study(self, study: str) -> str:
        return f"{self.root}/{study}"

    def report(self, study: str) -> str:
        return f"{self.root}/{study}/report"

    def cell(self, study: str, model: str, *parts: str) -> str:
        """A cell's folder (:func:`cell_id` names the same cell)."""
        return f"{self.root}/{study}/cells/{cell_id(model, *parts)}"

    # --- AuthorityBench datasets ("domainauth", "entityauth/<name>") -----------------------

    def labels(self, dataset: str) -> str:
        return f"{self.root}/{dataset}/labels.tsv"

    def drops(self, dataset: str) -> str:
        return f"{self.root}/{dataset}/drops.tsv"

    def bins(self, dataset: str) -> str:
        return f"{self.root}/{dataset}/bins.tsv"

    def instances(self, dataset: str, setting: str) -> str:
        return f"{self.root}/{dataset}/instances/{setting}.jsonl"

    def reuse(self, dataset: str) -> str:
        return f"{self.root}/{dataset}/instances/reuse.tsv"

    def baselines(self, dataset: str) -> str:
        return f"{self.root}/{dataset}/baselines/metrics.tsv"

    def baseline_units(self, dataset: str) -> str:  # the units behind the baselines' metric rows
        return f"{self.root}/{dataset}/baselines/units.parquet"

    # --- models -------------------------------------------------------------------------

    def gguf(self, model: str) -> str:  # assembled from its packages
        return f"{self.root}/models/{model}.gguf"

    def hf(self, model: str) -> str:  # converted for vLLM
        return f"{self.root}/models/{model}-hf"

    def server(self, model: str) -> str:  # vllm.serve's service file
        return f"{self.root}/servers/{model}.json"

    # --- the plan (before any model runs) -----------------------------------------------

    def plan(self, ext: str) -> str:  # plan.md, plan.tsv
        return f"{self.root}/plan.{ext}"

    def plan_cells(self) -> str:  # per model job: what the progress view compares a run with
        return f"{self.root}/plan_cells.tsv"
