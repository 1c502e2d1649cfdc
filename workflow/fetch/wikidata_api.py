"""The Wikidata Action API client of the sitelink fetcher
(:mod:`authbench.fetch.wikidata`): one endpoint
(``https://www.wikidata.org/w/api.php`` by default) asked through the shared
:class:`~authbench.net.HttpClient`, its JSON answers parsed, maxlag waited
out and its errors named (:class:`ActionApi`, :class:`WikidataApiError`), and
the form of a Wikibase item id (:data:`QID_RE`).

Errors and retries
  * HTTP 429/5xx, timeouts and connection errors are retried by HttpClient.
  * ``{"error": {"code": "maxlag", "lag": 3, ...}}`` (HTTP 200 with a
    ``Retry-After`` header) -> wait Retry-After, else ``lag``, else the policy
    backoff, capped at ``policy.max_backoff``, through ``client.sleep``; the same
    request is repeated up to ``policy.retries`` times, then the batch fails.
  * A malformed JSON body is retried like a 5xx, then fails the batch. Any other
    ``{"error": ...}`` fails the batch with its code (:class:`WikidataApiError`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from authbench.errors import FetchError
from authbench.net import HttpClient, retry_after_seconds, safe_url

log = logging.getLogger("authbench.fetch.wikidata")  # the sitelink fetcher's log

API_URL = "https://www.wikidata.org/w/api.php"
QID_RE = re.compile(r"Q[1-9][0-9]{0,9}")  # a Wikibase item id: Q + 1-10 digits, no leading zero


class WikidataApiError(FetchError):
    """The API answered ``{"error": {...}}`` with a code other than a (retried) maxlag."""

    def __init__(self, code: str, info: str, detail: Mapping[str, Any]):
        super().__init__(f"API error {code}: {info}" if info else f"API error {code}")
        self.code = code
        self.info = info
        self.detail = dict(detail)


class ActionApi:
    """One Action API endpoint: JSON parsing, maxlag waits, API errors."""

    def __init__(self, client: HttpClient, api_url: str, maxlag: int | None):
        self.client = client
        self.api_url = api_url
        self.maxlag = maxlag
        self.requests: Counter = Counter()
        self.maxlag_waits = 0

    def _pause(self, wait: float, why: str) -> None:
        wait = min(max(wait, 0.0), self.client.policy.max_backoff)
        self.client.waits.append(wait)
        log.warning("%s: %s; retry in %.1f s", safe_url(self.api_url), why, wait)
        self.client.sleep(wait)

    def _maxlag_wait(self, response, error: Mapping, attempt: int) -> float:
        hinted = retry_after_seconds(response.headers.get("Retry-After"))
        if hinted is not None:
            return hinted
        lag = error.get("lag")
        if isinstance(lag, (int, float)) and not isinstance(lag, bool):
            return float(lag)
        return self.client.backoff(attempt)

    def get(self, params: Mapping[str, Any]) -> dict:
        """The answer's JSON object to ``params`` (``format=json`` and ``maxlag``
        added); :class:`FetchError` or :class:`WikidataApiError` when it fails."""
        params = {**params, "format": "json"}
        if self.maxlag is not None:
            params["maxlag"] = self.maxlag
        where = safe_url(self.api_url)
        retries = self.client.policy.retries
        lagged = malformed = 0
        while True:
            self.requests[str(params.get("action"))] += 1
            response = self.client.request("GET", self.api_url, params=params)
            if not 200 <= response.status_code < 300:
                raise FetchError(f"{where}: HTTP {response.status_code}")
            try:
                data = response.json()
            except ValueError:
                data = None
            if not isinstance(data, dict):  # malformed or truncated body, or not an object
                if malformed >= retries:
                    raise FetchError(f"{where}: malformed JSON body after {malformed + 1} attempts")
                self._pause(self.client.backoff(malformed), "malformed JSON body")
                malformed += 1
                continue
            error = data.get("error")
            if error is None:
                return data
            error = error if isinstance(error, Mapping) else {"code": str(error)}
            code = str(error.get("code", "unknown"))
            if code != "maxlag":
                raise WikidataApiError(code, str(error.get("info", "")), error)
            if lagged >= retries:
                raise FetchError(f"{where}: maxlag: still lagged after {lagged + 1} attempts ({error.get('info', '')})")
            self._pause(self._maxlag_wait(response, error, lagged), f"maxlag ({error.get('info', '')})")
            self.maxlag_waits += 1
            lagged += 1
