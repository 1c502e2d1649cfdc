# Parsed judgments -> metric rows per cell; PointJudge predictions for the bias
# analysis; non-LLM baseline rows.


rule evaluate_cell:
    input:
        instances=f"{R}/{{bench}}/instances/{{setting}}.jsonl",
        judgments=f"{CELL}/judgments.jsonl",
        manifest=f"{CELL}/manifest.json",
    output:
        f"{CELL}/metrics.tsv",
    log:
        "logs/{bench}/evaluate/{model}/{judge}/{context}/{setting}.log",
    params:
        p=get_cell_identity,
    shell:
        "python -m authbench.cli evaluate --instances {input.instances} --judgments {input.judgments} "
        "--manifest {input.manifest} --metrics {output} --params {params.p:q} 2> {log}"


rule point_predictions:
    input:
        instances=f"{R}/{{bench}}/instances/{{setting}}.jsonl",
        judgments=f"{CELL}/judgments.jsonl",
    output:
        f"{CELL}/predictions.tsv",
    log:
        "logs/{bench}/predictions/{model}/{judge}/{context}/{setting}.log",
    params:
        p=get_cell_identity,
    shell:
        "python -m authbench.cli predictions --instances {input.instances} --judgments {input.judgments} "
        "--predictions {output} --params {params.p:q} 2> {log}"


rule baselines:
    input:
        get_baseline_instances,
    output:
        f"{R}/{{bench}}/baselines/metrics.tsv",
    log:
        "logs/{bench}/baselines.log",
    params:
        p=get_baseline_params,
        indir=lambda wildcards, input: os.path.dirname(input[0]),
    shell:
        "python -m authbench.cli baselines --instances-dir {params.indir} --metrics {output} "
        "--params {params.p:q} 2> {log}"
