# The run's cost before it starts: `snakemake plan` (or `make plan CONFIG=...`)
# writes results/plan.md, plan.tsv and plan_cells.tsv from the files written
# before any model job and without the web (instances, RAGAuth questions, the
# self-preference import; what cannot exist yet is estimated by its study: authbench.cells.planned.Estimated)
# and the embedded models' files (for their tokenizer and a few seconds of
# calibration). Not part of `all`: `make demo` and `make run` ask for it first.


include: "inputs/plan.smk"


localrules:
    plan,


rule plan:
    input:
        get_plan_inputs(),
    output:
        md=P.plan("md"),
        tsv=P.plan("tsv"),
        cells=P.plan_cells(),
    log:
        f"{LOGS}/plan.log",
    conda:
        "../envs/llamacpp.yaml"
    threads: plan_threads()
    params:
        p=get_plan_params,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli plan --md {output.md:q} --tsv {output.tsv:q} --cells {output.cells:q} "
        "--workers {threads} --params {params.p:q} 2> {log:q}"
