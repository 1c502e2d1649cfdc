# What every study shares at the end: the benchmark statistics (Table 7 and
# the self-preference data table), each report folder's sample viewer and
# prompt diffs, and the provenance export (rule graph and job DAG).


include: "inputs/report.smk"


localrules:
    provenance_dag,


# Table 7 (benchmark statistics) from the built datasets of every study: no
# judge cell has to run first.
if report_outputs(STATISTICS, P.statistics):

    rule benchmark_statistics:
        input:
            unpack(get_statistics_inputs),
        output:
            reported(report_outputs(STATISTICS, P.statistics), "Benchmark statistics"),
        log:
            f"{LOGS}/statistics.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_statistics_params,
            rag=statistics_rag_arg,
            outdir=outdir,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli benchmark-statistics --labels {input.labels:q} --drops {input.drops:q} "
            "--instances {input.instances:q} {params.rag} --sp-questions {input.sp_questions:q} "
            "--sp-passages {input.sp_passages:q} --sp-drops {input.sp_drops:q} --outdir {params.outdir:q} "
            "--params {params.p:q} 2> {log:q}"


# Each study's sample viewer (authbench.cells.viewer): every model cell's
# Per study (shown_studies), from the samples of its model cells:
# - the sample viewer: a static HTML folder (authbench.cells.viewer), with
#   the judge-validity flags of an AuthorityBench report's costs table; a
#   damaged samples file is listed as unavailable, the rest is shown;
# - the prompt diffs (authbench.cells.history): each cell's current samples against
#   the newest version with another template, kept in P.history by the cell
#   writer (outside every rule's outputs: Snakemake deletes a job's outputs
#   before rerunning it); diffs.md lists the cells with a diff, each one's
#   diff.md is under diffs/.
for name, study, folder, samples, costs in shown_studies():

    rule:
        name:
            f"{name}_viewer"
        input:
            samples=samples,
            costs=costs,
            assets=VIEWER_ASSETS,
        output:
            report(directory(f"{folder}/{VIEWER}"), **viewer_entry(study, CAPTIONS)),
        log:
            f"{LOGS}/{name}_viewer.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=_json({"study": study.name}),
            root=viewer_root,
            assets=viewer_assets,
            costs=viewer_costs_arg,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli study-viewer --samples {input.samples:q} --root {params.root:q} "
            "--assets {params.assets:q} {params.costs} --outdir {output:q} --params {params.p:q} 2> {log:q}"

    rule:
        name:
            f"{name}_prompt_diffs"
        input:
            samples,
        output:
            folder=directory(f"{folder}/diffs"),
            index=report(f"{folder}/{DIFFS}", **diffs_entry(study, CAPTIONS)),
        log:
            f"{LOGS}/{name}_prompt_diffs.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_diffs_params(study),
            history=P.history,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli prompt-diffs --samples {input:q} --history {params.history:q} "
            "--folder {output.folder:q} --index {output.index:q} --params {params.p:q} 2> {log:q}"


# The rule graph and the job DAG of the current config (dot + SVG), the
# merged config itself and provenance.md (commit, config and data hashes,
# models, how to rerun): what to cite next to a table. Not part of `all`
# (the DAG describes `all`); build it with `snakemake --cores 1 provenance_dag`;
# `snakemake --report report.zip all provenance_dag` then shows provenance.md first.
rule provenance_dag:
    output:
        expand(f"{P.provenance}/{{kind}}.{{ext}}", kind=["rulegraph", "dag"], ext=["dot", "svg"]),
        f"{P.provenance}/config.json",
        report(f"{P.provenance}/provenance.md", **provenance_entry(CAPTIONS)),
    log:
        f"{LOGS}/provenance.log",
    conda:
        "../envs/analysis.yaml"
    params:
        p=lambda wildcards: _json(
            {
                "config": config,
                "snakefile": workflow.main_snakefile,
                "targets": [],
                "configfiles": [str(f) for f in workflow.config_settings.configfiles],
            }
        ),
        outdir=outdir,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli provenance-dag --outdir {params.outdir:q} --params {params.p:q} 2> {log:q}"
