"""Requests and judgments of the self-preference study (Chen et al., Sections 3.1-3.4).

Every step builds plain request records (``request_id``, ``output``, ``n``,
``prompt``) for :func:`authbench.llm.runner.generate_replies`, so it goes through the same
engines, response cache and manifests as AuthorityBench's judges.

* **Passage generation** (Appendix B.1) for a configured model: rewrite the
  human passage (``normal``), a false answer, the false passages by
  substitution, ``long`` (>= 300 words asked) and ``qa`` (Gen-by-QA) variants.
  A generated text is its reply cleaned by one rule (:func:`clean_reply`:
  a preamble line, a leading label, the lines after a false answer's first,
  enclosing quotes), each cleaning counted and the raw reply kept. Every
  passage must still contain its answer (``passage_contains``), else it is
  dropped with a count.
* **Knowledge probing** (3.1): each question ``tries`` times, temperature > 0,
  seed ``seed + try``, with the authors' prompt (``knowledge_openai.py``:
  the question + " Short answer with less than 5 words:"); the whole reply,
  stripped, is the answer (:func:`knowledge_answer`, as the authors judge
  it), matched by ``answer_matches`` under ``selfpref.knowledge.match``
  (exact: case-sensitive, the default; lowercase: the authors' released
  script); 5/5 = full, 1-4 =
  partial, 0 = no knowledge.
* **Pointwise reranking** (3.3): every passage of the sample with the
  ``normal`` and the ``rag`` prompt, reply ``###<1-5>***``. FALSE passages
  are each author's own (``false_answer: author``) or, as the authors'
  ``score.py``, every author's true passage with the evaluator's own false
  answer substituted (``evaluator``: :func:`evaluator_false_passages`). A
  reply without a well-formed score can be asked again (:func:`rerank_settled`).
* **Generation phase** (3.4): for an evaluator, its self author against every
  other author, factuality TT/TF/FT/FF, both orders. Which passage it used is
  read from the answer substring when the two passages carry different
  answers, else from the stated passage index (``answers.attribute``).
  Writing-style runs: the self author's ``qa`` passage against the human one
  (Table 4) and its ``long`` passage against its ``normal`` one (Table 5),
  true passages only. A reply that names no single passage can be asked
  again (:func:`comparison_settled`).

Retries (``retries`` of the compare and rerank steps; the cell's
:meth:`~authbench.cells.CellStep.run_retried`): try ``t`` uses seed + ``t``; a row's ``tries`` says
how many tries it used, and the row is the last try's (a row still not ok
after the last try is the authors' dropped item: counted, not ok).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from authbench.errors import TemplateError
from authbench.llm.prompts import check_placeholders, read_template_file

TASK_FIELDS = {
    "rewrite": {"passage"},
    "long": {"passage"},
    "false_answer": {"question", "answer"},
    "gen_by_qa": {"question", "answer"},
    "rerank_normal": {"passage"},
    "rerank_rag": {"question", "passage"},
    "generation": {"question", "passage_1", "passage_2"},
    "knowledge": {"question"},
}
FACTUALITY = ((True, True), (True, False), (False, True), (False, False))  # (self, other): TT, TF, FT, FF
FREE = "free"  # reply format of free-text requests (no grammar)


@dataclass(frozen=True)
class Template:
    path: str
    task: str
    template: str

    def render(self, **values: str) -> str:
        return self.template.format(**values)


def load_template(path: str | Path, task: str) -> Template:
    path = Path(path)
    data = read_template_file(path, ("task", "template"))
    if data["task"] != task:
        raise TemplateError(f"{path}: is the {data['task']!r} prompt, this step needs {task!r}")
    check_placeholders(data["template"], path, TASK_FIELDS[task], part=f"{task} template")
    return Template(str(path), task, data["template"])


def first_line(text: str) -> str:
    return next((line.strip() for line in text.strip().splitlines() if line.strip()), "")


# --- cleaning a written reply ---------------------------------------------------
# A label the model puts before what it was asked for ("Answer: Paris",
# "Rewritten passage: ..."), at the start of the first line.
LABEL = re.compile(r"^[*_#\s]*(?:(?:false|wrong|new|generated|rewritten|modified)\s+)?"
                   r"(?:answer|passage|paragraph|text|version)[*_\s]*:[*_\s]*", re.I)
# A preamble: a first line of at most PREAMBLE_WORDS words ending in a colon
# ("Here is the rewritten passage:", "Sure! Here's a false answer:"), when more follows.
PREAMBLE_WORDS = 15
QUOTES = (('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ("**", "**"), ("*", "*"))
# The prompt's own "Question:" line repeated at the start of a reply.
ECHO = re.compile(r"^[*_#\s]*question\s*:\s*", re.I)
CLEANINGS = ("preamble", "question_echo", "label", "extra_lines", "quotes", "full_stop")


def _without_lines(text: str, n: int) -> str:
    """``text`` without its first ``n`` non-empty lines (the rest verbatim, stripped)."""
    rest = text.splitlines(keepends=True)
    while n and rest:
        n -= bool(rest.pop(0).strip())
    return "".join(rest).strip()


def clean_reply(kind: str, reply: str) -> tuple[str, list[str]]:
    """The text a generation reply (Appendix B.1: ``kind`` ``rewrite``,
    ``long``, ``gen_by_qa`` or ``false_answer``) gives, by one rule, and the
    cleanings applied (:data:`CLEANINGS`), in this order:

    1. ``preamble``: a first non-empty line of at most ``PREAMBLE_WORDS``
       words that ends in ``:`` is dropped when more text follows;
    2. ``question_echo``: a first line repeating the prompt's ``Question:``
       (with the question on the next line when the label stands alone) is
       dropped when more follows (a base model continues the prompt's
       pattern: "Question: ... / Answer: ...");
    3. ``label``: a leading label (``Answer:``, ``False answer:``,
       ``Passage:``, ``Rewritten passage:``, ``Paragraph:``, ``Text:`` ...,
       case-insensitive, markdown ``**`` around it allowed) is cut;
    4. ``extra_lines`` (``false_answer`` only): the first non-empty line is
       the answer (an answer is one line; the release has no generation
       script to say what the authors kept), the rest dropped;
    5. ``quotes``: the whole text in matching quotes (straight or curly) or
       markdown emphasis loses them;
    6. ``full_stop`` (``false_answer`` only): a final full stop is cut (an
       answer, not a sentence, is substituted for the gold).

    The raw reply is kept beside the text by the caller; an empty result is
    the caller's drop."""
    text, done = (reply or "").strip(), []
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1 and not ECHO.match(lines[0]) and (
            LABEL.fullmatch(lines[0]) or (lines[0].endswith(":") and len(lines[0].split()) <= PREAMBLE_WORDS
                                          and not LABEL.match(lines[0]))):
        text = _without_lines(text, 1)
        done.append("preamble")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1 and ECHO.match(lines[0]):
        # the prompt's "Question: ..." repeated (a base model continuing the prompt's pattern): dropped, with
        # the question itself when it stands on the next line
        text = _without_lines(text, 2 if not ECHO.sub("", lines[0]).strip() and len(lines) > 2 else 1)
        done.append("question_echo")
    cut = LABEL.match(text)
    if cut:
        text = text[cut.end():].strip()
        done.append("label")
    if kind == "false_answer":
        line = first_line(text)
        if line != text.strip():
            done.append("extra_lines")
        text = line
    for left, right in QUOTES:
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right) \
                and left not in text[len(left):-len(right)]:
            text = text[len(left):-len(right)].strip()
            done.append("quotes")
            break
    if kind == "false_answer" and text.strip().endswith("."):
        text = text.strip().rstrip(".").strip()
        done.append("full_stop")
    return text.strip(), done


# --- passage generation ---------------------------------------------------------

def generation_inputs(questions: Sequence[Mapping], passages: Sequence[Mapping],
                      items: int) -> tuple[list[Mapping], dict[str, Mapping]]:
    """The questions a passage writer is asked about: the first ``items`` of
    the dataset that have a human normal TRUE passage, and that passage per qid."""
    human = {p["qid"]: p for p in passages if p["author"] == "human" and p["variant"] == "normal" and p["factual"]}
    return [q for q in questions if q["qid"] in human][:items], human


def generation_requests(questions: Sequence[Mapping], human: Mapping[str, Mapping], templates: Mapping[str, Template],
                        kinds: Sequence[str]) -> list[dict]:
    """Stage 1 of passage generation: one request per question and kind
    (``rewrite``, ``long``, ``false_answer``, ``gen_by_qa``). ``human`` maps qid
    to the human true ``normal`` passage."""
    out = []
    for q in questions:
        values = {"question": q["question"], "answer": q["answer"], "passage": human[q["qid"]]["text"]}
        for kind in kinds:
            t = templates[kind]
            out.append({"request_id": f"{q['qid']}:{kind}", "output": FREE, "n": 1,
                        "prompt": t.render(**{k: values[k] for k in TASK_FIELDS[kind]})})
    return out


def generated_passages(author: str, questions: Sequence[Mapping], requests: Sequence[Mapping],
                       texts: Sequence[str]) -> tuple[list[dict], list[dict], dict]:
    """The passages a model wrote (true, and false by substituting its false
    answer), its false answers, and counts by reason: every cleaning
    (``cleaned_<what>_<kind>``, :func:`clean_reply`) and every drop (the
    paper's verification round: a true passage must still contain the gold
    answer, ``<variant>_answer_missing``). Each true passage and false answer
    keeps its ``raw`` reply."""
    from authbench.studies.selfpref.answers import answer_matches, passage_contains
    from authbench.studies.selfpref.data import substitute

    reply = {r["request_id"]: t for r, t in zip(requests, texts)}
    passages, answers, drops = [], [], {}

    def drop(reason):
        drops[reason] = drops.get(reason, 0) + 1

    def cleaned(kind, raw):
        text, done = clean_reply(kind, raw)
        for what in done:
            drop(f"cleaned_{what}_{kind}")
        return text

    for q in questions:
        qid, gold = q["qid"], q["answer"]
        key = f"{qid}:false_answer"
        false = cleaned("false_answer", reply[key]) if key in reply else ""
        if key in reply:
            if not false:
                drop("empty_false_answer")
                false = None
            elif answer_matches(false, gold):
                drop("false_answer_is_gold")
                false = None
            else:
                answers.append({"qid": qid, "author": author, "false_answer": false, "raw": reply[key]})
        for kind, variant in (("rewrite", "normal"), ("long", "long"), ("gen_by_qa", "qa")):
            key = f"{qid}:{kind}"
            if key not in reply:
                continue
            text = cleaned(kind, reply[key])
            if not text:
                drop(f"{variant}_empty")
                continue
            if not passage_contains(text, gold):
                drop(f"{variant}_answer_missing")
                continue
            if variant == "long" and len(text.split()) < 300:
                drop("long_under_300_words")  # counted, kept: the paper asks, does not enforce
            pid = f"{qid}:{author}:{variant}"
            passages.append({"pid": f"{pid}:T", "qid": qid, "author": author, "variant": variant, "factual": True,
                             "answer_in": gold, "text": text, "raw": reply[key]})
            if false is None:
                continue
            false_text = substitute(text, gold, false)
            if false_text is None:
                drop(f"{variant}_answer_not_substituted")
            elif not passage_contains(false_text, false):
                drop(f"{variant}_false_answer_missing")
            else:
                passages.append({"pid": f"{pid}:F", "qid": qid, "author": author, "variant": variant,
                                 "factual": False, "answer_in": false, "text": false_text})
    return passages, answers, drops


# --- knowledge probing ----------------------------------------------------------

def knowledge_requests(questions: Sequence[Mapping], template: Template) -> list[dict]:
    return [{"request_id": q["qid"], "output": FREE, "n": 1, "prompt": template.render(question=q["question"])}
            for q in questions]


def knowledge_answer(reply: str) -> str:
    """The answer a knowledge probe's reply gives: the whole reply, stripped.
    The authors judge the whole reply (``has_knowledge(gold, ai_answer)``);
    on the released GPT-3.5 answers this re-derives all 1,000 stored levels,
    where the reply's first line alone would change 13 (multi-line replies
    that name the gold after their first line)."""
    return (reply or "").strip()


def knowledge_rows(questions: Sequence[Mapping], replies_by_try: Sequence[Sequence[str]],
                   match: str = "exact") -> tuple[list, list]:
    """Per (try, question) the judged answer (``request_id`` ``<qid>#<try>``, in
    request order), and per question its level and class; ``match``: the
    rule of ``selfpref.knowledge.match`` (exact | lowercase)."""
    from authbench.studies.selfpref.answers import answer_matches, match_lowercase
    from authbench.studies.selfpref.knowledge import knowledge_class

    lowercase = match_lowercase(match)
    tries = []
    for t, replies in enumerate(replies_by_try):
        for q, reply in zip(questions, replies):
            answer = knowledge_answer(reply)
            tries.append({"request_id": f"{q['qid']}#{t}", "status": "ok", "qid": q["qid"], "try": t,
                          "answer": answer, "correct": answer_matches(answer, q["answer"], lowercase=lowercase)})
    levels = []
    for q in questions:
        flags = [r["correct"] for r in tries if r["qid"] == q["qid"]]
        levels.append({"qid": q["qid"], "level": sum(flags), "class": knowledge_class(sum(flags), len(flags))})
    return tries, levels


def knowledge_grades(questions: Sequence[Mapping], tries: Sequence[Mapping]) -> dict[str, dict]:
    """The samples' gold / correct of a knowledge cell (:meth:`authbench.cells.CellRecord.sample_rows`):
    per try row (:func:`knowledge_rows`), the question's gold answer and whether the answer matched it."""
    gold = {q["qid"]: q["answer"] for q in questions}
    return {r["request_id"]: {"gold": gold[r["qid"]], "correct": r["correct"]} for r in tries}


# --- pointwise reranking ----------------------------------------------------------

def rerank_requests(questions: Mapping[str, Mapping], passages: Sequence[Mapping], template: Template,
                    prompt: str) -> list[dict]:
    out = []
    for p in passages:
        values = {"passage": p["text"], "question": questions[p["qid"]]["question"]}
        out.append({"request_id": f"{p['pid']}:{prompt}", "output": "hash_rating", "n": 1, "pid": p["pid"],
                    "prompt": template.render(**{k: values[k] for k in TASK_FIELDS[template.task]})})
    return out


def evaluator_false_passages(passages: Sequence[Mapping], self_author: str) -> tuple[list[dict], dict]:
    """The reranking passages of ``false_answer: evaluator`` (the authors'
    ``score.py``): every TRUE ``normal`` passage kept, and for each one a
    FALSE passage made from it by substituting the evaluator's own false
    answer for the gold as ``score.py`` does (``text.replace(answer,
    false_ans)``: every occurrence, case-sensitive; the rule that made every
    released false passage). The evaluator's false answer for a
    question is the one its self author's FALSE ``normal`` passage carries.
    The new passage's pid is ``<qid>:<author>:normal:F:<self_author>``.
    Drops (counted per reason, one per true passage that gets no false
    one): ``no_evaluator_false_answer``, ``answer_not_substituted`` (the gold
    is not in the true text), ``false_answer_missing``."""
    from authbench.studies.selfpref.answers import passage_contains
    from authbench.studies.selfpref.data import substitute

    normal = [p for p in passages if p["variant"] == "normal"]
    false_of = {p["qid"]: p["answer_in"] for p in normal if p["author"] == self_author and not p["factual"]}
    out, drops = [], {}

    def drop(reason):
        drops[reason] = drops.get(reason, 0) + 1

    for p in normal:
        if not p["factual"]:
            continue
        out.append(dict(p))
        false = false_of.get(p["qid"])
        if false is None:
            drop("no_evaluator_false_answer")
            continue
        text = substitute(p["text"], p["answer_in"], false, ignore_case=False)
        if text is None:
            drop("answer_not_substituted")
        elif not passage_contains(text, false):
            drop("false_answer_missing")
        else:
            out.append({**p, "pid": f"{p['qid']}:{p['author']}:normal:F:{self_author}", "factual": False,
                        "answer_in": false, "text": text})
    return out, dict(sorted(drops.items()))


def rerank_settled(text: str) -> bool:
    """Whether a reranking reply needs no retry: it has a well-formed score."""
    from authbench.llm.parse import parse_reply

    return parse_reply("hash_rating", text).status == "ok"


def rerank_rows(requests: Sequence[Mapping], passages: Mapping[str, Mapping], texts: Sequence[str],
                prompt: str, evaluator: str, tries: Sequence[int] | None = None) -> list[dict]:
    """One row per passage; ``tries`` (default all 1): the tries each used."""
    from authbench.llm.parse import parse_reply

    rows = []
    for i, (r, text) in enumerate(zip(requests, texts)):
        p = passages[r["pid"]]
        result = parse_reply("hash_rating", text)
        rows.append({"request_id": r["request_id"], "evaluator": evaluator, "pid": p["pid"], "qid": p["qid"],
                     "author": p["author"], "variant": p["variant"], "factual": p["factual"], "prompt": prompt,
                     "score": result.value if result.status == "ok" else None, "status": result.status,
                     "tries": tries[i] if tries is not None else 1})
    return rows


# --- generation phase ----------------------------------------------------------------

def comparisons(qids: Sequence[str], passages: Sequence[Mapping], self_author: str, others: Sequence[str],
                style: bool = False) -> list[dict]:
    """The pairs an evaluator answers from. Main run: self vs each other author,
    TT/TF/FT/FF, both orders (``normal`` passages). Style run (``style``):
    self ``qa`` vs human and self ``long`` vs self ``normal``, true only, both orders.
    A passage with ``for_self`` (the mapping's ``false_for``) is used only when
    ``self_author`` is in it, and then before an untagged one of the same slot."""
    index = {}
    for p in sorted(passages, key=lambda p: bool(p.get("for_self"))):
        if not p.get("for_self") or self_author in p["for_self"]:
            index[(p["qid"], p["author"], p["variant"], p["factual"])] = p
    out = []

    def add(qid, variant, mine, theirs, other_label, sf, of):
        for order in ("self_first", "other_first"):
            out.append({"qid": qid, "variant": variant, "self_author": self_author, "other_author": other_label,
                        "self_factual": sf, "other_factual": of, "order": order,
                        "self_pid": mine["pid"], "other_pid": theirs["pid"]})

    for qid in qids:
        if not style:
            for other, (sf, of) in itertools.product(others, FACTUALITY):
                mine, theirs = index.get((qid, self_author, "normal", sf)), index.get((qid, other, "normal", of))
                if mine and theirs:
                    add(qid, "normal", mine, theirs, other, sf, of)
            continue
        pairs = (("qa", index.get((qid, self_author, "qa", True)), index.get((qid, "human", "normal", True)), "human"),
                 ("long", index.get((qid, self_author, "long", True)), index.get((qid, self_author, "normal", True)),
                  f"{self_author}:normal"))
        for variant, mine, theirs, label in pairs:
            if mine and theirs:
                add(qid, variant, mine, theirs, label, True, True)
    return out


def comparison_requests(comps: Sequence[Mapping], questions: Mapping[str, Mapping],
                        passages: Mapping[str, Mapping], template: Template) -> list[dict]:
    out = []
    for c in comps:
        a, b = passages[c["self_pid"]], passages[c["other_pid"]]
        first, second = (a, b) if c["order"] == "self_first" else (b, a)
        rid = f"{c['self_pid']}|{c['other_pid']}|{c['order']}"
        out.append({"request_id": rid, "output": FREE, "n": 1, "prompt": template.render(
            question=questions[c["qid"]]["question"], passage_1=first["text"], passage_2=second["text"])})
    return out


# Attribution statuses a retry cannot change: the passages' answers are invalid.
NO_RETRY_STATUSES = frozenset({"ok", "invalid_answers"})


def _attribution(comp: Mapping, passages: Mapping[str, Mapping], text: str):
    from authbench.studies.selfpref.answers import attribute

    a, b = passages[comp["self_pid"]], passages[comp["other_pid"]]
    first, second = (a, b) if comp["order"] == "self_first" else (b, a)
    return attribute(text, first["answer_in"], second["answer_in"])


def comparison_settled(comp: Mapping, passages: Mapping[str, Mapping], text: str) -> bool:
    """Whether a generation-phase reply needs no retry: it names exactly one
    passage (status ``ok``). The authors re-ask on a bad format and when
    both or neither passage is named (``reading_comprehension``: ``one + two
    != 1``); here every other status of :func:`authbench.studies.selfpref.answers.attribute`
    (ambiguous both/neither, no index, both indices, empty reply) is
    retried, except ``invalid_answers`` (the passages', not the reply's, fault)."""
    return _attribution(comp, passages, text).status in NO_RETRY_STATUSES


def comparison_rows(comps: Sequence[Mapping], requests: Sequence[Mapping], passages: Mapping[str, Mapping],
                    texts: Sequence[str], evaluator: str, knowledge: Mapping[str, str] | None,
                    tries: Sequence[int] | None = None) -> list[dict]:
    """One row per comparison; ``tries`` (default all 1): the tries each used."""
    rows = []
    for i, (c, r, text) in enumerate(zip(comps, requests, texts)):
        att = _attribution(c, passages, text)
        chosen = None
        if att.chosen is not None:
            chosen = "self" if (att.chosen == 1) == (c["order"] == "self_first") else "other"
        rows.append({"request_id": r["request_id"], "qid": c["qid"], "evaluator": evaluator,
                     "self_author": c["self_author"], "other_author": c["other_author"],
                     "self_factual": c["self_factual"], "other_factual": c["other_factual"], "order": c["order"],
                     "variant": c["variant"], "answer": att.answer, "stated": att.stated, "chosen": chosen, "method": att.method,
                     "status": att.status, "knowledge": (knowledge or {}).get(c["qid"]),
                     "tries": tries[i] if tries is not None else 1})
    return rows


def comparison_grades(rows: Sequence[Mapping]) -> dict[str, dict]:
    """The samples' gold / correct of a generation-phase cell
    (:meth:`authbench.cells.CellRecord.sample_rows`): gold = the factual passage
    (``"self"`` / ``"other"``) when exactly one of the two is, else null;
    correct = whether the factual one was chosen, as the study counts it
    (:func:`authbench.studies.selfpref.rows.gen_records`' ``true_chosen``:
    null for a reply that is not ok or a pair without exactly one factual passage)."""
    from authbench.studies.selfpref.rows import gen_records

    return {r["request_id"]: {"gold": None if r["self_factual"] == r["other_factual"]
                              else "self" if r["self_factual"] else "other", "correct": g.true_chosen}
            for r, g in zip(rows, gen_records(rows), strict=True)}
