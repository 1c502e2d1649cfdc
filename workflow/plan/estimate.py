"""Inputs the plan estimates because they do not exist yet: the homepage
texts of DomainAuth's with-text cells (fetched from the web by the
``fetch_webtext`` rule) and the RAGAuth release (not redistributed). The
plan then builds, in memory, what the workflow would build from them, from
what the config fixes, and says so (:attr:`Estimated.notes`, in ``plan.md``):

* **Homepage texts.** Every legitimate domain of ``domainauth.source``
  stands in with a text of exactly ``domainauth.text_max_words`` words (the
  truncation limit: the per-page figure is the limit itself, so a homepage
  that gives fewer words costs less and one that gives none is dropped; an
  upper bound per page), written in plain English web-page words
  (:data:`STAND_IN_WORDS`). The lists and pairs are drawn from these domains
  as the ``domainauth_sample`` rule draws them: the same counts (the config
  fixes them), other domains where the fetch drops some.
* **RAGAuth.** :data:`RAG_QUESTIONS` yes/no questions (the release's size,
  Table 5) with :data:`RAG_DOCS` documents each (its retrieval depth), every
  document long enough to be cut at ``ragauth.doc_tokens`` tokens (the cut is
  the per-document figure). The run itself leaves RAGAuth out until the
  release is at ``ragauth.source``: its cells are planned apart
  (``plan.md`` gives them beside each model's total).

``benchmarks/standins.py`` writes the same texts and RAGAuth file to disk
(for a run or an exact count of the paper grid on a machine without them).
"""

from __future__ import annotations

import dataclasses
import json
import random
import tempfile
from pathlib import Path
from typing import Any, Mapping

STAND_IN = "[rehearsal stand-in]"
RAG_QUESTIONS, RAG_DOCS = 120, 10
STAND_IN_WORDS = (
    "welcome to our official site find news services products and support information about our organization "
    "read the latest updates contact us learn more about our history mission and team browse resources reports "
    "events and publications sign in to your account or create a new one to access member content"
).split()


def stand_in_text(domain: str, words: int) -> str:
    """A homepage text of exactly ``words`` words: the marker, the domain, then web-page words."""
    head = [*STAND_IN.split(), domain, "-"]
    fill = max(0, words - len(head))
    body = (STAND_IN_WORDS * (fill // len(STAND_IN_WORDS) + 1))[:fill]
    return " ".join((head + body)[:words])


@dataclasses.dataclass
class Estimated:
    """What the plan stood in for: ``notes`` (one sentence each, for
    ``plan.md``); ``ragauth_apart``: RAGAuth's cells are planned but the run
    leaves them out (its release is absent)."""

    notes: list[str] = dataclasses.field(default_factory=list)
    ragauth_apart: bool = False


def texts_missing(config: Mapping[str, Any], exists) -> bool:
    """Whether DomainAuth's configured homepage texts do not exist yet."""
    dom = config.get("domainauth") or {}
    return ("domainauth" in config.get("studies", ()) and bool(dom.get("text"))
            and "w_text" in config.get("contexts", ()) and not exists(dom["text"]))


def ragauth_missing(config: Mapping[str, Any], exists) -> bool:
    """Whether RAGAuth is studied but its release is not at ``ragauth.source`` (and no ``build`` makes one)."""
    from authbench.config import rag_plan

    rag = rag_plan(config, exists)
    return not rag.cells and bool(rag_plan(config, lambda _: True).cells)


def domain_instances(config: Mapping[str, Any], estimated: Estimated) -> dict[str, list[dict]]:
    """DomainAuth's instances per setting, drawn as the workflow draws them,
    from every legitimate domain with a stand-in text (module docstring)."""
    from authbench.studies.authority.domains import build_domain_labels
    from authbench.studies.authority.labels import label_spec
    from authbench.studies.authority.sampling import sample_all

    dom = config["domainauth"]
    words = int(dom["text_max_words"])
    spec = label_spec(dom.get("label"), "page_rank", "integer", "domainauth.label")
    built = build_domain_labels(dom["source"], dom.get("status_filter"), dom["categories"], None, spec)
    domains = [dataclasses.replace(d, text=stand_in_text(d.domain, words)) for d in built.domains]
    estimated.notes.append(
        f"homepage texts ({dom['text']}) are not fetched yet: each of the {len(domains):,} domains stands in with a "
        f"text of domainauth.text_max_words = {words} words (the truncation limit, an upper bound per page: a "
        "homepage with fewer words costs less, one with none is dropped) in plain web-page words; lists and pairs "
        "drawn from them as the workflow draws them (the same counts)")
    return sample_all(domains, dom["sampling"], config["seed"])


def stand_in_ragauth(config: Mapping[str, Any], seed: int) -> list[dict]:
    """:data:`RAG_QUESTIONS` records in the release's format (Figure 5),
    each with :data:`RAG_DOCS` documents of ``ragauth.doc_tokens`` words and
    more (at least one token a word: every document reaches the cut)."""
    from authbench.studies.authority.domains import build_domains

    dom = config["domainauth"]
    domains, _ = build_domains(dom["source"], dom.get("status_filter"), dom["categories"])
    rng = random.Random(seed)
    words = int(config["ragauth"]["doc_tokens"])
    topics = list((config["ragauth"].get("topics") or {"MED": "medical"}).keys())
    records = []
    for i in range(RAG_QUESTIONS):
        docs = []
        for j, d in enumerate(rng.sample(domains, RAG_DOCS)):
            text = stand_in_text(f"document {j + 1} for question {i + 1}.", words + rng.randint(0, words))
            docs.append({"docid": f"doc_{j + 1:03d}", "url": f"https://www.{d.domain}/page/{i}-{j}",
                         "domain": d.domain, "PageRank": d.level, "authority": "high" if d.level >= 5 else "low",
                         "doc_text": text})
        records.append({"qid": f"{topics[i % len(topics)]}_EN_{i + 1:03d}",
                        "question": f"{STAND_IN} Is statement {i + 1} of this generated question set true?",
                        "question_type": "yes_no", "language": "en", "ground_truth": "Yes" if i % 2 == 0 else "No",
                        "documents": docs})
    return records


def rag_questions(config: Mapping[str, Any], estimated: Estimated) -> list[dict]:
    """RAGAuth's questions as the ``ragauth_dataset`` rule would read them from the stand-in release."""
    from authbench.studies.ragauth.dataset import load_ragauth

    rc = config["ragauth"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ragauth.json"
        path.write_text(json.dumps(stand_in_ragauth(config, config["seed"])))
        questions = load_ragauth(path, rc.get("topics"))
    estimated.ragauth_apart = True
    estimated.notes.append(
        f"the RAGAuth release is not at ragauth.source ({rc['source']}): {RAG_QUESTIONS} yes/no questions (the "
        f"release's size) with {RAG_DOCS} documents each stand in, every document cut at ragauth.doc_tokens = "
        f"{rc['doc_tokens']} tokens (an upper bound per document); the run leaves RAGAuth out until the release is "
        "there, so its cells are planned apart from each model's total")
    return questions
