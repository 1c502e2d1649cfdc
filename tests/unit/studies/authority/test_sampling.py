"""Sampling invariants: one item per level, no duplicates, pair bounds, determinism."""

from collections import Counter

import pytest
from authbench.errors import SamplingError
from authbench.records import write_jsonl
from authbench.studies.authority.domains import Domain
from authbench.studies.authority.labels import coarse_level
from authbench.studies.authority.sampling import reuse_report, sample_all, sample_lists, sample_pairs

SAMPLING = dict(fine_lists=30, coarse_lists=20, easy_pairs=40, hard_pairs=40, easy_min_delta=5, hard_max_delta=2,
                anchors=5, bias_per_level=2, bias_per_category=3)


def corpus(per_level=(6, 5, 5, 5, 5, 5, 4, 3, 2, 1)):
    out = []
    for level, k in enumerate(per_level):
        for i in range(k):
            cat = "gov" if i == 0 and level % 3 == 0 else ""
            out.append(Domain(f"d{level}x{i}.com", "com", level, coarse_level(level), 1, cat, ""))
    return out


def test_lists_one_item_per_level_no_duplicates():
    sets = sample_all(corpus(), SAMPLING, seed=1)
    for inst in sets["fine"]:
        assert sorted(it["level"] for it in inst["items"]) == list(range(10))
        assert len({it["domain"] for it in inst["items"]}) == 10
        assert len(inst["anchors"]) == 5 and len(set(inst["anchors"])) == 5
        assert all(0 <= a < 10 for a in inst["anchors"])
    for inst in sets["coarse"]:
        assert sorted(it["coarse"] for it in inst["items"]) == list(range(5))
        assert len({it["domain"] for it in inst["items"]}) == 5
    assert len(sets["fine"]) == 30 and len(sets["coarse"]) == 20


def test_rare_levels_reused_only_after_pool_exhausted():
    lists = sample_lists(corpus(), "fine", 10, seed=3)
    report = {r["level"]: r for r in reuse_report({"fine": lists})}
    assert report[9] == {"setting": "fine", "level": 9, "slots": 10, "distinct": 1, "max_uses": 10}
    # level 8 has 2 domains: 10 slots are split exactly 5/5 by the reshuffled pool
    assert report[8]["distinct"] == 2 and report[8]["max_uses"] == 5
    assert report[0]["distinct"] == 6 and report[0]["max_uses"] == 2


def test_pair_difficulty_bounds_and_uniqueness():
    sets = sample_all(corpus(), SAMPLING, seed=2)
    easy = [p for p in sets["pairs"] if p["difficulty"] == "easy"]
    hard = [p for p in sets["pairs"] if p["difficulty"] == "hard"]
    assert len(easy) == 40 and len(hard) == 40
    for p in easy:
        a, b = p["items"]
        assert abs(a["level"] - b["level"]) >= 5
    for p in hard:
        a, b = p["items"]
        assert 0 < abs(a["level"] - b["level"]) <= 2
    keys = [frozenset(it["domain"] for it in p["items"]) for p in sets["pairs"]]
    assert len(keys) == len(set(keys))
    # position A is not always the lower level
    assert {p["items"][0]["level"] < p["items"][1]["level"] for p in easy} == {True, False}


def test_pairs_uniform_over_eligible_domain_pairs():
    """docs/deviations.md D8: pairs are drawn uniformly over the distinct unordered domain pairs that meet the
    bound, without repeats, neither per level pair nor per delta. Levels 0 and 5 hold 30 domains each, levels 6
    and 9 one each: the easy pairs (delta >= 5) are (0, 5) x 900, (0, 6) x 30 and (0, 9) x 30, so (0, 5) is
    900 / 960 = 93.75% of a uniform draw; a draw per level pair (or per delta: 5, 6, 9) would give it a third."""
    domains = corpus((30, 0, 0, 0, 0, 30, 1, 0, 0, 1))
    pairs = sample_pairs(domains, "easy", 480, 5, None, seed=0)
    level_pairs = Counter(tuple(sorted(it["level"] for it in p["items"])) for p in pairs)
    assert set(level_pairs) == {(0, 5), (0, 6), (0, 9)}
    assert 0.88 < level_pairs[(0, 5)] / 480 < 0.99
    # a domain recurs across pairs (level 6's single domain: about 480 x 30 / 960 = 15 times), never a pair
    uses = Counter(it["domain"] for p in pairs for it in p["items"])
    assert uses["d6x0.com"] > 1 and uses["d9x0.com"] > 1
    keys = [frozenset(it["domain"] for it in p["items"]) for p in pairs]
    assert len(set(keys)) == len(keys)
    # without replacement: asking for every eligible pair returns each exactly once
    every = sample_pairs(domains, "easy", 960, 5, None, seed=0)
    assert len({frozenset(it["domain"] for it in p["items"]) for p in every}) == 960
    # hard (0 < delta <= 2): only (5, 6) x 30 qualifies here, each pair once
    hard = sample_pairs(domains, "hard", 30, 1, 2, seed=0)
    assert {tuple(sorted(it["level"] for it in p["items"])) for p in hard} == {(5, 6)}
    assert len({frozenset(it["domain"] for it in p["items"]) for p in hard}) == 30


def test_too_few_pairs_is_an_error():
    tiny = corpus((1, 0, 0, 0, 0, 0, 0, 0, 0, 1))
    with pytest.raises(SamplingError, match="only 1 distinct pairs"):
        sample_pairs(tiny, "easy", 2, 5, None, seed=0)


def test_missing_level_is_an_error():
    with pytest.raises(SamplingError, match=r"level\(s\) \[9\]"):
        sample_lists(corpus((1,) * 9 + (0,)), "fine", 1, seed=0)


def test_bias_sample_levels_and_categories():
    sets = sample_all(corpus(), SAMPLING, seed=4)
    items = [inst["items"][0] for inst in sets["bias"]]
    per_level = {lv: sum(1 for it in items if it["level"] == lv and not it["category"]) for lv in range(10)}
    assert len({it["domain"] for it in items}) == len(items)
    assert all(1 <= per_level[lv] + sum(1 for it in items if it["level"] == lv and it["category"]) for lv in range(10))
    assert sum(1 for it in items if it["category"] == "gov") == 4  # all 4 gov domains (2 per level cap + 3 extra)


def test_deterministic_byte_identical(tmp_path):
    for run in ("a", "b"):
        sets = sample_all(corpus(), SAMPLING, seed=7)
        for name, rows in sets.items():
            write_jsonl(rows, tmp_path / f"{run}-{name}.jsonl")
    for name in ("fine", "coarse", "pairs", "bias"):
        assert (tmp_path / f"a-{name}.jsonl").read_bytes() == (tmp_path / f"b-{name}.jsonl").read_bytes()
    other = sample_all(corpus(), SAMPLING, seed=8)
    assert other["fine"] != sample_all(corpus(), SAMPLING, seed=7)["fine"]


def test_fine_and_coarse_draws_independent():
    a = sample_all(corpus(), SAMPLING, seed=5)
    b = sample_all(corpus(), {**SAMPLING, "coarse_lists": 3}, seed=5)
    assert a["fine"] == b["fine"] and a["pairs"] == b["pairs"]
