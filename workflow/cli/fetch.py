"""Command-line steps of the fetchers: URL logs, Open PageRank, homepage
texts, Wikidata sitelinks (``fetch-*``)."""

from __future__ import annotations

import json
import logging

from authbench.records import mkparent
from authbench.errors import FetchError

log = logging.getLogger("authbench")


def _http_client(params, guard=None):
    from authbench.net import HttpClient, RetryPolicy

    agent = params.get("user_agent") or "authbench-pipeline (LLM-as-judge studies rebuild; set fetch.user_agent)"
    return HttpClient(agent, RetryPolicy.from_config(params.get("http")), guard=guard)


def _fail_if_incomplete(what: str, failed: list[dict], cache: str | None) -> None:
    """Transport failures are not cached: the job fails, a rerun asks only for them."""
    if failed:
        first = "; ".join(f"{f.get('domain') or f.get('name')}: {f['reason']}" for f in failed[:3])
        where = f" (finished items are kept in {cache})" if cache else ""
        raise FetchError(f"{what}: {len(failed)} item(s) could not be fetched, e.g. {first}. "
                         f"Rerun to resume{where}.")


def cmd_fetch_urllog(args, params) -> None:
    from authbench.fetch.urllog import ingest_urllog, write_domains, write_drops

    rows, drops = ingest_urllog(args.input, fmt=params["format"],
                                url_columns=tuple(params.get("url_columns", ["url"])), separator=params.get("separator"))
    mkparent(args.domains, args.drops)
    write_domains(rows, args.domains)
    write_drops(drops, args.drops)
    log.info("%d domains; drops: %s", len(rows), dict(drops))


def cmd_fetch_pagerank(args, params) -> None:
    from authbench.fetch.cache import ProgressCache
    from authbench.fetch.pagerank import (
        api_key_from_env,
        bulk_pagerank,
        fetch_openpagerank,
        read_domain_list,
        write_pagerank,
    )

    domains, drops = read_domain_list(args.domains)
    log.info("%d domains to label; input drops: %s", len(domains), dict(drops))
    if params["method"] == "bulk":
        outcome = bulk_pagerank(args.bulk_file[0], domains, rounding=params.get("rounding", "round"))
    else:
        key = api_key_from_env(params.get("api_key_env", "OPENPAGERANK_API_KEY"))
        kwargs = {k: params[k] for k in ("batch_size",) if k in params}
        if params.get("api_url"):
            kwargs["url"] = params["api_url"]
        outcome = fetch_openpagerank(domains, _http_client(params), key, ProgressCache(args.cache),
                                     allow_http=params["allow_http"], **kwargs)
    log.info("stats: %s", json.dumps(outcome.stats, sort_keys=True))
    _fail_if_incomplete("fetch-pagerank", outcome.failed, args.cache if params["method"] == "api" else None)
    mkparent(args.out)
    write_pagerank(outcome.rows, args.out)


def cmd_fetch_webtext(args, params) -> None:
    from authbench.fetch.cache import ProgressCache
    from authbench.fetch.pagerank import read_domain_list
    from authbench.fetch.webtext import fetch_texts, write_failures, write_texts
    from authbench.net import AddressGuard

    domains, drops = read_domain_list(args.domains)
    kwargs = {k: params[k] for k in ("max_words", "max_bytes", "max_redirects", "workers", "base_url") if k in params}
    guard = AddressGuard(allow_private=params["allow_private_addresses"])  # the schema's default: false
    outcome = fetch_texts(domains, _http_client(params, guard), ProgressCache(args.cache),
                          page_deadline=params["page_deadline"], **kwargs)
    log.info("stats: %s", json.dumps(outcome.stats, sort_keys=True, default=str))
    mkparent(args.texts, args.failures)
    write_texts(outcome.rows, args.texts)
    write_failures(outcome.rows, args.failures)


def cmd_fetch_sitelinks(args, params) -> None:
    from authbench.fetch.cache import ProgressCache
    from authbench.fetch.entity_lists import read_entities, write_entities, write_unresolved
    from authbench.fetch.wikidata import fetch_sitelinks

    entities, drops = read_entities(args.entities)
    log.info("%d entities; input drops: %s", len(entities), dict(drops))
    kwargs = {k: params[k] for k in ("site", "batch_size", "maxlag", "search") if k in params}
    if params.get("api_url"):
        kwargs["api_url"] = params["api_url"]
    outcome = fetch_sitelinks(entities, _http_client(params), ProgressCache(args.cache), **kwargs)
    log.info("stats: %s", json.dumps(outcome.stats, sort_keys=True, default=str))
    _fail_if_incomplete("fetch-sitelinks", outcome.failed, args.cache)
    pattern = params.get("question_pattern")
    rows = [{**r, "question": r.get("question") or (pattern.replace("{entity}", r["question_entity"]) if pattern else "")}
            for r in outcome.rows]
    mkparent(args.out, args.unresolved)
    write_entities(rows, args.out)
    write_unresolved(outcome.unresolved, outcome.failed, args.unresolved)
    log.info("%d resolved, %d unresolved (see %s)", len(rows), len(outcome.unresolved), args.unresolved)


COMMANDS = {
    "fetch-urllog": (cmd_fetch_urllog, ["input", "domains", "drops"]),
    "fetch-pagerank": (cmd_fetch_pagerank, ["domains", "bulk_file*", "out", "cache"]),
    "fetch-webtext": (cmd_fetch_webtext, ["domains", "texts", "failures", "cache"]),
    "fetch-sitelinks": (cmd_fetch_sitelinks, ["entities", "out", "unresolved", "cache"]),
}
