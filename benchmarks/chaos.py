"""Kill campaign: K faults at random moments of a workflow run, every outcome checked.

A grid covering every study (DomainAuth, EntityAuth, RAGAuth on the test
fixture, self-preference) is run once uninterrupted (the reference, its own
folder and cache), then again in a second folder with its own cache while,
K times at a seeded random moment with work still pending, the Snakemake
driver's process group or one running job's process tree gets SIGKILL or
SIGTERM (seeded choice; SIGTERM is what Slurm sends first). After each fault
the driver is restarted as a user would (``--unlock`` when the killed driver
left its lock, then ``--rerun-incomplete``) until the run completes. Then
every file under ``results/`` (but the cache) is compared with the
reference, timing fields excluded (:data:`TIMING`), and the cache tells how
many engine replies were stored more than once.

    PYTHONPATH=.shim .venv/bin/python benchmarks/chaos.py --engine instant --kills 50 --seed 1
"""

from __future__ import annotations

import argparse
import base64
import gzip
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from wfrun import tiny_selfpref  # noqa: E402
RAG_FIXTURE = ROOT / "tests" / "fixtures" / "ragauth" / "ragauth_fixture.json"


def grid_config(engine: str, studies=("domainauth", "entityauth", "ragauth", "selfpref")) -> dict:
    """The demo config with every study on, absolute paths and tiny counts;
    ``engine: instant`` for both demo models, or only the demo's llama.cpp
    model (gemma3-270m) for ``llamacpp``."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    cfg["domainauth"]["sampling"].update(fine_lists=1, coarse_lists=1, easy_pairs=2, hard_pairs=2,
                                         bias_per_level=1, bias_per_category=1)
    songs = cfg["entityauth"]["datasets"]["songs"]
    cfg["entityauth"].update(lists=1, coarse_lists=1, datasets={"songs": {**songs, "source": str(ROOT / songs["source"])}})
    cfg["ragauth"].update(source=str(RAG_FIXTURE), k=[1, 3], doc_tokens=40)
    tiny_selfpref(cfg)  # the workflow tests' tiny self-preference section (tests/wfrun.py)
    cfg["studies"] = list(studies)
    keep = "gemma3-270m"  # one model: the demo's llama.cpp one (instant: the same name, no model)
    for name in cfg["models"]:
        if name != keep:
            cfg["models"][name] = None
    cfg["selfpref"]["self"] = {keep: cfg["selfpref"]["self"][keep]}
    if engine == "instant":
        cfg["models"][keep] = {**cfg["models"][keep], "engine": "instant"}
    return cfg


# --- comparing with the reference ---------------------------------------------------------------

# Left out of the comparison: the response cache (shard names carry host, pid and
# a random tag), the job logs and Snakemake's benchmark timings (wall times).
SKIP_DIRS = ("cache", "logs", "timings")
# Figures drawn from timings, left out too: cost_vs_rho's x axis is each cell's engine
# seconds (its data, the cost table, is compared with the timing columns dropped)
TIMING_FIGURES = ("cost_vs_rho",)
# Timing and this-run fields, dropped before comparing: in every JSON file
# (manifests, provenance, history's version.json: ``kept_ns``) any key named
# here or ending in "_seconds", and in CSV/TSV/Markdown tables the columns so
# named (the cost table's cache_hits, engine_seconds); in samples.parquet the `cached` column (whether
# THIS run served the reply from the cache); in the viewers' .js data every
# "cached": count or per-sample list.
TIMING = {"cache_hits", "engine_calls", "cache_problems", "recomputed", "engine_seconds_this_run",
          "model_load_seconds", "created", "timestamp", "started", "finished", "duration", "kept_ns"}
# the viewers' data (.js): each cell's count of replies served from the cache in its last run
GZIP_B64 = re.compile(rb'"(H4sI[A-Za-z0-9+/=]+)"')
VIEWER_CACHED = re.compile(rb'"cached":(?:\d+|true|false|null|\[[^]]*\])')


def _strip(obj):
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in TIMING and not k.endswith("_seconds")}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _viewer_data(path: Path) -> bytes:
    """A viewer's .js data with its gzip+base64 payloads unpacked and every "cached": count dropped."""
    def unpack(m):
        return gzip.decompress(base64.b64decode(m.group(1)))

    return VIEWER_CACHED.sub(b"", GZIP_B64.sub(unpack, path.read_bytes()))


def _table_lines(path: Path) -> list[list[str]]:
    """A CSV/TSV/Markdown table's lines as cells, the columns named in TIMING
    or ending in "_seconds" (the cost table's cache_hits, engine_seconds:
    this run's) dropped from the header's line on; other lines whole."""
    sep = {".csv": ",", ".tsv": "\t", ".md": "|"}[path.suffix]
    out, drop = [], set()
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split(sep)]
        named = {i for i, c in enumerate(cells) if c in TIMING or c.endswith("_seconds")}
        drop = named or (drop if sep in line else set())
        out.append([c for i, c in enumerate(cells) if i not in drop])
    return out


def _same(a: Path, b: Path) -> bool:
    if a.read_bytes() == b.read_bytes():
        return True
    if a.suffix in (".csv", ".tsv", ".md"):
        return _table_lines(a) == _table_lines(b)
    if a.suffix == ".json":
        try:
            return _strip(json.loads(a.read_text())) == _strip(json.loads(b.read_text()))
        except ValueError:
            return False
    if a.suffix == ".js":
        return _viewer_data(a) == _viewer_data(b)
    if a.suffix == ".parquet":
        import pandas as pd

        try:
            x, y = (pd.read_parquet(p).drop(columns=["cached"], errors="ignore") for p in (a, b))
        except (OSError, ValueError):  # a half-written parquet file (ArrowInvalid is a ValueError): it differs
            return False
        return x.equals(y)
    return False


def result_files(work: Path) -> set[str]:
    res = work / "results"
    return {str(p.relative_to(res)) for p in res.rglob("*")
            if p.is_file() and p.relative_to(res).parts[0] not in SKIP_DIRS
            and not (p.parent.name == "figures" and p.stem in TIMING_FIGURES)}


def differing(ref: Path, run: Path) -> list[str]:
    """Files under results/ that are missing on one side or differ (timing fields excluded)."""
    a, b = result_files(ref), result_files(run)
    out = [f"{f} (only in {'reference' if f in a else 'campaign'})" for f in sorted(a ^ b)]
    return out + [f for f in sorted(a & b) if not _same(ref / "results" / f, run / "results" / f)]


# --- the cache's view: replies stored, distinct keys, damaged records ---------------------------

def cache_counts(work: Path) -> tuple[int, int, int]:
    """(records stored, distinct keys, damaged lines) over every shard of
    the run's cache: a reply stored twice was computed twice (a torn or
    garbage line is damaged, not a record)."""
    shards = work / "results" / "cache" / "responses" / "shards"
    records, keys, damaged = 0, set(), 0
    for shard in sorted(shards.glob("*.jsonl")) if shards.is_dir() else []:
        with open(shard, "rb") as fh:
            fh.readline()
            for line in fh:
                if line.endswith(b"}\n") and line.startswith(b'{"k":"'):
                    records += 1
                    keys.add(line[6:70])
                elif line.strip():
                    damaged += 1
    return records, len(keys), damaged


def job_cache_problems(work: Path) -> int:
    """Damaged records the cells' own runs found and skipped (their manifests' ``cache_problems``)."""
    return sum(sum(json.loads(m.read_text()).get("cache_problems", {}).values())
               for m in (work / "results").rglob("manifest.json"))


# --- running and killing ------------------------------------------------------------------------

def prepare(work: Path, cfg: dict) -> None:
    work.mkdir(parents=True, exist_ok=True)
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))


def start(work: Path, log, *extra: str) -> subprocess.Popen:
    """Snakemake on the grid in ``work``, in a session of its own (its jobs share its process group)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                             str(work), "--configfile", str(work / "config.yaml"), "--cores", "2", *extra],
                            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def running_jobs(driver: subprocess.Popen) -> list[psutil.Process]:
    """The driver's job processes: its direct children that are the local
    executor's job shells (it also runs probes, e.g. ``scontrol``, which are no job)."""
    try:
        return [p for p in psutil.Process(driver.pid).children()
                if p.name() in ("sh", "bash") and "authbench" in " ".join(p.cmdline())]
    except psutil.NoSuchProcess:
        return []


def deliver(driver: subprocess.Popen, target: str, sig: int, rng: random.Random) -> str | None:
    """Send ``sig`` to the driver's process group, or to one running job's
    process tree (its shell and every descendant, as Slurm signals a job's
    processes); returns what was hit (None: the job ended meanwhile)."""
    if target == "job":
        jobs = running_jobs(driver)
        if jobs:
            job = rng.choice(sorted(jobs, key=lambda p: p.pid))
            try:
                tree = [job, *job.children(recursive=True)]
                what = " ".join(job.cmdline())[-80:]
            except psutil.NoSuchProcess:
                return None  # ended meanwhile: nothing hit
            hit = 0
            for p in tree:
                try:
                    p.send_signal(sig)
                    hit += 1
                except psutil.NoSuchProcess:
                    pass
            return f"job {what}" if hit else None
    os.killpg(driver.pid, sig)
    return "driver"


@dataclass
class Campaign:
    engine: str
    kills: int = 0
    faults: Counter = field(default_factory=Counter)  # (driver|job, SIGKILL|SIGTERM) -> count
    finished_before_kill: int = 0
    unexpected_failures: int = 0  # restarts that failed with no kill behind them
    repeated: list = field(default_factory=list)  # replies stored again after each kill
    restarts_unlocked: int = 0
    hangs: int = 0  # drivers still running ``hang_after`` seconds after their fault: killed (SIGKILL) and restarted
    wall: float = 0.0
    log: list = field(default_factory=list)


def reference(work: Path, cfg: dict) -> float:
    prepare(work, cfg)
    start_t = time.perf_counter()
    with open(work / "snakemake.log", "w") as log:
        rc = start(work, log).wait()
    if rc:
        raise SystemExit(f"reference run failed (rc {rc}): see {work / 'snakemake.log'}")
    return time.perf_counter() - start_t


def campaign(work: Path, cfg: dict, kills: int, seed: int, max_delay: float, engine: str,
             hang_after: float) -> Campaign:
    """Start, kill at a seeded random moment, restart, until ``kills`` faults
    were delivered with work pending; then let the run finish. A driver still
    running ``hang_after`` seconds later is hung (Snakemake's driver can
    deadlock after a fault): it is killed like any other, counted and restarted."""
    rng = random.Random(seed)
    prepare(work, cfg)
    out = Campaign(engine)
    t0 = time.perf_counter()
    before = cache_counts(work)
    segment = 0
    while True:
        extra = ["--rerun-incomplete"]
        if any((work / ".snakemake" / "locks").glob("*")):  # a killed driver's lock: a user runs --unlock first
            with open(work / f"unlock.{segment}.log", "w") as log:
                start(work, log, "--unlock").wait()
            out.restarts_unlocked += 1
        with open(work / f"snakemake.{segment}.log", "w") as log:
            driver, killed = start(work, log, *extra), False
            while out.kills < kills and not killed:  # a moment with work pending (a job gone: another moment)
                delay = rng.uniform(0.5, max_delay)
                target = rng.choice(["driver", "job"])
                sig = rng.choice([signal.SIGKILL, signal.SIGTERM])
                try:
                    driver.wait(timeout=delay)
                    break  # finished (or failed) before its kill
                except subprocess.TimeoutExpired:
                    pass
                if target == "job":  # a job's moment: wait (a little) for one to run
                    for _ in range(50):
                        if running_jobs(driver) or driver.poll() is not None:
                            break
                        time.sleep(0.1)
                hit = deliver(driver, target, sig, rng) if driver.poll() is None else None
                if hit:
                    killed = True
                    out.kills += 1
                    out.faults["driver" if hit == "driver" else "job", signal.Signals(sig).name] += 1
                    out.log.append(f"kill {out.kills}: {signal.Signals(sig).name} {hit} after {delay:.1f}s")
            try:
                code = driver.wait(timeout=hang_after)
            except subprocess.TimeoutExpired:
                os.killpg(driver.pid, signal.SIGKILL)
                code = driver.wait()
                out.hangs += 1
                out.log.append(f"segment {segment}: driver hung (running {hang_after:.0f}s on): SIGKILL, restart")
        after = cache_counts(work)
        if segment:  # replies stored again since the last kill (their keys were already stored)
            out.repeated.append((after[0] - before[0]) - (after[1] - before[1]))
        before = after
        segment += 1
        if code == 0:
            if not killed and out.kills < kills:  # finished before its kill: nothing pending any more
                out.finished_before_kill += 1
            break
        if not killed:
            out.unexpected_failures += 1
            out.log.append(f"segment {segment - 1}: failed with no kill (rc {code}), see snakemake.{segment - 1}.log")
            if out.unexpected_failures > 3:
                break
    out.wall = time.perf_counter() - t0
    return out


def run_all(root: Path, engine: str, kills: int, seed: int, max_delay: float,
            studies=("domainauth", "entityauth", "ragauth", "selfpref"), hang_after: float | None = None) -> dict:
    """Reference + campaign passes under ``root``; the table's figures as a dict.
    A pass whose run completes before all ``kills`` were delivered is checked
    and followed by another pass from scratch (``campaign.<n>``, seed + n),
    until ``kills`` faults were delivered in all: a small grid gives K faults
    at random moments without the delays shrinking to its start-up. A driver
    is hung when it runs ``hang_after`` seconds (default: six reference runs,
    at least two minutes) after its last fault."""
    cfg = grid_config(engine, studies)
    ref_wall = reference(root / "reference", cfg)
    ref_records, ref_keys, _ = cache_counts(root / "reference")
    hang_after = hang_after or max(120.0, 6 * ref_wall)
    r = {"engine": engine, "K": kills, "kills": 0, "faults": Counter(), "finished_before_kill": 0,
         "unexpected_failures": 0, "survived": 0, "differing": [], "repeated_total": 0, "repeated_max_per_kill": 0,
         "chunk": 4096 if engine == "instant" else 1, "damaged_in_cache": 0, "damaged_found_by_jobs": 0,
         "unlocks": 0, "hangs": 0, "reference_wall": ref_wall, "campaign_wall": 0.0, "log": [], "passes": 0}
    while r["kills"] < kills:
        name = "campaign" if not r["passes"] else f"campaign.{r['passes']}"
        camp = campaign(root / name, cfg, kills - r["kills"], seed + r["passes"], max_delay, engine, hang_after)
        diffs = [f"{name}: {d}" for d in differing(root / "reference", root / name)]
        records, keys, damaged = cache_counts(root / name)
        completed = not camp.unexpected_failures and (root / name / "results").is_dir()
        r["passes"] += 1
        r["kills"] += camp.kills
        r["faults"].update(camp.faults)
        r["survived"] += camp.kills if completed and not diffs else 0
        r["differing"] += diffs
        r["repeated_total"] += (records - keys) - (ref_records - ref_keys)
        r["repeated_max_per_kill"] = max(r["repeated_max_per_kill"], *camp.repeated, 0)
        r["damaged_in_cache"] += damaged
        r["damaged_found_by_jobs"] += job_cache_problems(root / name)
        r["log"] += [f"{name}: {line}" for line in camp.log]
        for key, value in (("finished_before_kill", camp.finished_before_kill),
                           ("unexpected_failures", camp.unexpected_failures), ("unlocks", camp.restarts_unlocked),
                           ("hangs", camp.hangs),
                           ("campaign_wall", camp.wall)):
            r[key] += value
        if not camp.kills or camp.unexpected_failures:  # no fault lands in this grid, or restarts fail: stop
            break
    r["faults"] = dict(r["faults"])
    return r


def table(r: dict) -> str:
    faults = ", ".join(f"{k} {s} {n}" for (k, s), n in sorted(r["faults"].items())) or "none"
    rows = [
        ("engine", r["engine"]), ("kills asked (K) / delivered (passes)", f"{r['K']} / {r['kills']} ({r['passes']})"),
        ("faults (target signal count)", faults),
        ("runs finished before their kill (not counted)", r["finished_before_kill"]),
        ("restarts that failed with no kill", r["unexpected_failures"]),
        ("kills survived (completed, identical results)", f"{r['survived']} of {r['kills']}"),
        ("files under results/ that differ", len(r["differing"])),
        ("replies computed again (total; max after one kill; chunk)",
         f"{r['repeated_total']}; {r['repeated_max_per_kill']}; {r['chunk']}"),
        ("damaged cache lines (in the cache at the end; skipped by jobs)",
         f"{r['damaged_in_cache']}; {r['damaged_found_by_jobs']}"),
        ("restarts that needed --unlock", r["unlocks"]),
        ("drivers hung after a fault (killed, restarted)", r["hangs"]),
        ("wall time (reference; campaign)", f"{r['reference_wall']:.0f} s; {r['campaign_wall']:.0f} s"),
    ]
    buf = io.StringIO()
    buf.write("| what | value |\n|---|---|\n")
    for k, v in rows:
        buf.write(f"| {k} | {v} |\n")
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=["instant", "llamacpp"], default="instant")
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-delay", type=float, default=15.0, help="a kill comes 0.5..this many seconds after a start")
    ap.add_argument("--workdir", default=None, help="folder for both runs (default: a temporary one)")
    ap.add_argument("--hang-after", type=float, default=None,
                    help="seconds after which a driver is hung (default: six reference runs, at least 120)")
    ap.add_argument("--studies", nargs="+", default=["domainauth", "entityauth", "ragauth", "selfpref"])
    args = ap.parse_args()
    root = Path(args.workdir or tempfile.mkdtemp(prefix="chaos-"))
    if (root / "campaign").exists() or (root / "reference").exists():
        raise SystemExit(f"{root}: holds an earlier campaign; give an empty --workdir")
    r = run_all(root, args.engine, args.kills, args.seed, args.max_delay, args.studies, args.hang_after)
    print("\n".join(r["log"]))
    for f in r["differing"]:
        print(f"differs: {f}")
    print(f"\nkill campaign in {root}, seed {args.seed}, studies {' '.join(args.studies)}\n")
    print(table(r))


if __name__ == "__main__":
    main()
