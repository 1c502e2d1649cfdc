# The toy study's rules: its judge job (study.py's JUDGE: outputs, inputs and params) and its report.
if "toy" in STUDIES:
    TOY_JUDGE = JOB_KINDS["toy_judge"]

    rule toy_judge:
        input:
            unpack(TOY_JUDGE.input_function(config)),
            model=get_model_file,
        output:
            **TOY_JUDGE.outputs(P),
        log:
            f"{LOGS}/toy/{{model}}.log",
        threads: model_threads
        params:
            p=TOY_JUDGE.params_function(config),
            model_arg=model_file_arg,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli toy-judge --template {input.template:q} {params.model_arg} "
            "--responses {output.responses:q} --samples {output.samples:q} --judgments {output.judgments:q} "
            "--manifest {output.manifest:q} --threads {threads} --params {params.p:q} 2> {log:q}"

    rule toy_report:
        input:
            TOY_JUDGE.files_of(P, config, "judgments"),
        output:
            reported(report_outputs(REPORTS["Toy"], P.report("toy")), "Toy"),
        log:
            f"{LOGS}/toy/report.log",
        params:
            p=_json(RULE_PARAMS["toy_report"](config)),
            outdir=outdir,
        shell:
            "$AUTHBENCH_PYTHON -m authbench.cli toy-report --judgments {input:q} --outdir {params.outdir:q} "
            "--params {params.p:q} 2> {log:q}"
