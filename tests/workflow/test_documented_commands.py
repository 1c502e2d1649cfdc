"""Every command the docs tell a user to type, typed as written.

The commands (README.md, docs/**/*.md, the run line of each examples/*.yaml and
config/*.yaml header) are collected and classified by rule
(tests/doccommands.py), filled in, and each one runs as a user types it, in
one copy of the repository, in document order (tests/typedcopy.py; the
session fixture ``typed`` of tests/workflow/conftest.py, whose config runs
the other modules read too).

Then: the plan of every config run for real equals what the run did (its
model jobs, each job's requests: the plan-equals-run rule); the paper
grid's plan (config/paper.yaml, which cannot run here) holds exactly the
model jobs its dry run schedules; every example and config file has a
plan.md; a long-form file mapped record-wise stops ``make run`` with the
import's diagnosis on the console.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import yaml
from doccommands import (UnknownPlaceholder, classify, documented_commands, fetches_from_the_web, readme_activation,
                         writes_passages)
from dryrun import scheduled_cells
from typedcopy import bash
from wfrun import read_tsv


def test_every_documented_command_is_classified():
    """Each command gets a rule (an unknown placeholder or a command no rule
    covers fails here, naming it); a command added to the docs is covered
    without editing this test."""
    commands = documented_commands()
    assert len(commands) > 50
    problems = []
    for cmd in commands:
        try:
            classify(cmd)
        except UnknownPlaceholder as err:
            problems.append(str(err))
        except ValueError as err:
            problems.append(f"{cmd.source}: `{cmd.text}`: {err}")
    assert not problems, "\n".join(problems)
    assert readme_activation(), "README.md gives no `source .venv/bin/activate` for the bare commands"


def test_make_install_does_nothing_in_the_copy(typed):
    """The copy's .venv is this suite's, installed: make has nothing to do (no reinstall, no new editable install)."""
    _, installed, _ = typed
    lines = [line for line in installed.stdout.splitlines() if line.strip()]
    assert installed.returncode == 0 and all(line.startswith("make: Nothing to be done") for line in lines), \
        installed.stdout + installed.stderr


def test_no_job_ran_the_python_on_path(typed):
    copy, _, _ = typed
    assert not (copy.parent / "python_on_path_was_run").exists()


def test_a_run_ends_with_where_its_outputs_are_and_the_engine_time_beside_the_plan(typed):
    """`make run CONFIG=examples/own_scored_domains.yaml` as typed: the run's
    last lines name its tables, the one command that builds its HTML report
    (the same config) and its logs; `make demo` ends with each model's engine time beside the plan."""
    copy, _, ran = typed
    by_line = {cmd.line: proc for cmd, proc, _, _ in ran}
    out = by_line["make run CONFIG=examples/own_scored_domains.yaml"].stderr
    tail = out[out.index("Tables and figures"):].splitlines()
    assert tail[1:3] == ["  results/own_scored_domains/statistics/",
                         "  results/own_scored_domains/domainauth/report/contents.md"], tail
    # (.venv here links to this suite's environment: Snakemake is named by its real path)
    assert tail[4].endswith("/bin/snakemake --configfile examples/own_scored_domains.yaml --report "
                            "results/own_scored_domains/report.zip"), tail
    assert tail[5].startswith("Logs: every job's under results/own_scored_domains/logs/; this run's Snakemake log: "
                              ".snakemake/log/"), tail
    demo = by_line["make demo"].stdout + by_line["make demo"].stderr
    assert "Engine time per model (this run; every reply's tokens/s; the plan's estimate):" in demo
    assert "  gemma3-270m: " in demo and "plan: 0 s engine + 0 s loads" in demo


def test_every_documented_command_runs_as_typed(typed):
    _, _, ran = typed
    failed = [f"{cmd.source}: `{cmd.text}` ran as `{cmd.line}` ({cmd.how}: {cmd.why}), exit {proc.returncode}:\n"
              f"{(proc.stdout + proc.stderr)[-3000:]}" for cmd, proc, _, _ in ran if proc.returncode != 0]
    assert not failed, "\n\n".join(failed)
    # how each ran (shown with -s): the closing note's list
    for cmd, _, seconds, dup in ran:
        print(f"{cmd.source}\t{cmd.text}\t{cmd.how}\t{'same as before' if dup else f'{seconds:.1f} s'}")


def _run_configs(ran) -> dict[str, list[str]]:
    """Results folder -> config files of each config a command ran for real
    (a make run or demo: it plans, then runs)."""
    out = {}
    for cmd, proc, _, dup in ran:
        if cmd.how == "run" and cmd.results and cmd.runs_jobs and not dup and proc.returncode == 0:
            out.setdefault(cmd.results, cmd.configfiles)
    return out


def _manifests(results: Path, others=()) -> dict[str, dict]:
    """Cell id -> manifest of every model job under ``results``, but those
    under ``others`` (the results folders of other configs inside it: the
    demo's ``results`` holds ``results/own_rag`` ...)."""
    out = {}
    for path in results.rglob("manifest.json"):
        if any(path.is_relative_to(o) for o in others):
            continue
        m = json.loads(path.read_text())
        if "cell" in m:
            out[m["cell"]] = m
    return out


def test_the_plan_is_what_the_run_did(typed):
    """Each config run for real: the plan's model jobs are the cells the run
    made, and each job's planned requests are its manifest's (cache hits
    included). Where models write self-preference passages, the cells that
    read them (perplexity, rerank, generation) are planned with a stand-in
    per passage to be written: an upper bound on the instant engine, whose
    written passages carry no gold answer and are dropped (plan.md says so)."""
    copy, _, ran = typed
    checked = []
    folders = {copy / cmd.results for cmd, _, _, _ in ran if cmd.results}
    for results, configfiles in _run_configs(ran).items():
        folder = copy / results
        stand_ins = writes_passages(configfiles, copy)
        planned = {r["cell"]: r for r in read_tsv(folder / "plan_cells.tsv") if r["in_run"] == "yes"}
        made = _manifests(folder, [f for f in folders if f != folder and f.is_relative_to(folder)])
        assert set(planned) == set(made), (results, sorted(set(planned) ^ set(made)))
        wrong = {}
        for cell, m in made.items():
            plan, sent = int(planned[cell]["requests"]), int(m.get("n_calls", m.get("n")))
            bound = stand_ins and planned[cell]["study"] == "selfpref" and \
                planned[cell]["kind"] in ("perplexity", "rerank", "generation")
            if sent > plan or sent < plan and not bound:
                wrong[cell] = (plan, sent)
        assert not wrong, (results, wrong)
        checked.append(results)
    assert {"results", "results/demo_full", "results/own_selfpref_long", "results/claims_decide"} <= set(checked), \
        checked
    # the demo ran first, on an empty cache: per model and study the engine computed the plan's unique requests
    # (self-preference: at most, as above, the demo's models writing passages)
    planned = {(r["model"], r["study"]): int(r["unique_requests"]) for r in read_tsv(copy / "results" / "plan.tsv")
               if r["study"] != "all" and r["in_run"] == "yes"}
    computed: dict = {}
    for cell, m in _manifests(copy / "results", [f for f in folders if f != copy / "results"]).items():
        study, model = cell.split("/")[0], next(p for p in cell.split("/") if (p, cell.split("/")[0]) in planned)
        computed[model, study] = computed.get((model, study), 0) + m["engine_calls"]
    assert set(computed) == set(planned)
    assert {k: v for k, v in computed.items() if k[1] != "selfpref"} == \
        {k: v for k, v in planned.items() if k[1] != "selfpref"}
    assert all(0 < computed[k] <= planned[k] for k in planned if k[1] == "selfpref"), (computed, planned)


def test_the_paper_plan_is_what_its_dry_run_schedules(typed, paper_dry_run):
    """config/paper.yaml cannot run here (GPU models, API keys, data fetched
    from the web), but Snakemake schedules it: the model jobs of its dry run
    (each named by the cell its params give) are exactly the plan's in-run
    jobs (the plan the documented ``snakemake plan --configfile
    config/paper.yaml`` made), and the jobs the plan puts apart (RAGAuth
    without its release) are not scheduled."""
    copy, _, _ = typed
    results = yaml.safe_load((copy / "config" / "paper.yaml").read_text())["results"]
    rows = read_tsv(copy / results / "plan_cells.tsv")
    code, out = paper_dry_run
    assert code == 0, out[-3000:]
    scheduled = scheduled_cells(out)
    cells = scheduled.keys()
    planned = {r["cell"] for r in rows if r["in_run"] == "yes"}
    assert cells == planned, (sorted(cells - planned)[:20], sorted(planned - cells)[:20])
    assert len(planned) > 300 and {"authority_judge", "selfpref_generate", "selfpref_rerank"} <= set(scheduled.values())
    apart = {r["cell"] for r in rows if r["in_run"] != "yes"}
    assert apart and all(c.startswith("ragauth/") for c in apart) and not apart & cells, apart


def test_every_example_and_config_plans(typed):
    """Every examples/*.yaml and config/*.yaml writes plan.md (those no
    documented command planned: ``make plan CONFIG=...`` here), but for a
    config whose plan reads fetched data (its plan's dry run schedules a web
    fetch job): that one is dry-run only, here with no traceback."""
    copy, _, _ = typed
    missing = []
    for path in sorted([*(copy / "examples").glob("*.yaml"), *(copy / "config").glob("*.yaml")]):
        results = yaml.safe_load(path.read_text()).get("results")
        if results and not (copy / results / "plan.md").is_file():
            rel = path.relative_to(copy)
            probe = bash(copy, f".venv/bin/snakemake --configfile={rel} plan -n")
            if fetches_from_the_web(probe.stdout + probe.stderr):
                assert probe.returncode == 0 and "Traceback" not in probe.stderr, probe.stderr[-2000:]
                continue
            proc = bash(copy, f"make plan CONFIG={rel}")
            if proc.returncode != 0 or "Traceback" in proc.stdout + proc.stderr:
                missing.append(f"{path.name}: {(proc.stdout + proc.stderr)[-2000:]}")
        if results and not (copy / results / "plan.md").is_file():
            missing.append(f"{path.name}: no {results}/plan.md")
    assert not missing, "\n".join(missing)


def test_a_long_file_mapped_record_wise_stops_make_run_with_the_diagnosis(typed):
    copy, _, _ = typed
    overlay = copy / "my overlays" / "long as records.yaml"
    overlay.parent.mkdir()
    overlay.write_text(yaml.safe_dump({
        "results": "results/long_as_records", "studies": ["selfpref"],
        "selfpref": {"datasets": {"nq": None, "mine": {"sources": [{
            "file": "examples/selfpref/my_passages_long.csv", "question": "question", "answer": "gold",
            "passages": [{"author": "human", "text": "passage", "false_answer": "false_answer"}]}]}}},
    }))
    proc = bash(copy, f"make run CONFIG={shlex.quote(str(overlay))}")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    assert "looks long-form" in out, out[-3000:]
    lines = [line.strip() for line in out.splitlines()]
    at = lines.index("rows:")  # the mapping to paste, filled in from the file's fields
    assert lines[at + 1:at + 4] == ["qid: question_id", "question: question", "answer: gold"], lines[at:at + 12]
    assert any(line.startswith("author: {field: writer, values: {") for line in lines[at:at + 12]), lines[at:at + 12]
    assert "results/long_as_records/logs/" in out, out[-3000:]
    assert "Traceback" not in out, out[-3000:]


def test_a_config_that_is_not_a_file_is_named(typed):
    copy, _, _ = typed
    proc = bash(copy, "make plan CONFIG='examples/no such overlay.yaml'")
    assert proc.returncode != 0
    assert "CONFIG=examples/no such overlay.yaml: no such file" in proc.stderr, proc.stderr
