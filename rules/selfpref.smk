# The RAG self-preference study (Chen et al.): released passage sets (+ passages
# written by configured models) -> a seeded question sample -> knowledge probes,
# perplexity, pointwise reranking and pairwise generation cells per evaluator
# -> Tables 1-9, Figure 3. Cells use the same engines, cache and manifests as
# the judge cells. Present only when `selfpref` is in `benchmarks`.
SP = f"{R}/selfpref/{{spds}}"
SP_PROMPTS = f"{PROMPTS}/selfpref"


def sp_config(wildcards):
    return config["selfpref"]["datasets"][wildcards.spds]


def sp_params(wildcards, **extra):
    return _json({"dataset": wildcards.spds, "seed": config["seed"], "cache": config.get("cache"),
                  "constrained": config["constrained_decoding"], **extra})


def sp_cell_params(wildcards, cell, **extra):
    return sp_params(wildcards, cell=f"selfpref/{wildcards.spds}/{wildcards.model}/{cell}",
                     model=_model_params(wildcards), **extra)


if SELFPREF.datasets:

    wildcard_constraints:
        spds="|".join(SELFPREF.datasets),
        prompt="normal|rag",
        run="main|style",

    rule selfpref_import:
        input:
            lambda wildcards: [s["file"] for s in sp_config(wildcards)["sources"]],
        output:
            questions=f"{SP}/questions.jsonl",
            passages=f"{SP}/imported.jsonl",
            drops=f"{SP}/drops.tsv",
        log:
            "logs/selfpref/{spds}/import.log",
        params:
            p=lambda wildcards: sp_params(wildcards, sources=sp_config(wildcards)["sources"]),
        shell:
            "python -m authbench.cli selfpref-import --questions {output.questions} --passages {output.passages} "
            "--drops {output.drops} --params {params.p:q} 2> {log}"

    rule selfpref_generate:
        input:
            questions=f"{SP}/questions.jsonl",
            passages=f"{SP}/imported.jsonl",
            templates=lambda wildcards: [f"{SP_PROMPTS}/{k}.yaml" for k in config["selfpref"]["generate"]["kinds"]],
            model=get_model_file,
        output:
            responses=f"{SP}/generated/{{model}}/responses.jsonl",
            judgments=f"{SP}/generated/{{model}}/judgments.jsonl",
            manifest=f"{SP}/generated/{{model}}/manifest.json",
            passages=f"{SP}/generated/{{model}}/passages.jsonl",
            drops=f"{SP}/generated/{{model}}/drops.tsv",
        log:
            "logs/selfpref/{spds}/generate_{model}.log",
        params:
            p=lambda wildcards: sp_cell_params(wildcards, "generate", author=wildcards.model,
                                               **{k: config["selfpref"]["generate"][k] for k in ("items", "kinds", "generate")}),
            model_arg=model_file_arg,
        threads: model_threads
        resources:
            mem_mb=model_mem_mb,
            runtime=model_runtime,
            gpu=model_gpus,
        shell:
            "python -m authbench.cli selfpref-generate --questions {input.questions} --passages {input.passages} "
            "--template {input.templates} {params.model_arg} --responses {output.responses} "
            "--judgments {output.judgments} --manifest {output.manifest} --out {output.passages} "
            "--drops {output.drops} --threads {threads} --params {params.p:q} 2> {log}"

    rule selfpref_sample:
        input:
            passages=f"{SP}/imported.jsonl",
            generated=expand(f"{SP}/generated/{{model}}/passages.jsonl", model=SELFPREF.generators, allow_missing=True),
        output:
            sample=f"{SP}/sample.json",
            passages=f"{SP}/passages.jsonl",
        log:
            "logs/selfpref/{spds}/sample.log",
        params:
            p=lambda wildcards: sp_params(wildcards, authors=config["selfpref"]["authors"],
                                          items=config["selfpref"]["items"], style_items=config["selfpref"]["style_items"]),
        shell:
            "python -m authbench.cli selfpref-sample --passages {input.passages} --generated {input.generated} "
            "--sample {output.sample} --out {output.passages} --params {params.p:q} 2> {log}"

    rule selfpref_shipped_knowledge:
        input:
            source=lambda wildcards: sp_config(wildcards)["knowledge"][wildcards.author],
            questions=f"{SP}/questions.jsonl",
        output:
            levels=f"{SP}/knowledge/{{author}}.jsonl",
            check=f"{SP}/knowledge/{{author}}_check.tsv",
        log:
            "logs/selfpref/{spds}/knowledge_{author}.log",
        shell:
            "python -m authbench.cli selfpref-shipped-knowledge --source {input.source} --questions {input.questions} "
            "--levels {output.levels} --check {output.check} 2> {log}"

    rule selfpref_knowledge:
        input:
            questions=f"{SP}/questions.jsonl",
            sample=f"{SP}/sample.json",
            template=f"{SP_PROMPTS}/knowledge.yaml",
            model=get_model_file,
        output:
            responses=f"{SP}/cells/{{model}}/knowledge/responses.jsonl",
            judgments=f"{SP}/cells/{{model}}/knowledge/judgments.jsonl",
            manifest=f"{SP}/cells/{{model}}/knowledge/manifest.json",
            levels=f"{SP}/cells/{{model}}/knowledge/levels.jsonl",
        log:
            "logs/selfpref/{spds}/{model}/knowledge.log",
        params:
            p=lambda wildcards: sp_cell_params(wildcards, "knowledge", **config["selfpref"]["knowledge"]),
            model_arg=model_file_arg,
        threads: model_threads
        resources:
            mem_mb=model_mem_mb,
            runtime=model_runtime,
            gpu=model_gpus,
        shell:
            "python -m authbench.cli selfpref-knowledge --questions {input.questions} --sample {input.sample} "
            "--template {input.template} {params.model_arg} --responses {output.responses} "
            "--judgments {output.judgments} --manifest {output.manifest} --levels {output.levels} "
            "--threads {threads} --params {params.p:q} 2> {log}"

    rule selfpref_perplexity:
        input:
            passages=f"{SP}/passages.jsonl",
            model=get_model_file,
        output:
            scores=f"{SP}/perplexity/{{model}}/perplexity.jsonl",
            manifest=f"{SP}/perplexity/{{model}}/manifest.json",
        log:
            "logs/selfpref/{spds}/perplexity_{model}.log",
        params:
            p=lambda wildcards: sp_cell_params(wildcards, "perplexity"),
            model_arg=model_file_arg,
        threads: model_threads
        resources:
            mem_mb=model_mem_mb,
            runtime=model_runtime,
            gpu=model_gpus,
        shell:
            "python -m authbench.cli selfpref-perplexity --passages {input.passages} {params.model_arg} "
            "--out {output.scores} --manifest {output.manifest} --params {params.p:q} 2> {log}"

    rule selfpref_rerank:
        input:
            questions=f"{SP}/questions.jsonl",
            sample=f"{SP}/sample.json",
            passages=f"{SP}/passages.jsonl",
            template=f"{SP_PROMPTS}/rerank_{{prompt}}.yaml",
            model=get_model_file,
        output:
            responses=f"{SP}/cells/{{model}}/rerank/{{prompt}}/responses.jsonl",
            judgments=f"{SP}/cells/{{model}}/rerank/{{prompt}}/judgments.jsonl",
            manifest=f"{SP}/cells/{{model}}/rerank/{{prompt}}/manifest.json",
        log:
            "logs/selfpref/{spds}/{model}/rerank_{prompt}.log",
        params:
            p=lambda wildcards: sp_cell_params(wildcards, f"rerank/{wildcards.prompt}", prompt=wildcards.prompt,
                                               evaluator=wildcards.model),
            model_arg=model_file_arg,
        threads: model_threads
        resources:
            mem_mb=model_mem_mb,
            runtime=model_runtime,
            gpu=model_gpus,
        shell:
            "python -m authbench.cli selfpref-rerank --questions {input.questions} --sample {input.sample} "
            "--passages {input.passages} --template {input.template} {params.model_arg} "
            "--responses {output.responses} --judgments {output.judgments} --manifest {output.manifest} "
            "--threads {threads} --params {params.p:q} 2> {log}"

    rule selfpref_compare:
        input:
            questions=f"{SP}/questions.jsonl",
            sample=f"{SP}/sample.json",
            passages=f"{SP}/passages.jsonl",
            knowledge=f"{SP}/cells/{{model}}/knowledge/levels.jsonl",
            template=f"{SP_PROMPTS}/generation.yaml",
            model=get_model_file,
        output:
            responses=f"{SP}/cells/{{model}}/generation/{{run}}/responses.jsonl",
            judgments=f"{SP}/cells/{{model}}/generation/{{run}}/judgments.jsonl",
            manifest=f"{SP}/cells/{{model}}/generation/{{run}}/manifest.json",
        log:
            "logs/selfpref/{spds}/{model}/generation_{run}.log",
        params:
            p=lambda wildcards: sp_cell_params(
                wildcards, f"generation/{wildcards.run}", run=wildcards.run, evaluator=wildcards.model,
                self_author=config["selfpref"]["self"][wildcards.model],
                others=[a for a in config["selfpref"]["authors"] if a != config["selfpref"]["self"][wildcards.model]],
                generate=config["selfpref"]["compare"]["generate"]),
            model_arg=model_file_arg,
        threads: model_threads
        resources:
            mem_mb=model_mem_mb,
            runtime=model_runtime,
            gpu=model_gpus,
        shell:
            "python -m authbench.cli selfpref-compare --questions {input.questions} --sample {input.sample} "
            "--passages {input.passages} --knowledge {input.knowledge} --template {input.template} "
            "{params.model_arg} --responses {output.responses} --judgments {output.judgments} "
            "--manifest {output.manifest} --threads {threads} --params {params.p:q} 2> {log}"

    rule report_selfpref:
        input:
            rerank=expand(f"{SP}/cells/{{model}}/rerank/{{prompt}}/judgments.jsonl", model=SELFPREF.evaluators,
                          prompt=["normal", "rag"], allow_missing=True),
            generation=expand(f"{SP}/cells/{{model}}/generation/{{run}}/judgments.jsonl", model=SELFPREF.evaluators,
                              run=["main", "style"], allow_missing=True),
            knowledge=get_selfpref_knowledge,
            perplexity=expand(f"{SP}/perplexity/{{model}}/perplexity.jsonl",
                              model=[SELFPREF.perplexity_model] if SELFPREF.perplexity_model else [], allow_missing=True),
            passages=f"{SP}/passages.jsonl",
        output:
            reported(selfpref_report_outputs("{spds}"), "Self-preference"),
        log:
            "logs/selfpref/{spds}/report.log",
        params:
            p=lambda wildcards: _json({"dataset": wildcards.spds, "perplexity_model": SELFPREF.perplexity_model,
                                       "self": {m: config["selfpref"]["self"][m] for m in SELFPREF.evaluators},
                                       "knowledge_authors": selfpref_knowledge_authors(wildcards.spds)}),
            outdir=f"{SP}/report",
        shell:
            "python -m authbench.cli selfpref-report --rerank {input.rerank} --generation {input.generation} "
            "--knowledge {input.knowledge} --perplexity {input.perplexity} --passages {input.passages} "
            "--outdir {params.outdir} --params {params.p:q} 2> {log}"
