"""Web addresses and the one HTTP client.

:func:`registered_domain` reduces a URL to its registered domain (every study
and fetcher uses it); :func:`tld_prior_score` scores a domain by its public
suffix (the TLD-prior baseline of DomainAuth and RAGAuth).

The HTTP client of every fetcher and of the ``openai`` engine: timeouts, retries, backoff, ``Retry-After``.

* Transient failures are retried: connection errors, timeouts, HTTP 429 and
  5xx. The wait is the server's ``Retry-After`` (seconds or an HTTP date) when
  it sends one, else ``backoff * 2**attempt``; both are capped at
  ``max_backoff``. After ``retries`` retries the call raises :class:`FetchError`.
* Other 4xx answers are returned to the caller, which decides what they mean.
* Error messages name the URL *without* its query string and never include
  request headers, so an API key sent in a header (Open PageRank's ``API-OPR``)
  cannot leak into logs, outputs or exceptions.
"""

from __future__ import annotations

import email.utils
import ipaddress
import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit, urlunsplit

import requests
import tldextract
from authbench.errors import FetchError

log = logging.getLogger("authbench.fetch")

_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)  # bundled suffix list, no network

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


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


class HttpClient:
    """``requests`` session with a descriptive User-Agent and the retry policy."""

    def __init__(
        self,
        user_agent: str,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        session: requests.Session | None = None,
    ):
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = user_agent
        self.waits: list[float] = []  # every backoff wait taken (inspectable in tests and logs)

    def _wait(self, attempt: int, response: requests.Response | None) -> float:
        hinted = retry_after_seconds(response.headers.get("Retry-After")) if response is not None else None
        wait = hinted if hinted is not None else self.policy.backoff * (2**attempt)
        return min(wait, self.policy.max_backoff)

    def request(self, method: str, url: str, **kwargs) -> requests.Response:
        """Send with retries; return the final response (2xx or a non-retryable 4xx)."""
        kwargs.setdefault("timeout", self.policy.timeout)
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

    def get_json(self, url: str, *, params=None, headers=None, json_retries: int | None = None) -> Any:
        """GET a JSON document. A non-2xx answer or a body that is not JSON
        raises :class:`FetchError`; a malformed body is retried like a 5xx
        (truncated bodies are usually transient)."""
        where = safe_url(url)
        tries = self.policy.retries if json_retries is None else json_retries
        for attempt in range(tries + 1):
            response = self.request("GET", url, params=params, headers=headers)
            if not 200 <= response.status_code < 300:
                raise FetchError(f"{where}: HTTP {response.status_code}")
            try:
                return response.json()
            except (ValueError, json.JSONDecodeError):
                if attempt == tries:
                    break
                wait = min(self.policy.backoff * (2**attempt), self.policy.max_backoff)
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
