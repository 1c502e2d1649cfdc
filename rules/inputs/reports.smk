# Shared by the report steps (included by common.smk), per study: its report
# declared once (authbench.studies.*.outputs), its files from
# authbench.render.catalog, and their entries in `snakemake --report`.
REPORTS = {r.name: r for r in (DOMAINAUTH, ENTITYAUTH, RAGAUTH, SELFPREF_REPORT, SELFPREF_DATASETS, STATISTICS)}
# `snakemake --report`'s caption files, written from the definitions when the Snakefile is parsed
CAPTIONS = os.path.abspath(".snakemake/authbench/captions")


def report_outputs(report, folder):
    return report_files(report, folder, config)


def selfpref_datasets_report_files():
    """The report of every dataset's tables, one block of rows each: only when two or more datasets run."""
    return report_outputs(SELFPREF_DATASETS, P.selfpref_datasets_report()) if len(SELFPREF.datasets) > 1 else []


def reported(paths, category):
    """Each report item's file (a table's CSV, a figure's PNG) flagged for `snakemake --report`, with the
    caption, subcategory and labels of its definition (authbench.render.catalog.report_entry)."""
    entries = ((path, report_entry(REPORTS[category], path, CAPTIONS)) for path in paths)
    return [path if entry is None else report(path, **entry) for path, entry in entries]
