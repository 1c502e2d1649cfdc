"""The one real-model run of the whole workflow (``real_run``, its config in
tests/realrun.py): the modules that check it (test_workflow.py,
test_selfpref_workflow.py, test_ragauth_workflow.py) share it; what the
instant engine can prove (the full grid of tables, reruns after a prompt
edit) runs on instant runs."""

import pytest
import yaml
from realrun import real_config
from wfrun import snakemake


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("real")
    (work / "config.yaml").write_text(yaml.safe_dump(real_config()))
    proc = snakemake(work, "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work
