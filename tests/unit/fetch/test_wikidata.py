"""Wikidata sitelink fetcher against a loopback emulation of the real Action API.

The fake answers in Wikidata's shapes (checked against Wikibase's GetEntities,
EntityByTitleHelper, ResultBuilder::addMissingEntity and SearchEntities):
found items keyed by id with ``{"type", "id", "sitelinks": {site: {"site",
"title", "badges"}}}``; missing titles keyed ``"-1"``, ``"-2"``... with
``{"site", "title", "missing": ""}`` (listed first, as the API adds them first);
missing ids keyed by the id with ``{"id", "missing": ""}``; merged items with
``"redirects": {"from", "to"}``; maxlag as HTTP 200 + ``{"error": {"code":
"maxlag", "lag": n}}`` + ``Retry-After``; wbsearchentities as ``{"searchinfo",
"search": [{"id", "title", "pageid", "display", "repository", "url",
"concepturi", "label", "match": {"type", "language", "text"}}], "success": 1}``.
"""

from __future__ import annotations

import json

import pytest
from authbench.fetch.cache import ProgressCache
from authbench.fetch.entity_lists import write_entities
from authbench.fetch.wikidata import SitelinkOutcome, exact_search_hits, fetch_sitelinks, normalize_title, title_for
from authbench.net import HttpClient, RetryPolicy
from loopback import Loopback, Reply, Seen, jittered

UA = "authbench-tests/1.0 (https://example.org/authbench; research@example.org)"
RETRIES = 2


# ----------------------------------------------------------------- fake Wikidata


def item(label: str, n_links: int, *, enwiki: str | None = "", aliases: tuple[str, ...] = ()) -> dict:
    """An item with ``n_links`` sitelinks; enwiki title = label unless given/None."""
    sites = {}
    if enwiki is not None:
        sites["enwiki"] = enwiki or label
    extra = ["dewiki", "frwiki", "enwikiquote", "commonswiki", "eswiki", "itwiki", "jawiki", "plwiki", "ruwiki", "zhwiki"]
    for site in extra[: n_links - len(sites)]:
        sites[site] = f"{label} ({site})"
    assert len(sites) == n_links
    return {"label": label, "aliases": list(aliases), "sitelinks": sites}


class FakeWikidata:
    """Handler for Loopback: a tiny knowledge base behind wbgetentities/wbsearchentities."""

    def __init__(self, items: dict[str, dict], redirects: dict[str, str] | None = None):
        self.items = items
        self.redirects = redirects or {}
        self.faults: list[Reply] = []    # served first, one per request, whatever was asked
        self.omit: set[str] = set()  # ids/titles silently left out of answers (partial batch)
        self.die_after: int | None = None   # after this many good answers: HTTP 503 for ever
        self.good = 0

    def __call__(self, req: Seen) -> Reply:
        if self.faults:
            return self.faults.pop(0)
        if self.die_after is not None and self.good >= self.die_after:
            return Reply(503, "Service Unavailable")
        self.good += 1
        q = {k: v[0] for k, v in req.query.items()}
        assert q["format"] == "json"
        if q["action"] == "wbsearchentities":
            return Reply(200, self.search(q))
        assert q["action"] == "wbgetentities" and q["props"] == "sitelinks"
        if "ids" in q:
            return Reply(200, {"entities": self.by_ids(q["ids"].split("|")), "success": 1})
        return Reply(200, {"entities": self.by_titles(q["sites"], q["titles"].split("|")), "success": 1})

    def entity(self, qid: str) -> dict:
        links = {s: {"site": s, "title": t, "badges": []} for s, t in self.items[qid]["sitelinks"].items()}
        return {"type": "item", "id": qid, "sitelinks": links}

    def by_ids(self, ids: list[str]) -> dict:
        out = {}
        for asked in ids:
            if asked in self.omit:
                continue
            target = self.redirects.get(asked, asked)
            if target in self.items:
                out[asked] = self.entity(target)
                if target != asked:
                    out[asked]["redirects"] = {"from": asked, "to": target}
            else:
                out[asked] = {"id": asked, "missing": ""}
        return out

    def by_titles(self, site: str, titles: list[str]) -> dict:
        table = {(s, t): qid for qid, it in self.items.items() for s, t in it["sitelinks"].items()}
        found, missing = [], {}
        for title in titles:
            if title in self.omit:
                continue
            qid = table.get((site, title.strip().replace("_", " ")))  # exact, like the sitelink table
            if qid is None:
                missing[str(-len(missing) - 1)] = {"site": site, "title": title, "missing": ""}
            elif qid not in found:
                found.append(qid)
        return {**missing, **{qid: self.entity(qid) for qid in found}}

    def search(self, q: dict) -> dict:
        text, limit = q["search"].casefold(), int(q["limit"])
        exact, prefix = [], []
        for qid, it in self.items.items():
            for kind, term in [("label", it["label"])] + [("alias", a) for a in it["aliases"]]:
                if term.casefold().startswith(text):
                    (exact if term.casefold() == text else prefix).append((qid, kind, term))
                    break
        hits = []
        for qid, kind, term in (exact + prefix)[:limit]:
            hit = {
                "id": qid, "title": qid, "pageid": int(qid[1:]) + 100,
                "display": {"label": {"value": self.items[qid]["label"], "language": "en"}},
                "repository": "wikidata", "url": f"//www.wikidata.org/wiki/{qid}",
                "concepturi": f"http://www.wikidata.org/entity/{qid}", "label": self.items[qid]["label"],
                "match": {"type": kind, "language": "en", "text": term},
            }
            if kind == "alias":
                hit["aliases"] = [term]
            hits.append(hit)
        body = {"searchinfo": {"search": q["search"]}, "search": hits, "success": 1}
        if len(exact + prefix) > limit:
            body["search-continue"] = limit
        return body


def maxlag_reply(retry_after: str | None = "4", lag: float = 3) -> Reply:
    body = {"error": {"code": "maxlag", "info": f"Waiting for 10.64.48.35: {lag} seconds lagged",
                      "host": "10.64.48.35", "lag": lag, "type": "db",
                      "*": "See https://www.wikidata.org/w/api.php for API usage."},
            "servedby": "mw1234"}
    headers = {"MediaWiki-API-Error": "maxlag", "X-Database-Lag": str(lag)}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    return Reply(200, body, headers)


KB = {
    "Q64": item("Berlin", 9),
    "Q60": item("New York City", 8, aliases=("NYC",)),
    "Q1299": item("The Beatles", 7),
    "Q2": item("Earth", 10),
    "Q308": item("Mercury", 6, enwiki="Mercury (planet)"),
    "Q925": item("Mercury", 5, enwiki="Mercury (element)"),
    "Q42": item("Douglas Adams", 4),
    "Q5": item("Gorillaz", 3, enwiki="Gorillaz (band)"),
    "Q2370": item("C#", 2, enwiki="C Sharp (programming language)"),
    "Q1": item("Beyoncé", 5),
}


# --------------------------------------------------------------------- helpers


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(sleeps) -> HttpClient:
    return HttpClient(UA, RetryPolicy(retries=RETRIES, backoff=0.01, max_backoff=10.0, timeout=0.4), sleep=sleeps.append)


def ents(*names: str, **qids: str) -> list[dict]:
    return [{"name": n, "question": f"Q about {n}", "reference": [f"ref {n}"], "qid": qids.get(n.replace(" ", "_"))}
            for n in names]


@pytest.fixture(scope="module")
def server():
    """One loopback server for the module (each shutdown costs ~0.5 s); tests swap its handler."""
    with Loopback(lambda req: Reply(500, "no handler")) as s:
        yield s


@pytest.fixture
def run(server):
    def _run(fake, entities, client, cache_path, **kw) -> tuple[SitelinkOutcome, list[Seen]]:
        server.handler = fake
        server.seen.clear()
        out = fetch_sitelinks(entities, client, ProgressCache(cache_path), api_url=server.url + "/w/api.php",
                              progress=kw.pop("progress", False), **kw)
        return out, list(server.seen)
    return _run


def q(req: Seen) -> dict[str, str]:
    return {k: v[0] for k, v in req.query.items()}


def asked_titles(seen: list[Seen]) -> list[list[str]]:
    return [q(r)["titles"].split("|") for r in seen if "titles" in r.query]


def cached(path) -> dict[str, dict]:
    return ProgressCache(path).load()


# ------------------------------------------------------------------ resolution


def test_titles_batched_by_50_and_sitelinks_counted(run, client, tmp_path):
    kb = {f"Q{1000 + i}": item(f"Entity {i:03d}", i % 9 + 1) for i in range(120)}
    names = [f"Entity {i:03d}" for i in range(120)]
    out, seen = run(FakeWikidata(kb), ents(*names), client, tmp_path / "c.jsonl")

    titles = asked_titles(seen)
    assert [len(t) for t in titles] == [50, 50, 20]
    assert titles[0] == names[:50] and titles[2] == names[100:]
    first = q(seen[0])
    assert {k: first[k] for k in ("action", "sites", "props", "format", "maxlag")} == {
        "action": "wbgetentities", "sites": "enwiki", "props": "sitelinks", "format": "json", "maxlag": "5"}
    assert "normalize" not in first  # the API refuses normalize with more than one title
    assert [r["question_entity"] for r in out.rows] == names
    assert [r["popularity"] for r in out.rows] == [i % 9 + 1 for i in range(120)]
    assert {r["resolved_by"] for r in out.rows} == {"title"}
    assert out.rows[5]["qid"] == "Q1005" and out.rows[5]["wiki_title"] == "Entity 005"
    assert out.unresolved == [] and out.failed == []
    assert out.stats["requests"] == {"wbgetentities": 3}
    assert len(cached(tmp_path / "c.jsonl")) == 120


def test_count_includes_every_site_not_only_wikipedias(run, client, tmp_path):
    out, _ = run(FakeWikidata(KB), ents("Earth"), client, tmp_path / "c.jsonl")
    assert out.rows[0]["popularity"] == 10  # enwiki, dewiki, ..., enwikiquote, commonswiki: all 10 keys


def test_title_normalized_client_side_first_letter_and_underscores(run, client, tmp_path):
    out, seen = run(FakeWikidata(KB), ents("berlin", "New_York_City", "the Beatles"), client, tmp_path / "c.jsonl")
    assert asked_titles(seen) == [["Berlin", "New York City", "The Beatles"]]
    assert [(r["question_entity"], r["qid"], r["wiki_title"]) for r in out.rows] == [
        ("berlin", "Q64", "Berlin"), ("New_York_City", "Q60", "New York City"), ("the Beatles", "Q1299", "The Beatles")]


def test_qid_input_uses_ids_follows_merged_items_and_reports_missing(run, client, tmp_path):
    fake = FakeWikidata(KB, redirects={"Q4": "Q42"})
    entities = ents("Berlin city", "Adams", "Gone", Berlin_city="Q64", Adams="Q4", Gone="Q999999")
    out, seen = run(fake, entities, client, tmp_path / "c.jsonl")

    assert [q(r)["ids"] for r in seen] == ["Q64|Q4|Q999999"]
    assert all(q(r)["action"] == "wbgetentities" and "titles" not in r.query for r in seen)
    assert [(r["question_entity"], r["qid"], r["popularity"], r["resolved_by"]) for r in out.rows] == [
        ("Berlin city", "Q64", 9, "qid"), ("Adams", "Q42", 4, "qid")]
    assert out.unresolved == [{"name": "Gone", "reason": "missing_qid", "candidates": "Q999999"}]
    assert cached(tmp_path / "c.jsonl")["Gone"]["reason"] == "missing_qid"


def test_no_such_entity_error_drops_only_that_id(run, client, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [Reply(200, {"error": {"code": "no-such-entity", "info": 'Could not find an entity with the ID "Q9999999999".',
                                         "id": "Q9999999999"}})]
    out, seen = run(fake, ents("A", "B", A="Q2", B="Q9999999999"), client, tmp_path / "c.jsonl")
    assert [q(r)["ids"] for r in seen] == ["Q2|Q9999999999", "Q2"]
    assert [r["qid"] for r in out.rows] == ["Q2"]
    assert out.unresolved == [{"name": "B", "reason": "missing_qid", "candidates": "Q9999999999"}]


def test_search_unique_ambiguous_unknown_and_untitled(run, client, tmp_path):
    names = ("Gorillaz", "Mercury", "Xyzzy Plugh", "NYC", "C#")
    out, seen = run(FakeWikidata(KB), ents(*names), client, tmp_path / "c.jsonl")

    # "C#" cannot be a title ('#'), so it is never sent as one
    assert asked_titles(seen) == [["Gorillaz", "Mercury", "Xyzzy Plugh", "NYC"]]
    searches = [q(r) for r in seen if q(r)["action"] == "wbsearchentities"]
    assert [s["search"] for s in searches] == list(names)
    assert {(s["language"], s["type"], s["limit"], s["format"]) for s in searches} == {("en", "item", "5", "json")}
    assert [q(r)["ids"] for r in seen if "ids" in r.query] == ["Q5|Q60|Q2370"]

    assert [(r["question_entity"], r["qid"], r["popularity"], r["resolved_by"]) for r in out.rows] == [
        ("Gorillaz", "Q5", 3, "search"), ("NYC", "Q60", 8, "search"), ("C#", "Q2370", 2, "search")]
    assert out.rows[0]["wiki_title"] == "Gorillaz (band)"
    assert out.unresolved == [
        {"name": "Mercury", "reason": "ambiguous", "candidates": "Q308|Q925"},
        {"name": "Xyzzy Plugh", "reason": "unknown", "candidates": ""},
    ]
    done = cached(tmp_path / "c.jsonl")
    assert sorted(done) == sorted(names) and done["Mercury"]["candidates"] == "Q308|Q925"

    rerun, seen2 = run(FakeWikidata(KB), ents(*names), client, tmp_path / "c.jsonl")
    assert seen2 == [] and rerun.rows == out.rows and rerun.unresolved == out.unresolved
    assert rerun.stats["from_cache"] == 5


def test_exact_hit_rule_label_or_match_text_case_insensitive():
    hits = [
        {"id": "Q1", "label": "ANGEL", "match": {"type": "label", "language": "en", "text": "ANGEL"}},
        {"id": "Q2", "label": "Angel Falls", "match": {"type": "alias", "language": "es", "text": "angel"}},
        {"id": "Q3", "label": "Angela", "match": {"type": "label", "language": "en", "text": "Angela"}},
        {"id": "Q1", "label": "ANGEL", "match": {"type": "alias", "language": "de", "text": "Angel"}},
    ]
    assert exact_search_hits("Angel", hits) == ["Q1", "Q2"]
    assert exact_search_hits("angela", hits) == ["Q3"]
    assert exact_search_hits("Ang", hits) == []


def test_two_names_for_one_item_keep_the_first(run, client, tmp_path):
    out, _ = run(FakeWikidata(KB), ents("New York City", "NYC"), client, tmp_path / "c.jsonl")
    assert [r["question_entity"] for r in out.rows] == ["New York City"]
    assert out.unresolved == [{"name": "NYC", "reason": "duplicate_qid", "candidates": "Q60"}]


def test_search_disabled_reports_unknown_then_search_run_redoes_it(run, client, tmp_path):
    out, seen = run(FakeWikidata(KB), ents("Gorillaz"), client, tmp_path / "c.jsonl", search=False)
    assert out.unresolved == [{"name": "Gorillaz", "reason": "unknown", "candidates": ""}]
    assert all(q(r)["action"] == "wbgetentities" for r in seen)
    out2, seen2 = run(FakeWikidata(KB), ents("Gorillaz"), client, tmp_path / "c.jsonl", search=True)
    assert [q(r)["action"] for r in seen2] == ["wbgetentities", "wbsearchentities", "wbgetentities"]
    assert [r["qid"] for r in out2.rows] == ["Q5"]


def test_input_qid_change_refetches(run, client, tmp_path):
    path = tmp_path / "c.jsonl"
    first, _ = run(FakeWikidata(KB), [{"name": "Mercury (planet)", "question": "", "reference": [], "qid": None}],
                   client, path)
    assert first.rows[0]["qid"] == "Q308"
    out, seen = run(FakeWikidata(KB), [{"name": "Mercury (planet)", "question": "", "reference": [], "qid": "Q925"}],
                    client, path)
    assert [q(r).get("ids") for r in seen] == ["Q925"]
    assert (out.rows[0]["qid"], out.rows[0]["resolved_by"]) == ("Q925", "qid")


# ------------------------------------------------------------ retries/failures


def test_maxlag_waits_retry_after_then_repeats_the_same_request(run, client, sleeps, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [maxlag_reply(retry_after="4", lag=3)]
    out, seen = run(fake, ents("Berlin"), client, tmp_path / "c.jsonl")
    assert sleeps == [4.0]
    assert len(seen) == 2 and seen[0].query == seen[1].query
    assert [r["qid"] for r in out.rows] == ["Q64"] and out.stats["maxlag_waits"] == 1


def test_maxlag_without_retry_after_waits_lag_and_is_capped(run, client, sleeps, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [maxlag_reply(retry_after=None, lag=2), maxlag_reply(retry_after="120")]
    out, _ = run(fake, ents("Berlin"), client, tmp_path / "c.jsonl")
    assert sleeps == [2.0, 10.0]  # lag, then Retry-After capped by max_backoff
    assert len(out.rows) == 1


def test_persistent_maxlag_fails_the_batch_uncached(run, client, sleeps, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [maxlag_reply("1")] * (RETRIES + 1)
    out, seen = run(fake, ents("Berlin", "Earth"), client, tmp_path / "c.jsonl")
    assert len(seen) == RETRIES + 1 and sleeps == [1.0] * RETRIES
    assert [f["name"] for f in out.failed] == ["Berlin", "Earth"]
    assert "maxlag" in out.failed[0]["reason"] and out.rows == []
    assert cached(tmp_path / "c.jsonl") == {}


def test_other_api_error_fails_batch_with_its_code(run, client, sleeps, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [Reply(200, {"error": {"code": "param-illegal", "info": "Must request one site, one title"}})]
    out, seen = run(fake, ents("Berlin"), client, tmp_path / "c.jsonl")
    assert len(seen) == 1 and sleeps == []
    assert out.failed == [{"name": "Berlin", "reason": "API error param-illegal: Must request one site, one title"}]


def test_429_with_retry_after(run, client, sleeps, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [Reply(429, "Too Many Requests", {"Retry-After": "2"})]
    out, seen = run(fake, ents("Berlin"), client, tmp_path / "c.jsonl")
    assert sleeps == [2.0] and len(seen) == 2
    assert [r["popularity"] for r in out.rows] == [9]


def test_500_then_success(run, client, sleeps, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [Reply(500, "boom")]
    out, seen = run(fake, ents("Berlin"), client, tmp_path / "c.jsonl")
    assert jittered(sleeps, [0.01]) and len(seen) == 2 and out.rows[0]["qid"] == "Q64"


def test_timeout_then_success(run, client, sleeps, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [Reply(200, {"entities": {}}, delay=1.0)]  # client timeout is 0.4 s
    out, seen = run(fake, ents("Berlin"), client, tmp_path / "c.jsonl")
    assert jittered(sleeps, [0.01]) and len(seen) == 2 and out.rows[0]["qid"] == "Q64"


def test_malformed_json_persistent_fails_and_is_not_cached(run, client, sleeps, tmp_path):
    fake = FakeWikidata(KB)
    fake.faults = [Reply(200, '{"entities": {"Q64": ')] * (RETRIES + 1)
    out, seen = run(fake, ents("Berlin"), client, tmp_path / "c.jsonl")
    assert len(seen) == RETRIES + 1 and jittered(sleeps, [0.01, 0.02])
    assert len(out.failed) == 1 and "malformed JSON" in out.failed[0]["reason"]
    assert out.rows == [] and cached(tmp_path / "c.jsonl") == {}


def test_partial_batch_fails_only_the_absent_title_and_rerun_asks_only_it(run, client, tmp_path):
    fake = FakeWikidata(KB)
    fake.omit = {"Berlin"}
    out, _ = run(fake, ents("Earth", "Berlin", "Douglas Adams"), client, tmp_path / "c.jsonl")
    assert [r["question_entity"] for r in out.rows] == ["Earth", "Douglas Adams"]
    assert out.failed == [{"name": "Berlin", "reason": "missing from answer"}]
    assert sorted(cached(tmp_path / "c.jsonl")) == ["Douglas Adams", "Earth"]

    out2, seen2 = run(FakeWikidata(KB), ents("Earth", "Berlin", "Douglas Adams"), client, tmp_path / "c.jsonl")
    assert asked_titles(seen2) == [["Berlin"]]
    assert [r["question_entity"] for r in out2.rows] == ["Earth", "Berlin", "Douglas Adams"] and out2.failed == []


def test_partial_ids_batch_fails_only_the_absent_id(run, client, tmp_path):
    fake = FakeWikidata(KB)
    fake.omit = {"Q42"}
    entities = [{"name": n, "question": "", "reference": [], "qid": i} for n, i in [("E", "Q2"), ("DA", "Q42")]]
    out, _ = run(fake, entities, client, tmp_path / "c.jsonl")
    assert [r["qid"] for r in out.rows] == ["Q2"]
    assert out.failed == [{"name": "DA", "reason": "missing from answer"}]
    _, seen2 = run(FakeWikidata(KB), entities, client, tmp_path / "c.jsonl")
    assert [q(r)["ids"] for r in seen2] == ["Q42"]


def test_interrupted_fetch_resumes_without_asking_finished_names(run, client, tmp_path):
    kb = {f"Q{1000 + i}": item(f"Entity {i:03d}", 2) for i in range(120)}
    names = [f"Entity {i:03d}" for i in range(120)]
    dying = FakeWikidata(kb)
    dying.die_after = 1  # one good batch, then 503 for ever
    out, seen = run(dying, ents(*names), client, tmp_path / "c.jsonl")
    assert len(out.rows) == 50 and len(out.failed) == 70
    assert len(seen) == 1 + 2 * (RETRIES + 1)  # the good batch, then two batches retried to exhaustion
    assert [f["name"] for f in out.failed] == names[50:]
    assert "HTTP 503" in out.failed[0]["reason"]
    assert len(cached(tmp_path / "c.jsonl")) == 50

    out2, seen2 = run(FakeWikidata(kb), ents(*names), client, tmp_path / "c.jsonl")
    asked = [t for batch in asked_titles(seen2) for t in batch]
    assert asked == names[50:] and [len(b) for b in asked_titles(seen2)] == [50, 20]
    assert [r["question_entity"] for r in out2.rows] == names and out2.failed == []
    assert out2.stats["from_cache"] == 50


def test_dead_server_every_batch_fails(client, tmp_path):
    with Loopback(FakeWikidata(KB)) as s:
        url = s.url + "/w/api.php"
    out = fetch_sitelinks(ents("Berlin", "Earth"), client, ProgressCache(tmp_path / "c.jsonl"), api_url=url, progress=False)
    assert [f["name"] for f in out.failed] == ["Berlin", "Earth"]
    assert "connection failed" in out.failed[0]["reason"] and "?" not in out.failed[0]["reason"]
    assert not (tmp_path / "c.jsonl").exists()


def test_user_agent_sent_and_progress_on_stderr(run, client, tmp_path, capsys):
    _, seen = run(FakeWikidata(KB), ents("Berlin", "Gorillaz"), client, tmp_path / "c.jsonl", progress=True)
    assert len(seen) == 3 and {r.headers["User-Agent"] for r in seen} == {UA}
    captured = capsys.readouterr()
    assert "wikidata sitelinks" in captured.err and captured.out == ""


# ---------------------------------------------------------------------- outputs


def test_write_entities_ni_format(run, client, tmp_path):
    out, _ = run(FakeWikidata(KB), [{"name": "Beyoncé", "question": "Who is Beyoncé?", "reference": ["singer"], "qid": None},
                                    {"name": "Earth", "question": "", "reference": [], "qid": None}],
                 client, tmp_path / "c.jsonl")
    write_entities(out.rows, tmp_path / "out" / "entities.jsonl")
    lines = (tmp_path / "out" / "entities.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[0] == ('{"popularity": 5, "qid": "Q1", "question": "Who is Beyoncé?", "question_entity": "Beyoncé", '
                        '"reference": ["singer"], "resolved_by": "title"}')
    assert json.loads(lines[1]) == {"popularity": 10, "qid": "Q2", "question": "", "question_entity": "Earth",
                                    "reference": [], "resolved_by": "title"}


# ------------------------------------------------------------------------ titles


def test_title_rules():
    assert normalize_title("  new__york_city ") == "New york city"
    assert normalize_title("iPhone", "enwiktionary") == "iPhone"
    assert normalize_title("e\u0301clair") == "\u00c9clair"  # NFC, then first letter upper-cased
    assert title_for("AC|DC") is None and title_for("C#") is None and title_for("x" * 256) is None
    assert title_for("ß-Bahn") == "ß-Bahn"  # 'ß'.upper() is two letters: left alone
