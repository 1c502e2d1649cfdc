# AuthorityBench judge cells and their evaluation: one job per cell (dataset x
# model x judge x context x setting). Its prompt template is an input, so
# editing one template reruns exactly the cells that read it. Parsed judgments
# -> metric rows per cell and their units (units.parquet); per-item predictions (bias analysis, secondary labels);
# non-LLM baseline rows.


include: "inputs/judge.smk"


rule authority_judge:
    input:
        unpack(AUTHORITY_JUDGE.input_function(config)),
        model=get_model_file,
        server=get_server,
    output:
        **AUTHORITY_JUDGE.outputs(P),
    log:
        f"{LOGS}/{{dataset}}/judge/{{model}}/{{judge}}/{{context}}/{{setting}}.log",
    benchmark:
        f"{P.timings}/{{dataset}}/judge/{{model}}/{{judge}}/{{context}}/{{setting}}.tsv"
    priority: MODEL_PRIORITY
    retries: MODEL_RETRIES
    conda:
        model_env
    threads: judge_threads
    resources:
        **JUDGE_RESOURCES,
    params:
        p=AUTHORITY_JUDGE.params_function(config),
        model_arg=model_file_arg,
        server_arg=server_arg,
        python=model_python,
    shell:
        "{params.python} -m authbench.cli authority-judge --instances {input.instances:q} --template {input.template:q} "
        "{params.model_arg} {params.server_arg} --responses {output.responses:q} "
        "--samples {output.samples:q} --judgments {output.judgments:q} "
        "--manifest {output.manifest:q} --threads {threads} --params {params.p:q} 2> {log:q}"


# With position_consistency: a pair or list cell's comparisons in the other
# order (authbench.studies.authority.consistency), a model job of its own, so
# turning the option on reruns nothing that exists.
rule authority_judge_reversed:
    input:
        unpack(AUTHORITY_JUDGE_REVERSED.input_function(config)),
        model=get_model_file,
        server=get_server,
    output:
        **AUTHORITY_JUDGE_REVERSED.outputs(P),
    log:
        f"{LOGS}/{{dataset}}/judge/{{model}}/{{judge}}/{{context}}/{{setting}}.reversed.log",
    benchmark:
        f"{P.timings}/{{dataset}}/judge/{{model}}/{{judge}}/{{context}}/{{setting}}.reversed.tsv"
    priority: MODEL_PRIORITY
    retries: MODEL_RETRIES
    conda:
        model_env
    threads: judge_threads
    resources:
        **JUDGE_RESOURCES,
    params:
        p=AUTHORITY_JUDGE_REVERSED.params_function(config),
        model_arg=model_file_arg,
        server_arg=server_arg,
        python=model_python,
    shell:
        "{params.python} -m authbench.cli authority-judge --instances {input.instances:q} --template {input.template:q} "
        "{params.model_arg} {params.server_arg} --responses {output.responses:q} "
        "--samples {output.samples:q} --judgments {output.judgments:q} "
        "--manifest {output.manifest:q} --threads {threads} --params {params.p:q} 2> {log:q}"


rule authority_consistency:
    input:
        instances=P.instances("{dataset}", "{setting}"),
        judgments=f"{CELL}/judgments.jsonl",
        manifest=f"{CELL}/manifest.json",
        reversed_judgments=f"{CELL}/reversed/judgments.jsonl",
        reversed_manifest=f"{CELL}/reversed/manifest.json",
    output:
        metrics=f"{CELL}/reversed/metrics.tsv",
        units=f"{CELL}/reversed/units.parquet",
        twins=f"{CELL}/reversed/{TWINS}",
    log:
        f"{LOGS}/{{dataset}}/consistency/{{model}}/{{judge}}/{{context}}/{{setting}}.log",
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_evaluate_params,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli authority-consistency --instances {input.instances:q} "
        "--judgments {input.judgments:q} --manifest {input.manifest:q} "
        "--reversed-judgments {input.reversed_judgments:q} --reversed-manifest {input.reversed_manifest:q} "
        "--metrics {output.metrics:q} --units {output.units:q} --twins {output.twins:q} --params {params.p:q} 2> {log:q}"


rule authority_evaluate:
    input:
        instances=P.instances("{dataset}", "{setting}"),
        judgments=f"{CELL}/judgments.jsonl",
        manifest=f"{CELL}/manifest.json",
        template=get_template,  # its example reply: the judge-validity diagnostic example_copy
    output:
        metrics=f"{CELL}/metrics.tsv",
        units=f"{CELL}/units.parquet",
    log:
        f"{LOGS}/{{dataset}}/evaluate/{{model}}/{{judge}}/{{context}}/{{setting}}.log",
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_evaluate_params,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli authority-evaluate --instances {input.instances:q} --judgments {input.judgments:q} "
        "--manifest {input.manifest:q} --template {input.template:q} --metrics {output.metrics:q} --units {output.units:q} --params {params.p:q} 2> {log:q}"


# Per-item scores of a cell (Table 8 reads the PointJudge bias cells'; with
# secondary labels, every cell with per-item scores, the labels joined in).
rule authority_predictions:
    input:
        instances=P.instances("{dataset}", "{setting}"),
        judgments=f"{CELL}/judgments.jsonl",
        secondary=get_prediction_secondary,
    output:
        f"{CELL}/predictions.tsv",
    log:
        f"{LOGS}/{{dataset}}/predictions/{{model}}/{{judge}}/{{context}}/{{setting}}.log",
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_prediction_params,
        secondary=prediction_secondary_arg,
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli authority-predictions --instances {input.instances:q} --judgments {input.judgments:q} "
        "{params.secondary} --predictions {output:q} --params {params.p:q} 2> {log:q}"


rule authority_baselines:
    input:
        get_baseline_instances,
    output:
        metrics=P.baselines("{dataset}"),
        units=P.baseline_units("{dataset}"),
    log:
        f"{LOGS}/{{dataset}}/baselines.log",
    conda:
        "../envs/analysis.yaml"
    params:
        p=get_baseline_params,
        indir=lambda wildcards, input: os.path.dirname(input[0]),
    shell:
        "$AUTHBENCH_PYTHON -m authbench.cli authority-baselines --instances-dir {params.indir:q} --metrics {output.metrics:q} --units {output.units:q} "
        "--params {params.p:q} 2> {log:q}"
