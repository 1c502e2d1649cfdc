"""What an AuthorityBench config produces, decided once: the report files of
DomainAuth and EntityAuth (``rules/common.smk`` asks for them, the report
step writes exactly these tables), which label scales a cell is scored
against, and which baselines run on which instance sets. Light imports only:
the Snakefile loads this module on every run."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from authbench.config import entity_rescores, entity_settings
from authbench.judges import PAIR_JUDGES, PAIRS_SETTING_JUDGES, SCORE_JUDGES, judges_on

FAIL_NOTE = " fail% = parse failures among the judge's calls."
EXPECTED_TABLE = "expected_scores"

# table stem -> (kind, label scale); the kind picks the table builder
DOMAIN_TABLES = {
    "table1_fine": ("main", "fine"),
    "table9_derivations_fine": ("derivations", "fine"),
    "table2_coarse": ("main", "coarse"),
    "table10_derivations_coarse": ("derivations", "coarse"),
    "table3_pairs": ("pairs", "pairs"),
    EXPECTED_TABLE: ("expected", None),
}
ENTITY_TABLES = {
    "table4_fine": ("main", "fine"),
    "table6_coarse": ("main", "coarse"),
    "table11_derivations_fine": ("derivations", "fine"),
    "table12_derivations_coarse": ("derivations", "coarse"),
    EXPECTED_TABLE: ("expected", None),
}


def table_files(folder: str, stems: Sequence[str]) -> list[str]:
    return [f"{folder}/tables/{t}.{ext}" for t in stems for ext in ("csv", "md", "tex")]


def cost_files(folder: str) -> list[str]:
    return [f"{folder}/tables/costs.csv", f"{folder}/tables/costs.md", f"{folder}/figures/cost_vs_rho.png"]


# what each DomainAuth table needs: (setting, judges of which one must be configured)
DOMAIN_NEEDS = {
    "table1_fine": ("fine", None),
    "table9_derivations_fine": ("fine", PAIR_JUDGES),
    "table2_coarse": ("coarse", None),
    "table10_derivations_coarse": ("coarse", PAIR_JUDGES),
    "table3_pairs": ("pairs", PAIRS_SETTING_JUDGES),
    "table8_categories": ("bias", judges_on("bias")),
}


def _missing(settings: Sequence[str], judges: Sequence[str], setting: str | None, needs: Sequence[str] | None) -> str:
    """Why a grid has no data for a table ('' when it has)."""
    if setting is not None and setting not in settings:
        return f"config key 'settings' has no '{setting}'"
    if needs is not None and not set(needs) & set(judges):
        return f"config key 'judges' has none of {', '.join(needs)}"
    return ""


def _expected_missing(settings: Sequence[str] | None, judges: Sequence[str]) -> str:
    """Why a grid has no E[s] table ('' when it has): it needs a score judge
    (and, for DomainAuth, a fine, coarse or pairs setting)."""
    if not set(judges) & set(SCORE_JUDGES):
        return f"config key 'judges' has none of {', '.join(SCORE_JUDGES)}"
    if settings is not None and not set(settings) & {"fine", "coarse", "pairs"}:
        return "config key 'settings' has none of fine, coarse, pairs"
    return ""


def domainauth_skipped(settings: Sequence[str], judges: Sequence[str], expected: bool = False) -> dict[str, str]:
    """DomainAuth's tables the grid has no data for, each with the reason
    (the report's contents.md lists them; config.yaml allows removing
    entries of ``settings``, ``judges`` and ``contexts``); with ``expected``
    (config ``expected_scores``) the E[s] table is one of them."""
    out = {}
    for stem, (setting, needs) in DOMAIN_NEEDS.items():
        reason = _missing(settings, judges, setting, needs)
        if reason:
            out[stem] = reason
    if expected and _expected_missing(settings, judges):
        out[EXPECTED_TABLE] = _expected_missing(settings, judges)
    return out


def domainauth_tables(settings: Sequence[str], judges: Sequence[str], expected: bool = False) -> list[str]:
    """DomainAuth's table stems for the configured settings and judges: each
    table whose setting is configured and that has a configured judge to fill
    it (with ``expected``, config ``expected_scores``: the E[s] vs argmax table too)."""
    skipped = domainauth_skipped(settings, judges, expected)
    return [stem for stem in (*DOMAIN_NEEDS, *([EXPECTED_TABLE] if expected else [])) if stem not in skipped]


def domainauth_report_files(folder: str, settings: Sequence[str], judges: Sequence[str],
                            secondary: bool = False, expected: bool = False) -> list[str]:
    """Every DomainAuth report file (under ``folder``) the config's grid
    produces; ``secondary``: the config names secondary labels
    (:func:`secondary_files`); ``expected``: config ``expected_scores``."""
    stems = domainauth_tables(settings, judges, expected)
    out = [f"{folder}/metrics.tsv", f"{folder}/contents.md", f"{folder}/figures/fig3_label_distribution.png"]
    out += cost_files(folder)
    if "table8_categories" in stems:
        out.append(f"{folder}/figures/fig6_bias_heatmap.png")
    return out + table_files(folder, stems) + (secondary_files(folder) if secondary else [])


def secondary_files(folder: str) -> list[str]:
    """The secondary-label report (:mod:`authbench.studies.authority.secondary`):
    the table, its long numbers and the per-item scores it is computed from."""
    return [f"{folder}/item_scores.tsv", f"{folder}/secondary.tsv"] + table_files(folder, ["secondary_labels"])


def gives_item_scores(judge: str, setting: str) -> bool:
    """Whether a cell gives its items a score or a position (its
    ``predictions.tsv``; :mod:`authbench.studies.authority.predictions`):
    PointJudge everywhere, ListRank/ListScore/PairRank on lists, PairScore on
    lists and pairs (a pair's single PairRank choice is no position)."""
    if judge == "point":
        return True
    if judge == "pair_score":
        return setting in ("fine", "coarse", "pairs")
    return setting in ("fine", "coarse")


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


def entityauth_skipped(judges: Sequence[str], expected: bool = False) -> dict[str, str]:
    """EntityAuth's tables the judges leave out (Tables 11, 12 need a PairJudge;
    with ``expected`` the E[s] table needs a score judge)."""
    reason = _missing((), judges, None, PAIR_JUDGES)
    out = {stem: reason for stem in ("table11_derivations_fine", "table12_derivations_coarse") if reason}
    if expected and _expected_missing(None, judges):
        out[EXPECTED_TABLE] = _expected_missing(None, judges)
    return out


def entityauth_tables(judges: Sequence[str], expected: bool = False) -> list[str]:
    """EntityAuth's Tables 4, 6 (and 11, 12 with pair judges; with
    ``expected`` and a score judge the E[s] vs argmax table)."""
    skipped = entityauth_skipped(judges, expected)
    return [stem for stem in ENTITY_TABLES if stem not in skipped and (expected or stem != EXPECTED_TABLE)]


def entityauth_report_files(folder: str, judges: Sequence[str], expected: bool = False) -> list[str]:
    return ([f"{folder}/metrics.tsv", f"{folder}/contents.md", f"{folder}/reuse.tsv",
             f"{folder}/figures/fig3_entityauth_label_distribution.png"]
            + table_files(folder, entityauth_tables(judges, expected)) + cost_files(folder))


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


def baseline_plan(config: Mapping[str, Any], dataset: str) -> dict:
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


def statistics_files(folder: str, authority: bool, selfpref: bool) -> list[str]:
    """The benchmark statistics report (``rules/report.smk``'s
    ``benchmark_statistics``): Table 7 with its per-level and per-drop-reason
    tables when an AuthorityBench dataset is built, the self-preference data
    table when that study runs."""
    return table_files(folder, (["table7_statistics", "table7_levels", "table7_drops"] if authority else [])
                       + (["selfpref_statistics"] if selfpref else []))

