"""What a prompt edit changed: run DomainAuth's PairJudge-Rank
pairs cell (the instant engine), edit its template, rerun; the cell's
history keeps both versions and the study's diffs.md holds the diff, whose
counts equal those computed here from the two runs' judgments and the
pairs' true levels."""

import json
import re
import shutil
import zipfile

import pytest
import yaml
from wfrun import ROOT, jsonl, snakemake

CELL = "domainauth/gemma3-270m/pair_rank/wo_text/pairs"


def _verdicts(folder, instances):
    """request id -> (reply, correct, parsed) from a run's judgments and
    responses and the pairs' true levels, as the paper counts a pair: the
    choice ("A"/"B") must name the domain with the higher level; a reply that
    did not parse (strict parsing) is wrong."""
    level = {i["instance_id"]: [it["level"] for it in i["items"]] for i in instances}
    replies = {r["request_id"]: r["text"] for r in jsonl(folder / "responses.jsonl")}
    out = {}
    for j in jsonl(folder / "judgments.jsonl"):
        iid, pos = j["request_id"].rsplit(":", 1)
        la, lb = (level[iid][int(p)] for p in pos.split("-"))
        choice = j["value"] if j["status"] == "ok" else None
        out[j["request_id"]] = (replies[j["request_id"]], choice == ("A" if la > lb else "B"), j["status"] == "ok")
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("prompt_diff")
    shutil.copy(ROOT / "config.yaml", work / "config.yaml")
    (work / "resources").symlink_to(ROOT / "resources")
    shutil.copytree(ROOT / "resources" / "prompts", work / "prompts")  # edited below
    fast = {"studies": ["domainauth"], "cache": None, "prompts": "prompts",
            "models": {"gemma3-270m": {"engine": "instant"}, "qwen2.5-coder-0.5b": None},
            "judges": ["pair_rank"], "contexts": ["wo_text"], "settings": ["pairs"],
            "domainauth": {"sampling": {"easy_pairs": 12, "hard_pairs": 12}}}
    (work / "fast.yaml").write_text(yaml.safe_dump(fast))
    overlays = [work / "fast.yaml"]
    proc = snakemake(work, "--cores", "2", overlays=overlays, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    cell = work / "results" / "domainauth" / "cells" / "gemma3-270m" / "pair_rank" / "wo_text" / "pairs"
    instances = jsonl(work / "results" / "domainauth" / "instances" / "pairs.jsonl")
    before = _verdicts(cell, instances)
    index = work / "results" / "domainauth" / "report" / "diffs.md"
    first_index = index.read_text()
    template = work / "prompts" / "domainauth" / "pair_rank_wo_text.yaml"
    text = template.read_text()
    edited = re.sub(r"(?m)^(\s*)(\S.*authoritative.*)$", r"\1\2 Think about who publishes each site.", text, count=1)
    assert edited != text
    template.write_text(edited)
    proc = snakemake(work, "--cores", "2", overlays=overlays, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    proc = snakemake(work, "--report", str(work / "report.zip"), overlays=overlays, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {"work": work, "before": before, "after": _verdicts(cell, instances), "first_index": first_index,
            "index": index.read_text(), "diff": (index.parent / "diffs" / f"{CELL}.md").read_text()}


def _row(diff, name):
    (value,) = re.findall(rf"^\| {re.escape(name)} \| (.*) \|$", diff, re.MULTILINE)
    return value


def test_the_first_run_has_no_diff_and_the_rerun_lists_the_cell(runs):
    assert "No cell has an earlier version with another template." in runs["first_index"]
    assert f"[{CELL}](diffs/{CELL}.md)" in runs["index"]
    history = runs["work"] / "results" / "history" / CELL
    kept = sorted(p.name for p in history.iterdir())
    assert len(kept) == 2 and all((history / k / "samples.parquet").is_file() for k in kept)
    contents = (runs["work"] / "results" / "domainauth" / "report" / "contents.md").read_text()
    assert "| diffs.md |" in contents


def test_the_report_holds_the_studys_diffs(runs):
    with zipfile.ZipFile(runs["work"] / "report.zip") as z:
        (name,) = [n for n in z.namelist() if n.endswith("/diffs.md")]
        assert z.read(name).decode() == runs["index"]
        page = z.read("report/report.html").decode("utf-8")
    assert "prompt-edit diffs" in page and "history folder" in page  # its subcategory, caption


def test_the_diffs_counts_equal_the_two_runs_judgments(runs):
    b, a = runs["before"], runs["after"]
    both = [r for r in a if r in b]
    judged = [r for r in both if a[r][1] is not None and b[r][1] is not None]
    diff = runs["diff"]
    assert _row(diff, "replies that changed (of those in both)") == str(sum(a[r][0] != b[r][0] for r in both))
    to_wrong = [r for r in judged if b[r][1] and not a[r][1]]
    to_right = [r for r in judged if not b[r][1] and a[r][1]]
    assert _row(diff, "correct → wrong").startswith(f"{len(to_wrong)} (")
    assert _row(diff, "wrong → correct").startswith(f"{len(to_right)} (")
    assert to_wrong or to_right  # the edit changed some verdicts: a diff that could show nothing proves nothing
    share = lambda side: sum(bool(side[r][1]) for r in judged) / len(judged)
    assert _row(diff, "before → after") == f"{share(b):.3f} → {share(a):.3f}"
    assert f"share correct over the {len(judged)} requests" in _row(diff, "metric")
    fails = lambda side: sum(not ok for _, _, ok in side.values())
    assert _row(diff, "parse failures before → after") == f"{fails(b)} → {fails(a)}"
    assert "+" in diff and "Think about who publishes each site." in diff.split("```diff", 1)[1]
    print(json.dumps({"diff": diff}))  # the closing note's example
