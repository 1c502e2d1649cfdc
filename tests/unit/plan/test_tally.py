"""Tallying jobs (authbench.plan.tally, batches): exact deduplication within
and across cells, models that share a history, the sample and its
extrapolation, slot-decoding steps, and an AuthorityBench batch's prompts,
identities and sending order against the prompts the cells render."""

from pathlib import Path

import pytest

from authbench.config import GenerateConfig
from authbench.plan import TokenCounter
from authbench.cells.planned import PlanJob, PromptBatch
from authbench.studies.authority.plan import ItemBatch
from authbench.plan.count import CharTokens
from authbench.plan.replies import Length
from authbench.plan.tally import Dedup, ModelContext, TokenMemo, batch_signature, choice_steps, tally_job

ROOT = Path(__file__).resolve().parents[3]
CHARS = CharTokens("test")


def _ctx(name="m", length=None, tries=None, slots=False):
    counter = TokenCounter("chars", CHARS, False)
    return ModelContext(name, counter, (2, 0), slots,
                        length or (lambda kind, fmt, n, c, cap: Length(5.0, 7.0, "test")), tries or {})


def _job(prompts, cell="c", cap=8, seed=0, model="m", kind="judge", perplexity=False):
    batch = PromptBatch([(p, "free", 1) for p in prompts], GenerateConfig(max_tokens=cap, seed=seed), False, cell)
    return PlanJob("domainauth", model, cell, kind, [batch], perplexity=perplexity)


def _tally(job, dedup, memo, ctx, sample=None):
    news = dedup.step([(job.model, batch_signature(b), b.keys) for b in job.batches])
    pending = tally_job(job, news, ctx, memo, sample, 13)
    memo.count()
    return pending.finish(memo)


def test_dedup_within_and_across_cells_and_reuse_in_sending_order():
    dedup, memo, ctx = Dedup(), TokenMemo(), _ctx()
    a, b = "a" * 40 + "x" * 8, "a" * 40 + "y" * 8  # 12 characters/4-tokens each, 10 in common
    t = _tally(_job([b, a, a]), dedup, memo, ctx)
    # 3 requests, 2 distinct; sent sorted a, b: a reuses 0, b reuses 10 (min(common 10, held 12, 11), blocks of 2)
    assert (t.requests, t.unique, t.counted) == (3, 2, 2)
    assert (t.prompt.total, t.reused.total, t.evaluated.total, t.prompt.var) == (24, 10, 14, 0.0)
    assert (t.completion_budget, t.completion, t.completion_p95, t.decoded) == (16, 10, 14, 10)  # 2 x (8, 5, 7)
    again = _tally(_job([a], cell="d"), dedup, memo, ctx)
    assert (again.requests, again.unique, again.prompt.total) == (1, 0, 0)  # the cache serves it
    other_seed = _tally(_job([a], cell="e", seed=1), dedup, memo, ctx)
    assert other_seed.unique == 1  # another seed is another cache key (knowledge tries)


def test_the_predecessor_is_the_previous_unique_request():
    dedup, memo, ctx = Dedup(), TokenMemo(), _ctx()
    _tally(_job(["a" * 40 + "b" * 8]), dedup, memo, ctx)  # asked before: the cache serves it
    t = _tally(_job(["a" * 40 + "b" * 8, "a" * 40 + "c" * 8, "z" * 48], cell="d"), dedup, memo, ctx)
    # sent: "a..c" then "z...": "a..c" is first sent, so it reuses nothing (its sorted neighbour "a..b" is cached)
    assert (t.unique, t.reused.total) == (2, 0)


def test_models_with_the_same_history_share_the_seen_keys_and_then_part():
    dedup = Dedup()
    shared = _job(["p1", "p2"]).batches[0]  # one group: every model's cell shares the batch
    jobs = [PlanJob("domainauth", m, f"{m}/c", "judge", [shared.using(shared.generate)]) for m in ("x", "y")]
    news = dedup.step([(j.model, batch_signature(j.batches[0]), j.batches[0].keys) for j in jobs])
    assert news[0] is news[1] and news[0].count == 2  # computed once
    # x goes on alone; y then asks p1 again (served) and p3 (new): x's step must not leak into y
    x = dedup.step([("x", batch_signature(b), b.keys) for b in _job(["p3"], model="x").batches])
    y = dedup.step([("y", batch_signature(b), b.keys) for b in _job(["p1", "p3"], model="y").batches])
    assert x[0].count == 1 and y[0].count == 1 and y[0].mask.tolist() == [False, True]


def test_a_sample_extrapolates_with_an_interval():
    dedup, memo, ctx = Dedup(), TokenMemo(), _ctx()
    prompts = [f"{i:04d}" + "w" * (4 * (i % 7)) for i in range(200)]  # 1 + i % 7 tokens each
    exact = _tally(_job(prompts), Dedup(), TokenMemo(), ctx)
    assert exact.prompt.total == sum(1 + i % 7 for i in range(200)) and exact.prompt.var == 0
    sampled = _tally(_job(prompts), dedup, memo, ctx, sample=40)
    assert sampled.counted == 40 and sampled.unique == 200
    lo, hi = sampled.prompt.interval
    assert sampled.prompt.var > 0 and lo <= exact.prompt.total <= hi


def test_tries_scale_a_retried_step():
    ctx = _ctx(tries={"rerank": 1.5})
    t = _tally(_job(["a" * 8, "b" * 8], kind="rerank"), Dedup(), TokenMemo(), ctx)
    assert (t.prompt.total, t.sent, t.completion) == (6.0, 3.0, 15.0)  # 2 x 2 tokens x 1.5; 2 x 5 x 1.5


def test_perplexity_texts_count_whole_without_reply():
    t = _tally(_job(["a" * 40, "a" * 44], perplexity=True), Dedup(), TokenMemo(), _ctx())
    assert (t.unique, t.prompt.total, t.perplexity.total, t.reused.total, t.completion_budget) == (2, 0, 21, 0, 0)


@pytest.mark.parametrize("fmt, n, steps", [
    ("score", None, 1),         # one score digit
    ("pair_choice", 2, 1),      # A or B
    ("ranking", 10, 9),         # the tenth id is the one left
    ("ranking", 5, 4),
    ("yes_no", None, 1),
])
def test_slot_decoding_steps(fmt, n, steps):
    assert choice_steps(fmt, n) == steps


def test_slot_decoding_counts_steps_not_completion_tokens():
    batch = PromptBatch([("q", "pair_choice", 2)], GenerateConfig(max_tokens=8), True, "c")
    job = PlanJob("domainauth", "m", "c", "judge", [batch])
    ctx = _ctx(slots=True)
    t = _tally(job, Dedup(), TokenMemo(), ctx)
    assert (t.choice_steps, t.decoded) == (1, 0)


def _instances():
    items = [{"domain": d, "level": k} for k, d in enumerate(["b.org", "a.com", "c.net", "a.co"])]
    return [{"instance_id": "fine-0", "items": items, "anchors": [0, 1]},
            {"instance_id": "fine-1", "items": items[::-1], "anchors": [2]}]


@pytest.mark.parametrize("judge, setting", [("pair_rank", "fine"), ("point", "fine"), ("list_rank", "coarse")])
def test_an_item_batch_renders_the_cells_prompts_in_their_sending_order(judge, setting):
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.judges import judge_of
    from authbench.studies.authority.requests import build_requests

    template = load_template(ROOT / "resources" / "prompts" / "domainauth" / f"{judge}_wo_text.yaml")
    instances = _instances()
    built = build_requests(judge, setting, instances, template, 13)
    batch = ItemBatch(template, judge, instances, judge_of(judge).calls(setting, instances, 13), GenerateConfig(),
                      False, "g")
    prompts = [batch.prompt(i) for i in range(len(batch))]
    assert prompts == [r["prompt"] for r in built]
    assert [prompts[i] for i in batch.order()] == sorted(prompts)
    same = {(a, b) for a in range(len(batch)) for b in range(len(batch)) if prompts[a] == prompts[b]}
    ids = batch.identities()
    assert same == {(a, b) for a in range(len(batch)) for b in range(len(batch)) if ids[a] == ids[b]}
