"""Passage sets of the self-preference study: released files -> one question
table and one passage table, through a mapping written in config.

A *source* is one JSON (list) or JSON-lines file and its mapping::

    file: resources/data/selfpref/nq_passages_gpt35.json
    question: question            # field holding the question text
    answer: true_answer           # field holding the gold answer
    passages:                     # one entry per passage the record carries
      - {author: human, text: human_true, false_text: human_false, false_answer: false_answer}
      - {author: gpt35, text: ai_true, false_text: ai_false, false_answer: false_answer}
      - {author: gpt35, variant: long, text: gpt_long, false_answer: gpt_false_ans}

``text`` is the true passage. Its false version is ``false_text`` when given,
else it is made as the paper makes false passages: the gold answer substituted
by ``false_answer`` (case-insensitive, every occurrence). ``variant`` is
``normal`` (default), ``long`` or ``qa``. Any dataset whose records carry a
question, a gold answer and passage texts is added by writing such a mapping.

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
* The same (question, author, variant, factuality) from a second source is a
  ``duplicate`` (the first source wins: e.g. the human passages, which both
  NQ files carry, with the false answer of the first file).
* A record missing a mapped field, or a field that is not a string, is an
  ``InputError`` naming the file, the record and the field.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from authbench.errors import InputError
from authbench.records import read_json_records
from authbench.seeding import rng

VARIANTS = ("normal", "long", "qa")
DROP_REASONS = ("generation_failed", "answer_missing", "answer_not_substituted", "no_false_answer", "false_answer_is_gold", "duplicate")


def _clean(text: str) -> str:
    return " ".join(text.split())


def read_records(path: str | Path) -> list[tuple[str, dict]]:
    """(where, record) of a JSON list or JSON-lines file; every record an object."""
    records = read_json_records(path, "a JSON list or JSON lines of records")
    for where, rec in records:
        if not isinstance(rec, dict):
            raise InputError(f"{path}: {where}: expected a JSON object")
    return records


def _field(rec: Mapping, name: str | None, path: Path, where: str, required: bool = True) -> str | None:
    if name is None:
        return None
    value = rec.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InputError(f"{path}: {where}: field '{name}': expected a string, got {json.dumps(value)[:60]}")
    return value


def substitute(text: str, gold: str, false_answer: str, ignore_case: bool = True) -> str | None:
    """``text`` with every occurrence of ``gold`` (case-insensitive; with
    ``ignore_case=False`` exactly Python's ``text.replace(gold, false_answer)``)
    replaced by ``false_answer``; None when ``gold`` does not occur."""
    pattern = re.compile(re.escape(gold.strip()), re.IGNORECASE if ignore_case else 0)
    if not gold.strip() or not pattern.search(text):
        return None
    return pattern.sub(lambda _m: false_answer.strip(), text)


def import_sources(dataset: str, sources: Sequence[Mapping]) -> tuple[list[dict], list[dict], Counter]:
    """Questions, passages and drop counts (keys ``(reason, author)``) of one dataset."""
    from authbench.studies.selfpref.answers import FAIL_PASSAGE, answer_matches, passage_contains

    questions: dict[str, dict] = {}
    passages: dict[tuple, dict] = {}
    drops: Counter = Counter()
    for source in sources:
        path = Path(source["file"])
        for where, rec in read_records(path):
            question = _clean(_field(rec, source["question"], path, where))
            gold = _field(rec, source["answer"], path, where).strip()
            q = questions.get(question)
            if q is None:
                q = questions[question] = {"qid": f"{dataset}-{len(questions) + 1:04d}", "question": question,
                                           "answer": gold, "false_answers": {}}
            for spec in source["passages"]:
                author, variant = spec["author"], spec.get("variant", "normal")
                text = _field(rec, spec["text"], path, where)
                false_answer = _field(rec, spec.get("false_answer"), path, where, required=False)
                false_text = _field(rec, spec.get("false_text"), path, where, required=False)
                if false_answer is not None:
                    q["false_answers"].setdefault(author, false_answer.strip())
                candidates = [(True, text, gold)]
                if false_answer is None:
                    drops["no_false_answer", author] += 1
                elif answer_matches(false_answer, gold):
                    drops["false_answer_is_gold", author] += 1
                else:
                    if false_text is None:
                        false_text = substitute(text, gold, false_answer)
                    if false_text is None:
                        drops["answer_not_substituted", author] += 1
                    else:
                        candidates.append((False, false_text, false_answer.strip()))
                for factual, body, carried in candidates:
                    key = (q["qid"], author, variant, factual)
                    if key in passages:
                        drops["duplicate", author] += 1
                        continue
                    if body.strip() == FAIL_PASSAGE:
                        drops["generation_failed", author] += 1
                        continue
                    if not passage_contains(body, carried):
                        drops["answer_missing", author] += 1
                        continue
                    passages[key] = {"pid": f"{q['qid']}:{author}:{variant}:{'T' if factual else 'F'}",
                                     "qid": q["qid"], "author": author, "variant": variant, "factual": factual,
                                     "answer_in": carried, "text": body.strip()}
    return list(questions.values()), list(passages.values()), drops


def complete_questions(passages: Iterable[Mapping], authors: Sequence[str]) -> list[str]:
    """qids (in order) that have a true and a false ``normal`` passage of every author."""
    have: dict[str, set] = {}
    for p in passages:
        if p["variant"] == "normal":
            have.setdefault(p["qid"], set()).add((p["author"], p["factual"]))
    need = {(a, f) for a in authors for f in (True, False)}
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
        raise InputError(f"{path}: only {len(complete)} questions have a true and a false passage of "
                         f"every author {list(authors)}; selfpref.items asks for {items}")
    main = sorted(rng(seed, "selfpref-sample", dataset).sample(complete, items))
    styled = sorted({p["qid"] for p in imported if p["variant"] == "qa"} & {p["qid"] for p in imported if p["variant"] == "long"})
    style = sorted(rng(seed, "selfpref-style", dataset).sample(styled, min(style_items, len(styled))))
    generated_qids = sorted({p["qid"] for p in generated})
    keep = set(main) | set(style) | set(generated_qids)
    passages = [p for p in imported + generated if p["qid"] in keep]
    return {"main": main, "style": style, "generated": generated_qids}, passages
