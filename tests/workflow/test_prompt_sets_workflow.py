"""Prompt variants in one run (examples/prompt_sets.yaml): a second
prompt set that rewords DomainAuth's PointJudge runs once more every
PointJudge cell as ``<model>@reworded`` from its own template, beside the
paper set's cells (whose paths are unchanged); the tables get the set's rows;
editing one template of the set reruns exactly the cells that read it."""

import re
import shutil

import pytest
import yaml
from wfrun import ROOT, jsonl, read_tsv, snakemake

OVERLAY = ROOT / "examples" / "prompt_sets.yaml"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("prompt_sets")
    shutil.copy(ROOT / "config.yaml", work / "config.yaml")
    (work / "resources").symlink_to(ROOT / "resources")  # the demo's data and the paper set, read only
    shutil.copytree(ROOT / "examples" / "prompt_sets", work / "examples" / "prompt_sets")  # the overlay's relative folder
    fast = {"studies": ["domainauth"], "cache": None,
            "models": {"gemma3-270m": {"engine": "instant"}, "qwen2.5-coder-0.5b": None},
            "judges": ["point", "list_rank"], "contexts": ["wo_text"], "settings": ["fine", "pairs"]}
    (work / "fast.yaml").write_text(yaml.safe_dump(fast))
    overlays = [OVERLAY, work / "fast.yaml"]
    proc = snakemake(work, "--cores", "2", overlays=overlays, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work, overlays


def test_the_sets_cells_read_their_own_template(run):
    work, _ = run
    cells = work / "results" / "prompt_sets" / "domainauth" / "cells"
    assert sorted(p.name for p in cells.iterdir()) == ["gemma3-270m", "gemma3-270m@reworded"]
    # the reworded set holds PointJudge only: no ListRank cell of it
    assert sorted(p.name for p in (cells / "gemma3-270m@reworded").iterdir()) == ["point"]
    for setting in ("fine", "pairs"):
        paper = cells / "gemma3-270m" / "point" / "wo_text" / setting
        other = cells / "gemma3-270m@reworded" / "point" / "wo_text" / setting
        hashes = [{r["prompt_sha256"] for r in jsonl(c / "responses.jsonl")} for c in (paper, other)]
        assert len(hashes[0]) == len(hashes[1]) > 0 and not hashes[0] & hashes[1]  # same requests, other prompts
        assert len(jsonl(paper / "judgments.jsonl")) == len(jsonl(other / "judgments.jsonl"))
    metrics = read_tsv(cells / "gemma3-270m@reworded" / "point" / "wo_text" / "fine" / "metrics.tsv")
    assert {r["model"] for r in metrics} == {"gemma3-270m@reworded"}


def test_tables_get_the_sets_rows(run):
    work, _ = run
    table1 = (work / "results" / "prompt_sets" / "domainauth" / "report" / "tables" / "table1_fine.md")
    text = table1.read_text()
    assert re.search(r"^\| gemma3-270m \|", text, re.M) and re.search(r"^\| gemma3-270m@reworded \|", text, re.M)


def test_editing_one_template_of_the_set_reruns_exactly_its_cells(run):
    work, overlays = run
    template = work / "examples" / "prompt_sets" / "reworded" / "domainauth" / "point_wo_text.yaml"
    template.write_text(template.read_text().replace("How authoritative", "How trustworthy and authoritative"))
    proc = snakemake(work, "-n", "--cores", "1", overlays=overlays, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout + proc.stderr
    judged = re.findall(r"rule authority_judge:.*?wildcards: ([^\n]+)", out, re.S)
    assert sorted(judged) == sorted(
        f"dataset=domainauth, model=gemma3-270m@reworded, judge=point, context=wo_text, setting={s}"
        for s in ("fine", "pairs"))


def test_comparisons_have_the_set_vs_set_family(run):
    work, _ = run
    report = work / "results" / "prompt_sets" / "domainauth" / "report"
    rows = read_tsv(report / "comparisons.tsv")
    sets = [r for r in rows if r["family"] == "prompt set vs prompt set"]
    # PointJudge, w/o text, argmax (direct) and E[s] (expected): fine ρ and τ, pairs acc per difficulty
    assert {(r["a"], r["b"]) for r in sets} == {(f"gemma3-270m@reworded point/{d} w/o", f"gemma3-270m point/{d} w/o")
                                                for d in ("direct", "expected")}
    assert sorted(r["what"] for r in sets if "/direct" in r["a"]) == [
        "domainauth fine ρ", "domainauth fine τ", "domainauth pairs acc easy", "domainauth pairs acc hard"]
    # model vs model stays within one prompt set: the two sets' cells are never compared there
    assert not [r for r in rows if r["family"] == "model vs model"]
    assert "## prompt set vs prompt set" in (report / "comparisons.md").read_text()
