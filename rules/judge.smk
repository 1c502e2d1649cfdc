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
        summary=f"{CELL}/summary.json",
    log:
        "logs/{bench}/judge/{model}/{judge}/{context}/{setting}.log",
    benchmark:
        f"{R}/benchmarks/{{bench}}/judge/{{model}}/{{judge}}/{{context}}/{{setting}}.tsv"
    params:
        p=get_judge_params,
    threads: get_judge_threads
    resources:
        mem_mb=4000,
        runtime=120,
    shell:
        "python -m authbench.cli judge --instances {input.instances} --template {input.template} "
        "--model-file {input.model} --responses {output.responses} --judgments {output.judgments} "
        "--summary {output.summary} --threads {threads} --params {params.p:q} 2> {log}"
