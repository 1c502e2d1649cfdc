"""Passage sets of the self-preference study: released files -> one question
table and one passage table, through a mapping written in config.

A *source* is one file of records and its mapping: JSON (a list, or an
object of records keyed by id, the key read as field ``id``), JSON lines,
CSV, TSV or Parquet, by the file's name (another name: a JSON list or JSON
lines)::

    file: resources/data/selfpref/nq_passages_gpt35.json
    question: question            # field holding the question text
    answer: true_answer           # field holding the gold answer
    passages:                     # one entry per passage the record carries
      - {author: human, text: human_true, false_text: human_false, false_answer: false_answer}
      - {author: gpt35, text: ai_true, false_text: ai_false, false_answer: false_answer}
      - {author: gpt35, variant: long, text: gpt_long, false_answer: gpt_false_ans}

and in a second source (another file of the same questions)::

      - {author: human, false_text: human_false, false_answer: false_answer, false_for: [gpt35]}

``text`` is the true passage. Its false version is ``false_text`` when given,
else it is made as the paper makes false passages: the gold answer substituted
by ``false_answer`` (case-insensitive, every occurrence). An entry without
``text`` brings only its false passage (``false_text`` is then required).
``variant`` is ``normal`` (default), ``long`` or ``qa``. Any dataset whose
records carry a question, a gold answer and passage texts is added by writing
such a mapping. A file with one row per passage (who wrote it, whether it is
factual, its text) is mapped with ``rows:`` instead
(:mod:`authbench.studies.selfpref.longform`); its rows become the same
per-question entries, so every rule below applies to both forms. A source
gives exactly one of the two forms (:func:`authbench.studies.selfpref.cell_list.selfpref_source_form`);
a long file mapped record-wise is a ``ConfigError`` printing the ``rows:``
mapping to write (:func:`authbench.studies.selfpref.longform.check_not_long`).

``false_for`` (a list of author ids) makes the entry's false passage one *per
evaluator self*: it is shown only to evaluators whose self author is listed,
before an untagged one of the same slot, which every other evaluator sees
(:func:`authbench.studies.selfpref.requests.comparisons`). This is how the
authors pair human false passages (``ChatGPT_inference.py`` /
``Llama_inference.py``): a GPT-self evaluator sees the human passage carrying
*Llama's* false answer (``human_false_llama``), a Llama-self one the human
passage with GPT's, so that in an FF self-vs-human pair the two passages carry
different answers. The passage keeps the tag as ``for_self`` (a sorted list,
``None`` when untagged) and its ``pid`` ends in ``:for-<a>+<b>``.

Rules (each drop counted per reason and author in ``drops.tsv``):

* Questions are joined across sources by their exact text (whitespace
  collapsed); ``qid`` is ``<dataset>-<n>`` in order of first appearance.
* A passage that is the released files' failure sentence
  (:data:`authbench.studies.selfpref.answers.FAIL_PASSAGE`, "Fail to generate a
  passage that includes the answer string.") is ``generation_failed``.
* A passage must still contain the answer it carries (the gold, or its
  author's false answer) by :func:`authbench.studies.selfpref.answers.passage_contains`
  (substring or bag-of-words, the paper's check) — else ``answer_missing``.
* A false passage cannot be made when the gold is not in the true text
  (``answer_not_substituted``) or there is no false answer (``no_false_answer``);
  a false answer equal to the gold is ``false_answer_is_gold``.
* The same (question, author, variant, factuality, ``for_self``) from a
  second source, or a second row of a long file, is a ``duplicate`` (the
  first kept one wins).
* A long-form row whose author value the map sends to null is
  ``author_skipped`` (counted under the file's value).
* A passage whose text is identical to another *variant* of the same author,
  question, factuality and ``for_self`` is a ``duplicate_variant``: of
  identical variants the first in :data:`VARIANTS` order (normal, long, qa) is
  kept, the later ones dropped, and each group is named in the run log (the
  released ``nq_writing_style.json`` has ``llama_qa`` byte-identical to
  ``llama_long`` in all 100 records: the Llama Gen-by-QA passages are dropped).
* A field the mapping names that no record of the file has (misspelt:
  ``false_text: human_false_lama``) is a ``ConfigError`` naming the mapping
  key, the file and the file's fields, close matches first
  (:func:`check_mapping`): a mapped ``false_text`` is never silently
  replaced by substitution. A record without a mapped field that other
  records have, or whose value is not a string, is an ``InputError`` naming
  the file, the record and the field; only ``false_answer`` may be null
  (counted as ``no_false_answer``). The gold and a false answer may be JSON
  numbers (a year), read as their text; a list of answers is an error (one
  answer is substituted).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from authbench.config import with_defaults
from authbench.studies.selfpref.cell_list import selfpref_source_form
from authbench.errors import ConfigError, excerpt
from authbench.seeding import rng
from authbench.studies.selfpref.fields import VARIANTS, check_fields, clean, field, read_passage_records
DROP_REASONS = ("generation_failed", "answer_missing", "answer_not_substituted", "no_false_answer",
                "false_answer_is_gold", "duplicate", "duplicate_variant", "author_skipped")

log = logging.getLogger("authbench")
# selfpref.authors as JSON, set by the study's rules for every job: the import reads it to order the mapping a
# long file mapped record-wise is told to use (an error message only, so not a param: changing it reruns nothing)
AUTHORS_ENV = "AUTHBENCH_SELFPREF_AUTHORS"


# the keys of a source and of its passage entries that name a field of the records
MAPPED_KEYS = ("question", "answer")
MAPPED_PASSAGE_KEYS = ("text", "false_text", "false_answer")


def mapped_fields(source: Mapping) -> list[tuple[str, str]]:
    """(mapping key, field name) of every field a source's mapping names:
    record-wise (``question``, ``answer``, ``passages.<i>.<key>``) or long
    form (``rows.<key>``, ``rows.<key>.field``)."""
    if "rows" in source:
        from authbench.studies.selfpref.longform import row_fields

        return row_fields(source["rows"])
    mapped = [(key, source.get(key)) for key in MAPPED_KEYS]
    mapped += [(f"passages.{i}.{key}", spec.get(key)) for i, spec in enumerate(source["passages"])
               for key in MAPPED_PASSAGE_KEYS]
    return [(key, name) for key, name in mapped if name is not None]


def check_mapping(source: Mapping, records: Sequence[tuple[str, Mapping]], n_source: int) -> None:
    """A field the mapping names that no record of the file has is a
    :class:`ConfigError` naming the mapping key, the file and its fields
    (:func:`authbench.studies.selfpref.fields.check_fields`)."""
    check_fields(f"selfpref source {n_source} ({source['file']})", records, mapped_fields(source))


def substitute(text: str, gold: str, false_answer: str, ignore_case: bool = True) -> str | None:
    """``text`` with every occurrence of ``gold`` (case-insensitive; with
    ``ignore_case=False`` exactly Python's ``text.replace(gold, false_answer)``)
    replaced by ``false_answer``; None when ``gold`` does not occur."""
    pattern = re.compile(re.escape(gold.strip()), re.IGNORECASE if ignore_case else 0)
    if not gold.strip() or not pattern.search(text):
        return None
    return pattern.sub(lambda _m: false_answer.strip(), text)


class PassageSet:
    """The questions, passages and drop counts of one dataset as its sources
    are read: both mapping forms (record-wise here, long form in
    :mod:`authbench.studies.selfpref.longform`) turn each question's rows
    into the same entries, so every rule (joining, substitution, the answer
    checks, duplicates, drops) is applied in one place."""

    def __init__(self, dataset: str):
        self.dataset = dataset
        self.questions: dict[str, dict] = {}
        self.passages: dict[tuple, dict] = {}
        self.drops: Counter = Counter()

    def question(self, text: str, gold: str) -> dict:
        """The question of this text (whitespace collapsed), joined across
        sources; a new one gets the next ``<dataset>-<n>`` qid and ``gold``."""
        text = clean(text)
        q = self.questions.get(text)
        if q is None:
            q = self.questions[text] = {"qid": f"{self.dataset}-{len(self.questions) + 1:04d}", "question": text,
                                        "answer": gold.strip(), "false_answers": {}}
        return q

    def entry(self, q: dict, gold: str, author: str, variant: str, text: str | None, false_text: str | None,
              false_answer: str | None, for_self: tuple | None) -> None:
        """One passage entry: the true ``text`` (None: only a false passage)
        and its false version, ``false_text`` or else made by substituting
        ``false_answer`` for the gold; a missing or gold false answer and a
        failed substitution are counted."""
        from authbench.studies.selfpref.answers import answer_matches

        if false_answer is not None:
            q["false_answers"].setdefault(author, false_answer.strip())
        candidates = [(True, text, gold)] if text is not None else []
        if false_answer is None:
            self.drops["no_false_answer", author] += 1
        elif answer_matches(false_answer, gold):
            self.drops["false_answer_is_gold", author] += 1
        else:
            if false_text is None and text is not None:
                false_text = substitute(text, gold, false_answer)
            if false_text is None:
                self.drops["answer_not_substituted", author] += 1
            else:
                candidates.append((False, false_text, false_answer.strip()))
        self.add(q, author, variant, candidates, for_self)

    def add(self, q: dict, author: str, variant: str, candidates: Iterable[tuple[bool, str, str]],
            for_self: tuple | None) -> None:
        """Each (factual, text, answer it carries) kept unless it is a
        duplicate of a kept passage, the release's failure sentence, or
        lacks the answer it carries (each counted); ``for_self`` tags the
        false one."""
        from authbench.studies.selfpref.answers import FAIL_PASSAGE, passage_contains

        for factual, body, carried in candidates:
            tag = for_self if not factual else None
            key = (q["qid"], author, variant, factual, tag)
            if key in self.passages:
                self.drops["duplicate", author] += 1
                continue
            if body.strip() == FAIL_PASSAGE:
                self.drops["generation_failed", author] += 1
                continue
            if not passage_contains(body, carried):
                self.drops["answer_missing", author] += 1
                continue
            pid = f"{q['qid']}:{author}:{variant}:{'T' if factual else 'F'}"
            self.passages[key] = {"pid": pid + (f":for-{'+'.join(tag)}" if tag else ""),
                                  "qid": q["qid"], "author": author, "variant": variant, "factual": factual,
                                  "answer_in": carried, "text": body.strip(), "for_self": list(tag) if tag else None}

    def result(self) -> tuple[list[dict], list[dict], Counter]:
        kept = _drop_duplicate_variants(self.passages, self.drops, self.dataset)
        return list(self.questions.values()), kept, self.drops


def import_sources(dataset: str, sources: Sequence[Mapping], authors: Sequence[str] = ()
                   ) -> tuple[list[dict], list[dict], Counter]:
    """Questions, passages and drop counts (keys ``(reason, author)``) of one
    dataset; each source mapped record-wise or in long form (``rows:``).
    ``authors`` (``selfpref.authors``) orders only the mapping a long file
    mapped record-wise is told to use (:func:`~authbench.studies.selfpref.longform.check_not_long`)."""
    from authbench.studies.selfpref.longform import check_not_long, import_rows

    found = PassageSet(dataset)
    for n_source, source in enumerate(sources):
        path = Path(source["file"])
        form = selfpref_source_form(source, f"selfpref source {n_source} ({path})")
        records = read_passage_records(path)
        if form == "rows":
            check_mapping(source, records, n_source)
            import_rows(found, source, records, n_source)
            continue
        specs = [_spec(spec, path, n_source, i) for i, spec in enumerate(source["passages"])]
        check_not_long(source, records, n_source, authors)
        check_mapping(source, records, n_source)
        for where, rec in records:
            if isinstance(rec.get(source["question"]), str):  # errors name the record and its question
                where = f"{where} (question {excerpt(clean(rec[source['question']]), 80)})"
            question = field(rec, source["question"], path, where)
            gold = field(rec, source["answer"], path, where, answer=True).strip()
            q = found.question(question, gold)
            for spec, for_self in specs:
                text = field(rec, spec.get("text"), path, where)
                false_answer = field(rec, spec.get("false_answer"), path, where, nullable=True, answer=True)
                false_text = field(rec, spec.get("false_text"), path, where)
                found.entry(q, gold, spec["author"], spec["variant"], text, false_text, false_answer, for_self)
    return found.result()


PASSAGE_SCHEMA = "properties/selfpref/properties/datasets/additionalProperties/then/properties/sources/items/properties/passages/items"


def _spec(spec: Mapping, path: Path, n_source: int, n: int) -> tuple[Mapping, tuple | None]:
    """A passage entry of a source and its ``false_for`` as a sorted tuple
    (None: untagged); a ``ConfigError`` when it names neither ``text`` nor
    ``false_text`` or ``false_for`` is not a list of author ids."""
    where = f"selfpref source {n_source} ({path}), passages.{n}"
    spec = with_defaults(spec, PASSAGE_SCHEMA)  # a source given outside a config (tests) gets the schema's defaults
    if spec.get("text") is None and spec.get("false_text") is None:
        raise ConfigError(f"{where}: give 'text' (the true passage), 'false_text', or both")
    tag = spec.get("false_for")
    if tag is None:
        return spec, None
    if isinstance(tag, str):
        tag = [tag]
    if not isinstance(tag, list) or not tag or not all(isinstance(a, str) and a for a in tag):
        raise ConfigError(f"{where}: 'false_for' must be a non-empty list of author ids, got {excerpt(tag)}")
    return spec, tuple(sorted(set(tag)))


def _drop_duplicate_variants(passages: Mapping[tuple, dict], drops: Counter, dataset: str) -> list[dict]:
    """The passages without the later of two variants with identical text
    (same question, author, factuality and ``for_self``; the earlier variant
    in :data:`VARIANTS` order is kept), each dropped one counted as
    ``duplicate_variant`` and every (author, variant, kept variant) group
    named in the log."""
    rank = {v: i for i, v in enumerate(VARIANTS)}
    groups: dict[tuple, list[tuple]] = {}
    for key in passages:
        qid, author, variant, factual, tag = key
        groups.setdefault((qid, author, factual, tag), []).append((rank.get(variant, len(rank)), variant, key))
    dropped: set = set()
    named: Counter = Counter()
    examples: dict[tuple, str] = {}
    for members in groups.values():
        seen: dict[str, str] = {}
        for _, variant, key in sorted(members):
            text = passages[key]["text"]
            if text in seen:
                dropped.add(key)
                drops["duplicate_variant", key[1]] += 1
                group = (key[1], variant, seen[text])
                named[group + (key[3],)] += 1
                examples.setdefault(group, key[0])
            else:
                seen[text] = variant
    for (author, variant, kept) in sorted(examples):
        log.warning("%s: %d true and %d false '%s' passages of %s are identical to its '%s' passage of the same "
                    "question (first: %s): dropped as duplicate_variant", dataset, named[author, variant, kept, True],
                    named[author, variant, kept, False], variant, author, kept, examples[author, variant, kept])
    return [p for key, p in passages.items() if key not in dropped]


def complete_questions(passages: Iterable[Mapping], authors: Sequence[str]) -> list[str]:
    """qids (in order) that have a true ``normal`` passage of every author and,
    for every author and every *other* author (a possible evaluator self), a
    false ``normal`` passage that self is shown (untagged, or ``for_self``
    naming it)."""
    have: dict[str, set] = {}
    for p in passages:
        if p["variant"] == "normal":
            got = have.setdefault(p["qid"], set())
            tag = p.get("for_self")
            for viewer in authors if not tag else tag:
                got.add((p["author"], p["factual"], viewer))
    need = {(a, f, s) for a in authors for s in authors if s != a for f in (True, False)}
    return [qid for qid, got in have.items() if need <= got]


def drop_rows(drops: Counter, authors: Iterable[str] = ()) -> list[dict]:
    """One row per reason and author (``authors`` plus any with a drop), zeros included."""
    authors = sorted(set(authors) | {a for _, a in drops})
    return [{"reason": r, "author": a, "count": drops.get((r, a), 0)} for r in DROP_REASONS for a in authors]


def sample_questions(imported: Sequence[Mapping], generated: Sequence[Mapping], authors: Sequence[str], items: int,
                     style_items: int, seed: int, dataset: str, path: str | Path) -> tuple[dict, list[dict]]:
    """The seeded question sample (``main``: questions with a true and a false
    passage of every author; ``style``: questions with Gen-by-QA and long
    variants; ``generated``: questions with passages written here) and every
    passage (imported and generated) of those questions. ``path`` names the
    imported file in the error when too few questions are complete."""
    imported, generated = list(imported), list(generated)
    # generated passages count: an evaluator that writes its own passages
    # (config/paper.yaml) is an author only through them
    complete = complete_questions(imported + generated, authors)
    if len(complete) < items:
        raise ConfigError(f"selfpref.items = {items} is larger than dataset {dataset!r}: only {len(complete)} of its "
                          f"questions ({path}) have a true and a false passage of every author {list(authors)}")
    main = sorted(rng(seed, "selfpref-sample", dataset).sample(complete, items))
    styled = sorted({p["qid"] for p in imported if p["variant"] == "qa"} & {p["qid"] for p in imported if p["variant"] == "long"})
    if len(styled) < style_items:
        raise ConfigError(f"selfpref.style_items = {style_items} is larger than dataset {dataset!r}: only "
                          f"{len(styled)} of its questions ({path}) have both a Gen-by-QA and a long passage")
    style = sorted(rng(seed, "selfpref-style", dataset).sample(styled, style_items))
    generated_qids = sorted({p["qid"] for p in generated})
    keep = set(main) | set(style) | set(generated_qids)
    passages = [p for p in imported + generated if p["qid"] in keep]
    return {"main": main, "style": style, "generated": generated_qids}, passages


def scoped_questions(sample: Mapping, scope: str) -> set[str]:
    """The questions of a dataset's passages that are scored (config
    ``selfpref.rerank.scope``): reranked, and behind Table 1's passage
    statistics (length, perplexity, its marks, the ANOVA); ``sample``
    (:func:`sample_questions`' ``main``, the paper's 700) or
    ``sample_and_generated`` (also every question a configured model wrote
    passages for)."""
    return set(sample["main"]) | (set(sample["generated"]) if scope == "sample_and_generated" else set())


def perplexity_passages(passages: Iterable[Mapping], qids: set[str]) -> list[Mapping]:
    """The passages Table 1's perplexity scores: the normal TRUE ones of the questions in scope."""
    return [p for p in passages if p["variant"] == "normal" and p["factual"] and p["qid"] in qids]


def rerank_passages(passages: Iterable[Mapping], qids: set[str]) -> list[Mapping]:
    """The passages a rerank cell scores: the normal ones of the questions in
    scope, untagged (a false passage made for particular evaluator selves,
    ``false_for``, is a generation-phase pairing: reranking scores one per slot)."""
    return [p for p in passages if p["qid"] in qids and p["variant"] == "normal" and not p.get("for_self")]
