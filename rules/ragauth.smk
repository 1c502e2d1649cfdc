# RAGAuth (AuthorityBench 3.2.2, 4.4, Table 5): questions with retrieved
# documents -> a score per document per strategy -> top-k -> a yes/no answer
# per question -> accuracy. A rank cell (model x scoring strategy) and an
# answer cell (model x strategy x k) are jobs like the judge cells: same
# engines, cache and manifests. Only present when RAGAuth runs: when its
# file exists, or is built from own data (authbench.studies.ragauth.cell_list.rag_cells; else
# RAGAuth is left out of `all`, with a note).
from authbench.studies.ragauth.cell_list import rag_cells

RA = P.study("ragauth")
RAG = rag_cells(config, os.path.exists)
if RAG.note:
    logger.info(RAG.note)


include: "inputs/ragauth.smk"


if RAG.built:

    localrules:
        ragauth_domains,

    # Your own questions and documents -> a RAGAuth file. PageRank labels come
    # from ragauth.build.labels, e.g. the fetch_pagerank rule's output for the
    # domain list written by ragauth_domains (examples/own_rag.yaml).
    rule ragauth_domains:
        input:
            config["ragauth"]["build"]["documents"],
        output:
            f"{RA}/build/domains.txt",
        log:
            f"{LOGS}/ragauth/domains.log",
        conda:
            "../envs/analysis.yaml"
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli ragauth-domains --documents {input:q} --out {output:q} 2> {log:q}"

    rule ragauth_build:
        input:
            questions=config["ragauth"]["build"]["questions"],
            documents=config["ragauth"]["build"]["documents"],
            labels=get_rag_build_labels,
        output:
            dataset=rag_layout.built(P),
            drops=f"{RA}/build/drops.tsv",
        log:
            f"{LOGS}/ragauth/build.log",
        priority: MODEL_PRIORITY
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_rag_build_params,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli ragauth-build --questions {input.questions:q} --documents {input.documents:q} "
            "--labels {input.labels:q} --out {output.dataset:q} --drops {output.drops:q} --params {params.p:q} 2> {log:q}"


if RAG.cells:

    rule ragauth_dataset:
        input:
            RAG.source,
        output:
            questions=rag_layout.questions(P),
            report=rag_layout.dataset(P),
        log:
            f"{LOGS}/ragauth/dataset.log",
        priority: MODEL_PRIORITY
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_rag_dataset_params,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli ragauth-dataset --source {input:q} --out {output.questions:q} "
            "--report {output.report:q} --params {params.p:q} 2> {log:q}"

    rule ragauth_prior:
        input:
            rag_layout.questions(P),
        output:
            rag_layout.prior(P, "{strategy}"),
        log:
            f"{LOGS}/ragauth/prior_{{strategy}}.log",
        wildcard_constraints:
            strategy="pagerank_oracle|tld_prior",
        priority: MODEL_PRIORITY
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_rag_prior_params,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli ragauth-prior --questions {input:q} --out {output:q} --params {params.p:q} 2> {log:q}"

    RANK = JOB_KINDS["ragauth_rank"]  # authbench.studies.ragauth.kinds: outputs, inputs, params
    ANSWER = JOB_KINDS["ragauth_answer"]

    rule ragauth_rank:
        input:
            unpack(RANK.input_function(config)),
            model=get_model_file,
        output:
            **RANK.outputs(P),
        log:
            f"{LOGS}/ragauth/rank/{{model}}/{{strategy}}.log",
        wildcard_constraints:
            strategy="relevance|utility|authority",
        priority: MODEL_PRIORITY
        retries: MODEL_RETRIES
        conda:
            model_env
        threads: model_threads
        resources:
            **MODEL_RESOURCES,
        params:
            p=RANK.params_function(config),
            model_arg=model_file_arg,
            python=model_python,
        shell:
            "{params.python} -m authbench.cli ragauth-rank --questions {input.questions:q} --template {input.template:q} "
            "{params.model_arg} --responses {output.responses:q} "
            "--samples {output.samples:q} --judgments {output.judgments:q} "
            "--scores {output.scores:q} --manifest {output.manifest:q} --threads {threads} --params {params.p:q} 2> {log:q}"

    rule ragauth_answer:
        input:
            unpack(ANSWER.input_function(config)),
            model=get_model_file,
        output:
            **ANSWER.outputs(P),
        log:
            f"{LOGS}/ragauth/answer/{{model}}/{{strategy}}/{{topk}}.log",
        priority: MODEL_PRIORITY
        retries: MODEL_RETRIES
        conda:
            model_env
        threads: model_threads
        resources:
            **MODEL_RESOURCES,
        params:
            p=ANSWER.params_function(config),
            model_arg=model_file_arg,
            python=model_python,
            scores_arg=rag_scores_arg,
        shell:
            "{params.python} -m authbench.cli ragauth-answer --questions {input.questions:q} {params.scores_arg} "
            "--template {input.template:q} {params.model_arg} --responses {output.responses:q} --samples {output.samples:q} "
            "--judgments {output.judgments:q} --manifest {output.manifest:q} --threads {threads} "
            "--params {params.p:q} 2> {log:q}"

    rule ragauth_report:
        input:
            ANSWER.files_of(P, config, "judgments"),
        output:
            reported(report_outputs(RAGAUTH, f"{RA}/report"), "RAGAuth"),
        log:
            f"{LOGS}/ragauth/report.log",
        conda:
            "../envs/analysis.yaml"
        params:
            p=get_rag_report_params,
            outdir=outdir,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli ragauth-report --judgments {input:q} --outdir {params.outdir:q} "
            "--params {params.p:q} 2> {log:q}"
