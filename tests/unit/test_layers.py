"""The package's structure: no import cycle between its modules, and every
layer imports only downwards: the command line is imported by nothing, the
studies by neither the judging core nor the renderers. Every import counts,
an import inside a function as much as one at the top of a module: a lazy
import only moves the cycle to run time. The rules files (Snakefile,
rules/**/*.smk) are read too: they sit beside the command line, at the top,
and import it never."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "workflow"
# an import statement of a rules file (Snakemake's syntax is not Python's: read line by line, indented ones too)
SMK_IMPORT = re.compile(r"^\s*(?:from\s+(authbench[\w.]*)\s+import\b|import\s+(authbench[\w.]*))", re.M)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(("authbench", *(parts[:-1] if parts[-1] == "__init__" else parts)))


def module_imports() -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its code (module
level, inside functions, under ``if TYPE_CHECKING``)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    out = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            found |= {t for t in targets if t in modules and t != name}
        out[name] = found
    return out


def rules_files() -> list[Path]:
    return [ROOT / "Snakefile", *sorted((ROOT / "rules").rglob("*.smk"))]


def rules_imports() -> dict[str, set[str]]:
    """Rules file (relative path) -> the package modules its import lines name."""
    out = {}
    for path in rules_files():
        found = {m.group(1) or m.group(2) for m in SMK_IMPORT.finditer(path.read_text(encoding="utf-8"))}
        out[str(path.relative_to(ROOT))] = found
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_function_level_import_counts():
    found = module_imports()
    # authbench.studies.authority.cli imports the judge job's request builder inside its step function only
    assert "authbench.studies.authority.kinds" in found["authbench.studies.authority.cli"]


def test_no_import_cycle_in_the_package():
    assert cycles(module_imports()) == []


def test_layers_import_only_downwards():
    below = {"authbench.llm": ("authbench.studies", "authbench.cli", "authbench.cells", "authbench.plan"),
             "authbench.render": ("authbench.studies", "authbench.cli", "authbench.cells", "authbench.plan"),
             "authbench.cells": ("authbench.studies", "authbench.cli", "authbench.plan"),
             "authbench.studies": ("authbench.cli", "authbench.plan")}
    wrong = []
    for module, targets in module_imports().items():
        for layer, forbidden in below.items():
            if module == layer or module.startswith(layer + "."):
                wrong += [(module, t) for t in targets if t.startswith(forbidden)]
        if not module.startswith("authbench.cli"):
            wrong += [(module, t) for t in targets if t.startswith("authbench.cli")]
    assert wrong == []


def test_the_rules_files_import_the_package_but_never_its_command_line():
    found = rules_imports()
    assert "authbench.joblogs" in found["rules/common.smk"]  # the reader sees the rules' imports
    assert SMK_IMPORT.findall("    from authbench.cli.x import y\nimport authbench.cli\n") == [
        ("authbench.cli.x", ""), ("", "authbench.cli")]
    wrong = {f: sorted(t for t in targets if t == "authbench.cli" or t.startswith("authbench.cli."))
             for f, targets in found.items()}
    assert {f: t for f, t in wrong.items() if t} == {}
