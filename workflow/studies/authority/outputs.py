"""What an AuthorityBench config produces, decided once: the report files of
DomainAuth and EntityAuth (``rules/common.smk`` asks for them, the report
step writes exactly these tables), which label scales a cell is scored
against, and which baselines run on which instance sets. Light imports only:
the Snakefile loads this module on every run."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from authbench.config import entity_rescores, entity_settings

FAIL_NOTE = " fail% = parse failures among the judge's calls."
PAIR_JUDGES = ("pair_rank", "pair_score")
# the judges whose replies are scores: E[s] beside the argmax (config expected_scores)
SCORE_JUDGES = ("point", "list_score", "pair_score")
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


def domainauth_tables(settings: Sequence[str], judges: Sequence[str], expected: bool = False) -> list[str]:
    """DomainAuth's table stems for the configured settings and judges (with
    ``expected``, config ``expected_scores``: the E[s] vs argmax table too)."""
    settings, judges = set(settings), set(judges)
    pairs = bool(judges & set(PAIR_JUDGES))
    stems = []
    if "fine" in settings:
        stems += ["table1_fine"] + (["table9_derivations_fine"] if pairs else [])
    if "coarse" in settings:
        stems += ["table2_coarse"] + (["table10_derivations_coarse"] if pairs else [])
    if "pairs" in settings:
        stems.append("table3_pairs")
    if "bias" in settings and "point" in judges:
        stems.append("table8_categories")
    if expected and judges & set(SCORE_JUDGES) and settings & {"fine", "coarse", "pairs"}:
        stems.append(EXPECTED_TABLE)
    return stems


def domainauth_report_files(folder: str, settings: Sequence[str], judges: Sequence[str],
                            expected: bool = False) -> list[str]:
    """Every DomainAuth report file (under ``folder``) the config's grid produces."""
    stems = domainauth_tables(settings, judges, expected)
    out = [f"{folder}/metrics.tsv", f"{folder}/figures/fig3_label_distribution.png"] + cost_files(folder)
    if "table8_categories" in stems:
        out.append(f"{folder}/figures/fig6_bias_heatmap.png")
    return out + table_files(folder, stems)


def entityauth_tables(judges: Sequence[str], expected: bool = False) -> list[str]:
    """EntityAuth's Tables 4, 6 (and 11, 12 with pair judges; with
    ``expected`` and a score judge the E[s] vs argmax table)."""
    return ["table4_fine", "table6_coarse"] + (
        ["table11_derivations_fine", "table12_derivations_coarse"] if set(judges) & set(PAIR_JUDGES) else []) + (
        [EXPECTED_TABLE] if expected and set(judges) & set(SCORE_JUDGES) else [])


def entityauth_report_files(folder: str, judges: Sequence[str], expected: bool = False) -> list[str]:
    return ([f"{folder}/metrics.tsv", f"{folder}/reuse.tsv", f"{folder}/figures/fig3_entityauth_label_distribution.png"]
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

