"""What a researcher sees when a run stops, through the real Snakefile with engine instant (no
model; no job gets as far as one): the failing job's error line on the console, logs under the run's
results folder, and a config.yaml value inherited by an overlay that does not fit the overlay's data."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
OVERLAY = {"studies": ["domainauth"], "judges": ["point"], "settings": ["fine"],
           "models": {"gemma3-270m": None, "qwen2.5-coder-0.5b": None, "m": {"engine": "instant", "model": "x"}},
           "selfpref": {"self": {"gemma3-270m": None, "qwen2.5-coder-0.5b": None}, "generate": {"models": []},
                        "perplexity_model": None}}


def run(work: Path, overlay: dict) -> subprocess.CompletedProcess:
    """`snakemake --configfile overlay.yaml` as a researcher types it: the demo's config.yaml (the
    Snakefile's configfile, here a copy in the working folder) with the overlay merged on top."""
    demo = yaml.safe_load((ROOT / "config.yaml").read_text())
    demo["prompts"] = str(ROOT / "resources" / "prompts")
    (work / "config.yaml").write_text(yaml.safe_dump(demo))
    (work / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                           str(work), "--cores", "1", "--configfile", str(work / "overlay.yaml")],
                          capture_output=True, text=True, env=env, timeout=600)


def test_failing_job_shows_its_error_line_and_logs_under_results(tmp_path):
    """The console shows the failing job's error line, not only "check log file(s)"; its log is under the run's
    results folder, not in a logs/ shared by every config."""
    (tmp_path / "urls.csv").write_text("a\n1\n")  # not a URL table
    overlay = {**OVERLAY, "results": "out/run1", "domainauth": {"source": "urls.csv", "status_filter": None}}
    proc = run(tmp_path, overlay)
    assert proc.returncode != 0
    log = tmp_path / "out" / "run1" / "logs" / "domainauth" / "build_domainauth.log"
    error = "error: urls.csv: line 1: missing column 'url' or 'domain' (found: a)"
    assert log.read_text().strip() == error
    assert not (tmp_path / "logs").exists()
    console = proc.stderr
    assert "log: out/run1/logs/domainauth/build_domainauth.log (check log file(s) for error details)" in console
    assert ("Failed job(s), the error in each log:\nout/run1/logs/domainauth/build_domainauth.log:\n    "
            + error) in console


def test_inherited_status_filter_that_does_not_fit_stops_the_run_and_says_why(tmp_path):
    (tmp_path / "mine.csv").write_text("url,page_rank\nhttps://www.nasa.gov/x,8\n")
    proc = run(tmp_path, {**OVERLAY, "domainauth": {"source": "mine.csv"}})
    assert proc.returncode != 0
    assert ("config key 'domainauth.status_filter' is 'legitimate' but mine.csv has no column 'status' (its columns: "
            "url, page_rank). The value of 'domainauth.status_filter' comes from config.yaml: the demo's settings, "
            "merged under every --configfile overlay, so a key your overlay leaves out keeps the demo's value. "
            "Set 'domainauth.status_filter: null' to keep every row.") in proc.stderr
    assert not (tmp_path / "results").exists()  # stopped before any job


def test_an_instances_file_cut_between_two_jobs_stops_the_judge_job(tmp_path):
    """A lost write: the sample step's pairs.jsonl loses its last lines after it was written; the
    judge job reading it stops with the file and line, and no reply of that cell is written."""
    from wfrun import snakemake

    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    (tmp_path / "resources").symlink_to(ROOT / "resources")
    fast = {"studies": ["domainauth"], "cache": None, "prompts": str(ROOT / "resources" / "prompts"),
            "models": {"gemma3-270m": {"engine": "instant"}, "qwen2.5-coder-0.5b": None},
            "judges": ["pair_rank"], "contexts": ["wo_text"], "settings": ["pairs"],
            "domainauth": {"sampling": {"easy_pairs": 4, "hard_pairs": 4}}}
    (tmp_path / "fast.yaml").write_text(yaml.safe_dump(fast))
    instances = tmp_path / "results" / "domainauth" / "instances" / "pairs.jsonl"
    proc = snakemake(tmp_path, "--cores", "1", str(instances.relative_to(tmp_path)),
                     overlays=[tmp_path / "fast.yaml"], timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = instances.read_bytes().splitlines(keepends=True)
    assert len(lines) == 8
    instances.write_bytes(b"".join(lines[:5]))  # cut exactly at a line boundary
    cell = tmp_path / "results" / "domainauth" / "cells" / "gemma3-270m" / "pair_rank" / "wo_text" / "pairs"
    proc = snakemake(tmp_path, "--cores", "1", str((cell / "responses.jsonl").relative_to(tmp_path)),
                     overlays=[tmp_path / "fast.yaml"], timeout=600)
    assert proc.returncode != 0
    assert ("error: results/domainauth/instances/pairs.jsonl: line 6: missing: the file ends after line 5 but the "
            "step that wrote it wrote 8 lines") in proc.stderr, proc.stderr[-4000:]
    assert not (cell / "responses.jsonl").exists()
