"""Expected-score judging on the demo data: how many ties and constant lists
E[s] = Σ p(s)·s removes, and its ρ next to the argmax's.

DomainAuth cells of config.yaml's data and models (default: the embedded
Gemma 3 270M) without page text, constrained (slot decoding), with the demo's
sampling counts unless overridden: PointJudge on the fine lists, the coarse
lists and the pairs, ListJudge-PointScore on the fine and coarse lists
(``--judges`` adds pair_score). Every cell goes through the pipeline's runner
with ``expected_scores`` on (the response cache of ``--cache``: a rerun costs
nothing), is parsed and evaluated as the workflow does (strict parsing), and
one table row per (model, judge, setting) compares the argmax scores with
E[s]:

* lists: mean Spearman ρ and Kendall τ against the true levels, constant lists
  (every item predicted the same), lists with a tie and tied item pairs;
* pairs: accuracy (a tie counts as wrong) and tied pairs;
* agreement: Spearman ρ between the argmax scores and E[s] over all score
  slots of the cell (how much E[s] re-orders what the argmax already says);
* fallback: score slots without a distribution (E[s] = argmax), mean mass of
  the score tokens.

    .venv/bin/python benchmarks/expected_scores.py                       # the demo's counts, Gemma
    .venv/bin/python benchmarks/expected_scores.py --fine-lists 10 --models gemma3-270m qwen2.5-coder-0.5b
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import yaml
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
LIST_JUDGE_SETTINGS = {"point": ("fine", "coarse", "pairs"), "list_score": ("fine", "coarse"),
                       "pair_score": ("fine", "coarse", "pairs")}


def predictions(judge: str, setting: str, instances, judgments, field: str) -> list[list[float]]:
    """Per instance the predicted value of each item from ``field`` (value or
    expected), strict parsing, unscored items tied below (as the metrics do)."""
    from authbench.studies.authority import ranking as R
    from authbench.studies.authority.evaluate import comparisons_by_instance
    from authbench.studies.authority.sampling import item_key

    rows = [{**j, "value": j[field]} for j in judgments]
    out = []
    if judge == "point":
        by_key = {j["request_id"].split(":", 1)[1]: (j["value"] if j["status"] == "ok" else None) for j in rows}
        for inst in instances:
            scores = {i: by_key[item_key(it)] for i, it in enumerate(inst["items"])}
            out.append(R.scores_to_predicted_values(scores, len(inst["items"])))
    elif judge == "list_score":
        by_id = {j["request_id"]: (j["value"] if j["status"] == "ok" else None) for j in rows}
        for inst in instances:
            value = by_id[inst["instance_id"]] or {}
            out.append(R.scores_to_predicted_values({int(k): v for k, v in value.items()}, len(inst["items"])))
    else:
        comps = comparisons_by_instance(judge, rows, "strict")
        for inst in instances:
            recs = comps[inst["instance_id"]]
            n = len(inst["items"])
            if setting == "pairs":
                (rec,) = recs
                out.append([-1.0 if rec["score_a"] is None else rec["score_a"],
                            -1.0 if rec["score_b"] is None else rec["score_b"]])
            else:
                out.append(R.scores_to_predicted_values(R.average_score(recs, n), n))
    return out


def tie_counts(preds: list[list[float]]) -> tuple[int, int, int]:
    """(constant lists, lists with a tie, tied item pairs)."""
    constant = sum(len(set(p)) == 1 for p in preds)
    tied_lists = sum(len(set(p)) < len(p) for p in preds)
    tied_pairs = sum(a == b for p in preds for a, b in itertools.combinations(p, 2))
    return constant, tied_lists, tied_pairs


def slot_pairs(judgments) -> tuple[list[float], list[float]]:
    """(argmax, E[s]) of every score slot with a parsed value (ok replies)."""
    a, e = [], []
    for j in judgments:
        if j["status"] != "ok":
            continue
        if isinstance(j["value"], dict):
            for k, v in j["value"].items():
                if v is not None:
                    a.append(float(v))
                    e.append(float(j["expected"][k]))
        elif j["value"] is not None:
            a.append(float(j["value"]))
            e.append(float(j["expected"]))
    return a, e


def run(args) -> list[dict]:
    from authbench.config import GenerateConfig
    from authbench.llm.cache import ResponseCache, model_identity
    from authbench.llm.engines.base import create_engine
    from authbench.llm.expected import summary
    from authbench.llm.models import resolve_model
    from authbench.llm.runner import parse_responses, generate_replies
    from authbench.studies.authority.domains import build_domains
    from authbench.studies.authority.evaluate import evaluate_cell, evaluate_expected
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests
    from authbench.studies.authority.sampling import sample_all

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    da = config["domainauth"]
    sampling = dict(da["sampling"])
    for key in ("fine_lists", "coarse_lists", "easy_pairs", "hard_pairs"):
        if getattr(args, key) is not None:
            sampling[key] = getattr(args, key)
    domains, _ = build_domains(ROOT / da["source"], da["status_filter"], da["categories"], {})
    sets = sample_all(domains, sampling, config["seed"])
    out = []
    for name in args.models:
        model_config = {**config["models"][name], "threads": args.threads}
        gen = GenerateConfig().merge(model_config.get("generate"))
        model_file = None
        if model_config["engine"] == "llamacpp":
            model_file = resolve_model(model_config["model"], ROOT / "results" / "models" / f"{name}.gguf")
        # loaded per cell only if something is not cached (the runner closes it after the cell)
        def factory(model_config=model_config, model_file=model_file):
            return create_engine(model_config, model_file)

        for judge in args.judges:
            template = load_template(ROOT / config["prompts"] / "domainauth" / f"{judge}_wo_text.yaml")
            for setting in LIST_JUDGE_SETTINGS[judge]:
                if setting not in args.settings:
                    continue
                instances = sets[setting]
                requests = build_requests(judge, setting, instances, template, config["seed"])
                start = time.perf_counter()
                responses, stats_ = generate_replies(requests, factory, gen, True, cache=ResponseCache(args.cache, writer="bench"),
                                             model=model_identity(model_config), expected_scores=True)
                seconds = time.perf_counter() - start
                judgments = parse_responses(requests, responses)
                argmax = {(r["derivation"], r["difficulty"], r["metric"]): r
                          for r in evaluate_cell(judge, setting, instances, judgments)}
                expect = {(r["derivation"], r["difficulty"], r["metric"]): r
                          for r in evaluate_expected(judge, setting, instances, judgments)}
                a, e = slot_pairs(judgments)
                info = summary(judgments, [r.score_probs for r in responses])
                row = {"model": name, "judge": judge, "setting": setting, "calls": len(requests),
                       "engine_calls": stats_.engine_calls, "seconds": round(seconds, 1),
                       "agreement": stats.spearmanr(a, e).statistic if len(set(a)) > 1 else float("nan"),
                       "fallback": info["score_slots"] - info["from_distribution"], "slots": info["score_slots"],
                       "mass": info["mass_mean"]}
                for field, key in (("value", "argmax"), ("expected", "E")):
                    preds = predictions(judge, setting, instances, judgments, field)
                    constant, tied_lists, tied_pairs = tie_counts(preds)
                    rows = argmax if key == "argmax" else expect
                    if setting == "pairs":
                        deriv = "direct" if key == "argmax" else "expected"
                        accs = [rows[(deriv, d, "acc")] for d in ("easy", "hard") if (deriv, d, "acc") in rows]
                        n = sum(r["n"] for r in accs)
                        row[f"{key}_acc"] = sum(r["value"] * r["n"] for r in accs) / n
                        row[f"{key}_ties"] = tied_pairs
                    else:
                        deriv = {"point": "direct", "list_score": "direct", "pair_score": "average"}[judge]
                        deriv = deriv if key == "argmax" else ("expected" if deriv == "direct" else f"{deriv}_expected")
                        row[f"{key}_rho"] = rows[(deriv, "all", "rho")]["value"]
                        row[f"{key}_tau"] = rows[(deriv, "all", "tau")]["value"]
                        row[f"{key}_constant"] = constant
                        row[f"{key}_tied_lists"] = tied_lists
                        row[f"{key}_ties"] = tied_pairs
                row["lists"] = len(instances)
                out.append(row)
                print(f"{name} {judge}/{setting}: {len(requests)} calls, {stats_.engine_calls} computed, "
                      f"{seconds:.1f} s", file=sys.stderr)
    return out


def fmt(x, digits=2):
    if isinstance(x, float):
        return "–" if math.isnan(x) else f"{x:.{digits}f}"
    return str(x)


def print_table(rows: list[dict]) -> None:
    lists = [r for r in rows if r["setting"] != "pairs"]
    pairs = [r for r in rows if r["setting"] == "pairs"]
    if lists:
        print("| model | judge | lists | ρ argmax | ρ E[s] | τ argmax | τ E[s] | constant argmax | constant E[s] "
              "| lists with a tie argmax | E[s] | tied item pairs argmax | E[s] | agreement ρ | fallback / slots "
              "| mass |")
        print("|" + "---|" * 17)
        for r in lists:
            print(f"| {r['model']} | {r['judge']} {r['setting']} | {r['lists']} | {fmt(100 * r['argmax_rho'])} "
                  f"| {fmt(100 * r['E_rho'])} | {fmt(100 * r['argmax_tau'])} | {fmt(100 * r['E_tau'])} "
                  f"| {r['argmax_constant']} | {r['E_constant']} | {r['argmax_tied_lists']} | {r['E_tied_lists']} "
                  f"| {r['argmax_ties']} | {r['E_ties']} | {fmt(r['agreement'], 3)} | {r['fallback']} / {r['slots']} "
                  f"| {fmt(r['mass'], 3)} |")
    if pairs:
        print()
        print("| model | judge | pairs | acc argmax | acc E[s] | tied pairs argmax | tied pairs E[s] | agreement ρ "
              "| fallback / slots | mass |")
        print("|" + "---|" * 10)
        for r in pairs:
            print(f"| {r['model']} | {r['judge']} pairs | {r['lists']} | {fmt(100 * r['argmax_acc'])} "
                  f"| {fmt(100 * r['E_acc'])} | {r['argmax_ties']} | {r['E_ties']} | {fmt(r['agreement'], 3)} "
                  f"| {r['fallback']} / {r['slots']} | {fmt(r['mass'], 3)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["gemma3-270m"], help="keys of config.yaml's models")
    parser.add_argument("--judges", nargs="+", default=["point", "list_score"], choices=sorted(LIST_JUDGE_SETTINGS))
    parser.add_argument("--settings", nargs="+", default=["fine", "coarse", "pairs"])
    parser.add_argument("--fine-lists", type=int, dest="fine_lists")
    parser.add_argument("--coarse-lists", type=int, dest="coarse_lists")
    parser.add_argument("--easy-pairs", type=int, dest="easy_pairs")
    parser.add_argument("--hard-pairs", type=int, dest="hard_pairs")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cache", default=str(ROOT / "results" / "cache" / "responses"))
    args = parser.parse_args()
    print_table(run(args))


if __name__ == "__main__":
    main()
