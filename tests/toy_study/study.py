"""The toy study: a study of one's own in one folder, named only in a test config (`more_studies:
[tests/toy_study]`). Its declaration: its paper, its one job kind, its hooks and CLI steps (its logic: toy.py)."""

from pathlib import Path

from authbench.papers import Paper, register
from authbench.render.catalog import report_files
from authbench.studies.jobs import JobKind
from authbench.studies.registry import Study

from . import toy

HERE = Path(__file__).resolve().parent
PAPER = register(Paper("toy", "Toy paper", HERE / "published.tsv", HERE / "claims.yaml", "toy.txt",
                       parts=("model", "task")))
JUDGE = JobKind("toy_judge", "toy/{model}/parity", jobs=toy.jobs, params=toy.judge_params, requests=toy.requests,
                files=("template",), inputs=toy.judge_inputs, parse=toy.judgments)
COMMANDS = {"toy-judge": JUDGE.command(), "toy-report": (toy.report, ["judgments+", "outdir"])}


def final(config, layout):
    return report_files(toy.TOY, layout.report("toy"), config)


def viewers(config, layout):
    return [("toy", toy.TOY, layout.report("toy"), JUDGE.files_of(layout, config, "samples"), [])]


STUDY = Study("toy", paper="toy", title="Toy", rules=(str(HERE / "toy.smk"),), schema=HERE / "schema.yaml",
              reports=(toy.TOY,), commands=__name__, prefixes=("toy",), final=final, viewers=viewers, jobs=(JUDGE,),
              params={"toy_report": toy.report_params}, check=toy.check, statistics=toy.__name__,
              plan_inputs=lambda config, layout, exists: [toy.template(config)])
