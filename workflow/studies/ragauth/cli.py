"""Command-line steps of RAGAuth: building and loading the question file,
prior scores, rank and answer cells, and the report."""

from __future__ import annotations

import json
import logging

from authbench.errors import ConfigError, TemplateError
from authbench.records import mkparent, read_jsonl, write_jsonl, write_tsv

log = logging.getLogger("authbench")


def cmd_dataset(args, params) -> None:
    from authbench.studies.ragauth.dataset import dataset_report, load_ragauth

    questions = load_ragauth(args.source, params.get("topics"))
    mkparent(args.out, args.report)
    write_jsonl(questions, args.out, seal=True)
    write_tsv(dataset_report(questions, params["k"]), args.report, ["what", "count"])
    log.info("%d RAGAuth questions, %d documents", len(questions), sum(len(q["documents"]) for q in questions))


def cmd_domains(args, params) -> None:
    from authbench.studies.ragauth.build import write_domain_list

    mkparent(args.out)
    log.info("%d distinct domains", len(write_domain_list(args.documents, args.out)))


def cmd_build(args, params) -> None:
    from authbench.studies.ragauth.build import build_ragauth, write_build_drops, write_ragauth

    records, drops, report = build_ragauth(args.questions, args.documents, args.labels or None,
                                           params["max_docs"])
    mkparent(args.out, args.drops)
    write_ragauth(records, args.out)
    write_build_drops(drops, len(records), args.drops)
    log.info("built %d questions: %s", len(records), json.dumps(report, sort_keys=True, default=str))


def cmd_prior(args, params) -> None:
    from authbench.studies.ragauth.requests import prior_scores

    mkparent(args.out)
    write_jsonl(prior_scores(read_jsonl(args.questions), params["strategy"], params.get("tld_prior")), args.out)


def _setup(args, params):
    """The cell's template (checked against its strategy), questions, tokenizer
    and the context limit prompts must fit."""
    from authbench.llm.engines.tokenize import load_tokenizer
    from authbench.studies.ragauth.requests import load_rag_template

    template = load_rag_template(args.template)
    if template.strategy != params["stage"]:
        raise TemplateError(f"{args.template}: is the {template.strategy} prompt, the cell needs {params['stage']}")
    model_cfg = params["model"]
    n_ctx = model_cfg["n_ctx"]
    return template, read_jsonl(args.questions), load_tokenizer(model_cfg, args.model_file), n_ctx


def cmd_rank(args, params) -> None:
    """Its requests: :func:`authbench.studies.ragauth.kinds.rank_job`, as the plan counts them."""
    from authbench.cells import CellStep
    from authbench.studies.ragauth.kinds import rank_job
    from authbench.studies.ragauth.requests import judged_scores

    template, questions, tokenizer, n_ctx = _setup(args, params)
    requests, counts = rank_job(params, {"questions": questions, "template": template, "tokenizer": tokenizer,
                                         "n_ctx": n_ctx})
    record = CellStep.from_args(args, params).run_cell(
        requests, inputs={"questions": (args.questions, {"n": len(questions)})},
        extra={"strategy": params["strategy"], "doc_tokens": params["doc_tokens"], "tokenizer": tokenizer.name,
               **counts})
    scores = [{"qid": r["request_id"], "scores": judged_scores(j["value"], r["n"]), "status": j["status"]}
              for r, j in zip(requests, record.judgments)]
    mkparent(args.scores)
    write_jsonl(scores, args.scores)


def cmd_answer(args, params) -> None:
    """Its requests: :func:`authbench.studies.ragauth.kinds.answer_job`, as the plan counts them."""
    from authbench.cells import CellStep
    from authbench.studies.ragauth.kinds import answer_job
    from authbench.studies.ragauth.requests import answer_row

    template, questions, tokenizer, n_ctx = _setup(args, params)
    requests, kept, counts = answer_job(params, {"questions": questions, "template": template, "scores": args.scores,
                                                 "tokenizer": tokenizer, "n_ctx": n_ctx})
    inputs = {"questions": (args.questions, {"n": len(questions)})}
    if args.scores:
        inputs["scores"] = (args.scores, {})
    CellStep.from_args(args, params).run_cell(
        requests, inputs=inputs,
        parse=lambda asked, replies: [answer_row(q, r.text, kept[q["qid"]]) for q, r in zip(questions, replies)],
        extra=lambda judgments: {"strategy": params["strategy"], "k": params["k"], "doc_tokens": params["doc_tokens"],
                                 "tokenizer": tokenizer.name,
                                 "accuracy": sum(j["correct"] for j in judgments) / len(judgments), **counts})


def cmd_report(args, params) -> None:
    from authbench.stats import IntervalSpec
    from authbench.studies.ragauth.outputs import write_rag_report

    if len(params["cells"]) != len(args.judgments):
        raise ConfigError(f"ragauth-report: {len(params['cells'])} cell names for {len(args.judgments)} judgment files")
    cells = [((m, s, str(k)), read_jsonl(path)) for (m, s, k), path in zip(params["cells"], args.judgments)]
    write_rag_report(cells, IntervalSpec.from_config(params), args.outdir, params["intervals"]["show"],
                     params.get("scorecard"))


COMMANDS = {
    "ragauth-domains": (cmd_domains, ["documents", "out"]),
    "ragauth-build": (cmd_build, ["questions", "documents", "labels?", "out", "drops"]),
    "ragauth-dataset": (cmd_dataset, ["source", "out", "report"]),
    "ragauth-prior": (cmd_prior, ["questions", "out"]),
    "ragauth-rank": (cmd_rank, ["questions", "template", "model_file?", "responses", "samples", "judgments", "scores",
                                "manifest", "threads?"]),
    "ragauth-answer": (cmd_answer, ["questions", "scores?", "template", "model_file?", "responses", "samples",
                                    "judgments", "manifest", "threads?"]),
    "ragauth-report": (cmd_report, ["judgments+", "outdir"]),
}
