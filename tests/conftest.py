"""The tests by folder: ``unit/`` (pure Python: no Snakemake run, no real model
load; `make test-fast`), ``workflow/`` (Snakemake runs, dry runs included, and
the real GGUF model through llama.cpp), ``vllm/`` (the real CPU vLLM) and
``slurm/`` (a real single-node Slurm). Each folder's markers are set here, not
in the files. The helpers every folder imports (``wfrun``, ``realrun``,
``dryrun``, ``loopback``, ``vllmrun``) and ``fixtures/`` stay in ``tests/``;
never ``from conftest import``: every folder's conftest is a module named
``conftest``, and the last one loaded wins."""

import os
import secrets
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
sys.path.insert(0, str(TESTS))  # `from wfrun import ...` from every folder, whatever the import mode

from vllmrun import MODEL_DIR_NAME, SPEC, VLLM_PY, vllm_model  # noqa: E402

FOLDER_MARKERS = {"workflow": ("integration",), "vllm": ("vllm", "integration"), "slurm": ("slurm", "integration")}


# The Slurm tests run last: they install Slurm, and once `scontrol` is on the
# machine without a controller to answer, Snakemake's Slurm plugin waits 9-10 s
# for `scontrol show config` at every start of Snakemake (its import asks for
# MinJobAge), which would add that to every later workflow test. On a machine
# where Slurm is already installed, `slurm_answers` keeps a controller up.
LAST_FOLDERS = ("slurm",)
# the folders whose tests start Snakemake
SNAKEMAKE_FOLDERS = ("workflow", "vllm", "slurm")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items):
    for item in items:
        for name in FOLDER_MARKERS.get(item.path.relative_to(TESTS).parts[0], ()):
            item.add_marker(name)
    items.sort(key=lambda item: item.path.relative_to(TESTS).parts[0] in LAST_FOLDERS)  # stable: order kept otherwise


# --- where the time goes: every phase's duration, when AUTHBENCH_TEST_TIMES names a file ------------
# (.ci/run sets it). The file holds the lines `pytest --durations=0` prints
# ("1.23s call     tests/x.py::test"), every phase of every test, slowest first;
# benchmarks/suite_durations.py reads either, for the per-folder totals and the
# slowest items of benchmarks/README.md.
_durations: list[tuple[float, str, str]] = []


def pytest_runtest_logreport(report):
    if os.environ.get("AUTHBENCH_TEST_TIMES"):
        _durations.append((report.duration, report.when, report.nodeid))


def pytest_sessionfinish(session):
    path = os.environ.get("AUTHBENCH_TEST_TIMES")
    if path and _durations:
        lines = [f"{d:.2f}s {when:<8} {nodeid}" for d, when, nodeid in sorted(_durations, key=lambda x: -x[0])]
        Path(path).write_text("\n".join(lines) + "\n")


@pytest.fixture
def root() -> Path:
    return ROOT


# --- the canary key (issue 46): no key may reach a file, a log or a subprocess's output ----------

# every variable this suite, its configs (config/paper.yaml, examples/) and the pipeline read a key from
KEY_VARS = ("OPENAI_API_KEY", "GEMINI_API_KEY", "OPENPAGERANK_API_KEY", "HF_TOKEN", "VLLM_API_KEY",
            "AB_TEST_KEY", "OPR_TEST_KEY", "AUTHBENCH_TEST_OPR_KEY")
CANARY = "canary-key-" + secrets.token_hex(12)
CANARY_BYTES = CANARY.encode()
CANARY_MAX_FILE = 64 * 1024 * 1024  # bigger files (model weights) hold no key: not read
_canary_hits: list[str] = []
_canary_reported: set[str] = set()  # files a test already failed on: not reported again at the end


def canary_files(folder: Path) -> list[str]:
    """Files under ``folder`` that hold the canary (symlinks not followed)."""
    hits = []
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(dirpath) / name
            try:
                if path.is_symlink() or path.stat().st_size > CANARY_MAX_FILE:
                    continue
                if CANARY_BYTES in path.read_bytes():
                    hits.append(str(path))
            except OSError:
                continue
    return hits


def _canary_in(value) -> bool:
    if isinstance(value, bytes):
        return CANARY_BYTES in value
    return isinstance(value, str) and CANARY in value


@pytest.fixture(scope="session", autouse=True)
def canary_key(tmp_path_factory):
    """Sets the canary value in every key variable (``KEY_VARS``) for the whole
    run; a test that sets its own key still finds the canary in the others.
    Every ``subprocess.run`` output is checked as it returns; at the end the
    whole base temp tree is (each test's own tmp tree and captured output
    are checked after it, ``_canary_per_test``). A hit fails the run."""
    mp = pytest.MonkeyPatch()
    for var in KEY_VARS:
        mp.setenv(var, CANARY)
    run = subprocess.run

    def checked_run(*args, **kwargs):
        proc = run(*args, **kwargs)
        if _canary_in(proc.stdout) or _canary_in(proc.stderr):
            _canary_hits.append(f"output of {args[0] if args else kwargs.get('args')!r}")
        return proc

    mp.setattr(subprocess, "run", checked_run)
    yield CANARY
    mp.undo()
    hits = _canary_hits + [f for f in canary_files(tmp_path_factory.getbasetemp()) if f not in _canary_reported]
    if hits:
        pytest.fail("the canary key leaked into: " + "; ".join(hits[:20]), pytrace=False)


@pytest.fixture(autouse=True)
def _canary_per_test(request, canary_key):
    """After each test: its tmp_path tree and the subprocess outputs it caused."""
    before = len(_canary_hits)
    yield
    hits = _canary_hits[before:]
    tmp = request.node.funcargs.get("tmp_path")
    if tmp is not None:
        files = canary_files(tmp)
        _canary_reported.update(files)
        hits += files
    if hits:
        del _canary_hits[before:]  # reported here, not again at the end
        pytest.fail("the canary key leaked into: " + "; ".join(hits[:20]), pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test whose captured stdout, stderr or log holds the canary fails."""
    outcome = yield
    report = outcome.get_result()
    leaked = [name for name, text in report.sections if name.endswith(report.when) and CANARY in text]
    if leaked and report.outcome != "failed":
        report.outcome = "failed"
        report.longrepr = f"the canary key leaked into the test's {', '.join(leaked)}"


@pytest.fixture(scope="session", autouse=True)
def slurm_answers(request):
    """Where Slurm is installed but not running (this suite's CI machine, where
    an earlier run installed it), every start of Snakemake would wait 9-10 s
    for `scontrol show config` (docs/decisions/cost-and-job-start-up.md, 'Slurm's scontrol'): the three
    tests of test_workflow_errors.py took 50 s, with the controller up 20 s. As root,
    .ci/slurm-up starts the single-node controller for the session (it answers
    in milliseconds; Snakemake's local runs do not use it) and .ci/slurm-down
    stops it at the end. Nothing is installed here, and nothing started
    when no test starts Snakemake, Slurm is not installed (the probe fails
    at once) or a controller already answers."""
    started = _start_slurm_if_it_would_stall(request.session.items)
    yield
    if started:
        subprocess.run([str(ROOT / ".ci" / "slurm-down")], capture_output=True, text=True, timeout=300)


def _start_slurm_if_it_would_stall(items) -> bool:
    """Whether this started Slurm (see ``slurm_answers``)."""
    if not {item.path.relative_to(TESTS).parts[0] for item in items} & set(SNAKEMAKE_FOLDERS):
        return False
    if shutil.which("scontrol") is None:
        return False
    if "is UP" in subprocess.run(["scontrol", "ping"], capture_output=True, text=True, timeout=60).stdout:
        return False
    if os.geteuid() != 0:
        warnings.warn("Slurm is installed but its controller does not answer: every Snakemake start in these "
                      "tests waits about 10 s for `scontrol show config` (as root, the suite starts it)")
        return False
    up = subprocess.run([str(ROOT / ".ci" / "slurm-up")], capture_output=True, text=True, timeout=300)
    if up.returncode != 0:
        # the Slurm tests start it themselves and fail with its log: here it is only a speed-up
        warnings.warn(f"could not start Slurm for the session: {up.stderr[-500:]}")
    return up.returncode == 0


# --- the real CPU vLLM (vllm/test_vllm.py, the serve test in slurm/test_slurm.py) --------

@pytest.fixture(scope="session")
def vllm_python():
    if not VLLM_PY.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{VLLM_PY} is missing: CI must build it (`make vllm-env`, run by `make test`)")
        pytest.skip("no CPU vLLM environment: run `make vllm-env`")
    return VLLM_PY


# the second conversion of the byte-identity test (vllm/test_vllm.py), started beside the first
_REPEAT: dict = {}


@pytest.fixture(scope="session")
def converted(request, tmp_path_factory, vllm_python):
    """The real models_assemble + models_convert rules, once: the converted
    folder. When a test of the session asks for ``converted_again``, that
    second conversion of the same GGUF (the CLI step the rule runs) starts
    as soon as the GGUF is assembled and runs beside the rule's: each is
    one process on one core (about 90 s each here)."""
    import json

    import yaml
    from wfrun import snakemake

    work = tmp_path_factory.mktemp("vllm_models")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    cfg.update(prompts=str(ROOT / "resources" / "prompts"), studies=["domainauth"],
               models={MODEL_DIR_NAME: vllm_model(vllm_python)})
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    models = work / "results" / "models"
    gguf = models / f"{MODEL_DIR_NAME}.gguf"
    proc = snakemake(work, "--cores", "2", str(gguf.relative_to(work)))
    assert proc.returncode == 0, proc.stderr[-5000:]
    if any("converted_again" in item.fixturenames for item in request.session.items):
        again = work / "again"
        _REPEAT["log"] = work / "again.log"  # a file, not a pipe: a full pipe would stall the conversion
        with open(_REPEAT["log"], "w") as log:
            _REPEAT["out"], _REPEAT["proc"] = again, subprocess.Popen(
                [str(vllm_python), "-m", "authbench.cli", "models-convert", "--gguf", str(gguf), "--out", str(again),
                 "--params", json.dumps({"model": SPEC})],
                stdout=subprocess.DEVNULL, stderr=log)
    proc = snakemake(work, "--cores", "2", f"results/models/{MODEL_DIR_NAME}-hf")
    assert proc.returncode == 0, proc.stderr[-5000:]
    folder = models / f"{MODEL_DIR_NAME}-hf"
    config = json.loads((folder / "config.json").read_text())
    assert config["architectures"] == ["Qwen2ForCausalLM"] and "quantization_config" not in config
    assert (folder / "model.safetensors").is_file() and (folder / "chat_template.jinja").is_file()
    try:
        yield folder
    finally:
        if "proc" in _REPEAT and _REPEAT["proc"].poll() is None:
            _REPEAT["proc"].kill()


@pytest.fixture(scope="session")
def converted_again(converted):
    """The second conversion of the GGUF that ``converted`` converted (see there)."""
    try:
        _REPEAT["proc"].wait(timeout=900)
    except subprocess.TimeoutExpired:
        _REPEAT["proc"].kill()
        pytest.fail("the second conversion did not finish in 900 s")
    assert _REPEAT["proc"].returncode == 0, _REPEAT["log"].read_text()[-3000:]
    return _REPEAT["out"]
