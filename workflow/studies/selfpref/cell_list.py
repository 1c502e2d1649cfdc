"""What the self-preference study runs (:func:`selfpref_cells`: datasets,
evaluators, passage writers, the perplexity model) and its checks across
config keys (:func:`check_selfpref`): each source mapped in exactly one form
(:func:`selfpref_source_form`), its long-form value maps normalised."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from authbench.config import GenerateConfig, active_models, runs_study
from authbench.errors import ConfigError
from authbench.studies.selfpref.fields import value_map

RECORD_KEYS = ("question", "answer", "passages")  # a self-preference source mapped one record per question
ROW_MAPS = ("author", "factual", "variant", "false_for")  # its long-form (rows:) keys with a value map


def selfpref_source_form(source: Mapping[str, Any], where: str) -> str:
    """``records`` (``question``, ``answer``, ``passages``: one record per
    question) or ``rows`` (``rows:``: one row per passage); a source that
    gives both forms, or neither completely, is a :class:`ConfigError`."""
    given = [k for k in RECORD_KEYS if k in source]
    if "rows" in source:
        if given:
            raise ConfigError(f"{where}: give either 'rows' (long form: one row per passage) or question, answer and "
                              f"passages (one record per question), not both; it also has {given}")
        return "rows"
    missing = [k for k in RECORD_KEYS if k not in source]
    if missing:
        raise ConfigError(f"{where}: map the file either record-wise (question, answer and passages; missing: "
                          f"{missing}) or in long form (rows:, one row per passage): docs/own-data.md")
    return "records"


def check_selfpref_sources(datasets: Mapping[str, Any]) -> None:
    """Every self-preference source is in exactly one mapping form
    (:func:`selfpref_source_form`), and each long-form value map's keys are
    normalised in place (:func:`value_map`), so the config reads the same
    wherever it is written out (JSON has only string keys)."""
    for name, spec in datasets.items():
        for n, source in enumerate((spec or {}).get("sources", ())):
            where = f"config key 'selfpref.datasets.{name}.sources.{n}'"
            if selfpref_source_form(source, where) == "rows":
                for key in ROW_MAPS:
                    block = source["rows"].get(key)
                    if isinstance(block, dict) and block.get("values") is not None:
                        block["values"] = value_map(block["values"], f"{where[:-1]}.rows.{key}.values'")


@dataclasses.dataclass(frozen=True)
class SelfPrefCells:
    """What the self-preference study runs: datasets, evaluators (models with
    a "self" author that are active), passage generators and the perplexity model."""

    datasets: list[str]
    evaluators: list[str]
    generators: list[str]
    perplexity_model: str | None


def selfpref_cells(config: Mapping[str, Any]) -> SelfPrefCells:
    sp = config.get("selfpref")
    if "selfpref" not in config.get("studies", ()) or not sp:
        return SelfPrefCells([], [], [], None)
    models = active_models(config)
    unknown = [m for m in list(sp["self"]) + list((sp.get("generate") or {}).get("models", []))
               + [sp.get("perplexity_model")] if m and m not in config["models"]]
    if unknown:
        raise ConfigError(f"config key 'selfpref' names model(s) {sorted(set(unknown))} that are not under 'models'")
    strangers = sorted({a for a in sp["self"].values() if a is not None and a not in sp["authors"]})
    if strangers:
        raise ConfigError(f"config key 'selfpref.self' maps evaluators to author(s) {strangers} that are not in "
                          f"'selfpref.authors' {sp['authors']}")
    entries = [entry for spec in sp["datasets"].values() if spec for src in spec["sources"]
               for entry in src.get("passages", ())]
    # an author a false_for may name: one the run compares, an evaluator's self, or one the sources map
    # (an overlay that leaves an author out of the comparisons keeps the sources it inherits)
    known = set(sp["authors"]) | {a for a in sp["self"].values() if a} | {e["author"] for e in entries}
    tagged = sorted({a for entry in entries for a in entry.get("false_for") or () if a not in known})
    if tagged:
        raise ConfigError(f"config key 'selfpref.datasets.*.sources.*.passages.*.false_for' names author(s) {tagged} "
                          f"that no passage entry maps and that are not in 'selfpref.authors' {sp['authors']}")
    folded: dict[str, list[str]] = {}
    for name in sp["datasets"]:
        folded.setdefault(str(name).casefold(), []).append(str(name))
    if "report" in folded:
        raise ConfigError(f"config key 'selfpref.datasets' names a dataset {folded['report'][0]!r}: that name is the "
                          "folder of every dataset's tables in one report (results/selfpref/report); rename it")
    clashes = [names for names in folded.values() if len(names) > 1]
    if clashes:
        raise ConfigError(f"config key 'selfpref.datasets' names one dataset twice: {clashes[0]} differ only in case "
                          "(their results folders, cache keys and table rows would collide on a case-insensitive "
                          "file system and in the scorecard); rename one")
    gen = sp.get("generate") or {}
    out = SelfPrefCells(
        datasets=sorted(name for name, spec in sp["datasets"].items() if spec),
        evaluators=[m for m, author in sp["self"].items() if author is not None and m in models],
        generators=[m for m in gen.get("models", []) if m in models],
        perplexity_model=sp.get("perplexity_model") if sp.get("perplexity_model") in models else None,
    )
    barred = sorted({m for m in out.evaluators + out.generators + [out.perplexity_model]
                     if m and not runs_study(models[m], "selfpref")})
    if barred:
        raise ConfigError(f"config key 'selfpref' uses model(s) {barred} whose 'models.<name>.studies' list "
                          "leaves out 'selfpref'")
    for step in ("compare", "rerank"):
        retries = sp[step]["retries"]
        for m in out.evaluators if retries else []:
            gen_cfg = GenerateConfig().merge(models[m].get("generate")).merge(sp[step].get("generate"))
            if gen_cfg.temperature == 0:
                raise ConfigError(
                    f"config key 'selfpref.{step}.retries' is {retries} but evaluator {m!r} decodes at temperature 0 "
                    f"('models.{m}.generate' overlaid with 'selfpref.{step}.generate'): every retry would repeat "
                    f"the first reply. Set 'selfpref.{step}.generate.temperature' > 0 (the authors sampled at the "
                    "API default, 1.0) or retries: 0")
    return out


def check_selfpref(config: Mapping[str, Any], overlay: Mapping[str, Any] | None = None) -> None:
    """The self-preference study's checks across keys (its declaration's ``check``)."""
    if not config.get("selfpref"):
        raise ConfigError("config key 'studies' lists 'selfpref' but there is no 'selfpref' section")
    if not any(config["selfpref"]["datasets"].values()):
        raise ConfigError("config key 'selfpref.datasets': every dataset is null; nothing to run")
    check_selfpref_sources(config["selfpref"]["datasets"])
