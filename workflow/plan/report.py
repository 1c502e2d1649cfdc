"""Writing a plan (:class:`authbench.plan.Plan`): ``plan.md`` (the tables a
reader decides with, and how every number was made), ``plan.tsv`` (per
model and study, :data:`PLAN_COLUMNS`), ``plan_cells.tsv`` (per job: what
``python -m authbench.cli progress`` compares a run with) and one console
line per model (:func:`plan_lines`)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from authbench.plan.sample import Z95
from authbench.records import write_text, write_tsv

PLAN_COLUMNS = ["model", "study", "engine", "hosted", "in_run", "cells", "requests", "unique_requests",
                "counted_requests", "prompt_tokens", "prompt_tokens_ci", "reusable_tokens", "reusable_tokens_ci",
                "perplexity_tokens", "perplexity_tokens_ci", "completion_budget", "completion_estimate",
                "completion_p95", "sent_requests", "tokens_counted_by", "prompt_rate", "completion_rate",
                "rate_source", "gpus", "engine_hours", "engine_hours_with_reuse", "engine_hours_with_reuse_ci",
                "engine_hours_at_cap", "engine_hours_at_cap_with_reuse", "gpu_hours", "gpu_hours_with_reuse",
                "gpu_hours_at_cap", "gpu_hours_at_cap_with_reuse", "load_hours", "usd", "usd_ci", "usd_at_cap",
                "usd_batch", "price_source", "note"]
CELL_COLUMNS = ["model", "study", "cell", "kind", "in_run", "requests", "unique_requests", "prompt_tokens",
                "evaluated_tokens", "completion_estimate", "engine_seconds", "load_seconds"]


def _int(x) -> str:
    return f"{int(round(float(x))):,}"


def _tok(value, ci) -> str:
    return _int(value) + (f" ± {_int(ci)}" if ci not in ("", None) and float(ci) >= 0.5 else "")


def _h(value, digits: int = 1) -> str:
    return "–" if value == "" else f"{float(value):,.{digits}f}"


def _usd(value, ci="") -> str:
    if value == "":
        return "–"
    return f"${float(value):,.2f}" + (f" ± {float(ci):,.2f}" if ci not in ("", None) and float(ci) >= 0.005 else "")


def _minutes(hours) -> float:
    return 0.0 if hours == "" else float(hours) * 60


def plan_lines(plan) -> list[str]:
    """One line per model (its ``all`` row): cells, prompt tokens, minutes or dollars."""
    if plan.empty:
        return [f"plan: the grid is empty: {plan.empty}; no model is asked anything"]
    out = []
    for r in plan.rows:
        if r["study"] != "all":
            continue
        if r["hosted"] == "yes":
            when = ("no price (models.%s.price)" % r["model"] if r["usd"] == "" else
                    f"about {_usd(r['usd'], r['usd_ci'])} at its list price ({_usd(r['usd_at_cap'])} at the cap)")
        elif r["engine_hours_with_reuse"] == "":
            when = f"no estimate: {r['rate_source']}"
        else:
            minutes = _minutes(r["engine_hours_with_reuse"]) + _minutes(r["load_hours"])
            cap = _minutes(r["engine_hours_at_cap_with_reuse"]) + _minutes(r["load_hours"])
            where = "this machine" if r["engine"] == "llamacpp" else r["rate_source"]
            when = (f"about {minutes:,.1f} min of engine and model loads ({cap:,.1f} at the cap) at "
                    f"{float(r['prompt_rate']):,.0f} prompt tok/s ({where})")
        out.append(f"plan: {r['model']}: {r['cells']} cells, {_int(r['unique_requests'])} unique requests, "
                   f"{_int(r['prompt_tokens'] + r['perplexity_tokens'])} prompt tokens "
                   f"({_int(r['reusable_tokens'])} reusable); {when}")
    return out


def plan_markdown(plan, config_files: str = "") -> str:
    lines = ["# Plan: what this config will ask, before it runs", ""]
    if config_files:
        lines += [f"Config: {config_files}.", ""]
    if plan.empty:
        return "\n".join(lines + [f"**The grid is empty**: {plan.empty}. No model is asked anything; the run "
                                  "writes no model cell.", ""])
    rows = plan.rows
    if plan.estimated.notes:
        lines += ["## Estimated inputs (they do not exist yet)", ""]
        lines += [f"- {n}." for n in plan.estimated.notes] + [""]
    lines += ["## What each model is asked", "",
              "| model | study | cells | requests | unique | prompt tokens | reusable by prefix cache | "
              "completion: estimate | p95 | cap |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        bold = "**" if r["study"] == "all" else ""
        study = r["study"] + (" (not in this run)" if r["in_run"] == "no" else "")
        cells = [r["model"], study, _int(r["cells"]), _int(r["requests"]), _int(r["unique_requests"]),
                 _tok(r["prompt_tokens"] + r["perplexity_tokens"],
                      ((float(r["prompt_tokens_ci"]) ** 2 + float(r["perplexity_tokens_ci"]) ** 2) ** 0.5)),
                 _tok(r["reusable_tokens"], r["reusable_tokens_ci"]), _int(r["completion_estimate"]),
                 _int(r["completion_p95"]), _int(r["completion_budget"])]
        lines.append("| " + " | ".join(f"{bold}{c}{bold}" for c in cells) + " |")
    timed = [r for r in rows if r["hosted"] == "no"]
    if timed:
        lines += ["", "## Time (models of your own)", "",
                  "Engine hours at the reply-length estimate, with prefix reuse (± the 95% interval of the sampled "
                  "token counts), then GPU-hours (× the model's `gpus`) at the estimate and at the cap, without and "
                  "with prefix reuse; model loads apart.", "",
                  "| model | study | engine h | GPU h | GPU h with reuse | GPU h at cap | GPU h at cap with reuse | "
                  "loads h |", "|---|---|---:|---:|---:|---:|---:|---:|"]
        sums = {k: 0.0 for k in ("gpu_hours", "gpu_hours_with_reuse", "gpu_hours_at_cap",
                                 "gpu_hours_at_cap_with_reuse", "load_hours")}
        apart = dict(sums)
        var = 0.0
        for r in timed:
            bold = "**" if r["study"] == "all" else ""
            study = r["study"] + (" (not in this run)" if r["in_run"] == "no" else "")
            engine = "–" if r["engine_hours_with_reuse"] == "" else (
                f"{float(r['engine_hours_with_reuse']):,.3f} ± {float(r['engine_hours_with_reuse_ci']):,.3f}")
            cells = [r["model"], study, engine] + [_h(r[k], 2) for k in sums]
            lines.append("| " + " | ".join(f"{bold}{c}{bold}" for c in cells) + " |")
            target = sums if r["study"] == "all" else apart if r["in_run"] == "no" else None
            if target is not None:
                for k in target:
                    target[k] += float(r[k] or 0)
                if r["study"] == "all" and r["gpu_hours_with_reuse"] != "" and r["engine_hours_with_reuse_ci"]:
                    gpus = float(r["gpus"] or 0)
                    var += (float(r["engine_hours_with_reuse_ci"]) * gpus / Z95) ** 2
        lines.append("| **all with a rate** | | | " + " | ".join(f"**{v:,.1f}**" for v in sums.values()) + " |")
        if any(apart.values()):
            later = ", ".join(sorted({r["study"] for r in timed if r["in_run"] == "no" and r["study"] != "all"}))
            lines.append(f"| all with a rate, with {later} (not in this run) | | | "
                         + " | ".join(f"{sums[k] + apart[k]:,.1f}" for k in sums) + " |")
        lines += ["", f"GPU-hours with reuse at the estimate: {sums['gpu_hours_with_reuse']:,.1f} "
                      f"± {Z95 * var ** 0.5:,.2f} (the sampled token counts' 95% interval; the reply-length estimate "
                      "and the rates are not in it)."]
    hosted = [r for r in rows if r["hosted"] == "yes" and r["study"] == "all"]
    if hosted:
        lines += ["", "## Dollars (hosted models)", "",
                  "| model | prompt tokens | completion tokens (estimate) | USD at the estimate | USD at the cap | "
                  "USD through the batch API | price |", "|---|---:|---:|---:|---:|---:|---|"]
        total, cap, priced = 0.0, 0.0, 0
        for r in hosted:
            if r["usd"] == "":
                lines.append(f"| {r['model']} | {_int(r['prompt_tokens'])} | {_int(r['completion_estimate'])} | "
                             f"no price | no price | no price | {r['price_source']} |")
                continue
            priced += 1
            total += float(r["usd"])
            cap += float(r["usd_at_cap"])
            lines.append(f"| {r['model']} | {_int(r['prompt_tokens'])} | {_int(r['completion_estimate'])} | "
                         f"{_usd(r['usd'], r['usd_ci'])} | {_usd(r['usd_at_cap'])} | {_usd(r['usd_batch'])} | "
                         f"{r['price_source']} |")
        unpriced = len(hosted) - priced
        lines.append(f"| **all priced** | | | **${total:,.2f}** | **${cap:,.2f}** | | "
                     + (f"{unpriced} hosted model(s) without a price not in it" if unpriced else "") + " |")
    lines += ["", "## How each model is counted", ""]
    for r in rows:
        if r["study"] == "all":
            load = f"; model loads {_minutes(r['load_hours']):,.1f} min over its jobs" if r["load_hours"] != "" else ""
            lines.append(f"- **{r['model']}** ({r['engine']}{', hosted' if r['hosted'] == 'yes' else ''}): tokens "
                         f"by {r['tokens_counted_by']}; rate: {r['rate_source']}{load}.")
    lines += ["", "## Reply lengths (completion tokens per request)", "",
              "| model | kind | mean | p95 | from |", "|---|---|---:|---:|---|"]
    for model, kinds in plan.lengths.items():
        for kind, length in sorted(kinds.items()):
            lines.append(f"| {model} | {kind} | {length.mean:,.1f} | {length.p95:,.1f} | {length.source} |")
    tries = [(m, n) for m, notes in plan.tries.items() for n in notes]
    if tries:
        lines += ["", "## Retries", ""] + [f"- **{m}**: {n}." for m, n in tries]
    notes = {r["note"]: None for r in rows if r["note"]}
    if notes:
        lines += ["", "## Stand-ins (what only a model's replies decide)", ""]
        lines += [f"- {n}." for note in notes for n in dict.fromkeys(note.split("; "))]
    counted = sum(int(r["counted_requests"]) for r in rows if r["study"] == "all")
    unique = sum(int(r["unique_requests"]) for r in rows if r["study"] == "all")
    sample = "every request" if plan.sample is None else f"a seeded sample of {plan.sample} per batch"
    lines += ["", "## How the numbers are made", "",
              f"Tokens are counted on {sample} of the unique requests ({counted:,} of {unique:,} counted) and "
              "extrapolated: each total's ± is its 95% interval (sampling without replacement; a batch counted "
              "whole is exact). Unique requests are exact: every request is keyed as the response cache keys it "
              "(a request an earlier cell of the same model asked, or an earlier request of the same cell, is "
              "served by the cache; 64-bit keys, a collision below one in a million at ten million requests). "
              "Reusable: the prompt tokens a prefix cache need not evaluate after the request sent before it "
              "(the previous unique request in sorted order), in whole KV blocks (llama.cpp 32, vLLM 16 tokens; "
              "a hosted API's prompt cache from 1,024 common tokens, in steps of 128), counted on the same "
              "sample; vLLM may reuse more (blocks of prompts further back), so with vLLM it is a floor. "
              "Completion: the estimate takes each kind's mean reply length (above), the cap every request's "
              "token budget (an upper bound). Hours: prompt tokens / prompt rate + tokens decoded one at a time "
              "/ completion rate (+ the embedded engine's slot steps and per-request time); GPU hours: times the "
              "model's `gpus`. Perplexity texts count as prompt tokens (evaluated whole, no reuse).", ""]
    return "\n".join(lines)


def write_plan(plan, md: str | Path, tsv: str | Path, cells_tsv: str | Path | None = None,
               config_files: str = "") -> None:
    write_tsv(plan.rows, tsv, PLAN_COLUMNS)
    if cells_tsv:
        write_tsv(plan.cells, cells_tsv, CELL_COLUMNS)
    write_text(md, plan_markdown(plan, config_files))


def read_plan_tsv(path: str | Path) -> list[Mapping]:
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))
