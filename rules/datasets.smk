# AuthorityBench datasets: raw URL table -> labeled domains (+ drop report, bin
# table; secondary label columns in a step of their own) ->
# sampled instances; entity sitelink counts -> labeled entities -> N=10 lists
# (+ N=5 lists unless entityauth.coarse_source is rescore);
# and the model files: the embedded GGUF every llamacpp cell reads, and its
# converted folder for vLLM.


include: "inputs/datasets.smk"


rule domainauth_build:
    input:
        source=config["domainauth"]["source"],
        text=get_text_input,
    output:
        labels=P.labels("domainauth"),
        drops=P.drops("domainauth"),
        bins=P.bins("domainauth"),
    log:
        f"{LOGS}/domainauth/build_domainauth.log",
    priority: MODEL_PRIORITY
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_build_params,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli domainauth-build --source {input.source:q} "
        "--labels {output.labels:q} --drops {output.drops:q} --bins {output.bins:q} --params {params.p:q} 2> {log:q}"


# The secondary label columns (domainauth.secondary.labels) of the labelled
# domains, joined into every cell's predictions.
rule domainauth_secondary:
    input:
        source=config["domainauth"]["source"],
        labels=P.labels("domainauth"),
    output:
        secondary=authority_layout.secondary(P),
        drops=authority_layout.secondary_drops(P),
    log:
        f"{LOGS}/domainauth/secondary.log",
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_secondary_params,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli domainauth-secondary --source {input.source:q} --labels {input.labels:q} "
        "--out {output.secondary:q} --drops {output.drops:q} --params {params.p:q} 2> {log:q}"


rule domainauth_sample:
    input:
        labels=P.labels("domainauth"),
    output:
        [P.instances("domainauth", s) for s in SETTINGS],
        reuse=P.reuse("domainauth"),
    log:
        f"{LOGS}/domainauth/sample_domainauth.log",
    priority: MODEL_PRIORITY
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_sample_params,
        outdir=lambda wildcards, output: os.path.dirname(output.reuse),
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli domainauth-sample --labels {input.labels:q} "
        "--outdir {params.outdir:q} --params {params.p:q} 2> {log:q}"


rule entityauth_build:
    input:
        source=get_entity_source,
    output:
        labels=P.labels("entityauth/{entity_set}"),
        drops=P.drops("entityauth/{entity_set}"),
        bins=P.bins("entityauth/{entity_set}"),
    log:
        f"{LOGS}/entityauth/{{entity_set}}/build.log",
    priority: MODEL_PRIORITY
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_entity_build_params,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli entityauth-build --source {input.source:q} "
        "--labels {output.labels:q} --drops {output.drops:q} --bins {output.bins:q} --params {params.p:q} 2> {log:q}"


rule entityauth_sample:
    input:
        labels=P.labels("entityauth/{entity_set}"),
    output:
        [P.instances("entityauth/{entity_set}", s) for s in ENTITY_SETTINGS],
        reuse=P.reuse("entityauth/{entity_set}"),
    log:
        f"{LOGS}/entityauth/{{entity_set}}/sample.log",
    priority: MODEL_PRIORITY
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_entity_sample_params,
        outdir=lambda wildcards, output: os.path.dirname(output.reuse),
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli entityauth-sample --labels {input.labels:q} "
        "--outdir {params.outdir:q} --params {params.p:q} 2> {log:q}"
