"""A study of one's own, kept under tests/ and named only in a test config
(`more_studies: [tests/toy_study/study.py]`): it registers its paper (its
published numbers and claims) and declares its study. Nothing of the
pipeline's shared modules names it."""

from __future__ import annotations

from pathlib import Path

from authbench.papers import Paper, register
from authbench.studies.registry import Study

HERE = Path(__file__).resolve().parent

PAPER = register(Paper("toy", "Toy paper", HERE / "published.tsv", HERE / "claims.yaml", "toy.txt",
                        parts=("model", "task")))


def _toy():
    import sys

    sys.path.insert(0, str(HERE))
    import toy

    return toy


def final(config, layout):
    from authbench.render.catalog import report_files

    return report_files(_toy().TOY, layout.report("toy"), config)


def plan_jobs(config, ctx):
    from authbench.cells.planned import PlanJob, generate_of, prompt_batch
    from authbench.config import models_for
    from authbench.paths import cell_id

    toy = _toy()
    asked = toy.requests(config["toy"]["numbers"], config["toy"].get("prompt") or str(HERE / "prompt.yaml"))
    for model, spec in models_for(config, "toy").items():
        cell = cell_id("toy", model, "parity")
        yield PlanJob("toy", model, cell, "parity",
                      [prompt_batch(asked, generate_of(spec), config["constrained_decoding"], cell)])


STUDY = Study("toy", paper="toy", title="Toy", rules=(str(HERE / "toy.smk"),), schema=HERE / "schema.yaml",
              reports=(_toy().TOY,), words=lambda config: {}, commands=str(HERE / "cli.py"), prefixes=("toy",),
              final=final, plan_jobs=plan_jobs, keyed="toy.keyed")
