"""A run against its plan (authbench.plan.progress): progress lines read
from job logs and manifests, and the time left, by hand."""

import json

from authbench.plan.progress import last_progress, progress_lines
from authbench.records import write_tsv

COLUMNS = ["model", "study", "cell", "kind", "in_run", "requests", "unique_requests", "prompt_tokens",
           "evaluated_tokens", "completion_estimate", "engine_seconds", "load_seconds"]


def _plan(results, rows):
    write_tsv([dict(zip(COLUMNS, r)) for r in rows], results / "plan_cells.tsv", COLUMNS)


def test_the_last_progress_line_of_a_log(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("2026-11-27 10:00:00,000 INFO authbench: cell a/m/x: 2/10 requests, 40 tokens/s over 21 s, "
                   "about 1 min 24 s left\nsomething else\n")
    got = last_progress(log)
    assert (got["cell"], got["done"], got["total"], got["over"], got["left"]) == ("a/m/x", 2, 10, 21, 84)
    log.write_text("INFO authbench: a/m/x: 10/10 requests, 40 tokens/s over 1 min 5 s\n")
    assert last_progress(log)["left"] is None and last_progress(log)["over"] == 65


def test_progress_per_model_by_hand(tmp_path):
    results = tmp_path / "results"
    (results / "logs").mkdir(parents=True)
    _plan(results, [("m", "domainauth", "domainauth/m/a", "judge", "yes", 1, 1, 1, 1, 1, 60, 0),
                    ("m", "domainauth", "domainauth/m/b", "judge", "yes", 1, 1, 1, 1, 1, 120, 0),
                    ("m", "domainauth", "domainauth/m/c", "judge", "yes", 1, 1, 1, 1, 1, 60, 0),
                    ("m", "ragauth", "ragauth/m/x", "rank", "no", 1, 1, 1, 1, 1, 999, 0),
                    ("h", "selfpref", "selfpref/nq/h/knowledge", "knowledge", "yes", 1, 1, 1, 1, 1, "", "")])
    # a finished in 90 s (planned 60: 1.5x), b running (30 s so far, says 45 s left), c not started
    cell = results / "domainauth" / "a"
    cell.mkdir(parents=True)
    (cell / "manifest.json").write_text(json.dumps({"cell": "domainauth/m/a", "engine_seconds_this_run": 85,
                                                    "model_load_seconds": 5}))
    (results / "logs" / "b.log").write_text("INFO authbench: domainauth/m/b: 2/6 requests, 9 tokens/s over 30 s, "
                                            "about 45 s left\n")
    lines = progress_lines(results)
    # engine: 90 + 30 = 120 s = 2.0 of 240 s = 4.0 min planned; left: 45 s + 60 x 1.5 = 135 s = 2.2 min
    assert lines[0] == "progress: m: 1 of 3 cells (1 running), engine 2.0 of 4.0 min planned, about 2.2 min left"
    assert lines[1] == "progress: h: 0 of 1 cells, engine 0.0 min so far (the plan has no time for it)"


def test_no_plan_says_how_to_make_one(tmp_path):
    assert "run `snakemake plan` first" in progress_lines(tmp_path)[0]
