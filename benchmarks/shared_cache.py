"""Two runs, one cache: two Snakemake runs of different configs
that share prompts, each in its own working directory, both pointed at one
``cache:`` folder and started at the same moment.

Checked, and printed as a table: both complete; every shard of the shared
cache read line by line (:func:`authbench.llm.cache.audit`) holds no damaged
record and no job reported one (``cache_problems`` in every manifest); every
cell's ``responses.jsonl`` and ``judgments.jsonl`` are byte-identical to those
of two separate runs, each with its own fresh cache (they hold no timing
field: timings and cache hits are in ``manifest.json`` and the ``cached``
column of ``samples.parquet``, which are not compared); the race window: the
prompts computed by both runs rather than one reading the other's reply,
``race = computed_a + computed_b - distinct`` (computed: the runs' summed
``engine_calls``; distinct: the keys in the shared cache), checked against
the copies per key in the shards. Differing files are listed (and the exit
status is 1); every other failed check stops with a named error. Each run gets ``--cores 1`` (the default):
then one run never computes a prompt twice itself and every second copy is the
other run's; with more cores it counts the run's own concurrent jobs too.

The two configs (DomainAuth on the demo's data, one model, small counts):
``a`` the demo's PointJudge and ListJudge-PointScore on the fine lists and
the bias sample; ``b`` a colleague's PointJudge and PairJudge-PointScore on
the fine lists and the pairs. They share the PointJudge fine cell's prompts
(and the bias sample's domains that are in a fine list). The demo and
examples/own_scored_domains.yaml share no prompt: the latter's
domains are synthetic (docs/decisions/two-runs-one-cache.md).

    .venv/bin/python benchmarks/shared_cache.py                    # the embedded llama.cpp model
    .venv/bin/python benchmarks/shared_cache.py --engine instant --repeats 5
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from authbench.config import validate_schema
from authbench.llm.cache import audit
from authbench.paths import Layout
from authbench.studies.authority.grid import grid
from authbench.studies.authority.kinds import cell_files as authority_cells

ROOT = Path(__file__).resolve().parents[1]
COMPARED = ("responses.jsonl", "judgments.jsonl")
CONFIGS = {"a": {"judges": ["point", "list_score"], "settings": ["fine", "bias"]},
           "b": {"judges": ["point", "pair_score"], "settings": ["fine", "pairs"]}}


def config(name: str, engine: str, cache: Path, lists: int) -> dict:
    """Config ``name`` of :data:`CONFIGS` on the demo's config.yaml: DomainAuth
    only, Gemma 3 270M (``engine``), ``lists`` fine lists, as many pairs,
    one bias domain per level, absolute paths."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["models"] = {"gemma3-270m": {**cfg["models"]["gemma3-270m"], "engine": engine}}
    cfg.update(CONFIGS[name], cache=str(cache), prompts=str(ROOT / "resources" / "prompts"), studies=["domainauth"])
    da = cfg["domainauth"]
    da["source"] = str(ROOT / da["source"])
    da["sampling"].update(fine_lists=lists, coarse_lists=1, easy_pairs=lists, hard_pairs=lists, bias_per_level=1,
                          bias_per_category=0)
    return cfg


def targets(cfg: dict) -> list[str]:
    """Every cell's judgments.jsonl (the judge jobs and what they need; no report)."""
    full = copy.deepcopy(cfg)
    validate_schema(full)  # the schema's defaults
    return authority_cells(Layout(full["results"]), grid(full), "judgments.jsonl")


def start(work: Path, cfg: dict, cores: int) -> subprocess.Popen:
    """``snakemake`` on the repository's Snakefile in ``work`` (its log: ``work/snakemake.log``)."""
    work.mkdir(parents=True)
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.Popen(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(work),
         "--configfile", str(work / "config.yaml"), "--cores", str(cores), *targets(cfg)],
        stdout=subprocess.DEVNULL, stderr=open(work / "snakemake.log", "w"), env=env)


def together(runs: dict[str, tuple[Path, dict]], cores: int) -> dict[str, int]:
    """Start every run at the same moment; their exit codes."""
    procs = {name: start(work, cfg, cores) for name, (work, cfg) in runs.items()}
    return {name: proc.wait() for name, proc in procs.items()}


def manifests(work: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((work / "results").rglob("manifest.json"))]


def cell_files(work: Path) -> dict[str, bytes]:
    """The compared files of every cell, by path under results/."""
    res = work / "results"
    return {str(p.relative_to(res)): p.read_bytes() for name in COMPARED for p in sorted(res.rglob(name))}


def measure(base: Path, engine: str, lists: int, cores: int, repeats: int, pair: str = "ab") -> dict:
    """The separate runs (each its own cache), then ``repeats`` times the two
    runs on one fresh shared cache; run ``a`` has config ``pair[0]``, run
    ``b`` config ``pair[1]`` (``aa``: one config twice, every prompt shared).
    Returns what the table shows; raises AssertionError naming the first
    check that fails."""
    configs = dict(zip("ab", pair))
    alone = {n: (base / f"alone_{n}", config(c, engine, base / f"alone_{n}" / "cache", lists))
             for n, c in configs.items()}
    t0 = time.perf_counter()
    codes = together(alone, cores)
    alone_s = time.perf_counter() - t0
    for n, code in codes.items():
        assert code == 0, f"separate run {n} failed ({alone[n][0] / 'snakemake.log'})"
    need = {n: set(audit(alone[n][1]["cache"])["keys"]) for n in configs}
    out = {"alone_s": alone_s, "need": {n: len(k) for n, k in need.items()},
           "shared_prompts": len(need["a"] & need["b"]), "union": len(need["a"] | need["b"]), "repeats": []}
    for r in range(repeats):
        cache = base / f"shared{r}" / "cache"
        runs = {n: (base / f"shared{r}" / n, config(c, engine, cache, lists)) for n, c in configs.items()}
        t0 = time.perf_counter()
        codes = together(runs, cores)
        seconds = time.perf_counter() - t0
        for n, code in codes.items():
            assert code == 0, f"shared run {n} (repeat {r}) failed ({runs[n][0] / 'snakemake.log'})"
        found = audit(cache)
        keys = found["keys"]
        ms = {n: manifests(runs[n][0]) for n in configs}
        computed = {n: sum(m["engine_calls"] for m in ms[n]) for n in configs}
        hits = {n: sum(m["cache_hits"] for m in ms[n]) for n in configs}
        seen = {n: sum(sum(m["cache_problems"].values()) for m in ms[n]) for n in configs}
        race = computed["a"] + computed["b"] - len(keys)
        files = {n: (cell_files(alone[n][0]), cell_files(runs[n][0])) for n in configs}
        differ = [f"{runs[n][0]}/results/{path}" for n, (sep, shared) in files.items()
                  for path in sorted(set(sep) | set(shared)) if sep.get(path) != shared.get(path)]
        compared = sum(len(shared) for _, shared in files.values())
        assert not found["damaged"], f"damaged records in the shared cache: {dict(found['damaged'])}"
        assert found["unindexed"] == 0, f"{found['unindexed']} shards without an index after both runs ended"
        assert not any(seen.values()), f"jobs reported cache problems: {seen}"
        assert set(keys) == need["a"] | need["b"], "the shared cache holds other prompts than the separate runs"
        assert sum(keys.values()) == computed["a"] + computed["b"], "a computed reply is missing or stored twice"
        assert race >= 0 and (cores > 1 or race <= out["shared_prompts"]), race
        out["repeats"].append({"seconds": seconds, "computed": computed, "hits": hits, "race": race,
                               "distinct": len(keys), "shards": found["shards"], "damaged": 0,
                               "compared": compared, "differ": differ})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", choices=["llamacpp", "instant"], default="llamacpp",
                    help="llamacpp: the embedded Gemma 3 270M; instant: no model")
    ap.add_argument("--lists", type=int, default=2, help="fine lists (and easy, hard pairs) of each config")
    ap.add_argument("--cores", type=int, default=1, help="Snakemake --cores of each run")
    ap.add_argument("--repeats", type=int, default=1, help="shared runs, each on a fresh cache")
    ap.add_argument("--pair", choices=["ab", "aa"], default="ab",
                    help="ab: the two configs; aa: config a twice (every prompt in both runs: the widest race window)")
    ap.add_argument("--workdir", default=None, help="where the runs go (default: a new temporary folder)")
    args = ap.parse_args()
    base = Path(args.workdir or tempfile.mkdtemp(prefix="shared-cache-"))
    if base.is_dir() and any(base.iterdir()):
        sys.exit(f"shared_cache: --workdir {base} is not empty; give a new or empty folder")
    try:
        got = measure(base, args.engine, args.lists, args.cores, args.repeats, args.pair)
    except AssertionError as err:
        sys.exit(f"shared_cache: check failed: {err}")
    print(f"\nconfigs {args.pair[0]} and {args.pair[1]}, engine {args.engine}, {args.lists} fine lists, "
          f"--cores {args.cores} per run, runs in {base}")
    print(f"prompts: a {got['need']['a']}, b {got['need']['b']}, both {got['shared_prompts']}, "
          f"distinct {got['union']}; separate runs (two at once) {got['alone_s']:.0f} s\n")
    print("| repeat | wall s | computed a | computed b | cache hits a | cache hits b | distinct | "
          "race (computed by both) | shards | damaged | files compared | differ |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, r in enumerate(got["repeats"]):
        print(f"| {i} | {r['seconds']:.0f} | {r['computed']['a']} | {r['computed']['b']} | {r['hits']['a']} | "
              f"{r['hits']['b']} | {r['distinct']} | {r['race']} | {r['shards']} | {r['damaged']} | "
              f"{r['compared']} | {len(r['differ'])} |")
    for r in got["repeats"]:
        for path in r["differ"]:
            print(f"differs from its separate run: {path}")
    if any(r["differ"] for r in got["repeats"]):
        sys.exit("shared_cache: replies differ from the separate runs (see above)")


if __name__ == "__main__":
    main()
