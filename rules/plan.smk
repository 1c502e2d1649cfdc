# The run's cost before it starts: `snakemake plan` (or `make plan CONFIG=...`)
# writes results/plan.md and plan.tsv from the files written before any model
# job (instances, RAGAuth questions, the self-preference import) and the
# embedded models' files (for their tokenizer and a few seconds of
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
    log:
        f"{LOGS}/plan.log",
    conda:
        "../envs/llamacpp.yaml"
    threads: plan_threads()
    params:
        p=get_plan_params,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli plan --md {output.md} --tsv {output.tsv} --params {params.p:q} 2> {log}"
