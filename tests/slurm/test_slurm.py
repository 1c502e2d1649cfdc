"""Slurm: the real workflow through `--profile slurm` on a real single-node Slurm.

One cluster for the module (`cluster`): .ci/slurm-up installs slurmctld/slurmd/munge
from Debian's packages if missing and starts them (a fake `Gres=gpu:1`), and
.ci/slurm-down stops them after the last test (also when Slurm was up before).
On it, one run of a tiny config judges with two models at once: the real
embedded model, whose cells ask for one GPU each, and the real CPU vLLM with
`vllm.serve`, whose cells and server share one allocation; the tests ask
Slurm itself what each job requested (`scontrol show job`: MinJobAge=86400
keeps finished jobs). A second run on the same cluster judges one larger cell
whose model asks for `runtime: 1`: Slurm kills it at its time limit
(TIMEOUT), Snakemake retries it (`retries:`, runtime x attempt) and the retry
resumes from the response cache (test_slurm_time_limit_...). Needs root and
apt: skipped elsewhere, but never on CI (CI=true), where a skip would hide a
broken cluster setup.
"""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
MODEL = "gemma3-270m"
SLURM_BINARIES = ("slurmctld", "slurmd", "munged", "sbatch", "squeue", "scontrol")
JUDGES = ("point", "list_score")
# rule name -> Slurm jobs of the tiny config (one job per rule instance; the served model's
# judge cells and its server are one group job, SERVED_GROUP; the time-limited cell's are its
# own run's: time_limited)
SERVED_GROUP = "authority_judge_models_serve"
EXPECTED_JOBS = {
    "models_assemble": 1,
    "domainauth_build": 1,
    "domainauth_sample": 1,
    "entityauth_build": 1,
    "entityauth_sample": 1,
    "authority_baselines": 2,
    "authority_judge": 4,  # {point, list_score} x {domainauth fine, entityauth/songs}
    SERVED_GROUP: 1,  # the served model's {point, list_score} x domainauth fine, and its server
    "authority_evaluate": 6,
    "domainauth_report": 1,
    "entityauth_report": 1,
    "benchmark_statistics": 1,  # Table 7 (results/statistics), from the built datasets
    "domainauth_viewer": 1,  # each study's sample viewer and prompt diffs (rules/report.smk)
    "domainauth_prompt_diffs": 1,
    "entityauth_viewer": 1,
    "entityauth_prompt_diffs": 1,
}


def _why_not_here():
    if os.geteuid() != 0:
        return "needs root (.ci/slurm-up installs and starts Slurm's daemons)"
    if any(shutil.which(b) is None for b in SLURM_BINARIES) and shutil.which("apt-get") is None:
        return "Slurm is not installed and there is no apt-get to install it"
    return None


def _run(cmd, timeout, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)


def _jobs() -> dict[int, dict[str, str]]:
    """Every job slurmctld still knows (`scontrol -o show job`: one line each)."""
    out = _run(["scontrol", "-o", "show", "job"], 60).stdout
    jobs = {}
    for line in out.splitlines():
        fields = dict(re.findall(r"(\S+?)=(\S*)", line))
        if "JobId" in fields:
            jobs[int(fields["JobId"])] = fields
    return jobs


def _rule_of(job: dict[str, str]) -> str:
    """The rule name from the comment the plugin gives each job:
    rule_<rule>[_wildcards_<values>]; a group job's (rule_<group id>_<its
    rules>) is SERVED_GROUP."""
    comment = job.get("Comment", "")
    assert comment.startswith("rule_"), job
    if comment.endswith(f"_{SERVED_GROUP}"):
        return SERVED_GROUP
    return comment[len("rule_"):].split("_wildcards_", 1)[0]


def _tiny_config(work: Path) -> dict:
    shutil.copytree(ROOT / "resources" / "prompts", work / "prompts")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(work / "prompts")
    cfg["studies"] = ["domainauth", "entityauth"]
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    cfg["domainauth"]["sampling"].update(fine_lists=1, coarse_lists=1, easy_pairs=2, hard_pairs=2,
                                         bias_per_level=1, bias_per_category=1, anchors=2)
    songs = cfg["entityauth"]["datasets"]["songs"]
    # coarse_source rescore: EntityAuth's coarse cells would add nothing Slurm-specific (the grid stays
    # at 4 judge jobs), and this real run covers Table 6 from rescored fine lists (test_workflow: own cells)
    cfg["entityauth"].update(lists=1, coarse_source="rescore",
                             datasets={"songs": {**songs, "source": str(ROOT / songs["source"])}})
    cfg["judges"] = list(JUDGES)
    cfg["contexts"] = ["wo_text"]
    cfg["settings"] = ["fine"]
    # the real embedded model, asking Slurm for one (fake) GPU per judge job
    cfg["models"] = {MODEL: {**cfg["models"][MODEL], "gpus": 1}}
    return cfg


@pytest.fixture(scope="module")
def cluster():
    """slurm-up once for the module, slurm-down after its last test."""
    reason = _why_not_here()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the Slurm test: {reason}")
        pytest.skip(reason)
    up = _run([str(ROOT / ".ci" / "slurm-up")], 900)
    assert up.returncode == 0, up.stdout[-2000:] + up.stderr[-4000:]
    try:
        yield
    finally:
        down = _run([str(ROOT / ".ci" / "slurm-down")], 300)
        assert down.returncode == 0, down.stderr


def _snakemake_on_slurm(work: Path, cfg: dict, timeout: int, configfile: str = "config.yaml", targets=()):
    """The workflow with ``cfg`` (written to ``work/configfile``) on the running
    Slurm, for ``targets`` (default: all): (proc, the Slurm jobs it made)."""
    (work / configfile).write_text(yaml.safe_dump(cfg))
    before = max(_jobs(), default=0)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    # cwd = the repository root and `--profile slurm` exactly as a user types
    # it: Snakemake resolves a profile name against the current directory
    # first (then ~/.config/snakemake, /etc/xdg/snakemake), so this checks
    # that the folder slurm/ is found. `--directory` puts results, logs and
    # .snakemake/ (with slurm_logs/) in the temp dir; profiles/default is
    # found next to the Snakefile as in a plain run.
    # One option beside the profile's: the first status check 1 s after a submission (the profile's
    # 10 s suits a shared cluster's squeue; here each of the ~8 levels of short jobs waited 10-30 s).
    cmd = [sys.executable, "-m", "snakemake", *targets, "--profile", "slurm", "--cores", "8",
           "--slurm-init-seconds-before-status-checks", "1",
           "-s", str(ROOT / "Snakefile"), "--directory", str(work),
           "--configfile", str(work / configfile)]
    try:
        proc = _run(cmd, timeout, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired as exc:
        _cancel_after(before)
        pytest.fail(f"snakemake on Slurm did not finish in {timeout} s: {str(exc.stderr)[-4000:]}")
    if proc.returncode != 0:
        _cancel_after(before)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return proc, {i: j for i, j in _jobs().items() if i > before}


SERVED_JUDGES = ("point", "list_score")  # two cells: enough to share one server


@pytest.fixture(scope="module")
def run(tmp_path_factory, cluster, vllm_python, converted):
    """The tiny config on Slurm with two models: the embedded one (its cells one
    job each) and the CPU vLLM with `vllm.serve` (DomainAuth only: its cells
    and its server one group, one allocation)."""
    from vllmrun import vllm_model

    work = tmp_path_factory.mktemp("slurm")
    cfg = _tiny_config(work)
    served = vllm_model(vllm_python, converted, gpus=1, mem_mb=8000, studies=["domainauth"])
    served["vllm"] = {**served["vllm"], "serve": True}
    cfg["models"]["qwen"] = served
    proc, jobs = _snakemake_on_slurm(work, cfg, 1500)
    return work, proc, jobs


def _cancel_after(before: int) -> None:
    """Cancel what the failed run left queued (our jobs only: ids after `before`)."""
    left = [str(i) for i, j in _jobs().items() if i > before and j.get("JobState") in ("PENDING", "RUNNING")]
    if left:
        _run(["scancel", *left], 60)


def test_profile_found_from_repo_root(run):
    _, proc, _ = run
    out = proc.stdout + proc.stderr
    assert "Using profiles slurm and workflow specific profile profiles/default" in out, out[:3000]
    assert "SLURM run ID:" in out


def test_one_slurm_job_per_rule_instance_all_completed(run):
    _, _, jobs = run
    by_rule = {}
    for job in jobs.values():
        by_rule[_rule_of(job)] = by_rule.get(_rule_of(job), 0) + 1
    assert by_rule == EXPECTED_JOBS
    assert {j["JobState"] for j in jobs.values()} == {"COMPLETED"}, jobs
    # the default partition that slurm-up made (the plugin reads it from sinfo)
    assert {j["Partition"] for j in jobs.values()} == {"debug"}


def test_judge_jobs_request_the_models_gpu_memory_and_time(run):
    _, _, jobs = run
    judges = [j for j in jobs.values() if _rule_of(j) == "authority_judge"]
    assert len(judges) == 4
    for job in judges:
        # resources: gpu=1 -> sbatch --gpus=1 -> a per-job GPU request
        assert job.get("TresPerJob") == "gres:gpu:1", job
        assert job["NumCPUs"] == "2"  # threads: 2 in the model's config
        assert job["MinMemoryNode"] == "4000M"  # mem_mb default of a judge job
        assert job["TimeLimit"] == "02:00:00"  # runtime default: 120 minutes


def test_cpu_jobs_request_no_gpu(run):
    _, _, jobs = run
    cpu_jobs = [j for j in jobs.values() if _rule_of(j) not in ("authority_judge", SERVED_GROUP)]
    assert len(cpu_jobs) == sum(EXPECTED_JOBS.values()) - 4 - 1
    for job in cpu_jobs:
        for key in ("TresPerJob", "TresPerNode", "TresPerSocket", "TresPerTask"):
            assert "gpu" not in job.get(key, ""), (key, job)
        assert "gpu" not in job["TRES"]
        assert job["NumCPUs"] == "1"
        assert job["TimeLimit"] == "00:30:00"  # slurm/config.yaml default-resources


def test_final_tables_with_real_model(run):
    work, _, _ = run
    da = work / "results" / "domainauth" / "report"
    for ext in ("csv", "md", "tex"):
        assert (da / "tables" / f"table1_fine.{ext}").stat().st_size > 0
    assert MODEL in (da / "tables" / "table1_fine.md").read_text()
    ea = work / "results" / "entityauth" / "report"
    for stem in ("table4_fine", "table6_coarse"):
        for ext in ("csv", "md", "tex"):
            assert (ea / "tables" / f"{stem}.{ext}").stat().st_size > 0
        assert "| Songs | gemma3-270m | w/o |" in (ea / "tables" / f"{stem}.md").read_text()
    with open(da / "metrics.tsv", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert {r["judge"] for r in rows if r["model"] == MODEL} == set(JUDGES)
    assert {r["judge"] for r in rows if r["model"] == "qwen"} == set(SERVED_JUDGES)


def test_each_cell_loaded_the_model_in_its_own_job(run):
    """One Slurm job per cell: each judge job loads the model itself."""
    work, _, _ = run
    cells = {p.parent for p in (work / "results").rglob(f"cells/{MODEL}/*/*/*/judgments.jsonl")}
    assert len(cells) == 4, cells
    for cell in cells:
        record = cell / "manifest.json"
        assert json.loads(record.read_text())["model_load_seconds"] > 0, record


# --- a Slurm time limit hit mid-cell: the retry resumes from the cache --------------

# One DomainAuth ListScore cell on coarse lists (judged by no cell of the main run) whose
# model asks for `runtime: 1` (minutes). Slurm kills it between 60 and ~90 s (slurmctld
# checks limits periodically); attempt 2 may run 2 minutes, a third 3 (MODEL_RESOURCES:
# runtime x attempt; MODEL_RETRIES). A list's time varies ~20x with the machine's load
# (1 s on 2 idle cores, 19 s beside other work), so the cell's size is measured, not
# fixed: enough lists for ~TIME_LIMIT_SECONDS at the speed of the main run's fine
# ListScore cell, per item (a coarse list has 5 items, a fine one 10).
TIME_LIMIT_SECONDS = 150
TIME_LIMIT_CELL = Path("results", "domainauth", "cells", MODEL, "list_score", "wo_text", "coarse")
RETRY_LINE = re.compile(r"TIMEOUT|Trying to restart job|^    resources:|^\[.*\]$|^Error in rule|submitted with SLURM")


@pytest.fixture(scope="module")
def time_limited(run):
    """The time-limited cell, after the main run on the same Slurm (one start-up,
    and the model the main run assembled); its own response cache, so every
    record in it is this cell's. Its run resamples the coarse lists (one
    domainauth_sample job) to the measured count."""
    work, _, _ = run
    fine = json.loads((work / TIME_LIMIT_CELL.parent / "fine" / "manifest.json").read_text())
    per_list = fine["engine_seconds"] / fine["n_calls"] * 5 / 10
    lists = max(20, min(1200, round(TIME_LIMIT_SECONDS / per_list)))
    cfg = yaml.safe_load((work / "config.yaml").read_text())
    cfg["domainauth"]["sampling"]["coarse_lists"] = lists
    cfg["cache"] = str(work / "cache_time_limit")
    cfg["models"][MODEL]["runtime"] = 1
    proc, jobs = _snakemake_on_slurm(work, cfg, 1200, configfile="time_limit.yaml",
                                     targets=[str(TIME_LIMIT_CELL / "judgments.jsonl")])
    # the Slurm retry, as Snakemake logged it (printed as evidence of the retry)
    lines = [line for line in proc.stderr.splitlines() if RETRY_LINE.search(line)]
    print("\n".join([f"{lists} lists at {per_list:.2f} s; snakemake's retry log lines:", *lines]))
    return work, proc, jobs, lists


def _shard_records(shard: Path) -> int:
    """Complete reply records of a cache shard (its header and a torn last line not counted)."""
    n = 0
    for line in shard.read_bytes().splitlines()[1:]:
        try:
            n += "k" in json.loads(line)
        except json.JSONDecodeError:
            pass
    return n


def test_slurm_time_limit_kills_the_cell_and_the_retry_resumes_from_the_cache(time_limited):
    work, proc, jobs, lists = time_limited
    attempts = sorted((i, j) for i, j in jobs.items() if _rule_of(j) == "authority_judge")
    assert sorted(_rule_of(j) for j in jobs.values()) == ["authority_judge"] * len(attempts) + ["domainauth_sample"]
    # Slurm killed attempt 1 at its limit (TIMEOUT, not a failure of the job itself);
    # each attempt asked for runtime x attempt minutes; the last one completed
    states = [j["JobState"] for _, j in attempts]
    assert 2 <= len(attempts) <= 3 and states == ["TIMEOUT"] * (len(attempts) - 1) + ["COMPLETED"], states
    assert [j["TimeLimit"] for _, j in attempts] == [f"00:0{a}:00" for a in range(1, len(attempts) + 1)]
    assert [j["MinMemoryNode"] for _, j in attempts] == [f"{4000 * a}M" for a in range(1, len(attempts) + 1)]
    assert "SLURM status is: 'TIMEOUT'" in proc.stderr and "Trying to restart job" in proc.stderr
    # one cache shard per attempt that flushed a reply (writer = the cell; a shard is opened at its first flush,
    # so an attempt killed while it loads the model, or one with every reply cached, leaves none). An attempt
    # killed mid-batch leaves no index; one killed after its last reply (while it writes the cell) has one, and
    # then the next attempt computes nothing. At least one killed attempt got somewhere, so the last one resumes
    # from a cache.
    cell = work / TIME_LIMIT_CELL
    manifest = json.loads((cell / "manifest.json").read_text())
    assert manifest["n_calls"] == lists
    shards = sorted((work / "cache_time_limit" / "shards").glob("*.jsonl"), key=lambda f: f.stat().st_mtime)
    last = shards[-1:] if manifest["engine_calls"] else []
    killed = shards[:len(shards) - len(last)]
    assert 1 <= len(killed) <= len(attempts) - 1, (shards, states, manifest["engine_calls"])
    assert not any(f.with_suffix(".idx").exists() for f in killed[:-1]), killed
    assert killed[-1].with_suffix(".idx").exists() == (not last), (killed, last)
    assert all(f.with_suffix(".idx").exists() for f in last), last
    before_kill = [_shard_records(f) for f in killed]
    assert sum(before_kill) > 0, before_kill  # the last attempt has replies to resume from
    # the last attempt: cache hits = the replies finished before the kill(s), the rest computed
    assert manifest["cache_hits"] == sum(before_kill), (manifest["cache_hits"], before_kill)
    assert manifest["engine_calls"] == sum(map(_shard_records, last)) == lists - sum(before_kill)
    # a kill mid-write may leave a torn last line (skipped, counted); nothing else
    assert set(manifest["cache_problems"]) <= {"torn_or_garbage_line"}, manifest["cache_problems"]
    samples = pd.read_parquet(cell / "samples.parquet")
    assert len(samples) == lists and int(samples["cached"].sum()) == sum(before_kill)
    # complete: one judgment per list sampled, in the instances' order
    instances = [json.loads(line)["instance_id"]
                 for line in (work / "results" / "domainauth" / "instances" / "coarse.jsonl").read_text().splitlines()]
    judged = [json.loads(line)["request_id"] for line in (cell / "judgments.jsonl").read_text().splitlines()]
    assert judged == instances and len(judged) == lists


# --- one loaded model for many cells: vllm.serve on Slurm ----------------------------

def test_served_cells_share_one_allocation_and_one_model_load(run):
    work, _, jobs = run
    # a group job's comment is rule_<group id>_<its rules>: rule_<uuid>_authority_judge_models_serve
    groups = [j for j in jobs.values() if _rule_of(j) == SERVED_GROUP]
    served_jobs = [j for j in jobs.values() if _rule_of(j) in ("authority_judge", "models_serve")
                   and "_qwen_" in j.get("Comment", "")]
    # the server and the two cells: ONE Slurm job; no judge or server job of the served model's own
    assert len(groups) == 1 and not served_jobs, jobs
    assert "models_serve" not in [_rule_of(j) for j in jobs.values()]
    (group,) = groups
    assert group["JobState"] == "COMPLETED" and group.get("TresPerJob") == "gres:gpu:1", group
    assert group["NumCPUs"] == "2"  # the server's threads; the cells ask for none
    servers = set()
    for judge in SERVED_JUDGES:
        cell = work / "results" / "domainauth" / "cells" / "qwen" / judge / "wo_text" / "fine"
        manifest = json.loads((cell / "manifest.json").read_text())
        assert manifest["n_calls"] > 0 and manifest["engines_used"][0]["engine"] == "openai"
        servers.add((manifest["server"]["host"], manifest["server"]["pid"], manifest["server"]["started"]))
    assert len(servers) == 1  # N cells, 1 model load
    log = (work / "results" / "logs" / "models" / "qwen-serve.log").read_text()
    assert log.count("model server ready") == 1
