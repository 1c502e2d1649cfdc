"""A reduced kill campaign (benchmarks/chaos.py): ``engine: instant``,
DomainAuth's grid, 5 faults (driver or job, SIGKILL or SIGTERM, seeded) at
random moments with work pending; every restart completes the run with
results identical to an uninterrupted one and no reply stored twice beyond
one chunk per kill."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import chaos

K = 5


def test_kill_campaign_survives_every_fault(tmp_path):
    r = chaos.run_all(tmp_path, "instant", K, seed=3, max_delay=8.0, studies=("domainauth",))
    log = "\n".join(r["log"])
    assert r["kills"] == K, (r, log)
    assert r["unexpected_failures"] == 0, log
    assert r["differing"] == [], r["differing"]
    assert r["survived"] == K
    assert r["repeated_total"] <= r["chunk"] * K
    assert r["damaged_in_cache"] <= K  # at most a torn last line per kill, skipped by every reader
    # the comparison sees a changed byte (and a manifest differing in more than timing fields)
    metrics = tmp_path / "campaign" / "results" / "domainauth" / "report" / "metrics.tsv"
    metrics.write_text(metrics.read_text() + "x")
    assert chaos.differing(tmp_path / "reference", tmp_path / "campaign") == ["domainauth/report/metrics.tsv"]
