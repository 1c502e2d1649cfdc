# The toy study's rules: one parity cell per model, and its report.
if "toy" in STUDIES:
    TOY_CELL = P.cell("toy", "{model}", "parity")
    TOY_PROMPT = config["toy"].get("prompt") or os.path.join(str(workflow.current_basedir), "prompt.yaml")

    rule toy_judge:
        input:
            template=TOY_PROMPT,
            model=get_model_file,
        output:
            responses=f"{TOY_CELL}/responses.jsonl",
            samples=f"{TOY_CELL}/samples.parquet",
            judgments=f"{TOY_CELL}/judgments.jsonl",
            manifest=f"{TOY_CELL}/manifest.json",
        log:
            f"{LOGS}/toy/{{model}}.log",
        threads: model_threads
        params:
            p=lambda wildcards: _json(
                {
                    "cell": f"toy/{wildcards.model}/parity",
                    "numbers": config["toy"]["numbers"],
                    "model": _model_params(wildcards),
                    "cache": config.get("cache"),
                    "constrained": config["constrained_decoding"],
                }
            ),
            model_arg=model_file_arg,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli toy-judge --template {input.template} {params.model_arg} "
            "--responses {output.responses} --samples {output.samples} --judgments {output.judgments} "
            "--manifest {output.manifest} --threads {threads} --params {params.p:q} 2> {log}"

    rule toy_report:
        input:
            expand(f"{TOY_CELL}/judgments.jsonl", model=list(MODELS)),
        output:
            reported(report_outputs(REPORTS["Toy"], P.report("toy")), "Toy"),
        log:
            f"{LOGS}/toy/report.log",
        params:
            p=_json(
                {
                    "models": list(MODELS),
                    "intervals": config["intervals"],
                    "seed": config["seed"],
                    "scorecard": coverage_params(config, "toy"),
                }
            ),
            outdir=outdir,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli toy-report --judgments {input} --outdir {params.outdir} "
            "--params {params.p:q} 2> {log}"
