"""The study registry: each study's folder declares one :class:`Study`, and
the shared layers loop over :func:`studies` instead of naming a study:

* the Snakefile includes each registered study's :attr:`Study.rules` and
  asks it for its files of ``all`` (:attr:`Study.final`);
* ``rules/common.smk`` validates the config against the base schema and
  every study's :attr:`Study.schema` block (:func:`authbench.config.schema`),
  checks the config's ``studies`` words against the registry and derives the
  wildcard constraints from each study's :attr:`Study.words`;
* the report catalog's ``snakemake --report`` entries and the sample viewers
  and prompt diffs read each study's :attr:`Study.reports` and
  :attr:`Study.viewers`;
* the CLI finds a step's command in the study whose :attr:`Study.prefixes`
  its name starts with (:attr:`Study.commands`);
* the plan asks each study for its model jobs, the files they read and
  why it has none (:attr:`Study.plan_jobs`, :attr:`Study.plan_inputs`,
  :attr:`Study.plan_empty`), and for replies its paper's authors released
  (:attr:`Study.plan_released`, a reply-length estimate).

A study names the paper it reproduces (:attr:`Study.paper`,
:mod:`authbench.papers`); its numbers keyed by published key are its report
data's (:mod:`authbench.studies.keyed`). The shipped studies are
:data:`BUILTIN` (each folder here with a ``study.py`` that declares its
``STUDY`` or ``STUDIES``); a study of one's own is a folder whose
``study.py`` (or a Python file that) defines ``STUDY`` (and, for a paper of
its own, registers it: :func:`authbench.papers.register`), named in the
config's ``more_studies`` list (docs/architecture.md, "Add a study"), its
folder imported as a package (:func:`load_file`). Its path reaches every job of the
run through :data:`MORE_STUDIES_ENV`, so the CLI of a job finds its steps.

Light: loading the registry imports only the studies' declarations.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from authbench.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]  # the repository: rules files are relative to it
MORE_STUDIES_ENV = "AUTHBENCH_MORE_STUDIES"  # JSON list of the study files of config `more_studies`
# the shipped studies' folders, in the order the Snakefile includes their studies: every folder of this package
# with a study.py (its STUDIES, or its STUDY)
BUILTIN = tuple(sorted(p.parent.name for p in Path(__file__).parent.glob("*/study.py")))


@dataclass(frozen=True)
class Study:
    """One study, declared once in its folder.

    * ``name``: its word in the config's ``studies`` list;
    * ``paper``: the paper it reproduces (:mod:`authbench.papers`);
    * ``title``: its name in reports and logs;
    * ``rules``: its rules files (relative to the repository root, or
      absolute); files several studies share are included once;
    * ``schema``: the JSON schema (YAML) of the top-level config keys it adds
      (``properties``, optionally ``required`` and ``$defs``);
    * ``reports``: its report declarations (:class:`authbench.render.catalog.Report`);
    * ``words``: ``config -> {wildcard: words}``: the words (a tuple) or the
      pattern (a string) each wildcard of its rules may take;
    * ``commands``: the module of its CLI steps (a ``COMMANDS`` dict, or a
      file path), ``prefixes``: their names' first words;
    * ``final``: ``(config, layout) -> files`` of ``all`` when it runs;
    * ``viewers``: ``(config, layout) -> [(name, report, folder, samples, costs)]``:
      each report folder with a sample viewer and prompt diffs;
    * ``jobs``: its model job kinds (:class:`authbench.studies.jobs.JobKind`,
      one per kind): each one's rule, cell id pattern, jobs, inputs, params
      and requests, read by its rules, the plan and its CLI steps;
    * ``params``: ``{rule: config -> plain values}``: the params of its rules
      that are not model jobs (a rule's ``p=_json(RULE_PARAMS[<rule>](config))``);
    * ``plan_jobs``: ``(config, context) -> PlanJob iterator``: its model
      jobs not declared as kinds, with the requests they will send
      (:mod:`authbench.cells.planned`: ``PlanJob``, ``PlanContext``); ``plan_inputs``: ``(config, layout,
      exists) -> files`` they read, all written before any model job;
      ``plan_empty``: ``config -> reason | None``: why it plans no job;
      ``plan_released``: ``(config, job kind) -> (what, texts)``: replies its
      paper's authors released, the plan's reply-length proxy;
    * ``check``: ``(config, overlay) -> None``: its checks across keys the
      schema cannot express (a named error), when it runs;
    * ``dataset_level``: its cell ids carry a dataset after its name
      (``entityauth/<set>/<model>/...``, ``selfpref/<dataset>/<model>/...``;
      :func:`authbench.paths.split_cell_id`);
    * ``coverage``: ``config -> {part: plain value}``: what its reasons for a
      published number without a counterpart read (the parts it adds to
      every report's :func:`authbench.studies.scorecard.coverage_params`;
      :func:`coverage_parts`);
    * ``statistics``: the module of its part of the benchmark statistics
      (:mod:`authbench.studies.statistics`: its tables, the step's files and
      params it adds, how it reads them); studies sharing one use it once.
    """

    name: str
    paper: str
    title: str
    rules: tuple[str, ...]
    schema: Path | None = None
    reports: tuple = ()
    words: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    commands: str | None = None
    prefixes: tuple[str, ...] = ()
    final: Callable[[Mapping[str, Any], Any], list[str]] | None = None
    viewers: Callable[[Mapping[str, Any], Any], list[tuple]] | None = None
    jobs: tuple = ()
    params: Mapping[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]] | None = None
    plan_jobs: Callable[..., Iterable] | None = None
    plan_inputs: Callable[..., list[str]] | None = None
    plan_empty: Callable[[Mapping[str, Any]], str | None] | None = None
    plan_released: Callable[[Mapping[str, Any], str], tuple[str, list[str]]] | None = None
    check: Callable[[Mapping[str, Any], Mapping[str, Any] | None], None] | None = None
    dataset_level: bool = False
    coverage: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    statistics: str = ""

    def rule_files(self) -> list[str]:
        return [str(Path(r) if Path(r).is_absolute() else ROOT / r) for r in self.rules]


def _declared(module: Any) -> tuple[Study, ...]:
    """The studies a study.py declares: its ``STUDIES`` (several studies of one folder), else its ``STUDY``."""
    found = tuple(getattr(module, "STUDIES", None) or [getattr(module, "STUDY", None)])
    if not all(isinstance(s, Study) for s in found):
        raise ConfigError(f"{module.__file__}: expected STUDIES (a tuple) or STUDY, each an "
                          "authbench.studies.registry.Study")
    return found


def _attribute(spec: str) -> Any:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def lazy(spec: str, *bound: Any) -> Callable[..., Any]:
    """The function ``"module:name"``, imported on its first call (a study's
    declaration stays light), called with ``bound`` before its own arguments."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return _attribute(spec)(*bound, *args, **kwargs)

    call.__qualname__ = f"lazy({spec!r})"
    return call


def load_file(path: str | Path) -> Study:
    """The ``STUDY`` of a study of one's own: a folder (its ``study.py``) or a Python file. The file's folder is
    imported as a package (once, named after its absolute path), so the study's modules import one another
    relatively (``from . import logic``) and its declaration names them as ``f"{__package__}.logic"``."""
    path = Path(path).resolve()
    path = path / "study.py" if path.is_dir() else path
    if not path.is_file():
        raise ConfigError(f"config key 'more_studies': {str(path)!r} is not a study folder or file; expected a "
                          "folder with a study.py, or a Python file, that defines STUDY (docs/architecture.md, "
                          "'Add a study')")
    package = f"authbench_study_{hashlib.sha256(str(path.parent).encode()).hexdigest()[:12]}"
    if package not in sys.modules:
        spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
        spec.submodule_search_locations = [str(path.parent)]
        sys.modules[package] = importlib.util.module_from_spec(spec)
    study = getattr(importlib.import_module(f"{package}.{path.stem}"), "STUDY", None)
    if not isinstance(study, Study):
        raise ConfigError(f"config key 'more_studies': {path} defines no STUDY (an authbench.studies.registry.Study)")
    return study


def more_study_files(config: Mapping[str, Any] | None = None) -> list[str]:
    """The study files of one's own: the config's ``more_studies`` (absolute paths), else those a job
    inherits through :data:`MORE_STUDIES_ENV`."""
    if config is not None and config.get("more_studies") is not None:
        return [str(Path(p).resolve()) for p in config["more_studies"]]
    return list(json.loads(os.environ.get(MORE_STUDIES_ENV) or "[]"))


def studies(config: Mapping[str, Any] | None = None) -> dict[str, Study]:
    """Every registered study by name: the shipped ones (:data:`BUILTIN`),
    then those of :func:`more_study_files`. Two studies of one name are a
    named error."""
    out: dict[str, Study] = {}
    shipped = [s for folder in BUILTIN for s in _declared(importlib.import_module(f"{__package__}.{folder}.study"))]
    for study in shipped + [load_file(p) for p in more_study_files(config)]:
        if study.name in out and out[study.name] is not study:
            raise ConfigError(f"study {study.name!r} is declared twice; expected one Study per name")
        out[study.name] = study
    return out


def dataset_level(config: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """The registered studies whose cell ids carry a dataset after the study's name."""
    return tuple(name for name, study in studies(config).items() if study.dataset_level)


def coverage_parts(config: Mapping[str, Any]) -> dict[str, Any]:
    """The scorecard coverage's parts of every registered study (:attr:`Study.coverage`), whether the config runs it
    or not (a report's params stay the same when another study joins the run); a part two studies give with
    different values is a named error."""
    out: dict[str, Any] = {}
    hooks: dict[Callable, str] = {}
    for study in studies(config).values():
        if study.coverage:
            hooks.setdefault(study.coverage, study.name)  # a hook two studies share (DomainAuth, EntityAuth): once
    for hook, name in hooks.items():
        for part, value in hook(config).items():
            if part in out and out[part] != value:
                raise ConfigError(f"study {name!r} gives the scorecard coverage's part {part!r} a second value; "
                                  "expected one value per part (Study.coverage)")
            out[part] = value
    return out


def active(config: Mapping[str, Any]) -> list[Study]:
    """The registered studies the config's ``studies`` list runs, in registry
    order; an unknown word is a named error listing the registered ones."""
    known = studies(config)
    unknown = [s for s in config.get("studies", ()) if s not in known]
    if unknown:
        raise ConfigError(f"config key 'studies' names {', '.join(map(repr, unknown))}, not a registered study; the "
                          f"studies: {', '.join(known)} (a study of your own: config key 'more_studies', "
                          "docs/architecture.md, 'Add a study')")
    return [s for name, s in known.items() if name in config.get("studies", ())]


def check(config: Mapping[str, Any], overlay: Mapping[str, Any] | None = None) -> None:
    """The config's checks across keys: the shared ones (:func:`authbench.config.check_config`)
    and each study's the config runs (:attr:`Study.check`)."""
    from authbench.config import check_config

    known = studies(config)  # a study file of one's own registers its paper: before the paper names are checked
    check_config(config, overlay)
    for name, spec in (config.get("models") or {}).items():
        unknown = [s for s in (spec or {}).get("studies") or () if s not in known]
        if unknown:
            raise ConfigError(f"config key 'models.{name}.studies' names {', '.join(map(repr, unknown))}, not a "
                              f"registered study; the studies: {', '.join(known)}")
    for study in active(config):
        if study.check is not None:
            study.check(config, overlay)


def rule_files(config: Mapping[str, Any]) -> list[str]:
    """Every registered study's rules files, each once, in registry order
    (a study the config does not run still defines its rules: its targets are
    simply not asked for)."""
    return list(dict.fromkeys(f for s in studies(config).values() for f in s.rule_files()))


def schema_blocks(config: Mapping[str, Any] | None = None) -> list[Path]:
    """Every registered study's config schema block, each once."""
    return list(dict.fromkeys(s.schema for s in studies(config).values() if s.schema is not None))


def alternatives(words: Iterable[str]) -> str:
    """A wildcard constraint matching exactly one of ``words``."""
    return "|".join(re.escape(w) for w in words)


def wildcard_constraints(config: Mapping[str, Any], models: Iterable[str]) -> dict[str, str]:
    """The rules' global wildcard constraints: each registered study's words
    (:attr:`Study.words`; a wildcard several studies declare takes any of
    their words or patterns) and ``model``: the configured ``models`` and
    the models the studies add (``<model>@<set>`` of a prompt set)."""
    words: dict[str, list[str]] = {"model": list(models)}
    patterns: dict[str, list[str]] = {}
    for study in studies(config).values():
        for name, value in (study.words(config) if study.words else {}).items():
            bucket = patterns if isinstance(value, str) else words
            bucket.setdefault(name, [])
            bucket[name] += [v for v in ([value] if isinstance(value, str) else value) if v not in bucket[name]]
    out = {name: alternatives(sorted(ws) if name == "model" else ws) for name, ws in words.items()}
    for name, pats in patterns.items():
        joined = "|".join(pats) if len(pats) == 1 else "|".join(f"(?:{p})" for p in pats)
        out[name] = f"{out[name]}|{joined}" if name in out else joined
    return out


def _by_rule(config: Mapping[str, Any] | None, what: str, of: Callable[[Study], Iterable[tuple[str, Any]]]) -> dict:
    out: dict[str, Any] = {}
    for study in studies(config).values():
        for rule, value in of(study):
            if rule in out and out[rule] is not value:
                raise ConfigError(f"study {study.name!r} declares a second {what} of rule {rule!r}; expected one")
            out[rule] = value
    return out


def job_kinds(config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Rule name -> its job kind (:attr:`Study.jobs`), of every registered study: a rule asks for its own."""
    return _by_rule(config, "job kind (Study.jobs)", lambda study: [(kind.rule, kind) for kind in study.jobs])


def rule_params(config: Mapping[str, Any] | None = None) -> dict[str, Callable]:
    """Rule name -> its params (:attr:`Study.params`), of every registered study."""
    return _by_rule(config, "params (Study.params)", lambda study: (study.params or {}).items())


def command_module(step: str, config: Mapping[str, Any] | None = None) -> str | None:
    """The module (or study file) of a CLI step's commands: the study whose prefixes its first word is."""
    first = step.split("-", 1)[0]
    for study in studies(config).values():
        if first in study.prefixes:
            return study.commands
    return None


def command_modules(config: Mapping[str, Any] | None = None) -> list[str]:
    return list(dict.fromkeys(s.commands for s in studies(config).values() if s.commands))


def reports(config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Report name -> declaration, of every registered study."""
    return {r.name: r for s in studies(config).values() for r in s.reports}


def environment(config: Mapping[str, Any]) -> dict[str, str]:
    """What every job of the run inherits: the study files of one's own (:data:`MORE_STUDIES_ENV`)."""
    return {MORE_STUDIES_ENV: json.dumps(more_study_files(config))}


def final_files(config: Mapping[str, Any], layout: Any) -> list[str]:
    """The files of ``all`` of every study the config runs."""
    return [f for s in active(config) if s.final is not None for f in s.final(config, layout)]


def viewer_folders(config: Mapping[str, Any], layout: Any) -> list[tuple]:
    """``(name, report, folder, samples)`` of every report folder with a viewer, of the studies the config runs."""
    return [v for s in active(config) if s.viewers is not None for v in s.viewers(config, layout)]


