"""EntityAuth labels from Wikidata: entity names -> sitelink counts (Ni et al. 2025 format).

:func:`fetch_sitelinks` resolves the entities of a researcher's own list
(:func:`authbench.fetch.entity_lists.read_entities`) to Wikidata items and
counts their sitelinks; :mod:`authbench.fetch.entity_lists` writes the
benchmark's JSONL, one object per entity: ``question``, ``reference``,
``popularity`` (= number of Wikidata sitelinks), ``question_entity`` (= the
name), plus ``qid`` and ``resolved_by``. Everything goes through the MediaWiki
Action API of Wikidata (``https://www.wikidata.org/w/api.php``) with the
shared :class:`HttpClient` (:class:`authbench.fetch.wikidata_api.ActionApi`).

Resolution order (:func:`fetch_sitelinks`), each name reaching exactly one outcome
  1. ``qid`` given -> ``wbgetentities&ids=Q1|Q2&props=sitelinks`` (<= batch_size
     ids a request). ``resolved_by="qid"``. An id answered ``"missing": ""`` (or
     rejected with error ``no-such-entity``) is unresolved ``missing_qid``: no
     fallback to the name, the researcher named that item. A merged item is
     followed (``redirects=yes`` is the API default) and the target id is kept.
  2. no ``qid`` -> the name as a title of ``site`` (English Wikipedia by default):
     ``wbgetentities&sites=enwiki&titles=A|B&props=sitelinks``, <= batch_size
     distinct titles a request. The title is normalized client side the way the
     sitelink table stores it: NFC, ``_`` and runs of spaces -> one space,
     stripped, first letter upper-cased (every site except wiktionaries).
     ``normalize=1`` is not used: the API refuses it unless exactly one title is
     given. Answers map back by (site, normalized title): found items by their
     ``sitelinks[site].title``, misses by the ``site``/``title`` of the entries
     keyed ``"-1"``, ``"-2"``, ... carrying ``"missing": ""``. A Wikipedia
     *page* redirect is not followed by this lookup (only merged *items* are), so
     a redirect title comes back missing and goes on to step 3.
     ``resolved_by="title"``. Names that cannot be titles (characters
     ``# < > [ ] | { }`` or control characters, > 255 bytes) skip to step 3.
  3. title missing and ``search=True`` ->
     ``wbsearchentities&search=<name>&language=en&type=item&limit=5``. A hit
     is *exact* when its ``label`` or its ``match.text`` equals the name after
     NFC, whitespace collapsing and case folding. Exactly one exact item ->
     resolved (``resolved_by="search"``), its sitelinks then fetched like step 1;
     two or more -> unresolved ``ambiguous`` with ``candidates`` "Q1|Q2" (never
     guessed); none -> unresolved ``unknown``. With ``search=False`` a missing
     title is ``unknown`` at once.
  4. Output assembly, in input order: one row per item. A name whose item was
     already taken by an earlier name is unresolved ``duplicate_qid``
     (candidates = that qid).

Sitelink counting: ``popularity`` = the number of keys of the entity's
``sitelinks`` object as wbgetentities returns it without ``sitefilter``: every
site (Wikipedias, Wikiquote, Wikisource, Commons, ...), which is what SPARQL's
``wikibase:sitelinks`` counts. An empty object (or PHP's empty list ``[]``) is 0.

Errors and retries: HTTP errors, maxlag, malformed bodies and API errors as
:mod:`authbench.fetch.wikidata_api` handles them; then
  * A failed batch puts its names in ``outcome.failed`` (name, reason); they are
    *not* cached and the fetch goes on with the next batch. An asked id/title
    absent from an otherwise good answer fails alone ("missing from answer").

Cache (:class:`ProgressCache`, key = name): written right after each batch or
search for every name with a final answer: resolved items and the definitive
unresolved reasons (``unknown``, ``ambiguous``, ``missing_qid``). Failures and
half-done names (title missing, search or sitelinks still to come) are not
written, so a rerun asks only for those. A cached answer is reused only if it
was made for the same ``qid`` (or none) and ``site``; an ``unknown`` made with
``search=False`` is redone when ``search=True``. ``question``/``reference``
always come from the current input, never the cache. Duplicate-qid checks run at
assembly time and are never cached.

``question`` is copied from the input, or left ``""`` (the caller may fill it
from a pattern); no question is invented here. The User-Agent is the client's.
"""

from __future__ import annotations

import logging
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from authbench.errors import FetchError
from authbench.fetch.cache import ProgressCache
from authbench.fetch.wikidata_api import API_URL, QID_RE, ActionApi, WikidataApiError
from authbench.net import HttpClient
from tqdm import tqdm

log = logging.getLogger("authbench.fetch.wikidata")

TITLE_ILLEGAL = re.compile(r"[#<>\[\]|{}\x00-\x1f\x7f]")
SEARCH_LIMIT = 5
FINAL_REASONS = ("unknown", "ambiguous", "missing_qid")


@dataclass
class SitelinkOutcome:
    """What :func:`fetch_sitelinks` gives: the resolved rows, the unresolved
    names (name, reason, candidates), the failed ones (name, reason) and the
    fetch's counts."""

    rows: list[dict] = field(default_factory=list)
    unresolved: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    stats: dict = field(default_factory=dict)


# ------------------------------------------------------------------- normalization


def normalize_title(name: str, site: str = "enwiki") -> str:
    """The form in which Wikibase stores a sitelink title (see the module rules)."""
    title = re.sub(r"[ _]+", " ", unicodedata.normalize("NFC", name)).strip()
    if title and not site.endswith("wiktionary"):
        first = title[0].upper()
        if len(first) == 1:
            title = first + title[1:]
    return title


def title_for(name: str, site: str = "enwiki") -> str | None:
    """The title to ask for, or None when the name cannot be a page title."""
    title = normalize_title(name, site)
    if not title or TITLE_ILLEGAL.search(title) or len(title.encode("utf-8")) > 255:
        return None
    return title


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split()).casefold()


def exact_search_hits(name: str, hits: Iterable[Mapping]) -> list[str]:
    """Ids (first-seen order, distinct) of items whose label or matched term equals ``name``."""
    want = _fold(name)
    ids: list[str] = []
    for hit in hits:
        if not isinstance(hit, Mapping):
            continue
        match = hit.get("match") if isinstance(hit.get("match"), Mapping) else {}
        texts = [hit.get("label"), match.get("text")]
        qid = hit.get("id")
        if isinstance(qid, str) and any(isinstance(t, str) and _fold(t) == want for t in texts) and qid not in ids:
            ids.append(qid)
    return ids


def sitelink_count(entity: Mapping) -> int:
    """Number of sitelinks (keys of ``sitelinks``); raises FetchError if the key is absent."""
    links = entity.get("sitelinks")
    if isinstance(links, dict):
        return len(links)
    if isinstance(links, list) and not links:  # PHP serializes an empty map as []
        return 0
    raise FetchError(f"entity {entity.get('id', '?')}: answer without a sitelinks object")


def _chunks(items: Sequence[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])



# ------------------------------------------------------------------------- fetch


class _Fetch:
    """State of one :func:`fetch_sitelinks` call."""

    def __init__(self, api: ActionApi, cache: ProgressCache, site: str, batch_size: int, search: bool, bar: tqdm):
        self.api, self.cache, self.site, self.batch_size, self.search, self.bar = api, cache, site, batch_size, search, bar
        self.done: dict[str, dict] = {}      # name -> final record (cached ones included)
        self.failed: dict[str, str] = {}     # name -> reason
        self.asked_qid: dict[str, str] = {}  # name -> qid from the input ("" when none)

    # -- bookkeeping
    def _finish(self, records: list[dict]) -> None:
        self.cache.add(records)
        for rec in records:
            self.done[rec["key"]] = rec
        self.bar.update(len(records))

    def _fail(self, names: Iterable[str], reason: str) -> None:
        names = [n for n in names if n not in self.failed]
        for name in names:
            self.failed[name] = reason
        self.bar.update(len(names))
        if names:
            log.warning("%d name(s) failed: %s", len(names), reason)

    def _resolved(self, name: str, entity: Mapping, by: str) -> dict:
        if not isinstance(entity.get("id"), str) or not QID_RE.fullmatch(entity["id"]):
            raise FetchError(f"answer for {name!r} without an item id")
        links = entity.get("sitelinks")
        own = links.get(self.site) if isinstance(links, dict) else None
        return {
            "key": name, "status": "resolved", "qid": str(entity.get("id")), "popularity": sitelink_count(entity),
            "resolved_by": by, "wiki_title": own.get("title", "") if isinstance(own, dict) else "",
            "asked_qid": self.asked_qid[name], "site": self.site,
        }

    def _unresolved(self, name: str, reason: str, candidates: Sequence[str] = (), searched: bool = False) -> dict:
        return {
            "key": name, "status": "unresolved", "reason": reason, "candidates": "|".join(candidates),
            "asked_qid": self.asked_qid[name], "site": self.site, "searched": searched,
        }

    # -- stage: ids
    def _ids_batch(self, ids: list[str]) -> dict[str, dict]:
        """Asked id -> entity (or a ``missing`` entry) for one batch; rejected ids come back missing."""
        answered: dict[str, dict] = {}
        while ids:
            try:
                data = self.api.get({"action": "wbgetentities", "ids": "|".join(ids), "props": "sitelinks"})
            except WikidataApiError as err:
                bad = err.detail.get("id")
                if err.code != "no-such-entity" or bad not in ids:
                    raise
                answered[bad] = {"id": bad, "missing": ""}
                ids = [i for i in ids if i != bad]
                continue
            entities = data.get("entities")
            if not isinstance(entities, dict):
                raise FetchError("answer without an 'entities' object")
            for key, entity in entities.items():
                if isinstance(entity, dict):
                    answered[key if key in ids else str(entity.get("id"))] = entity
            break
        return answered

    def _by_ids(self, wanted: Mapping[str, list[str]], by: str) -> None:
        """Fetch sitelinks for ``qid -> names`` and finish or fail those names."""
        for batch in _chunks(list(wanted), self.batch_size):
            try:
                answered = self._ids_batch(batch)
            except FetchError as err:
                self._fail([n for q in batch for n in wanted[q]], str(err))
                continue
            records, absent = [], []
            for qid in batch:
                entity = answered.get(qid)
                if entity is None:
                    absent.extend(wanted[qid])
                elif "missing" in entity:
                    reason = "missing_qid" if by == "qid" else "unknown"
                    records += [self._unresolved(n, reason, [qid], searched=by == "search") for n in wanted[qid]]
                else:
                    try:
                        records += [self._resolved(n, entity, by) for n in wanted[qid]]
                    except FetchError as err:
                        self._fail(wanted[qid], str(err))
            self._finish(records)
            self._fail(absent, "missing from answer")

    # -- stage: titles
    def _titles_batch(self, titles: list[str]) -> dict[str, dict]:
        data = self.api.get({"action": "wbgetentities", "sites": self.site, "titles": "|".join(titles), "props": "sitelinks"})
        entities = data.get("entities")
        if not isinstance(entities, dict):
            raise FetchError("answer without an 'entities' object")
        answered: dict[str, dict] = {}
        for entity in entities.values():
            if not isinstance(entity, dict):
                continue
            if "missing" in entity:
                if entity.get("site", self.site) == self.site and isinstance(entity.get("title"), str):
                    answered[normalize_title(entity["title"], self.site)] = entity
                continue
            links = entity.get("sitelinks")
            own = links.get(self.site) if isinstance(links, dict) else None
            if isinstance(own, dict) and isinstance(own.get("title"), str):
                answered[normalize_title(own["title"], self.site)] = entity
        return answered

    def _by_titles(self, wanted: Mapping[str, list[str]]) -> list[str]:
        """Finish names found as titles; return the names whose title is missing."""
        missing: list[str] = []
        for batch in _chunks(list(wanted), self.batch_size):
            try:
                answered = self._titles_batch(batch)
            except FetchError as err:
                self._fail([n for t in batch for n in wanted[t]], str(err))
                continue
            records, absent, not_titles = [], [], []
            for title in batch:
                entity = answered.get(title)
                if entity is None:
                    absent.extend(wanted[title])
                elif "missing" in entity:
                    not_titles.extend(wanted[title])
                else:
                    try:
                        records += [self._resolved(n, entity, "title") for n in wanted[title]]
                    except FetchError as err:
                        self._fail(wanted[title], str(err))
            if self.search:
                missing += not_titles
            else:
                records += [self._unresolved(n, "unknown") for n in not_titles]
            self._finish(records)
            self._fail(absent, "missing from answer")
        return missing

    # -- stage: search
    def _by_search(self, names: list[str]) -> dict[str, list[str]]:
        """Search each name; finish ambiguous/unknown ones; return ``qid -> names`` to fetch."""
        found: dict[str, list[str]] = {}
        for name in names:
            params = {"action": "wbsearchentities", "search": name, "language": "en", "type": "item", "limit": SEARCH_LIMIT}
            try:
                hits = self.api.get(params).get("search")
                if not isinstance(hits, list):
                    raise FetchError("answer without a 'search' list")
            except FetchError as err:
                self._fail([name], str(err))
                continue
            ids = exact_search_hits(name, hits)
            if len(ids) == 1:
                found.setdefault(ids[0], []).append(name)
            else:
                self._finish([self._unresolved(name, "ambiguous" if ids else "unknown", ids, searched=True)])
        return found


def _reusable(rec: Mapping, asked_qid: str, site: str, search: bool) -> bool:
    if rec.get("asked_qid", "") != asked_qid or rec.get("site") != site:
        return False
    if rec.get("status") == "resolved":
        return isinstance(rec.get("qid"), str) and isinstance(rec.get("popularity"), int)
    if rec.get("status") != "unresolved" or rec.get("reason") not in FINAL_REASONS:
        return False
    return not (search and rec.get("reason") == "unknown" and not rec.get("searched") and not asked_qid)


def _assemble(entities: list[dict], run: _Fetch, stats: dict) -> SitelinkOutcome:
    out = SitelinkOutcome(stats=stats)
    owner: dict[str, str] = {}
    for ent in entities:
        name = ent["name"]
        rec = run.done.get(name)
        if name in run.failed or rec is None:  # no answer at all cannot happen; never drop a name silently
            out.failed.append({"name": name, "reason": run.failed.get(name, "no answer")})
        elif rec["status"] == "unresolved":
            out.unresolved.append({"name": name, "reason": rec["reason"], "candidates": rec.get("candidates", "")})
        elif rec["qid"] in owner:
            out.unresolved.append({"name": name, "reason": "duplicate_qid", "candidates": rec["qid"]})
        else:
            owner[rec["qid"]] = name
            out.rows.append({
                "question": ent.get("question") or "", "reference": list(ent.get("reference") or []),
                "popularity": rec["popularity"], "question_entity": name, "qid": rec["qid"],
                "resolved_by": rec["resolved_by"], "wiki_title": rec.get("wiki_title", ""),
            })
    return out


def fetch_sitelinks(
    entities: Sequence[Mapping],
    client: HttpClient,
    cache: ProgressCache,
    *,
    api_url: str = API_URL,
    site: str = "enwiki",
    batch_size: int = 50,
    maxlag: int | None = 5,
    search: bool = True,
    progress: bool = True,
) -> SitelinkOutcome:
    """Resolve entity names to Wikidata items and count their sitelinks (rules: module docstring)."""
    if not 1 <= batch_size <= 50:
        raise ValueError("batch_size must be 1..50 (the API's limit for ids/titles without bot rights)")
    clean: list[dict] = []
    seen: set[str] = set()
    for ent in entities:
        name = str(ent.get("name") or "").strip()
        if name and name not in seen:
            seen.add(name)
            clean.append({**ent, "name": name})

    cached = cache.load()
    todo = [e for e in clean if not (e["name"] in cached and _reusable(cached[e["name"]], e.get("qid") or "", site, search))]
    api = ActionApi(client, api_url, maxlag)
    with tqdm(total=len(todo), desc="wikidata sitelinks", unit="name", file=sys.stderr, disable=not progress) as bar:
        run = _Fetch(api, cache, site, batch_size, search, bar)
        pending = {e["name"] for e in todo}
        run.done.update({e["name"]: cached[e["name"]] for e in clean if e["name"] not in pending})
        run.asked_qid.update({e["name"]: e.get("qid") or "" for e in clean})

        by_qid: dict[str, list[str]] = {}
        by_title: dict[str, list[str]] = {}
        untitled: list[str] = []
        for ent in todo:
            if ent.get("qid"):
                by_qid.setdefault(ent["qid"], []).append(ent["name"])
            elif (title := title_for(ent["name"], site)) is not None:
                by_title.setdefault(title, []).append(ent["name"])
            else:
                untitled.append(ent["name"])

        run._by_ids(by_qid, "qid")
        to_search = run._by_titles(by_title)
        if search:
            to_search += untitled
        else:
            run._finish([run._unresolved(n, "unknown") for n in untitled])
        run._by_ids(run._by_search(to_search), "search")

    stats = {
        "entities": len(clean),
        "from_cache": len(clean) - len(todo),
        "requests": dict(api.requests),
        "maxlag_waits": api.maxlag_waits,
        "cache_torn_lines": cache.torn_lines,
    }
    out = _assemble(clean, run, stats)
    stats.update(
        resolved=len(out.rows),
        resolved_by=dict(Counter(r["resolved_by"] for r in out.rows)),
        unresolved=dict(Counter(u["reason"] for u in out.unresolved)),
        failed=len(out.failed),
    )
    return out
