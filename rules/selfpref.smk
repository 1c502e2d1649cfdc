# The RAG self-preference study (Chen et al.): released passage sets (+ passages
# written by configured models) -> a seeded question sample -> knowledge probes,
# perplexity, pointwise reranking and pairwise generation cells per evaluator
# -> Tables 1-9, Figure 3. Cells use the same engines, cache and manifests as
# the judge cells. Present only when `selfpref` is in `studies`.
from authbench.studies.selfpref.data import AUTHORS_ENV
from authbench.studies.selfpref.grid import selfpref_plan

SELFPREF = selfpref_plan(config)
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

    KNOWLEDGE = sp_cell("{spds}", "{model}", "knowledge")
    RERANK = sp_cell("{spds}", "{model}", "rerank", "{prompt}")
    GENERATION = sp_cell("{spds}", "{model}", "generation", "{run}")

    rule selfpref_import:
        input:
            sp_sources,
        output:
            questions=P.selfpref_questions("{spds}"),
            passages=P.selfpref_imported("{spds}"),
            drops=f"{SP}/drops.tsv",
        log:
            f"{LOGS}/selfpref/{{spds}}/import.log",
        priority: MODEL_PRIORITY
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_sp_import_params,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli selfpref-import --questions {output.questions} --passages {output.passages} "
            "--drops {output.drops} --params {params.p:q} 2> {log}"

    rule selfpref_generate:
        input:
            questions=P.selfpref_questions("{spds}"),
            passages=P.selfpref_imported("{spds}"),
            templates=get_sp_generate_templates,
            model=get_model_file,
        output:
            responses=f"{SP}/generated/{{model}}/responses.jsonl",
            samples=f"{SP}/generated/{{model}}/samples.parquet",
            judgments=f"{SP}/generated/{{model}}/judgments.jsonl",
            manifest=f"{SP}/generated/{{model}}/manifest.json",
            passages=f"{SP}/generated/{{model}}/passages.jsonl",
            drops=f"{SP}/generated/{{model}}/drops.tsv",
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
            p=get_sp_generate_params,
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-generate --questions {input.questions} --passages {input.passages} "
            "--template {input.templates} {params.model_arg} --responses {output.responses} --samples {output.samples} "
            "--judgments {output.judgments} --manifest {output.manifest} --out {output.passages} "
            "--drops {output.drops} --threads {threads} --params {params.p:q} 2> {log}"

    rule selfpref_sample:
        input:
            passages=P.selfpref_imported("{spds}"),
            generated=expand(f"{SP}/generated/{{model}}/passages.jsonl", model=SELFPREF.generators, allow_missing=True),
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
            "$AUTHBENCH_PYTHON -m authbench.cli selfpref-sample --passages {input.passages} --generated {input.generated} "
            "--sample {output.sample} --out {output.passages} --params {params.p:q} 2> {log}"

    rule selfpref_shipped_knowledge:
        input:
            source=get_sp_shipped_knowledge,
            questions=P.selfpref_questions("{spds}"),
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
            "$AUTHBENCH_PYTHON -m authbench.cli selfpref-shipped-knowledge --source {input.source} --questions {input.questions} "
            "--levels {output.levels} --check {output.check} --params {params.p:q} 2> {log}"

    rule selfpref_knowledge:
        input:
            questions=P.selfpref_questions("{spds}"),
            sample=f"{SP}/sample.json",
            template=f"{PROMPTS}/selfpref/knowledge.yaml",
            model=get_model_file,
        output:
            responses=f"{KNOWLEDGE}/responses.jsonl",
            samples=f"{KNOWLEDGE}/samples.parquet",
            judgments=f"{KNOWLEDGE}/judgments.jsonl",
            manifest=f"{KNOWLEDGE}/manifest.json",
            levels=f"{KNOWLEDGE}/levels.jsonl",
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
            p=get_sp_knowledge_params,
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-knowledge --questions {input.questions} --sample {input.sample} "
            "--template {input.template} {params.model_arg} --responses {output.responses} --samples {output.samples} "
            "--judgments {output.judgments} --manifest {output.manifest} --levels {output.levels} "
            "--threads {threads} --params {params.p:q} 2> {log}"

    rule selfpref_perplexity:
        input:
            passages=f"{SP}/passages.jsonl",
            sample=f"{SP}/sample.json",
            model=get_model_file,
        output:
            scores=f"{SP}/perplexity/{{model}}/perplexity.jsonl",
            manifest=f"{SP}/perplexity/{{model}}/manifest.json",
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
            p=get_sp_perplexity_params,
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-perplexity --passages {input.passages} --sample {input.sample} "
            "{params.model_arg} "
            "--out {output.scores} --manifest {output.manifest} --params {params.p:q} 2> {log}"

    rule selfpref_rerank:
        input:
            questions=P.selfpref_questions("{spds}"),
            sample=f"{SP}/sample.json",
            passages=f"{SP}/passages.jsonl",
            template=f"{PROMPTS}/selfpref/rerank_{{prompt}}.yaml",
            model=get_model_file,
        output:
            responses=f"{RERANK}/responses.jsonl",
            samples=f"{RERANK}/samples.parquet",
            judgments=f"{RERANK}/judgments.jsonl",
            manifest=f"{RERANK}/manifest.json",
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
            p=get_sp_rerank_params,
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-rerank --questions {input.questions} --sample {input.sample} "
            "--passages {input.passages} --template {input.template} {params.model_arg} "
            "--responses {output.responses} "
            "--samples {output.samples} --judgments {output.judgments} --manifest {output.manifest} "
            "--threads {threads} --params {params.p:q} 2> {log}"

    rule selfpref_compare:
        input:
            questions=P.selfpref_questions("{spds}"),
            sample=f"{SP}/sample.json",
            passages=f"{SP}/passages.jsonl",
            knowledge=f"{KNOWLEDGE}/levels.jsonl",
            template=f"{PROMPTS}/selfpref/generation.yaml",
            model=get_model_file,
        output:
            responses=f"{GENERATION}/responses.jsonl",
            samples=f"{GENERATION}/samples.parquet",
            judgments=f"{GENERATION}/judgments.jsonl",
            manifest=f"{GENERATION}/manifest.json",
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
            p=get_sp_compare_params,
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli selfpref-compare --questions {input.questions} --sample {input.sample} "
            "--passages {input.passages} --knowledge {input.knowledge} --template {input.template} "
            "{params.model_arg} --responses {output.responses} "
            "--samples {output.samples} --judgments {output.judgments} "
            "--manifest {output.manifest} --threads {threads} --params {params.p:q} 2> {log}"

    rule selfpref_report:
        input:
            rerank=expand(
                f"{RERANK}/judgments.jsonl", model=SELFPREF.evaluators, prompt=SELFPREF_PROMPTS, allow_missing=True
            ),
            generation=expand(
                f"{GENERATION}/judgments.jsonl", model=SELFPREF.evaluators, run=SELFPREF_RUNS, allow_missing=True
            ),
            knowledge=get_sp_knowledge_levels,
            perplexity=expand(
                f"{SP}/perplexity/{{model}}/perplexity.jsonl",
                model=[SELFPREF.perplexity_model] if SELFPREF.perplexity_model else [],
                allow_missing=True,
            ),
            passages=f"{SP}/passages.jsonl",
            sample=f"{SP}/sample.json",
            questions=P.selfpref_questions("{spds}"),
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
            "$AUTHBENCH_PYTHON -m authbench.cli selfpref-report --rerank {input.rerank} --generation {input.generation} "
            "--knowledge {input.knowledge} --perplexity {input.perplexity} --passages {input.passages} --sample {input.sample} "
            "--questions {input.questions} --released-perplexity {input.released_perplexity} --outdir {params.outdir} "
            "--built {output.built} --params {params.p:q} 2> {log}"

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
                "$AUTHBENCH_PYTHON -m authbench.cli selfpref-datasets-report --built {input.built} "
                "--keyed {input.keyed} --outdir {params.outdir} --params {params.p:q} 2> {log}"
