"""Configuration: schema validation, the checks across the keys every study
shares, the models a config runs and generation settings (each study's grid
and its own checks: its folder, :mod:`authbench.studies.registry`).

Snakemake validates ``config.yaml`` against ``schemas/config.schema.yaml`` with
its own ``validate``, which fills in the schema's defaults; :func:`check_config`
adds the rules a JSON schema cannot say. Tests and command-line tools use
:func:`load_config`, which does both and fills the defaults the same way
(:func:`validate_schema`): defaults live in the schema only.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from authbench.errors import ConfigError

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
SCHEMA_BLOCKS: list[Path] = sorted(p.resolve() for p in (Path(__file__).parent / "studies").glob("*/schema.yaml"))


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
        lines = [f"config key '{_key_path(e)}': {e.message}{_did_you_mean(e)}" for e in errors]
        raise ConfigError("invalid config:\n  " + "\n  ".join(lines))


def _did_you_mean(error: Any) -> str:
    """For a key the schema does not allow (a typo: ``fine_list``), the
    allowed keys that come close to it; else nothing."""
    import difflib

    if error.validator != "additionalProperties" or not isinstance(error.instance, Mapping):
        return ""
    allowed = list((error.schema.get("properties") or {}))
    hints = []
    for key in error.instance:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=2, cutoff=0.7)
            hints += [f"'{key}': did you mean {' or '.join(repr(c) for c in close)}?"] if close else []
    return f" ({'; '.join(hints)})" if hints else ""


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
    check_no_secrets(config)


def check_overlay_paths(configfiles: Sequence[str | Path], workdir: str | Path = ".") -> None:
    """A config file from another folder (``make run CONFIG=~/proj/mine.yaml``)
    whose relative path names a file that is not there from ``workdir`` (the
    workflow's working folder, where paths in a config are read from) but is
    next to the config file: the user meant the config's folder, and the
    run would stop on a missing input; a :class:`ConfigError` naming the key
    and the path to write instead. A path found from ``workdir``, or in
    neither place, is left to the steps that read it."""
    import yaml

    here = Path(workdir).resolve()
    wrong = []
    for configfile in configfiles:
        folder = Path(configfile).resolve().parent
        if folder == here:
            continue
        try:
            data = yaml.safe_load(Path(configfile).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # Snakemake reads it too, and says what is wrong
        for key, value in _strings(data):
            if not value or "\n" in value or len(value) > 4096 or Path(value).is_absolute() or not (
                    "/" in value or Path(value).suffix):
                continue  # not a relative path (a word such as a study's name may be a folder's name too)
            try:
                misplaced = not (here / value).exists() and (folder / value).exists()
            except (OSError, ValueError):  # not a path (a NUL byte, a name too long)
                continue
            if misplaced:
                wrong.append(f"config key '{key}' in {configfile}: {value!r} is read from {here} (the folder the "
                             f"workflow runs in), where it does not exist; {folder / value}, next to the config "
                             "file, does: write that path")
    if wrong:
        raise ConfigError("\n  ".join(wrong))


def _strings(data: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(dotted key, value) of every string in a config's nested mappings and lists."""
    if isinstance(data, Mapping):
        for k, v in data.items():
            yield from _strings(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _strings(v, f"{prefix}.{i}")
    elif isinstance(data, str):
        yield prefix, data


# a name that looks like it holds a secret (vllm.env entries must not: they are job params)
SECRET_NAME = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)


def check_no_secrets(config: Mapping[str, Any]) -> None:
    """Config values travel into job command lines, Snakemake's stored params,
    config.json and provenance.md, so none may hold a secret: an
    ``openai.base_url`` with userinfo (``user:pass@``) or with a query string
    or fragment (an Azure-style ``?api-version=`` included: the engine appends
    ``/completions`` to the URL, and a query is where keys hide), and a
    ``vllm.env`` entry whose name looks secret (TOKEN, KEY, SECRET, PASSWORD)
    are :class:`ConfigError` naming the key, never the value. Keys come from
    the environment (``openai.api_key_env``; an ``HF_TOKEN`` exported before
    ``snakemake`` reaches the job as it is)."""
    from urllib.parse import urlsplit

    for name, spec in active_models(config).items():
        base = (spec.get("openai") or {}).get("base_url")
        if base:
            where = f"config key 'models.{name}.openai.base_url'"
            try:
                parts = urlsplit(str(base))
                parts.port  # noqa: B018 - raises ValueError on a bad port
            except ValueError:
                raise ConfigError(f"{where} is not a URL") from None
            if parts.username is not None or parts.password is not None or "@" in parts.netloc:
                raise ConfigError(f"{where} holds a user name or password (user:pass@host): it would be written "
                                  "into job command lines, params and provenance. Put the key in an environment "
                                  f"variable and name it in 'models.{name}.openai.api_key_env'")
            if parts.query or parts.fragment or "?" in str(base) or "#" in str(base):
                raise ConfigError(f"{where} has a query string or fragment: not allowed (a query is where keys "
                                  "hide, and the engine appends /completions to the URL). Use the provider's "
                                  "OpenAI-compatible base URL without one (Azure OpenAI: .../openai/v1), and the "
                                  f"key through 'models.{name}.openai.api_key_env'")
        env = (spec.get("vllm") or {}).get("env") or {}
        secret = sorted(str(k) for k in env if SECRET_NAME.search(str(k)))
        if secret:
            raise ConfigError(f"config key 'models.{name}.vllm.env' sets {', '.join(secret)}, which looks like a "
                              "secret: config values are written into job params and provenance. Export it in "
                              "the environment that starts snakemake instead (jobs inherit it; on Slurm too)")


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

    known = {paper: paper_models(paper) for paper in papers()}
    for name, given in named.items():
        pairs = given.items() if isinstance(given, Mapping) else [(None, given)]
        for paper, value in pairs:
            if paper is not None and paper not in known:
                raise ConfigError(f"config key 'models.{name}.paper_name.{paper}': no paper {paper!r} is registered; "
                                  f"the papers: {', '.join(known)}")
            names = known[paper] if paper else sorted({m for ms in known.values() for m in ms})
            if value not in names:
                key = f"models.{name}.paper_name" + (f".{paper}" if paper else "")
                raise ConfigError(f"config key '{key}' is {value!r}, which no table of "
                                  f"{'the ' + paper + ' paper' if paper else 'the papers'} names; known names: "
                                  f"{', '.join(names)}")


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


# --- prompt sets (config ``prompt_sets``) -------------------------------------
PAPER_SET = "paper"  # the set of config ``prompts``
SET_SEPARATOR = "@"  # a cell of another set runs model ``<model>@<set>``


def split_model(name: str) -> tuple[str, str]:
    """A cell's model name -> (configured model, prompt set):
    ``qwen@reworded`` -> ``("qwen", "reworded")``, ``qwen`` -> ``("qwen", "paper")``."""
    model, _, prompt_set = name.partition(SET_SEPARATOR)
    return model, prompt_set or PAPER_SET


