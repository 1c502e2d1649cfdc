"""The self-preference study's own files under the results folder, beside
the shared :class:`authbench.paths.Layout` (its cells: ``Layout.cell`` with
study ``selfpref/<dataset>``). ``dataset`` is a dataset of
``selfpref.datasets`` or the wildcard ``"{spds}"``."""

from authbench.paths import Layout


def folder(layout: Layout, dataset: str) -> str:
    return f"{layout.root}/selfpref/{dataset}"


def questions(layout: Layout, dataset: str) -> str:  # the import's questions
    return f"{layout.root}/selfpref/{dataset}/questions.jsonl"


def imported(layout: Layout, dataset: str) -> str:  # the import's passages
    return f"{layout.root}/selfpref/{dataset}/imported.jsonl"


def datasets_report(layout: Layout) -> str:
    """Every dataset's tables in one report (two or more datasets; no dataset may be named ``report``)."""
    return f"{layout.root}/selfpref/report"
