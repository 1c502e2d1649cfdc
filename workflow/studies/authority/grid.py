"""AuthorityBench's grid (DomainAuth and EntityAuth): which judge cells a
config runs (:func:`grid`, one :class:`GridEntry` each: model x judge x
context x setting; each EntityAuth dataset's lists), the template each
reads (:func:`entry_template`, the extra prompt sets' included) and the
studies' checks across config keys (:func:`check_authority`)."""

from __future__ import annotations

import csv
import dataclasses
import itertools
from pathlib import Path
from typing import Any, Mapping

from authbench.config import PAPER_SET, SET_SEPARATOR, models_for, origin, split_model
from authbench.errors import ConfigError
from authbench.paths import cell_id
from authbench.studies.authority.judges import judge_of

@dataclasses.dataclass(frozen=True)
class GridEntry:
    """One entry of AuthorityBench's grid: model x judge x context x setting on
    one dataset (``domainauth`` or ``entityauth/<name>``: the ``{dataset}``
    wildcard of the cell paths). Each entry runs as one model job, the cell
    :attr:`id` names."""

    dataset: str
    model: str
    judge: str
    context: str
    setting: str

    @property
    def id(self) -> str:
        return cell_id(self.dataset, self.model, self.judge, self.context, self.setting)


def entity_datasets(config: Mapping[str, Any]) -> list[str]:
    """``entityauth/<name>`` for every EntityAuth dataset the config runs."""
    if "entityauth" not in config.get("studies", ("domainauth",)):
        return []
    # a dataset set to null (e.g. by a --configfile overlay) is left out
    return [f"entityauth/{name}" for name, spec in config["entityauth"]["datasets"].items() if spec]


def coverage(config: Mapping[str, Any]) -> dict[str, Any]:
    """AuthorityBench's parts of every report's scorecard coverage
    (:func:`authbench.studies.scorecard.coverage_params`): the EntityAuth
    datasets, Table 8's scope (a sample per level and category, not every
    domain as in the paper), whether Tables 6 and 12 come from the N=10 lists
    rescored, and Table 7's sample sizes (:func:`sample_sizes`)."""
    sampling = config["domainauth"]["sampling"]
    bias = [f"{k} {sampling[k]}" for k in ("bias_per_level", "bias_per_category") if sampling[k] is not None]
    rescored = "entityauth" in config and config["entityauth"]["coarse_source"] == "rescore"
    return {"entity_datasets": [d.split("/", 1)[1] for d in entity_datasets(config)],
            "bias_scope": f"sample: config domainauth.sampling {', '.join(bias)}" if bias else "",
            "rescored": "N=10 lists rescored (entityauth.coarse_source: rescore)" if rescored else "",
            "samples": sample_sizes(config)}


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


def entity_rescores(config: Mapping[str, Any]) -> bool:
    """``entityauth.coarse_source: rescore``: no coarse EntityAuth cells; Table 6
    scores the N=10 lists' judgments against the coarse labels instead."""
    return config["entityauth"]["coarse_source"] == "rescore"


def entity_settings(config: Mapping[str, Any]) -> list[str]:
    """The instance sets (= cell settings) of every EntityAuth dataset: the N=10
    lists (``fine``) and, with ``entityauth.coarse_source: lists`` (the
    paper's Table 6), the N=5 lists (``coarse``)."""
    if not entity_datasets(config):
        return []
    return ["fine"] if entity_rescores(config) else ["fine", "coarse"]


def prompt_folder(config: Mapping[str, Any], prompt_set: str) -> str:
    """The template folder of a prompt set (``paper``: config ``prompts``)."""
    return config["prompts"] if prompt_set == PAPER_SET else config["prompt_sets"][prompt_set]


def template_name(config: Mapping[str, Any], dataset: str, judge: str, context: str) -> str:
    """A judge cell's template, relative to its set's folder:
    ``domainauth/<judge>_<context>.yaml`` or
    ``entityauth/<prompts or name>/<judge>_<context>.yaml``."""
    if dataset == "domainauth":
        return f"domainauth/{judge}_{context}.yaml"
    name = dataset.split("/", 1)[1]
    folder = config["entityauth"]["datasets"][name].get("prompts") or name
    return f"entityauth/{folder}/{judge}_{context}.yaml"


def entry_template(config: Mapping[str, Any], entry: GridEntry) -> str:
    """The template file a grid entry's cell reads (its prompt set's folder)."""
    return (f"{prompt_folder(config, split_model(entry.model)[1])}/"
            f"{template_name(config, entry.dataset, entry.judge, entry.context)}")


def _set_entries(config: Mapping[str, Any], base: list[GridEntry]) -> list[GridEntry]:
    """The entries of every extra prompt set: a set's folder holds the templates
    it changes, and each base entry whose template it holds runs once more as
    ``<model>@<set>`` (the same instances, the set's template)."""
    out = []
    for prompt_set, folder in (config["prompt_sets"] or {}).items():
        for entry in base:
            if (Path(folder) / template_name(config, entry.dataset, entry.judge, entry.context)).is_file():
                out.append(dataclasses.replace(entry, model=f"{entry.model}{SET_SEPARATOR}{prompt_set}"))
    return out


def check_prompt_sets(config: Mapping[str, Any], base: list[GridEntry]) -> None:
    """Every extra prompt set names an existing folder that holds at least one
    template of a cell in the grid (else a ConfigError naming the expected
    files: a set that would add nothing is a typo, not a choice)."""
    for prompt_set, folder in (config["prompt_sets"] or {}).items():
        where = f"config key 'prompt_sets.{prompt_set}'"
        if not Path(folder).is_dir():
            raise ConfigError(f"{where}: folder {folder!r} does not exist")
        wanted = sorted({template_name(config, c.dataset, c.judge, c.context) for c in base})
        if not any((Path(folder) / name).is_file() for name in wanted):
            raise ConfigError(f"{where}: folder {folder!r} holds none of the grid's templates; expected one or more "
                              f"of {', '.join(wanted[:12])}{' ...' if len(wanted) > 12 else ''} (paths relative to "
                              "the folder, as under 'prompts')")


def reversed_entries(config: Mapping[str, Any], entries) -> list[GridEntry]:
    """The entries of ``entries`` whose cell is also shown in the other order
    (config ``position_consistency``: pair and list judges; their reversed
    jobs and two-order rows, :mod:`authbench.studies.authority.consistency`)."""
    if not config.get("position_consistency"):
        return []
    return [e for e in entries if judge_of(e.judge).has_orders]


def grid(config: Mapping[str, Any]) -> list[GridEntry]:
    """Every grid entry the config selects, in a stable order.

    DomainAuth: model x judge x context x setting where the judge applies.
    EntityAuth: model x judge per dataset and per setting of
    :func:`entity_settings` (N=10 lists ``fine``, N=5 lists ``coarse``), without
    text (the entity data has none). ``settings`` and ``contexts`` are
    DomainAuth's: EntityAuth has neither pairs nor a bias sample nor text.
    A model whose ``studies`` key leaves a study out gets no cell of it
    (:func:`authbench.config.models_for`). Each extra prompt set (``prompt_sets``) adds, after
    them, the entries whose template its folder holds, as model
    ``<model>@<set>`` (:func:`authbench.config.split_model`).
    """
    out = []
    if "domainauth" in config.get("studies", ("domainauth",)):
        for model, judge, context, setting in itertools.product(
            models_for(config, "domainauth"), config["judges"], config["contexts"], config["settings"]
        ):
            if setting in judge_of(judge).settings:
                out.append(GridEntry("domainauth", model, judge, context, setting))
    for bench in entity_datasets(config):
        for setting, model, judge in itertools.product(entity_settings(config), models_for(config, "entityauth"),
                                                       config["judges"]):
            out.append(GridEntry(bench, model, judge, "wo_text", setting))
    return out + _set_entries(config, out)


def check_authority(config: Mapping[str, Any], overlay: Mapping[str, Any] | None = None) -> None:
    """DomainAuth's and EntityAuth's checks across keys (their declarations'
    ``check``). ``overlay``: what the user's overlays set
    (:func:`authbench.config.inherited`); an error about a value they did not
    set says it came from config.yaml."""
    if "entityauth" in config.get("studies", ()):
        if not config.get("entityauth"):
            raise ConfigError("config key 'studies' lists 'entityauth' but there is no 'entityauth' section")
        if not entity_datasets(config):
            raise ConfigError("config key 'entityauth.datasets': every dataset is null; nothing to run")
    dom = config["domainauth"]
    sampling = dom["sampling"]
    if sampling["hard_max_delta"] >= sampling["easy_min_delta"]:
        raise ConfigError(
            "config key 'domainauth.sampling.hard_max_delta' must be smaller than "
            f"'easy_min_delta' (got {sampling['hard_max_delta']} >= {sampling['easy_min_delta']})."
            + origin(overlay, "domainauth.sampling.hard_max_delta")
            + origin(overlay, "domainauth.sampling.easy_min_delta")
        )
    if "w_text" in config["contexts"] and not dom.get("text"):
        raise ConfigError(
            "config key 'contexts' lists 'w_text' but 'domainauth.text' is null: "
            "the with-text condition needs a TSV of domain and text." + origin(overlay, "domainauth.text")
            + origin(overlay, "contexts")
        )
    if not grid(config) and {"domainauth", "entityauth"} & set(config.get("studies", ())):
        raise ConfigError("config keys 'judges' and 'settings' select no cell")
    for prompt_set in config["prompt_sets"] or {}:
        if prompt_set == PAPER_SET or not prompt_set.replace("_", "").isalnum() or prompt_set != prompt_set.lower():
            raise ConfigError(f"config key 'prompt_sets.{prompt_set}': a set's name is lower-case letters, digits "
                              f"and _, and not {PAPER_SET!r} (the set of 'prompts')")
    check_prompt_sets(config, [e for e in grid(config) if SET_SEPARATOR not in e.model])
    check_data(config, overlay)
    pagerank = (config.get("fetch") or {}).get("pagerank")
    if pagerank and pagerank["method"] == "api":  # the key's URL: https (authbench.fetch.pagerank.check_api_url)
        from authbench.fetch.pagerank import API_URL, check_api_url

        check_api_url(pagerank.get("api_url") or API_URL, pagerank["allow_http"])


def check_data(config: Mapping[str, Any], overlay: Mapping[str, Any] | None = None) -> None:
    """Config values that must fit the data they are applied to, checked
    when the workflow starts against the files that already exist (a file a
    rule writes first is checked by that rule's job): ``domainauth.status_filter``
    needs a ``status`` column in ``domainauth.source``. The error says where a
    value the user's overlays did not set came from (:func:`authbench.config.origin`) and how
    to turn it off."""
    dom = config.get("domainauth") or {}
    if "domainauth" not in config.get("studies", ()) or dom.get("status_filter") is None:
        return
    source = Path(dom["source"])
    if not source.is_file():
        return
    with open(source, encoding="utf-8-sig", errors="replace", newline="") as fh:
        header = next(csv.reader([fh.readline()]), [])
    columns = [c.strip() for c in header]
    if "status" not in columns:
        from authbench.errors import excerpt

        raise ConfigError(
            f"config key 'domainauth.status_filter' is {dom['status_filter']!r} but {source} has no column 'status' "
            f"(its columns: {excerpt(', '.join(columns) or 'none', quote=False)})."
            + origin(overlay, "domainauth.status_filter")
            + " Set 'domainauth.status_filter: null' to keep every row.")
