"""Knowledge levels of the self-preference study (Chen et al., Section 3.1, Table 1):
how many of an evaluator's tries answer a question correctly, its class, and
the released knowledge files re-derived and checked.  Pure functions; the
standard library only.  Whether one answer is correct is
:func:`authbench.studies.selfpref.answers.answer_matches`.

Knowledge levels (:func:`rederive_knowledge`; the three later files hold
5,000 answers in consecutive groups of 5, :func:`group_fixed`): the NQ GPT-3.5
file holds 5,007 answers
for 1,000 questions, in question order.  Consecutive answers with the same
``ground_truth`` form one question's run (exactly 1,000 runs, each run's
ground truth equal to that question's ``true_answer`` in
``nq_passages_gpt35.json``).  998 runs hold 5 answers; two hold more: question
386 ("Big & Rich", 8 answers) and question 412 ("Sally Ann Howes", 9): left-overs
of an interrupted pass that was restarted for that question (the knowledge
script has no retry around the API call and appends every answer to one
list).  The level counts the LAST ``tries`` (5) answers of a run; for question
412 the first 5 would give 3 instead of the stored 2.  With this rule the
1,000 levels and the distribution [356, 97, 51, 56, 89, 351] are reproduced
exactly from the ``AI_answer``/``ground_truth`` strings alone, and also from the
stored ``truth_set``/``answer_set`` (which equal :func:`word_set` of the strings
for all 5,007 records).  Classes (:func:`knowledge_class`): 0 correct -> "no",
all -> "full", otherwise "partial".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from authbench.errors import InputError, excerpt
from authbench.records import read_utf8
from authbench.studies.selfpref.answers import answer_matches, match_lowercase, word_set

__all__ = [
    "TRIES",
    "KNOWLEDGE_CLASSES",
    "knowledge_level",
    "knowledge_class",
    "group_runs",
    "group_answers",
    "group_fixed",
    "rederive_knowledge",
    "released_knowledge",
]

TRIES = 5
KNOWLEDGE_CLASSES = ("no", "partial", "full")


def knowledge_level(flags: Iterable[object]) -> int:
    """The number of correct tries (truthy flags)."""
    return sum(1 for f in flags if f)


def knowledge_class(level: int, tries: int = TRIES) -> str:
    """"no" (0 correct), "full" (all ``tries`` correct) or "partial" (between).
    Raises ValueError for a level outside 0..tries (a programming error)."""
    for name, v in (("level", level), ("tries", tries)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{name} must be an int, got {v!r}")
    if tries < 1 or not 0 <= level <= tries:
        raise ValueError(f"level must be in 0..{tries}, got {level}")
    if level == 0:
        return "no"
    return "full" if level == tries else "partial"


def _gold_of(question: object) -> str:
    if isinstance(question, str):
        return question
    if isinstance(question, Mapping):
        for key in ("true_answer", "answer"):
            if isinstance(question.get(key), str):
                return question[key]
    raise InputError(f"question {excerpt(question)}: expected a gold answer string or an object with 'true_answer'")


def _record_field(rec: object, i: int, field: str) -> str:
    if not isinstance(rec, Mapping):
        raise InputError(f"ai_answers[{i}]: expected a JSON object, got {excerpt(rec)}")
    value = rec.get(field)
    if not isinstance(value, str):
        shown = excerpt(value)
        raise InputError(f"ai_answers[{i}]: field '{field}': expected a string, got {shown}")
    return value


def group_runs(records: Sequence[Mapping]) -> list[list[Mapping]]:
    """Consecutive records with the same ``ground_truth``, in order."""
    groups: list[list[Mapping]] = []
    prev = None
    for i, rec in enumerate(records):
        gt = _record_field(rec, i, "ground_truth")
        if groups and gt == prev:
            groups[-1].append(rec)
        else:
            groups.append([rec])
        prev = gt
    return groups


def group_answers(records: Sequence[Mapping], questions: Sequence[object], tries: int = TRIES) -> list[list[Mapping]]:
    """One list of answer records per question, aligned with ``questions``
    (gold strings, or objects with ``true_answer``/``answer``).

    Each question takes the run of consecutive records whose ``ground_truth``
    is its gold (or the gold lower-cased, as the released script stores it);
    a run may hold more than ``tries`` records (left-overs of an interrupted
    pass; the level uses the last ``tries``).  k adjacent questions with the
    same gold share one run: the later ones take ``tries`` records each from
    its end, the first takes the rest.  Raises :class:`InputError` naming the
    record when a run is too short, a record is out of order or records are
    left over.
    """
    golds = [_gold_of(q) for q in questions]
    groups: list[list[Mapping]] = []
    pos, i = 0, 0
    while i < len(golds):
        gold = golds[i]
        k = 1
        while i + k < len(golds) and golds[i + k] == gold:
            k += 1
        end = pos
        while end < len(records) and _record_field(records[end], end, "ground_truth") in (gold, gold.lower()):
            end += 1
        if end - pos < tries * k:
            got = (f"the record there has ground_truth {excerpt(_record_field(records[end], end, 'ground_truth'))}"
                   if end < len(records) else "the records end there")
            raise InputError(
                f"ai_answers[{end}]: question {i + k - 1} (gold {excerpt(gold)}) has {end - pos} answers for {k} "
                f"question(s), expected at least {tries * k}; {got}"
            )
        first = end - pos - tries * (k - 1)
        groups.append(list(records[pos:pos + first]))
        for j in range(k - 1):
            start = pos + first + j * tries
            groups.append(list(records[start:start + tries]))
        pos, i = end, i + k
    if pos != len(records):
        raise InputError(
            f"ai_answers[{pos}]: {len(records) - pos} answer(s) left over after the last question "
            f"(ground_truth {excerpt(_record_field(records[pos], pos, 'ground_truth'))})"
        )
    return groups


def group_fixed(records: Sequence[Mapping], tries: int = TRIES) -> list[list[Mapping]]:
    """Consecutive groups of ``tries`` records (the released files recorded
    after lower-casing: one question per ``tries`` records, adjacent questions
    may share a gold).  Raises :class:`InputError` naming the record when the
    count is no multiple of ``tries`` or a group mixes ground truths."""
    if len(records) % tries:
        raise InputError(f"ai_answers: {len(records)} records, expected a multiple of {tries} (groups of {tries})")
    groups = [list(records[i:i + tries]) for i in range(0, len(records), tries)]
    for q, group in enumerate(groups):
        first = _record_field(group[0], q * tries, "ground_truth")
        for j, rec in enumerate(group[1:], 1):
            gt = _record_field(rec, q * tries + j, "ground_truth")
            if gt != first:
                raise InputError(f"ai_answers[{q * tries + j}]: field 'ground_truth': expected {excerpt(first)} "
                                 f"(question {q}'s group of {tries}), got {excerpt(gt)}")
    return groups


def _fixed_groups(records: Sequence[Mapping], tries: int) -> bool:
    """Whether the records fall into consecutive groups of ``tries`` with one
    ground truth each (the files recorded after lower-casing)."""
    return bool(records) and len(records) % tries == 0 and all(
        len({records[i + j]["ground_truth"] for j in range(tries)}) == 1 for i in range(0, len(records), tries))


def _load_json(path: Path, expected: str) -> object:
    text = read_utf8(path, expected)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            f"{path}: line {err.lineno}, column {err.colno}: invalid JSON ({err.msg}); expected {expected}"
        ) from None


def _questions_from(questions: object) -> list[object]:
    if isinstance(questions, (str, Path)):
        path = Path(questions)
        data = _load_json(path, "a JSON list of questions with 'true_answer'")
        if not isinstance(data, list):
            raise InputError(f"{path}: expected a JSON list of questions, got {type(data).__name__}")
        try:
            return [_gold_of(q) for q in data]
        except InputError as err:
            raise InputError(f"{path}: {err}") from None
    return list(questions)


def _stored_sets_match(rec: Mapping) -> bool:
    return (isinstance(rec.get("truth_set"), list) and isinstance(rec.get("answer_set"), list)
            and set(rec["truth_set"]) == word_set(rec["ground_truth"])
            and set(rec["answer_set"]) == word_set(rec["AI_answer"]))


def _match_from_stored_sets(rec: Mapping) -> bool:
    truth, answer = rec["ground_truth"], rec["AI_answer"]
    ts, as_ = set(rec["truth_set"]), set(rec["answer_set"])
    return ts <= as_ or as_ <= ts or truth in answer or answer in truth


def _knowledge_groups(path: Path, questions: object, tries: int) -> tuple[dict, list, list, str]:
    """A knowledge file's object, its answer records, the records grouped per
    question (:func:`group_runs` or :func:`group_answers`) and how they were grouped."""
    data = _load_json(path, "a knowledge JSON object with 'ai_answers'")
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object with 'ai_answers', got {type(data).__name__}")
    records = data.get("ai_answers")
    if not isinstance(records, list):
        raise InputError(f"{path}: field 'ai_answers': expected a list of answer records")
    try:
        for i, rec in enumerate(records):
            _record_field(rec, i, "ground_truth")
            _record_field(rec, i, "AI_answer")
        if questions is None and _fixed_groups(records, tries):
            groups, method = group_fixed(records, tries), f"consecutive groups of {tries}"
        elif questions is None:
            groups, method = group_runs(records), "consecutive ground_truth runs"
            for q, group in enumerate(groups):
                if len(group) < tries:
                    first = sum(len(g) for g in groups[:q])
                    raise InputError(f"ai_answers[{first}]: run of {len(group)} answers for ground truth "
                                     f"{excerpt(group[0]['ground_truth'])}, expected at least {tries}")
        else:
            groups, method = group_answers(records, _questions_from(questions), tries), "aligned with questions"
    except InputError as err:
        msg = str(err)
        raise InputError(msg if msg.startswith(f"{path}:") else f"{path}: {msg}") from None

    return data, records, groups, method


def rederive_knowledge(path: str | Path, questions: object = None, *, tries: int = TRIES,
                       lowercase: bool = False, match: str | None = None) -> dict:
    """Recompute every question's knowledge level from a knowledge file's raw
    answers (``ai_answers``: ``ground_truth``/``AI_answer`` strings only).

    ``questions`` (optional): the question list (a passages JSON path, gold
    strings or objects with ``true_answer``) for :func:`group_answers`;
    without it the records are grouped in consecutive groups of ``tries``
    (:func:`group_fixed`) when they fall into such groups of one ground
    truth each (the three files recorded after lower-casing, where adjacent
    questions may share a gold), else by consecutive ground truth
    (:func:`group_runs`; the NQ GPT-3.5 file, 5,007 records).  ``match`` (``exact`` | ``lowercase``,
    :data:`MATCH_RULES`) overrides ``lowercase`` when given.  Returns ``levels``, ``distribution`` (counts of
    levels 0..tries), ``classes``, ``grouping`` (``method``, ``records``,
    ``questions``, ``group_sizes`` {size: count}, ``extra_tries``: the
    questions with more than ``tries`` answers and the records left out),
    the file's ``stored_levels``/``stored_distribution`` (None when absent),
    ``level_mismatches`` (question indices whose level differs from the
    stored one), ``stored_sets_consistent`` (records whose stored
    truth_set/answer_set equal :func:`word_set` of the strings),
    ``ground_truths`` (each question's gold, as stored) and
    ``levels_from_stored_sets`` (the rule applied to the stored sets; None
    when a record has no sets).  Bad input raises :class:`InputError` naming
    the file and the record.
    """
    path = Path(path)
    if match is not None:
        lowercase = match_lowercase(match)
    data, records, groups, method = _knowledge_groups(path, questions, tries)
    levels, extra, start = [], [], 0
    for q, group in enumerate(groups):
        used = group[-tries:]
        levels.append(knowledge_level(answer_matches(r["AI_answer"], r["ground_truth"], lowercase=lowercase)
                                      for r in used))
        if len(group) > tries:
            extra.append({"question": q, "ground_truth": group[0]["ground_truth"], "records": len(group),
                          "first_record": start, "dropped_records": list(range(start, start + len(group) - tries))})
        start += len(group)
    distribution = [levels.count(k) for k in range(tries + 1)]
    sizes: dict[int, int] = {}
    for group in groups:
        sizes[len(group)] = sizes.get(len(group), 0) + 1

    stored = data.get("knowledge_level")
    stored_ok = isinstance(stored, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in stored)
    stored_levels = list(stored) if stored_ok else None
    stored_dist = data.get("distribution") if isinstance(data.get("distribution"), list) else None
    mismatches = ([q for q, (a, b) in enumerate(zip(levels, stored_levels)) if a != b]
                  + list(range(min(len(levels), len(stored_levels)), max(len(levels), len(stored_levels))))
                  if stored_levels is not None else None)
    has_sets = all(isinstance(r.get("truth_set"), list) and isinstance(r.get("answer_set"), list) for r in records)
    return {
        "levels": levels,
        "distribution": distribution,
        "classes": [knowledge_class(lv, tries) for lv in levels],
        "ground_truths": [g[0]["ground_truth"] for g in groups],
        "grouping": {
            "method": method,
            "records": len(records),
            "questions": len(groups),
            "tries": tries,
            "group_sizes": dict(sorted(sizes.items())),
            "extra_tries": extra,
        },
        "stored_levels": stored_levels,
        "stored_distribution": stored_dist,
        "level_mismatches": mismatches,
        "stored_sets_consistent": sum(_stored_sets_match(r) for r in records) if has_sets else None,
        "levels_from_stored_sets": ([knowledge_level(_match_from_stored_sets(r) for r in g[-tries:]) for g in groups]
                                    if has_sets else None),
    }


def _int_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value)


def released_knowledge(path: str | Path, match: str = "exact", *, tries: int = TRIES) -> dict:
    """A released knowledge file re-derived and checked (a data-only check of
    every run): its shape (``knowledge_level``: one int 0..tries per question
    of the answer records; ``distribution``: tries + 1 counts that are the
    counts of ``knowledge_level``) and the re-derived levels under ``match``
    must equal the stored ones.  Returns :func:`rederive_knowledge`'s dict;
    raises :class:`InputError` naming the file, the question (record) and the
    field with what was expected - never a partial result."""
    path = Path(path)
    derived = rederive_knowledge(path, tries=tries, match=match)
    n = len(derived["levels"])
    data = _load_json(path, "a knowledge JSON object with 'ai_answers'")
    for field in ("knowledge_level", "distribution"):
        if field not in data:
            raise InputError(f"{path}: field '{field}' is missing; expected "
                             + (f"a list of {n} levels 0..{tries}" if field == "knowledge_level"
                                else f"a list of {tries + 1} counts (questions per level 0..{tries})"))
        if not _int_list(data[field]):
            raise InputError(f"{path}: field '{field}': expected a list of integers, got {excerpt(data[field])}")
    stored, dist = data["knowledge_level"], data["distribution"]
    if len(stored) != n:
        raise InputError(f"{path}: field 'knowledge_level': {len(stored)} levels, expected {n} (one per question of "
                         f"'ai_answers', grouped by {derived['grouping']['method']})")
    bad = next((q for q, lv in enumerate(stored) if not 0 <= lv <= tries), None)
    if bad is not None:
        raise InputError(f"{path}: question {bad}: field 'knowledge_level': expected a level 0..{tries}, "
                         f"got {stored[bad]}")
    if len(dist) != tries + 1:
        raise InputError(f"{path}: field 'distribution': {len(dist)} counts, expected {tries + 1} "
                         f"(questions per level 0..{tries})")
    counted = [stored.count(k) for k in range(tries + 1)]
    if dist != counted:
        raise InputError(f"{path}: field 'distribution': {dist}, expected {counted} (the counts of its "
                         "'knowledge_level')")
    if derived["level_mismatches"]:
        q = derived["level_mismatches"][0]
        hint = (" (a file recorded without lower-casing: set match: exact for it)" if match == "lowercase" else
                " (a file recorded after lower-casing that still differs: not a case question)")
        raise InputError(f"{path}: question {q}: field 'knowledge_level': expected {derived['levels'][q]} "
                         f"(re-derived from its 'ai_answers' with match {match}), the file stores {stored[q]}; "
                         f"{len(derived['level_mismatches'])} question(s) differ, re-derived distribution "
                         f"{derived['distribution']} vs stored {dist}{hint}")
    return derived
