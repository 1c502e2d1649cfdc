"""Command-line steps of AuthorityBench's DomainAuth and EntityAuth:
datasets, judge cells, evaluation, baselines and reports."""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path

from authbench.errors import InputError, TemplateError
from authbench.records import mkparent, read_jsonl, write_jsonl, write_tsv

log = logging.getLogger("authbench")

REUSE_COLUMNS = ["setting", "level", "slots", "distinct", "max_uses"]


def log_labels(what: str, spec, levels, n_top: int, unit: str, unused: list[str]) -> None:
    """The build log's account of the labels: the rule, the histogram, what
    happened at the top value (Open PageRank's 10 says so by name) and the
    source's columns nothing reads."""
    from authbench.studies.authority.labels import describe_label, histogram_text

    log.info("%s: labels from %s", what, describe_label(spec))
    log.info("%s: %s", what, histogram_text(levels, spec.levels))
    if n_top:
        if spec.top == "drop" and spec.open_pagerank:
            log.info("%s: dropped %d %s(s) with Open PageRank %d (drop reason pagerank_10): the paper's scale is "
                     "0-%d; applies to integer binning of the Open PageRank column only", what, n_top, unit,
                     spec.levels, spec.levels - 1)
        elif spec.top == "drop":
            log.info("%s: dropped %d %s(s) at the top value (drop reason above_top_level; label.top: drop)",
                     what, n_top, unit)
        else:
            log.info("%s: %d %s(s) at the top value went into level %d (label.top: include)", what, n_top, unit,
                     spec.levels - 1)
    if unused:
        log.info("%s: %d column(s) of the source are not read for the labels: %s%s", what, len(unused),
                 ", ".join(unused), " (domainauth.secondary.labels carries the columns it names to the predictions, "
                 "in a step of its own)" if unit == "domain" else "")


def cmd_domainauth_build(args, params) -> None:
    from authbench.records import write_tsv
    from authbench.studies.authority.domains import build_domain_labels, read_texts, write_drops, write_labels
    from authbench.studies.authority.labels import BIN_COLUMNS, label_spec

    spec = label_spec(params.get("label"), "page_rank", "integer", "domainauth.label")
    texts = read_texts(params.get("text"), params["text_max_words"])
    built = build_domain_labels(args.source, params.get("status_filter"), params["categories"], texts, spec)
    mkparent(args.labels, args.drops)
    write_labels(built.domains, args.labels)
    write_drops(built.drops, len(built.domains), args.drops, built.units)
    if args.bins:
        write_tsv(built.bins, args.bins, BIN_COLUMNS)
    log.info("kept %d domains; drops: %s", len(built.domains), dict(built.drops))
    log_labels("domainauth", spec, [d.level for d in built.domains], built.n_top, "domain", built.unused_columns)


def cmd_domainauth_secondary(args, params) -> None:
    """The secondary label columns of the labelled domains (``secondary.tsv``)
    and the rows and domains that give no label, by reason (``--drops``)."""
    from authbench.records import write_drop_table
    from authbench.studies.authority.domains import read_labels, read_secondary, secondary_units, write_secondary
    from authbench.studies.authority.labels import secondary_specs

    specs = secondary_specs(params.get("secondary"), "domainauth.secondary")
    domains = [d.domain for d in read_labels(args.labels)]
    counts: Counter = Counter()
    labels = read_secondary(args.source, params.get("status_filter"), specs, domains, counts)
    write_secondary(labels, specs, args.out)
    mkparent(args.drops)
    write_drop_table(counts, secondary_units(specs), len(labels), "domain", args.drops)
    log.info("domainauth: secondary labels: rows and domains without a label, by reason: %s",
             ", ".join(f"{r} {n}" for r, n in counts.items() if n) or "none")
    for sec in specs:
        got = Counter(row[sec.name] for row in labels.values() if row[sec.name])
        log.info("domainauth: secondary label %s (%s): %d of %d domains labelled%s", sec.name, sec.kind,
                 sum(got.values()), len(labels),
                 " (" + ", ".join(f"{v} {got.get(v, 0)}" for v in sec.values) + ")" if sec.values else "")


def cmd_domainauth_sample(args, params) -> None:
    from authbench.studies.authority.domains import read_labels
    from authbench.studies.authority.sampling import reuse_report, sample_all

    domains = read_labels(args.labels)
    sets = sample_all(domains, params["sampling"], params["seed"])
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    for setting, rows in sets.items():
        write_jsonl(rows, out / f"{setting}.jsonl", seal=True)
        log.info("%s: %d instances", setting, len(rows))
    write_tsv(reuse_report(sets), str(out / "reuse.tsv"), REUSE_COLUMNS)


def cmd_entityauth_build(args, params) -> None:
    from authbench.records import write_tsv
    from authbench.studies.authority.entities import (
        build_entity_labels,
        drop_reasons,
        write_entities,
        write_entity_drops,
    )
    from authbench.studies.authority.labels import BIN_COLUMNS, label_spec

    name = params["dataset"]
    spec = label_spec(params.get("label"), "popularity", "log", f"entityauth.datasets.{name}.label")
    built = build_entity_labels(args.source, params.get("corpus"), params["seed"], name, spec)
    mkparent(args.labels, args.drops)
    write_entities(built.entities, args.labels)
    write_entity_drops(built.drops, len(built.entities), args.drops, drop_reasons(spec))
    if args.bins:
        write_tsv(built.bins, args.bins, BIN_COLUMNS)
    log.info("%s: kept %d entities; drops: %s", name, len(built.entities), dict(built.drops))
    log_labels(name, spec, [e.level for e in built.entities], built.n_top, "entity", built.unused_keys)


def cmd_entityauth_sample(args, params) -> None:
    from authbench.studies.authority.entities import entity_item, read_entities
    from authbench.studies.authority.sampling import reuse_report, sample_entity_sets

    items = [entity_item(e) for e in read_entities(args.labels)]
    sets = sample_entity_sets(items, params["lists"], params["coarse_lists"], params["anchors"], params["seed"],
                              params["dataset"])
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    for setting, rows in sets.items():
        write_jsonl(rows, out / f"{setting}.jsonl", seal=True)
        log.info("%s: %d %s lists", params["dataset"], len(rows), setting)
    write_tsv(reuse_report(sets), str(out / "reuse.tsv"), REUSE_COLUMNS)


def cmd_judge(args, params) -> None:
    from authbench.cells import CellStep
    from authbench.studies.authority.evaluate import sample_grades
    from authbench.studies.authority.judges import judge_of
    from authbench.studies.authority.kinds import judge_job, order
    from authbench.studies.authority.prompts import load_template

    template = load_template(args.template)
    if (template.judge, template.context) != (params["judge"], params["context"]):
        raise TemplateError(f"{args.template}: is for {template.judge}/{template.context}, "
                            f"the cell is {params['judge']}/{params['context']}")
    instances = read_jsonl(args.instances)
    requests = judge_job(params, {"instances": instances, "template": template})
    shown = judge_of(params["judge"]).shown_instances(instances, order(params))
    CellStep.from_args(args, params).run_cell(
        requests, expected_scores=params["expected_scores"],
        inputs={"instances": (args.instances, {"n": len(instances)})},
        grade=lambda judgments: sample_grades(params["judge"], params["setting"], shown, judgments))


def _metric_columns() -> list[str]:
    from authbench.studies.authority.evaluate import METRIC_COLUMNS

    # lo / hi: the row's 95% interval over its units; expected_fallback_rate: E[s] rows only (share of score
    # slots without a distribution)
    at = METRIC_COLUMNS.index("value") + 1
    return [*METRIC_COLUMNS[:at], "lo", "hi", *METRIC_COLUMNS[at:], "parse", "n_calls", "expected_fallback_rate"]


def cmd_evaluate(args, params) -> None:
    """A cell's metric rows under both parse modes (column ``parse``): the
    report shows the configured one and says what the other gives. With the
    cell's ``--template``, the judge-validity rows (derivation ``validity``)
    include ``example_copy``; ``near_constant`` (config
    ``judge_validity.near_constant``) is the share of a list's items on one
    score that makes the list near-constant. Score judges with E[s] in their
    judgments get their E[s] rows too (:func:`authbench.studies.authority.evaluate.evaluate_expected`).
    Every row's units go to ``--units`` (Parquet) and its interval over them to
    the row's ``lo`` / ``hi``."""
    from authbench.llm.expected import fallback_rate
    from authbench.stats import IntervalSpec
    from authbench.studies.authority.diagnostics import cell_diagnostics
    from authbench.studies.authority.evaluate import (PARSE_MODES, evaluate_cell, evaluate_expected, with_intervals,
                                                      write_units)
    from authbench.studies.authority.prompts import load_template

    instances = read_jsonl(args.instances)
    judgments = read_jsonl(args.judgments)
    summary = json.loads(Path(args.manifest).read_text())
    template = load_template(args.template) if args.template else None
    ident = {"benchmark": params["dataset"], "model": params["model"], "context": params["context"]}
    rows, units = [], []
    for mode in PARSE_MODES:
        for scale in params["scales"]:  # authbench.studies.authority.outputs.scales (rules/common.smk)
            mine: list[dict] = []
            rows += [{**ident, **row, "parse_failure_rate": summary["parse_failure_rate"], "parse": mode,
                      "n_calls": summary["n_calls"]}
                     for row in (evaluate_cell(params["judge"], scale, instances, judgments, mode, mine)
                                 + cell_diagnostics(params["judge"], scale, instances, judgments, mode, template,
                                                                   params["near_constant"]))]
            units += [{**ident, **u, "parse": mode} for u in mine]
    fallback = fallback_rate(judgments)
    for mode in PARSE_MODES:
        for scale in params["scales"]:
            mine = []
            rows += [{**ident, **row, "parse_failure_rate": summary["parse_failure_rate"], "parse": mode,
                      "n_calls": summary["n_calls"], "expected_fallback_rate": fallback}
                     for row in evaluate_expected(params["judge"], scale, instances, judgments, mode, mine)]
            units += [{**ident, **u, "parse": mode} for u in mine]
    write_tsv(with_intervals(rows, units, IntervalSpec.from_config(params)), args.metrics,
              _metric_columns())
    write_units(units, args.units)


def cmd_consistency(args, params) -> None:
    """A cell in both orders (config ``position_consistency``): the two-order
    metric rows of its judgments and its reversed job's
    (:func:`authbench.studies.authority.consistency.both_orders_rows`), under
    both parse modes and on each label scale, with intervals over their
    units; the two manifests must be one cell's orders (a named error else)."""
    from authbench.stats import IntervalSpec
    from authbench.studies.authority.consistency import TWIN_COLUMNS, both_orders_rows, check_pair, twin_rows
    from authbench.studies.authority.evaluate import PARSE_MODES, with_intervals, write_units
    from authbench.studies.authority.judges import judge_of

    seeded, reversed_ = (json.loads(Path(p).read_text()) for p in (args.manifest, args.reversed_manifest))
    check_pair(seeded, reversed_, args.manifest, args.reversed_manifest)
    instances = read_jsonl(args.instances)
    first, second = read_jsonl(args.judgments), read_jsonl(args.reversed_judgments)
    ident = {"benchmark": params["dataset"], "model": params["model"], "context": params["context"]}
    judge = judge_of(params["judge"])
    failures = (seeded["parse_failure_rate"] + reversed_["parse_failure_rate"]) / 2
    rows, units = [], []
    for mode in PARSE_MODES:
        for scale in params["scales"]:
            mine: list[dict] = []
            rows += [{**ident, **row, "parse_failure_rate": failures, "parse": mode,
                      "n_calls": seeded["n_calls"] + reversed_["n_calls"]}
                     for row in both_orders_rows(judge, scale, instances, first, second, mode, mine)]
            units += [{**ident, **u, "parse": mode} for u in mine]
    write_tsv(with_intervals(rows, units, IntervalSpec.from_config(params)), args.metrics, _metric_columns())
    write_units(units, args.units)
    write_tsv(twin_rows(judge, instances, first, second), args.twins, TWIN_COLUMNS)


def cmd_predictions(args, params) -> None:
    """A cell's per-item scores (:mod:`authbench.studies.authority.predictions`),
    with the secondary labels of ``--secondary`` (``secondary.tsv``) joined by domain."""
    import csv

    from authbench.studies.authority.predictions import PREDICTION_COLUMNS, item_predictions

    secondary, names = {}, []
    if args.secondary:
        with open(args.secondary, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh, delimiter="\t")
            names = [c for c in (reader.fieldnames or []) if c != "domain"]
            secondary = {r["domain"]: r for r in reader}
    ident = {k: params[k] for k in ("model", "context", "judge", "setting")}
    preds = [{**ident, **p, **{n: (secondary.get(p.get("domain")) or {}).get(n, "") for n in names}}
             for p in item_predictions(params["judge"], params["setting"], read_jsonl(args.instances),
                                       read_jsonl(args.judgments), params["parse"])]
    write_tsv(preds, args.predictions, [*PREDICTION_COLUMNS, *names])


def cmd_baselines(args, params) -> None:
    """The baselines' metric rows (with intervals) and their units (``--units``)."""
    from authbench.stats import IntervalSpec
    from authbench.studies.authority.evaluate import baseline_scorer, evaluate_scores, with_intervals, write_units

    rows, units = [], []  # params carry authbench.studies.authority.outputs.baseline_inputs (rules/common.smk)
    for name, spec in params["baselines"].items():
        if not spec:
            continue
        scorer = baseline_scorer(name, params["seed"], spec if isinstance(spec, dict) else None)
        for setting, scale in params["evaluations"]:
            instances = read_jsonl(Path(args.instances_dir) / f"{setting}.jsonl")
            for context in params["contexts"]:
                ident = {"benchmark": params["dataset"], "model": f"baseline:{name}", "context": context}
                mine: list[dict] = []
                rows += [{**ident, **row, "parse_failure_rate": 0.0, "parse": "", "n_calls": 0}  # nothing parsed
                         for row in evaluate_scores(scale, "point", instances, scorer, mine)]
                units += [{**ident, **u, "parse": ""} for u in mine]
    write_tsv(with_intervals(rows, units, IntervalSpec.from_config(params)), args.metrics,
              _metric_columns())
    write_units(units, args.units)


def _grid(params, *keys) -> str:
    return "Grid: " + "; ".join(f"{k} [{', '.join(params[k])}]" for k in keys if params.get(k)) + (
        f"; parse: {params['parse']}.")


def cmd_domainauth_report(args, params) -> None:
    """``params["plan"]``: the tables the config produces (rules/common.smk:
    :func:`authbench.render.catalog.report_choice` of DOMAINAUTH)."""
    from authbench.stats import IntervalSpec
    from authbench.studies.authority.report import write_domainauth_report

    write_domainauth_report(args.outdir, args.metrics, args.labels, args.predictions, args.manifests, params["plan"],
                            params["category_order"], params.get("categories"), params["parse"],
                            params["judge_validity"], grid=_grid(params, "settings", "judges", "contexts"),
                            scorecard=params.get("scorecard"), units=args.units,
                            intervals=IntervalSpec.from_config(params), show=params["intervals"]["show"])
    if params.get("secondary"):  # the secondary-label table (authbench.studies.authority.secondary)
        from authbench.studies.authority.labels import secondary_specs
        from authbench.studies.authority.secondary import write_secondary_report

        if not args.item_predictions:
            raise InputError("domainauth-report: secondary labels are configured but no --item-predictions were "
                             "given (no cell of this config gives per-item scores)")
        write_secondary_report(args.outdir, args.item_predictions,
                               secondary_specs(params["secondary"], "domainauth.secondary"),
                               int(params["intervals"]["resamples"]), params["seed"], params["parse"])


def cmd_entityauth_report(args, params) -> None:
    """``params["plan"]``: as :func:`cmd_domainauth_report`'s (of ENTITYAUTH)."""
    from authbench.stats import IntervalSpec
    from authbench.studies.authority.report import write_entityauth_report

    write_entityauth_report(args.outdir, args.metrics, params["datasets"], args.labels, args.reuse, args.manifests,
                            params["plan"], params["coarse_source"], params["parse"], params["judge_validity"],
                            grid=_grid(params, "datasets", "judges"), score_names=params.get("score_names"),
                            scorecard=params.get("scorecard"), units=args.units,
                            intervals=IntervalSpec.from_config(params), show=params["intervals"]["show"])


COMMANDS = {
    "domainauth-build": (cmd_domainauth_build, ["source", "labels", "drops", "bins?"]),
    "domainauth-secondary": (cmd_domainauth_secondary, ["source", "labels", "out", "drops"]),
    "domainauth-sample": (cmd_domainauth_sample, ["labels", "outdir"]),
    "entityauth-build": (cmd_entityauth_build, ["source", "labels", "drops", "bins?"]),
    "entityauth-sample": (cmd_entityauth_sample, ["labels", "outdir"]),
    "authority-judge": (cmd_judge, ["instances", "template", "model_file?", "server?", "responses", "samples",
                                    "judgments", "manifest", "threads?"]),
    "authority-evaluate": (cmd_evaluate, ["instances", "judgments", "manifest", "template?", "metrics", "units"]),
    "authority-consistency": (cmd_consistency, ["instances", "judgments", "manifest", "reversed_judgments",
                                                "reversed_manifest", "metrics", "units", "twins"]),
    "authority-predictions": (cmd_predictions, ["instances", "judgments", "secondary?", "predictions"]),
    "authority-baselines": (cmd_baselines, ["instances_dir", "metrics", "units"]),
    "domainauth-report": (cmd_domainauth_report, ["metrics+", "units+", "labels", "predictions*", "item_predictions*",
                                                  "manifests+", "outdir"]),
    "entityauth-report": (cmd_entityauth_report, ["metrics+", "units+", "labels+", "reuse+", "manifests+", "outdir"]),
}
