"""Issue 46: fetchers that a hostile web page cannot turn. Each test is named
after the row it pins (M2, M3, M4, L1, L2, L3, L7). Only loopback servers
are ever connected to: "global" addresses come from a resolver stub, and the
connection stub that stands in for them records the address and connects
to the loopback server instead; refused addresses are refused before any
connection."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from pathlib import Path

import pytest
import yaml
from authbench.errors import ConfigError
from authbench.fetch.cache import ProgressCache
from authbench.fetch.entity_lists import read_entities
from authbench.fetch.pagerank import check_api_url, fetch_openpagerank
from authbench.fetch.webtext import fetch_one, fetch_texts
from authbench.net import AddressGuard, HttpClient, RetryPolicy, backoff_wait, literal_refusal, refused_reason
from authbench.records import read_records
from loopback import Loopback, Reply, Seen

ROOT = Path(__file__).resolve().parents[3]
UA = "authbench-tests/1.0 (+loopback)"
POLICY = RetryPolicy(retries=0, backoff=0.01, max_backoff=0.05, timeout=2.0)
GLOBAL = "93.184.216.34"  # a global address: never connected to, the connect stub stands in for it
HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGE = "<html><head><title>Hello</title></head><body><p>public words</p></body></html>"


@pytest.fixture(autouse=True)
def no_proxy_from_this_machine(monkeypatch):
    """A proxy set on the machine would take these requests elsewhere."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def infos(ips, port):
    return [(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "",
             (ip, port, 0, 0) if ":" in ip else (ip, port)) for ip in ips]


class World:
    """A resolver stub (host -> addresses, or a function of the call count)
    and a connect stub: a global address is recorded and the loopback
    server stands in for it; any other address fails the test (a refused
    one must never reach a connection)."""

    def __init__(self, server: Loopback, names: dict):
        self.server, self.names = server, names
        self.resolved: list[str] = []
        self.connected: list[str] = []

    def resolve(self, host, port):
        self.resolved.append(host)
        ips = self.names.get(host)
        if ips is None:
            raise socket.gaierror(f"unknown test host {host}")
        if callable(ips):
            ips = ips(self.resolved.count(host))
        return infos(ips, port)

    def connect(self, sockaddr, family, timeout, source_address, socket_options):
        self.connected.append(sockaddr[0])
        assert sockaddr[0] == GLOBAL, f"a connection to {sockaddr[0]} was attempted"
        return socket.create_connection(("127.0.0.1", self.server.server.server_address[1]), timeout)

    def guard(self, allow_private: bool = False) -> AddressGuard:
        return AddressGuard(allow_private=allow_private, resolver=self.resolve, connect=self.connect)


def by_host(routes):
    """Loopback handler: the reply by the request's Host header (without port)."""
    def handle(seen: Seen) -> Reply:
        host = seen.headers.get("Host", "").rsplit(":", 1)[0] if "]" not in seen.headers.get("Host", "") else ""
        route = routes.get(host)
        return route if route is not None else Reply(404, "no such site")
    return handle


# ------------------------------------------------------------------ M3: addresses


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "0.0.0.0", "10.0.0.1", "172.16.0.1", "172.31.255.254",
                                     "192.168.1.1", "100.64.0.1", "100.127.255.254", "169.254.169.254", "::1",
                                     "fc00::1", "fd12:3456::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
                                     "::ffff:10.0.0.1", "::"])
def test_M3_every_inward_address_class_is_refused(address):
    assert refused_reason(address) is not None


@pytest.mark.parametrize("address", [GLOBAL, "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "172.32.0.1", "100.128.0.1"])
def test_M3_global_addresses_pass(address):
    assert refused_reason(address) is None


@pytest.mark.parametrize("host", ["2130706433", "0177.0.0.1", "0x7f000001", "0x7f.0.0.1", "127.1", "017700000001"])
def test_M3_decimal_octal_and_hex_literals_are_refused(host):
    assert literal_refusal(host) is not None
    with pytest.raises(Exception, match="refused address"):
        AddressGuard(allow_private=True, resolver=lambda h, p: infos([GLOBAL], p)).check(host, 80)


@pytest.mark.parametrize("host", ["example.com", "8.8.8.8", "1.example", "a1.b2.example"])
def test_M3_names_and_canonical_literals_are_not_taken_for_numbers(host):
    assert literal_refusal(host) is None


def test_M3_a_page_that_redirects_inward_is_refused_and_counted(tmp_path):
    """Homepages that redirect to loopback, link-local (cloud metadata),
    private, IPv4-mapped and numeric-literal addresses, and a domain whose
    DNS record points inward: refused (the first hop too), never connected
    to, status refused_address, counted in the summary, cached."""
    routes = {}
    with Loopback(by_host(routes)) as s:
        port = s.server.server_address[1]
        targets = {"to-loopback.test": f"http://127.0.0.1:{port}/admin",
                   "to-metadata.test": "http://169.254.169.254/latest/meta-data/",
                   "to-private.test": "http://inward.test/",
                   "to-mapped.test": "http://[::ffff:127.0.0.1]/",
                   "to-decimal.test": "http://2130706433/",
                   "to-octal.test": "http://0177.0.0.1/"}
        for name, target in targets.items():
            routes[name] = Reply(302, "", {"Location": target})
        routes["fine.test"] = Reply(200, PAGE, HTML)
        world = World(s, {**{name: [GLOBAL] for name in [*targets, "fine.test"]},
                          "inward.test": ["10.1.2.3"], "dns-inward.test": ["192.168.7.7"]})
        client = HttpClient(UA, POLICY, guard=world.guard())
        cache = ProgressCache(tmp_path / "texts.jsonl")
        out = fetch_texts([*targets, "dns-inward.test", "fine.test"], client, cache, schemes=("http",),
                          progress=False)
    rows = {row.domain: row for row in out.rows}
    assert rows["fine.test"].status == "ok" and rows["fine.test"].text == "Hello public words"
    refused = [*targets, "dns-inward.test"]
    assert {d: rows[d].reason for d in refused} == {d: "refused_address" for d in refused}
    assert all(rows[d].status == "error" and "refused address" in rows[d].error for d in refused)
    assert out.stats["errors"] == {"refused_address": 7} and out.stats["ok"] == 1
    assert set(world.connected) == {GLOBAL}  # nothing inward was ever connected to
    assert not [seen for seen in s.seen if seen.path == "/admin"]
    assert set(cache.load()) == {*refused, "fine.test"}  # definitive: a rerun does not ask again


def test_M3_the_connection_goes_to_the_checked_address_despite_rebinding():
    """The resolver answers a global address at check time and 127.0.0.1
    afterwards: the socket still connects to the checked address, and the
    host is resolved once per connection."""
    with Loopback(by_host({"rebind.test": Reply(200, PAGE, HTML)})) as s:
        world = World(s, {"rebind.test": lambda n: [GLOBAL] if n == 1 else ["127.0.0.1"]})
        client = HttpClient(UA, POLICY, guard=world.guard())
        row = fetch_one("rebind.test", client, ["http://rebind.test/"])
    assert row.status == "ok" and row.text == "Hello public words"
    assert world.resolved == ["rebind.test"] and world.connected == [GLOBAL]


def test_M3_tls_keeps_the_host_name_for_sni_and_the_certificate(monkeypatch):
    """https through the guard: the TLS handshake names the host (SNI) and the
    certificate is checked against it, not against the pinned address."""
    import ssl

    seen = {}

    def wrap(self, sock, *args, server_hostname=None, **kwargs):
        seen["sni"], seen["check_hostname"] = server_hostname, self.check_hostname
        seen["verify"] = self.verify_mode
        raise ssl.SSLError("stop here: the loopback server speaks no TLS")

    monkeypatch.setattr(ssl.SSLContext, "wrap_socket", wrap)
    with Loopback(by_host({})) as s:
        world = World(s, {"secure.test": [GLOBAL]})
        client = HttpClient(UA, POLICY, guard=world.guard())
        row = fetch_one("secure.test", client, ["https://secure.test/"])
    assert row.reason == "connection_failed"
    assert seen == {"sni": "secure.test", "check_hostname": True, "verify": ssl.CERT_REQUIRED}
    assert world.connected == [GLOBAL]


def test_M3_the_config_key_opts_into_private_addresses_and_defaults_to_off():
    from authbench.config import schema

    webtext = schema()["properties"]["fetch"]["properties"]["webtext"]["properties"]
    assert webtext["allow_private_addresses"]["default"] is False
    with Loopback(by_host({"127.0.0.1": Reply(200, PAGE, HTML)})) as s:
        guarded = fetch_one("loop.test", HttpClient(UA, POLICY, guard=AddressGuard()), [f"{s.url}/"])
        opted_in = fetch_one("loop.test", HttpClient(UA, POLICY, guard=AddressGuard(allow_private=True)),
                             [f"{s.url}/"])
    assert guarded.reason == "refused_address" and len(s.seen) == 1  # the opted-in fetch only
    assert opted_in.status == "ok"


def test_M3_fetch_texts_guards_a_client_that_has_no_guard(tmp_path):
    with Loopback(by_host({"127.0.0.1": Reply(200, PAGE, HTML)})) as s:
        out = fetch_texts(["loop.test"], HttpClient(UA, POLICY), ProgressCache(tmp_path / "c.jsonl"),
                          base_url=s.url, progress=False)
    assert out.rows[0].reason == "refused_address" and s.seen == []


# ------------------------------------------------------------------ L2: netrc and proxies


def test_L2_a_netrc_default_entry_is_never_sent(tmp_path, monkeypatch):
    netrc = tmp_path / "netrc"
    netrc.write_text("default login someone password hunter2\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.setenv("HOME", str(tmp_path))
    with Loopback(lambda seen: Reply(200, PAGE, HTML)) as s:
        row = fetch_one("site.test", HttpClient(UA, POLICY), [f"{s.url}/"])
    assert row.status == "ok"
    assert [k for k in s.seen[0].headers if k.lower() == "authorization"] == []


def test_L2_proxies_come_from_the_environment_and_hops_are_still_checked(monkeypatch):
    """HTTP(S)_PROXY is read explicitly (the session trusts nothing else of
    the environment); behind it each hop's resolved address is still checked."""
    for var in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    with Loopback(by_host({"public.test": Reply(200, PAGE, HTML)})) as proxy:
        for var in ("HTTP_PROXY", "http_proxy"):
            monkeypatch.setenv(var, proxy.url)
        world = World(proxy, {"public.test": [GLOBAL], "inward.test": ["10.9.9.9"]})
        client = HttpClient(UA, POLICY, guard=world.guard())
        ok = fetch_one("public.test", client, ["http://public.test/"])
        inward = fetch_one("inward.test", client, ["http://inward.test/"])
    assert ok.status == "ok" and proxy.seen[0].headers["Host"] == "public.test"
    assert inward.reason == "refused_address" and len(proxy.seen) == 1
    assert world.connected == []  # the proxy was connected to, not the target


# ------------------------------------------------------------------ L3: the page deadline


class Trickle:
    """A loopback site that sends its headers, then one byte every 50 ms."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
                for _ in range(200):  # 10 s of trickle at most
                    if self.stop.is_set():
                        break
                    try:
                        conn.sendall(b"a ")
                    except OSError:
                        break
                    time.sleep(0.05)

    def close(self):
        self.stop.set()
        self.sock.close()


def test_L3_a_trickling_site_is_cut_off_at_the_page_deadline(tmp_path):
    site = Trickle()
    try:
        start = time.monotonic()
        out = fetch_texts(["slow.test"], HttpClient(UA, POLICY), ProgressCache(tmp_path / "c.jsonl"),
                          base_url=site.url.rstrip("/"), page_deadline=0.5, allow_private_addresses=True,
                          progress=False)
        took = time.monotonic() - start
    finally:
        site.close()
    row = out.rows[0]
    assert (row.status, row.reason) == ("error", "timeout") and "page deadline of 0.5 s" in row.error
    assert took < 2.0  # the read timeout (2 s) never ran out: bytes kept arriving
    assert ProgressCache(tmp_path / "c.jsonl").load() == {}  # transient: a rerun asks again


def test_L3_the_deadline_is_a_config_key_with_default_60():
    from authbench.config import schema

    webtext = schema()["properties"]["fetch"]["properties"]["webtext"]["properties"]
    assert webtext["page_deadline"]["default"] == 60


# ------------------------------------------------------------------ M2: the key follows no redirect


KEY = "opr-test-key-46"


def test_M2_the_api_key_follows_no_redirect(tmp_path):
    """The API answers 302 to another host: before, requests followed it
    with the API-OPR header and stored the other host's JSON as labels."""
    stolen = {"status_code": 200, "response": [{"status_code": 200, "error": "", "page_rank_integer": 10,
                                                "page_rank_decimal": 10.0, "rank": "1", "domain": "google.com"}]}
    with Loopback(lambda seen: Reply(200, stolen)) as other:
        target = f"http://localhost:{other.server.server_address[1]}/steal?token=abc#x"
        with Loopback(lambda seen: Reply(302, "", {"Location": target})) as api:
            client = HttpClient(UA, RetryPolicy(retries=2, backoff=0.01, max_backoff=0.05, timeout=2.0),
                                sleep=lambda s: None)
            out = fetch_openpagerank(["google.com"], client, KEY, ProgressCache(tmp_path / "c.jsonl"),
                                     url=api.url + "/api", progress=False, allow_http=True)
    assert other.seen == [] and len(api.seen) == 1  # no retry either
    assert out.rows == [] and len(out.failed) == 1
    reason = out.failed[0]["reason"]
    assert "redirect to http://localhost:" in reason and "/steal" in reason
    assert "token" not in reason and "abc" not in reason and KEY not in reason


def test_M2_an_http_api_url_is_a_config_error_unless_allowed():
    with pytest.raises(ConfigError, match="fetch.pagerank.allow_http"):
        check_api_url("http://openpagerank.example/api")
    with pytest.raises(ConfigError, match="user name or password") as err:
        check_api_url("https://me:s3cret@openpagerank.example/api")
    assert "s3cret" not in str(err.value)
    check_api_url("http://127.0.0.1:9/api", allow_http=True)
    check_api_url("https://openpagerank.com/api/v1.0/getPageRank")


def test_M2_the_config_check_refuses_an_http_api_url():
    from authbench.config import validate_schema
    from authbench.studies.authority.grid import check_authority

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["fetch"] = {"pagerank": {"domains": "d.txt", "method": "api", "api_url": "http://opr.example/api"}}
    validate_schema(config)
    with pytest.raises(ConfigError, match="api_url' is http://"):
        check_authority(config)
    config["fetch"]["pagerank"]["allow_http"] = True
    check_authority(config)


# ------------------------------------------------------------------ M4: a torn multibyte line


def test_M4_a_line_torn_inside_a_multibyte_character_is_counted_not_fatal(tmp_path):
    path = tmp_path / "progress.jsonl"
    ProgressCache(path).add([{"key": "a.com", "text": "été"}])
    whole = json.dumps({"key": "b.com", "text": "été"}, ensure_ascii=False).encode()
    cut = whole.index("é".encode()) + 1  # inside the two bytes of the first é
    with open(path, "ab") as fh:
        fh.write(whole[:cut])  # the job was killed mid-write
    cache = ProgressCache(path)
    assert set(cache.load()) == {"a.com"} and cache.torn_lines == 1
    cache.add([{"key": "c.com", "text": "über"}])  # still loadable after more appends
    again = ProgressCache(path)
    assert set(again.load()) == {"a.com", "c.com"} and again.torn_lines == 1


# ------------------------------------------------------------------ L1: U+2028 inside a record


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x1c"])
def test_L1_a_record_with_a_unicode_line_separator_is_read_whole(tmp_path, separator):
    path = tmp_path / "rows.jsonl"
    rows = [{"domain": "a.com", "text": f"one{separator}two"}, {"domain": "b.com", "text": "three"}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert [rec for _, rec in read_records(path, "records").rows] == rows
    entities = tmp_path / "entities.jsonl"
    entities.write_text(json.dumps({"name": f"Song{separator}Title", "question": "Who?"}, ensure_ascii=False)
                        + "\r\n", encoding="utf-8")
    found, _ = read_entities(entities)
    assert [e["name"] for e in found] == [f"Song{separator}Title"]


# ------------------------------------------------------------------ L7: jitter and the urllib3 floor


def test_L7_backoff_is_full_jitter_from_an_injectable_generator():
    waits = [backoff_wait(3, 1.0, 60.0, random.Random(7)) for _ in range(1)]
    assert waits == [random.Random(7).uniform(0, 8.0)]
    draws = [backoff_wait(attempt, 1.0, 5.0, random.Random(attempt)) for attempt in range(6)]
    assert all(0 <= w <= min(2**a, 5.0) for a, w in enumerate(draws))
    one, two = (HttpClient(UA, POLICY, rng=random.Random(seed)) for seed in (1, 2))
    assert [one.backoff(2) for _ in range(5)] != [two.backoff(2) for _ in range(5)]  # no lockstep
    assert len({one.backoff(2) for _ in range(20)}) > 1


def test_L7_urllib3_has_a_floor_where_fetch_and_model_jobs_run():
    assert '"urllib3>=2.6.3"' in (ROOT / "pyproject.toml").read_text()
    for env in ("analysis.yaml", "llamacpp.yaml", "vllm.yaml"):
        deps = yaml.safe_load((ROOT / "envs" / env).read_text())["dependencies"]
        assert any(isinstance(d, str) and d.replace(" ", "") == "urllib3>=2.6.3" for d in deps), env
