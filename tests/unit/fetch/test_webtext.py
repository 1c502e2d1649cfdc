"""Homepage-text fetcher against a loopback server that plays many sites (never the internet)."""

from __future__ import annotations

import json
import socket
from collections import Counter
from collections.abc import Callable

import pytest
from authbench.fetch import webtext
from authbench.fetch.cache import ProgressCache
from authbench.fetch.webtext import (
    TextRow,
    candidate_urls,
    decode_body,
    extract_text,
    fetch_one,
    fetch_texts,
    sniff_encoding,
    write_failures,
    write_texts,
)
from authbench.net import HttpClient, RetryPolicy
from authbench.studies.authority.domains import read_texts
from loopback import Loopback, Reply, Seen, jittered

POLICY = RetryPolicy(retries=2, backoff=0.01, max_backoff=30.0, timeout=0.3)
SLOW = 1.0  # seconds a "timing out" site waits: well over POLICY.timeout
UA = "authbench-tests/1.0 (+loopback)"

ACME = (
    "<!doctype html><html><head><title>Acme &amp; Sons</title>"
    '<meta name="description" content="meta words"><style>body { color: red }</style>'
    '<script>var hidden = "script words";</script></head>'
    "<body><nav>Home</nav><h1>Welcome&nbsp;to Acme</h1>"
    "<p>We make <b>rock</b>et skates &lt;fast&gt; &eacute;t&eacute; &#8220;quoted&#8221;</p>"
    "<noscript>enable javascript</noscript><template><p>template words</p></template>"
    "<svg><title>icon title</title><text>svg words</text></svg>"
    "<ul><li>one</li><li>two</li></ul><!-- a comment --><script>document.write('x')</script></body></html>"
)
ACME_TEXT = "Acme & Sons Home Welcome to Acme We make rocket skates <fast> été “quoted” one two"
HTML = {"Content-Type": "text/html; charset=utf-8"}


def page(body: str, title: str = "") -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


class Sites:
    """Loopback handler: the first path segment names the site; attempts are counted per path.

    One server plays every site of this module (starting and stopping a server
    costs half a second), so each test uses site names of its own."""

    def __init__(self) -> None:
        self.routes: dict[str, Reply | Callable[[Seen, int], Reply]] = {}
        self.hits: Counter = Counter()

    def __call__(self, seen: Seen) -> Reply:
        self.hits[seen.path] += 1
        route = self.routes.get(seen.path.strip("/").split("/")[0])
        if route is None:
            return Reply(404, "no such site")
        return route(seen, self.hits[seen.path]) if callable(route) else route


def asked(server: Loopback, domain: str) -> int:
    return sum(seen.path.startswith(f"/{domain}/") for seen in server.seen)


@pytest.fixture(scope="module")
def server():
    with Loopback(Sites()) as s:
        yield s


@pytest.fixture
def serve(server):
    def add(routes: dict) -> Loopback:
        assert not set(routes) & set(server.handler.routes), "site names must be unique per test"
        server.handler.routes.update(routes)
        return server

    return add


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(sleeps) -> HttpClient:
    return HttpClient(UA, POLICY, sleep=sleeps.append)


@pytest.fixture
def cache(tmp_path) -> ProgressCache:
    return ProgressCache(tmp_path / "texts.jsonl")


def run(domains, client, cache, server, **kw):
    kw.setdefault("progress", False)
    kw.setdefault("allow_private_addresses", True)  # the loopback server plays every site
    return fetch_texts(domains, client, cache, base_url=server.url, **kw)


def by_domain(outcome) -> dict[str, TextRow]:
    return {row.domain: row for row in outcome.rows}


# ---------------------------------------------------------------- extraction and charsets (units)


def test_extract_text_rules():
    assert extract_text(ACME) == ACME_TEXT
    # an unclosed <head> ends at the first body-only tag; inline tags join, block tags separate
    assert extract_text("<head><title>T</title><meta x=1> <p>para<i>graph</i></p><div>next</div>") == \
        "T paragraph next"
    assert extract_text("<p>a<br>b</p><td>c</td><td>d</td>") == "a b c d"
    # text inside <head> is dropped; a title found later still comes first
    assert extract_text("<head>stray head text<meta name=x></head><body>B<title>Late</title></body>") == "Late B"
    assert extract_text("no tags at all &amp; an entity") == "no tags at all & an entity"
    assert extract_text("<html><head><script>only()</script></head><body>\n\t </body></html>") == ""


def test_decode_body_charset_order(monkeypatch):
    cafe = "Café “quoted” naïve"
    latin = cafe.encode("cp1252")
    # header charset; iso-8859-1 decodes as windows-1252 like browsers (0x93/0x94 are curly quotes)
    assert decode_body(latin, "text/html; charset=ISO-8859-1") == cafe
    # header beats meta; BOM beats header
    meta_sjis = b'<meta charset="shift_jis">' + "東京".encode("shift_jis")
    assert sniff_encoding(meta_sjis, "text/html; charset=utf-8") == ("utf-8", "header")
    assert sniff_encoding(meta_sjis, "text/html") == ("cp932", "meta")
    assert decode_body(b"\xef\xbb\xbfK\xc3\xb6ln", "text/html; charset=latin-1") == "Köln"
    # meta http-equiv, unknown header label skipped, XML declaration, utf-16 meta means utf-8
    gbk = '<meta http-equiv="Content-Type" content="text/html; charset=gb2312">中文'.encode("gbk")
    assert decode_body(gbk, "text/html; charset=no-such-charset").endswith("中文")
    assert sniff_encoding(b'<?xml version="1.0" encoding="windows-1251"?><html/>', None) == ("cp1251", "meta")
    assert sniff_encoding(b'<meta charset="utf-16"><p>x</p>', "text/html") == ("utf-8", "meta")
    # text/plain ignores <meta>; undeclared valid UTF-8 is UTF-8
    assert sniff_encoding(b'<meta charset="shift_jis"> Gr\xc3\xbc\xc3\x9fe', "text/plain") == ("utf-8", "detected")
    # undeclared legacy bytes: charset_normalizer
    russian = "Москва — столица России, крупнейший город страны."
    assert sniff_encoding(russian.encode("cp1251"), "text/html") == ("cp1251", "detected")
    assert decode_body(russian.encode("cp1251"), None) == russian
    # nothing found: utf-8 with replacement characters
    monkeypatch.setattr(webtext, "_detected_charset", lambda content: None)
    assert sniff_encoding(b"caf\xe9", None) == ("utf-8", "fallback")
    assert decode_body(b"caf\xe9 ok", None) == "caf\ufffd ok"


def test_candidate_urls():
    assert candidate_urls("example.org") == ["https://example.org/", "http://example.org/"]
    assert candidate_urls("example.org", ("http",)) == ["http://example.org/"]
    assert candidate_urls("example.org", base_url="http://127.0.0.1:9/") == ["http://127.0.0.1:9/example.org/"]


# ---------------------------------------------------------------- fetching


def test_normal_page_title_body_and_max_words(client, cache, serve):
    s = serve({"acme.test": Reply(200, ACME, HTML)})
    full = run(["acme.test"], client, cache, s)
    short = run(["acme.test"], HttpClient(UA, POLICY), ProgressCache(cache.path.with_name("b.jsonl")), s,
                max_words=6)
    row = full.rows[0]
    assert (row.status, row.text, row.words, row.http_status, row.truncated, row.error) == \
        ("ok", ACME_TEXT, 16, 200, False, "")
    assert row.final_url == f"{s.url}/acme.test/"
    assert (short.rows[0].text, short.rows[0].words) == ("Acme & Sons Home Welcome to", 6)
    seen = next(x for x in s.seen if x.path == "/acme.test/")
    assert seen.headers["User-Agent"] == UA and "text/html" in seen.headers["Accept"]
    record = ProgressCache(cache.path).load()["acme.test"]
    assert (record["status"], record["text"], record["words"]) == ("ok", ACME_TEXT, 16)


def test_redirect_chain_within_limit_across_hosts_and_loop_over_limit(client, cache, serve, server):
    port = server.server.server_address[1]

    def hop(seen: Seen, n: int) -> Reply:
        if seen.path == "/hop.test/":
            return Reply(302, "", {"Location": "/hop.test/a"})  # relative
        if seen.path == "/hop.test/a":
            return Reply(301, "", {"Location": f"http://localhost:{port}/hop.test/b"})  # another host
        return Reply(200, page("<p>arrived safely</p>", "Hop"), HTML)

    s = serve({"hop.test": hop, "loop.test": Reply(302, "", {"Location": "/loop.test/"})})
    rows = by_domain(run(["hop.test", "loop.test"], client, cache, s, max_redirects=2))
    assert (rows["hop.test"].status, rows["hop.test"].text) == ("ok", "Hop arrived safely")
    assert rows["hop.test"].final_url == f"http://localhost:{port}/hop.test/b"
    assert asked(s, "hop.test") == 3
    loop = rows["loop.test"]
    assert (loop.status, loop.error, loop.reason) == ("error", "too many redirects", "too_many_redirects")
    assert asked(s, "loop.test") == 3  # the first request plus 2 followed redirects
    assert set(ProgressCache(cache.path).load()) == {"hop.test", "loop.test"}


def test_404_is_cached_and_not_fetched_again(client, cache, serve):
    s = serve({"gone.test": Reply(404, "not here", HTML)})
    first = run(["gone.test"], client, cache, s)
    second = run(["gone.test"], client, cache, s)
    row = first.rows[0]
    assert (row.status, row.http_status, row.error, row.reason) == ("error", 404, "HTTP 404", "http_404")
    assert asked(s, "gone.test") == 1
    assert second.rows == first.rows
    assert second.stats == {"fetched": 0, "cached": 1, "ok": 0, "errors": {"http_404": 1}}


def test_500_then_success_is_retried(client, cache, sleeps, serve):
    def flaky(seen: Seen, n: int) -> Reply:
        return Reply(500, "oops") if n == 1 else Reply(200, page("<p>back up</p>"), HTML)

    s = serve({"flaky.test": flaky})
    row = run(["flaky.test"], client, cache, s).rows[0]
    assert (row.status, row.text) == ("ok", "back up")
    assert asked(s, "flaky.test") == 2
    assert jittered(sleeps, [0.01])


def test_429_waits_for_retry_after(client, cache, sleeps, serve):
    def busy(seen: Seen, n: int) -> Reply:
        return Reply(429, "slow down", {"Retry-After": "7"}) if n == 1 else Reply(200, page("<p>served</p>"), HTML)

    s = serve({"busy.test": busy})
    row = run(["busy.test"], client, cache, s).rows[0]
    assert (row.status, row.text) == ("ok", "served")
    assert asked(s, "busy.test") == 2
    assert sleeps == [7.0] and client.waits == [7.0]


def test_5xx_after_retries_is_an_error_that_is_not_cached(client, cache, sleeps, serve):
    s = serve({"down.test": Reply(503, "maintenance")})
    row = run(["down.test"], client, cache, s).rows[0]
    assert (row.status, row.http_status, row.reason) == ("error", 503, "http_503")
    assert "HTTP 503 after 3 attempts" in row.error
    assert asked(s, "down.test") == 3 and jittered(sleeps, [0.01, 0.02])
    assert ProgressCache(cache.path).load() == {}


def test_timeout_then_success(client, cache, sleeps, serve):
    def slow(seen: Seen, n: int) -> Reply:
        return Reply(200, page("<p>late</p>"), HTML, delay=SLOW if n == 1 else 0)

    s = serve({"slow.test": slow})
    row = run(["slow.test"], client, cache, s).rows[0]
    assert (row.status, row.text) == ("ok", "late")
    assert asked(s, "slow.test") == 2 and jittered(sleeps, [0.01])


def test_persistent_timeout_is_not_cached_and_is_retried_on_rerun(client, cache, serve):
    s = serve({"dead.test": Reply(200, page("<p>never</p>"), HTML, delay=SLOW),
               "fine.test": Reply(200, page("<p>fine</p>"), HTML)})
    first = by_domain(run(["dead.test", "fine.test"], client, cache, s))
    assert asked(s, "dead.test") == 3
    second = run(["dead.test", "fine.test"], client, cache, s)
    assert asked(s, "dead.test") == 6 and asked(s, "fine.test") == 1
    dead = first["dead.test"]
    assert (dead.status, dead.reason, dead.http_status) == ("error", "timeout", None)
    assert "timed out after 3 attempts" in dead.error
    assert set(ProgressCache(cache.path).load()) == {"fine.test"}
    assert second.stats == {"fetched": 1, "cached": 1, "ok": 1, "errors": {"timeout": 1}}


def test_size_cap_truncates_but_keeps_the_text(client, cache, serve):
    body = "<html><body><p>" + "lorem " * 900_000  # 5.4 MB, never closed
    s = serve({"big.test": Reply(200, body, HTML)})
    row = run(["big.test"], client, cache, s, max_bytes=10_000, max_words=5000).rows[0]
    # 15 bytes of tags, then 1664 whole "lorem " and the first byte of the next one
    assert (row.status, row.truncated, row.words) == ("ok", True, 1665)
    assert row.text.endswith("lorem lorem l")
    small = run(["big.test"], client, ProgressCache(cache.path.with_name("b.jsonl")), s, max_bytes=10_000)
    assert (small.rows[0].truncated, small.rows[0].words, small.rows[0].text) == (True, 100, " ".join(["lorem"] * 100))


@pytest.mark.parametrize("domain, headers, body, text", [
    ("latin.test", {"Content-Type": "text/html; charset=ISO-8859-1"},
     page("<p>Caf\xe9 cr\xe8me \x93quoted\x94 na\xefve</p>").encode("latin-1"), "Café crème “quoted” naïve"),
    ("sjis.test", {"Content-Type": "text/html"},
     '<html><head><meta charset="Shift_JIS"><title>東京</title></head><body><p>今日は晴れ です</p></body></html>'
     .encode("shift_jis"), "東京 今日は晴れ です"),
    ("gbk.test", {"Content-Type": "text/html"},
     '<html><head><meta http-equiv="Content-Type" content="text/html; charset=GBK"></head>'
     "<body><p>中文网页 欢迎光临</p></body></html>".encode("gbk"), "中文网页 欢迎光临"),
    ("undeclared.test", {"Content-Type": "text/html"}, page("<p>Grüße aus Köln</p>").encode(), "Grüße aus Köln"),
    ("plain.test", {"Content-Type": "text/plain; charset=utf-8"}, "  <b>not a tag</b>\n\tline two ",
     "<b>not a tag</b> line two"),
    ("bare.test", {}, page("<p>no content type</p>"), "no content type"),
])
def test_charsets_and_text_types(client, cache, serve, domain, headers, body, text):
    s = serve({domain: Reply(200, body, headers)})
    row = run([domain], client, cache, s).rows[0]
    assert (row.status, row.text) == ("ok", text)


@pytest.mark.parametrize("domain, headers, body, error", [
    ("img.test", {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n" + bytes(200), "unsupported content type image/png"),
    ("blob.test", {}, bytes(range(256)), "unsupported content type (none)"),
    ("empty.test", HTML, "<html><head><title> </title><script>x()</script></head><body> \n</body></html>", "no text"),
])
def test_definitive_content_errors_are_cached(client, cache, serve, domain, headers, body, error):
    s = serve({domain: Reply(200, body, headers)})
    row = run([domain], client, cache, s).rows[0]
    run([domain], client, cache, s)
    assert asked(s, domain) == 1
    assert (row.status, row.error, row.http_status) == ("error", error, 200)
    assert ProgressCache(cache.path).load()[domain]["error"] == error


def test_resume_makes_no_requests_for_finished_domains(client, cache, capsys, serve):
    routes = {f"site{i}.test": Reply(200, page(f"<p>site number {i}</p>"), HTML) for i in range(6)}
    routes["gone410.test"] = Reply(410, "gone")
    domains = ["site3.test", "gone410.test", *[f"site{i}.test" for i in (0, 1, 2, 4, 5)]]
    s = serve(routes)
    before = len(s.seen)
    first = run(domains, client, cache, s, workers=3, progress=True)
    assert len(s.seen) - before == 7
    second = run(domains, client, cache, s, workers=3)
    assert len(s.seen) - before == 7
    assert "homepage texts" in capsys.readouterr().err
    assert [r.domain for r in first.rows] == domains  # input order, whatever finished first
    assert first.rows == second.rows
    assert first.stats == {"fetched": 7, "cached": 0, "ok": 6, "errors": {"http_410": 1}}
    assert second.stats == {"fetched": 0, "cached": 7, "ok": 6, "errors": {"http_410": 1}}
    lines = cache.path.read_text().splitlines()
    assert len(lines) == 7 and {json.loads(x)["key"] for x in lines} == set(domains)
    # a cached text is re-cut to a smaller max_words without asking again
    third = run(["site4.test"], client, cache, s, max_words=2)
    assert (third.rows[0].text, third.rows[0].words, len(s.seen) - before) == ("site number", 2, 7)


def test_input_domains_are_normalized_and_invalid_ones_never_asked(client, cache, serve):
    s = serve({"norm.test": Reply(200, ACME, HTML)})
    before = len(s.seen)
    out = run([" Norm.TEST ", "norm.test", "", "not a domain", "localhost"], client, cache, s)
    assert [(r.domain, r.status, r.reason) for r in out.rows] == [
        ("norm.test", "ok", ""), ("not a domain", "error", "invalid_domain"), ("localhost", "error", "invalid_domain")]
    assert [seen.path for seen in s.seen[before:]] == ["/norm.test/"]
    assert out.stats == {"fetched": 3, "cached": 0, "ok": 1, "errors": {"invalid_domain": 2}}


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"  # nothing listens: connection refused


def test_fallback_to_next_scheme_only_after_a_transport_failure(client, sleeps, serve):
    s = serve({"http-only.test": Reply(200, page("<p>plain http works</p>"), HTML),
               "gone-https.test": Reply(404, "")})
    dead = _closed_port_url()
    row = fetch_one("http-only.test", client, [dead, f"{s.url}/http-only.test/"])
    assert (row.status, row.text, row.final_url) == ("ok", "plain http works", f"{s.url}/http-only.test/")
    assert jittered(sleeps, [0.01, 0.02])  # the refused URL was retried, then the fallback asked once
    no_fallback = fetch_one("gone-https.test", client, [f"{s.url}/gone-https.test/", f"{s.url}/http-only.test/"])
    assert (no_fallback.reason, asked(s, "http-only.test")) == ("http_404", 1)
    both_dead = fetch_one("http-only.test", client, [dead, dead])
    assert (both_dead.status, both_dead.reason) == ("error", "connection_failed")
    assert both_dead.error.count("connection failed (ConnectionError) after 3 attempts") == 2


def test_write_texts_is_what_read_texts_reads(client, cache, tmp_path, serve):
    quoted = page('<p>He said "hello" — twice</p>', "Quotes")
    s = serve({"acme-out.test": Reply(200, ACME, HTML), "quote.test": Reply(200, quoted, HTML),
               "gone-out.test": Reply(404, "")})
    out = run(["acme-out.test", "quote.test", "gone-out.test"], client, cache, s)
    handmade = TextRow("tabs.test", "ok", text="a\tb\nc\r\nd", words=4)
    path = tmp_path / "texts.tsv"
    assert write_texts([*out.rows, handmade], path) == 3
    assert path.read_text(encoding="utf-8").splitlines()[0] == "domain\ttext"
    assert read_texts(path, 100) == {"acme-out.test": ACME_TEXT, "quote.test": 'Quotes He said "hello" — twice',
                                     "tabs.test": "a b c d"}
    failures = tmp_path / "failures.tsv"
    assert write_failures(out.rows, failures) == 1
    assert failures.read_text(encoding="utf-8") == \
        f"domain\terror\thttp_status\tfinal_url\ngone-out.test\tHTTP 404\t404\t{s.url}/gone-out.test/\n"
