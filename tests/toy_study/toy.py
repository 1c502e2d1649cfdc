"""The toy study's logic: its judge jobs (which, their params and inputs, one yes/no question per number, the
judgments), its config check, its numbers keyed by published key, its report and its part of the benchmark
statistics. A study of one's own needs no more than this, its declaration (study.py), its rules (toy.smk), its
config block (schema.yaml) and, for a paper of its own, its published numbers and claims."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Mapping, Sequence

from authbench.claims import PlaceUnits, place_key
from authbench.config import models_for
from authbench.errors import ConfigError
from authbench.records import read_jsonl
from authbench.studies.jobs import CellParams
from authbench.llm.parse import parse_reply
from authbench.llm.prompts import check_placeholders, read_template_file
from authbench.render.catalog import CLAIMS, SCORECARD, Report, Table
from authbench.render.formatting import COUNT, PCT
from authbench.render.tables import Column, build_table
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.keyed import Keyed
from authbench.studies.scorecard import coverage_of, coverage_params, write_paper_scorecard

HERE = Path(__file__).resolve().parent
OUTPUT = "yes_no"


@dataclass(frozen=True)
class JudgeParams(CellParams):
    """A judge job's params: the shared cell params and how many numbers it asks about."""

    numbers: int


def jobs(config: Mapping) -> list[dict]:
    """One judge job per model that runs the study."""
    return [{"model": model} for model in models_for(config, "toy")]


def template(config: Mapping) -> str:
    return config["toy"].get("prompt") or str(HERE / "prompt.yaml")


def judge_inputs(config: Mapping, wildcards: Mapping) -> dict:
    return {"template": template(config)}


def judge_params(config: Mapping, wildcards: Mapping, shared: dict) -> JudgeParams:
    return JudgeParams(numbers=config["toy"]["numbers"], **shared)


def requests(params: Mapping, inputs: Mapping[str, str]) -> list[dict]:
    """One yes/no question per number 1..``numbers``."""
    text = read_template_file(Path(inputs["template"]), ("template",))["template"]
    check_placeholders(text, inputs["template"], {"number"})
    return [{"request_id": f"n{i}", "prompt": text.format(number=i), "output": OUTPUT, "n": 1}
            for i in range(1, params["numbers"] + 1)]


def check(config: Mapping, overlay: Mapping | None) -> None:
    if not Path(template(config)).is_file():
        raise ConfigError(f"config key 'toy.prompt': {template(config)!r} is not a file; expected a prompt YAML file")


def judgments(asked: Sequence[Mapping], replies: Sequence) -> list[dict]:
    """Each reply parsed and graded against the number's parity."""
    out = []
    for req, reply in zip(asked, replies):
        number = int(req["request_id"][1:])
        parsed = parse_reply(OUTPUT, reply.text)
        gold = "yes" if number % 2 == 0 else "no"
        out.append({"request_id": req["request_id"], "number": number, "gold": gold, "answer": parsed.value,
                    "status": parsed.status, "correct": parsed.value == gold})
    return out


def keyed(rows: Mapping[str, Sequence[Mapping]], names: Mapping[str, str]) -> list[Keyed]:
    """Table 1 of the toy paper: each model's accuracy (%), its numbers as the units."""
    out = []
    for model, js in rows.items():
        units = PlaceUnits([str(j["number"]) for j in js], [float(j["correct"]) for j in js], 100.0)
        out.append(Keyed(place_key(1, "accuracy", model=names.get(model, model), task="parity"), model,
                         named=model in names, units=units, unit_kind="items"))
    return out


def table1(data: "Data"):
    models = list(data.rows)
    acc = {k.ours: k for k in data.keyed}
    return build_table(models, [(m,) for m in models], ["Model"],
                       [Column(("Accuracy (%)",), PCT, lambda m: acc[m].reproduced,
                               interval=lambda m: data.interval(m))],
                       caption="Toy Table 1: parity accuracy per model.")


TOY = Report("Toy", extra=("contents.md", *SCORECARD, *CLAIMS), items=(
    Table("table1_toy", "Toy Table 1: parity accuracy", "Toy Table 1: parity accuracy (%) per model, 95% interval "
          "over the numbers.", build=table1),
))


@dataclass
class Data:
    """The toy report's data (:class:`authbench.render.catalog.ReportData`)."""

    rows: Mapping[str, Sequence[Mapping]]
    spec: IntervalSpec
    scorecard_coverage: Mapping | None = None
    comparisons_title: str = ""

    @cached_property
    def keyed(self) -> list[Keyed]:
        return keyed(self.rows, dict(coverage_of(self.scorecard_coverage, "toy").names))

    def interval(self, model: str) -> tuple[float, float]:
        lo, hi = mean_interval([float(j["correct"]) for j in self.rows[model]], self.spec, ("toy", model))
        return 100 * lo, 100 * hi

    def compare(self):
        return None

    def tagged(self, tags):
        return replace(self)

    def write_files(self, out: Path):
        return [], {}

    def contents_tail(self, comparisons) -> str:
        return ""

    def scorecard(self, out: Path, built) -> list[Path]:
        return write_paper_scorecard(out, "Toy", "toy", (1,), self.keyed, lambda row, coverage: "not run here",
                                     self.scorecard_coverage)

    def claims(self, out: Path, report) -> list[Path]:
        from authbench.studies.claims_report import write_claims

        return write_claims(out, "toy", "Toy", (1,), self.keyed, report, self.spec)


def report_params(config: Mapping) -> dict:
    return {"models": [job["model"] for job in jobs(config)], "intervals": config["intervals"], "seed": config["seed"],
            "scorecard": coverage_params(config, "toy")}


def report(args, params) -> None:
    """The CLI step ``toy-report``: the report of every model's judgments."""
    from authbench.render.catalog import report_choice, write_report

    rows = {model: read_jsonl(path) for model, path in zip(params["models"], args.judgments)}
    data = Data(rows, IntervalSpec.from_config(params), params.get("scorecard"))
    write_report(TOY, data, args.outdir, report_choice(TOY, {}), params["intervals"]["show"])


# its part of the benchmark statistics (authbench.studies.statistics): the questions asked, by gold answer
ARGS: list[str] = []
TABLES = (Table("table_toy_statistics", "Toy statistics: the parity questions", "The parity questions by gold answer.",
                build=lambda numbers: build_table(["yes", "no"], [("yes",), ("no",)], ["Gold answer"], [
                    Column(("Questions",), COUNT, lambda gold: numbers // 2 + (gold == "no") * (numbers % 2))])),)


def inputs(config: Mapping, layout) -> dict:
    return {}


def params(config: Mapping) -> dict:
    return {"toy_numbers": config["toy"]["numbers"]}


def load(files: Mapping, params: Mapping) -> int:
    return params["toy_numbers"]
