"""What an AuthorityBench config produces, decided once: the reports of
DomainAuth and EntityAuth (:data:`DOMAINAUTH`, :data:`ENTITYAUTH`: every
table and figure declared once, :mod:`authbench.render.catalog` derives the
files ``rules/common.smk`` asks for, contents.md and the report entries), which label scales a cell is scored
against, and which baselines run on which instance sets. Light imports only:
the Snakefile loads this module on every run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from authbench.studies.authority.grid import entity_rescores, entity_settings
from authbench.studies.authority.judges import (DERIVATION_JUDGES, JUDGES, PAIRS_TABLE_ORDER, SCORE_JUDGES, judge_of,
                                                judges_on)
from authbench.render.catalog import CLAIMS, SCORECARD, Figure, Needs, Report, Table, always

FAIL_NOTE = " fail% = parse failures among the judge's calls."


def _missing(config: Mapping[str, Any], setting: str | None, judges: Sequence[str] | None) -> str:
    """Why a grid has no data for a table ('' when it has): ``setting`` not
    among config ``settings``, or none of ``judges`` among config ``judges``."""
    if setting is not None and setting not in config["settings"]:
        return f"config key 'settings' has no '{setting}'"
    if judges is not None and not set(judges) & set(config["judges"]):
        return f"config key 'judges' has none of {', '.join(judges)}"
    return ""


def needs(setting: str | None = None, judges: Sequence[str] | None = None) -> Callable[[Mapping[str, Any]], str]:
    return lambda config: _missing(config, setting, judges)


def needs_expected(domain: bool) -> Callable[[Mapping[str, Any]], str | None]:
    """The E[s] table: off unless config ``expected_scores``; it needs a score
    judge (and, for DomainAuth, a fine, coarse or pairs setting)."""
    def reason(config: Mapping[str, Any]) -> str | None:
        if not config["expected_scores"]:
            return None
        if not set(config["judges"]) & set(SCORE_JUDGES):
            return f"config key 'judges' has none of {', '.join(SCORE_JUDGES)}"
        if domain and not set(config["settings"]) & {"fine", "coarse", "pairs"}:
            return "config key 'settings' has none of fine, coarse, pairs"
        return ""
    return reason


@dataclass(frozen=True)
class Results:
    """How a results table is built from the metric rows of one dataset
    (:mod:`authbench.studies.authority.report` stacks EntityAuth's datasets
    and adds the parse-mode and judge-validity sentences to the caption)."""

    kind: str  # main, derivations, pairs, expected: the builder in authbench.studies.authority.tables
    setting: str | None = None  # its label scale (fine, coarse) or instance set (pairs)
    rescored: str = ""  # the caption instead, with entityauth.coarse_source: rescore (Table 6)

    @property
    def judges(self) -> tuple[str, ...]:
        """The judges whose values it shows (() = the E[s] table: no † marks)."""
        return {"main": tuple(JUDGES), "derivations": DERIVATION_JUDGES, "pairs": PAIRS_TABLE_ORDER
                }.get(self.kind, ())

    def build(self, metrics, dataset: str, rule):
        from authbench.studies.authority import tables

        if self.kind == "expected":
            from authbench.studies.authority.expected_table import table_expected

            return table_expected(metrics, dataset)
        if self.kind == "pairs":
            return tables.table_pairs(metrics, dataset, rule)
        return getattr(tables, f"table_{self.kind}")(metrics, dataset, self.setting, rule)


def results_table(stem: str, title: str, caption: str, results: Results, needs_: Needs) -> Table:
    """A results table: built and captioned by the report writer's inputs
    (:class:`authbench.studies.authority.report.AuthorityData`)."""
    return Table(stem, title, caption, needs_, build=lambda x: x.results(results),
                 caption_of=lambda x, spec: x.results_caption(results, caption, spec))


EXPECTED_CAPTION = (
    "Expected-score judging (not in the paper): each score judge's argmax scores and E[s] = sum of p(s) x s over "
    "the score tokens (renormalised at each score slot), as Spearman's rho (%), Kendall's tau (%), constant lists "
    "and pairwise accuracy (%). PairJudge PointScore: AverageScore. fallback%: score slots whose E[s] is the argmax "
    "for want of a distribution (config expected_scores).")
# the cost table and figure close both AuthorityBench reports (the report data's write_files:
# authbench.studies.authority.report.write_costs)
COSTS = (
    Table("costs", "Cost per cell",
          "Cost per cell: prompts, unique prompts, cache hits, prompt/completion tokens, engine seconds; list cells "
          "with their main rho (%). Judge validity per cell: position-constant share, position rho, example-copy "
          "share, A-share vs expected A-share; flag † (docs/decisions.md, Judge validity).", exts=("csv", "md")),
    Figure("cost_vs_rho", "Cost vs. rho",
           "Cost vs. quality: engine seconds of each list cell (log scale) against its rho (%), one marker per judge."),
)
DERIVATIONS = ("PairJudge ranking derivation methods on {} ({}-grained), Spearman's rho (%). PairRank_BT, "
               "PointScore_BT (not in the paper; absent from metrics written before them): each list's "
               "Bradley-Terry strengths, the cell's lists fitted together with one order effect for position A "
               "(docs/decisions.md, 'The Bradley-Terry derivation'); bold and underline rank the paper's columns "
               "only." + FAIL_NOTE)
CONSISTENCY_CAPTION = (
    "Position consistency (not in the paper; config position_consistency): each pair and list cell's comparisons "
    "shown in both orders (pairs A/B swapped, lists reversed; docs/decisions.md, 'Position consistency'). paper: "
    "the seeded order's number (lists: rho of the main derivation; pairs: accuracy over all pairs). consistent / "
    "conflict / partial: shares of comparisons (lists: item pairs) whose preferred item is the same in both orders / "
    "whose preferred position is / with a tie or an unparsed reply in either (they sum to 100). first: the share of "
    "conflicts that prefer the first-shown position, and its exact binomial p against 50%. both-acc: correct in both "
    "orders; balanced: PairScore's scores averaged over both orders (accuracy; lists also rho); on consistent: the "
    "accuracy of the consistent comparisons (descriptive: each cell's subset differs). tau(orders), alike: Kendall's "
    "tau-b between the two orders' per-item values of a list and the share of item pairs ordered alike; dropped: lists "
    "without a usable reply in either order. kappa: Cohen's kappa between the orders' item choices; chance: the "
    "consistency of a judge that picks position A as often as this one, 2a(1-a). Intervals: 95% bootstrap over "
    "lists or pairs.")
CONSISTENCY = (
    Table("position_consistency", "Position consistency: every pair and list judge in both orders",
          CONSISTENCY_CAPTION, lambda config: "" if config.get("position_consistency") else None,
          build=lambda x: x.consistency_table()),
    Figure("position_consistency_cells", "Position consistency per cell",
           "Position consistency (not in the paper): each pair and list cell's share of comparisons consistent in "
           "both orders (%), with its 95% bootstrap interval over lists or pairs; x: the consistency of a judge that "
           "picks the first-shown position as often by chance, 2a(1-a).",
           lambda config: "" if config.get("position_consistency") else None,
           build=lambda x, path: x.consistency_figure(path)),
)
TABLE8 = "Mean predicted score and scoring bias (predicted - true PageRank) of PointJudge per domain category."

# comparisons.tsv / .md: the paired comparisons (authbench.studies.authority.comparisons)
DOMAINAUTH = Report("DomainAuth", extra=("metrics.tsv", "contents.md", "comparisons.tsv", "comparisons.md", *SCORECARD,
                                          *CLAIMS),
                    closing=COSTS, diffs=True, items=(
    results_table("table1_fine", "Table 1: DomainAuth fine-grained rho, tau",
                  "Results on DomainAuth (fine-grained) as Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE,
                  Results("main", "fine"), needs("fine")),
    results_table("table9_derivations_fine", "Table 9: PairJudge derivations, fine-grained",
                  DERIVATIONS.format("DomainAuth", "fine"), Results("derivations", "fine"), needs("fine", DERIVATION_JUDGES)),
    results_table("table2_coarse", "Table 2: DomainAuth coarse-grained rho, tau",
                  "Results on DomainAuth (coarse-grained) as Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE,
                  Results("main", "coarse"), needs("coarse")),
    results_table("table10_derivations_coarse", "Table 10: PairJudge derivations, coarse-grained",
                  DERIVATIONS.format("DomainAuth", "coarse"), Results("derivations", "coarse"),
                  needs("coarse", DERIVATION_JUDGES)),
    results_table("table3_pairs", "Table 3: pairwise accuracy, easy vs. hard pairs",
                  "Pairwise accuracy (%) on easy vs. hard pairs on DomainAuth (ties count as wrong). Bold: best; "
                  "underline: second best, per row and context." + FAIL_NOTE,
                  Results("pairs", "pairs"), needs("pairs", judges_on("pairs"))),
    Table("table8_categories", "Table 8: PointJudge scores per domain category (with Figure 6, the bias heatmap)",
          TABLE8, needs("bias", judges_on("bias")), build=lambda x: x.categories_table(),
          caption_of=lambda x, spec: x.categories_caption(TABLE8, spec)),
    results_table("expected_scores", "expected_scores", EXPECTED_CAPTION, Results("expected"), needs_expected(True)),
    *CONSISTENCY,
    Figure("fig3_label_distribution", "Figure 3: DomainAuth labels per PageRank level",
           "Figure 3 (DomainAuth half): number of domains per PageRank level (fine 0-9, coarse 0-4).", listed=False,
           build=lambda x, path: x.label_figure(path)),
    Figure("fig6_bias_heatmap", "Figure 6: PointJudge bias per PageRank level",
           "Figure 6: PointJudge mean bias (predicted - true) per true PageRank level; beneath each value its 95% "
           "bootstrap interval over the level's scored items (none with fewer than intervals.min_units).",
           needs("bias", judges_on("bias")), listed=False, build=lambda x, path: x.bias_figure(path)),
    # written by the secondary-label step (authbench.studies.authority.secondary.write_secondary_report)
    Table("secondary_labels", "Secondary labels: judge scores vs. each secondary label",
          "Judge scores against the primary label (fine level) and each secondary label (config "
          "domainauth.secondary), per model, judge and context: Spearman's rho (%) and, for a binary label, ROC AUC "
          "(%), each with a 95% percentile-bootstrap interval over items.",
          lambda config: "" if has_secondary(config) else None, listed=False,
          also=("item_scores.tsv", "secondary.tsv")),
))

ENTITYAUTH = Report("EntityAuth", extra=("metrics.tsv", "contents.md", "reuse.tsv", "comparisons.tsv",
                                          "comparisons.md", *SCORECARD, *CLAIMS), closing=COSTS, diffs=True, items=(
    results_table("table4_fine", "Table 4: EntityAuth fine-grained rho, tau",
                  "Results on EntityAuth (fine-grained, 10-level, w/o text) across domains as Spearman's rho (%) "
                  "and Kendall's tau (%)." + FAIL_NOTE, Results("main", "fine"), always),
    results_table("table6_coarse", "Table 6: EntityAuth coarse-grained rho, tau",
                  "Results on EntityAuth (coarse-grained, 5-level, w/o text) on N=5 lists, one entity per coarse "
                  "level (PairJudge: all 10 pairs), as Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE,
                  Results("main", "coarse", rescored=(
                      "Results on EntityAuth (coarse-grained, 5-level, w/o text): the N=10 lists' judgments scored "
                      "against the coarse labels (entityauth.coarse_source: rescore; the paper judges N=5 lists), "
                      "Spearman's rho (%) and Kendall's tau (%)." + FAIL_NOTE)), always),
    results_table("table11_derivations_fine", "Table 11: PairJudge derivations, fine-grained",
                  DERIVATIONS.format("EntityAuth", "fine"), Results("derivations", "fine"), needs(None, DERIVATION_JUDGES)),
    results_table("table12_derivations_coarse", "Table 12: PairJudge derivations, coarse-grained",
                  DERIVATIONS.format("EntityAuth", "coarse"), Results("derivations", "coarse"),
                  needs(None, DERIVATION_JUDGES)),
    results_table("expected_scores", "expected_scores", EXPECTED_CAPTION, Results("expected"), needs_expected(False)),
    *CONSISTENCY,
    Figure("fig3_entityauth_label_distribution", "Figure 3: EntityAuth labels per level",
           "Figure 3 (EntityAuth half): entities per level after Eq. 1 log binning of Wikidata sitelinks.",
           listed=False, build=lambda x, path: x.label_figure(path)),
))


def gives_item_scores(judge: str, setting: str) -> bool:
    """Whether a cell gives its items a score or a position (its
    ``predictions.tsv``; :mod:`authbench.studies.authority.predictions`):
    the judge's answer (PointJudge everywhere, ListRank/ListScore/PairRank on
    lists, PairScore on lists and pairs: a pair's single PairRank choice is
    no position)."""
    return judge_of(judge).gives_item_scores(setting)


def check_labels(config: Mapping[str, Any]) -> None:
    """The ``label`` blocks (DomainAuth and every EntityAuth dataset) and
    DomainAuth's ``secondary`` block, checked where a JSON schema cannot
    (:func:`authbench.studies.authority.labels.label_spec`,
    :func:`~authbench.studies.authority.labels.secondary_specs`): a
    :class:`~authbench.errors.ConfigError` naming the key."""
    from authbench.studies.authority.labels import label_spec, secondary_specs

    label_spec(config["domainauth"].get("label"), "page_rank", "integer", "domainauth.label")
    secondary_specs(config["domainauth"].get("secondary"), "domainauth.secondary")
    for name, spec in ((config.get("entityauth") or {}).get("datasets") or {}).items():
        if spec:
            label_spec(spec.get("label"), "popularity", "log", f"entityauth.datasets.{name}.label")


def has_secondary(config: Mapping[str, Any]) -> bool:
    """Whether DomainAuth's config names secondary labels (``domainauth.secondary.labels``)."""
    return bool(((config["domainauth"].get("secondary") or {}).get("labels")))


def secondary_cells(config: Mapping[str, Any], cells: Sequence) -> list:
    """The DomainAuth cells whose per-item scores the secondary-label table
    reads: every cell whose judge gives its items a score or a position
    (:func:`gives_item_scores`)."""
    if not has_secondary(config):
        return []
    return [c for c in cells if c.dataset == "domainauth" and gives_item_scores(c.judge, c.setting)]


def is_entity(dataset: str) -> bool:
    return dataset.startswith("entityauth/")


def scales(config: Mapping[str, Any], dataset: str, setting: str) -> list[str]:
    """The label scales a cell's judgments are scored against: the setting's
    own (N=10 lists: fine, N=5 lists: coarse), and with
    ``entityauth.coarse_source: rescore`` EntityAuth's N=10 lists also against
    the coarse labels (then Table 6's numbers; there are no coarse cells)."""
    if is_entity(dataset) and setting == "fine" and entity_rescores(config):
        return ["fine", "coarse"]
    return [setting]


def baseline_inputs(config: Mapping[str, Any], dataset: str) -> dict:
    """The non-LLM baselines of a dataset: which instance sets they read,
    which (instance set, label scale) pairs they are scored on, the contexts
    their rows are shown under, and the baselines (the TLD prior scores a
    domain by its public suffix: DomainAuth only)."""
    if is_entity(dataset):
        sets = entity_settings(config)
        return {"instance_sets": sets,
                "evaluations": [[s, scale] for s in sets for scale in scales(config, dataset, s)],
                "contexts": ["wo_text"],
                "baselines": {k: v for k, v in config["baselines"].items() if k != "tld_prior"}}
    return {"instance_sets": ["fine", "coarse", "pairs"],
            "evaluations": [[s, s] for s in config["settings"] if s != "bias"],
            "contexts": config["contexts"], "baselines": config["baselines"]}
