# Shared by the report steps (included by common.smk), per study: its reports
# declared once (each study's declaration, authbench.studies.registry), their
# files from authbench.render.catalog, and their entries in `snakemake --report`.
REPORTS = {**study_reports(config), STATISTICS.name: STATISTICS}
# `snakemake --report`'s caption files, written from the definitions when the Snakefile is parsed
CAPTIONS = os.path.abspath(".snakemake/authbench/captions")


def report_outputs(report, folder):
    return report_files(report, folder, config)


def reported(paths, category):
    """Each report item's file (a table's CSV, a figure's PNG) flagged for `snakemake --report`, with the
    caption, subcategory and labels of its definition (authbench.render.catalog.report_entry)."""
    entries = ((path, report_entry(REPORTS[category], path, CAPTIONS)) for path in paths)
    return [path if entry is None else report(path, **entry) for path, entry in entries]
