# AuthorityBench datasets: raw URL table -> labeled domains (+ drop report, bin
# table; secondary label columns in a step of their own) ->
# sampled instances; entity sitelink counts -> labeled entities -> N=10 lists
# (+ N=5 lists unless entityauth.coarse_source is rescore);
# and the model files: the embedded GGUF every llamacpp cell reads, and its
# converted folder for vLLM.


rule domainauth_build:
    input:
        source=config["domainauth"]["source"],
        text=get_text_input,
    output:
        labels=f"{DA}/labels.tsv",
        drops=f"{DA}/drops.tsv",
        bins=f"{DA}/bins.tsv",
    log:
        f"{LOGS}/domainauth/build_domainauth.log",
    params:
        p=get_build_params,
    shell:
        "python -m authbench.cli domainauth-build --source {input.source} "
        "--labels {output.labels} --drops {output.drops} --bins {output.bins} --params {params.p:q} 2> {log}"


# The secondary label columns (domainauth.secondary.labels) of the labelled
# domains, joined into every cell's predictions.
rule domainauth_secondary:
    input:
        source=config["domainauth"]["source"],
        labels=f"{DA}/labels.tsv",
    output:
        f"{DA}/secondary.tsv",
    log:
        "logs/domainauth/secondary.log",
    params:
        p=get_secondary_params,
    shell:
        "python -m authbench.cli domainauth-secondary --source {input.source} --labels {input.labels} "
        "--out {output} --params {params.p:q} 2> {log}"


rule domainauth_sample:
    input:
        labels=f"{DA}/labels.tsv",
    output:
        expand(f"{DA}/instances/{{setting}}.jsonl", setting=["fine", "coarse", "pairs", "bias"]),
        reuse=f"{DA}/instances/reuse.tsv",
    log:
        f"{LOGS}/domainauth/sample_domainauth.log",
    params:
        p=get_sample_params,
        outdir=lambda wildcards, output: os.path.dirname(output.reuse),
    shell:
        "python -m authbench.cli domainauth-sample --labels {input.labels} "
        "--outdir {params.outdir} --params {params.p:q} 2> {log}"


rule entityauth_build:
    input:
        source=get_entity_source,
    output:
        labels=f"{EA}/{{entity_set}}/labels.tsv",
        drops=f"{EA}/{{entity_set}}/drops.tsv",
        bins=f"{EA}/{{entity_set}}/bins.tsv",
    log:
        f"{LOGS}/entityauth/{{entity_set}}/build.log",
    params:
        p=get_entity_build_params,
    shell:
        "python -m authbench.cli entityauth-build --source {input.source} "
        "--labels {output.labels} --drops {output.drops} --bins {output.bins} --params {params.p:q} 2> {log}"


rule entityauth_sample:
    input:
        labels=f"{EA}/{{entity_set}}/labels.tsv",
    output:
        [f"{EA}/{{entity_set}}/instances/{setting}.jsonl" for setting in ENTITY_SETTINGS],
        reuse=f"{EA}/{{entity_set}}/instances/reuse.tsv",
    log:
        f"{LOGS}/entityauth/{{entity_set}}/sample.log",
    params:
        p=get_entity_sample_params,
        outdir=lambda wildcards, output: os.path.dirname(output.reuse),
    shell:
        "python -m authbench.cli entityauth-sample --labels {input.labels} "
        "--outdir {params.outdir} --params {params.p:q} 2> {log}"


rule models_assemble:
    output:
        f"{R}/models/{{model}}.gguf",
    log:
        f"{LOGS}/models/{{model}}.log",
    params:
        p=get_assemble_params,
    shell:
        "python -m authbench.cli models-assemble --out {output} --params {params.p:q} 2> {log}"


# vLLM loads a safetensors folder: a package:/parts: GGUF is dequantised to
# bfloat16 once (in the model's `python:` environment, which has transformers)
# and kept under results/models/.
rule models_convert:
    input:
        f"{R}/models/{{model}}.gguf",
    output:
        directory(f"{R}/models/{{model}}-hf"),
    log:
        f"{LOGS}/models/{{model}}-convert.log",
    params:
        p=get_convert_params,
        python=model_python,
    shell:
        "{params.python} -m authbench.cli models-convert --gguf {input} --out {output} --params {params.p:q} 2> {log}"
