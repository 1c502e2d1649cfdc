"""Open PageRank fetch: API client against a loopback server, bulk file, domain lists.

Everything is offline: the "API" is tests/loopback.py on 127.0.0.1 answering in
the format of the official documentation; retries never sleep (the client's
sleep only records the waits).
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path

import pytest
from authbench.errors import FetchError, InputError
from authbench.fetch.cache import ProgressCache
from authbench.fetch.pagerank import (
    PAGERANK_COLUMNS,
    api_key_from_env,
    bulk_pagerank,
    fetch_openpagerank,
    read_domain_list,
    to_level,
    write_pagerank,
)
from authbench.net import HttpClient, RetryPolicy
from loopback import Loopback, Reply, Seen, jittered

KEY = "opr-T0P-s3cret-5a1t-0xC0FFEE"  # distinctive: searched for in every output
PATH = "/api/v1.0/getPageRank"

# domain -> (page_rank_integer, page_rank_decimal, rank) as the API reports them
KNOWN = {
    "google.com": (10, 10, "6"),
    "apple.com": (8, 7.63, "40"),
    "example.com": (6, 5.56, "118424"),
}


def entry(domain: str) -> dict:
    if domain.lower() in KNOWN:
        level, decimal, rank = KNOWN[domain.lower()]
        return {"status_code": 200, "error": "", "page_rank_integer": level,
                "page_rank_decimal": decimal, "rank": rank, "domain": domain}
    return {"status_code": 404, "error": "Domain not found", "page_rank_integer": 0,
            "page_rank_decimal": 0, "rank": None, "domain": domain}


def answer(domains: list[str]) -> Reply:
    return Reply(200, {"status_code": 200, "response": [entry(d) for d in domains],
                       "last_updated": "28th Mar 2026"})


def healthy(seen: Seen) -> Reply:
    return answer(seen.query.get("domains[]", []))


class Script:
    """Replies from a list first (a Reply or a handler), then the fallback handler."""

    def __init__(self, steps: list, fallback=healthy):
        self.steps = list(steps)
        self.fallback = fallback

    def __call__(self, seen: Seen) -> Reply:
        step = self.steps.pop(0) if self.steps else self.fallback
        return step(seen) if callable(step) else step


def make_client(retries: int = 2, timeout: float = 2.0, sleep=None) -> HttpClient:
    policy = RetryPolicy(retries=retries, backoff=0.01, max_backoff=30.0, timeout=timeout)
    return HttpClient("authbench-tests/1.0", policy, sleep=sleep or (lambda s: None))


def run(server: Loopback, domains, cache: ProgressCache, client: HttpClient | None = None, **kw):
    kw.setdefault("allow_http", True)  # the loopback server speaks http (fetch.pagerank.allow_http)
    return fetch_openpagerank(domains, client or make_client(), KEY, cache, url=server.url + PATH,
                              progress=False, **kw)


def asked(server: Loopback) -> list[list[str]]:
    return [s.query.get("domains[]", []) for s in server.seen]


def header(seen: Seen, name: str) -> str | None:
    return {k.lower(): v for k, v in seen.headers.items()}.get(name.lower())


def cache_keys(cache: ProgressCache) -> set[str]:
    return set(cache.load())


@pytest.fixture
def cache(tmp_path: Path) -> ProgressCache:
    return ProgressCache(tmp_path / "cache" / "opr.jsonl")


# --------------------------------------------------------------------------- #
# API: normal operation


def test_batches_of_100_in_input_order_with_key_header(cache):
    domains = [f"d{i:03d}.com" for i in range(227)] + ["google.com", "Apple.com", "example.com"]
    with Loopback(healthy) as s:
        out = run(s, domains, cache)
    assert [len(q) for q in asked(s)] == [100, 100, 30]
    assert [q for batch in asked(s) for q in batch] == [d.lower() for d in domains]
    assert all(seen.path == PATH and seen.method == "GET" for seen in s.seen)
    assert all(header(seen, "API-OPR") == KEY for seen in s.seen)
    assert [r["domain"] for r in out.rows] == [d.lower() for d in domains]
    assert out.stats == {"requested_batches": 3, "cached": 0, "answered": 230,
                         "per_domain_errors": 227, "failed": 0, "unexpected_entries": 0}
    apple = out.rows[-2]
    assert apple == {"domain": "apple.com", "page_rank": 8, "page_rank_decimal": 7.63, "rank": "40",
                     "status": "ok", "status_code": 200, "error": "", "source": "openpagerank_api"}
    assert len(cache_keys(cache)) == 230


def test_per_domain_error_keeps_page_rank_empty_and_is_cached(cache, tmp_path):
    with Loopback(healthy) as s:
        out = run(s, ["nope.zz", "google.com"], cache)
        again = run(s, ["nope.zz", "google.com"], cache)
    nope = out.rows[0]
    assert nope["status"] == "error" and nope["status_code"] == 404
    assert nope["error"] == "Domain not found"
    assert nope["page_rank"] is None and nope["page_rank_decimal"] is None and nope["rank"] is None
    assert out.stats["per_domain_errors"] == 1
    assert len(s.seen) == 1  # the rerun asked nothing: both domains (error included) are cached
    assert again.rows == out.rows and again.stats["cached"] == 2

    target = tmp_path / "out" / "pagerank.csv"
    write_pagerank(out.rows, target)
    lines = target.read_text(encoding="utf-8").splitlines()
    assert lines[0] == ",".join(PAGERANK_COLUMNS)
    assert lines[1] == "nope.zz,,,,error,404,Domain not found,openpagerank_api"
    assert lines[2] == "google.com,10,10.0,6,ok,200,,openpagerank_api"


def test_answer_entries_match_case_insensitively(cache):
    def shouting(seen: Seen) -> Reply:
        return answer([d.upper() for d in seen.query["domains[]"]])

    with Loopback(shouting) as s:
        out = run(s, ["Apple.com", "example.com"], cache)
    assert [(r["domain"], r["page_rank"]) for r in out.rows] == [("apple.com", 8), ("example.com", 6)]
    assert out.failed == []


def test_progress_bar_on_stderr_only_when_enabled(cache, capsys):
    with Loopback(healthy) as s:
        fetch_openpagerank(["google.com"], make_client(), KEY, cache, url=s.url + PATH, progress=True,
                           allow_http=True)
        first = capsys.readouterr()
        fetch_openpagerank(["apple.com"], make_client(), KEY, cache, url=s.url + PATH, progress=False,
                           allow_http=True)
        second = capsys.readouterr()
    assert "Open PageRank" in first.err and "1/1" in first.err
    assert first.out == "" and second.err == "" and second.out == ""


# --------------------------------------------------------------------------- #
# API: transient failures are retried by the client


def test_429_honours_retry_after(cache):
    waits: list[float] = []
    with Loopback(Script([Reply(429, "slow down", {"Retry-After": "7"})])) as s:
        out = run(s, ["google.com"], cache, client=make_client(sleep=waits.append))
    assert waits == [7.0]
    assert len(s.seen) == 2
    assert out.rows[0]["page_rank"] == 10 and out.failed == []


def test_500_then_success(cache):
    waits: list[float] = []
    with Loopback(Script([Reply(500, "oops")])) as s:
        out = run(s, ["apple.com"], cache, client=make_client(sleep=waits.append))
    assert jittered(waits, [0.01])
    assert len(s.seen) == 2
    assert out.rows[0]["page_rank"] == 8 and out.stats["failed"] == 0


def test_timeout_then_success(cache):
    waits: list[float] = []
    slow = Reply(200, {"status_code": 200, "response": []}, delay=0.6)
    with Loopback(Script([slow])) as s:
        out = run(s, ["example.com"], cache, client=make_client(timeout=0.2, sleep=waits.append))
    assert jittered(waits, [0.01])
    assert len(s.seen) == 2
    assert out.rows[0]["page_rank"] == 6 and out.rows[0]["page_rank_decimal"] == 5.56


def test_malformed_json_transient_is_recovered(cache):
    waits: list[float] = []
    with Loopback(Script([Reply(200, '{"status_code": 200, "respo')])) as s:
        out = run(s, ["google.com"], cache, client=make_client(sleep=waits.append))
    assert jittered(waits, [0.01])
    assert out.failed == [] and out.rows[0]["status"] == "ok"


def test_malformed_json_persistent_fails_the_batch_and_is_not_cached(cache):
    broken = Reply(200, "<html>gateway</html>")
    with Loopback(lambda seen: broken) as s:
        out = run(s, ["google.com", "apple.com"], cache)
    assert len(s.seen) == 3  # 1 + 2 retries
    assert [f["domain"] for f in out.failed] == ["google.com", "apple.com"]
    assert all("malformed JSON" in f["reason"] for f in out.failed)
    assert out.rows == [] and out.stats["failed"] == 2 and out.stats["answered"] == 0
    assert cache_keys(cache) == set()


def test_top_level_error_fails_batch_and_continues(cache):
    bad = Reply(200, {"status_code": 500, "error": "temporarily unavailable", "response": []})
    with Loopback(Script([bad])) as s:
        out = run(s, ["google.com", "apple.com", "example.com"], cache, batch_size=2)
    assert asked(s) == [["google.com", "apple.com"], ["example.com"]]
    assert out.failed == [
        {"domain": "google.com", "reason": "API status_code 500: temporarily unavailable"},
        {"domain": "apple.com", "reason": "API status_code 500: temporarily unavailable"},
    ]
    assert [r["domain"] for r in out.rows] == ["example.com"]
    assert cache_keys(cache) == {"example.com"}


def test_non_retryable_4xx_fails_batch(cache):
    with Loopback(lambda seen: Reply(401, {"status": False, "error": "Invalid API key"})) as s:
        out = run(s, ["google.com"], cache)
    assert len(s.seen) == 1
    assert out.failed == [{"domain": "google.com", "reason": f"{s.url}{PATH}: HTTP 401"}]
    assert cache_keys(cache) == set()


# --------------------------------------------------------------------------- #
# API: partial answers, interruption and resume


def test_partial_batch_then_rerun_asks_only_the_missing_domain(cache):
    def partial(seen: Seen) -> Reply:
        kept = [d for d in seen.query["domains[]"] if d != "apple.com"]
        return answer(kept + ["stranger.org"])

    with Loopback(partial) as s:
        out = run(s, ["google.com", "apple.com", "example.com"], cache)
    assert out.failed == [{"domain": "apple.com", "reason": "missing from answer"}]
    assert out.stats["unexpected_entries"] == 1
    assert [r["domain"] for r in out.rows] == ["google.com", "example.com"]
    assert cache_keys(cache) == {"google.com", "example.com"}

    with Loopback(healthy) as s2:
        again = run(s2, ["google.com", "apple.com", "example.com"], cache)
    assert asked(s2) == [["apple.com"]]
    assert [r["domain"] for r in again.rows] == ["google.com", "apple.com", "example.com"]
    assert again.rows[1]["page_rank"] == 8
    assert again.stats["cached"] == 2 and again.stats["answered"] == 1 and again.failed == []


class Interrupted(Exception):
    pass


def test_interrupted_fetch_resumes_without_asking_finished_domains(cache):
    domains = [f"site{i}.com" for i in range(10)]
    calls = {"n": 0}

    def dies_after_two(seen: Seen) -> Reply:
        calls["n"] += 1
        return healthy(seen) if calls["n"] <= 2 else Reply(503, "down")

    def interrupt(seconds: float) -> None:
        raise Interrupted  # the job is killed while waiting to retry batch 3

    with Loopback(dies_after_two) as s, pytest.raises(Interrupted):
        run(s, domains, cache, client=make_client(sleep=interrupt), batch_size=2)
    finished = {d for batch in asked(s)[:2] for d in batch}
    assert finished == set(domains[:4])
    assert cache_keys(cache) == finished

    with Loopback(healthy) as s2:
        out = run(s2, domains, cache, batch_size=2)
    again = [d for batch in asked(s2) for d in batch]
    assert again == domains[4:]
    assert not finished & set(again)
    assert [r["domain"] for r in out.rows] == domains
    assert out.stats["cached"] == 4 and out.stats["requested_batches"] == 3


def test_server_failing_for_good_records_failed_and_rerun_asks_only_those(cache):
    domains = [f"site{i}.com" for i in range(6)]
    calls = {"n": 0}

    def dies_after_one(seen: Seen) -> Reply:
        calls["n"] += 1
        return healthy(seen) if calls["n"] == 1 else Reply(503, "down")

    with Loopback(dies_after_one) as s:
        out = run(s, domains, cache, client=make_client(retries=1), batch_size=2)
    assert len(s.seen) == 1 + 2 * 2  # batch 1 ok; batches 2 and 3 tried twice each
    assert [f["domain"] for f in out.failed] == domains[2:]
    assert {f["reason"] for f in out.failed} == {f"{s.url}{PATH}: HTTP 503 after 2 attempts"}
    assert out.stats["failed"] == 4 and out.stats["requested_batches"] == 3

    with Loopback(healthy) as s2:
        again = run(s2, domains, cache, batch_size=2)
    assert [d for batch in asked(s2) for d in batch] == domains[2:]
    assert again.failed == [] and len(again.rows) == 6


# --------------------------------------------------------------------------- #
# API: the key never leaks


def test_api_key_appears_in_no_file_log_or_error(cache, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    echo = Reply(200, {"status": False, "error": f"Invalid API key {KEY}"})
    entry_echo = Reply(200, {"status_code": 200, "response": [
        {"status_code": 403, "error": f"key {KEY} over quota", "domain": "apple.com"}]})
    with Loopback(Script([Reply(429, "", {"Retry-After": "0"}), echo, entry_echo])) as s:
        out = run(s, ["google.com", "apple.com"], cache, batch_size=1)
    assert header(s.seen[0], "API-OPR") == KEY  # it was sent, in the header only
    assert all(KEY not in "&".join(q) for q in asked(s))
    assert out.failed == [{"domain": "google.com", "reason": "API error: Invalid API key ***"}]
    assert out.rows[0]["error"] == "key *** over quota"
    write_pagerank(out.rows, tmp_path / "pagerank.csv")

    with Loopback(lambda seen: Reply(401, f"bad key {KEY}")) as s2, pytest.raises(FetchError) as err:
        make_client().get_json(s2.url + PATH + "?domains[]=google.com", headers={"API-OPR": KEY})
    assert "HTTP 401" in str(err.value) and KEY not in str(err.value)

    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"opr.jsonl", "pagerank.csv"}
    assert all(KEY.encode() not in p.read_bytes() for p in files)
    assert "retry 1/2" in caplog.text and "Open PageRank batch 1/2" in caplog.text  # logging did happen
    assert KEY not in caplog.text
    assert all(KEY not in f["reason"] for f in out.failed)


def test_batch_size_over_100_is_rejected(cache):
    with Loopback(healthy) as s:
        with pytest.raises(ValueError, match="limit of 100"):
            run(s, ["google.com"], cache, batch_size=101)
        with pytest.raises(ValueError, match="positive"):
            run(s, ["google.com"], cache, batch_size=0)
    assert s.seen == []


def test_api_key_from_env(monkeypatch):
    monkeypatch.delenv("OPR_TEST_KEY", raising=False)
    with pytest.raises(FetchError, match=r"OPR_TEST_KEY is not set .*'fetch\.pagerank\.api_key_env'.*"
                                         r"OPR_TEST_KEY=<your key> make run CONFIG="):
        api_key_from_env("OPR_TEST_KEY")
    monkeypatch.setenv("OPR_TEST_KEY", "   ")
    with pytest.raises(FetchError, match="OPR_TEST_KEY"):
        api_key_from_env("OPR_TEST_KEY")
    monkeypatch.setenv("OPR_TEST_KEY", KEY)
    assert api_key_from_env("OPR_TEST_KEY") == KEY


# --------------------------------------------------------------------------- #
# bulk file

BULK = (
    '"Rank","Domain","Open Page Rank"\n'
    '"1","fonts.googleapis.com","10.00"\n'
    '"2","www.facebook.com","10.00"\n'
    '"3","facebook.com","9.80"\n'
    '"40","apple.com","7.63"\n'
    '"1200","five.com","5.99"\n'
    '"1300","half.org","5.50"\n'
    '"1400","low.net","5.49"\n'
    '"1500","bbc.co.uk","6.01"\n'
    '"1600","shop.bbc.co.uk","2.00"\n'
)


@pytest.fixture
def bulk(tmp_path: Path) -> Path:
    path = tmp_path / "top10milliondomains.csv"
    path.write_text(BULK, encoding="utf-8")
    return path


def levels(outcome) -> dict:
    return {r["domain"]: r["page_rank"] for r in outcome.rows}


def test_to_level_rules():
    assert [to_level(v, "floor") for v in ("5.99", "5.50", "5.49", "10.00", "0.00")] == [5, 5, 5, 10, 0]
    assert [to_level(v, "round") for v in ("5.99", "5.50", "5.49", "10.00", "0.00")] == [6, 6, 5, 10, 0]
    assert to_level("7.63") == 8  # default agrees with the API: decimal 7.63 -> page_rank_integer 8


def test_bulk_floor_and_round(bulk):
    wanted = ["five.com", "half.org", "low.net", "https://www.apple.com/x", "facebook.com", "bbc.co.uk"]
    floor = bulk_pagerank(bulk, wanted, rounding="floor")
    rounded = bulk_pagerank(bulk, wanted)
    assert levels(floor) == {"five.com": 5, "half.org": 5, "low.net": 5, "apple.com": 7,
                             "facebook.com": 10, "bbc.co.uk": 6}
    assert levels(rounded) == {"five.com": 6, "half.org": 6, "low.net": 5, "apple.com": 8,
                               "facebook.com": 10, "bbc.co.uk": 6}
    apple = rounded.rows[3]
    assert apple == {"domain": "apple.com", "page_rank": 8, "page_rank_decimal": 7.63, "rank": "40",
                     "status": "ok", "status_code": None, "error": "", "source": "bulk:top10milliondomains.csv"}
    assert rounded.rows[4]["rank"] == "2"  # www.facebook.com (better ranked) wins over facebook.com
    assert rounded.stats["duplicate_rows"] == 1 and rounded.stats["rows_read"] == 9


def test_bulk_missing_and_invalid_domains(bulk):
    out = bulk_pagerank(bulk, ["missing.com", "googleapis.com", "10.0.0.1", "apple.com", "Apple.com"])
    assert [(r["domain"], r["status"], r["error"], r["page_rank"]) for r in out.rows] == [
        ("missing.com", "error", "not in bulk file", None),
        ("googleapis.com", "error", "not in bulk file", None),  # only a subdomain row exists
        ("apple.com", "ok", "", 8),
    ]
    assert out.failed == [{"domain": "10.0.0.1", "reason": "not a registered domain (ip_host)"}]
    assert out.stats["answered"] == 1 and out.stats["per_domain_errors"] == 2 and out.stats["failed"] == 1


def test_bulk_all_rows(bulk):
    out = bulk_pagerank(bulk, None, rounding="floor")
    assert levels(out) == {"facebook.com": 10, "apple.com": 7, "five.com": 5, "half.org": 5,
                           "low.net": 5, "bbc.co.uk": 6}
    assert out.stats["subdomain_rows"] == 2 and out.stats["duplicate_rows"] == 1
    assert all(r["status"] == "ok" for r in out.rows)


@pytest.mark.parametrize("bad_line, where", [
    ('"4","x.com","high"\n', "line 4, column 'Open Page Rank'"),
    ('"4","x.com","11.00"\n', "line 4, column 'Open Page Rank'"),
    ('"four","x.com","1.00"\n', "line 4, column 'Rank'"),
    ('"4","x.com"\n', "line 4: 2 fields, header has 3"),
    ('"4","x.com","1.00","extra"\n', "line 4: 4 fields, header has 3"),
])
def test_bulk_bad_row_names_file_line_column(tmp_path, bad_line, where):
    lines = BULK.splitlines(keepends=True)
    path = tmp_path / "top.csv"
    path.write_text("".join(lines[:3]) + bad_line + "".join(lines[3:]), encoding="utf-8")
    with pytest.raises(InputError) as err:
        bulk_pagerank(path, ["apple.com"])
    assert str(path) in str(err.value) and where in str(err.value)


def test_bulk_bad_header_and_bytes(tmp_path):
    no_score = tmp_path / "a.csv"
    no_score.write_text('"Rank","Domain"\n"1","a.com"\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 1: missing column"):
        bulk_pagerank(no_score, None)
    latin = tmp_path / "b.csv"
    latin.write_bytes(BULK.encode() + b'"9","caf\xe9.com","1.00"\n')
    with pytest.raises(InputError, match="line 11, byte 9: bytes that are not UTF-8"):
        bulk_pagerank(latin, ["apple.com"])
    with pytest.raises(ValueError, match="rounding"):
        bulk_pagerank(latin, None, rounding="ceil")


def test_write_pagerank_is_comma_separated_with_exact_columns(bulk, tmp_path):
    out = bulk_pagerank(bulk, ["apple.com", "missing.com"])
    target = tmp_path / "pr.csv"
    write_pagerank(out.rows, target)
    with open(target, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == PAGERANK_COLUMNS
    assert rows[0]["page_rank"] == "8" and rows[0]["page_rank_decimal"] == "7.63"
    assert rows[1] == {"domain": "missing.com", "page_rank": "", "page_rank_decimal": "", "rank": "",
                       "status": "error", "status_code": "", "error": "not in bulk file",
                       "source": "bulk:top10milliondomains.csv"}
    assert not (tmp_path / "pr.csv.tmp").exists()


# --------------------------------------------------------------------------- #
# domain lists


def test_read_domain_list_tsv(tmp_path):
    path = tmp_path / "list.tsv"
    path.write_text("id\tDomain\tnote\n1\twww.Example.com\tx\n2\thttp://sub.example.com/p\ty\n"
                    "3\t10.0.0.1\tz\n4\tbbc.co.uk\t\n\n5\t\t\n6\tlocalhost\t\n", encoding="utf-8")
    domains, drops = read_domain_list(path)
    assert domains == ["example.com", "bbc.co.uk"]
    assert drops == {"duplicate": 1, "ip_host": 1, "unparsable_url": 1, "no_registered_domain": 1}


def test_read_domain_list_csv(tmp_path):
    path = tmp_path / "list.csv"
    path.write_text('\ufeff"domain","why"\n"https://a.example.org/x?y=1,2","q"\nb.org,r\n', encoding="utf-8")
    assert read_domain_list(path) == (["example.org", "b.org"], {})


def test_read_domain_list_plain_urls(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("https://news.bbc.co.uk/a\nwww.python.org\n\n   \n[::1]\nhttp://exa mple.com\n"
                    "PYTHON.org/about\n", encoding="utf-8")
    domains, drops = read_domain_list(path)
    assert domains == ["bbc.co.uk", "python.org"]
    assert drops == {"ip_host": 1, "unparsable_url": 1, "duplicate": 1}


@pytest.mark.parametrize("content, where", [
    (b"", "line 1: the file is empty"),
    (b" \n\n", "line 1: the file is empty"),
    (b"a.com\nb\xff.com\n", "line 2, byte 2: bytes that are not UTF-8"),
    (b"url,score\nhttp://a.com,5\n", "line 1: the header has no 'domain' column"),
    (b"a.com\t5\nb.com\t6\n", "line 1: the header has no 'domain' column"),
    (b"domain\ta\na.com\t1\nb.com\t2\t3\n", "line 3: 3 fields, header has 2"),
])
def test_read_domain_list_bad_files(tmp_path, content, where):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        read_domain_list(path)
    assert str(path) in str(err.value) and where in str(err.value)
