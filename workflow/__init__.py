"""AuthorityBench / RAG self-preference pipeline (import name ``authbench``).

The package lives in the repository folder ``workflow/`` but is imported as
``authbench`` so that Snakefiles never rebind Snakemake's own ``workflow`` name.
"""

__version__ = "0.1.0"
