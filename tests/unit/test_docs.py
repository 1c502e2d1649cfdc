"""The documentation holds: README.md is a newcomer's page (at most 250
lines, the two set-up commands at its top, its timing statements in one
"Time" section), docs/architecture.md's module map names only paths that
exist (and every module of the package), every relative link of
README.md and docs/**/*.md points at an existing file (and, for a Markdown
target, at one of its headings), every ``authbench.<name>`` the pages
and the package's docstrings and comments name exists, and every repository
path the pages name in backticks exists unless it is an output path."""

import ast
import importlib
import io
import re
import tokenize
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]  # docs/decisions/ too
NAMING_PAGES = [*PAGES, ROOT / "benchmarks" / "README.md"]  # the pages whose names and paths are checked
MAX_README_LINES = 250

FENCE = re.compile(r"^\s*(```|~~~)")
# [text](target) or ![alt](target), with an optional "title"; the target has no spaces
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
BACKTICKED = re.compile(r"`([^`]+)`")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    out, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, line))
    return out


# --- (a) README.md: short, the two commands first ------------------------------------------------


def first_bash_block(lines: list[str]) -> tuple[int, list[str]]:
    """Index of the first fenced block's opening line and its body lines."""
    for i, line in enumerate(lines):
        if FENCE.match(line):
            assert line.strip() == "```bash", f"README.md:{i + 1}: the first code block is not ```bash: {line!r}"
            end = next(j for j in range(i + 1, len(lines)) if FENCE.match(lines[j]))
            return i, lines[i + 1:end]
    raise AssertionError("README.md has no fenced code block")


def test_readme_is_at_most_250_lines():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_README_LINES, f"README.md has {n} lines (at most {MAX_README_LINES}): move detail to docs/"


def test_readme_starts_with_the_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# "), "README.md must open with its title"
    start, body = first_bash_block(lines)
    assert all(not line.startswith("## ") for line in lines[:start]), "the commands must come before any section"
    commands = [line.split("#")[0].strip() for line in body if line.strip()]
    assert commands == ["make demo", "make test"], body


def test_readme_keeps_its_timing_statements_in_one_time_section():
    headings = [line for _, line in prose_lines(README) if line.startswith("## ")]
    assert "## Time" in headings, headings


# --- (b) docs/architecture.md: the module map names existing paths ---------------------------------


def module_map_paths() -> list[tuple[int, str]]:
    """(line, path) of every backticked path in the FIRST column of the
    tables under the heading "## Module map" (up to the next "## " heading).
    A table row whose first cell names no backticked path is an error, so a
    row that this parse cannot read fails instead of being skipped."""
    lines = ARCHITECTURE.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == "## Module map"]
    assert len(starts) == 1, "docs/architecture.md needs exactly one '## Module map' heading"
    end = next((i for i in range(starts[0] + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    out = []
    for i in range(starts[0] + 1, end):
        line = lines[i].strip()
        if not line.startswith("|"):
            continue
        first = line.strip("|").split("|")[0].strip()
        if first == "path" or set(first) <= set("-: "):  # the header row and the separator row
            continue
        paths = BACKTICKED.findall(first)
        assert paths, f"docs/architecture.md:{i + 1}: a module-map row without a backticked path: {first!r}"
        out += [(i + 1, p) for p in paths]
    return out


def test_the_module_map_parses():
    paths = [p for _, p in module_map_paths()]
    assert len(paths) >= 80, f"only {len(paths)} paths parsed from the module map"
    assert "workflow/cells/step.py" in paths and "rules/common.smk" in paths and "Snakefile" in paths


def test_every_path_in_the_module_map_exists():
    missing = []
    for line, path in module_map_paths():
        if any(c in path for c in "<>*{}") or path.startswith("/") or ".." in Path(path).parts:
            missing.append(f"docs/architecture.md:{line}: not a literal repository path: {path}")
        elif not (ROOT / path).exists() or (path.endswith("/") and not (ROOT / path).is_dir()):
            missing.append(f"docs/architecture.md:{line}: {path}")
    assert missing == []


def test_the_module_map_names_every_module():
    named = {p.rstrip("/") for _, p in module_map_paths()}
    unnamed = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "workflow").rglob("*.py"))
               if p.name != "__init__.py" and "__pycache__" not in p.parts
               and str(p.relative_to(ROOT)) not in named]
    assert unnamed == [], "add these modules to docs/architecture.md's module map"


RECIPES = ("Add a study", "Add a paper", "Add a judge", "Add an engine", "Add a claim kind")


def recipe_paths() -> dict[str, list[tuple[int, str]]]:
    """Per recipe heading ("### Add ..." under "## Recipes"), (line, path) of
    every backticked repository path it names: a name with a "/" and no
    placeholder (``<study>``), or a top-level file."""
    lines = ARCHITECTURE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "## Recipes")
    out: dict[str, list[tuple[int, str]]] = {}
    heading = None
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("## "):
            break
        if lines[i].startswith("### "):
            heading = lines[i][4:].strip()
            out[heading] = []
            continue
        for name in BACKTICKED.findall(lines[i]):
            if heading and "/" in name and "<" not in name and " " not in name:
                out[heading].append((i + 1, name))
    return out


def test_every_recipe_names_the_files_it_touches_and_they_exist():
    found = recipe_paths()
    assert all(r in found for r in RECIPES), f"docs/architecture.md needs the recipes {RECIPES}"
    for recipe in RECIPES:
        assert len(found[recipe]) >= 3, f"recipe {recipe!r} names only {found[recipe]}"
    missing = [f"docs/architecture.md:{line}: {path}" for paths in found.values() for line, path in paths
               if not (ROOT / path.rstrip("/")).exists()]
    assert missing == []


# --- (c) every relative link points at an existing file (and heading) ------------------------------


def relative_links(page: Path) -> list[tuple[int, str]]:
    """(line, target) of every Markdown link or image (``[x](target)``) and
    every reference definition (``[id]: target``) outside code blocks, except
    web addresses and other schemes."""
    out = []
    for number, line in prose_lines(page):
        for target in LINK.findall(line) + REFERENCE.findall(line):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, https:, mailto: ...
                continue
            out.append((number, target))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: the rendered text lower-cased, every
    character but letters, digits, '_', '-' and spaces dropped, spaces -> '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(page):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def test_the_link_parser_finds_links():
    found = {t for page in PAGES for _, t in relative_links(page)}
    assert "docs/architecture.md" in found and "viewer.png" in found
    assert any(t.startswith("decisions/") for t in found)  # deviations.md's reference definitions


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_an_existing_file(page):
    broken = []
    for line, target in relative_links(page):
        path = target.split("#")[0]
        if not path:  # a pure #anchor: the next test's business
            continue
        if not (page.parent / path).exists():
            broken.append(f"{page.relative_to(ROOT)}:{line}: {target}")
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_anchor_names_a_heading(page):
    broken = []
    for line, target in relative_links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path) if path else page
        if anchor and dest.suffix == ".md" and dest.exists() and anchor not in anchors(dest):
            broken.append(f"{page.relative_to(ROOT)}:{line}: {target}")
    assert broken == []


# --- (d) every `authbench.<name>` the pages and the package's docstrings name exists ------------------

DOTTED = re.compile(r"\bauthbench(?:\.[A-Za-z_][A-Za-z_0-9]*)+")


def resolves(dotted: str) -> bool:
    """Whether ``authbench.a.b`` names a module of the package or something
    in one (a function, class, constant, method, or a class's annotated
    field): the longest prefix that imports is the module, the rest
    attributes. A module that needs an optional dependency not installed
    here counts as existing (its attributes are not checked)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
            break
        except ModuleNotFoundError as err:
            missing = err.name or ""
            if missing.split(".")[0] != "authbench":
                return True
            if name == missing or name.startswith(missing + "."):
                continue
            raise
    else:
        return False
    for attr in parts[i:]:
        if hasattr(obj, attr):
            obj = getattr(obj, attr)
        elif isinstance(obj, type) and any(attr in getattr(c, "__annotations__", {}) for c in obj.__mro__):
            return True
        else:
            return False
    return True


def named_in_pages() -> list[tuple[str, str]]:
    """(file:line, authbench.<name>) of README.md, docs/**/*.md and benchmarks/README.md."""
    out = []
    for page in NAMING_PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            out += [(f"{page.relative_to(ROOT)}:{number}", m.group(0)) for m in DOTTED.finditer(line)]
    return out


def named_in_package() -> list[tuple[str, str]]:
    """(file:line, authbench.<name>) of the docstrings and comments under workflow/
    (not code: a logger's name is a string, not a reference)."""
    out = []
    for path in sorted((ROOT / "workflow").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        texts = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                 if tok.type == tokenize.COMMENT]
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                        and isinstance(first.value.value, str):
                    texts.append((first.value.lineno, first.value.value))
        for start, text in texts:
            out += [(f"{where}:{start + text[:m.start()].count(chr(10))}", m.group(0)) for m in DOTTED.finditer(text)]
    return out


def test_the_resolver_tells_a_name_that_exists_from_one_that_does_not():
    assert resolves("authbench.records.atomic_write") and resolves("authbench.cells.CellRecord.sample_rows")
    assert resolves("authbench.llm.runs.RunStats.served")  # a dataclass field with a default
    assert resolves("authbench.cells.CellRecord.cell")  # a dataclass field without one (no class attribute)
    assert resolves("authbench.studies.authority")  # a package
    assert not resolves("authbench.llm.runner.sample_rows")  # a module's missing function
    assert not resolves("authbench.llm.no_such_module")
    assert not resolves("authbench.cells.CellRecord.no_such_method")


def test_the_name_finders_find_names():
    pages = {name for _, name in named_in_pages()}
    package = {name for _, name in named_in_package()}
    assert "authbench.records.atomic_write" in pages and len(pages) >= 30, sorted(pages)
    assert "authbench.provenance.block" in package and len(package) >= 50, sorted(package)


def test_every_authbench_name_in_the_pages_exists():
    missing = [f"{where}: {name}" for where, name in named_in_pages() if not resolves(name)]
    assert missing == [], "these pages name what the package does not hold (renamed or removed?)"


def test_every_authbench_name_in_the_package_docstrings_exists():
    missing = [f"{where}: {name}" for where, name in named_in_package() if not resolves(name)]
    assert missing == [], "these docstrings/comments name what the package does not hold (renamed or removed?)"


# --- (e) every repository path the pages name in backticks exists -------------------------------------

# the repository's top-level folders; a backticked word that starts with one of them is a repository path
REPO_FOLDERS = tuple(sorted(f"{p.name}/" for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")
                            and p.name not in ("results", "__pycache__") and not p.name.endswith(".egg-info"))) \
    + (".ci/",)
# an output path: what a run writes, never in the repository
OUTPUT_ROOTS = ("results/",)
# named on purpose though absent: (path, why)
ABSENT = {
    "resources/data/ragauth/ragauth.json": "where the user puts RAGAuth's release (not shipped)",
    "tests/workflow/test_run_own_config.py": "a timing table measured before that file was removed, marked (removed)",
}


def backticked_paths(page: Path) -> list[tuple[int, str]]:
    """(line, path) of every backticked word of ``page`` (outside code blocks)
    that starts with a repository folder or with results/; a test id's
    ``::name``, a trailing ``'s`` and ``:line`` are cut."""
    out = []
    for number, line in prose_lines(page):
        for text in BACKTICKED.findall(line):
            word = text.strip()
            if not word.startswith(REPO_FOLDERS + OUTPUT_ROOTS) or " " in word.split("<")[0]:
                continue
            word = re.sub(r"(::.*|'s.*|:\d+.*)$", "", word.split(" ")[0] if "<" not in word else word)
            out.append((number, word.rstrip(".,;")))
    return out


def exists(path: str) -> bool:
    """``path`` or, when it holds placeholders (``<name>``, ``*``, ``...``), a
    file or folder matching it."""
    if not re.search(r"<[^>]*>|\*|\.\.\.", path):
        return (ROOT / path.rstrip("/")).exists()
    pattern = re.sub(r"<[^>]*>", "*", path).replace("...", "**").rstrip("/")
    return any(ROOT.glob(pattern))


def test_the_path_finder_finds_paths():
    found = {p for page in NAMING_PAGES for _, p in backticked_paths(page)}
    assert {"workflow/records.py", "rules/*.smk", "docs/decisions.md"} <= found, sorted(found)[:40]
    assert any(p.startswith("results/") for p in found) and len(found) >= 300
    assert exists("rules/<study>.smk") and exists("workflow/studies/<study>/")
    assert not exists("workflow/vocab.py") and not exists("workflow/<nothing>/x.py")


def test_every_repository_path_the_pages_name_exists():
    """A page that names a file or folder of the repository names one that
    exists (a moved or removed module is renamed in the docs too); output
    paths (under results/) are what a run writes, and :data:`ABSENT` lists
    the paths named on purpose."""
    stale = [f"{page.relative_to(ROOT)}:{line}: {path}" for page in NAMING_PAGES
             for line, path in backticked_paths(page)
             if not path.startswith(OUTPUT_ROOTS) and path not in ABSENT and not exists(path)]
    assert stale == []


# --- (f) docs/decisions/: one record per topic, each headed by the code it governs, all in the index ---------

DECISIONS = ROOT / "docs" / "decisions"


def test_every_decision_record_is_in_the_index_and_names_its_code():
    index = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(decisions/([\w-]+\.md)\)", index))
    records = {p.name for p in DECISIONS.glob("*.md")}
    assert len(records) >= 40 and linked == records, (records - linked, linked - records)
    governs = dict(re.findall(r"^\| \[[^\]]+\]\(decisions/([\w-]+\.md)\) \| (.*) \|$", index, re.M))
    for record in sorted(DECISIONS.glob("*.md")):
        lines = record.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# ") and lines[2].startswith("Governs: `"), f"{record.name}: {lines[:3]}"
        # the index's code column is the record's own line, not a copy that drifts
        assert governs.get(record.name) == lines[2].removeprefix("Governs: ").removesuffix("."), record.name
