"""Configuration: schema validation, the cell grid and generation settings.

Snakemake validates ``config.yaml`` against ``schemas/config.schema.yaml`` with
its own ``validate``, which fills in the schema's defaults; :func:`check_config`
adds the rules a JSON schema cannot say. Tests and command-line tools use
:func:`load_config`, which does both and fills the defaults the same way
(:func:`validate_schema`): defaults live in the schema only.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import functools
import itertools
from pathlib import Path
from typing import Any, Mapping, Sequence

from authbench.errors import ConfigError
from authbench.paths import Layout, cell_id
from authbench.judges import SETTINGS_FOR_JUDGE

SCHEMA_PATH = Path(__file__).parent / "schemas" / "config.schema.yaml"


def _key_path(error) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "(top level)"


def _fill_properties(validator, properties, instance, schema):
    """JSON schema's ``properties`` that first sets every absent property
    with a ``default`` (a copy) on an object, at any depth the validation
    reaches (``additionalProperties`` maps, ``if``/``then``, ``$ref``): what
    Snakemake's ``validate(config, schema)`` does in rules/common.smk, which
    also fills the workflow's config."""
    if isinstance(instance, dict):
        for key, sub in properties.items():
            if "default" in sub and key not in instance:
                instance[key] = copy.deepcopy(sub["default"])
    import jsonschema

    yield from jsonschema.Draft202012Validator.VALIDATORS["properties"](validator, properties, instance, schema)


@functools.lru_cache(maxsize=1)
def _filling_validator():
    """The JSON-schema validator that fills defaults (jsonschema imported here: a job that only reads a
    config's values does not pay for it)."""
    import jsonschema

    return jsonschema.validators.extend(jsonschema.Draft202012Validator, {"properties": _fill_properties})


# each study's config block: the shipped studies' by their folders' convention (studies/<study>/schema.yaml),
# a study of one's own's added when the registry loads it (add_schema_block)
SCHEMA_BLOCKS: list[Path] = sorted((Path(__file__).parent / "studies").glob("*/schema.yaml"))


def _yaml(path: Path) -> dict:
    import yaml

    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def add_schema_block(path: str | Path) -> None:
    """Merge a study's config block (``properties``, ``required``, ``$defs``) into :func:`schema` from now on."""
    path = Path(path).resolve()
    if path not in SCHEMA_BLOCKS:
        SCHEMA_BLOCKS.append(path)
        schema.cache_clear()


@functools.lru_cache(maxsize=1)
def schema() -> dict:
    """The config schema (cached: do not modify it): the keys every study
    shares (:data:`SCHEMA_PATH`) with every study's block merged in
    (:data:`SCHEMA_BLOCKS`: its ``properties``, ``required`` and ``$defs``;
    a key two blocks declare is a named error). libyaml's loader where
    PyYAML has it: every job that builds an engine reads the schema."""
    merged = _yaml(SCHEMA_PATH)
    merged.setdefault("$defs", {})
    for path in SCHEMA_BLOCKS:
        block = _yaml(path)
        for part in ("properties", "$defs"):
            taken = set(merged[part]) & set(block.get(part) or {})
            if taken:
                raise ConfigError(f"{path}: {part} {', '.join(sorted(taken))} declared by another schema block too")
            merged[part].update(block.get(part) or {})
        merged["required"] = list(dict.fromkeys(merged["required"] + list(block.get("required") or [])))
    return merged


def with_defaults(part: Mapping[str, Any], where: str) -> dict:
    """A copy of a part of a config with the defaults of the schema node at
    ``where`` ('/'-separated keys of the schema) filled in, as
    :func:`validate_schema` fills a whole config: for parts that may come
    from no config file (tests, benchmarks), at the door they pass."""
    node = schema()
    for key in where.split("/"):
        node = node[key]
    out = copy.deepcopy(dict(part))
    for _ in _filling_validator()(node).iter_errors(out):
        pass  # only the filling: the config's own validation reports errors
    return out


def model_spec(spec: Mapping[str, Any]) -> dict:
    """A model entry (``models.<name>``) with the schema's defaults: at the two
    doors every model config passes (the engine factory and the cache key)."""
    return with_defaults(spec, "properties/models/additionalProperties")


def validate_schema(config: Mapping[str, Any]) -> None:
    """Validate ``config`` against the schema and fill in, in place, every
    default the schema declares: the one place defaults live (code reads
    ``config[key]``, never ``.get(key, default)``)."""
    validator = _filling_validator()(schema())
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"config key '{_key_path(e)}': {e.message}" for e in errors]
        raise ConfigError("invalid config:\n  " + "\n  ".join(lines))


def inherited(overlay: Mapping[str, Any] | None, key: str) -> bool:
    """Whether the dotted config ``key`` keeps config.yaml's value although
    overlays were given: ``overlay`` is what the ``--configfile`` overlays
    (and ``--config``) set, merged (Snakemake's
    ``workflow.config_settings.overwrite_config``); ``None`` or empty: no
    overlay, so nothing is inherited."""
    if not overlay:
        return False
    node: Any = overlay
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return True
        node = node[part]
    return False


def origin(overlay: Mapping[str, Any] | None, key: str) -> str:
    """The sentence a config error adds about a value the user's overlays
    did not set ('' when they set it, or there is no overlay)."""
    if not inherited(overlay, key):
        return ""
    return (f" The value of '{key}' comes from config.yaml: the demo's settings, merged under every --configfile "
            "overlay, so a key your overlay leaves out keeps the demo's value.")


def check_config(config: Mapping[str, Any], overlay: Mapping[str, Any] | None = None) -> None:
    """Checks across the shared keys that the JSON schema cannot express
    (each study checks its own: :func:`authbench.studies.registry.check`)."""
    if not active_models(config):
        raise ConfigError("config key 'models': every model is null; nothing to run")
    check_hosting(config)
    check_paper_names(config)


def check_authority(config: Mapping[str, Any], overlay: Mapping[str, Any] | None = None) -> None:
    """DomainAuth's and EntityAuth's checks across keys (their declaration's
    ``check``). ``overlay``: what the user's overlays set (:func:`inherited`);
    an error about a value they did not set says it came from config.yaml."""
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
            + origin(overlay, "domainauth.sampling.hard_max_delta") + origin(overlay, "domainauth.sampling.easy_min_delta")
        )
    if "w_text" in config["contexts"] and not dom.get("text"):
        raise ConfigError(
            "config key 'contexts' lists 'w_text' but 'domainauth.text' is null: "
            "the with-text condition needs a TSV of domain and text." + origin(overlay, "domainauth.text")
            + origin(overlay, "contexts")
        )
    if not cells(config) and {"domainauth", "entityauth"} & set(config.get("studies", ())):
        raise ConfigError("config keys 'judges' and 'settings' select no cell")
    for prompt_set in config["prompt_sets"] or {}:
        if prompt_set == PAPER_SET or not prompt_set.replace("_", "").isalnum() or prompt_set != prompt_set.lower():
            raise ConfigError(f"config key 'prompt_sets.{prompt_set}': a set's name is lower-case letters, digits "
                              f"and _, and not {PAPER_SET!r} (the set of 'prompts')")
    check_prompt_sets(config, [c for c in cells(config) if SET_SEPARATOR not in c.model])


def check_selfpref(config: Mapping[str, Any], overlay: Mapping[str, Any] | None = None) -> None:
    """The self-preference study's checks across keys (its declaration's ``check``)."""
    if not config.get("selfpref"):
        raise ConfigError("config key 'studies' lists 'selfpref' but there is no 'selfpref' section")
    if not any(config["selfpref"]["datasets"].values()):
        raise ConfigError("config key 'selfpref.datasets': every dataset is null; nothing to run")
    check_selfpref_sources(config["selfpref"]["datasets"])


def paper_name(given: str | Mapping[str, str] | None, paper: str, known: Sequence[str]) -> str | None:
    """The name ``paper``'s tables give a model whose ``paper_name`` is
    ``given`` (one per paper, or one name that applies to the paper whose
    tables use it, i.e. is among ``known``); None: none."""
    if isinstance(given, Mapping):
        given = given.get(paper)
    return given if given in known else None


def paper_names(config: Mapping[str, Any], paper: str, known: Sequence[str]) -> dict[str, str]:
    """Active model -> the name ``paper``'s tables give it (:func:`paper_name`)."""
    named = {name: paper_name(spec.get("paper_name"), paper, known) for name, spec in active_models(config).items()}
    return {name: given for name, given in named.items() if given is not None}


LOOPBACK_HOSTS = ("localhost", "::1")


def is_hosted(spec: Mapping[str, Any]) -> bool:
    """Whether a model is a provider's hosted API, priced per token
    (``models.<m>.price``) rather than run on one's own hardware and timed
    (``models.<m>.rate``): ``hosted`` when the model sets it; otherwise an
    ``openai``-engine model whose ``base_url`` is not on this machine (not
    localhost, 127.0.0.0/8 or ::1). An OpenAI-compatible server of one's own
    on another host (a cluster node's ``vllm serve``) sets ``hosted: false``."""
    from urllib.parse import urlparse

    if spec.get("hosted") is not None:
        return bool(spec["hosted"])
    if spec.get("engine") != "openai":
        return False
    host = (urlparse(str((spec.get("openai") or {}).get("base_url") or "")).hostname or "").lower()
    return not (host in LOOPBACK_HOSTS or host.startswith("127."))


def check_hosting(config: Mapping[str, Any]) -> None:
    """A hosted model (:func:`is_hosted`) has a price and no rate; a model of
    one's own has a rate and no price; only the ``openai`` engine reaches a
    hosted API."""
    for name, spec in active_models(config).items():
        where = f"config key 'models.{name}"
        if spec.get("hosted") and spec.get("engine") != "openai":
            raise ConfigError(f"{where}.hosted': only an 'openai'-engine model reaches a hosted API; "
                              f"{name} runs on engine {spec.get('engine')!r}")
        hosted = is_hosted(spec)
        if spec.get("price") and not hosted:
            raise ConfigError(f"{where}.price': {name} is not hosted (engine {spec.get('engine')!r}"
                              + (f", base_url {spec['openai'].get('base_url')!r}" if spec.get("openai") else "")
                              + "): a price is for a hosted API, paid per token. Give a model of your own a "
                              "'rate' (tokens/s), or set 'hosted: true' for an API you pay per token")
        if spec.get("rate") and hosted:
            raise ConfigError(f"{where}.rate': {name} is hosted (its base_url is not on this machine): its time is "
                              "the provider's and it is planned in dollars: give it a 'price' (USD per million "
                              "tokens) instead, or set 'hosted: false' for a server of your own")


def check_paper_names(config: Mapping[str, Any]) -> None:
    """Every ``models.<name>.paper_name`` names a model of the published
    tables (:func:`authbench.papers.paper_models`: of the paper it is
    given for, else of either paper): else a :class:`ConfigError` naming
    the known names."""
    named = {name: spec["paper_name"] for name, spec in active_models(config).items() if "paper_name" in spec}
    if not named:
        return
    from authbench.papers import paper_models, papers

    PAPERS = papers()

    known = {paper: paper_models(paper) for paper in PAPERS}
    for name, given in named.items():
        pairs = given.items() if isinstance(given, Mapping) else [(None, given)]
        for paper, value in pairs:
            names = known[paper] if paper else sorted({m for ms in known.values() for m in ms})
            if value not in names:
                key = f"models.{name}.paper_name" + (f".{paper}" if paper else "")
                raise ConfigError(f"config key '{key}' is {value!r}, which no table of "
                                  f"{'the ' + paper + ' paper' if paper else 'the papers'} names; known names: "
                                  f"{', '.join(names)}")


def check_data(config: Mapping[str, Any], overlay: Mapping[str, Any] | None = None) -> None:
    """Config values that must fit the data they are applied to, checked
    when the workflow starts against the files that already exist (a file a
    rule writes first is checked by that rule's job): ``domainauth.status_filter``
    needs a ``status`` column in ``domainauth.source``. The error says where a
    value the user's overlays did not set came from (:func:`origin`) and how
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


# config keys renamed since an earlier release: old name -> new name
RENAMED_KEYS = {"benchmarks": "studies"}


def check_renamed(config: Mapping[str, Any]) -> None:
    """A config (or overlay) that still uses a renamed key gets a named error
    instead of the schema's 'additional property' message."""
    old = sorted(k for k in RENAMED_KEYS if k in config)
    if old:
        raise ConfigError("; ".join(f"config key '{k}' is now called '{RENAMED_KEYS[k]}': rename it in your "
                                    f"config or overlay" for k in old))


def load_config(path: str | Path) -> dict:
    import yaml

    config = yaml.safe_load(Path(path).read_text())
    check_renamed(config)
    validate_schema(config)
    check_config(config)
    return config


@dataclasses.dataclass(frozen=True)
class GenerateConfig:
    """Sampling parameters; every field changes the output, so all are cache keys."""

    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    max_tokens: int = 48

    def merge(self, overrides: Mapping[str, Any] | None) -> "GenerateConfig":
        known = {f.name for f in dataclasses.fields(self)}
        updates = {k: v for k, v in (overrides or {}).items() if v is not None}
        unknown = set(updates) - known
        if unknown:
            raise ConfigError(f"unknown generate setting(s): {sorted(unknown)}; allowed: {sorted(known)}")
        return dataclasses.replace(self, **updates)


@dataclasses.dataclass(frozen=True)
class Cell:
    """One judge job: model x judge x context x setting on one AuthorityBench
    dataset (``domainauth`` or ``entityauth/<name>``: the ``{dataset}``
    wildcard of the cell paths)."""

    dataset: str
    model: str
    judge: str
    context: str
    setting: str

    @property
    def id(self) -> str:
        return cell_id(self.dataset, self.model, self.judge, self.context, self.setting)


def active_models(config: Mapping[str, Any]) -> dict[str, dict]:
    """The models that run: a model set to null (e.g. by an overlay) is left out."""
    return {name: spec for name, spec in config["models"].items() if spec}


def runs_study(spec: Mapping[str, Any], study: str) -> bool:
    """Whether a model runs ``study``: its ``studies`` list (a model key) when
    it has one, else every study of the config's ``studies``."""
    own = spec.get("studies")
    return own is None or study in own


def models_for(config: Mapping[str, Any], study: str) -> dict[str, dict]:
    """The active models that run ``study`` (a model's ``studies`` key
    restricts it, e.g. the self-preference study's hosted evaluators in
    config/paper.yaml, which judge no AuthorityBench cell)."""
    return {name: spec for name, spec in active_models(config).items() if runs_study(spec, study)}


def entity_datasets(config: Mapping[str, Any]) -> list[str]:
    """``entityauth/<name>`` for every EntityAuth dataset the config runs."""
    if "entityauth" not in config.get("studies", ("domainauth",)):
        return []
    # a dataset set to null (e.g. by a --configfile overlay) is left out
    return [f"entityauth/{name}" for name, spec in config["entityauth"]["datasets"].items() if spec]


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


# --- prompt sets (config ``prompt_sets``) -------------------------------------
PAPER_SET = "paper"  # the set of config ``prompts``
SET_SEPARATOR = "@"  # a cell of another set runs model ``<model>@<set>``


def split_model(name: str) -> tuple[str, str]:
    """A cell's model name -> (configured model, prompt set):
    ``qwen@reworded`` -> ``("qwen", "reworded")``, ``qwen`` -> ``("qwen", "paper")``."""
    model, _, prompt_set = name.partition(SET_SEPARATOR)
    return model, prompt_set or PAPER_SET


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


def cell_template(config: Mapping[str, Any], cell: "Cell") -> str:
    """The template file a cell reads (its prompt set's folder)."""
    return f"{prompt_folder(config, split_model(cell.model)[1])}/{template_name(config, cell.dataset, cell.judge, cell.context)}"


def _set_cells(config: Mapping[str, Any], base: list["Cell"]) -> list["Cell"]:
    """The cells of every extra prompt set: a set's folder holds the templates
    it changes, and each base cell whose template it holds runs once more as
    ``<model>@<set>`` (the same instances, the set's template)."""
    out = []
    for prompt_set, folder in (config["prompt_sets"] or {}).items():
        for cell in base:
            if (Path(folder) / template_name(config, cell.dataset, cell.judge, cell.context)).is_file():
                out.append(dataclasses.replace(cell, model=f"{cell.model}{SET_SEPARATOR}{prompt_set}"))
    return out


def check_prompt_sets(config: Mapping[str, Any], base: list["Cell"]) -> None:
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


def cells(config: Mapping[str, Any]) -> list[Cell]:
    """Every cell the config selects, in a stable order.

    DomainAuth: model x judge x context x setting where the judge applies.
    EntityAuth: model x judge per dataset and per setting of
    :func:`entity_settings` (N=10 lists ``fine``, N=5 lists ``coarse``), without
    text (the entity data has none). ``settings`` and ``contexts`` are
    DomainAuth's: EntityAuth has neither pairs nor a bias sample nor text.
    A model whose ``studies`` key leaves a study out gets no cell of it
    (:func:`models_for`). Each extra prompt set (``prompt_sets``) adds, after
    them, the cells whose template its folder holds, as model
    ``<model>@<set>`` (:func:`split_model`).
    """
    out = []
    if "domainauth" in config.get("studies", ("domainauth",)):
        for model, judge, context, setting in itertools.product(
            models_for(config, "domainauth"), config["judges"], config["contexts"], config["settings"]
        ):
            if setting in SETTINGS_FOR_JUDGE[judge]:
                out.append(Cell("domainauth", model, judge, context, setting))
    for bench in entity_datasets(config):
        for setting, model, judge in itertools.product(entity_settings(config), models_for(config, "entityauth"),
                                                       config["judges"]):
            out.append(Cell(bench, model, judge, "wo_text", setting))
    return out + _set_cells(config, out)


@dataclasses.dataclass(frozen=True)
class RagPlan:
    """What RAGAuth runs: its input file, its answer cells as
    ``(model, strategy, topk)`` (``topk`` = ``all`` or ``k<k>``) and, when it
    does not run, the one line the run log shows instead."""

    source: str | None
    built: bool
    cells: list[tuple[str, str, str]]
    note: str | None = None


def rag_plan(config: Mapping[str, Any], exists) -> RagPlan:
    """RAGAuth runs when it is listed in ``studies`` and its file exists
    (``exists`` = os.path.exists), or is built from the researcher's own data
    (``ragauth.build``). A missing file is not an error: the release is not
    redistributed, so RAGAuth is simply left out of ``all``, with a note."""
    rag = config.get("ragauth")
    if "ragauth" not in config.get("studies", ()) or not rag:
        return RagPlan(None, False, [])
    built = bool(rag.get("build"))
    source = Layout(config["results"]).rag_built() if built else rag.get("source")
    if not built and (not source or not exists(source)):
        where = f"'{source}' does not exist" if source else "is null"
        return RagPlan(source, False, [], f"RAGAuth is left out of this run: ragauth.source {where}. Put the "
                       "RAGAuth release (Figure 5's JSON format) there, or build one from your own data "
                       "(docs/studies.md, 'RAGAuth').")
    cells = []
    for model in models_for(config, "ragauth"):
        for strategy in rag["strategies"]:
            if strategy == "no_filter":
                cells.append((model, strategy, "all"))
            else:
                cells += [(model, strategy, f"k{k}") for k in rag["k"]]
    return RagPlan(source, built, cells)


RECORD_KEYS = ("question", "answer", "passages")  # a self-preference source mapped one record per question
ROW_MAPS = ("author", "factual", "variant", "false_for")  # its long-form (rows:) keys with a value map
_BOOLEAN_WORDS = {"true": "true", "yes": "true", "on": "true", "1": "true",
                  "false": "false", "no": "false", "off": "false", "0": "false"}


def map_key(value: Any) -> str:
    """A value-map key or a file's value as the normalised string they are
    compared as: whitespace collapsed, case folded, an integral number
    without its ``.0``, and the boolean words (true/yes/on/1,
    false/no/off/0: YAML 1.1's booleans, 0/1, either case) as ``true`` /
    ``false``; null and a missing value as ``""``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = " ".join(str(value).split()).casefold()
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None and number.is_integer():
        text = str(int(number))
    return _BOOLEAN_WORDS.get(text, text)


def value_map(values: Mapping[Any, Any], where: str) -> dict[str, Any]:
    """A long-form value map with its keys normalised (:func:`map_key`); two
    keys that normalise alike but map to different values (``yes`` and
    ``"true"``) are a :class:`ConfigError`."""
    out: dict[str, Any] = {}
    given: dict[str, Any] = {}
    for key, value in values.items():
        norm = map_key(key)
        if norm in out and out[norm] != value:
            raise ConfigError(f"{where}: keys {given[norm]!r} and {key!r} are the same value once normalised "
                              f"({norm!r}: case, whitespace, 1/0, yes/no and true/false are compared alike) but map "
                              f"to {out[norm]!r} and {value!r}")
        out[norm], given[norm] = value, key
    return out


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
class SelfPrefPlan:
    """What the self-preference study runs: datasets, evaluators (models with
    a "self" author that are active), passage generators and the perplexity model."""

    datasets: list[str]
    evaluators: list[str]
    generators: list[str]
    perplexity_model: str | None


def selfpref_plan(config: Mapping[str, Any]) -> SelfPrefPlan:
    sp = config.get("selfpref")
    if "selfpref" not in config.get("studies", ()) or not sp:
        return SelfPrefPlan([], [], [], None)
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
    plan = SelfPrefPlan(
        datasets=sorted(name for name, spec in sp["datasets"].items() if spec),
        evaluators=[m for m, author in sp["self"].items() if author is not None and m in models],
        generators=[m for m in gen.get("models", []) if m in models],
        perplexity_model=sp.get("perplexity_model") if sp.get("perplexity_model") in models else None,
    )
    barred = sorted({m for m in plan.evaluators + plan.generators + [plan.perplexity_model]
                     if m and not runs_study(models[m], "selfpref")})
    if barred:
        raise ConfigError(f"config key 'selfpref' uses model(s) {barred} whose 'models.<name>.studies' list "
                          "leaves out 'selfpref'")
    for step in ("compare", "rerank"):
        retries = sp[step]["retries"]
        for m in plan.evaluators if retries else []:
            gen_cfg = GenerateConfig().merge(models[m].get("generate")).merge(sp[step].get("generate"))
            if gen_cfg.temperature == 0:
                raise ConfigError(
                    f"config key 'selfpref.{step}.retries' is {retries} but evaluator {m!r} decodes at temperature 0 "
                    f"('models.{m}.generate' overlaid with 'selfpref.{step}.generate'): every retry would repeat "
                    f"the first reply. Set 'selfpref.{step}.generate.temperature' > 0 (the authors sampled at the "
                    "API default, 1.0) or retries: 0")
    return plan
