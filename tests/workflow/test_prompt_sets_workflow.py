"""Prompt variants in one run (examples/prompt_sets.yaml): a second
prompt set that rewords DomainAuth's PointJudge runs once more every
PointJudge cell as ``<model>@reworded`` from its own template, beside the
paper set's cells (whose paths are unchanged); the tables get the set's rows;
editing one template of the set reruns exactly the cells that read it."""

import re

import pytest
import yaml
from typedcopy import bash, edited, typed_run
from wfrun import jsonl, read_tsv

CONFIG = "examples/prompt_sets.yaml"


@pytest.fixture(scope="module")
def run(typed):
    """The documented `make run CONFIG=examples/prompt_sets.yaml` of the typed copy (every model of
    config.yaml, instant): (the copy, its results folder, the models)."""
    copy = typed[0]
    models = sorted(yaml.safe_load((copy / "config.yaml").read_text())["models"])
    return copy, typed_run(typed, CONFIG)[1], models


def test_the_sets_cells_read_their_own_template(run):
    _, results, models = run
    cells = results / "domainauth" / "cells"
    assert sorted(p.name for p in cells.iterdir()) == sorted([*models, *(f"{m}@reworded" for m in models)])
    for model in models:
        # the reworded set holds PointJudge only: no other judge's cell of it
        assert sorted(p.name for p in (cells / f"{model}@reworded").iterdir()) == ["point"]
        assert len(list((cells / model).iterdir())) > 1
    for setting in ("fine", "pairs"):
        paper = cells / "gemma3-270m" / "point" / "wo_text" / setting
        other = cells / "gemma3-270m@reworded" / "point" / "wo_text" / setting
        hashes = [{r["prompt_sha256"] for r in jsonl(c / "responses.jsonl")} for c in (paper, other)]
        assert len(hashes[0]) == len(hashes[1]) > 0 and not hashes[0] & hashes[1]  # same requests, other prompts
        assert len(jsonl(paper / "judgments.jsonl")) == len(jsonl(other / "judgments.jsonl"))
    metrics = read_tsv(cells / "gemma3-270m@reworded" / "point" / "wo_text" / "fine" / "metrics.tsv")
    assert {r["model"] for r in metrics} == {"gemma3-270m@reworded"}


def test_tables_get_the_sets_rows(run):
    _, results, models = run
    text = (results / "domainauth" / "report" / "tables" / "table1_fine.md").read_text()
    for model in models:
        assert re.search(rf"^\| {re.escape(model)} \|", text, re.M), model
        assert re.search(rf"^\| {re.escape(model)}@reworded \|", text, re.M), model


def test_editing_one_template_of_the_set_reruns_exactly_its_cells(run):
    copy, results, _ = run
    template = copy / "examples" / "prompt_sets" / "reworded" / "domainauth" / "point_wo_text.yaml"
    text = template.read_text()
    assert "How authoritative" in text
    # a dry run in the copy, the template put back after it (content and time: the copy's other readers)
    with edited(template, text.replace("How authoritative", "How trustworthy and authoritative")):
        proc = bash(copy, f".venv/bin/snakemake -n --cores 1 --configfile={CONFIG}", timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = proc.stdout + proc.stderr
    judged = re.findall(r"rule authority_judge:.*?wildcards: ([^\n]+)", out, re.S)
    cells = sorted(results.glob("domainauth/cells/*@reworded/point/wo_text/*/judgments.jsonl"))
    assert len(cells) >= 4  # every setting of every model
    assert sorted(judged) == sorted(
        f"dataset=domainauth, model={c.parts[-5]}, judge=point, context=wo_text, setting={c.parts[-2]}"
        for c in cells)


def test_comparisons_have_the_set_vs_set_family(run):
    _, results, models = run
    report = results / "domainauth" / "report"
    rows = read_tsv(report / "comparisons.tsv")
    sets = [r for r in rows if r["family"] == "prompt set vs prompt set"]
    # PointJudge, w/o text, argmax (direct) and E[s] (expected), each model against itself
    assert {(r["a"], r["b"]) for r in sets} == {(f"{m}@reworded point/{d} w/o", f"{m} point/{d} w/o")
                                                for m in models for d in ("direct", "expected")}
    # per setting: fine and coarse ρ and τ, pairs acc per difficulty
    assert sorted(r["what"] for r in sets if r["a"] == "gemma3-270m@reworded point/direct w/o") == [
        "domainauth coarse ρ", "domainauth coarse τ", "domainauth fine ρ", "domainauth fine τ",
        "domainauth pairs acc easy", "domainauth pairs acc hard"]
    # model vs model stays within one prompt set: the two sets' cells are never compared there
    between = [r for r in rows if r["family"] == "model vs model"]
    assert between and all(("@reworded" in r["a"]) == ("@reworded" in r["b"]) for r in between), between[:3]
    assert "## prompt set vs prompt set" in (report / "comparisons.md").read_text()
