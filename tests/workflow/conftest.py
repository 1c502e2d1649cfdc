"""The session's shared runs. ``real_run``: the one real-model run of the
whole workflow (its config in tests/realrun.py), which the modules that check
it (test_workflow.py, test_selfpref_workflow.py, test_ragauth_workflow.py)
share; what the instant engine can prove (the full grid of tables, reruns
after a prompt edit) runs on instant runs. ``typed``: every documented
command typed in one copy (tests/typedcopy.py), the one run of each
documented config, which test_documented_commands.py checks and the modules
of those configs read (``typedcopy.typed_run``)."""

import pytest
import yaml
from realrun import real_config
from typedcopy import type_every_command
from wfrun import ROOT, snakemake


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("real")
    (work / "config.yaml").write_text(yaml.safe_dump(real_config()))
    proc = snakemake(work, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work


@pytest.fixture(scope="session")
def typed(tmp_path_factory):
    """Every documented command, typed in document order in one copy."""
    return type_every_command(tmp_path_factory.mktemp("clone") / "authbench")


@pytest.fixture(scope="session")
def paper_dry_run(tmp_path_factory):
    """(exit code, output) of `snakemake -n -p --configfile config/paper.yaml` from an empty folder: no
    results, no weights, no GPU (-p: each model job's params name its cell)."""
    tmp = tmp_path_factory.mktemp("paper")
    for name in ("config.yaml", "resources", "profiles", "config"):
        (tmp / name).symlink_to(ROOT / name)
    proc = snakemake(tmp, "-n", "-p", "--cores", "8", overlays=[tmp / "config" / "paper.yaml"], timeout=300)
    return proc.returncode, proc.stdout + proc.stderr
