"""The toy study's logic: its requests (one yes/no question per number),
its judgments, its numbers keyed by published key and its report data. A
study of one's own needs no more than this, its declaration (study.py), its
rules (toy.smk), its CLI steps (cli.py), its config block (schema.yaml) and,
for a paper of its own, its published numbers and claims."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Mapping, Sequence

from authbench.claims import PlaceUnits, place_key
from authbench.llm.parse import parse_reply
from authbench.llm.prompts import check_placeholders, read_template_file
from authbench.render.catalog import CLAIMS, SCORECARD, Report, Table
from authbench.render.formatting import PCT
from authbench.render.tables import Column, build_table
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.keyed import Keyed
from authbench.studies.scorecard import coverage_of, write_paper_scorecard

HERE = Path(__file__).resolve().parent
OUTPUT = "yes_no"


def requests(numbers: int, template: str) -> list[dict]:
    """One yes/no question per number 1..``numbers``."""
    text = read_template_file(Path(template), ("template",))["template"]
    check_placeholders(text, template, {"number"})
    return [{"request_id": f"n{i}", "prompt": text.format(number=i), "output": OUTPUT, "n": 1}
            for i in range(1, numbers + 1)]


def judgments(asked: Sequence[Mapping], replies: Sequence[str]) -> list[dict]:
    """Each reply parsed and graded against the number's parity."""
    out = []
    for req, reply in zip(asked, replies):
        number = int(req["request_id"][1:])
        parsed = parse_reply(OUTPUT, reply)
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


TOY = Report("Toy", extra=("contents.md", *SCORECARD, *CLAIMS), viewer=False, items=(
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
