"""The AuthorityBench report step: parse modes (strict/lenient) in the tables
and their captions, Table 8's category rule in its caption."""

import json
from pathlib import Path

import pandas as pd
import pytest
from authbench.records import write_tsv
from authbench.studies.authority import tables as A
from authbench.studies.authority.evaluate import evaluate_cell
from authbench.studies.authority.rows import METRIC_COLUMNS, PARSE_MODES, PRED_COLUMNS
from authbench.studies.authority.report import other_mode, parse_note, parse_rows, write_domainauth_report
from wfrun import write_ten_level_labels

CATEGORIES = {"gov": {"tlds": ["gov"], "labels": ["gov", "gob"]}, "edu": {"tlds": ["edu"], "labels": ["ac"]},
              "social": {"domains": ["x.com", "y.com"]}}


def _list(iid, levels):
    return {"instance_id": iid, "items": [{"domain": f"{iid}-d{i}.com", "level": lv, "coarse": lv // 2,
                                          "category": None} for i, lv in enumerate(levels)]}


def _cell_rows(judge, instances, judgments):
    ident = {"benchmark": "domainauth", "model": "m1", "context": "wo_text", "parse_failure_rate": 0.5, "n_calls": 2}
    return [{**ident, **row, "parse": mode} for mode in PARSE_MODES
            for row in evaluate_cell(judge, "fine", instances, judgments, mode)]


@pytest.fixture
def metrics():
    """Two fine lists shown best first. ListRank: one clean perfect ranking,
    one reply with no ids (repaired to the presentation order, i.e. also
    perfect when lenient; a constant list when strict). PointJudge: clean."""
    insts = [_list("fine-0", [2, 1, 0]), _list("fine-1", [2, 1, 0])]
    ranks = [{"request_id": "fine-0", "value": [0, 1, 2], "status": "ok"},
             {"request_id": "fine-1", "value": [0, 1, 2], "status": "wrong_format"}]
    points = [{"request_id": f"item:{it['domain']}", "value": 9 - i, "status": "ok"}
              for inst in insts for i, it in enumerate(inst["items"])]
    baseline = {"benchmark": "domainauth", "model": "baseline:random", "context": "wo_text", "setting": "fine",
                "judge": "point", "derivation": "direct", "difficulty": "all", "metric": "rho", "value": 0.1, "n": 2,
                "n_constant": 0, "parse_failure_rate": 0.0, "parse": None, "n_calls": 0}
    return pd.DataFrame(_cell_rows("list_rank", insts, ranks) + _cell_rows("point", insts, points) + [baseline])


def test_parse_rows_keeps_baselines_in_both_modes(metrics):
    strict, lenient = parse_rows(metrics, "strict"), parse_rows(metrics, "lenient")
    assert set(strict["parse"].dropna()) == {"strict"} and set(lenient["parse"].dropna()) == {"lenient"}
    assert (strict["model"] == "baseline:random").sum() == (lenient["model"] == "baseline:random").sum() == 1
    rho = lambda df: df[(df["judge"] == "list_rank") & (df["metric"] == "rho")]["value"].item()
    assert rho(strict) == pytest.approx(0.5) and rho(lenient) == pytest.approx(1.0)  # (1 + 0) / 2 vs (1 + 1) / 2
    assert parse_rows(metrics.drop(columns="parse"), "strict") is not None
    with pytest.raises(ValueError, match="parse mode"):
        other_mode("loose")


def test_parse_note_says_which_mode_and_what_the_other_gives(metrics):
    shown = A.table_main(parse_rows(metrics, "strict"), "domainauth", "fine")
    other = A.table_main(parse_rows(metrics, "lenient"), "domainauth", "fine")
    note = parse_note(shown, other, "strict")
    assert note.startswith(" Parsing: strict (a failed reply contributes no prediction: its items rank last")
    # m1's row has 4 judge values (Point rho/tau, ListRank rho/tau), the baseline's 1: ListRank's two change by 50 points
    assert "Lenient parsing (a failed reply contributes what the parser recovered: the last verdict" in note
    assert "changes 2 of 5 values here, by at most 50.00 points" in note
    back = parse_note(other, shown, "lenient")
    assert back.startswith(" Parsing: lenient") and "Strict parsing" in back and "changes 2 of 5 values" in back
    same = parse_note(shown, shown, "strict")
    assert same.endswith("gives the same 5 values here.")
    assert parse_note(shown, None, "strict") == (" Parsing: strict (a failed reply contributes no prediction: "
                                                  "its items rank last, its pair counts as wrong).")


def test_domainauth_report_captions(metrics, tmp_path):
    mfile = tmp_path / "metrics.tsv"
    metrics.to_csv(mfile, sep="\t", index=False)
    labels = tmp_path / "labels.tsv"
    write_ten_level_labels(labels)
    pred = tmp_path / "pred.tsv"
    write_tsv([{"model": "m1", "context": "wo_text", "domain": "a.gov", "level": 5, "pred": 8, "category": "gov"},
               {"model": "m1", "context": "wo_text", "domain": "b.ac.id", "level": 4, "pred": "", "category": "edu"}],
              pred, list(PRED_COLUMNS))
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"cell": "domainauth/m1/list_rank/wo_text/fine", "n_calls": 2,
                                    "unique_requests": 2, "cache_hits": 0, "prompt_tokens": 10,
                                    "completion_tokens": 4, "engine_seconds": 1.0}))
    out = tmp_path / "report"
    write_domainauth_report(out, [str(mfile)], str(labels), [str(pred)], [str(manifest)],
                            {"written": ["table1_fine", "table8_categories"], "skipped": {}}, list(CATEGORIES),
                            CATEGORIES, "lenient")
    t1 = (out / "tables" / "table1_fine.md").read_text().splitlines()[0]
    assert "fail% = parse failures among the judge's calls. Parsing: lenient" in t1
    assert "Strict parsing (a failed reply contributes no prediction" in t1
    assert "changes 2 of 5 values here, by at most 50.00 points" in t1
    # lenient numbers shown: ListRank rho (1 + 1) / 2 = 100.00
    row = next(line for line in (out / "tables" / "table1_fine.md").read_text().splitlines() if line.startswith("| m1"))
    assert "100.00" in row
    t8 = (out / "tables" / "table8_categories.md").read_text().splitlines()[0]
    assert ("Categories by public suffix (the label nearest the TLD decides; listed domains and suffixes first): "
            "gov: TLD .gov or a suffix label below the TLD in {gov, gob}; edu: TLD .edu or a suffix label below the "
            "TLD in {ac}; social: 2 listed domains.") in t8
    assert "Parsing: lenient" in t8
    saved = pd.read_csv(out / "metrics.tsv", sep="\t")
    assert set(saved["parse"].dropna()) == {"strict", "lenient"}  # both modes kept for the researcher
    assert set(METRIC_COLUMNS) <= set(saved.columns)


# --- the DomainAuth report for every reduced grid ------------------------------------------------------------

FIXTURE = Path(__file__).parents[3] / "fixtures" / "domainauth_text"
SAMPLING = dict(fine_lists=2, coarse_lists=2, easy_pairs=2, hard_pairs=2, easy_min_delta=5, hard_max_delta=2,
                anchors=5, bias_per_level=1, bias_per_category=1)


def _cli(*args, **params):
    from authbench.cli import main

    assert main([*map(str, args), "--params", json.dumps(params)]) == 0


INTERVALS = {"show": "inline", "resamples": 200, "level": 0.95, "min_units": 5}  # config intervals

def _domainauth_report(root, work, settings, contexts, judges=("point", "list_rank", "list_score", "pair_rank",
                                                                 "pair_score")):
    """The DomainAuth rules' chain through the CLI (engine instant: no model) on the with-text fixture, for a
    grid of ``settings`` x ``contexts``: build, sample, every cell's judge/evaluate (and Table 8's predictions),
    baselines, report. Returns the report folder and the files rules/common.smk declares for it."""
    import yaml
    from authbench.config import validate_schema
    from authbench.studies.authority.grid import grid
    from authbench.studies.registry import check as check_config
    from authbench.render.catalog import report_choice, report_files
    from authbench.studies.authority.outputs import DOMAINAUTH, baseline_inputs, scales
    from authbench.studies.scorecard import coverage_params

    config = yaml.safe_load((root / "config.yaml").read_text())
    config.update(studies=["domainauth"], settings=list(settings), contexts=list(contexts), judges=list(judges),
                  models={"m": {"engine": "instant", "model": "rehearsal", "paper_name": "Qwen3-8B"}})
    dom = config["domainauth"]
    dom.update(source=str(FIXTURE / "urls.csv"), text=str(FIXTURE / "texts.tsv"))
    dom["sampling"].update(SAMPLING)
    validate_schema(config)
    check_config(config)
    labels, drops, inst = work / "labels.tsv", work / "drops.tsv", work / "instances"
    _cli("domainauth-build", "--source", dom["source"], "--labels", labels, "--drops", drops,
         **{k: dom[k] for k in ("status_filter", "text", "text_max_words", "categories")})
    _cli("domainauth-sample", "--labels", labels, "--outdir", inst, sampling=dom["sampling"], seed=13)
    metrics, manifests, predictions, units = [], [], [], []
    for cell in grid(config):
        d = work / "cells" / cell.judge / cell.context / cell.setting
        ident = dict(dataset=cell.dataset, model=cell.model, judge=cell.judge, context=cell.context,
                     setting=cell.setting)
        instances = inst / f"{cell.setting}.jsonl"
        _cli("authority-judge", "--instances", instances, "--template",
             root / f"resources/prompts/domainauth/{cell.judge}_{cell.context}.yaml", "--responses",
             d / "responses.jsonl", "--samples", d / "samples.parquet", "--judgments", d / "judgments.jsonl",
             "--manifest", d / "manifest.json",
             cell=cell.id, judge=cell.judge, context=cell.context, setting=cell.setting, seed=13, constrained=True,
             cache=None, model={k: v for k, v in config["models"]["m"].items() if k != "paper_name"},
             expected_scores=False)
        manifests.append(d / "manifest.json")
        if cell.setting == "bias":
            _cli("authority-predictions", "--instances", instances, "--judgments", d / "judgments.jsonl",
                 "--predictions", d / "predictions.tsv", **ident, parse="strict")
            predictions.append(d / "predictions.tsv")
            continue
        _cli("authority-evaluate", "--instances", instances, "--judgments", d / "judgments.jsonl", "--manifest",
             d / "manifest.json", "--metrics", d / "metrics.tsv", "--units", d / "units.parquet", **ident,
             scales=scales(config, cell.dataset, cell.setting), near_constant=config["judge_validity"]["near_constant"],
             intervals=INTERVALS, seed=0)
        metrics.append(d / "metrics.tsv")
        units.append(d / "units.parquet")
    inputs = baseline_inputs(config, "domainauth")
    _cli("authority-baselines", "--instances-dir", inst, "--metrics", work / "baselines.tsv", "--units",
         work / "baselines.parquet", dataset="domainauth", seed=13, intervals=INTERVALS, **inputs)
    out = work / "report"
    _cli("domainauth-report", "--metrics", *metrics, work / "baselines.tsv", "--units", *units,
         work / "baselines.parquet", "--labels", labels, "--predictions", *predictions, "--manifests", *manifests,
         "--outdir", out, settings=config["settings"], judges=config["judges"], contexts=config["contexts"],
         plan=report_choice(DOMAINAUTH, config), category_order=list(dom["categories"]), categories=dom["categories"],
         parse="strict", judge_validity=None, scorecard=coverage_params(config, "domainauth"), intervals=INTERVALS, seed=0)
    return out, report_files(DOMAINAUTH, str(out), config)


@pytest.mark.parametrize("settings, contexts, tables", [
    (["bias"], ["wo_text"], ["table8_categories"]),
    (["pairs"], ["wo_text"], ["table3_pairs"]),
    (["fine"], ["wo_text"], ["table1_fine", "table9_derivations_fine"]),
    (["coarse"], ["wo_text"], ["table2_coarse", "table10_derivations_coarse"]),
    (["fine", "coarse", "pairs", "bias"], ["w_text"], ["table1_fine", "table9_derivations_fine", "table2_coarse",
                                                       "table10_derivations_coarse", "table3_pairs",
                                                       "table8_categories"])])
def test_every_reduced_grid_reports(root, tmp_path, settings, contexts, tables):
    """config.yaml says entries of settings/contexts may be removed: every such grid's report succeeds
    (settings [bias] or [pairs] alone included, the cost table too), writes exactly the files the
    workflow declares for it, and its contents.md says which tables were skipped and why."""
    out, declared = _domainauth_report(root, tmp_path, settings, contexts)
    written = {str(p) for p in out.rglob("*") if p.is_file() and p.suffix != ".pdf"}
    assert written == set(declared)
    assert {p.stem for p in (out / "tables").glob("table*.csv")} == set(tables)
    contents = (out / "contents.md").read_text()
    assert f"Grid: settings [{', '.join(settings)}]; judges [point, list_rank, list_score, pair_rank, pair_score]; " \
           f"contexts [{', '.join(contexts)}]; parse: strict." in contents
    for stem in tables:
        assert f"| tables/{stem}.csv/.md/.tex | written |" in contents
    for setting, stems in (("fine", ["table1_fine", "table9_derivations_fine"]),
                           ("coarse", ["table2_coarse", "table10_derivations_coarse"]),
                           ("pairs", ["table3_pairs"]), ("bias", ["table8_categories"])):
        for stem in stems:
            assert (f"| - | skipped: config key 'settings' has no '{setting}' |" in
                    next(line for line in contents.splitlines() if line.startswith(f"| {A_TITLE(stem)}"))) == (
                setting not in settings)
    costs = pd.read_csv(out / "tables" / "costs.csv")
    assert len(costs) == len(list((tmp_path / "cells").rglob("manifest.json")))  # every cell costed
    empty = "written, empty: no fine or coarse list cell with a rho" in contents
    assert empty == (not {"fine", "coarse"} & set(settings))
    # the scorecard: the instant model is Qwen3-8B; every published Qwen3-8B number of the grid's tables is matched
    assert "| Scorecard: the papers' published numbers beside this run's | scorecard.md/.tsv | written |" in contents
    card = pd.read_csv(out / "scorecard.tsv", sep="\t", keep_default_na=False)
    qwen = card[card["model"] == "Qwen3-8B"]
    reasons = set(qwen["reason"]) - {""}
    assert all("not in the grid" in r for r in reasons), reasons
    compared = qwen[qwen["reason"] == ""]
    shown = {1: "fine", 9: "fine", 2: "coarse", 10: "coarse", 3: "pairs"}
    assert set(compared["table"]) == {t for t, s in shown.items() if s in settings}
    assert (compared["ours"] == "m").all()  # Table 8 has no Qwen3-8B row: settings [bias] compares none
    assert set(compared["context"]) == (set(contexts) if len(compared) else set())
    data = card[card["kind"] == "data"]  # Table 8's caption numbers, counted from the bias sample's domains
    assert set(data["metric"]) == ({"true_mean_pagerank", "n_domains"} if "bias" in settings else set())
    assert (data["scope"] == "sample: config domainauth.sampling bias_per_level 1, bias_per_category 1").all()
    # every metric row's interval, the paired comparisons of the cells' units, listed in contents.md
    from authbench.render.comparisons import COLUMNS

    metrics = pd.read_csv(out / "metrics.tsv", sep="\t")
    assert {"lo", "hi"} <= set(metrics.columns)
    comparisons = pd.read_csv(out / "comparisons.tsv", sep="\t", keep_default_na=False)
    assert tuple(comparisons.columns) == COLUMNS
    assert f"| Paired comparisons | comparisons.md, comparisons.tsv | written: {len(comparisons)} comparisons, " in contents
    assert (len(comparisons) > 0) == (settings != ["bias"])


def A_TITLE(stem):
    from authbench.studies.authority.outputs import DOMAINAUTH

    return DOMAINAUTH.item(stem).title


def _plan(report, settings, judges, expected=False, secondary=None):
    from authbench.render.catalog import report_choice

    return report_choice(report, {"settings": settings, "judges": judges, "expected_scores": expected,
                         "domainauth": {"secondary": secondary}})


def _tables(report, *args, **kw):
    return [s for s in _plan(report, *args, **kw)["written"] if s.startswith("table")]


def test_tables_need_a_judge_that_fills_them():
    from authbench.studies.authority.outputs import DOMAINAUTH, ENTITYAUTH

    assert _tables(DOMAINAUTH, ["pairs", "fine"], ["list_rank"]) == ["table1_fine"]
    assert _plan(DOMAINAUTH, ["pairs", "fine"], ["list_rank"])["skipped"] == {
        "table9_derivations_fine": "config key 'judges' has none of pair_rank, pair_score",
        "table2_coarse": "config key 'settings' has no 'coarse'",
        "table10_derivations_coarse": "config key 'settings' has no 'coarse'",
        "table3_pairs": "config key 'judges' has none of point, pair_rank, pair_score",
        "table8_categories": "config key 'settings' has no 'bias'"}
    assert _tables(DOMAINAUTH, ["bias"], ["pair_rank"]) == []
    assert _plan(ENTITYAUTH, [], ["point"])["skipped"] == {
        "table11_derivations_fine": "config key 'judges' has none of pair_rank, pair_score",
        "table12_derivations_coarse": "config key 'judges' has none of pair_rank, pair_score"}
    assert _plan(ENTITYAUTH, [], ["pair_score"])["skipped"] == {}


def test_report_items_and_files():
    """The files of a choice: Figure 6 comes with Table 8 (never a skipped row of its own), the secondary-label
    table with its long files when the config names secondary labels, the cost table as CSV and Markdown."""
    from authbench.render.catalog import report_files
    from authbench.studies.authority.outputs import DOMAINAUTH

    config = {"settings": ["fine"], "judges": ["point"], "expected_scores": False, "domainauth": {"secondary": None}}
    files = {f.split("/", 1)[1] for f in report_files(DOMAINAUTH, "r", config)}
    assert files == {"metrics.tsv", "contents.md", "scorecard.md", "scorecard.tsv", "comparisons.tsv", "comparisons.md",
                     "claims.md", "claims.tsv", "claims_cells.tsv", "units_keyed.parquet", "figures/fig3_label_distribution.png", "tables/costs.csv",
                     "tables/costs.md", "figures/cost_vs_rho.png",
                     *(f"tables/table1_fine.{e}" for e in ("csv", "md", "tex"))}
    assert "fig6_bias_heatmap" not in _plan(DOMAINAUTH, ["fine"], ["point"])["skipped"]
    config.update(settings=["bias"], domainauth={"secondary": {"labels": {"x": {}}}})
    files = {f.split("/", 1)[1] for f in report_files(DOMAINAUTH, "r", config)}
    assert {"figures/fig6_bias_heatmap.png", "tables/table8_categories.csv", "tables/secondary_labels.csv",
            "item_scores.tsv", "secondary.tsv"} <= files
