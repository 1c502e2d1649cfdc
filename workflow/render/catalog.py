"""Report items declared once: every table and figure of a study's report is
one :class:`Table` or :class:`Figure` in that study's ``REPORT``
(a :class:`Report`). Everything else is derived from that list here:

* :func:`planned` / :func:`report_files`: which items and files a config
  produces (``rules/`` asks for exactly these; a skipped item has a reason);
* :func:`contents_md`: the report folder's ``contents.md``;
* :func:`caption_text`: the caption Snakemake's ``--report`` shows for a file
  (read from the definition: a caption cannot be missing);
* writing the files is :func:`authbench.render.tables.write_table`'s, called
  with the definition's caption first.

A definition's ``needs`` gets the validated config and returns ``""`` when the
config's grid has data for the item, else the reason it is skipped (shown in
``contents.md`` and the run log). Light imports only: the Snakefile loads
this module on every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

TABLE_EXTS = ("csv", "md", "tex")

Needs = Callable[[Mapping[str, Any]], str]


def always(_config: Mapping[str, Any]) -> str:
    return ""


@dataclass(frozen=True)
class Table:
    """One results table: ``tables/<stem>.csv|md|tex``."""

    stem: str
    title: str  # contents.md: what it is ("Table 1: DomainAuth fine-grained rho, tau")
    caption: str  # what it shows; the written caption starts with it, the report shows it
    needs: Needs = always
    build: Callable[..., Any] | None = None  # study-specific: returns a TableSpec

    def files(self, folder: str) -> list[str]:
        return [f"{folder}/tables/{self.stem}.{ext}" for ext in TABLE_EXTS]

    @property
    def where(self) -> str:
        return f"tables/{self.stem}.{'/.'.join(TABLE_EXTS)}"


@dataclass(frozen=True)
class Figure:
    """One figure: ``figures/<stem>.png``."""

    stem: str
    title: str
    caption: str
    needs: Needs = always
    build: Callable[..., Any] | None = None

    def files(self, folder: str) -> list[str]:
        return [f"{folder}/figures/{self.stem}.png"]

    @property
    def where(self) -> str:
        return f"figures/{self.stem}.png"


Item = Table | Figure


@dataclass(frozen=True)
class Report:
    """A study's report folder: its items in the order contents.md lists them
    and the long files beside them (``metrics.tsv`` ...: always written)."""

    name: str  # "DomainAuth": contents.md's title, the report category
    items: tuple[Item, ...]
    extra: tuple[str, ...] = ()  # relative paths, e.g. "metrics.tsv", "contents.md"
    notes: Mapping[str, str] = field(default_factory=dict)  # extra file -> what it is (contents.md)

    def item(self, stem: str) -> Item:
        for it in self.items:
            if it.stem == stem:
                return it
        raise KeyError(f"{self.name} report has no item {stem!r} (has: {', '.join(i.stem for i in self.items)})")


def planned(report: Report, config: Mapping[str, Any]) -> tuple[list[Item], dict[str, str]]:
    """The items a config's grid has data for, and the skipped ones with the reason."""
    keep, skipped = [], {}
    for it in report.items:
        reason = it.needs(config)
        if reason:
            skipped[it.stem] = reason
        else:
            keep.append(it)
    return keep, skipped


def report_files(report: Report, folder: str, config: Mapping[str, Any]) -> list[str]:
    """Every file of the report folder a config produces."""
    keep, _ = planned(report, config)
    return [f"{folder}/{x}" for x in report.extra] + [f for it in keep for f in it.files(folder)]


def stem_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0]


def caption_text(reports: Sequence[Report], path: str) -> str | None:
    """The definition's caption of a report file (None: not a declared item)."""
    parts = path.split("/")
    kind = parts[-2] if len(parts) > 1 else ""
    for report in reports:
        for it in report.items:
            if it.stem == stem_of(path) and kind == ("figures" if isinstance(it, Figure) else "tables"):
                return it.caption
    return None


def contents_md(report: Report, config: Mapping[str, Any], grid: str = "",
                status: Mapping[str, str] | None = None) -> str:
    """``contents.md``: every item of the study, written or skipped with the
    reason; ``status`` overrides an item's "written" (e.g. "written, empty: ...")."""
    keep, skipped = planned(report, config)
    status = status or {}
    rows = []
    for it in report.items:
        if it.stem in skipped:
            rows.append((it.title, "-", f"skipped: {skipped[it.stem]}"))
        else:
            rows.append((it.title, it.where, status.get(it.stem, "written")))
    head = f"# {report.name} report\n\n" + (f"{grid}\n\n" if grid else "")
    return (head + "| What | File | Status |\n|---|---|---|\n"
            + "".join(f"| {what} | {file} | {st} |\n" for what, file, st in rows))
