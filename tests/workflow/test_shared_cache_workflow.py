"""Two runs, one cache (benchmarks/shared_cache.py, whose measure()
this runs small): two Snakemake runs of different configs that share the
PointJudge fine cell's prompts, each in its own folder, pointed at one
``cache:`` and started at once, with ``engine: instant``. measure() asserts
both complete, no damaged record in any shard nor reported by any job, and
race = computed_a + computed_b - distinct prompts = the second copies in the
shards; it lists the cells' responses.jsonl and judgments.jsonl that differ
from separate runs with fresh caches (none here); the test checks its
figures against the prompts each config needs."""

import sys

from wfrun import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from shared_cache import measure


def test_two_runs_share_one_cache(tmp_path):
    got = measure(tmp_path, "instant", lists=1, cores=1, repeats=1)
    # a: point fine (10) + point bias (10) + list_score fine (1); b: point fine (10) + pair_score fine (17) +
    # pair_score pairs (2) + point pairs (4 domains); a and b share the point fine cell
    assert got["need"] == {"a": 21, "b": 33} and got["shared_prompts"] == 10 and got["union"] == 44
    (run,) = got["repeats"]
    assert run["distinct"] == 44 and run["damaged"] == 0 and run["differ"] == [] and run["compared"] == 14
    a, b = run["computed"]["a"], run["computed"]["b"]
    assert a + b - run["race"] == 44 and 0 <= run["race"] <= 10
    # each run either computed a prompt or read it from the cache (its own or the other's)
    assert a + run["hits"]["a"] == 21 and b + run["hits"]["b"] == 33
    assert run["hits"]["a"] + run["hits"]["b"] == 10 - run["race"]
