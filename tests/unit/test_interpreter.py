"""Every job's interpreter (authbench.env): the one running Snakemake, checked
when the Snakefile is parsed, named by one variable in every rule's shell; and
the summary a successful run ends with (authbench.joblogs.run_summary)."""

import re
import sys
from pathlib import Path

import pytest
from authbench.env import SHELL, job_python
from authbench.errors import SetupError
from authbench.joblogs import run_summary

ROOT = Path(__file__).resolve().parents[2]


def test_the_interpreter_running_snakemake_is_every_jobs():
    assert job_python() == sys.executable
    assert job_python(["CONDA"], python="/nowhere/python") == "python"  # each conda env installs the package


def test_a_python_without_the_package_stops_the_run_saying_what_to_run(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'Traceback (most recent call last):' >&2\n"
                    "echo \"ModuleNotFoundError: No module named 'authbench'\" >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(SetupError) as err:
        job_python(python=str(fake))
    message = str(err.value)
    assert message == (f"the jobs' interpreter {fake} cannot import authbench (ModuleNotFoundError: No module named "
                       "'authbench'): run `make install` once, then from the repository root `make run CONFIG=<your "
                       "overlay>` (or `.venv/bin/snakemake --cores N --configfile <your overlay>`)")
    with pytest.raises(SetupError, match=r"^the jobs' interpreter /nowhere/python cannot import authbench \(\[Errno 2\]"):
        job_python(python="/nowhere/python")


def _shells():
    """(file, shell string) of every rule that runs the command line, and that rule's params block."""
    out = []
    for smk in sorted((ROOT / "rules").glob("**/*.smk")):
        text = smk.read_text()
        starts = [m.start() for m in re.finditer(r"^\s*rule \w+:", text, re.M)] + [len(text)]
        for start, end in zip(starts, starts[1:]):
            body = text[start:end]
            for m in re.finditer(r'"((?:exec )?\S+) -m authbench\.cli ', body):
                out.append((smk.name, m.group(1), body))
    return out


def test_every_rules_shell_runs_the_one_interpreter():
    shells = _shells()
    assert len(shells) >= 30
    for name, python, body in shells:
        if python.removeprefix("exec ") == "{params.python}":  # a model's python: quoted by model_python
            assert re.search(r"^\s*python=model_python,$", body, re.M), f"{name}: {body[:80]}"
        else:
            assert python == SHELL, f"{name}: a shell starts with {python!r}, not {SHELL}"
    common = (ROOT / "rules" / "common.smk").read_text()
    models = (ROOT / "rules" / "inputs" / "models.smk").read_text()
    # a configured python quoted (a path with a space), else the variable, unquoted: the shell expands it
    assert 'return shlex.quote(python) if python else PYTHON' in models
    assert "os.environ[PYTHON_VARIABLE] = job_python(" in common


def test_a_run_ends_with_where_its_tables_report_and_logs_are(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for folder in ("r/domainauth/report/tables", "r/statistics/tables"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "r/domainauth/report/contents.md").write_text("")
    outputs = ["r/statistics/tables/table7_statistics.md", "r/domainauth/report/metrics.tsv",
               "r/domainauth/report/contents.md", "r/domainauth/report/tables/costs.md", "r/domainauth/drops.tsv",
               "r/entityauth/report/contents.md"]  # not built by this run (e.g. another target): not listed
    monkeypatch.setattr(sys, "executable", str(tmp_path / "venv" / "bin" / "python"))
    text = run_summary(outputs, "r", [tmp_path / ".snakemake/log/x.snakemake.log"], [tmp_path / "own.yaml"],
                       {"seed": 3, "models": {"a": "b"}, "results": "r"})
    assert text.splitlines() == [
        "Tables and figures (each report's contents.md lists its files):",
        "  r/statistics/",
        "  r/domainauth/report/contents.md",
        "HTML report of every table and figure with its caption, and the sample viewers (r/report.zip), built by:",
        f"  {tmp_path}/venv/bin/python -m snakemake --configfile own.yaml --config seed=3 "
        "'models={\"a\": \"b\"}' results=r --report r/report.zip",
        "Logs: every job's under r/logs/; this run's Snakemake log: .snakemake/log/x.snakemake.log"]
    (tmp_path / "venv/bin").mkdir(parents=True)
    (tmp_path / "venv/bin/snakemake").write_text("")
    assert run_summary([], "r", []).splitlines() == [  # no report folder: the rest still; the snakemake script
        "HTML report of every table and figure with its caption, and the sample viewers (r/report.zip), built by:",
        "  venv/bin/snakemake --report r/report.zip", "Logs: every job's under r/logs/"]
