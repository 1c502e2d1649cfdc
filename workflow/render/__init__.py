"""Presentation shared by every study: the table model and its one builder
(``tables``: bold/underline marks, stacking), how values are shown
(``formatting``), the one writer (``table_writers``: CSV, Markdown, LaTeX),
what captions say of intervals (``intervals``), the figure style
(``figures``), the cost table (``costs``) and the DAG export (``dag``).

What other packages use is exported here (:func:`authbench.lazy_exports`)."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "dag": ("export_dag",),
    "figures": ("STYLE_RC", "new_figure", "save_figure"),
    "formatting": ("COUNT", "FAIL", "MISSING", "NUM", "PCT", "SIGNED", "TEXT", "format_entry", "round2",
                   "round_half_up"),
    "table_writers": ("write_table",),
    "tables": ("Column", "TableSpec", "baselines_last", "build_table", "is_baseline", "stack_tables"),
})
