"""`snakemake --lint` reports nothing but the lints docs/decisions.md states
("Snakemake conventions"), for the demo's config and for overlays that bring
in the rules the demo leaves out (RAGAuth built from own data, fetchers, a
served vLLM model). Plans only: no job runs."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDY_FILES = ("fetch", "datasets", "judge", "ragauth", "selfpref", "report")
# a study's input functions beside its rules (docs/decisions.md, "Snakemake conventions")
STATED = {(f"rules/{name}.smk", "Mixed rules and functions in same snakefile.") for name in STUDY_FILES}
SERVED = ROOT / "tests" / "fixtures" / "served_overlay.yaml"


def lints(*args: str) -> set[tuple[str, str]]:
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--lint", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    text = proc.stdout + proc.stderr
    assert "Lints for" in text or proc.returncode == 0, text[-3000:]
    found, where = set(), None
    for line in text.splitlines():
        head = re.match(r"Lints for (?:snakefile (\S+)|rule (\w+) \(line \d+, (\S+)\)):", line)
        if head:
            where = Path(head.group(1) or head.group(3)).relative_to(ROOT).as_posix()
            where = where if head.group(1) else f"{where}: rule {head.group(2)}"
        elif where and re.match(r"^    \* ", line):
            found.add((where, line.strip()[2:].rstrip(":")))
    return found


@pytest.mark.parametrize("overlay", [None, "examples/own_rag.yaml", "examples/own_domains.yaml", str(SERVED)])
def test_lint_reports_only_the_stated_lints(overlay):
    found = lints(*(["--configfile", overlay] if overlay else []))
    # the statistics section's `.split("/", 1)[1]).get("label")` read as a path (a regex over two strings)
    found = {(f, t) for f, t in found if not (f == "rules/common.smk" and t.startswith('Absolute path "/", 1)[1])'))}
    assert found <= STATED, sorted(found - STATED)
