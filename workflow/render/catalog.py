"""Report items declared once: every table and figure of a study's report is
one :class:`Table` or :class:`Figure` in that study's ``REPORT``
(a :class:`Report`, in the study's ``outputs.py``). Everything else is
derived from that list here:

* :func:`chosen_items` / :func:`report_choice` / :func:`report_files`: which items and
  files a config produces (``rules/`` asks for exactly these and passes
  :func:`report_choice` to the report step; a skipped item has a reason);
* :func:`contents_md`: the report folder's ``contents.md``;
* :func:`write_tables`: the tables (CSV/Markdown/LaTeX) of a choice, each
  with its written caption (:meth:`Table.written_caption`);
* :func:`write_report`: the one writer of every study's report folder (the
  paired comparisons and their tags, the tables, the figures through
  :attr:`Figure.build`, the study's long files, ``contents.md`` and the
  scorecard), driven by the :class:`Report` and the study's data
  (:class:`ReportData`);
* :func:`report_entry`: an item's entry in Snakemake's ``--report``: its
  caption (a generated ``.rst`` file holding the definition's caption: a
  caption cannot be missing), category, subcategory and labels; and the
  report's ``scorecard.md`` (:data:`SCORECARD`), when it has one;
  :func:`provenance_entry`: the entry of ``provenance.md``, in the category
  the report lists first (:data:`PROVENANCE_CATEGORY`); :func:`viewer_entry`:
  the entry of a study's sample viewer (:data:`VIEWER`, a folder beside its
  report's files, :mod:`authbench.cells.viewer`), which contents.md links.

A definition's ``needs`` gets the validated config and returns ``""`` when the
config has data for the item, the reason it is skipped (shown in
``contents.md`` and the run log), or ``None`` when the config turns the item
off (not listed at all; e.g. ``expected_scores: false``). Light imports
only: the Snakefile loads this module on every run.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

TABLE_EXTS = ("csv", "md", "tex")
# the papers' numbers beside ours (authbench.studies.scorecard): a report lists them in extra (or a table's also)
SCORECARD = ("scorecard.md", "scorecard.tsv")
SCORECARD_MARKS = "scorecard_marks.tsv"  # a self-preference scorecard's † marks beside the paper's, one per row
# the papers' conclusions tested on their tables and on this run (authbench.studies.claims_report)
# and the study's numbers keyed by published key, which the claims (and the scorecard) read (authbench.studies.keyed)
CLAIMS = ("claims.md", "claims.tsv", "claims_cells.tsv", "units_keyed.parquet")
CLAIMS_TITLE = "Claims: the papers' conclusions, on their tables and on this run"
CLAIMS_CAPTION = (
    "Every claim of the paper that reads this study's tables (resources/claims): its verdict on the paper's own "
    "tables (k of n cells: holds as worded, or contradicted as worded) and on this run's own grid (supported, "
    "supported on k of n cells, contradicted, undecided or not applicable to this run: paired tests, Holm within "
    "the claim), with the table cells and comparisons behind it.")
# a study's prompt-edit diffs (authbench.cells.history): the index, beside the per-cell files under diffs/
DIFFS = "diffs.md"
DIFFS_TITLE = "Prompt-edit diffs: the cells whose template changed since a kept earlier run"
DIFFS_CAPTION = (
    "The judge cells whose template changed since an earlier run kept in the results' history folder (the newest "
    "earlier version with another template): the metric before and after (share correct, or the parse-success "
    "rate where a request has no right answer) with the paired 95% interval of the change, the replies that "
    "changed, the answers that flipped, the parse failures and the template's diff."
)
SCORECARD_TITLE = "Scorecard: the papers' published numbers beside this run's"
SCORECARD_CAPTION = (
    "The papers' published numbers (resources/published/) beside the numbers this run reproduced in the same place, "
    "in the paper's units: reproduced [95% interval], published, difference, and whether the published value lies "
    "inside the interval; the summary line first; published numbers without a counterpart counted by reason; data "
    "rows: counted from the data alone.")

# the report's first category (Snakemake sorts categories by name): provenance.md (authbench.render.dag)
PROVENANCE_CATEGORY = "About this run"
PROVENANCE_CAPTION = (
    "Provenance: the pipeline's git commit (and whether tracked files had changed), the SHA-256 of the merged "
    "config and of every data file it names, the models with their revisions, and the command that reruns the "
    "workflow. Each cell's manifest.json adds where it ran (its provenance block).")

# a study's sample viewer (authbench.cells.viewer): <report folder>/viewer/index.html, its own step
VIEWER = "viewer"
VIEWER_TITLE = "Sample viewer: every model cell's prompts, replies, parsed values and gold"
VIEWER_CAPTION = (
    "Sample viewer (open index.html; from the report zip, unzip it first or open the entry): every model cell of "
    "the study, with its samples, parse failures, correct and wrong replies, cache hits and judge-validity flags; "
    "pick a cell, filter by parse status, correct/wrong or cache, and open a sample to see its prompt, reply and gold "
    "side by side. A cell without a readable samples file is listed as unavailable with the reason.")

Needs = Callable[[Mapping[str, Any]], "str | None"]


def always(_config: Mapping[str, Any]) -> str:
    return ""


@dataclass(frozen=True)
class Table:
    """One results table: ``tables/<stem>.csv|md|tex``.

    ``build(inputs)`` returns its :class:`~authbench.render.tables.TableSpec`
    from the study writer's inputs; ``caption_of(inputs, spec)`` gives the
    written caption when the data adds to it (default: ``caption``)."""

    stem: str
    title: str  # contents.md and the report's label: what it is ("Table 1: DomainAuth fine-grained rho, tau")
    caption: str  # what it shows: the report's caption, the head of the written one
    needs: Needs = always
    build: Callable[[Any], Any] | None = None  # None: written by a step of its own
    caption_of: Callable[[Any, Any], str] | None = None
    exts: tuple[str, ...] = TABLE_EXTS
    listed: bool = True  # a row of contents.md
    also: tuple[str, ...] = ()  # further files written with it (relative to the report folder)

    def files(self, folder: str) -> list[str]:
        return [f"{folder}/tables/{self.stem}.{ext}" for ext in self.exts] + [f"{folder}/{x}" for x in self.also]

    @property
    def where(self) -> str:
        return f"tables/{self.stem}.{'/.'.join(self.exts)}"

    @property
    def kind(self) -> str:
        return "tables"

    def written_caption(self, inputs: Any, spec: Any) -> str:
        return self.caption if self.caption_of is None else self.caption_of(inputs, spec)


@dataclass(frozen=True)
class Figure:
    """One figure: ``figures/<stem>.png``, drawn by ``build(data, path)`` from
    the study's report data (None: drawn by a step or a long file of its own)."""

    stem: str
    title: str
    caption: str
    needs: Needs = always
    build: Callable[..., Any] | None = None
    listed: bool = True

    def files(self, folder: str) -> list[str]:
        return [f"{folder}/figures/{self.stem}.png"]

    @property
    def where(self) -> str:
        return f"figures/{self.stem}.png"

    @property
    def kind(self) -> str:
        return "figures"


@dataclass(frozen=True)
class Listing:
    """Long files of the report folder listed in contents.md (the per-unit
    records, the paired comparisons): ``names`` relative to the folder,
    written by the study's report writer."""

    stem: str
    title: str
    caption: str
    names: tuple[str, ...]
    needs: Needs = always
    listed: bool = True

    def files(self, folder: str) -> list[str]:
        return [f"{folder}/{n}" for n in self.names]

    @property
    def where(self) -> str:
        return ", ".join(self.names)

    @property
    def kind(self) -> str:
        return "data"


Item = Table | Figure | Listing


def builders_caption(_inputs: Any, spec: Any) -> str:
    """``caption_of`` of a table whose builder words its written caption (its
    sentences name the data's values midway): the definition's caption is
    then the report's and contents.md's."""
    return spec.caption


@dataclass(frozen=True)
class Report:
    """A study's report folder: its items in the order contents.md lists them,
    the long files beside them (``metrics.tsv`` ...: always written) and the
    ``closing`` items (always written, listed after the skipped ones)."""

    name: str  # "DomainAuth": contents.md's title, the report category
    items: tuple[Item, ...]
    extra: tuple[str, ...] = ()  # relative paths, e.g. "metrics.tsv", "contents.md"
    closing: tuple[Item, ...] = ()
    diffs: bool = False  # its judge cells' prompt-edit diffs (DIFFS, written by the prompt_diffs step)
    viewer: bool = True  # a sample viewer beside it (VIEWER, written by its own step)

    def item(self, stem: str) -> Item:
        for it in self.items + self.closing:
            if it.stem == stem:
                return it
        raise KeyError(f"{self.name} report has no item {stem!r} "
                       f"(has: {', '.join(i.stem for i in self.items + self.closing)})")


def chosen_items(report: Report, config: Mapping[str, Any]) -> tuple[list[Item], dict[str, str]]:
    """The items a config has data for, and the skipped ones with the
    reason (an item the config turns off is in neither; so is an unlisted
    item the config has no data for)."""
    keep, skipped = [], {}
    for it in report.items:
        reason = it.needs(config)
        if reason and it.listed:
            skipped[it.stem] = reason
        elif reason == "":
            keep.append(it)
    return keep + list(report.closing), skipped


def report_choice(report: Report, config: Mapping[str, Any]) -> dict:
    """:func:`chosen_items` as the report step's params: ``{"written": [stem],
    "skipped": {stem: reason}}`` (the step never decides this again)."""
    keep, skipped = chosen_items(report, config)
    return {"written": [it.stem for it in keep], "skipped": skipped}


def report_files(report: Report, folder: str, config: Mapping[str, Any]) -> list[str]:
    """Every file of the report folder a config produces."""
    keep, _ = chosen_items(report, config)
    return [f"{folder}/{x}" for x in report.extra] + [f for it in keep for f in it.files(folder)]


def contents_md(report: Report, choice: Mapping[str, Any], summary: str = "",
                status: Mapping[str, str] | None = None) -> str:
    """``contents.md`` of a :func:`report_choice`: the written items, the skipped ones
    with the reason, then the closing items; ``status`` overrides an item's
    "written" (e.g. "written, empty: ..."). Unlisted items are left out."""
    status, skipped = status or {}, choice["skipped"]
    rows = [(it.title, it.where, status.get(it.stem, "written"))
            for it in report.items if it.stem in choice["written"] and it.listed]
    rows += [(it.title, "-", f"skipped: {skipped[it.stem]}") for it in report.items if it.stem in skipped]
    rows += [(it.title, it.where, status.get(it.stem, "written")) for it in report.closing if it.listed]
    if SCORECARD[0] in report.extra:
        rows.append((SCORECARD_TITLE, "scorecard.md/.tsv", "written"))
    if CLAIMS[0] in report.extra:
        rows.append((CLAIMS_TITLE, "[claims.md](claims.md), claims.tsv, claims_cells.tsv, units_keyed.parquet",
                     "written"))
    if report.diffs:
        rows.append((DIFFS_TITLE, DIFFS, "written by the prompt_diffs step"))
    if report.viewer:
        rows.append((VIEWER_TITLE, f"[{VIEWER}/index.html]({VIEWER}/index.html)", "written by its own step"))
    head = f"# {report.name} report\n\n" + (f"{summary}\n\n" if summary else "")
    return (head + "| What | File | Status |\n|---|---|---|\n"
            + "".join(f"| {what} | {file} | {st} |\n" for what, file, st in rows))


class ReportData(Protocol):
    """What a study hands :func:`write_report` (its report step builds it
    from the step's files): the object the report's builders read."""

    comparisons_title: str  # comparisons.md's title; "" when the study has no paired comparisons

    def compare(self) -> "tuple[Any, Mapping] | None":
        """The paired comparisons of the units (a frame) and the tags they give
        the tables' values (:mod:`authbench.render.comparisons`), or None."""

    def tagged(self, tags: Mapping) -> Any:
        """The data the builders read, with the comparisons' tags."""

    def write_files(self, folder: Path) -> "tuple[list[Path], Mapping[str, str]]":
        """The study's long files (metrics, units, rates ...) and the items it
        writes itself; returns their paths and the contents.md status of any
        item that is not plainly "written"."""

    def contents_tail(self, comparisons: Any) -> str:
        """Rows contents.md adds after the catalog's (or "")."""

    def scorecard(self, folder: Path, built: Mapping) -> list[Path]:
        """The papers' numbers beside this run's (``built``: the tables as built)."""

    def claims(self, folder: Path, report: "Report") -> list[Path]:
        """The papers' claims on their tables and on this run's units (:data:`CLAIMS`;
        ``report``: the declaration, whose tables the claims link to)."""


def write_report(report: Report, data: ReportData, outdir: str | Path, choice: Mapping[str, Any], show: str = "inline",
                 summary: str = "", built: dict | None = None) -> list[Path]:
    """Write a study's report folder: the paired comparisons
    (``comparisons.tsv``/``.md``) and the data tagged with them, the study's
    long files, every table and figure of ``choice`` (:func:`report_choice`: written
    and skipped stems; a figure through its :attr:`Figure.build`),
    ``contents.md`` and the scorecard. ``show``: config ``intervals.show``;
    ``summary``: contents.md's one-line summary of the run (e.g. AuthorityBench's grid); ``built``, when
    given, receives ``stem -> (TableSpec, written caption)``. Returns the
    paths written."""
    import logging

    from authbench.records import write_text

    out = Path(outdir)
    for sub in ("tables", "figures"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for stem, reason in choice["skipped"].items():
        logging.getLogger("authbench").info("%s: %s skipped: %s", report.name, report.item(stem).title, reason)
    paths: list[Path] = []
    frame, compared = None, data.compare()
    if compared is not None:
        from authbench.render.comparisons import write_comparisons

        frame, tags = compared
        paths += write_comparisons(frame, out / "comparisons", data.comparisons_title)
        data = data.tagged(tags)
    files, status = data.write_files(out)
    paths += files
    built = {} if built is None else built
    paths += write_tables(report, choice["written"], data, out, show, built)
    for it in report.items + report.closing:
        if isinstance(it, Figure) and it.build is not None and it.stem in choice["written"]:
            paths.append(it.build(data, out / it.where))
    write_text(out / "contents.md", contents_md(report, choice, summary, status) + data.contents_tail(frame))
    paths.append(out / "contents.md")
    paths += data.scorecard(out, built)
    return paths + (data.claims(out, report) if CLAIMS[0] in report.extra else [])


def write_tables(report: Report, stems: Sequence[str], inputs: Any, folder: str | Path,
                 intervals: str = "inline", built: dict | None = None) -> list[Path]:
    """Build and write every table of ``stems`` that has a builder, each with
    :meth:`Table.written_caption`, under ``folder/tables`` (``intervals``:
    config ``intervals.show``, :func:`~authbench.render.table_writers.write_table`).
    ``built``, when given, receives ``stem -> (TableSpec, written caption)``."""
    from authbench.render.table_writers import write_table

    paths: list[Path] = []
    for stem in stems:
        it = report.item(stem)
        if isinstance(it, Table) and it.build is not None:
            spec = it.build(inputs)
            caption = it.written_caption(inputs, spec)
            if built is not None:
                built[stem] = (spec, caption)
            paths += write_table(spec, Path(folder) / "tables" / stem, caption, intervals)
    return paths


def stem_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0]


def find_item(report: Report, path: str) -> Item | None:
    """The item whose report file (a table's CSV, a figure's PNG) ``path`` is."""
    parts = path.split("/")
    kind = parts[-2] if len(parts) > 1 else ""
    for it in report.items + report.closing:
        if it.stem == stem_of(path) and kind == it.kind and path.endswith(".csv" if kind == "tables" else ".png"):
            return it
    return None


def caption_rst(caption: str) -> str:
    """A caption as Snakemake's caption template (Jinja, then reStructuredText):
    Jinja syntax kept literal."""
    return "{% raw %}" + caption + "{% endraw %}\n"


def write_if_changed(path: str, text: str) -> str:
    """Write ``text`` unless the file already holds it (atomic: parallel
    parses of the Snakefile may write the same file)."""
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return path
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path


def report_entry(report: Report, path: str, caption_dir: str) -> dict | None:
    """Snakemake ``report()`` keywords for ``path`` (None: not an item's report
    file): the caption file (written under ``caption_dir`` from the
    definition), the category (the report's name), the subcategory (tables,
    figures) and labels (study, title, and each wildcard of the path)."""
    it = find_item(report, path)
    slug = re.sub(r"[^a-z0-9]+", "_", report.name.lower()).strip("_")
    for name, sub, title, text in ((SCORECARD[0], "scorecard", SCORECARD_TITLE, SCORECARD_CAPTION),
                                   (CLAIMS[0], "claims", CLAIMS_TITLE, CLAIMS_CAPTION)):
        if it is None and path.rsplit("/", 1)[-1] == name:
            caption = write_if_changed(os.path.join(os.path.abspath(caption_dir), slug, f"{sub}.rst"),
                                       caption_rst(text))
            return {"caption": caption, "category": report.name, "subcategory": sub,
                    "labels": {"study": report.name, "file": title}}
    if it is None:
        return None
    caption = write_if_changed(os.path.join(os.path.abspath(caption_dir), slug, f"{it.kind}_{it.stem}.rst"),
                               caption_rst(it.caption))
    labels = {"study": report.name, it.kind[:-1]: it.title}
    labels.update({w: f"{{{w}}}" for w in re.findall(r"(?<!\{)\{(\w+)\}(?!\})", path)})
    return {"caption": caption, "category": report.name, "subcategory": it.kind, "labels": labels}


def diffs_entry(report: Report, caption_dir: str) -> dict:
    """Snakemake ``report()`` keywords for a study's ``diffs.md``."""
    slug = re.sub(r"[^a-z0-9]+", "_", report.name.lower()).strip("_")
    caption = write_if_changed(os.path.join(os.path.abspath(caption_dir), slug, "diffs.rst"),
                               caption_rst(DIFFS_CAPTION))
    return {"caption": caption, "category": report.name, "subcategory": "prompt-edit diffs",
            "labels": {"study": report.name, "file": DIFFS}}


def provenance_entry(caption_dir: str) -> dict:
    """Snakemake ``report()`` keywords for ``provenance.md``: its caption
    file, the category the report lists first, and a label."""
    caption = write_if_changed(os.path.join(os.path.abspath(caption_dir), "provenance.rst"),
                               caption_rst(PROVENANCE_CAPTION))
    return {"caption": caption, "category": PROVENANCE_CATEGORY, "subcategory": "provenance",
            "labels": {"file": "provenance.md"}}


def viewer_entry(report: Report, caption_dir: str) -> dict:
    """Snakemake ``report(directory(...), ...)`` keywords of a study's sample
    viewer: ``htmlindex``, its caption file, the study's category, a label."""
    slug = re.sub(r"[^a-z0-9]+", "_", report.name.lower()).strip("_")
    caption = write_if_changed(os.path.join(os.path.abspath(caption_dir), slug, "viewer.rst"),
                               caption_rst(VIEWER_CAPTION))
    return {"htmlindex": "index.html", "caption": caption, "category": report.name, "subcategory": "sample viewer",
            "labels": {"study": report.name, "file": VIEWER_TITLE}}
