# Raw URL table -> labeled domains (+ drop report) -> sampled instances.


rule build_domainauth:
    input:
        source=config["domainauth"]["source"],
        text=get_text_input,
    output:
        labels=f"{DA}/labels.tsv",
        drops=f"{DA}/drops.tsv",
    log:
        "logs/domainauth/build_domainauth.log",
    params:
        p=get_build_params,
    shell:
        "python -m authbench.cli build-domainauth --source {input.source} "
        "--labels {output.labels} --drops {output.drops} --params {params.p:q} 2> {log}"


rule sample_domainauth:
    input:
        labels=f"{DA}/labels.tsv",
    output:
        expand(f"{DA}/instances/{{setting}}.jsonl", setting=["fine", "coarse", "pairs", "bias"]),
        reuse=f"{DA}/instances/reuse.tsv",
    log:
        "logs/domainauth/sample_domainauth.log",
    params:
        p=get_sample_params,
        outdir=lambda wildcards, output: os.path.dirname(output.reuse),
    shell:
        "python -m authbench.cli sample-domainauth --labels {input.labels} "
        "--outdir {params.outdir} --params {params.p:q} 2> {log}"


rule assemble_model:
    output:
        f"{R}/models/{{model}}.gguf",
    log:
        "logs/models/{model}.log",
    params:
        p=get_assemble_params,
    shell:
        "python -m authbench.cli assemble-model --out {output} --params {params.p:q} 2> {log}"


rule build_entityauth:
    input:
        source=get_entity_source,
    output:
        labels=f"{EA}/{{dataset}}/labels.tsv",
        drops=f"{EA}/{{dataset}}/drops.tsv",
    log:
        "logs/entityauth/{dataset}/build.log",
    params:
        p=get_entity_build_params,
    shell:
        "python -m authbench.cli build-entityauth --source {input.source} "
        "--labels {output.labels} --drops {output.drops} --params {params.p:q} 2> {log}"


rule sample_entityauth:
    input:
        labels=f"{EA}/{{dataset}}/labels.tsv",
    output:
        fine=f"{EA}/{{dataset}}/instances/fine.jsonl",
        reuse=f"{EA}/{{dataset}}/instances/reuse.tsv",
    log:
        "logs/entityauth/{dataset}/sample.log",
    params:
        p=get_entity_sample_params,
    shell:
        "python -m authbench.cli sample-entityauth --labels {input.labels} "
        "--instances {output.fine} --reuse {output.reuse} --params {params.p:q} 2> {log}"
