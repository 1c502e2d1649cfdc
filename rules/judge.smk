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
        model_arg=lambda wildcards, input: f"--model-file {input.model}" if input.model else "",
    threads: get_judge_threads
    # From the model's config (schema: gpus, mem_mb, runtime in minutes). On
    # Slurm, gpu=N becomes `sbatch --gpus=N` (none when 0); CPU rules ask for
    # no GPU. Locally these are only bookkeeping.
    resources:
        mem_mb=lambda wildcards: model_config(wildcards).get("mem_mb", 4000),
        runtime=lambda wildcards: model_config(wildcards).get("runtime", 120),
        gpu=lambda wildcards: model_config(wildcards).get("gpus", 0),
    shell:
        "python -m authbench.cli judge --instances {input.instances} --template {input.template} "
        "{params.model_arg} --responses {output.responses} --judgments {output.judgments} "
        "--manifest {output.manifest} --threads {threads} --params {params.p:q} 2> {log}"
