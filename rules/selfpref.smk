# The RAG self-preference study (Chen et al.): released passage sets (+ passages
# written by configured models) -> a seeded question sample -> knowledge probes,
# perplexity, pointwise reranking and pairwise generation cells per evaluator
# -> Tables 1-9, Figure 3. Cells use the same engines, cache and manifests as
# the judge cells. Present only when `selfpref` is in `studies`.
from authbench.studies.selfpref.data import AUTHORS_ENV
from authbench.studies.selfpref.cell_list import selfpref_cells

SELFPREF = selfpref_cells(config)
# the import orders a long-form mapping it suggests by selfpref.authors (an error message: no param)
os.environ[AUTHORS_ENV] = json.dumps(config["selfpref"]["authors"])
if SELFPREF.evaluators:
    logger.info(
        "Self-preference: each evaluator's own passages are those of its 'self' author (selfpref.self): "
        + ", ".join(f"{m} -> {config['selfpref']['self'][m]}" for m in SELFPREF.evaluators)
    )


include: "inputs/selfpref.smk"


if SELFPREF.datasets:

    localrules:
        selfpref_sample,
        selfpref_shipped_knowledge,

    wildcard_constraints:
        spds=alternatives(SELFPREF.datasets),

    SP_GENERATE = JOB_KINDS["selfpref_generate"]  # authbench.studies.selfpref.kinds: outputs, inputs, params
    SP_PERPLEXITY = JOB_KINDS["selfpref_perplexity"]
    SP_KNOWLEDGE = JOB_KINDS["selfpref_knowledge"]
    SP_RERANK = JOB_KINDS["selfpref_rerank"]
    SP_COMPARE = JOB_KINDS["selfpref_compare"]

    rule selfpref_import:
        input:
            sp_sources,
        output:
            questions=sp_layout.questions(P, "{spds}"),
            passages=sp_layout.imported(P, "{spds}"),
            drops=f"{SP}/drops.tsv",
        log:
            f"{LOGS}/selfpref/{{spds}}/import.log",
        priority: MODEL_PRIORITY
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_sp_import_params,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli selfpref-import --questions {output.questions:q} --passages {output.passages:q} "
            "--drops {output.drops:q} --params {params.p:q} 2> {log:q}"

    rule selfpref_generate:
        input:
            unpack(SP_GENERATE.input_function(config)),
            model=get_model_file,
        output:
            **SP_GENERATE.outputs(P),
        log:
            f"{LOGS}/selfpref/{{spds}}/generate_{{model}}.log",
        priority: MODEL_PRIORITY
        retries: MODEL_RETRIES
        conda:
            model_env
        threads: model_threads
        resources:
            **MODEL_RESOURCES,
        params:
            p=SP_GENERATE.params_function(config),
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-generate --questions {input.questions:q} --passages {input.passages:q} "
            "--template {input.templates:q} {params.model_arg} --responses {output.responses:q} --samples {output.samples:q} "
            "--judgments {output.judgments:q} --manifest {output.manifest:q} --out {output.passages:q} "
            "--drops {output.drops:q} --threads {threads} --params {params.p:q} 2> {log:q}"

    rule selfpref_sample:
        input:
            passages=sp_layout.imported(P, "{spds}"),
            generated=lambda wildcards: SP_GENERATE.files_of(P, config, "passages", spds=wildcards.spds),
        output:
            sample=f"{SP}/sample.json",
            passages=f"{SP}/passages.jsonl",
        log:
            f"{LOGS}/selfpref/{{spds}}/sample.log",
        priority: MODEL_PRIORITY
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_sp_sample_params,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli selfpref-sample --passages {input.passages:q} --generated {input.generated:q} "
            "--sample {output.sample:q} --out {output.passages:q} --params {params.p:q} 2> {log:q}"

    rule selfpref_shipped_knowledge:
        input:
            source=get_sp_shipped_knowledge,
            questions=sp_layout.questions(P, "{spds}"),
        output:
            levels=f"{SP}/knowledge/{{author}}.jsonl",
            check=f"{SP}/knowledge/{{author}}_check.tsv",
        log:
            f"{LOGS}/selfpref/{{spds}}/knowledge_{{author}}.log",
        priority: MODEL_PRIORITY
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_sp_shipped_knowledge_params,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli selfpref-shipped-knowledge --source {input.source:q} --questions {input.questions:q} "
            "--levels {output.levels:q} --check {output.check:q} --params {params.p:q} 2> {log:q}"

    rule selfpref_knowledge:
        input:
            unpack(SP_KNOWLEDGE.input_function(config)),
            model=get_model_file,
        output:
            **SP_KNOWLEDGE.outputs(P),
        log:
            f"{LOGS}/selfpref/{{spds}}/{{model}}/knowledge.log",
        priority: MODEL_PRIORITY
        retries: MODEL_RETRIES
        conda:
            model_env
        threads: model_threads
        resources:
            **MODEL_RESOURCES,
        params:
            p=SP_KNOWLEDGE.params_function(config),
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-knowledge --questions {input.questions:q} --sample {input.sample:q} "
            "--template {input.template:q} {params.model_arg} --responses {output.responses:q} --samples {output.samples:q} "
            "--judgments {output.judgments:q} --manifest {output.manifest:q} --levels {output.levels:q} "
            "--threads {threads} --params {params.p:q} 2> {log:q}"

    rule selfpref_perplexity:
        input:
            unpack(SP_PERPLEXITY.input_function(config)),
            model=get_model_file,
        output:
            **SP_PERPLEXITY.outputs(P),
        log:
            f"{LOGS}/selfpref/{{spds}}/perplexity_{{model}}.log",
        priority: MODEL_PRIORITY
        retries: MODEL_RETRIES
        conda:
            model_env
        threads: model_threads
        resources:
            **MODEL_RESOURCES,
        params:
            p=SP_PERPLEXITY.params_function(config),
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-perplexity --passages {input.passages:q} --sample {input.sample:q} "
            "{params.model_arg} "
            "--out {output.scores:q} --manifest {output.manifest:q} --params {params.p:q} 2> {log:q}"

    rule selfpref_rerank:
        input:
            unpack(SP_RERANK.input_function(config)),
            model=get_model_file,
        output:
            **SP_RERANK.outputs(P),
        log:
            f"{LOGS}/selfpref/{{spds}}/{{model}}/rerank_{{prompt}}.log",
        priority: MODEL_PRIORITY
        retries: MODEL_RETRIES
        conda:
            model_env
        threads: model_threads
        resources:
            **MODEL_RESOURCES,
        params:
            p=SP_RERANK.params_function(config),
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-rerank --questions {input.questions:q} --sample {input.sample:q} "
            "--passages {input.passages:q} --template {input.template:q} {params.model_arg} "
            "--responses {output.responses:q} "
            "--samples {output.samples:q} --judgments {output.judgments:q} --manifest {output.manifest:q} "
            "--threads {threads} --params {params.p:q} 2> {log:q}"

    rule selfpref_compare:
        input:
            unpack(SP_COMPARE.input_function(config)),
            model=get_model_file,
        output:
            **SP_COMPARE.outputs(P),
        log:
            f"{LOGS}/selfpref/{{spds}}/{{model}}/generation_{{run}}.log",
        priority: MODEL_PRIORITY
        retries: MODEL_RETRIES
        conda:
            model_env
        threads: model_threads
        resources:
            **MODEL_RESOURCES,
        params:
            p=SP_COMPARE.params_function(config),
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-compare --questions {input.questions:q} --sample {input.sample:q} "
            "--passages {input.passages:q} --knowledge {input.knowledge:q} --template {input.template:q} "
            "{params.model_arg} --responses {output.responses:q} "
            "--samples {output.samples:q} --judgments {output.judgments:q} "
            "--manifest {output.manifest:q} --threads {threads} --params {params.p:q} 2> {log:q}"

    rule selfpref_report:
        input:
            rerank=lambda wildcards: SP_RERANK.files_of(P, config, "judgments", spds=wildcards.spds),
            generation=lambda wildcards: SP_COMPARE.files_of(P, config, "judgments", spds=wildcards.spds),
            knowledge=get_sp_knowledge_levels,
            perplexity=lambda wildcards: SP_PERPLEXITY.files_of(P, config, "scores", spds=wildcards.spds),
            passages=f"{SP}/passages.jsonl",
            sample=f"{SP}/sample.json",
            questions=sp_layout.questions(P, "{spds}"),
            released_perplexity=get_sp_released_perplexity,
        output:
            reported(report_outputs(SELFPREF_REPORT, f"{SP}/report"), "Self-preference"),
            built=f"{SP}/report/tables.json",
        log:
            f"{LOGS}/selfpref/{{spds}}/report.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_sp_report_params,
            outdir=outdir,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli selfpref-report --rerank {input.rerank:q} --generation {input.generation:q} "
            "--knowledge {input.knowledge:q} --perplexity {input.perplexity:q} --passages {input.passages:q} --sample {input.sample:q} "
            "--questions {input.questions:q} --released-perplexity {input.released_perplexity:q} --outdir {params.outdir:q} "
            "--built {output.built:q} --params {params.p:q} 2> {log:q}"

    if len(SELFPREF.datasets) > 1:

        rule selfpref_datasets_report:
            input:
                built=expand(f"{SP}/report/tables.json", spds=sp_datasets_in_order()),
                keyed=expand(f"{SP}/report/units_keyed.parquet", spds=sp_datasets_in_order()),
            output:
                reported(selfpref_datasets_report_files(), SELFPREF_DATASETS.name),
            log:
                f"{LOGS}/selfpref/datasets_report.log",
            conda:
                "../envs/analysis.yaml"
            params:
                p=get_sp_datasets_report_params,
                outdir=outdir,
            shell:
                "$AUTHBENCH_PYTHON -m authbench.cli selfpref-datasets-report --built {input.built:q} "
                "--keyed {input.keyed:q} --outdir {params.outdir:q} --params {params.p:q} 2> {log:q}"
