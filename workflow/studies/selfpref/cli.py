"""Command-line steps of the self-preference study (``selfpref-*``)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from authbench.errors import InputError
from authbench.records import mkparent, read_jsonl, write_jsonl, write_text, write_tsv

log = logging.getLogger("authbench")


def index(rows, key: str = "pid") -> dict:
    """Rows by their ``key`` (a passage's ``pid``, a question's ``qid``)."""
    return {r[key]: r for r in rows}


def cmd_import(args, params) -> None:
    """Released files -> questions.jsonl, imported.jsonl (passages), drops.tsv."""
    from authbench.studies.selfpref.data import AUTHORS_ENV, drop_rows, import_sources

    authors = json.loads(os.environ.get(AUTHORS_ENV) or "[]")
    questions, passages, drops = import_sources(params["dataset"], params["sources"], authors)
    mkparent(args.questions, args.passages, args.drops)
    write_jsonl(questions, args.questions, seal=True)
    write_jsonl(passages, args.passages, seal=True)
    authors = sorted({p["author"] for p in passages} | {a for _, a in drops})
    write_tsv(drop_rows(drops, authors), args.drops, ["reason", "author", "count"])
    log.info("%d questions, %d passages; drops %s", len(questions), len(passages), dict(drops))


def cmd_sample(args, params) -> None:
    """The seeded question sample of the demo/paper counts, and every passage
    (imported and generated) of those questions."""
    from authbench.studies.selfpref.data import sample_questions

    sample, passages = sample_questions(read_jsonl(args.passages), [p for path in args.generated for p in read_jsonl(path)],
                                        params["authors"], params["items"], params["style_items"], params["seed"],
                                        params["dataset"], args.passages)
    main, style = sample["main"], sample["style"]
    mkparent(args.sample, args.out)
    write_text(args.sample, json.dumps(sample, indent=2) + "\n")
    write_jsonl(passages, args.out)
    log.info("sample: %d main, %d style questions, %d passages", len(main), len(style), len(passages))


def cmd_generate(args, params) -> None:
    """A configured model writes passages (Appendix B.1) for the first
    ``items`` questions of the dataset that have a human normal TRUE passage
    (before the sample is drawn: its passages count for the sample's
    completeness, and the sample step keeps them). Its requests:
    :func:`authbench.studies.selfpref.kinds.generate_job`, as the plan counts them."""
    from authbench.cells import CellStep
    from authbench.studies.selfpref.kinds import GENERATE, generate_job
    from authbench.studies.selfpref.requests import generated_passages

    requests, chosen = generate_job(params, {"questions": args.questions, "passages": args.passages,
                                             "templates": args.template})
    step = CellStep.from_args(args, params)
    run = step.run(requests, generate=params["generate"], constrained=GENERATE.constrained)
    passages, answers, drops = generated_passages(params["author"], chosen, requests, [r.text for r in run.responses])
    judgments = [{"request_id": r["request_id"], "status": "ok" if resp.text.strip() else "empty"}
                 for r, resp in zip(requests, run.responses)]
    mkparent(args.out, args.drops)
    write_jsonl(passages, args.out)
    write_tsv([{"reason": k, "count": v} for k, v in sorted(drops.items())]
              + [{"reason": "kept_passages", "count": len(passages)},
                 {"reason": "false_answers", "count": len(answers)}], args.drops, ["reason", "count"])
    step.write(run, judgments, {"questions": (args.questions, {"n": len(chosen)})},
               {"author": params["author"], "drops": drops, "passages": len(passages)})


def cmd_knowledge(args, params) -> None:
    """Each sampled question asked ``tries`` times at temperature > 0 (seed + try). Its requests:
    :func:`authbench.studies.selfpref.kinds.knowledge_job`, as the plan counts them."""
    from authbench.cells import CellStep
    from authbench.llm.runs import joined
    from authbench.studies.selfpref.kinds import KNOWLEDGE, knowledge_job
    from authbench.studies.selfpref.requests import knowledge_grades, knowledge_rows

    requests, questions = knowledge_job(params, _job_inputs(args, KNOWLEDGE))
    step = CellStep.from_args(args, params)
    runs = step.run_tries(requests, params["tries"], params["generate"], constrained=KNOWLEDGE.constrained)
    tries, levels = knowledge_rows(questions, [[r.text for r in run.responses] for run in runs],
                                   params["match"])
    mkparent(args.levels)
    write_jsonl(levels, args.levels)
    run = joined(runs)
    step.write(run, tries, {"questions": (args.questions, {"n": len(questions)})},
               {"tries": params["tries"], "generate": {**run.generate.__dict__, "seed": "seed + try"},
                "levels": {c: sum(lv["class"] == c for lv in levels) for c in ("no", "partial", "full")}},
               knowledge_grades(questions, tries))


def cmd_shipped_knowledge(args, params) -> None:
    """A released knowledge file -> per-question levels, re-derived from its
    stored answers under ``params["match"]`` (selfpref.knowledge.match, or the
    file's own ``match``); the file's shape and its own levels and
    distribution must agree (:func:`~authbench.studies.selfpref.knowledge.released_knowledge`:
    a named error otherwise). Each question is placed on the dataset's
    question of the same position when every stored gold equals the imported
    one there (case and whitespace ignored: the later files store lower-cased
    golds); otherwise (a released run over another question list, e.g. the NQ
    Llama run) a question takes the qid of the one dataset question with its
    gold, and is kept without qid when there is none or several (counted in
    the check file: ``questions_without_qid``)."""
    from authbench.studies.selfpref.knowledge import knowledge_class, released_knowledge

    match = params["match"]
    derived = released_knowledge(args.source, match)
    questions = read_jsonl(args.questions)

    def norm(text):
        return " ".join(str(text).split()).casefold()

    golds = derived["ground_truths"]
    in_order = len(golds) <= len(questions) and all(norm(g) == norm(q["answer"]) for g, q in zip(golds, questions))
    if in_order:
        qids = [q["qid"] for q in questions[:len(golds)]]
        alignment = "position (every stored gold equals the dataset's question there)"
    else:
        by_gold: dict[str, list[str]] = {}
        for q in questions:
            by_gold.setdefault(norm(q["answer"]), []).append(q["qid"])
        qids = [by_gold[norm(g)][0] if len(by_gold.get(norm(g), [])) == 1 else None for g in golds]
        alignment = "gold (the file's questions are not the dataset's in order)"
    levels = [{"qid": qid, "index": i, "ground_truth": gold, "level": lv, "class": knowledge_class(lv)}
              for i, (qid, gold, lv) in enumerate(zip(qids, golds, derived["levels"]))]
    mkparent(args.levels, args.check)
    write_jsonl(levels, args.levels)
    write_tsv([{"what": "match", "value": match},
               {"what": "grouping", "value": derived["grouping"]["method"]},
               {"what": "questions", "value": len(derived["levels"])},
               {"what": "answer_records", "value": derived["grouping"]["records"]},
               {"what": "questions_with_extra_tries", "value": len(derived["grouping"]["extra_tries"])},
               {"what": "level_mismatches_vs_file", "value": len(derived["level_mismatches"] or [])},
               {"what": "distribution_derived", "value": json.dumps(derived["distribution"])},
               {"what": "distribution_in_file", "value": json.dumps(derived["stored_distribution"])},
               {"what": "alignment", "value": alignment},
               {"what": "questions_without_qid", "value": sum(q is None for q in qids)},
               {"what": "records_whose_stored_word_sets_equal_ours",
                "value": "NA" if derived["stored_sets_consistent"] is None else derived["stored_sets_consistent"]},
               {"what": "level_mismatches_from_stored_word_sets",
                "value": "NA" if derived["levels_from_stored_sets"] is None else
                sum(a != b for a, b in zip(derived["levels_from_stored_sets"], derived["levels"]))}],
              args.check, ["what", "value"])
    log.info("%s: %d questions re-derived (match %s), distribution %s; aligned by %s, %d without qid",
             args.source, len(levels), match, derived["distribution"], alignment, sum(q is None for q in qids))


def cmd_perplexity(args, params) -> None:
    """Each passage of Table 1 scored whole. Its texts: :func:`authbench.studies.selfpref.kinds.perplexity_job`,
    as the plan counts them."""
    from authbench.cells import CellStep
    from authbench.studies.selfpref.kinds import PERPLEXITY, perplexity_job

    texts, passages = perplexity_job(params, _job_inputs(args, PERPLEXITY))
    step = CellStep.from_args(args, params)
    rows, run = step.score(texts)
    by_id = index(passages)
    out = [{"pid": r["id"], "author": by_id[r["id"]]["author"], "variant": "normal",
            "factual": True, "tokens": r["tokens"], "perplexity": r["perplexity"]} for r in rows]
    mkparent(args.out, args.manifest)
    write_jsonl(out, args.out)
    step.write(run)


def _job_inputs(args, kind) -> dict:
    """A job kind's input files as the CLI step got them (by name)."""
    return {name: getattr(args, name) for name in kind.files}


def cmd_rerank(args, params) -> None:
    """Pointwise reranking: every normal passage of the sampled questions
    (``scope``: ``sample``, the paper's 700; ``sample_and_generated``: also
    those a configured model wrote passages for),
    retried (``retries``) while its reply has no well-formed score; FALSE
    passages per ``false_answer`` (author | evaluator, see requests.py).
    Its requests: :func:`authbench.studies.selfpref.kinds.rerank_job`, as the plan counts them."""
    from authbench.cells import CellStep, tries_summary
    from authbench.studies.selfpref.kinds import RERANK, rerank_job
    from authbench.studies.selfpref.requests import rerank_rows, rerank_settled

    prompt = params["prompt"]
    requests, passages, false_passages = rerank_job(params, _job_inputs(args, RERANK))
    extra = {"prompt": prompt}
    if false_passages:
        extra["false_passages"] = false_passages
        log.info("false passages with %s's false answer: %d made, drops %s", params["self_author"],
                 false_passages["made"], false_passages["drops"])
    retries = int(params["retries"])
    step = CellStep.from_args(args, params)
    asked = step.run_retried(requests, lambda i, text: rerank_settled(text), retries, generate=params["generate"])
    rows = rerank_rows(requests, index(passages), [r.text for r in asked.final], prompt, params["evaluator"],
                       asked.tries)
    extra["tries"] = tries_summary(asked.tries, sum(r["status"] != "ok" for r in rows), retries)
    step.write(asked.run, rows, {"passages": (args.passages, {"n": len(passages)})}, extra)


def cmd_compare(args, params) -> None:
    """The generation phase of one evaluator (main or style run), retried
    (``retries``) while a reply names no single passage. Its requests:
    :func:`authbench.studies.selfpref.kinds.compare_job`, as the plan counts them."""
    from authbench.cells import CellStep, tries_summary
    from authbench.studies.selfpref.kinds import COMPARE, compare_job
    from authbench.studies.selfpref.requests import comparison_grades, comparison_rows, comparison_settled

    requests, comps, by_pid = compare_job(params, _job_inputs(args, COMPARE))
    knowledge = {r["qid"]: r["class"] for r in read_jsonl(args.knowledge)} if args.knowledge else None
    retries = int(params["retries"])
    step = CellStep.from_args(args, params)
    asked = step.run_retried(requests, lambda i, text: comparison_settled(comps[i], by_pid, text), retries,
                             generate=params["generate"], constrained=COMPARE.constrained)
    rows = comparison_rows(comps, requests, by_pid, [r.text for r in asked.final], params["evaluator"], knowledge,
                           asked.tries)
    step.write(asked.run, rows, {"passages": (args.passages, {"n": len(by_pid)})},
               {"run": params["run"], "self_author": params["self_author"],
                "tries": tries_summary(asked.tries, sum(r["status"] != "ok" for r in rows), retries)},
               comparison_grades(rows))


def cmd_report(args, params) -> None:
    from authbench.stats import IntervalSpec
    from authbench.studies.selfpref.data import scoped_questions
    from authbench.studies.selfpref.released import read_released_perplexity
    from authbench.studies.selfpref.report import write_selfpref_report

    rerank = [r for path in args.rerank for r in read_jsonl(path)]
    gen = [r for path in args.generation for r in read_jsonl(path)]
    knowledge = {author: read_jsonl(path) for author, path in zip(params["knowledge_authors"], args.knowledge)}
    perplexity = [r for path in args.perplexity for r in read_jsonl(path)]
    passages = read_jsonl(args.passages)
    released = params.get("released") or {}
    spec = released.get("perplexity")
    released_ppl = (read_released_perplexity(args.released_perplexity[0], spec["authors"])
                    if args.released_perplexity and spec else None)
    qids = [q["qid"] for q in read_jsonl(args.questions)] if args.questions else None
    scope = scoped_questions(json.loads(Path(args.sample).read_text()), params["scope"]) if args.sample else None
    write_selfpref_report(rerank, gen, knowledge, perplexity, passages, params["self"], args.outdir,
                          dataset=params.get("dataset"), perplexity_model=params.get("perplexity_model"),
                          spec=IntervalSpec.from_config(params), intervals=params["intervals"]["show"],
                          scorecard=params.get("scorecard"), released_perplexity=released_ppl,
                          released={"perplexity_order": spec["order"] if spec else "unknown",
                                    "model": released.get("model"),
                                    "knowledge": released.get("knowledge") or {},
                                    "perplexity": (spec or {}).get("file")},
                          qids=qids, built_path=args.built, significance=params["significance"], scope=scope)


def cmd_datasets_report(args, params) -> None:
    """Every dataset's tables in one report, one block of rows per dataset, and the claims over every dataset."""
    from authbench.stats import IntervalSpec
    from authbench.studies.selfpref.report import write_datasets_report

    if len(args.built) != len(params["datasets"]) or len(args.keyed) != len(params["datasets"]):
        raise InputError(f"selfpref-datasets-report: {len(args.built)} --built and {len(args.keyed)} --keyed files "
                         f"for datasets {params['datasets']}")
    write_datasets_report(dict(zip(params["datasets"], args.built)), args.outdir, params["intervals"]["show"],
                          keyed=args.keyed, spec=IntervalSpec.from_config(params))


COMMANDS = {
    "selfpref-import": (cmd_import, ["questions", "passages", "drops"]),
    "selfpref-sample": (cmd_sample, ["passages", "generated*", "sample", "out"]),
    "selfpref-generate": (cmd_generate, ["questions", "passages", "template+", "model_file?", "responses",
                                         "samples", "judgments", "manifest", "out", "drops", "threads?"]),
    "selfpref-knowledge": (cmd_knowledge, ["questions", "sample", "template", "model_file?", "responses", "samples",
                                           "judgments", "manifest", "levels", "threads?"]),
    "selfpref-shipped-knowledge": (cmd_shipped_knowledge, ["source", "questions", "levels", "check"]),
    "selfpref-perplexity": (cmd_perplexity, ["passages", "sample", "model_file?", "out", "manifest"]),
    "selfpref-rerank": (cmd_rerank, ["questions", "sample", "passages", "template", "model_file?", "responses",
                                     "samples", "judgments", "manifest", "threads?"]),
    "selfpref-compare": (cmd_compare, ["questions", "sample", "passages", "knowledge?", "template", "model_file?",
                                       "responses", "samples", "judgments", "manifest", "threads?"]),
    "selfpref-report": (cmd_report, ["rerank+", "generation+", "knowledge+", "perplexity*", "passages", "sample?",
                                     "questions?", "released_perplexity*", "outdir", "built?"]),
    "selfpref-datasets-report": (cmd_datasets_report, ["built+", "keyed+", "outdir"]),
}
