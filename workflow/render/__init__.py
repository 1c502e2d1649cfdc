"""Presentation shared by every study: the one table builder and writer
(``tables``: CSV, Markdown, LaTeX, bold/underline), the figure style
(``figures``), the cost table (``costs``) and the DAG export (``dag``).

What other packages use is exported here (:func:`authbench.lazy_exports`)."""

from authbench import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "dag": ("export_dag",),
    "figures": ("STYLE_RC", "new_figure", "save_figure"),
    "tables": ("COUNT", "Column", "FAIL", "MISSING", "NUM", "PCT", "SIGNED", "TEXT", "TableSpec", "baselines_last", "build_table", "format_cell", "is_baseline", "round2", "round_half_up", "stack_tables", "write_table"),
})
