"""The self-preference study's numbers keyed by published key
(:class:`authbench.studies.keyed.Keyed`), once per dataset, for the
scorecard and the claims. Questions are the units:

* Table 1: knowledge levels (the released authors' probe files: ``data``
  rows; evaluators probed here: ``model`` rows), average passage length,
  the release's GPT-2 perplexities (numbers only);
* Tables 6-9 and Table 2's Human and self cells: the mean score of an
  author's passages (the pooled mean: each question's mean score weighted
  by its passages) and its sd; Table 2's Diff: a question's human − self
  mean score;
* Table 3: a question's share of comparisons where the evaluator chose its
  own passage (column ``same_factuality``: over the same-factuality pairs
  only, where factuality cannot decide), the first one, the true one,
  weighted by the question's comparisons, so the number is the pooled rate
  the paper prints; ``Aggregated`` is the paper's mean of the per-author
  rates, its units the evaluator's comparisons against every other author;
* Tables 4 and 5: a question's share of the Gen-by-QA / long comparisons
  (both passages true) where the styled own passage was chosen.

An evaluator is keyed by its ``paper_name`` where it has one, else by its
own name (``named`` False), and so are its own passages as an author. Also
why a published number has no counterpart (:func:`selfpref_reason`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd
from authbench.studies.keyed import RELEASED_RUN, Keyed, keyed, per_question, scaled, units_of

__all__ = ["NOT_RELEASED", "RELEASED_AUTHORS", "RELEASED_RUN", "RELEASED_RUNS", "SP_DATASETS", "SP_UNRELEASED",
           "dataset_label", "selfpref_keyed", "selfpref_reason", "sp_author_names"]

# the self-preference paper's dataset labels (our dataset keys, lower case)
SP_DATASETS = {"nq": "NQ", "marco": "MARCO", "msmarco": "MARCO", "triviaqa": "TriviaQA"}
# the paper's datasets whose passages the authors never released (docs/studies.md, "The RAG self-preference study")
NOT_RELEASED = "data not released"
SP_UNRELEASED = ("TriviaQA",)
# authors of the released files under the ids config.yaml imports them as: their paper names
RELEASED_AUTHORS = {"human": "Human", "gpt35": "GPT-3.5"}
# released runs (knowledge probes, GPT-2 perplexities) under their author ids -> the paper's row they stand
# beside, and what the row says about the stand-in (the release's "llama" is Llama-2-70B-chat)
RELEASED_RUNS = {"gpt35": ("GPT-3.5", ""), "llama": ("LLaMA", "Llama-2-70B-chat; the paper's LLaMA is LLaMA3"),
                 "llama2-70b-chat": ("LLaMA", "Llama-2-70B-chat; the paper's LLaMA is LLaMA3")}
SCORE_TABLES = {("normal", True): 6, ("normal", False): 7, ("rag", True): 8, ("rag", False): 9}
# Table 3's metrics: (the rate in preference_rates, the units column); self preference also over the
# same-factuality pairs (column same_factuality)
RATES = {"self_preference": ("self_pref", "self_chosen"), "order_preference": ("order_pref", "first"),
         "factual_preference": ("factual_pref", "true_chosen")}
SAME_FACTUALITY = "same_factuality"
STYLE_TABLES = {"qa": (4, "gen_by_qa_preference"), "long": (5, "long_passage_preference")}


def dataset_label(dataset: str) -> str:
    """A dataset's label in the paper's keys (``nq`` -> ``NQ``; another name as it is)."""
    return SP_DATASETS.get(dataset.lower(), dataset)


def sp_author_names(self_map: Mapping[str, str | None], names: Mapping[str, str]) -> dict[str, str]:
    """Author id -> the paper's name: the released authors (human, gpt35),
    then each evaluator's own passages under the evaluator's key (its paper
    name, or its own name)."""
    out = dict(RELEASED_AUTHORS)
    out.update({own: names[ev] for ev, own in self_map.items() if own and ev in names})
    return out


def selfpref_keyed(dataset: str, *, knowledge: Mapping[str, Sequence[Mapping]], passages: Sequence[Mapping],
                   summary: Iterable[Mapping], rates: Iterable[Mapping], units: Mapping[str, pd.DataFrame],
                   self_map: Mapping[str, str | None], names: Mapping[str, str], run_models: Sequence[str],
                   released: Sequence[str] = ("gpt35",),
                   released_perplexity: Mapping[str, Sequence[float]] | None = None,
                   files: Mapping[str, Any] | None = None) -> list[Keyed]:
    """One dataset's numbers (module docstring). ``knowledge``: author ->
    its knowledge levels; ``passages``: Table 1's passages (of the questions
    in scope); ``summary``: :func:`~authbench.studies.selfpref.rows.rerank_summary`;
    ``rates``: :func:`~authbench.studies.selfpref.rows.preference_rates`;
    ``units``: the report's unit frames (``units_<name>.parquet``);
    ``names``: our evaluator -> its paper name; ``run_models``: every model
    of the run; ``released``: the knowledge authors whose files are the
    release's; ``released_perplexity``: author -> the release's GPT-2
    perplexities; ``files``: ``knowledge`` author -> file, ``perplexity`` the
    file (what the released rows name)."""
    from authbench.studies.selfpref.rows import ALL, aggregated, level_classes, normal_true_lengths

    ds = {"dataset": dataset_label(dataset)}
    label = {ev: names.get(ev, ev) for ev in self_map if ev in names or ev in run_models}
    authors = sp_author_names(self_map, label)
    files = files or {}
    out: list[Keyed] = []

    def run_of(who: str, file: str | None) -> tuple[str | None, str, str]:
        name, note = RELEASED_RUNS.get(who, (authors.get(who), ""))
        return name, f"{RELEASED_RUN}: {Path(file).name if file else who}", note

    for who, counts in level_classes(knowledge).items():  # a released author's probes, or an evaluator's own
        total = sum(counts.values())
        if who in released:
            name, ours, note = run_of(who, (files.get("knowledge") or {}).get(who))
        else:
            name, ours, note = label.get(who), who, ""
        if name is not None and total:
            for cls in ("no", "partial", "full"):
                out.append(keyed(1, f"knowledge_{cls}", ours=ours, model=name, parts=ds,
                                 number=100 * counts[cls] / total, kind="data" if who in released else "model",
                                 named=who in released or who in names, scope=note))
    for who, values in (released_perplexity or {}).items():
        name, ours, note = run_of(who, files.get("perplexity"))
        if name is not None and name != "Human" and len(values):
            out.append(keyed(1, "perplexity", ours=f"{ours} ({who})", model=name, parts=ds, kind="data",
                             number=sum(values) / len(values), scope=note))
    lengths, _ = normal_true_lengths(passages)
    own_of = {own: ev for ev, own in self_map.items() if own}
    paper_authors = sp_author_names(self_map, names)  # a released author keeps its paper name here
    for author, words in lengths.items():
        name = paper_authors.get(author, authors.get(author))
        if name is not None and words and author != "human":
            out.append(keyed(1, "avg_length", ours=author, model=name, parts=ds,
                             number=sum(words) / len(words),
                             kind="data" if author in RELEASED_AUTHORS else "model",
                             named=author in RELEASED_AUTHORS or own_of.get(author) in names,
                             scope=f"the {len(words)} passages of the questions in scope (config selfpref.items, "
                                   "selfpref.rerank.scope)"))
    out += _scores(summary, units.get("rerank"), label, authors, self_map, names, ds)
    out += _rates(list(rates), units.get("comparisons"), label, authors, names, ds, aggregated, ALL)
    out += _styles(units.get("comparisons"), label, names, ds)
    return out


def _scores(summary, rerank: pd.DataFrame | None, label, authors, self_map, names, ds) -> list[Keyed]:
    """Tables 6-9 and Table 2's Human, self and Diff cells of the normal variant."""
    per_q: dict[tuple, Any] = {}
    if rerank is not None and len(rerank):
        scores = rerank[(rerank["variant"] == "normal") & rerank["score"].notna()]
        for (ev, prompt, factual, author), g in scores.groupby(["evaluator", "prompt", "factual", "author"],
                                                               sort=False):
            per_q[(str(ev), str(prompt), bool(factual), str(author))] = g
    out = []
    for r in summary:
        ev = str(r["evaluator"])
        if ev not in label or r["variant"] != "normal":
            continue
        factual = r["factual"] in (True, "true", "True")
        passage = "TRUE" if factual else "FALSE"
        author = authors.get(str(r["author"]))
        table = SCORE_TABLES.get((str(r["prompt"]), factual))
        if author is None or table is None:
            continue
        g = per_q.get((ev, str(r["prompt"]), factual, str(r["author"])))
        units = per_question(g, "score") if g is not None else None
        common = {"ours": ev, "model": label[ev], "named": ev in names, "unit_kind": "questions"}
        ds_prompt = {**ds, "prompt": str(r["prompt"])}
        places = [(table, {**ds_prompt, "author": author, "passage": passage})]
        if author == "Human" and factual:
            places.append((2, {**ds_prompt, "author": "Human"}))
        if str(r["author"]) == self_map.get(ev):
            places.append((2, {**ds_prompt, "author": "self", "passage": passage}))
        for t, where in places:
            out.append(keyed(t, "mean_score", parts=where, units=units, number=float(r["mean"]), **common))
            out.append(keyed(t, "sd_score", parts=where, number=float(r["std"]), **common))
        if str(r["author"]) == self_map.get(ev):
            human = per_q.get((ev, str(r["prompt"]), True, "human"))
            diff = None
            if g is not None and human is not None:
                h = human.groupby("qid", sort=True)["score"].mean()
                m = g.groupby("qid", sort=True)["score"].mean()
                both = h.index.intersection(m.index)
                diff = units_of(both.tolist(), (h[both] - m[both]).tolist())
            human_mean = next((float(s["mean"]) for s in summary if str(s["evaluator"]) == ev
                               and s["prompt"] == r["prompt"] and s["variant"] == "normal"
                               and str(s["author"]) == "human" and s["factual"] in (True, "true", "True")), None)
            out.append(keyed(2, "diff_h_minus_m", parts={**ds_prompt, "author": "self", "passage": passage}, units=diff,
                             number=human_mean - float(r["mean"]) if human_mean is not None else float("nan"),
                             compared=False, **common))
    return out


def _rates(rates, comparisons: pd.DataFrame | None, label, authors, names, ds, aggregated, everyone) -> list[Keyed]:
    """Table 3: per evaluator and other author (and ``Aggregated``) the three rates, pooled over comparisons."""
    gen = comparisons[comparisons["variant"] == "normal"] if comparisons is not None else None
    out = []
    for r in rates:
        ev = str(r["evaluator"])
        pooled = r["other_author"] == everyone
        other = "Aggregated" if pooled else authors.get(str(r["other_author"]))
        if ev not in label or other is None:
            continue
        mine = None
        if gen is not None:
            mine = gen[gen["evaluator"] == ev]
            if not pooled:
                mine = mine[mine["other_author"] == r["other_author"]]
        for metric, (rate, column) in RATES.items():
            units = scaled(per_question(mine, column), 100.0) if mine is not None and len(mine) else None
            columns = {}
            if metric == "self_preference" and mine is not None and len(mine):
                same = scaled(per_question(mine, "self_same"), 100.0)
                columns = {SAME_FACTUALITY: same} if same is not None else {}
            number = aggregated(rates, ev, rate) if pooled else float(r[rate])
            out.append(keyed(3, metric, ours=ev, model=label[ev], parts={**ds, "other": other}, units=units,
                             columns=columns, number=number, named=ev in names, unit_kind="questions"))
    return out


def _styles(comparisons: pd.DataFrame | None, label, names, ds) -> list[Keyed]:
    """Tables 4 and 5: the styled own passage chosen, over the both-true comparisons of its variant."""
    if comparisons is None or not len(comparisons):
        return []
    out = []
    for (variant, ev), g in comparisons[comparisons["combo"] == "TT"].groupby(["variant", "evaluator"], sort=False):
        if variant not in STYLE_TABLES or str(ev) not in label:
            continue
        table, metric = STYLE_TABLES[variant]
        units = scaled(per_question(g, "self_chosen"), 100.0)
        if units is not None:
            out.append(keyed(table, metric, ours=str(ev), model=label[str(ev)], parts=ds, units=units,
                             named=str(ev) in names, unit_kind="questions"))
    return out


def selfpref_reason(row: Mapping, coverage) -> str:
    """Why a published self-preference number (``row``: its parts) has no
    counterpart (``coverage``: :class:`authbench.studies.scorecard.Coverage`)."""
    from authbench.studies.scorecard import AVERAGE, NO_VALUE, NOT_CONFIGURED

    table, model = int(row["table"]), row.get("model", "")
    if row.get("dataset") in SP_UNRELEASED:
        return f"{NOT_RELEASED} ({row['dataset']}: the authors released NQ and MS MARCO only)"
    if model == "Average":
        return AVERAGE
    if table in (4, 5) and model == "GPT":
        return "the paper's evaluator 'GPT' is not resolved to one of its GPT models"
    if "dataset" in row and row["dataset"] not in coverage.datasets:
        return f"dataset not in the grid ({row['dataset']})"
    if table == 1 and row["metric"] == "perplexity":
        return "perplexity: the paper's is under GPT-2, ours under config selfpref.perplexity_model"
    if table == 2 and row["metric"] == "diff_h_minus_m":
        return "a difference of two compared numbers (not compared again)"
    released = set(RELEASED_AUTHORS.values())
    if model not in coverage.paper_names | (released if table == 1 else set()):  # Table 1: authors too
        return NOT_CONFIGURED
    for key in ("author", "other"):
        if row.get(key, "self") not in coverage.paper_names | released | {"self", "Aggregated"}:
            return f"{key} {row[key]} not configured (no evaluator or released passages with this name)"
    if table in (4, 5):
        return "no distinct styled passages of this evaluator in this run (Tables 4-5: selfpref.style_items)"
    return NO_VALUE
