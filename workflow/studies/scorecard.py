"""The papers' numbers beside ours: each report's ``scorecard.md`` and
``scorecard.tsv``.

Every published number of a report's tables (:mod:`authbench.published`) is
matched to the number this run reproduced in the same place: the same table,
the model the config maps to the paper's row (``models.<name>.paper_name``),
judge, context, setting and metric, in the paper's units (our tables show
correlations and accuracies x 100; the metric rows hold fractions). Each
study turns its own long frame into such *reproduced* rows
(:func:`authority_rows`, :func:`categories_rows`, :func:`rag_rows`,
:func:`selfpref_rows`, :func:`statistics_rows`) and says why a published
number has no counterpart (:class:`Grid` and the ``*_reason`` functions);
:func:`compare` matches, :func:`write_scorecard` writes.

A row is ``model`` (a judge's or evaluator's number: it needs a configured
model) or ``data`` (counted from the shipped or built data alone: corpus
sizes, the caption's category means, the released GPT-3.5 knowledge levels),
compared on every run, the demo included; a data row of a sample the config
makes smaller than the paper's says so in ``scope`` instead of counting as a
miss. ``lo``/``hi``: the reproduced number's 95% interval where the long
frame carries one (its ``lo``/``hi`` columns);
``inside`` is then ``yes``/``no``, else ``n/a``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import pandas as pd
from authbench.stats import DAGGER, finite_or_nan
from authbench.config import entity_datasets, paper_name
from authbench.judges import MAIN_DERIVATION
from authbench.published import load, paper_models
from authbench.records import write_frame, write_text
from authbench.render.catalog import SCORECARD_MARKS

__all__ = ["COLUMNS", "Grid", "authority_rows", "categories_rows", "compare", "grid_params", "rag_rows",
           "sample_sizes", "selfpref_rows", "statistics_rows", "write_paper_scorecard", "write_scorecard",
           "write_selfpref_scorecard"]

# the columns of a reproduced row (the key of authbench.published.KEY without paper)
KEY = ("table", "model", "judge", "context", "setting", "metric")
COLUMNS = ("kind", "table", "model", "ours", "judge", "context", "setting", "metric", "reproduced", "lo", "hi",
           "published", "delta", "inside", "scope", "where")
MISSING_COLUMNS = ("table", "model", "judge", "context", "setting", "metric", "published", "reason", "where")

# reasons a published number has no counterpart
NOT_CONFIGURED = "model not configured (no model with this paper_name)"
AVERAGE = "the paper's average over its models (not recomputed)"
NO_VALUE = "in the grid, but the run gave no value"

# Tables 9-12: the paper's derivation column -> (judge, derivation) of our metric rows
DERIVATIONS = {"PairRank": ("pair_rank", "bubble"), "PointScore_Bbl": ("pair_score", "bubble"),
               "PointScore_Pt": ("pair_score", "average")}
# (benchmark kind, setting) -> (main table, derivations table)
AUTHORITY_TABLES = {("domainauth", "fine"): (1, 9), ("domainauth", "coarse"): (2, 10),
                    ("entityauth", "fine"): (4, 11), ("entityauth", "coarse"): (6, 12)}
DOMAINAUTH_TABLES = (1, 2, 3, 8, 9, 10)
ENTITYAUTH_TABLES = (4, 6, 11, 12)
SETTING_OF = {1: "fine", 9: "fine", 4: "fine", 11: "fine", 2: "coarse", 10: "coarse", 6: "coarse", 12: "coarse",
              3: "pairs", 8: "bias"}
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
RELEASED_RUN = "released run"


def grid_params(config: Mapping[str, Any], study: str) -> dict:
    """What a report step needs to tell a missing counterpart's reason
    (rules pass it as ``params["scorecard"]``; plain config values, no
    heavy import): every active model's ``paper_name`` (None: none) of
    ``study``'s models, the judges, contexts and settings, the EntityAuth
    datasets, RAGAuth's strategies and k."""
    from authbench.config import models_for

    rag = config.get("ragauth") or {}  # optional sections
    sampling = config["domainauth"]["sampling"]
    bias = [f"{k} {sampling[k]}" for k in ("bias_per_level", "bias_per_category") if sampling[k] is not None]
    rescored = "entityauth" in config and config["entityauth"]["coarse_source"] == "rescore"
    return {"models": {name: spec.get("paper_name") for name, spec in models_for(config, study).items()},
            "judges": list(config["judges"]), "contexts": list(config["contexts"]),
            "settings": list(config["settings"]),
            "entity_datasets": [d.split("/", 1)[1] for d in entity_datasets(config)],
            "strategies": list(rag.get("strategies") or []), "k": [str(k) for k in rag.get("k") or []],
            # Table 8's domains: a sample per level and category, not every domain as in the paper
            "bias_scope": f"sample: config domainauth.sampling {', '.join(bias)}" if bias else "",
            # Tables 6 and 12 from the N=10 lists scored against the coarse labels, not from N=5 lists
            "rescored": "N=10 lists rescored (entityauth.coarse_source: rescore)" if rescored else "",
            "samples": sample_sizes(config)}


@dataclass(frozen=True)
class Grid:
    """One report's grid as the scorecard reads it: ``names`` our model ->
    its paper name (in this paper), and the judges, contexts, settings,
    EntityAuth datasets, RAGAuth strategies and k that ran."""

    names: Mapping[str, str]
    judges: Sequence[str] = ()
    contexts: Sequence[str] = ()
    settings: Sequence[str] = ()
    entity_datasets: Sequence[str] = ()
    strategies: Sequence[str] = ()
    k: Sequence[str] = ()
    datasets: Sequence[str] = ()  # self-preference: the paper's labels of this report's dataset

    @classmethod
    def of(cls, params: Mapping[str, Any], paper: str, **more) -> Grid:
        known = paper_models(paper)
        named = {m: paper_name(given, paper, known) for m, given in params["models"].items()}
        names = {m: n for m, n in named.items() if n is not None}
        return cls(names, params["judges"], params["contexts"], params["settings"], params["entity_datasets"],
                   params["strategies"], params["k"], **more)

    @property
    def paper_names(self) -> set[str]:
        return set(self.names.values())


def _setting(text: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in text.split(";")) if text else {}


def _interval(rec: Mapping, scale: float) -> tuple[float, float]:
    return finite_or_nan(rec.get("lo")) * scale, finite_or_nan(rec.get("hi")) * scale


def _row(table, model, ours, judge, context, setting, metric, value, lo=math.nan, hi=math.nan, kind="model",
         scope="", asked=None) -> dict:
    """A reproduced row; ``scope``: why a data row counts a smaller sample
    than the paper's; ``asked``: the count the config asks for where the
    paper's count is a sampling choice (:func:`compare` scopes the row when
    it differs from the published count)."""
    return {"table": int(table), "model": model, "ours": ours, "judge": judge, "context": context,
            "setting": setting, "metric": metric, "reproduced": finite_or_nan(value), "lo": lo, "hi": hi, "kind": kind,
            "scope": scope, "asked": finite_or_nan(asked)}


# --- AuthorityBench -------------------------------------------------------------------------

def authority_keys(benchmark: str, setting: str, difficulty: str, metric: str, judge: str, derivation: str
                   ) -> list[tuple[int, str, dict, str]]:
    """Where a metric row (or its units) of ours stands in the paper: ``(table,
    judge column, setting parts, metric)`` for each of Tables 1-4, 6, 9-12 it
    fills (none: a row the paper does not print)."""
    kind, _, domain = benchmark.partition("/")
    out = []
    if setting == "pairs" and kind == "domainauth" and metric == "acc" and derivation == "direct" \
            and difficulty in ("easy", "hard"):
        out.append((3, judge, {"difficulty": difficulty}, "pair_accuracy"))
    tables = AUTHORITY_TABLES.get((kind, setting))
    if tables is None or difficulty != "all" or metric not in ("rho", "tau"):
        return out
    where = {"domain": domain} if domain else {}
    if derivation == MAIN_DERIVATION.get(judge):
        out.append((tables[0], judge, where, metric))
    for label, (j, d) in DERIVATIONS.items():
        if (j, d) == (judge, derivation) and metric == "rho":
            out.append((tables[1], label, where, metric))
    return out


def authority_rows(metrics: pd.DataFrame, names: Mapping[str, str], scopes: Mapping[int, str] | None = None
                   ) -> list[dict]:
    """Reproduced rows of Tables 1-4, 6, 9-12 from the long metrics table
    (one parse mode; columns of ``authbench.studies.authority.evaluate.METRIC_COLUMNS``,
    optionally ``lo``/``hi`` in the value's unit): values x 100, as printed,
    each where :func:`authority_keys` puts it. ``scopes``: table -> how its
    numbers were made where it differs from the paper."""
    scopes = scopes or {}
    out = []
    for rec in metrics.to_dict("records"):
        model = str(rec["model"])
        if model not in names:
            continue
        lo, hi = _interval(rec, 100)
        for table, judge, where, metric in authority_keys(str(rec["benchmark"]), str(rec["setting"]),
                                                          str(rec["difficulty"]), str(rec["metric"]),
                                                          str(rec["judge"]), str(rec["derivation"])):
            setting = ";".join(f"{k}={v}" for k, v in where.items())
            out.append(_row(table, names[model], model, judge, rec["context"], setting, metric,
                            finite_or_nan(rec["value"]) * 100, lo, hi, scope=scopes.get(table, "")))
    return out


def categories_rows(predictions: pd.DataFrame | None, names: Mapping[str, str], subset: str = "") -> list[dict]:
    """Table 8 from the PointJudge bias predictions (``model, context,
    domain, level, pred, category``): per model, context and category the
    mean prediction and bias of the scored items (``model`` rows), and the
    caption's true mean PageRank and number of domains (``data`` rows, over
    the unique domains; ``subset``: the scope when the bias sample is
    smaller than the paper's)."""
    if predictions is None or predictions.empty:
        return []
    df = predictions.assign(level=pd.to_numeric(predictions["level"], errors="coerce"),
                            pred=pd.to_numeric(predictions["pred"], errors="coerce"),
                            category=predictions["category"].map(lambda c: str(c).strip().lower().lstrip(".")
                                                                 if isinstance(c, str) and c.strip() else None))
    df = df[df["category"].notna()]
    out = []
    for (model, context, cat), g in df.groupby(["model", "context", "category"], sort=False):
        scored = g[g["pred"].notna()]
        if str(model) in names and len(scored):
            args = (names[str(model)], str(model), "point", context, f"category={cat}")
            out.append(_row(8, *args, "mean_pred_score", scored["pred"].mean()))
            out.append(_row(8, *args, "bias", (scored["pred"] - scored["level"]).mean()))
    for cat, g in df.drop_duplicates("domain").groupby("category", sort=False):
        out.append(_row(8, "", "", "", "", f"category={cat}", "true_mean_pagerank", g["level"].mean(),
                        kind="data", scope=subset))
        out.append(_row(8, "", "", "", "", f"category={cat}", "n_domains", len(g), kind="data", scope=subset))
    return out


def authority_reason(row: Mapping, grid: Grid) -> str:
    """Why a published AuthorityBench number (Tables 1-4, 6, 8-12) has no counterpart."""
    if row["model"] == "Average":
        return AVERAGE
    if row["model"] and row["model"] not in grid.paper_names:
        return NOT_CONFIGURED
    table, setting = int(row["table"]), _setting(row["setting"])
    judges = DERIVATIONS.get(row["judge"], (row["judge"],))[:1] if row["judge"] else ()
    if judges and judges[0] not in grid.judges:
        return f"judge not in the grid ({judges[0]})"
    if row["context"] and row["context"] not in grid.contexts:
        return f"context not in the grid ({row['context']})"
    if table in DOMAINAUTH_TABLES and SETTING_OF[table] not in grid.settings:
        return f"setting not in the grid ({SETTING_OF[table]})"
    if "domain" in setting and setting["domain"] not in grid.entity_datasets:
        return f"dataset not in the grid (EntityAuth {setting['domain']})"
    if table == 8:
        return f"no {setting['category']} domain scored in this run's bias sample"
    return NO_VALUE


# --- RAGAuth -------------------------------------------------------------------------------

def rag_rows(accuracy: Iterable[Mapping], names: Mapping[str, str]) -> list[dict]:
    """Table 5 from RAGAuth's accuracy rows (``model, strategy, k, topic,
    accuracy, lo, hi``, percent): the overall (``topic = all``) rows."""
    return [_row(5, names[str(r["model"])], str(r["model"]), r["strategy"], "", f"k={r['k']}", "answer_accuracy",
                 r["accuracy"], *_interval(r, 1))
            for r in accuracy if str(r["topic"]) == "all" and str(r["model"]) in names]


def rag_reason(row: Mapping, grid: Grid) -> str:
    if row["model"] == "Average":
        return AVERAGE
    if row["model"] not in grid.paper_names:
        return NOT_CONFIGURED
    if row["judge"] not in grid.strategies:
        return f"strategy not in the grid ({row['judge']})"
    k = _setting(row["setting"])["k"]
    if k != "all" and k not in grid.k:
        return f"k not in the grid (k={k})"
    return NO_VALUE


# --- self-preference ------------------------------------------------------------------------

def sp_author_names(self_map: Mapping[str, str | None], names: Mapping[str, str]) -> dict[str, str]:
    """Author id -> the paper's name: the released authors (human, gpt35),
    then each evaluator's own passages under the evaluator's paper name."""
    out = dict(RELEASED_AUTHORS)
    out.update({own: names[ev] for ev, own in self_map.items() if own and ev in names})
    return out


def selfpref_rows(dataset: str, knowledge: Mapping[str, Sequence[Mapping]], passages: Sequence[Mapping],
                  summary: Iterable[Mapping], rates: Iterable[Mapping], self_map: Mapping[str, str | None],
                  names: Mapping[str, str], released: Sequence[str] = ("gpt35",),
                  released_perplexity: Mapping[str, Sequence[float]] | None = None,
                  files: Mapping[str, Any] | None = None) -> list[dict]:
    """Reproduced rows of one dataset (``nq``): Table 1's knowledge levels
    (``released`` authors' from their shipped probe files: ``data`` rows;
    evaluators probed here: ``model`` rows) and average passage length
    (``data``), Tables 6-9 and Table 2's Human / self cells from the rerank
    summary (:func:`~authbench.studies.selfpref.rows.rerank_summary`),
    Table 3 from the preference rates
    (:func:`~authbench.studies.selfpref.rows.preference_rates`).
    Released runs (``released`` knowledge authors; ``released_perplexity``:
    author -> the release's GPT-2 perplexities) are ``data`` rows beside the
    paper's row their author stands for (:data:`RELEASED_RUNS`), ``ours`` =
    "released run: <file>" (``files``: ``knowledge`` author -> file,
    ``perplexity`` the file), ``scope`` = what stands in for the paper's model."""
    from authbench.studies.selfpref.rows import ALL, aggregated, level_classes, normal_true_lengths

    label = SP_DATASETS.get(dataset.lower(), dataset)
    authors = sp_author_names(self_map, names)
    ds = f"dataset={label}"
    out = []
    files = files or {}

    def run_of(who: str, file: str | None) -> tuple[str | None, str, str]:
        name, note = RELEASED_RUNS.get(who, (authors.get(who), ""))
        return name, f"{RELEASED_RUN}: {Path(file).name if file else who}", note

    for who, counts in level_classes(knowledge).items():  # a released author's probes, or an evaluator's own
        total = sum(counts.values())
        if who in released:
            name, ours, note = run_of(who, (files.get("knowledge") or {}).get(who))
        else:
            name, ours, note = names.get(who), who, ""
        if name is not None and total:
            for cls in ("no", "partial", "full"):
                out.append(_row(1, name, ours, "", "", ds, f"knowledge_{cls}", 100 * counts[cls] / total,
                                kind="data" if who in released else "model", scope=note))
    for who, values in (released_perplexity or {}).items():
        name, ours, note = run_of(who, files.get("perplexity"))
        if name is not None and name != "Human" and len(values):
            out.append(_row(1, name, f"{ours} ({who})", "", "", ds, "perplexity", sum(values) / len(values),
                            kind="data", scope=note))
    lengths, _ = normal_true_lengths(passages)
    for author, words in lengths.items():
        if author in authors and words and author != "human":
            out.append(_row(1, authors[author], author, "", "", ds, "avg_length", sum(words) / len(words),
                            kind="data" if author in RELEASED_AUTHORS else "model",
                            scope=f"the {len(words)} passages of the questions in scope (config selfpref.items, "
                                  "selfpref.rerank.scope)"))
    for r in summary:
        ev = str(r["evaluator"])
        if ev not in names or r["variant"] != "normal":
            continue
        passage = "TRUE" if r["factual"] in (True, "true", "True") else "FALSE"
        table = {("normal", "TRUE"): 6, ("normal", "FALSE"): 7, ("rag", "TRUE"): 8, ("rag", "FALSE"): 9}[
            (r["prompt"], passage)]
        author = authors.get(str(r["author"]))
        if author is None:
            continue
        for metric, key in (("mean_score", "mean"), ("sd_score", "std")):
            out.append(_row(table, names[ev], ev, r["prompt"], "", f"{ds};author={author};passage={passage}", metric,
                            r[key]))
            if author == "Human" and passage == "TRUE":
                out.append(_row(2, names[ev], ev, r["prompt"], "", f"{ds};author=Human", metric, r[key]))
            if str(r["author"]) == self_map.get(ev):
                out.append(_row(2, names[ev], ev, r["prompt"], "", f"{ds};author=self;passage={passage}", metric,
                                r[key]))
    rates = list(rates)
    for r in rates:  # the per-author cells, then (the pooled row's place) the paper's Aggregated: their mean
        ev = str(r["evaluator"])
        other = "Aggregated" if r["other_author"] == ALL else authors.get(str(r["other_author"]))
        if ev not in names or other is None:
            continue
        for metric, key in (("self_preference", "self_pref"), ("order_preference", "order_pref"),
                            ("factual_preference", "factual_pref")):
            value = aggregated(rates, ev, key) if r["other_author"] == ALL else r[key]
            out.append(_row(3, names[ev], ev, "", "", f"{ds};other={other}", metric, value))
    return out


def selfpref_reason(row: Mapping, grid: Grid) -> str:
    """Why a published self-preference number has no counterpart."""
    setting, table = _setting(row["setting"]), int(row["table"])
    if setting.get("dataset") in SP_UNRELEASED:
        return f"{NOT_RELEASED} ({setting['dataset']}: the authors released NQ and MS MARCO only)"
    if row["model"] == "Average":
        return AVERAGE
    if table in (4, 5) and row["model"] == "GPT":
        return "the paper's evaluator 'GPT' is not resolved to one of its GPT models"
    if "dataset" in setting and setting["dataset"] not in grid.datasets:
        return f"dataset not in the grid ({setting['dataset']})"
    if table == 1 and row["metric"] == "perplexity":
        return "perplexity: the paper's is under GPT-2, ours under config selfpref.perplexity_model"
    if table == 2 and row["metric"] == "diff_h_minus_m":
        return "a difference of two compared numbers (not compared again)"
    if table in (4, 5):
        return "Tables 4-5 are not compared yet"
    released = set(RELEASED_AUTHORS.values())
    if row["model"] not in grid.paper_names | (released if table == 1 else set()):  # Table 1: authors too
        return NOT_CONFIGURED
    for key in ("author", "other"):
        if setting.get(key, "self") not in grid.paper_names | released | {"self", "Aggregated"}:
            return f"{key} {setting[key]} not configured (no evaluator or released passages with this name)"
    return NO_VALUE


# --- Table 7 ----------------------------------------------------------------------------------

def sample_sizes(config: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """What the config asks for where Table 7's count is a sampling choice:
    per sub-benchmark (``DomainAuth``, ``EntityAuth/<set>``) ``fine_lists``,
    ``coarse_lists``, ``easy_pairs``, ``hard_pairs``, ``corpus``."""
    s = config["domainauth"]["sampling"]
    out = {"DomainAuth": {k: s[k] for k in ("fine_lists", "coarse_lists", "easy_pairs", "hard_pairs")}}
    for d in entity_datasets(config):
        name = d.split("/", 1)[1]
        ea = config["entityauth"]
        out[f"EntityAuth/{name}"] = {"corpus": ea["datasets"][name]["corpus"], "fine_lists": ea["lists"],
                                     "coarse_lists": ea["coarse_lists"]}
    return out


def statistics_rows(stats: Sequence[Any], asked: Mapping[str, Mapping[str, int]]) -> list[dict]:
    """Table 7's counts from the built datasets
    (:class:`authbench.studies.statistics.DatasetStats`): corpus items,
    N=5 / N=10 lists, hard / easy pairs, RAGAuth's queries and documents
    per query; all ``data`` rows. ``asked``: :func:`sample_sizes`: a count
    the config sets smaller than the paper's is scoped as a sample rather
    than a miss."""
    out = []
    for d in stats:
        if d.subtask == "RAGAuth":
            out.append(_row(7, "", "", "", "", "subtask=RAGAuth", "queries", d.corpus, kind="data"))
            if d.corpus:
                out.append(_row(7, "", "", "", "", "subtask=RAGAuth", "docs_per_query", (d.documents or 0) / d.corpus,
                                kind="data"))
            continue
        entity = d.subtask == "EntityAuth"
        key = f"EntityAuth/{d.name.lower()}" if entity else "DomainAuth"
        base = f"subtask={d.subtask}" + (f";domain={d.name.lower()}" if entity else "")
        sizes = asked.get(key, {})
        out.append(_row(7, "", "", "", "", base, "corpus_items", d.corpus, kind="data", asked=sizes.get("corpus")))
        for n, what in ((5, "coarse_lists"), (10, "fine_lists")):
            if d.lists.get(n) or not entity:
                out.append(_row(7, "", "", "", "", f"{base};list_size={n}", "listwise_instances", d.lists.get(n, 0),
                                kind="data", asked=sizes.get(what)))
        if not entity:
            for diff in ("hard", "easy"):
                out.append(_row(7, "", "", "", "", f"{base};difficulty={diff}", "pairwise_instances",
                                d.pairs.get(diff, 0), kind="data", asked=sizes.get(f"{diff}_pairs")))
    return out


def statistics_reason(row: Mapping, grid: Grid) -> str:
    setting = _setting(row["setting"])
    if row["metric"].startswith("score_scale"):
        return "the label scale is the design, not a count (Table 7's text cell)"
    if setting.get("subtask") == "EntityAuth" and setting.get("domain") not in grid.entity_datasets:
        return f"dataset not in the grid (EntityAuth {setting.get('domain')})"
    if setting.get("subtask") == "RAGAuth":
        return "RAGAuth not in this run"
    return "not built by this run"


# --- matching and writing ---------------------------------------------------------------------

def compare(paper: str, tables: Sequence[int], reproduced: Sequence[Mapping], reason,
            published: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Match every published number of ``paper``'s ``tables`` to the
    ``reproduced`` rows with its key (several configured models may share a
    paper name: one row each). Returns the matched rows (:data:`COLUMNS`)
    and the published numbers without a counterpart (:data:`MISSING_COLUMNS`;
    ``reason(row)`` says why; a reproduced row whose value is NaN is no
    counterpart)."""
    pub = (load(paper) if published is None else published)
    pub = pub[pub["table"].isin(list(tables))].reset_index(drop=True)
    ours = pd.DataFrame(list(reproduced), columns=[*KEY, "ours", "reproduced", "lo", "hi", "kind", "scope", "asked"])
    ours = ours[ours["reproduced"].notna()].astype({"table": int})
    merged = pub.merge(ours, on=list(KEY), how="left", indicator=True)
    hit = merged[merged["_merge"] == "both"].rename(columns={"value": "published"})
    sampled = hit["asked"].notna() & (hit["asked"] != hit["published"])
    hit = hit.assign(delta=hit["reproduced"] - hit["published"],
                     scope=hit["scope"].where(~sampled, [f"sample: the config asks for {a:g}" for a in hit["asked"]]))
    inside = [("yes" if lo <= p <= hi else "no") if not (math.isnan(lo) or math.isnan(hi)) else "n/a"
              for lo, hi, p in zip(hit["lo"].astype(float), hit["hi"].astype(float), hit["published"])]
    hit = hit.assign(inside=inside)[list(COLUMNS)].reset_index(drop=True)
    miss = merged[merged["_merge"] == "left_only"].rename(columns={"value": "published"})
    miss = miss.assign(reason=[reason(r) for r in miss.to_dict("records")])[list(MISSING_COLUMNS)]
    return hit, miss.reset_index(drop=True)


COUNTS = ("corpus_items", "listwise_instances", "pairwise_instances", "queries", "n_domains")  # shown as integers


def _fmt(x: float, metric: str = "") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.0f}" if metric in COUNTS else f"{x:.2f}"


def summary(hit: pd.DataFrame, miss: pd.DataFrame) -> str:
    """The scorecard's first line: numbers compared, inside the interval (of
    those with one), median |Δ| (of the judges' numbers: the data rows are
    counts of other units), the data rows (those on a smaller sample), and the published numbers without a counterpart."""
    model, data = hit[hit["kind"] == "model"], hit[hit["kind"] == "data"]
    with_interval = hit[hit["inside"] != "n/a"]
    median = model["delta"].abs().median() if len(model) else math.nan
    runs = data["ours"].astype(str).str.startswith(RELEASED_RUN)
    sampled = int(((data["scope"] != "") & ~runs).sum())
    return (f"{len(hit)} published numbers compared: {len(model)} judge numbers, "
            f"{int((with_interval['inside'] == 'yes').sum())} of the {len(with_interval)} with an interval inside it, "
            f"median |Δ| {_fmt(median) or '–'}; {len(data)} from data alone ({sampled} on a smaller sample than the "
            f"paper's, {int(runs.sum())} of the authors' released runs); {len(miss)} published numbers without a "
            "counterpart.")


EXPLAIN = ("Each published number (resources/published/) beside the number this run reproduced in the same place, "
           "in the paper's units; [lo, hi]: its 95% interval where the run has one (inside: the published value lies "
           "in it; n/a: no interval). kind data: counted from the data alone; scope: where the config samples less "
           "than the paper did.")
HEADER = ("| kind | table | model | ours | judge | context | setting | metric | reproduced | [lo, hi] | published | Δ "
          "| inside | scope |")


def scorecard_md(title: str, hit: pd.DataFrame, miss: pd.DataFrame) -> str:
    """The scorecard as Markdown: title, :func:`summary`, what the columns
    mean, the compared numbers, the missing ones counted by reason."""
    lines = [f"# Scorecard: {title}", "", summary(hit, miss), "", EXPLAIN, ""]
    if len(hit):
        lines += [HEADER, "|" + "---|" * 14]
        for r in hit.to_dict("records"):
            interval = f"[{_fmt(r['lo'])}, {_fmt(r['hi'])}]" if r["inside"] != "n/a" else ""
            lines.append("| " + " | ".join(str(x) for x in (
                r["kind"], r["table"], r["model"], r["ours"], r["judge"], r["context"], r["setting"], r["metric"],
                _fmt(r["reproduced"], r["metric"]), interval, _fmt(r["published"], r["metric"]),
                _fmt(r["delta"], r["metric"]), r["inside"], r["scope"]))
                + " |")
        lines.append("")
    if len(miss):
        lines += ["## Published numbers without a counterpart", "", "| reason | tables | numbers |", "|---|---|---|"]
        for reason, g in miss.groupby("reason", sort=True):
            tables = ", ".join(str(t) for t in sorted(set(g["table"])))
            lines.append(f"| {reason} | {tables} | {len(g)} |")
        lines.append("")
    return "\n".join(lines)


def write_scorecard(outdir: str | Path, title: str, hit: pd.DataFrame, miss: pd.DataFrame,
                    extra: str = "") -> list[Path]:
    """``scorecard.md`` (the summary line, the compared numbers, the missing
    ones counted by reason; then ``extra``, e.g. the significance marks) and
    ``scorecard.tsv`` (the compared numbers, then the missing ones with
    ``reason``) under ``outdir``."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    md, tsv = out / "scorecard.md", out / "scorecard.tsv"
    write_text(md, scorecard_md(title, hit, miss) + (f"\n{extra}" if extra else ""))
    frame = pd.concat([hit.assign(reason=""), miss.assign(kind="", inside="")], ignore_index=True)
    frame = frame.reindex(columns=[*COLUMNS, "reason"])
    write_frame(frame, tsv, sep="\t", index=False, float_format="%.6g")
    return [md, tsv]


# --- each report's scorecard ------------------------------------------------------------------

def _grid(params: Mapping[str, Any] | None, paper: str, **more) -> Grid:
    return Grid.of(params, paper, **more) if params else Grid({}, **more)


def write_paper_scorecard(outdir: str | Path, title: str, paper: str, tables: Iterable[int],
                          rows_of: Callable[[Grid], list], reason_of: Callable[[Mapping, Grid], str],
                          params: Mapping[str, Any] | None, extra: str = "", **grid_more) -> list[Path]:
    """A report's scorecard (:func:`write_scorecard`): ``rows_of(grid)`` the
    numbers this run reproduced, ``reason_of(row, grid)`` why a published one
    has no counterpart; ``params``: :func:`grid_params` (None: no model is
    named); ``extra``: a section after the numbers."""
    grid = _grid(params, paper, **grid_more)
    return write_scorecard(outdir, title, *compare(paper, tables, rows_of(grid), lambda r: reason_of(r, grid)),
                           extra=extra)


MARK_COLUMNS = ("table", "model", "ours", "prompt", "setting", "metric", "published_mark", "our_mark", "agree")


def mark_agreement(dataset_label: str, marks: Mapping[tuple, bool], names: Mapping[str, str],
                   published: pd.DataFrame | None = None) -> pd.DataFrame:
    """The paper's significance marks beside ours: every published
    Table 1 perplexity and Table 2 self difference of ``dataset_label`` whose
    evaluator is configured (``names``: our model -> paper name) and has a
    mark of ours (``marks``: ``(1, evaluator, "", "")`` or ``(2, evaluator,
    prompt, "TRUE"|"FALSE")`` -> whether our cell carries †), with
    :data:`MARK_COLUMNS`."""
    pub = load("selfpref") if published is None else published
    rows = []
    for ev, paper in names.items():
        for key, ours in marks.items():
            if key[1] != ev:
                continue
            table, _, prompt, passage = key
            if table == 1:
                setting, metric = f"dataset={dataset_label}", "perplexity"
            else:
                setting, metric = f"dataset={dataset_label};author=self;passage={passage}", "diff_h_minus_m"
            # the self-preference prompt (normal / rag) is the published rows' judge column
            hit = pub[(pub["table"] == table) & (pub["model"] == paper) & (pub["judge"].fillna("") == prompt)
                      & (pub["setting"] == setting) & (pub["metric"] == metric)]
            for r in hit.to_dict("records"):
                theirs = str(r.get("mark") or "") == "dagger"
                rows.append({"table": table, "model": paper, "ours": ev, "prompt": prompt, "setting": setting,
                             "metric": metric, "published_mark": DAGGER if theirs else "",
                             "our_mark": DAGGER if ours else "", "agree": "yes" if theirs == ours else "no"})
    return pd.DataFrame(rows, columns=list(MARK_COLUMNS))


def marks_md(frame: pd.DataFrame, test: str) -> str:
    """The scorecard's section on the significance marks."""
    head = f"## Significance marks ({test})\n\n"
    if not len(frame):
        return head + ("No published mark has a counterpart here (no configured evaluator with a paper name, or "
                       "no Table 1 perplexity / Table 2 difference of ours).\n")
    agree = int((frame["agree"] == "yes").sum())
    both = int(((frame["published_mark"] != "") & (frame["our_mark"] != "")).sum())
    neither = agree - both
    ours_only = int(((frame["published_mark"] == "") & (frame["our_mark"] != "")).sum())
    paper_only = int(((frame["published_mark"] != "") & (frame["our_mark"] == "")).sum())
    lines = [head + f"{agree} of {len(frame)} published marks agree with ours under this test ({both} both †, "
             f"{neither} neither); † ours only: {ours_only}; † the paper's only: {paper_only}.", "",
             "| table | model | ours | prompt | setting | metric | paper | ours | agree |", "|" + "---|" * 9]
    for r in frame.to_dict("records"):
        lines.append("| " + " | ".join(str(r[c]) for c in MARK_COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def write_selfpref_scorecard(outdir: str | Path, dataset: str | None, knowledge: Mapping[str, Sequence[Mapping]],
                             passages: Sequence[Mapping], summary: Iterable[Mapping], rates: Iterable[Mapping],
                             self_map: Mapping[str, str | None], params: Mapping[str, Any] | None,
                             released_perplexity: Mapping[str, Sequence[float]] | None = None,
                             released: Mapping[str, Any] | None = None,
                             marks: Mapping[tuple, bool] | None = None, significance: str = "paired") -> list[Path]:
    """A self-preference dataset's scorecard (Tables 1-9 of that dataset;
    the knowledge files of authors that are no evaluator are the released
    ones, and the released GPT-2 perplexities: data rows, "released run");
    ``marks`` (our Tables 1-2 † marks, :func:`mark_agreement`) beside the
    paper's under ``significance``: a section of ``scorecard.md`` and
    ``scorecard_marks.tsv`` (one row per mark, with the test)."""
    from authbench.stats import SIGNIFICANCE_WORDS

    label = SP_DATASETS.get((dataset or "").lower(), dataset or "")
    names = _grid(params, "selfpref", datasets=(label,)).names
    agreement = mark_agreement(label, marks or {}, names)
    paths = write_paper_scorecard(
        outdir, f"self-preference, {label}", "selfpref", range(1, 10),
        lambda grid: selfpref_rows(dataset or "", knowledge, passages, summary, rates, self_map, grid.names,
                                   [a for a in knowledge if a not in self_map], released_perplexity, released),
        selfpref_reason, params,
        extra=marks_md(agreement, f"selfpref.significance: {significance}, {SIGNIFICANCE_WORDS[significance]}"),
        datasets=(label,))
    marks_tsv = Path(outdir) / SCORECARD_MARKS
    write_frame(agreement.assign(test=significance), marks_tsv, sep="\t", index=False)
    return paths + [marks_tsv]
