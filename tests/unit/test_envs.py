"""Each rule's conda environment (envs/*.yaml) lists every distribution its
command imports: rule -> `conda:` -> env file; rule -> `python -m
authbench.cli <command>` -> the command's function -> the third-party
modules it imports, followed through the package (module-level imports of
every authbench module reached, and the body of every authbench function
imported by name). A model rule's env is chosen by engine (rules/common.smk's
model_env): it must also cover that engine's modules."""

import ast
import re
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import pytest
from authbench.cli import command, command_names

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "workflow"
# model_env's choice (rules/common.smk): env -> the engine modules its model jobs load (engines are imported by
# name at run time, authbench.llm.engines.base.ENGINE_MODULES; vLLM itself by importlib)
MODEL_ENVS = {
    "llamacpp.yaml": ["authbench.llm.engines.llamacpp", "authbench.llm.engines.openai_compat",
                      "authbench.llm.engines.instant"],
    "vllm.yaml": ["authbench.llm.engines.vllm_engine", "authbench.llm.serve", "vllm"],
}
# programs a command runs rather than imports
RUNS = {"provenance-dag": ["snakemake", "graphviz-pure"]}
# conda-forge names of pip distributions (where they differ)
CONDA_NAMES = {"snakemake-minimal": "snakemake", "matplotlib-base": "matplotlib"}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@lru_cache(maxsize=None)
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


@lru_cache(maxsize=None)
def module_file(name: str) -> Path | None:
    if name != "authbench" and not name.startswith("authbench."):
        return None
    path = PKG.joinpath(*name.split(".")[1:])
    for candidate in (path / "__init__.py", path.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def lazy_table(tree: ast.Module) -> dict[str, str]:
    """name -> submodule of a package that exports lazily (authbench.lazy_exports)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "lazy_exports":
            table = ast.literal_eval(node.args[1])
            return {name: sub for sub, names in table.items() for name in names}
    return {}


def imports_in(node, modname: str) -> list[tuple[str, str | None]]:
    """(module, name imported from it or None) of every import statement under ``node``."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Import):
            out += [(a.name, None) for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                base = ".".join(modname.split(".")[: len(modname.split(".")) - n.level + 1] + ([base] if base else []))
            out += [(base, a.name) for a in n.names]
    return out


def top_level(tree: ast.Module) -> list[ast.stmt]:
    return [s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def third_party(start: list[tuple[str, str | None]]) -> set[str]:
    """The third-party top-level modules reached from ``start``."""
    todo, seen, found = list(start), set(), set()
    while todo:
        module, name = todo.pop()
        if (module, name) in seen:
            continue
        seen.add((module, name))
        path = module_file(module)
        if path is None:
            if module and module.split(".")[0] not in sys.stdlib_module_names and module.split(".")[0] != "authbench":
                found.add(module.split(".")[0])
            continue
        tree = parsed(path)
        todo += [i for s in top_level(tree) for i in imports_in(s, module)]
        if name is None:
            continue
        if module_file(f"{module}.{name}"):  # a submodule
            todo.append((f"{module}.{name}", None))
        elif name in lazy_table(tree):
            todo.append((f"{module}.{lazy_table(tree)[name]}", name))
        else:
            for d in tree.body:
                if isinstance(d, (ast.FunctionDef, ast.ClassDef)) and d.name == name:
                    todo += imports_in(d, module)
    return found


@lru_cache(maxsize=None)
def whole_module(name: str) -> set[str]:
    path = module_file(name)
    if path is None:
        return {name}
    return third_party([(name, None)] + imports_in(parsed(path), name))


@lru_cache(maxsize=None)
def command_imports(name: str) -> set[str]:
    func = command(name)[0]
    tree = parsed(Path(sys.modules[func.__module__].__file__))
    body = next(d for d in tree.body if isinstance(d, ast.FunctionDef) and d.name == func.__name__)
    return third_party([("authbench.cli", None), (func.__module__, None)] + imports_in(body, func.__module__))


@lru_cache(maxsize=None)
def installed_distributions() -> dict[str, list[str]]:
    return metadata.packages_distributions()


def distributions(modules: set[str]) -> set[str]:
    """Distribution names (normalised) of top-level modules; a module not installed here (vLLM's) is its own."""
    installed = installed_distributions()
    return {norm(d) for m in modules for d in installed.get(m, [m])}


def env_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        m = re.match(r"^\s*-\s+([A-Za-z0-9_.\-]+)", line)
        if m and not line.strip().startswith("- -e"):
            names.add(norm(CONDA_NAMES.get(m.group(1), m.group(1))))
    return names


def rules() -> list[tuple[str, str, str]]:
    """(rule, conda value, authbench.cli command) of every rule in rules/*.smk."""
    out = []
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        text = smk.read_text()
        starts = [(m.start(), m.group(1)) for m in re.finditer(r"^\s*rule (\w+):", text, re.M)]
        for (start, name), (end, _) in zip(starts, starts[1:] + [(len(text), "")]):
            body = text[start:end]
            conda = re.search(r"conda:\s*\n\s*(\S+)", body)
            command = re.search(r"-m authbench\.cli ([a-z-]+)", body)
            if command:
                out.append((name, conda.group(1).strip('"') if conda else "", command.group(1)))
    return out


RULES = rules()


def test_every_rule_is_found_with_a_known_command():
    assert len(RULES) >= 30
    assert {step for _, _, step in RULES} <= set(command_names())


@pytest.mark.parametrize("rule,conda,command", RULES, ids=[r[0] for r in RULES])
def test_env_lists_what_the_rule_imports(rule, conda, command):
    assert conda, f"rule {rule} has no conda: environment"
    envs = list(MODEL_ENVS) if conda == "model_env" else [Path(conda).name]
    for env in envs:
        needed = command_imports(command) | {m for extra in MODEL_ENVS.get(env, []) if conda == "model_env"
                                             for m in whole_module(extra)}
        missing = (distributions(needed) | {norm(r) for r in RUNS.get(command, [])}) - env_names(ROOT / "envs" / env)
        assert not missing, f"rule {rule} ({command}) imports {sorted(missing)}, which envs/{env} does not list"


def test_the_closure_sees_lazy_and_function_level_imports():
    """The walk is not vacuous: a report reads pandas, the converter reaches transformers only through
    convert_gguf's body, and the llama.cpp engine module reaches llama_cpp."""
    assert {"pandas", "matplotlib"} <= command_imports("domainauth-report")
    assert "transformers" in command_imports("models-convert")
    assert "transformers" not in command_imports("models-assemble")
    assert "llama_cpp" in whole_module("authbench.llm.engines.llamacpp")
