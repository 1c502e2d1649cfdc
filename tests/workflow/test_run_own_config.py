"""`make run CONFIG=<overlay>` in a new shell: Snakemake started from the
virtual environment by path (no activated environment, so the `python` on
PATH is one without the package) still runs every job, because each job runs
the interpreter that runs Snakemake ($AUTHBENCH_PYTHON, authbench.env); the
run ends with where its tables, HTML report and logs are."""

import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml
from wfrun import ROOT

OVERLAY = ROOT / "examples" / "own_scored_domains.yaml"


def test_jobs_use_the_interpreter_running_snakemake_not_python_on_path(tmp_path):
    work, bin_ = tmp_path / "work", tmp_path / "bin"
    (work / "examples").mkdir(parents=True)
    bin_.mkdir()
    shutil.copy(ROOT / "examples" / "my_scored_domains.csv", work / "examples")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    fast = {"models": {"gemma3-270m": {"engine": "instant"}, "qwen2.5-coder-0.5b": None}, "cache": None,
            "judges": ["point"], "settings": ["bias"], "intervals": {"resamples": 100}}
    (work / "fast.yaml").write_text(yaml.safe_dump(fast))
    # the first `python` on PATH lacks the package (as the system one in a new shell) and says when it is run
    called = tmp_path / "python_on_path_was_run"
    (bin_ / "python").write_text(f"#!/bin/sh\ntouch {called}\necho \"No module named 'authbench'\" >&2\nexit 1\n")
    (bin_ / "python").chmod(0o755)
    script = Path(sys.executable).with_name("snakemake")  # what `make run` starts: .venv/bin/snakemake
    start = [str(script)] if script.is_file() else [sys.executable, "-m", "snakemake"]
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    env.pop("VIRTUAL_ENV", None)
    proc = subprocess.run([*start, "-s", str(ROOT / "Snakefile"), "--directory", str(work), "--cores", "2",
                           "--configfile", str(work / "config.yaml"), str(OVERLAY), str(work / "fast.yaml")],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert not called.exists(), "a job ran the `python` on PATH"
    results = work / "results" / "own_scored_domains"
    assert (results / "domainauth" / "report" / "tables" / "secondary_labels.md").is_file()
    # the end of the run: where the tables, the HTML report (and its one command) and the logs are
    tail = proc.stderr[proc.stderr.index("Tables and figures"):].splitlines()
    assert tail[1:3] == ["  results/own_scored_domains/statistics/",
                         "  results/own_scored_domains/domainauth/report/contents.md"], tail
    # (Snakemake's working folder is `work`: the configs there are named relative to it)
    report = f"--configfile config.yaml {OVERLAY} fast.yaml --report results/own_scored_domains/report.zip"
    assert tail[4] == f"  {start[0] if len(start) == 1 else ' '.join(start)} {report}", tail
    assert tail[5].startswith("Logs: every job's under results/own_scored_domains/logs/; this run's Snakemake log: "
                              ".snakemake/log/"), tail
    # that command builds the report (here with the Snakefile named: the working folder is not the repository's)
    proc = subprocess.run([*shlex.split(tail[4]), "-s", str(ROOT / "Snakefile")], cwd=work, capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with zipfile.ZipFile(results / "report.zip") as z:
        assert "secondary_labels" in z.read("report/report.html").decode("utf-8", "replace")
