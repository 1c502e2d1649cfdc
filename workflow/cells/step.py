"""The one owner of a model cell's step (:class:`CellStep`): what a rule gave
it (the output paths, the model's config and file, the cache, a served
model's service file, the template(s), where the cell's history lives), how
it asks (once, every request several tries, or again while a reply does
not settle; perplexity: texts scored), and every file it writes, from one
:class:`~authbench.cells.record.CellRecord`.

A command-line step builds the requests and judges the replies with its
study's functions; the cell does the rest:

    step = CellStep.from_args(args, params)
    run = step.run(requests)                           # cache -> engine
    step.write(run, judgments, inputs=..., extra=..., grades=...)

The history (:mod:`authbench.cells.history`) lives outside every declared output:
``rules/common.smk`` names its folder and how many versions to keep in the
environment variable :data:`HISTORY_ENV` (so changing them reruns no cell);
a step run by hand keeps none.
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from authbench.cells.ids import retried_id, tried_id
from authbench.cells.record import CellRecord
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Response
from authbench.llm.runs import Run, joined
from authbench.records import write_jsonl, write_text

log = logging.getLogger("authbench")

HISTORY_ENV = "AUTHBENCH_HISTORY"  # JSON {"root": <results>/history, "versions": N}
# the files a cell writes, by their rule output's name (a job kind's rule outputs: authbench.studies.jobs)
FILES = {"responses": "responses.jsonl", "samples": "samples.parquet", "judgments": "judgments.jsonl",
         "manifest": "manifest.json"}


@dataclass(frozen=True)
class Retried:
    """A cell asked with retries (:meth:`CellStep.run_retried`): each
    request's last reply (the settled one, or the last try's), the tries each
    used (1..retries + 1) and the run over all tries (every request sent and
    response, in sending order)."""

    final: list[Response]
    tries: list[int]
    run: Run


@dataclass(frozen=True)
class CellStep:
    """A model cell's step: ``cell`` its id (manifest, cache writer), ``model``
    the model's config as the cell's params carry it, ``outputs`` the paths of
    :data:`FILES` (``samples`` may be absent), ``template`` the template
    file(s) it read, ``model_file``, ``cache`` (folder or None),
    ``constrained``, ``threads``, ``server`` (a served model's service file)."""

    cell: str
    model: Mapping[str, Any]
    outputs: Mapping[str, str]
    template: str | Sequence[str] | None = None
    model_file: str | None = None
    cache: str | None = None
    constrained: bool = True
    threads: int | None = None
    server: str | None = None
    served: dict = field(default_factory=dict)  # what the served model's service file said (the manifest's server)

    @classmethod
    def from_args(cls, args, params: Mapping[str, Any]) -> "CellStep":
        """The step of a rule's command line: ``--responses`` ... (:data:`FILES`),
        ``--template``, ``--model-file``, ``--threads``, ``--server``, and the
        params ``cell``, ``model``, ``cache``, ``constrained``."""
        outputs = {name: getattr(args, name) for name in FILES if getattr(args, name, None)}
        return cls(params["cell"], params["model"], outputs, getattr(args, "template", None),
                   getattr(args, "model_file", None), params.get("cache"), params.get("constrained", True),
                   getattr(args, "threads", None), getattr(args, "server", None))

    # --- asking -------------------------------------------------------------------------

    def _engine_config(self) -> Mapping | None:
        """A served model's client config (the service file's server, once it answers)."""
        if not self.server:
            return None
        from authbench.llm.serve import served_engine_config, wait_for_server

        info = wait_for_server(self.server)
        self.served.update({k: info[k] for k in ("base_url", "host", "pid", "started", "load_seconds")})
        return served_engine_config(self.model, info, self.server)

    def run(self, requests: Sequence[Mapping], generate: Mapping | None = None, constrained: bool | None = None,
            expected_scores: bool = False) -> Run:
        """The requests through the cache and the model's engine (the config's
        ``constrained`` unless the step overrides it: free-text steps pass
        False; ``generate``: the step's sampling over the model's;
        ``expected_scores``: score distributions, :mod:`authbench.llm.expected`)."""
        from authbench.llm.runner import run_requests

        return run_requests(requests, self.model, self.model_file, self.cell, cache_dir=self.cache,
                            constrained=self.constrained if constrained is None else constrained,
                            threads=self.threads, generate=generate, engine_config=self._engine_config(),
                            expected_scores=expected_scores)

    def run_cell(self, requests: Sequence[Mapping], *, parse: Callable | None = None, grade: Callable | None = None,
                 inputs: Mapping | None = None, extra: Mapping | Callable | None = None, generate: Mapping | None = None,
                 constrained: bool | None = None, expected_scores: bool = False) -> CellRecord:
        """The whole cell, one way: ask (:meth:`run`), read every reply
        (``parse(requests, responses)`` -> one judgment per request; default:
        by its request's reply format, :func:`authbench.llm.runner.parse_responses`),
        grade the judgments for the samples (``grade(judgments)`` -> request
        id -> gold and correct), then write every file (:meth:`write`;
        ``extra`` may be a function of the judgments). Returns the cell's record."""
        from authbench.llm.runner import parse_responses

        run = self.run(requests, generate=generate, constrained=constrained, expected_scores=expected_scores)
        judgments = (parse or parse_responses)(requests, run.responses)
        more = extra(judgments) if callable(extra) else extra
        return self.write(run, judgments, inputs, more, grade(judgments) if grade is not None else None)

    def try_generate(self, generate: Mapping | None, t: int) -> dict:
        """``generate`` for try ``t`` of a request asked several times: seed =
        the step's seed (the model's ``generate`` overlaid with ``generate``)
        + ``t``, so every try has its own cache key."""
        base = GenerateConfig().merge(self.model.get("generate")).merge(generate).seed
        return {**(generate or {}), "seed": base + t}

    def run_tries(self, requests: Sequence[Mapping], tries: int, generate: Mapping | None = None,
                  constrained: bool | None = None) -> list[Run]:
        """Every request asked ``tries`` times (a probe repeated by design): try
        ``t`` with seed + ``t`` and ids :func:`~authbench.cells.ids.tried_id`;
        one run per try (:func:`~authbench.llm.runs.joined` makes them one)."""
        return [self.run([{**r, "request_id": tried_id(r["request_id"], t)} for r in requests],
                         generate=self.try_generate(generate, t), constrained=constrained)
                for t in range(tries)]

    def run_retried(self, requests: Sequence[Mapping], settled: Callable[[int, str], bool], retries: int,
                    generate: Mapping | None = None, constrained: bool | None = None) -> Retried:
        """Ask every request, then re-ask, up to ``retries`` more times, each
        one whose reply is not ``settled(index, text)`` (the self-preference
        authors' protocol: a bad or ambiguous reply is asked again, then the
        item is given up). Try ``t`` has seed + ``t`` (its own cache key, so a
        rerun is served from the cache and which requests are retried depends
        only on the cached replies) and ids :func:`~authbench.cells.ids.retried_id`;
        with ``retries=0`` this is one plain :meth:`run`."""
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        final: list[Response | None] = [None] * len(requests)
        tries = [0] * len(requests)
        runs: list[Run] = []
        pending = list(range(len(requests)))
        for t in range(retries + 1):
            if not pending and t > 0:
                break
            batch = [{**requests[i], "request_id": retried_id(requests[i]["request_id"], t)} for i in pending]
            runs.append(self.run(batch, generate=self.try_generate(generate, t), constrained=constrained))
            still = []
            for i, resp in zip(pending, runs[-1].responses):
                final[i], tries[i] = resp, t + 1
                if not settled(i, resp.text):
                    still.append(i)
            pending = still
        return Retried(final, tries, joined(runs))

    def score(self, items: Sequence[Mapping[str, Any]]) -> tuple[list[dict], Run]:
        """Perplexity of every ``{"id", "text"}`` item through the cache and
        the model's engine (:func:`authbench.llm.runner.score_texts`): one row
        per item, and the run (no sampling: a scoring cell's manifest)."""
        from authbench.llm.cache import ResponseCache
        from authbench.llm.engines.base import create_engine
        from authbench.llm.runner import perplexity_identity, score_texts

        cache = ResponseCache(self.cache, writer=self.cell) if self.cache else None
        model = perplexity_identity(self.model)
        rows, stats = score_texts(items, lambda: create_engine(self.model, self.model_file), model, cache)
        return rows, Run(model, stats)

    # --- writing ------------------------------------------------------------------------

    def write(self, run: Run, judgments: Sequence[Mapping] = (), inputs: Mapping | None = None,
              extra: Mapping | None = None, grades: Mapping[str, Mapping] | None = None) -> CellRecord:
        """Build the cell's record once and write every file of :data:`FILES`
        the rule names, then keep the samples in the cell's history; a served
        model's server goes into the manifest's ``server``."""
        more = {**({"server": dict(self.served)} if self.served else {}), **(extra or {})}
        record = CellRecord.of(self.cell, run, judgments, self.template, inputs, more, grades)
        for path in self.outputs.values():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        if run.generate is not None:
            write_jsonl(record.response_rows(), self.outputs["responses"])
            write_jsonl(record.judgments, self.outputs["judgments"])
        if self.outputs.get("samples"):
            from authbench.cells.samples import write_samples

            write_samples(record.sample_rows(), self.outputs["samples"],
                          {"cell": self.cell, "study": self.cell.split("/", 1)[0],
                           "template_sha256": record.template_sha256})
            self._keep_history(record)
        manifest = record.manifest()
        write_text(self.outputs["manifest"], json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")
        if run.generate is not None:
            log.info("done: %s", json.dumps({k: manifest[k] for k in ("n_calls", "cache_hits", "engine_calls",
                                                                        "parse_failure_rate", "engine_seconds")}))
        return record

    def _keep_history(self, record: CellRecord) -> None:
        raw = os.environ.get(HISTORY_ENV)
        if not raw:
            return
        from authbench.cells.history import keep

        spec = json.loads(raw)
        keep(self.outputs["samples"], self.template, spec["root"], int(spec["versions"]))


def tries_summary(tries: Sequence[int], unsettled: int, retries: int) -> dict:
    """A retried cell's record for its manifest: the most tries allowed, how
    many requests used 1, 2, ... tries, the engine requests of all tries and
    how many stayed unsettled after the last."""
    used = Counter(int(t) for t in tries)
    return {"retries": int(retries), "max_tries": int(retries) + 1,
            "tries_used": {str(k): used[k] for k in sorted(used)},
            "requests_sent": int(sum(tries)), "unsettled_after_last_try": int(unsettled)}
