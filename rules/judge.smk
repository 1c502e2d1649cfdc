# One job per cell: benchmark dataset x model x judge x context x setting. Its
# prompt template is an input, so editing one template reruns exactly the cells
# that read it.


rule judge_cell:
    input:
        instances=f"{R}/{{bench}}/instances/{{setting}}.jsonl",
        template=get_template,
        model=get_model_file,
    output:
        responses=f"{CELL}/responses.jsonl",
        judgments=f"{CELL}/judgments.jsonl",
        manifest=f"{CELL}/manifest.json",
    log:
        "logs/{bench}/judge/{model}/{judge}/{context}/{setting}.log",
    benchmark:
        f"{R}/benchmarks/{{bench}}/judge/{{model}}/{{judge}}/{{context}}/{{setting}}.tsv"
    params:
        p=get_judge_params,
        model_arg=model_file_arg,
    threads: model_threads
    resources:
        mem_mb=model_mem_mb,
        runtime=model_runtime,
        gpu=model_gpus,
    shell:
        "python -m authbench.cli judge --instances {input.instances} --template {input.template} "
        "{params.model_arg} --responses {output.responses} --judgments {output.judgments} "
        "--manifest {output.manifest} --threads {threads} --params {params.p:q} 2> {log}"
