"""Web addresses and the one HTTP client.

:func:`registered_domain` reduces a URL to its registered domain (every study
and fetcher uses it); :func:`tld_prior_score` scores a domain by its public
suffix (the TLD-prior baseline of DomainAuth and RAGAuth).

The HTTP client of every fetcher and of the ``openai`` engine: timeouts, retries, backoff, ``Retry-After``.

* Transient failures are retried: connection errors, timeouts, HTTP 429 and
  5xx. The wait is the server's ``Retry-After`` (seconds or an HTTP date) when
  it sends one, else a "full jitter" draw, uniform in ``[0, backoff * 2**attempt]``
  (:func:`backoff_wait`, the client's injectable ``rng``), so parallel jobs do
  not retry in lockstep; both are capped at ``max_backoff``. After ``retries``
  retries the call raises :class:`FetchError`.
* Other 4xx answers are returned to the caller, which decides what they mean.
* Error messages name the URL *without* its query string and never include
  request headers, so an API key sent in a header (Open PageRank's ``API-OPR``)
  cannot leak into logs, outputs or exceptions.
* A request that carries a secret (``secret=True``) follows no redirect: a 3xx
  is :class:`SecretRedirectError`, which names only the target's
  :func:`safe_url` (``requests`` strips ``Authorization`` on a host change,
  not a custom header such as ``API-OPR``).
* The environment is not trusted wholesale (``session.trust_env = False``): no
  ``~/.netrc`` credentials are ever sent. Proxies are still read from the
  environment (``HTTP(S)_PROXY``, ``NO_PROXY``), explicitly, per request.
* An :class:`AddressGuard` (the homepage fetcher's; docs/security.md) checks
  every connection's address: the host is resolved once, every address it
  resolves to must be global (not loopback, private, shared, link-local,
  unique-local, unspecified, multicast or reserved; IPv4-mapped IPv6 is
  unwrapped first), decimal, octal and hexadecimal IPv4 spellings are refused,
  and the socket connects to the address that was checked, so a DNS answer
  that changes between check and connect (rebinding) cannot turn it. TLS keeps
  the host name for SNI and the certificate check. A refused address raises
  :class:`AddressRefused` (never retried). Behind a proxy the target's
  resolved addresses are still checked, but the proxy connects, so rebinding
  is not covered there.
"""

from __future__ import annotations

import email.utils
import ipaddress
import json
import logging
import random
import re
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urljoin, urlsplit, urlunsplit

import requests
import tldextract
from authbench.errors import FetchError, KeyFormatError
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

log = logging.getLogger("authbench.fetch")

_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)  # bundled suffix list, no network

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class SecretRedirectError(FetchError):
    """A request that carries a secret was answered with a redirect (never followed)."""


class AddressRefused(FetchError):
    """A host resolves to an address the :class:`AddressGuard` refuses."""


def backoff_wait(attempt: int, backoff: float, max_backoff: float, rng: random.Random) -> float:
    """Full jitter: uniform in ``[0, min(max_backoff, backoff * 2**attempt)]``."""
    return rng.uniform(0.0, min(backoff * (2**attempt), max_backoff))


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 5            # retries after the first attempt
    backoff: float = 1.0        # seconds before the first retry; doubles each time
    max_backoff: float = 60.0   # cap on any single wait, Retry-After included
    timeout: float = 20.0       # seconds for connect and for each read

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any] | None) -> "RetryPolicy":
        cfg = dict(cfg or {})
        return cls(**{k: cfg[k] for k in ("retries", "backoff", "max_backoff", "timeout") if k in cfg})


def safe_url(url: str) -> str:
    """The URL without query string, fragment or userinfo: safe to print."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def clean_key(value: str, var_name: str) -> str:
    """An API key as read from the variable ``var_name``, stripped of surrounding
    whitespace (a trailing newline from ``$(cat key.txt)`` or an editor); any
    other character outside printable ASCII raises :class:`KeyFormatError`
    naming only the variable (an HTTP library would quote the header's value)."""
    key = value.strip()
    if any(not 0x20 <= ord(c) <= 0x7E for c in key):
        raise KeyFormatError(f"environment variable {var_name} holds a character outside printable ASCII (a line "
                             "break, tab, control character or non-ASCII letter inside the key?); the key itself "
                             "is not shown: set it again without it")
    return key


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Parse a ``Retry-After`` header: delta-seconds or an HTTP date. None if absent/unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


# --- the address guard ---------------------------------------------------------

# a host spelled as an IPv4 number the canonical dotted quad does not cover:
# 2130706433, 0177.0.0.1, 0x7f.1, 127.1 (inet_aton reads them all)
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*\.?$", re.IGNORECASE)


def refused_reason(address: str) -> str | None:
    """Why an IP address is refused ("loopback", "private", ...); None for a global one."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return "IPv4-mapped " + (refused_reason(str(ip.ipv4_mapped)) or "address")
    for name, test in (("unspecified", ip.is_unspecified), ("loopback", ip.is_loopback),
                       ("link-local", ip.is_link_local), ("multicast", ip.is_multicast),
                       ("private", ip.is_private), ("reserved", ip.is_reserved)):
        if test:
            return name
    return None if ip.is_global else "not global"


def literal_refusal(host: str) -> str | None:
    """A host written as a non-canonical IPv4 number (decimal, octal, hex, short forms): refused."""
    host = host.strip("[]")
    if not _NUMERIC_HOST.match(host):
        return None
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return "a decimal, octal or hexadecimal IP literal"
    return None


Resolver = Callable[[str, int], Sequence[tuple]]  # getaddrinfo-like: (family, type, proto, canon, sockaddr)


def _getaddrinfo(host: str, port: int) -> Sequence[tuple]:
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


class AddressGuard:
    """Checks the address of every connection (module docstring).
    ``allow_private``: skip the address classes (the config's
    ``fetch.webtext.allow_private_addresses``: a mirror on one's own network,
    the tests' loopback servers); numeric spellings are refused always.
    ``resolver`` (getaddrinfo-like) and ``connect(sockaddr, family, timeout,
    source_address, socket_options)`` are injectable for tests."""

    def __init__(self, allow_private: bool = False, resolver: Resolver | None = None,
                 connect: Callable[..., socket.socket] | None = None):
        self.allow_private = bool(allow_private)
        self.resolver = resolver or _getaddrinfo
        self.connect = connect or _connect

    def check(self, host: str, port: int) -> list[tuple[int, tuple]]:
        """(family, sockaddr) of every address ``host`` resolves to, all checked;
        :class:`AddressRefused` when the host or any of its addresses is refused."""
        host = host.strip("[]")
        why = literal_refusal(host)
        if why:
            raise AddressRefused(f"refused address: host {host!r} is {why}")
        try:  # an IP literal is its own address: nothing to resolve
            ip = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            infos = self.resolver(host, port)  # socket.gaierror: a connection failure
        else:
            family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
            infos = [(family, socket.SOCK_STREAM, 0, "", (host, port, 0, 0) if ip.version == 6 else (host, port))]
        out = []
        for family, _type, _proto, _canon, sockaddr in infos:
            if family not in (socket.AF_INET, socket.AF_INET6):
                continue
            why = None if self.allow_private else refused_reason(sockaddr[0])
            if why:
                raise AddressRefused(f"refused address: {host} resolves to {sockaddr[0]} ({why})")
            out.append((family, sockaddr))
        if not out:
            raise socket.gaierror(f"{host!r} resolves to no IP address")
        return out

    def check_url(self, url: str) -> None:
        """Check a URL's host without connecting (the target behind a proxy)."""
        parts = urlsplit(url)
        self.check(parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))


def _connect(sockaddr: tuple, family: int, timeout, source_address, socket_options) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        for opt in socket_options or ():
            sock.setsockopt(*opt)
        if timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:  # type: ignore[attr-defined]
            sock.settimeout(timeout)
        if source_address:
            sock.bind(source_address)
        sock.connect(sockaddr)
        return sock
    except BaseException:
        sock.close()
        raise


class _GuardedConnection(HTTPConnection):
    guard: AddressGuard  # set on the per-guard subclass

    def _new_conn(self) -> socket.socket:
        try:
            addresses = self.guard.check(self._dns_host, self.port)  # AddressRefused passes through urllib3
        except OSError as e:
            raise NewConnectionError(self, f"Failed to resolve {self.host!r} ({e})") from e
        err: OSError | None = None
        for family, sockaddr in addresses:  # the checked addresses, never a second resolution
            try:
                return self.guard.connect(sockaddr, family, self.timeout, self.source_address, self.socket_options)
            except TimeoutError as e:
                raise ConnectTimeoutError(self, f"Connection to {self.host} timed out. "
                                                f"(connect timeout={self.timeout})") from e
            except OSError as e:
                err = e
        raise NewConnectionError(self, f"Failed to establish a new connection: {err}")


class GuardedAdapter(HTTPAdapter):
    """``requests`` adapter whose direct connections go through an :class:`AddressGuard`;
    a request through a proxy has its target's address checked (not pinned) first."""

    def __init__(self, guard: AddressGuard, **kwargs):
        self.guard = guard
        super().__init__(**kwargs)

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        plain = type("GuardedHTTPConnection", (_GuardedConnection,), {"guard": self.guard})
        tls = type("GuardedHTTPSConnection", (_GuardedConnection, HTTPSConnection), {"guard": self.guard})
        self.poolmanager.pool_classes_by_scheme = {
            "http": type("GuardedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": plain}),
            "https": type("GuardedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": tls}),
        }

    def send(self, request, **kwargs):
        if requests.utils.select_proxy(request.url, kwargs.get("proxies")):
            try:
                self.guard.check_url(request.url)
            except OSError as err:
                raise requests.ConnectionError(err, request=request) from None
        return super().send(request, **kwargs)


def environment_proxies(url: str) -> dict[str, str]:
    """The proxies the environment names for ``url`` (``HTTP(S)_PROXY``,
    ``ALL_PROXY``, ``NO_PROXY``), read explicitly: the session trusts no other
    part of the environment (no netrc)."""
    return requests.utils.get_environ_proxies(url)


class HttpClient:
    """``requests`` session with a descriptive User-Agent and the retry policy.
    ``rng``: the jitter's random generator (tests pass a seeded one);
    ``guard``: an :class:`AddressGuard` for every connection (None: none)."""

    def __init__(
        self,
        user_agent: str,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        session: requests.Session | None = None,
        rng: random.Random | None = None,
        guard: AddressGuard | None = None,
    ):
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        self.rng = rng or random.Random()
        self.session = session or requests.Session()
        self.session.trust_env = False  # no ~/.netrc credentials; proxies are read per request
        self.session.headers["User-Agent"] = user_agent
        self.guard: AddressGuard | None = None
        if guard is not None:
            self.set_guard(guard)
        self.waits: list[float] = []  # every backoff wait taken (inspectable in tests and logs)

    def set_guard(self, guard: AddressGuard) -> None:
        """Route every connection of the session through ``guard``."""
        self.guard = guard
        for prefix in ("http://", "https://"):
            self.session.mount(prefix, GuardedAdapter(guard))

    def backoff(self, attempt: int) -> float:
        """The jittered wait before retry ``attempt + 1`` (:func:`backoff_wait`)."""
        return backoff_wait(attempt, self.policy.backoff, self.policy.max_backoff, self.rng)

    def _wait(self, attempt: int, response: requests.Response | None) -> float:
        hinted = retry_after_seconds(response.headers.get("Retry-After")) if response is not None else None
        if hinted is not None:
            return min(hinted, self.policy.max_backoff)
        return self.backoff(attempt)

    def request(self, method: str, url: str, *, secret: bool = False, **kwargs) -> requests.Response:
        """Send with retries; return the final response (2xx or a non-retryable 4xx).
        ``secret``: the request carries a key (in a header): no redirect is
        followed, a 3xx raises :class:`SecretRedirectError`."""
        kwargs.setdefault("timeout", self.policy.timeout)
        kwargs.setdefault("proxies", environment_proxies(url))
        if secret:
            kwargs["allow_redirects"] = False
        where = safe_url(url)
        last = ""
        for attempt in range(self.policy.retries + 1):
            response = None
            try:
                response = self.session.request(method, url, **kwargs)
            except requests.Timeout:
                last = "timed out"
            except requests.TooManyRedirects:
                raise FetchError(f"{where}: too many redirects") from None
            except requests.RequestException as err:
                last = f"connection failed ({type(err).__name__})"
            else:
                if secret and 300 <= response.status_code < 400:
                    target = urljoin(url, response.headers.get("Location", "").strip())
                    response.close()
                    raise SecretRedirectError(
                        f"{where}: HTTP {response.status_code} redirect to {safe_url(target)}; a request that "
                        "carries a key follows no redirect (set the API's final URL in the config)")
                if response.status_code not in RETRY_STATUS:
                    return response
                last = f"HTTP {response.status_code}"
                response.close()
            if attempt == self.policy.retries:
                break
            wait = self._wait(attempt, response)
            self.waits.append(wait)
            log.warning("%s: %s; retry %d/%d in %.1f s", where, last, attempt + 1, self.policy.retries, wait)
            self.sleep(wait)
        raise FetchError(f"{where}: {last} after {self.policy.retries + 1} attempts")

    def get_json(self, url: str, *, params=None, headers=None, json_retries: int | None = None,
                 secret: bool = False) -> Any:
        """GET a JSON document. A non-2xx answer or a body that is not JSON
        raises :class:`FetchError`; a malformed body is retried like a 5xx
        (truncated bodies are usually transient). ``secret``: as for :meth:`request`."""
        where = safe_url(url)
        tries = self.policy.retries if json_retries is None else json_retries
        for attempt in range(tries + 1):
            response = self.request("GET", url, params=params, headers=headers, secret=secret)
            if not 200 <= response.status_code < 300:
                raise FetchError(f"{where}: HTTP {response.status_code}")
            try:
                return response.json()
            except (ValueError, json.JSONDecodeError):
                if attempt == tries:
                    break
                wait = self.backoff(attempt)
                self.waits.append(wait)
                log.warning("%s: malformed JSON body; retry %d/%d in %.1f s", where, attempt + 1, tries, wait)
                self.sleep(wait)
        raise FetchError(f"{where}: malformed JSON body after {tries + 1} attempts")


# --- web addresses ---------------------------------------------------------------

def registered_domain(url: str) -> tuple[str | None, str, str]:
    """Return (domain, suffix, drop_reason). domain is None when the row is dropped."""
    raw = url.strip()
    if not raw:
        return None, "", "unparsable_url"
    if "://" not in raw:
        raw = "http://" + raw
    try:
        parts = urlsplit(raw)
        host = parts.hostname
        parts.port  # raises ValueError on a bad port
    except ValueError:
        return None, "", "unparsable_url"
    if not host or any(c.isspace() for c in host):
        return None, "", "unparsable_url"
    try:
        ipaddress.ip_address(host)
        return None, "", "ip_host"
    except ValueError:
        pass
    ext = _EXTRACT(host)
    if not ext.domain or not ext.suffix:
        return None, "", "no_registered_domain"
    return f"{ext.domain}.{ext.suffix}".lower(), ext.suffix.lower(), ""


def tld_prior_score(domain: str, scores: Mapping[str, float], default: float) -> float:
    """Score of a registered domain by its public suffix: the whole suffix
    (``gov.cn``) first, then its last label (``cn``), else the default."""
    suffix = domain.split(".", 1)[1] if "." in domain else ""
    if suffix in scores:
        return float(scores[suffix])
    last = suffix.rsplit(".", 1)[-1]
    return float(scores.get(last, default))
