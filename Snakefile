# AuthorityBench / RAG self-preference pipeline. This file is only a table of
# contents: config, includes and the `all` target. Logic lives in the Python
# package under workflow/ (imported as `authbench`), wiring in rules/.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/models.smk"


# each registered study's rules (authbench.studies.registry)
for study_rules in STUDY_RULES:

    include: study_rules


include: "rules/report.smk"
include: "rules/plan.smk"


rule all:
    input:
        get_final_output(),
