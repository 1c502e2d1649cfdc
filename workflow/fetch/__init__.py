"""Fetchers that build labels and texts from the web (issue: researchers' own data).

Every fetcher speaks a real public API's format, retries transient failures,
keeps a progress cache on disk (:mod:`.cache`) so an interrupted fetch resumes
without asking again for finished items, and never writes a secret anywhere.
"""
