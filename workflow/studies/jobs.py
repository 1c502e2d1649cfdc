"""A study's model job kind, declared once (:class:`JobKind`): one per kind
of job, never one per job. It holds the rule it backs, the one spelling of
its cell id pattern, the one enumeration of its jobs for a config, the names
and paths of its input files (pure: no file I/O), its params (a frozen
dataclass, :class:`CellParams` and the kind's own fields, written as the
rule's params JSON) and the requests it sends. Everything that needs a job
reads it:

* the rule stays hand-written, its shell line literal; it asks the kind for
  its outputs (``output: **KIND.outputs(P)``), its inputs
  (``input: unpack(KIND.input_function(config))``) and its params
  (``params: p=KIND.params_function(config)``), the kind found by its rule's
  name (:func:`authbench.studies.registry.job_kinds`);
* the files of ``all``, the viewers and the tests list its jobs with
  :meth:`JobKind.jobs` and their files with :meth:`JobKind.files_of`;
* the plan (:func:`authbench.plan.jobs.model_jobs`) counts
  :meth:`JobKind.plan_jobs`: each job's requests, from the params JSON the
  rule writes and the inputs it names;
* the CLI step (:meth:`JobKind.command`) builds the same requests from the
  same JSON and inputs and runs them through the shared cell step
  (:class:`authbench.cells.CellStep`).
"""

from __future__ import annotations

import dataclasses
import json
import string
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping

from authbench.cells.step import FILES


@dataclass(frozen=True)
class CellParams:
    """What every model cell's params carry (:meth:`authbench.cells.CellStep.from_args`): its id, its model's
    config as cells see it, the response cache and the constrained-decoding switch. A kind's params extend it."""

    cell: str
    model: Mapping[str, Any]
    cache: Any
    constrained: bool


def cell_params(config: Mapping[str, Any], cell: str, model: str) -> dict[str, Any]:
    """The :class:`CellParams` fields of the cell ``cell`` of ``model`` (``<model>`` or ``<model>@<set>``)."""
    from authbench.config import active_models, split_model
    from authbench.scheduling import cell_model_params

    spec = active_models(config)[split_model(model)[0]]
    return {"cell": cell, "model": cell_model_params(spec), "cache": config.get("cache"),
            "constrained": config["constrained_decoding"]}


def _plain(wildcards: Any) -> dict[str, str]:
    """A rule's wildcards (Snakemake's object) or a mapping, as a plain dict."""
    return dict(wildcards.items()) if hasattr(wildcards, "items") else dict(wildcards)


@dataclass(frozen=True)
class JobKind:
    """One kind of model job of a study.

    * ``rule``: the rule it backs;
    * ``pattern``: its cell id with wildcards, the one spelling (``<study>/{model}/<kind>``: the cell's folder is
      :meth:`authbench.paths.Layout.cell` of its parts); ``{model}`` is one of them;
    * ``jobs``: ``config -> [wildcards]``: every job the config runs, once;
    * ``params``: ``(config, wildcards, shared) -> params``: a frozen dataclass extending :class:`CellParams`
      (``shared``: its fields, :func:`cell_params`);
    * ``requests``: ``(params, inputs) -> [request]``: what the job sends (``params``: the params JSON read back,
      ``inputs``: its input files by name), called by the plan and the CLI step alike;
    * ``files``: the names of its input files (the CLI step's options), ``inputs``: ``(config, wildcards) ->
      {name: path}`` (no file I/O);
    * ``parse``: ``(requests, replies) -> judgments`` (default: by each request's reply format);
    * ``kind``: its word in the plan's tables (default: the pattern's last part);
    * ``planned_by_study``: its inputs include files the run writes before it (the self-preference question
      sample), which a plan stands in for: the study's plan hook plans its jobs (:meth:`plan_job` with the
      stand-ins), and :func:`authbench.plan.jobs.model_jobs` does not;
    * ``constrained``: False for a kind whose replies are never constrained (free text), whatever the config's
      ``constrained_decoding`` (None: as its params say);
    * ``extra``: the rule's outputs besides the cell step's four files, ``(name, file)`` in the job's folder, after
      them (the knowledge probes' ``levels.jsonl``; with ``cell_files`` False, every output, in the rule's order);
    * ``tries``: the params field holding how often every request is asked (a probe repeated by design, try ``t``
      with seed + ``t``: :meth:`authbench.cells.CellStep.run_tries`); empty: once;
    * ``cell_files``: False for a kind whose outputs are its ``extra`` alone (no responses, samples, judgments);
    * ``where``: ``(layout, wildcards) -> folder`` of a kind whose files are not in its cell's folder (the
      self-preference passage writers' and perplexity's); None: :meth:`authbench.paths.Layout.cell` of its parts;
    * ``perplexity``: its requests are texts scored whole (``{"id", "text"}``:
      :meth:`authbench.cells.CellStep.score`), with no reply.

    A pattern with parts before ``{model}`` (``selfpref/{spds}/{model}/rerank/{prompt}``) has them as the
    study of :meth:`authbench.paths.Layout.cell` (``selfpref/<dataset>``); they may hold a ``/``
    (AuthorityBench's ``{dataset}``: ``entityauth/<set>``), the model and the parts after it may not.
    """

    rule: str
    pattern: str
    jobs: Callable[[Mapping[str, Any]], Iterable[Mapping[str, str]]]
    params: Callable[[Mapping[str, Any], Mapping[str, str], dict], CellParams]
    requests: Callable[[Mapping[str, Any], Mapping[str, str]], list[dict]]
    files: tuple[str, ...] = ()
    inputs: Callable[[Mapping[str, Any], Mapping[str, str]], Mapping[str, str]] | None = None
    parse: Callable | None = None
    kind: str = ""
    planned_by_study: bool = False
    constrained: bool | None = None
    extra: tuple[tuple[str, str], ...] = ()
    tries: str = ""
    cell_files: bool = True
    where: Callable[[Any, Mapping[str, str]], str] | None = None
    perplexity: bool = False

    def cell(self, wildcards: Any) -> str:
        """The cell id of one job."""
        return self.pattern.format(**_plain(wildcards))

    def folder(self, layout: Any, wildcards: Any = None) -> str:
        """The folder of one job's files, or the rule's pattern (``wildcards`` None)."""
        if wildcards is None:  # each wildcard as itself
            wc = {name: f"{{{name}}}" for _, name, _, _ in string.Formatter().parse(self.pattern) if name}
        else:
            wc = _plain(wildcards)
        if self.where:
            return self.where(layout, wc)
        shape = self.pattern.split("/")
        after = len(shape) - shape.index("{model}")  # the model and the parts after it: no "/" in them
        parts = self.cell(wc).split("/")
        return layout.cell("/".join(parts[:-after]), *parts[-after:])

    def output_files(self) -> dict[str, str]:
        """The rule's output names and files: the shared cell step's (without ``cell_files``: none), then the
        kind's ``extra``."""
        return {**(FILES if self.cell_files else {}), **dict(self.extra)}

    def outputs(self, layout: Any) -> dict[str, str]:
        """The rule's outputs, in the pattern's folder."""
        return {name: f"{self.folder(layout)}/{file}" for name, file in self.output_files().items()}

    def files_of(self, layout: Any, config: Mapping[str, Any], name: str, **fixed: str) -> list[str]:
        """The output ``name`` (:meth:`output_files`) of every job the config runs (``fixed``: of those whose
        wildcards have these values, as one dataset's report reads its own)."""
        file = self.output_files()[name]
        return [f"{self.folder(layout, wc)}/{file}" for wc in self.jobs(config)
                if all(wc[k] == v for k, v in fixed.items())]

    def input_paths(self, config: Mapping[str, Any], wildcards: Any) -> dict[str, str]:
        found = dict(self.inputs(config, _plain(wildcards))) if self.inputs else {}
        if set(found) != set(self.files):
            raise ValueError(f"job kind {self.rule!r}: inputs gave {sorted(found)}, its files are {list(self.files)}")
        return found

    def params_json(self, config: Mapping[str, Any], wildcards: Any) -> str:
        """The rule's params JSON of one job: its params dataclass, keys sorted, compact."""
        wc = _plain(wildcards)
        value = self.params(config, wc, cell_params(config, self.cell(wc), wc["model"]))
        if not (dataclasses.is_dataclass(value) and type(value).__dataclass_params__.frozen):
            raise TypeError(f"job kind {self.rule!r}: params gave {type(value).__name__}, expected a frozen dataclass")
        return json.dumps(dataclasses.asdict(value), sort_keys=True, separators=(",", ":"))

    def input_function(self, config: Mapping[str, Any]) -> Callable[[Any], dict[str, str]]:
        """The rule's ``input: unpack(...)``."""
        return lambda wildcards: self.input_paths(config, wildcards)

    def params_function(self, config: Mapping[str, Any]) -> Callable[[Any], str]:
        """The rule's ``params: p=...``."""
        return lambda wildcards: self.params_json(config, wildcards)

    def plan_jobs(self, study: str, config: Mapping[str, Any]) -> Iterator[Any]:
        """Every job of the config as the plan counts it: its requests from the rule's params JSON and inputs
        (none of a kind ``planned_by_study``: its study's plan hook plans it)."""
        if self.planned_by_study:
            return
        for wc in self.jobs(config):
            yield self.plan_job(study, config, wc)

    def plan_job(self, study: str, config: Mapping[str, Any], wildcards: Any,
                 inputs: Mapping[str, Any] | None = None, **details: Any) -> Any:
        """One job as the plan counts it (:class:`authbench.cells.planned.PlanJob`): its requests from the rule's
        params JSON and its inputs (``inputs``: what the plan stands in for some of them), asked with the
        params' ``generate`` (the model's own without one), once or, with :attr:`tries`, once per try (seed + try)
        and, with ``retries_key`` among ``details``, its ``retries``; ``details``: the PlanJob's other fields
        (notes, retries_key)."""
        from authbench.cells.planned import PlanJob, PromptBatch, generate_of, prompt_batch
        from authbench.config import split_model

        wc = _plain(wildcards)
        cell, params = self.cell(wc), json.loads(self.params_json(config, wc))
        asked = self.requests(params, {**self.input_paths(config, wc), **(inputs or {})})
        constrained = params["constrained"] if self.constrained is None else self.constrained
        generate = generate_of(params["model"], params.get("generate"))
        tries = int(params[self.tries]) if self.tries else 1
        if self.perplexity:
            batches = [PromptBatch([(r["text"], "free", 1) for r in asked], generate, False, cell)]
        else:
            batches = [prompt_batch(asked, dataclasses.replace(generate, seed=generate.seed + t), constrained, cell)
                       for t in range(tries)]
        if "retries_key" in details:
            details = {**details, "retries": int(params["retries"])}
        return PlanJob(study, split_model(wc["model"])[0], cell, self.kind or self.pattern.rsplit("/", 1)[-1],
                       batches, perplexity=self.perplexity, **details)

    def command(self) -> tuple[Callable, list[str]]:
        """The CLI step of the rule: ``(function, options)`` for a study's ``COMMANDS``."""

        def run(args: Any, params: Mapping[str, Any]) -> None:
            from authbench.cells import CellStep

            inputs = {name: getattr(args, name) for name in self.files}
            asked = self.requests(params, inputs)
            CellStep.from_args(args, params).run_cell(asked, parse=self.parse,
                                                      inputs={name: (path, {}) for name, path in inputs.items()})

        return run, [*self.files, "model_file?", *self.output_files(), "threads?"]
