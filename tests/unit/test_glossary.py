"""docs/architecture.md's glossary gives each word one meaning; for the words
it marks *checked*, the package's identifiers follow it."""

import ast
import dataclasses
import re
from pathlib import Path

from authbench.claims import CaseResult, RunCase, RunVerdict, Verdict
from authbench.render.tables import TableSpec

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\| \*\*(\w+)\*\*( \(checked\))? \|")


def glossary() -> dict[str, bool]:
    """word -> whether the glossary marks it checked."""
    text = GLOSSARY.read_text(encoding="utf-8")
    assert "### Glossary: one meaning per word" in text
    return {m.group(1): bool(m.group(2)) for m in map(ROW.match, text.splitlines()) if m}


def identifiers(source: str) -> list[tuple[int, str]]:
    """(line, name) of every identifier of Python ``source``: names, attributes,
    arguments, keywords, definitions and imports, f-strings' expressions
    included; strings and comments are not read."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            out.append((node.lineno, node.attr))
        elif isinstance(node, ast.arg):
            out.append((node.lineno, node.arg))
        elif isinstance(node, ast.keyword) and node.arg:
            out.append((node.lineno, node.arg))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.lineno, node.name))
        elif isinstance(node, ast.alias):
            out.append((node.lineno, node.asname or node.name))
    return sorted(out)


def names(paths) -> list[tuple[str, str]]:
    """(file:line, identifier) of the Python files under ``paths``."""
    return [(f"{f.relative_to(ROOT)}:{line}", name) for path in paths
            for f in (sorted(path.rglob("*.py")) if path.is_dir() else [path])
            for line, name in identifiers(f.read_text(encoding="utf-8"))]


CLAIMS_CODE = [ROOT / "workflow" / "claims", ROOT / "workflow" / "studies" / "claims_report.py"]
RENDER_CODE = [ROOT / "workflow" / "render"]


def check_cell() -> list[str]:
    """A cell is a model job: the claims code says case (a claim's test) and
    place (a run's number), the table code entry (a table's text), never cell."""
    bad = [f"{where}: {name}" for where, name in names(CLAIMS_CODE + RENDER_CODE) if "cell" in name.lower()]
    for cls in (CaseResult, RunCase, RunVerdict, Verdict, TableSpec):
        bad += [f"{cls.__name__}.{f.name}" for f in dataclasses.fields(cls) if "cell" in f.name]
    return bad


SCORECARD_CODE = [ROOT / "workflow" / "studies" / "scorecard.py",
                  *sorted((ROOT / "workflow" / "studies").glob("*/keyed.py"))]
AGNOSTIC = [ROOT / "workflow" / name for name in ("cells", "llm", "plan")]


AUTHORITY_CODE = ("workflow/studies/authority/",)


def check_grid() -> list[str]:
    """A grid is AuthorityBench's product of cells: only AuthorityBench's code
    names a grid (the scorecard says coverage, a claim says places, the report
    catalog a summary), and no other module is called grid."""
    bad = [f"{where}: {name}" for where, name in names([ROOT / "workflow"])
           if "grid" in name.lower() and not where.startswith(AUTHORITY_CODE)]
    modules = [str(f.relative_to(ROOT)) for f in (ROOT / "workflow").rglob("grid.py")]
    return bad + [m for m in modules if not m.startswith(AUTHORITY_CODE)]


# the plan layer, and the files that hand it a study's jobs or read what it wrote
PLAN_CODE = ("workflow/plan/", "workflow/cells/planned.py", "workflow/cli/__init__.py", "workflow/joblogs.py",
             "workflow/paths.py", "workflow/studies/registry.py", "workflow/studies/jobs.py")


def check_plan() -> list[str]:
    """A plan is the cost estimate before a run: only the plan layer, each
    study's plan module and the declarations that hand it jobs (study.py, kinds.py) name one (a
    study's list of cells is its cell list, a report's items its choice)."""
    def planning(where: str) -> bool:
        path = where.split(":")[0]
        return path.startswith(PLAN_CODE) or path.endswith(("/plan.py", "/study.py", "/kinds.py"))
    return [f"{where}: {name}" for where, name in names([ROOT / "workflow", ROOT / "tests" / "toy_study"])
            if "plan" in name.lower() and not planning(where)]


def check_study() -> list[str]:
    """A study is a registered study: the papers' and claims' code, which
    read a paper's numbers and sentences, call a paper's experiment its paper."""
    return [f"{where}: {name}" for where, name in names([ROOT / "workflow" / "papers", ROOT / "workflow" / "claims"])
            if "study" in name.lower()]


def check_judge() -> list[str]:
    """A judge is a study's way of asking and reading: the study-agnostic
    layers (a model job's owner, the engines, the plan) name none."""
    return [f"{where}: {name}" for where, name in names(AGNOSTIC) if name == "judge"]


# the 11-column layout's reader and writer: its packed `setting` column (SETTING, parse_setting, render_setting)
LAYOUT_CODE = ("workflow/claims/keys.py",)
KEY_CODE = [ROOT / "workflow" / "claims", ROOT / "workflow" / "papers" / "registry.py",
            ROOT / "workflow" / "studies" / "keyed.py"]


def check_setting() -> list[str]:
    """A setting is an AuthorityBench instance set: the code that keys a
    published number (the claims, the paper registry, the keyed numbers)
    calls what names it besides table and metric its parts; only the
    11-column layout's converter names that layout's setting column."""
    return [f"{where}: {name}" for where, name in names(KEY_CODE)
            if "setting" in name.lower() and not where.startswith(LAYOUT_CODE)]


CHECKS = {"cell": check_cell, "grid": check_grid, "judge": check_judge, "plan": check_plan, "setting": check_setting,
          "study": check_study}


def test_the_glossary_lists_the_words():
    words = glossary()
    assert {"cell", "plan", "grid", "judge", "study", "setting", "dataset"} <= set(words), words


def test_every_checked_word_has_its_check():
    assert {w for w, checked in glossary().items() if checked} == set(CHECKS)


def test_the_code_names_follow_the_checked_words():
    bad = {word: check() for word, check in CHECKS.items()}
    assert {w: b for w, b in bad.items() if b} == {}


def test_the_checks_read_identifiers_only():
    """The persisted column name "cell" of claims_cells.tsv (a string) and a
    comment pass; a variable or an f-string's name does not."""
    src = 'COLUMNS = ["claim", "cell"]  # one row per cell\nfor cell in cases:\n    x = f"{cell_id}"\n'
    assert [(line, name) for line, name in identifiers(src) if "cell" in name] == [(2, "cell"), (3, "cell_id")]
