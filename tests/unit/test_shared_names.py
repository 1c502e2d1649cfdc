"""No shared module names a study. "Shared" is every file of the package
outside the shipped studies' folders (``workflow/studies/<folder>/``, from
the registry's declarations) and every rules file no study includes (a
study's rules files and what they include, rules/inputs/ too). "Naming" is
an identifier, a string or an import path that holds a study's word or its
folder's name; docstrings and comments do not count. The shipped papers'
declarations are data (resources/papers/), their relations in their
studies' folders."""

import io
import re
import tokenize
from pathlib import Path

from authbench.studies import registry as R

ROOT = R.ROOT
INCLUDE = re.compile(r"^\s*include:\s*\"([^\"]+)\"", re.M)


def study_words() -> tuple[str, ...]:
    studies = R.studies().values()
    folders = set(R.BUILTIN)
    return tuple(sorted({s.name.lower() for s in studies} | folders))


def study_files() -> set[Path]:
    """Every file of the shipped studies: their folders, their rules files and what those include."""
    out = {p for folder in R.BUILTIN for p in (ROOT / "workflow" / "studies" / folder).rglob("*")}
    todo = [Path(f) for s in R.studies().values() for f in s.rule_files()]
    while todo:
        path = todo.pop()
        if path in out:
            continue
        out.add(path)
        todo += [path.parent / m for m in INCLUDE.findall(path.read_text(encoding="utf-8"))]
    return out


def shared_files() -> list[Path]:
    own = study_files()
    files = [*(ROOT / "workflow").rglob("*.py"), ROOT / "Snakefile", *(ROOT / "rules").rglob("*.smk")]
    return sorted(p for p in files if p not in own)


def names(path: Path, words: tuple[str, ...]) -> list[str]:
    """The identifiers and strings of ``path`` holding one of ``words`` (docstrings and comments left out)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    found, last = [], None
    for i, tok in enumerate(tokens):
        if tok.type in skip:
            continue
        nxt = next((t for t in tokens[i + 1:] if t.type != tokenize.COMMENT), None)
        alone = last is None or last.type == tokenize.NEWLINE or last.string == ":"
        docstring = (tok.type == tokenize.STRING and alone
                     and (nxt is None or nxt.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)))
        named = any(w in tok.string.lower() for w in words)
        if tok.type in (tokenize.NAME, tokenize.STRING) and not docstring and named:
            found.append(f"{tok.start[0]}: {tok.string[:60]}")
        last = tok
    return found


def test_the_reader_sees_names_not_docstrings_or_comments(tmp_path):
    path = tmp_path / "x.py"
    path.write_text('"""About selfpref."""\n# selfpref\nfrom authbench.studies.selfpref import x\n'
                    'def f():\n    """selfpref too."""\n    return "selfpref/a", selfpref_cells\n')
    assert names(path, ("selfpref",)) == ["3: selfpref", "6: \"selfpref/a\"", "6: selfpref_cells"]


def test_the_studies_and_their_files_are_found():
    assert {"domainauth", "entityauth", "ragauth", "selfpref", "authority"} <= set(study_words())
    own = study_files()
    assert ROOT / "rules" / "inputs" / "selfpref.smk" in own and ROOT / "rules" / "judge.smk" in own
    assert ROOT / "workflow" / "studies" / "authority" / "cli.py" in own
    shared = shared_files()
    assert ROOT / "rules" / "report.smk" in shared and ROOT / "workflow" / "studies" / "statistics.py" in shared
    assert ROOT / "workflow" / "papers" / "derived.py" in shared and ROOT / "workflow" / "papers" / "registry.py" in shared


def test_no_shared_module_names_a_study():
    words = study_words()
    found = {str(p.relative_to(ROOT)): n for p in shared_files() if (n := names(p, words))}
    assert found == {}
