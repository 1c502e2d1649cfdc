# Metric rows -> the paper's tables (CSV, Markdown, LaTeX) and figures.


rule report_domainauth:
    input:
        metrics=get_cell_metrics,
        baselines=f"{DA}/baselines/metrics.tsv",
        labels=f"{DA}/labels.tsv",
        predictions=get_point_predictions,
    output:
        report_outputs(),
    log:
        "logs/domainauth/report.log",
    params:
        p=get_report_params,
        outdir=lambda wildcards, output: os.path.dirname(output[0]),
    shell:
        "python -m authbench.cli report --metrics {input.metrics} {input.baselines} --labels {input.labels} "
        "--predictions {input.predictions} --outdir {params.outdir} --params {params.p:q} 2> {log}"


rule report_entityauth:
    input:
        unpack(get_entity_report_inputs),
    output:
        entity_report_outputs(),
    log:
        "logs/entityauth/report.log",
    params:
        p=get_entity_report_params,
        outdir=lambda wildcards, output: os.path.dirname(output[0]),
    shell:
        "python -m authbench.cli report-entityauth --metrics {input.metrics} {input.baselines} "
        "--labels {input.labels} --reuse {input.reuse} --outdir {params.outdir} --params {params.p:q} 2> {log}"
