"""Command line of the pipeline: one subcommand per Snakemake rule.

Rules call ``python -m authbench.cli <step> ...`` with files and a JSON
``--params`` string built by the rule (never the whole config), so Snakemake
sees every value that can change an output. Known input errors end with one
line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from .config import ConfigError, GenerateConfig
from .fetch.http import FetchError
from .prompts import TemplateError
from .records import InputError, read_jsonl, write_jsonl, write_tsv
from .sampling import SamplingError
from .selfpref.commands import COMMANDS as SELFPREF_COMMANDS

log = logging.getLogger("authbench")


def _mkparent(*paths: str) -> None:
    for p in paths:
        Path(p).parent.mkdir(parents=True, exist_ok=True)


def cmd_build_domainauth(args, params) -> None:
    from .domains import build_domains, read_texts, write_drops, write_labels

    texts = read_texts(params.get("text"), params.get("text_max_words", 100))
    domains, drops = build_domains(args.source, params.get("status_filter"), params["categories"], texts)
    _mkparent(args.labels, args.drops)
    write_labels(domains, args.labels)
    write_drops(drops, len(domains), args.drops)
    log.info("kept %d domains; drops: %s", len(domains), dict(drops))


def cmd_sample_domainauth(args, params) -> None:
    from .domains import read_labels
    from .sampling import reuse_report, sample_all

    domains = read_labels(args.labels)
    sets = sample_all(domains, params["sampling"], params["seed"])
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    for setting, rows in sets.items():
        write_jsonl(rows, out / f"{setting}.jsonl")
        log.info("%s: %d instances", setting, len(rows))
    write_tsv(reuse_report(sets), str(out / "reuse.tsv"), ["setting", "level", "slots", "distinct", "max_uses"])


def cmd_build_entityauth(args, params) -> None:
    from .entities import build_entities, write_entities, write_entity_drops

    entities, drops = build_entities(args.source, params.get("corpus"), params["seed"], params["dataset"])
    _mkparent(args.labels, args.drops)
    write_entities(entities, args.labels)
    write_entity_drops(drops, len(entities), args.drops)
    log.info("%s: kept %d entities; drops: %s", params["dataset"], len(entities), dict(drops))


def cmd_sample_entityauth(args, params) -> None:
    from .entities import entity_item, read_entities
    from .sampling import add_anchors, reuse_report, sample_lists

    items = [entity_item(e) for e in read_entities(args.labels)]
    name, seed = params["dataset"], params["seed"]
    lists = add_anchors(sample_lists(items, "fine", params["lists"], seed, name), params["anchors"], seed, name)
    _mkparent(args.instances, args.reuse)
    write_jsonl(lists, args.instances)
    write_tsv(reuse_report({"fine": lists}), args.reuse, ["setting", "level", "slots", "distinct", "max_uses"])
    log.info("%s: %d lists", params["dataset"], len(lists))


def cmd_assemble_model(args, params) -> None:
    from .engines.llamacpp import resolve_model

    _mkparent(args.out)
    log.info("model ready at %s", resolve_model(params["model"], args.out))


def _sha256_file(path: str) -> str:
    from .engines.llamacpp import file_sha256

    return file_sha256(path)


def _run_requests(args, params, requests, generate: dict | None = None, constrained: bool | None = None):
    """Send a cell's requests through the response cache and (only for what is
    missing) the engine. Returns responses, run stats, model identity, sampling config.
    ``generate`` overrides the model's sampling settings for this step;
    ``constrained`` overrides the config's switch (free-text steps pass False)."""
    from .cache import ResponseCache, model_identity
    from .engines.base import create_engine
    from .judges import run_cell

    model_cfg = params["model"]
    if args.threads:
        model_cfg = {**model_cfg, "threads": int(args.threads)}
    gen = GenerateConfig().merge(model_cfg.get("generate")).merge(generate)
    log.info("cell %s: %d requests", params["cell"], len(requests))
    model = model_identity(model_cfg)
    cache = ResponseCache(params["cache"]) if params.get("cache") else None
    constrained = params["constrained"] if constrained is None else constrained
    responses, run = run_cell(requests, lambda: create_engine(model_cfg, args.model_file), gen,
                              constrained, cache=cache, model=model)
    return responses, run, model, gen


def _write_cell(args, params, requests, responses, judgments, run, model, gen, inputs: dict, extra: dict) -> None:
    """A cell's responses.jsonl, judgments.jsonl and manifest.json."""
    from .judges import cell_summary, response_rows

    _mkparent(args.responses, args.judgments, args.manifest)
    write_jsonl(response_rows(requests, responses), args.responses)
    write_jsonl(judgments, args.judgments)
    manifest = {
        "cell": params["cell"],
        "model": model,
        "engine": params["model"]["engine"],
        "engines_used": [json.loads(e) for e in run["engines_used"]],
        "generate": gen.__dict__,
        "constrained": params["constrained"],
        "template": ([{"path": t, "sha256": _sha256_file(t)} for t in args.template]
                     if isinstance(args.template, list) else {"path": args.template, "sha256": _sha256_file(args.template)}),
        **{name: {"path": path, "sha256": _sha256_file(path), **info} for name, (path, info) in inputs.items()},
        "unique_requests": run["unique_requests"],
        "cache_hits": run["cache_hits"],
        "engine_calls": run["engine_calls"],
        "engine_seconds_this_run": run["engine_seconds_new"],
        "model_load_seconds": run["model_load_seconds"],
        **cell_summary(judgments, responses),
        **extra,
    }
    Path(args.manifest).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    log.info("done: %s", json.dumps({k: manifest[k] for k in ("n_calls", "cache_hits", "engine_calls",
                                                                "parse_failure_rate", "engine_seconds")}))


def cmd_judge(args, params) -> None:
    from .judges import build_requests, parse_responses
    from .prompts import load_template

    template = load_template(args.template)
    if (template.judge, template.context) != (params["judge"], params["context"]):
        raise TemplateError(f"{args.template}: is for {template.judge}/{template.context}, "
                            f"the cell is {params['judge']}/{params['context']}")
    instances = read_jsonl(args.instances)
    requests = build_requests(params["judge"], params["setting"], instances, template, params["seed"])
    responses, run, model, gen = _run_requests(args, params, requests)
    judgments = parse_responses(requests, responses)
    _write_cell(args, params, requests, responses, judgments, run, model, gen,
                {"instances": (args.instances, {"n": len(instances)})}, {})


# --- RAGAuth -------------------------------------------------------------------

def cmd_rag_dataset(args, params) -> None:
    from .rag import dataset_report, load_ragauth

    questions = load_ragauth(args.source, params.get("topics"))
    _mkparent(args.out, args.report)
    write_jsonl(questions, args.out)
    write_tsv(dataset_report(questions, params["k"]), args.report, ["what", "count"])
    log.info("%d RAGAuth questions, %d documents", len(questions), sum(len(q["documents"]) for q in questions))


def cmd_rag_domains(args, params) -> None:
    from .rag_build import write_domain_list

    _mkparent(args.out)
    log.info("%d distinct domains", len(write_domain_list(args.documents, args.out)))


def cmd_rag_build(args, params) -> None:
    from .rag_build import build_ragauth, write_build_drops, write_ragauth

    records, drops, report = build_ragauth(args.questions, args.documents, args.labels or None,
                                           params.get("max_docs", 10))
    _mkparent(args.out, args.drops)
    write_ragauth(records, args.out)
    write_build_drops(drops, len(records), args.drops)
    log.info("built %d questions: %s", len(records), json.dumps(report, sort_keys=True, default=str))


def cmd_rag_prior(args, params) -> None:
    from .rag import prior_scores

    _mkparent(args.out)
    write_jsonl(prior_scores(read_jsonl(args.questions), params["strategy"], params.get("tld_prior")), args.out)


def _rag_setup(args, params):
    """The cell's template (checked against its strategy), questions, tokenizer
    and the context limit prompts must fit."""
    from .engines.tokenize import load_tokenizer
    from .rag import load_rag_template

    template = load_rag_template(args.template)
    if template.strategy != params["stage"]:
        raise TemplateError(f"{args.template}: is the {template.strategy} prompt, the cell needs {params['stage']}")
    model_cfg = params["model"]
    n_ctx = model_cfg.get("n_ctx") or (model_cfg.get("vllm") or {}).get("max_model_len")
    return template, read_jsonl(args.questions), load_tokenizer(model_cfg, args.model_file), n_ctx


def _reply_budget(params, output: str, n: int) -> int:
    from .grammars import token_budget

    gen = GenerateConfig().merge(params["model"].get("generate"))
    return token_budget(output, n, params["constrained"], gen.max_tokens)


def cmd_rag_rank(args, params) -> None:
    from .judges import parse_responses
    from .rag import judged_scores, rank_requests

    template, questions, tokenizer, n_ctx = _rag_setup(args, params)
    n_max = max(len(q["documents"]) for q in questions)
    requests, counts = rank_requests(questions, template, tokenizer, params["doc_tokens"], n_ctx,
                                     _reply_budget(params, template.output, n_max))
    responses, run, model, gen = _run_requests(args, params, requests)
    judgments = parse_responses(requests, responses)
    scores = [{"qid": r["request_id"], "scores": judged_scores(j["value"], r["n"]), "status": j["status"]}
              for r, j in zip(requests, judgments)]
    _mkparent(args.scores)
    write_jsonl(scores, args.scores)
    _write_cell(args, params, requests, responses, judgments, run, model, gen,
                {"questions": (args.questions, {"n": len(questions)})},
                {"strategy": params["strategy"], "doc_tokens": params["doc_tokens"], "tokenizer": tokenizer.name,
                 **counts})


def cmd_rag_answer(args, params) -> None:
    from .rag import answer_requests, answer_row

    template, questions, tokenizer, n_ctx = _rag_setup(args, params)
    scores = {r["qid"]: r["scores"] for r in read_jsonl(args.scores)} if args.scores else None
    requests, kept, counts = answer_requests(questions, template, scores, params["k"], tokenizer,
                                             params["doc_tokens"], n_ctx, _reply_budget(params, "yes_no", 1))
    responses, run, model, gen = _run_requests(args, params, requests)
    judgments = [answer_row(q, r.text, kept[q["qid"]]) for q, r in zip(questions, responses)]
    inputs = {"questions": (args.questions, {"n": len(questions)})}
    if args.scores:
        inputs["scores"] = (args.scores, {})
    _write_cell(args, params, requests, responses, judgments, run, model, gen, inputs,
                {"strategy": params["strategy"], "k": params["k"], "doc_tokens": params["doc_tokens"],
                 "tokenizer": tokenizer.name, "accuracy": sum(j["correct"] for j in judgments) / len(judgments),
                 **counts})


def cmd_rag_report(args, params) -> None:
    from .rag_report import accuracy_rows, write_accuracy, write_rag_tables

    if len(params["cells"]) != len(args.judgments):
        raise ConfigError(f"rag-report: {len(params['cells'])} cell names for {len(args.judgments)} judgment files")
    cells = [((m, s, str(k)), read_jsonl(path)) for (m, s, k), path in zip(params["cells"], args.judgments)]
    rows = accuracy_rows(cells, params["bootstrap"], params["seed"])
    write_accuracy(rows, Path(args.outdir) / "accuracy.tsv")
    write_rag_tables(rows, Path(args.outdir) / "tables")


def _metric_columns() -> list[str]:
    from .tables import METRIC_COLUMNS

    return [*METRIC_COLUMNS, "n_calls"]


def cmd_evaluate(args, params) -> None:
    from .evaluate import evaluate_cell

    instances = read_jsonl(args.instances)
    judgments = read_jsonl(args.judgments)
    summary = json.loads(Path(args.manifest).read_text())
    ident = {k: params[k] for k in ("benchmark", "model", "context")}
    rows = [
        {**ident, **row, "parse_failure_rate": summary["parse_failure_rate"], "n_calls": summary["n_calls"]}
        for scale in params.get("scales", [params["setting"]])
        for row in evaluate_cell(params["judge"], scale, instances, judgments)
    ]
    write_tsv(rows, args.metrics, _metric_columns())


def cmd_predictions(args, params) -> None:
    from .evaluate import point_predictions
    from .tables import PRED_COLUMNS

    preds = [{"model": params["model"], "context": params["context"], **p}
             for p in point_predictions(read_jsonl(args.instances), read_jsonl(args.judgments))]
    write_tsv(preds, args.predictions, list(PRED_COLUMNS))


def cmd_baselines(args, params) -> None:
    from .evaluate import baseline_scorer, evaluate_scores

    rows = []
    for name, spec in params["baselines"].items():
        if not spec:
            continue
        scorer = baseline_scorer(name, params["seed"], spec if isinstance(spec, dict) else None)
        for setting, scale in params["evaluations"]:
            instances = read_jsonl(Path(args.instances_dir) / f"{setting}.jsonl")
            for context in params["contexts"]:
                for row in evaluate_scores(scale, "point", instances, scorer):
                    rows.append({"benchmark": params["benchmark"], "model": f"baseline:{name}", "context": context,
                                 **row, "parse_failure_rate": 0.0, "n_calls": 0})
    write_tsv(rows, args.metrics, _metric_columns())


def _report_costs(args, out, metrics) -> None:
    from . import costs

    table = costs.cost_rows(args.manifests)
    quality = costs.with_quality(table, metrics)
    costs.write_cost_table(table, quality, out / "tables" / "costs")
    costs.plot_cost_vs_rho(quality, out / "figures" / "cost_vs_rho.png")


def _report_folder(args):
    """The report folder (tables/, figures/ created) and the concatenated metrics, saved as metrics.tsv."""
    import pandas as pd

    out = Path(args.outdir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    metrics = pd.concat([pd.read_csv(f, sep="\t") for f in args.metrics], ignore_index=True)
    metrics.to_csv(out / "metrics.tsv", sep="\t", index=False)
    return out, metrics


def cmd_report(args, params) -> None:
    import pandas as pd

    from . import figures, tables

    out, metrics = _report_folder(args)
    _report_costs(args, out, metrics)
    bench = params["benchmark"]
    names = {"fine": ("table1_fine", "table9_derivations_fine"), "coarse": ("table2_coarse", "table10_derivations_coarse")}
    for setting, (main_stem, deriv_stem) in names.items():
        if (metrics["setting"] == setting).any():
            tables.write_table(tables.table_main(metrics, bench, setting), out / "tables" / main_stem,
                               f"Results on DomainAuth ({setting}-grained) as Spearman's rho (%) and Kendall's tau (%)."
                               " fail% = parse failures among the judge's calls.")
            if metrics.query("setting == @setting and judge.str.startswith('pair')", engine="python").shape[0]:
                tables.write_table(tables.table_derivations(metrics, bench, setting), out / "tables" / deriv_stem,
                                   f"PairJudge ranking derivation methods on DomainAuth ({setting}-grained), Spearman's rho (%).")
    if (metrics["setting"] == "pairs").any():
        tables.write_table(tables.table_pairs(metrics, bench), out / "tables" / "table3_pairs",
                           "Pairwise accuracy (%) on easy vs. hard pairs on DomainAuth (ties and unparsable replies count as wrong).")
    labels = pd.read_csv(args.labels, sep="\t", keep_default_na=False)
    figures.plot_label_distribution(labels, out / "figures" / "fig3_label_distribution.png")
    if args.predictions:
        pred = pd.concat([pd.read_csv(f, sep="\t", keep_default_na=False, na_values=[""]) for f in args.predictions],
                         ignore_index=True)
        pred["category"] = pred["category"].where(pred["category"].notna(), None)
        figures.plot_bias_heatmap(pred, out / "figures" / "fig6_bias_heatmap.png")
        tables.write_table(tables.table_categories(pred, params["category_order"]), out / "tables" / "table8_categories",
                           "Mean predicted score and scoring bias (predicted - true PageRank) of PointJudge per domain category.")


def cmd_report_entityauth(args, params) -> None:
    import pandas as pd

    from . import figures, tables

    out, metrics = _report_folder(args)
    _report_costs(args, out, metrics)
    datasets = params["datasets"]
    reuse = pd.concat([pd.read_csv(f, sep="\t").assign(dataset=d) for d, f in zip(datasets, args.reuse)])
    reuse[["dataset", "setting", "level", "slots", "distinct", "max_uses"]].to_csv(out / "reuse.tsv", sep="\t", index=False)
    specs = {
        "table4_fine": (tables.table_main, "fine", "Results on EntityAuth (fine-grained, 10-level, w/o text) across "
                        "domains as Spearman's rho (%) and Kendall's tau (%)."),
        "table6_coarse": (tables.table_main, "coarse", "Results on EntityAuth (coarse-grained, 5-level, w/o text): the "
                          "same N=10 lists scored against the coarse labels, Spearman's rho (%) and Kendall's tau (%)."),
        "table11_derivations_fine": (tables.table_derivations, "fine",
                                     "PairJudge ranking derivation methods on EntityAuth (fine-grained), Spearman's rho (%)."),
        "table12_derivations_coarse": (tables.table_derivations, "coarse",
                                       "PairJudge ranking derivation methods on EntityAuth (coarse-grained), Spearman's rho (%)."),
    }
    has_pairs = metrics["judge"].astype(str).str.startswith("pair").any()
    for stem, (fn, scale, caption) in specs.items():
        if fn is tables.table_derivations and not has_pairs:
            continue
        parts = [(d.capitalize(), fn(metrics, f"entityauth/{d}", scale)) for d in datasets]
        tables.write_table(tables.stack_tables(parts, "Domain"), out / "tables" / stem,
                           caption + " fail% = parse failures among the judge's calls.")
    labels = {d.capitalize(): pd.read_csv(f, sep="\t", keep_default_na=False) for d, f in zip(datasets, args.labels)}
    figures.plot_entity_label_distribution(labels, out / "figures" / "fig3_entityauth_label_distribution.png")


# --- provenance ------------------------------------------------------------------

def _render_svg(dot_text: str, svg_path: str) -> str:
    """Render with Graphviz's `dot` if installed, else the bundled graphviz-pure."""
    import shutil
    import subprocess

    exe = shutil.which("dot") or shutil.which("graphviz-pure") or str(Path(sys.executable).parent / "graphviz-pure")
    proc = subprocess.run([exe, "-Tsvg", "-o", svg_path], input=dot_text, text=True, capture_output=True)
    if proc.returncode != 0:
        raise InputError(f"{exe} could not render {svg_path}: {proc.stderr.strip()[:300]}")
    return Path(exe).name


def cmd_export_dag(args, params) -> None:
    """The workflow's rule graph and job DAG for the current config, as dot and SVG."""
    import subprocess

    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    config_dump = out / "config.json"  # the merged config this run used
    config_dump.write_text(json.dumps(params["config"], indent=2, sort_keys=True) + "\n")
    for kind, flag in (("rulegraph", "--rulegraph"), ("dag", "--dag")):
        proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", params["snakefile"], "--directory", ".",
                               "--configfile", str(config_dump), flag, "--nolock", "--quiet", "all", *params["targets"]],
                              capture_output=True, text=True)
        start = proc.stdout.find("digraph")
        if proc.returncode != 0 or start < 0:
            raise InputError(f"snakemake {flag} failed: {(proc.stderr or proc.stdout).strip()[-500:]}")
        dot_text = proc.stdout[start:]
        (out / f"{kind}.dot").write_text(dot_text)
        renderer = _render_svg(dot_text, str(out / f"{kind}.svg"))
        log.info("%s: %d lines of dot, rendered with %s", kind, dot_text.count("\n"), renderer)


# --- fetchers ------------------------------------------------------------------

def _http_client(params):
    from .fetch.http import HttpClient, RetryPolicy

    agent = params.get("user_agent") or "authbench-pipeline (AuthorityBench rebuild; set fetch.user_agent)"
    return HttpClient(agent, RetryPolicy.from_config(params.get("http")))


def _fail_if_incomplete(what: str, failed: list[dict], cache: str | None) -> None:
    """Transport failures are not cached: the job fails, a rerun asks only for them."""
    if failed:
        first = "; ".join(f"{f.get('domain') or f.get('name')}: {f['reason']}" for f in failed[:3])
        where = f" (finished items are kept in {cache})" if cache else ""
        raise FetchError(f"{what}: {len(failed)} item(s) could not be fetched, e.g. {first}. "
                         f"Rerun to resume{where}.")


def cmd_fetch_urllog(args, params) -> None:
    from .fetch.urllog import ingest_urllog, write_domains, write_drops

    rows, drops = ingest_urllog(args.input, fmt=params.get("format", "auto"),
                                url_columns=tuple(params.get("url_columns", ["url"])), separator=params.get("separator"))
    _mkparent(args.domains, args.drops)
    write_domains(rows, args.domains)
    write_drops(drops, args.drops)
    log.info("%d domains; drops: %s", len(rows), dict(drops))


def cmd_fetch_pagerank(args, params) -> None:
    from .fetch.cache import ProgressCache
    from .fetch.pagerank import api_key_from_env, bulk_pagerank, fetch_openpagerank, read_domain_list, write_pagerank

    domains, drops = read_domain_list(args.domains)
    log.info("%d domains to label; input drops: %s", len(domains), dict(drops))
    if params["method"] == "bulk":
        outcome = bulk_pagerank(args.bulk_file[0], domains, rounding=params.get("rounding", "round"))
    else:
        key = api_key_from_env(params.get("api_key_env", "OPENPAGERANK_API_KEY"))
        kwargs = {k: params[k] for k in ("batch_size",) if k in params}
        if params.get("api_url"):
            kwargs["url"] = params["api_url"]
        outcome = fetch_openpagerank(domains, _http_client(params), key, ProgressCache(args.cache), **kwargs)
    log.info("stats: %s", json.dumps(outcome.stats, sort_keys=True))
    _fail_if_incomplete("fetch-pagerank", outcome.failed, args.cache if params["method"] == "api" else None)
    _mkparent(args.out)
    write_pagerank(outcome.rows, args.out)


def cmd_fetch_webtext(args, params) -> None:
    from .fetch.cache import ProgressCache
    from .fetch.pagerank import read_domain_list
    from .fetch.webtext import fetch_texts, write_failures, write_texts

    domains, drops = read_domain_list(args.domains)
    kwargs = {k: params[k] for k in ("max_words", "max_bytes", "max_redirects", "workers", "base_url") if k in params}
    outcome = fetch_texts(domains, _http_client(params), ProgressCache(args.cache), **kwargs)
    log.info("stats: %s", json.dumps(outcome.stats, sort_keys=True, default=str))
    _mkparent(args.texts, args.failures)
    write_texts(outcome.rows, args.texts)
    write_failures(outcome.rows, args.failures)


def cmd_fetch_sitelinks(args, params) -> None:
    from .fetch.cache import ProgressCache
    from .fetch.wikidata import fetch_sitelinks, read_entities, write_entities, write_unresolved

    entities, drops = read_entities(args.entities)
    log.info("%d entities; input drops: %s", len(entities), dict(drops))
    kwargs = {k: params[k] for k in ("site", "batch_size", "maxlag", "search") if k in params}
    if params.get("api_url"):
        kwargs["api_url"] = params["api_url"]
    outcome = fetch_sitelinks(entities, _http_client(params), ProgressCache(args.cache), **kwargs)
    log.info("stats: %s", json.dumps(outcome.stats, sort_keys=True, default=str))
    _fail_if_incomplete("fetch-sitelinks", outcome.failed, args.cache)
    pattern = params.get("question_pattern")
    rows = [{**r, "question": r.get("question") or (pattern.replace("{entity}", r["question_entity"]) if pattern else "")}
            for r in outcome.rows]
    _mkparent(args.out, args.unresolved)
    write_entities(rows, args.out)
    write_unresolved(outcome.unresolved, outcome.failed, args.unresolved)
    log.info("%d resolved, %d unresolved (see %s)", len(rows), len(outcome.unresolved), args.unresolved)


COMMANDS = {
    "export-dag": (cmd_export_dag, ["outdir"]),
    "fetch-urllog": (cmd_fetch_urllog, ["input", "domains", "drops"]),
    "fetch-pagerank": (cmd_fetch_pagerank, ["domains", "bulk_file*", "out", "cache"]),
    "fetch-webtext": (cmd_fetch_webtext, ["domains", "texts", "failures", "cache"]),
    "fetch-sitelinks": (cmd_fetch_sitelinks, ["entities", "out", "unresolved", "cache"]),
    "build-domainauth": (cmd_build_domainauth, ["source", "labels", "drops"]),
    "sample-domainauth": (cmd_sample_domainauth, ["labels", "outdir"]),
    "build-entityauth": (cmd_build_entityauth, ["source", "labels", "drops"]),
    "sample-entityauth": (cmd_sample_entityauth, ["labels", "instances", "reuse"]),
    "report-entityauth": (cmd_report_entityauth, ["metrics+", "labels+", "reuse+", "manifests+", "outdir"]),
    "assemble-model": (cmd_assemble_model, ["out"]),
    "judge": (cmd_judge, ["instances", "template", "model_file?", "responses", "judgments", "manifest", "threads?"]),
    "evaluate": (cmd_evaluate, ["instances", "judgments", "manifest", "metrics"]),
    "predictions": (cmd_predictions, ["instances", "judgments", "predictions"]),
    "baselines": (cmd_baselines, ["instances_dir", "metrics"]),
    "report": (cmd_report, ["metrics+", "labels", "predictions*", "manifests+", "outdir"]),
    "rag-domains": (cmd_rag_domains, ["documents", "out"]),
    "rag-build": (cmd_rag_build, ["questions", "documents", "labels?", "out", "drops"]),
    "rag-dataset": (cmd_rag_dataset, ["source", "out", "report"]),
    "rag-prior": (cmd_rag_prior, ["questions", "out"]),
    "rag-rank": (cmd_rag_rank, ["questions", "template", "model_file?", "responses", "judgments", "scores",
                                "manifest", "threads?"]),
    "rag-answer": (cmd_rag_answer, ["questions", "scores?", "template", "model_file?", "responses", "judgments",
                                    "manifest", "threads?"]),
    "rag-report": (cmd_rag_report, ["judgments+", "outdir"]),
}
COMMANDS.update(SELFPREF_COMMANDS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="authbench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (_, options) in COMMANDS.items():
        p = sub.add_parser(name)
        p.add_argument("--params", default="{}", help="JSON object of the rule's parameters")
        for opt in options:
            flag = "--" + opt.rstrip("?*+").replace("_", "-")
            if opt.endswith("+"):
                p.add_argument(flag, nargs="+", required=True)
            elif opt.endswith("*"):
                p.add_argument(flag, nargs="*", default=[])
            else:
                p.add_argument(flag, required=not opt.endswith("?"), default=None)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    args = build_parser().parse_args(argv)
    try:
        params = json.loads(args.params)
        COMMANDS[args.command][0](args, params)
    except (InputError, SamplingError, ConfigError, TemplateError, FetchError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
