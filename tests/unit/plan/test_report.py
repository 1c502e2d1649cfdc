"""The plan's writing (authbench.plan.report) and a whole plan of small
configs (authbench.plan.build_plan): an empty grid says so, a hosted model
is priced or says "no price", every total has its interval."""

from pathlib import Path

import yaml

from authbench.config import check_config, validate_schema
from authbench.plan import Plan, build_plan, counter_for, plan_lines, plan_markdown, write_plan
from authbench.cells.planned import Estimated
from authbench.paths import Layout

ROOT = Path(__file__).resolve().parents[3]


def _row(**extra):
    row = {"model": "qwen", "study": "all", "engine": "vllm", "hosted": "no", "in_run": "yes", "cells": 3,
           "requests": 12, "unique_requests": 10, "counted_requests": 10, "prompt_tokens": 1000,
           "prompt_tokens_ci": 0, "reusable_tokens": 200, "reusable_tokens_ci": 0, "perplexity_tokens": 0,
           "perplexity_tokens_ci": 0, "completion_budget": 100, "completion_estimate": 20, "completion_p95": 30,
           "sent_requests": 10, "tokens_counted_by": "own", "prompt_rate": "", "completion_rate": "",
           "rate_source": "no rate configured (models.qwen.rate: prompt and completion tokens/s)", "gpus": 1,
           "engine_hours": "", "engine_hours_with_reuse": "", "engine_hours_with_reuse_ci": "",
           "engine_hours_at_cap": "", "engine_hours_at_cap_with_reuse": "", "gpu_hours": "",
           "gpu_hours_with_reuse": "", "gpu_hours_at_cap": "", "gpu_hours_at_cap_with_reuse": "", "load_hours": "",
           "usd": "", "usd_ci": "", "usd_at_cap": "", "usd_batch": "", "price_source": "", "note": ""}
    row.update(extra)
    return row


def test_plan_lines_say_why_there_are_no_hours_and_give_minutes_or_dollars():
    (line,) = plan_lines(Plan([_row()], [], Estimated()))
    assert line == ("plan: qwen: 3 cells, 10 unique requests, 1,000 prompt tokens (200 reusable); no estimate: "
                    "no rate configured (models.qwen.rate: prompt and completion tokens/s)")
    timed = _row(engine="llamacpp", engine_hours_with_reuse=0.05, load_hours=0.01, prompt_rate=500.0,
                 engine_hours_at_cap_with_reuse=0.1)
    assert plan_lines(Plan([timed], [], Estimated()))[0].endswith(
        "about 3.6 min of engine and model loads (6.6 at the cap) at 500 prompt tok/s (this machine)")
    unpriced = _row(model="gpt", engine="openai", hosted="yes", price_source="no price (models.gpt.price)")
    assert plan_lines(Plan([unpriced], [], Estimated()))[0].endswith("; no price (models.gpt.price)")
    priced = _row(model="gpt", engine="openai", hosted="yes", usd=13.07, usd_ci=0.12, usd_at_cap=30.24)
    assert plan_lines(Plan([priced], [], Estimated()))[0].endswith(
        "about $13.07 ± 0.12 at its list price ($30.24 at the cap)")


def test_plan_markdown_prices_hosted_models_and_never_writes_zero_for_no_price():
    rows = [_row(model="gpt", engine="openai", hosted="yes", usd=2.5, usd_ci=0.1, usd_at_cap=6.0, usd_batch=1.25,
                 price_source="list"),
            _row(model="gem", engine="openai", hosted="yes", price_source="no price (models.gem.price)")]
    md = plan_markdown(Plan(rows, [], Estimated(["homepage texts stand in"])))
    assert "| gpt | 1,000 | 20 | $2.50 ± 0.10 | $6.00 | $1.25 | list |" in md
    assert "| gem | 1,000 | 20 | no price | no price | no price | no price (models.gem.price) |" in md
    assert "**$2.50**" in md and "1 hosted model(s) without a price not in it" in md
    assert "## Estimated inputs (they do not exist yet)" in md and "- homepage texts stand in." in md


def _demo_config(tmp_path, **changes):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["results"] = str(tmp_path / "results")
    config.update(changes)
    validate_schema(config)
    check_config(config)
    return config


def test_an_empty_grid_gives_a_plan_that_says_so(tmp_path):
    config = _demo_config(tmp_path, studies=["selfpref"])
    config["selfpref"].update(self={"gemma3-270m": None, "qwen2.5-coder-0.5b": None}, perplexity_model=None)
    config["selfpref"]["generate"]["models"] = []
    plan = build_plan(config)
    assert plan.rows == [] and "selfpref: no evaluator" in plan.empty
    write_plan(plan, tmp_path / "plan.md", tmp_path / "plan.tsv", tmp_path / "cells.tsv")
    assert "**The grid is empty**: selfpref: no evaluator" in (tmp_path / "plan.md").read_text()
    assert plan_lines(plan)[0].startswith("plan: the grid is empty: selfpref: no evaluator")


def test_absent_model_file_is_counted_with_the_character_proxy(tmp_path):
    spec = {"engine": "llamacpp", "model": str(tmp_path / "missing.gguf"), "prompt_format": "completion"}
    counter, gguf = counter_for("mine", spec, Layout(str(tmp_path)))
    assert gguf is None
    assert counter.name.startswith("proxy: characters/4") and "missing.gguf is absent" in counter.name


def test_the_time_table_adds_the_jobs_not_in_this_run_on_a_line_of_their_own():
    hours = dict(engine="vllm", prompt_rate=1000.0, engine_hours_with_reuse=1.0, engine_hours_with_reuse_ci=0.0)
    rows = [_row(study="all", gpu_hours=2.0, gpu_hours_with_reuse=1.5, gpu_hours_at_cap=3.0,
                 gpu_hours_at_cap_with_reuse=2.5, load_hours=0.5, **hours),
            _row(study="ragauth", in_run="no", gpu_hours=0.25, gpu_hours_with_reuse=0.25, gpu_hours_at_cap=0.5,
                 gpu_hours_at_cap_with_reuse=0.5, load_hours=0.0, **hours)]
    md = plan_markdown(Plan(rows, [], Estimated()))
    assert "| **all with a rate** | | | **2.0** | **1.5** | **3.0** | **2.5** | **0.5** |" in md
    assert "| all with a rate, with ragauth (not in this run) | | | 2.2 | 1.8 | 3.5 | 3.0 | 0.5 |" in md
    assert "with a rate, with" not in plan_markdown(Plan(rows[:1], [], Estimated()))
