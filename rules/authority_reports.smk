# DomainAuth's and EntityAuth's reports: metric rows -> the AuthorityBench
# papers' tables (CSV, Markdown, LaTeX) and figures, the scorecard and the
# claims.


include: "inputs/authority_reports.smk"


rule domainauth_report:
    input:
        metrics=get_domain_metrics,
        baselines=P.baselines("domainauth"),
        units=get_domain_units,
        labels=P.labels("domainauth"),
        predictions=get_point_predictions,
        item_predictions=get_secondary_predictions,
        manifests=get_domain_manifests,
    output:
        reported(report_outputs(DOMAINAUTH, f"{DA}/report"), "DomainAuth"),
    log:
        f"{LOGS}/domainauth/report.log",
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_domain_report_params,
        outdir=outdir,
        item_predictions=secondary_predictions_arg,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli domainauth-report --metrics {input.metrics:q} {input.baselines:q} --units {input.units:q} "
        "--labels {input.labels:q} "
        "--predictions {input.predictions:q} {params.item_predictions} --manifests {input.manifests:q} "
        "--outdir {params.outdir:q} --params {params.p:q} 2> {log:q}"


rule entityauth_report:
    input:
        unpack(get_entity_report_inputs),
    output:
        reported(report_outputs(ENTITYAUTH, f"{EA}/report"), "EntityAuth"),
    log:
        f"{LOGS}/entityauth/report.log",
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_entity_report_params,
        outdir=outdir,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli entityauth-report --metrics {input.metrics:q} {input.baselines:q} "
        "--units {input.units:q} --labels {input.labels:q} --reuse {input.reuse:q} --manifests {input.manifests:q} --outdir {params.outdir:q} --params {params.p:q} 2> {log:q}"
