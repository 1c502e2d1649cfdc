"""`snakemake --lint` reports nothing for overlays that bring in the rules the
demo leaves out (RAGAuth built from own data, fetchers, a served vLLM model).
The demo's own config is linted once, by `.ci/run`'s lint phase (and `make
lint`), not again here. Plans only: no job runs."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVED = ROOT / "tests" / "fixtures" / "served_overlay.yaml"


@pytest.mark.parametrize("overlay", ["examples/own_rag.yaml", "examples/own_domains.yaml", str(SERVED)])
def test_lint_reports_nothing(overlay):
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--lint", "--configfile", overlay],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Lints for" not in text, text[-3000:]
    assert "not present in the Snakefile" not in text, text[-3000:]  # localrules name only defined rules
