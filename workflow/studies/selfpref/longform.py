"""Self-preference passages in long form: one row per passage, mapped by
config alone (``rows:`` in a source instead of ``question``/``answer``/
``passages``)::

    file: examples/selfpref/my_passages_long.csv
    rows:
      qid: question_id                  # rows are grouped by it
      question: question
      answer: gold
      author: {field: writer, values: {wikipedia: human, gpt-3.5-turbo: gpt35, llama-2-70b-chat: llama}}
      factual: {field: is_factual, values: {"yes": true, "no": false}}
      variant: {field: style, values: {plain: normal, long: long, qa: qa}}   # optional: all normal
      text: passage
      false_answer: false_answer        # the false answer a false row carries
      false_for: {field: false_answer_of}                                    # optional

Value maps (``author``, ``factual``, ``variant``, ``false_for``) compare
keys and the file's values as normalised strings
(:func:`authbench.studies.selfpref.fields.map_key`: case, whitespace, ``1.0``/``1``, and
yes/no, on/off, 1/0 and true/false as one boolean), so a YAML ``yes:`` key
matches a CSV ``Yes``. An author value the map does not name is a
``ConfigError`` with close matches; one mapped to null skips its rows,
counted as ``author_skipped`` under the file's value. A factuality or
variant value the map does not name is a ``ConfigError`` listing the values
the file holds. A null or missing author, factuality or variant value is
``""`` (a map may name it: ``"": normal``).

Rows are grouped by question id. One id with two question texts or golds,
or two ids with one question text, is an ``InputError`` naming both rows.
Questions join across sources by their text, as in the record-wise mapping.

Each question's rows become the record-wise mapping's passage entries
(:class:`authbench.studies.selfpref.data.PassageSet`), per author and
variant: the first false row pairs with the first true row (one entry, as
``{text, false_text, false_answer}``); every further false row is an entry
of its own (a false passage only, as an entry without ``text``); with no
false row, the true row gets its false passage by substituting its own
false answer cell or else the false answer of another false row of the same
author and question (else ``no_false_answer``). A second true row goes
through the same checks as a second source's (a ``duplicate`` once the
first is kept). A false row without a false answer cell takes the false
answer of the author its ``false_for`` field names, on that question.

``false_for`` names the field saying whose false answer a false passage
carries (a value map to author ids; default: the author map, and author ids
as themselves). The passage is shown to the evaluator selves that are not
that author: with the carried authors X1..Xk of one question, author and
variant in the order the author map lists them (k >= 2), the passage
carrying X1's answer is untagged and the one carrying X(i+1)'s is tagged for
Xi (``for_self: [Xi]``). So self Xi sees X(i+1)'s false answer and Xk sees
X1's: no self sees its own, each such passage is shown to one of them, and
every other self (no passage of its own answer here) sees X1's. With two
model authors this is the release's pairing (a GPT-self evaluator sees the
human passage with Llama's false answer, every other self GPT's). With one
carried author (or none) the passage is untagged: shown to every self.
The field is read on false rows only.

A file in long form mapped record-wise (:func:`check_not_long`) is a
``ConfigError`` that says so and prints the ``rows:`` mapping to write,
filled in from the file's fields.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml
from authbench.studies.selfpref.fields import map_key, value_map
from authbench.errors import ConfigError, InputError, excerpt
from authbench.studies.selfpref.fields import VARIANTS, clean, field, file_fields

KEYS = ("qid", "question", "answer", "text", "false_answer")  # rows: keys naming a field
MAPS = ("author", "factual", "variant", "false_for")  # rows: keys naming {field, values}
SKIPPED = "author_skipped"


def row_fields(rows: Mapping) -> list[tuple[str, str]]:
    """(mapping key, field name) of every field a ``rows:`` mapping names."""
    out = [(f"rows.{k}", rows[k]) for k in KEYS if rows.get(k) is not None]
    return out + [(f"rows.{k}.field", rows[k]["field"]) for k in MAPS if rows.get(k)]


@dataclass(frozen=True)
class Row:
    where: str
    qid: str
    question: str
    gold: str
    author: str | None  # None: mapped to null (skipped)
    raw_author: str  # the file's value (the drop count's author when skipped)
    factual: bool
    variant: str
    text: str
    false_answer: str | None
    carries: str | None


def _display(raw: Any) -> str:
    return "(empty)" if map_key(raw) == "" else excerpt(raw, 60, quote=False)


class _Maps:
    """A source's value maps, and every value the file holds per map (for errors)."""

    def __init__(self, rows: Mapping, where: str):
        self.where = where
        self.fields = {k: rows[k]["field"] for k in MAPS if rows.get(k)}
        self.maps = {"author": value_map(rows["author"]["values"], f"{where}, rows.author.values"),
                     "factual": value_map(rows["factual"]["values"], f"{where}, rows.factual.values")}
        self.given = {k: dict(rows[k].get("values") or {}) for k in MAPS if rows.get(k)}
        if rows.get("variant"):
            self.maps["variant"] = value_map(rows["variant"].get("values") or {v: v for v in VARIANTS},
                                             f"{where}, rows.variant.values")
        ids = [a for a in self.maps["author"].values() if a is not None]
        self.order = list(dict.fromkeys(ids))  # the carried authors' order (false_for)
        if rows.get("false_for"):
            own = rows["false_for"].get("values")
            self.maps["false_for"] = (value_map(own, f"{where}, rows.false_for.values") if own is not None
                                      else {**{map_key(a): a for a in ids}, **self.maps["author"]})
            self.order += [a for a in self.maps["false_for"].values() if a and a not in self.order]
        for key, allowed in (("factual", (True, False)), ("variant", VARIANTS)):
            bad = [v for v in self.maps.get(key, {}).values() if v not in allowed]
            if bad:
                raise ConfigError(f"{where}, rows.{key}.values: maps to {bad[0]!r}; allowed: {list(allowed)}")
        self.seen: dict[str, Counter] = {k: Counter() for k in self.maps}
        self.first: dict[str, dict[str, tuple[Any, str]]] = {k: {} for k in self.maps}

    def value(self, key: str, raw: Any, where: str) -> Any:
        """The mapped value of ``raw`` (None: mapped to null); an unknown value is marked, and raised at the end."""
        norm = map_key(raw)
        self.seen[key][norm] += 1
        self.first[key].setdefault(norm, (raw, where))
        return self.maps[key].get(norm)

    def check(self) -> None:
        """A ``ConfigError`` for the first map with values it does not name: close matches (author ids),
        or the values the file holds (factuality, variant)."""
        for key in self.maps:
            unknown = [n for n in self.seen[key] if n not in self.maps[key]]
            if not unknown:
                continue
            shown = "; ".join(f"{_display(self.first[key][n][0])!r} ({self.seen[key][n]} row(s), first: "
                              f"{self.first[key][n][1]})" for n in unknown[:5])
            given = ", ".join(f"{_display(k)} -> {v}" for k, v in self.given.get(key, {}).items()) or "(none)"
            head = f"{self.where}, rows.{key}.values: field '{self.fields[key]}' holds {shown}, not in the map"
            if key in ("author", "false_for"):
                keys = [str(k) for k in self.given.get(key, {})] or list(self.maps[key])
                close = sorted({c for n in unknown for c in difflib.get_close_matches(
                    str(self.first[key][n][0]), keys, n=2, cutoff=0.6)})
                hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
                raise ConfigError(f"{head}{hint}. The map: {given}; map a value to null to skip its rows")
            values = ", ".join(f"{_display(self.first[key][n][0])!r} ({c})" for n, c in self.seen[key].most_common())
            raise ConfigError(f"{head}. The field's values in the file (rows): {values}. The map: {given}")


def _qid(rec: Mapping, name: str, path: Path, where: str) -> str:
    if name not in rec:
        raise InputError(f"{path}: {where}: no field '{name}' (the mapping names it; other records of the file "
                         "have it)")
    value = rec[name]
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
        raise InputError(f"{path}: {where}: field '{name}' (the question id): expected a string or number, got "
                         f"{excerpt(value)}")
    return str(value).strip()


def read_rows(source: Mapping, records: Sequence[tuple[str, Mapping]], n_source: int) -> tuple[list[Row], list[str]]:
    """Every record of a long-form source as a :class:`Row` (value-map errors
    after the whole file is read), and the author order ``false_for`` uses."""
    rows, path = source["rows"], Path(source["file"])
    maps = _Maps(rows, f"selfpref source {n_source} ({path})")
    out = []
    for where, rec in records:
        if isinstance(rec.get(rows["question"]), str):  # errors name the row and its question
            where = f"{where} (question {excerpt(clean(rec[rows['question']]), 80)})"
        qid = _qid(rec, rows["qid"], path, where)
        question = field(rec, rows["question"], path, where)
        gold = field(rec, rows["answer"], path, where, answer=True)
        author = maps.value("author", rec.get(rows["author"]["field"]), where)
        factual = maps.value("factual", rec.get(rows["factual"]["field"]), where)
        variant = (maps.value("variant", rec.get(rows["variant"]["field"]), where) if "variant" in maps.maps
                   else "normal")
        text = field(rec, rows["text"], path, where)
        false_answer = (field(rec, rows["false_answer"], path, where, nullable=True, answer=True)
                        if rows["false_answer"] in rec else None)
        carries = None
        if "false_for" in maps.maps and factual is False and map_key(rec.get(rows["false_for"]["field"])):
            carries = maps.value("false_for", rec.get(rows["false_for"]["field"]), where)
        out.append(Row(where, qid, question, gold, author, _display(rec.get(rows["author"]["field"])),
                       bool(factual), variant, text, (false_answer or "").strip() or None, carries))
    maps.check()
    return out, maps.order


def _groups(rows: Sequence[Row], path: Path) -> dict[str, list[Row]]:
    """Rows by question id, in order; one id with two texts or golds, or two ids with one text, is an error."""
    groups: dict[str, list[Row]] = {}
    by_text: dict[str, Row] = {}
    for row in rows:
        group = groups.setdefault(row.qid, [])
        if group:
            first = group[0]
            for what, a, b in (("question texts", clean(first.question), clean(row.question)),
                               ("gold answers", first.gold.strip(), row.gold.strip())):
                if a != b:
                    raise InputError(f"{path}: question id {row.qid!r} has two {what}: {first.where}: {excerpt(a)}; "
                                     f"{row.where}: {excerpt(b)}")
        else:
            other = by_text.setdefault(clean(row.question), row)
            if other is not row:
                raise InputError(f"{path}: one question has two ids, {other.qid!r} ({other.where}) and {row.qid!r} "
                                 f"({row.where}): {excerpt(clean(row.question))}")
        group.append(row)
    return groups


def _tags(author: str, falses: Sequence[Row], order: Sequence[str]) -> list[tuple | None]:
    """The ``for_self`` of each false row of one question, author and variant (module docstring)."""
    carried = [r.carries if r.carries != author else None for r in falses]
    rank = {a: i for i, a in enumerate(order)}
    distinct = sorted({c for c in carried if c}, key=lambda a: (rank.get(a, len(rank)), carried.index(a)))
    if len(distinct) < 2:
        return [None] * len(falses)
    shown = {c: (distinct[i - 1],) if i else None for i, c in enumerate(distinct)}
    return [shown[c] if c else None for c in carried]


def import_rows(found, source: Mapping, records: Sequence[tuple[str, Mapping]], n_source: int) -> None:
    """A long-form source's passages into ``found`` (a
    :class:`authbench.studies.selfpref.data.PassageSet`), as the entries
    the record-wise mapping makes (module docstring)."""
    rows, order = read_rows(source, records, n_source)
    for r in rows:
        if r.author is None:
            found.drops[SKIPPED, r.raw_author] += 1
    for group in _groups(rows, Path(source["file"])).values():
        kept = [r for r in group if r.author is not None]
        if not kept:
            continue
        first = group[0]
        gold = first.gold.strip()
        q = found.question(first.question, gold)
        answers: dict[str, str] = {}
        for r in sorted(kept, key=lambda r: r.factual):  # false rows first: the false answer an author carries
            if r.false_answer:
                answers.setdefault(r.author, r.false_answer)
        slots: dict[tuple, list[Row]] = {}
        for r in kept:
            slots.setdefault((r.author, r.variant), []).append(r)
        for (author, variant), members in slots.items():
            trues = [r for r in members if r.factual]
            falses = [r for r in members if not r.factual]
            for i, (row, tag) in enumerate(zip(falses, _tags(author, falses, order))):
                carried = row.false_answer or (answers.get(row.carries) if row.carries else None)
                found.entry(q, gold, author, variant, trues[0].text if trues and not i else None, row.text,
                            carried, tag)
            if trues and not falses:
                found.entry(q, gold, author, variant, trues[0].text, None,
                            trues[0].false_answer or answers.get(author), None)
            for row in trues[1:]:
                found.add(q, author, variant, [(True, row.text, gold)], None)


# --- a long file mapped record-wise ------------------------------------------

FEW = 12  # at most this many distinct values: an author-like field
_HINTS = {"qid": r"(^|_)(q|question)?_?id$|^qid$", "answer": r"answer|gold|truth|correct",
          "author": r"author|writer|writt?en|source|model|generat|origin|by$",
          "variant": r"variant|style|kind|type|form", "factual": r"fact|true|false|correct|label|^is_",
          "false_answer": r"false|wrong|incorrect|fake|counterfactual", "false_for": r"_of$|_for$|whose|carr"}


def _hinted(name: str, role: str) -> bool:
    return re.search(_HINTS[role], name.casefold()) is not None


@dataclass
class _Column:
    name: str
    norms: list[str]  # map_key of each record's value ("" when null, missing or a list/object)
    raw: dict[str, Any]  # norm -> first raw value
    length: float  # mean length of the non-empty values

    @property
    def distinct(self) -> list[str]:
        return [n for n in self.raw if n]

    @property
    def boolean(self) -> bool:
        return set(self.distinct) == {"true", "false"}


def _columns(records: Sequence[tuple[str, Mapping]]) -> dict[str, _Column]:
    out = {}
    for name in file_fields(records):
        values = [rec.get(name) for _, rec in records]
        norms = ["" if isinstance(v, (dict, list)) else map_key(v) for v in values]
        raw: dict[str, Any] = {}
        for n, v in zip(norms, values):
            raw.setdefault(n, v)
        filled = [len(str(v)) for n, v in zip(norms, values) if n]
        out[name] = _Column(name, norms, raw, sum(filled) / len(filled) if filled else 0.0)
    return out


def _repeats(col: _Column) -> bool:
    filled = sum(1 for n in col.norms if n)
    return len(col.distinct) >= 1 and filled >= 2 and filled >= 1.5 * len(col.distinct)


def _varies(col: _Column, groups: Sequence[Sequence[int]]) -> float:
    """The share of questions (with two rows or more) in which the column takes two values or more."""
    multi = [g for g in groups if len(g) >= 2]
    return sum(len({col.norms[i] for i in g if col.norms[i]}) >= 2 for g in multi) / len(multi) if multi else 0.0


def _constant(col: _Column, groups: Sequence[Sequence[int]]) -> bool:
    return all(len({col.norms[i] for i in g}) == 1 for g in groups) and any(col.norms)


def long_form_roles(source: Mapping, records: Sequence[tuple[str, Mapping]]) -> tuple[dict, list[str]] | None:
    """The fields of a file in long form as the roles of a ``rows:`` mapping,
    and the evidence (sentences), or None when the file does not look long:
    its question field (the one the source maps, else the repeating field
    with the longest values) repeats, and a field holding a few values
    (at most :data:`FEW`) that vary within most questions and recur across
    them (who wrote the passage), or a boolean-like one that varies within
    most questions, is there. From values alone, so a CSV (every field in
    every row) is found as well as a JSON-lines file."""
    if len(records) < 2:
        return None
    cols = _columns(records)
    mapped = source.get("question")
    if mapped in cols:
        question = cols[mapped] if _repeats(cols[mapped]) else None
    else:
        question = max((c for c in cols.values() if _repeats(c) and not c.boolean), key=lambda c: c.length,
                       default=None)
    if question is None:
        return None
    index: dict[str, list[int]] = {}
    for i, n in enumerate(question.norms):
        if n:
            index.setdefault(n, []).append(i)
    groups = list(index.values())
    if sum(len(g) for g in groups if len(g) >= 2) < 0.5 * len(records):
        return None
    others = [c for c in cols.values() if c is not question]
    booleans = [c for c in others if c.boolean and _varies(c, groups) >= 0.5]

    def recurs(c):  # each value in two questions or more, on average
        spread = [len({question.norms[i] for i, n in enumerate(c.norms) if n == v}) for v in c.distinct]
        return len(groups) < 2 or sum(spread) / len(spread) >= 2

    few = [c for c in others if not c.boolean and 2 <= len(c.distinct) <= FEW and _varies(c, groups) >= 0.5
           and recurs(c)]
    if not booleans and not few:
        return None
    evidence = [f"field '{question.name}' repeats ({len(groups)} questions in {len(records)} rows)"]
    evidence += [f"field '{c.name}' holds {len(c.distinct)} values "
                 f"({', '.join(_display(c.raw[n]) for n in c.distinct)}) that recur within each question" for c in few]
    evidence += [f"field '{c.name}' is boolean-like ({', '.join(_display(c.raw[n]) for n in c.distinct)})"
                 for c in booleans]
    return _assign(source, cols, question, groups, few, booleans), evidence


def _assign(source, cols, question, groups, few, booleans) -> dict:
    """Which field plays which role (names and the source's own mapping first)."""
    taken = {question.name}

    def pick(cands, role=None, key=None):
        cands = [c for c in cands if c.name not in taken]
        if role:
            cands.sort(key=lambda c: not _hinted(c.name, role))
        if key:
            cands.sort(key=key)
        if cands:
            taken.add(cands[0].name)
            return cands[0]
        return None

    constant = [c for c in cols.values() if _constant(c, groups)]
    roles: dict[str, Any] = {"question": question.name}
    qid = pick([c for c in constant if len(c.distinct) == len(groups) and _hinted(c.name, "qid")], "qid")
    roles["qid"] = qid.name if qid else question.name
    mapped = source.get("answer")
    answer = pick([cols[mapped]] if mapped in cols else []) or pick(constant, "answer")
    author = pick(few, "author")
    factual = pick(booleans, "factual")
    variant = pick([c for c in few if _hinted(c.name, "variant") or
                    any(n in VARIANTS or "long" in n or "qa" in n for n in c.distinct)], "variant")
    wanted = [e.get("false_answer") for e in source.get("passages") or () if e.get("false_answer") in cols]
    categorical = {c.name for c in few}
    false_answer = pick([cols[n] for n in wanted]) or pick([c for c in cols.values() if _hinted(c.name, "false_answer")
                                                            and not c.boolean and c.name not in categorical])
    carriers = [c for c in cols.values() if author and c.distinct and set(c.distinct) <= set(author.distinct)
                and "" in c.raw]
    false_for = pick(carriers, "false_for")
    text = pick([c for c in cols.values() if not _constant(c, groups)], key=lambda c: -c.length)
    roles.update(answer=answer, author=author, factual=factual, variant=variant, text=text,
                 false_answer=false_answer, false_for=false_for)
    return roles


def _author_id(raw: Any, known: Sequence[str]) -> str:
    """The author id a value suggests: the one author id of the source's own
    mapping it contains (letters and digits, any case: ``gpt-3.5-turbo`` ->
    ``gpt35``), else the value as an id."""
    def bare(text):
        return re.sub(r"[^0-9a-z]", "", str(text).casefold())

    matches = [a for a in dict.fromkeys(known) if bare(a) and bare(a) in bare(raw)]
    if len(matches) == 1:
        return matches[0]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(raw)).strip("-._") or "author"


def _variant_of(norm: str) -> str:
    return norm if norm in VARIANTS else "long" if "long" in norm else "qa" if "qa" in norm else "normal"


def _flow(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**6)
    return text.strip().removesuffix("...").strip()


def rows_mapping(source: Mapping, roles: Mapping, authors: Sequence[str] = ()) -> str:
    """The ``rows:`` mapping of a source (YAML, ready to paste), filled in with
    the file's fields. Author ids come from the source's own mapping and
    ``authors`` (``selfpref.authors``); the author values are listed in the
    order of ``authors`` (the values whose id is not there after them, in the
    file's order): that order decides which human false passage is untagged
    (module docstring, ``false_for``), so it is the config's, never the file's."""
    known = [e["author"] for e in source.get("passages") or () if isinstance(e, Mapping) and e.get("author")]
    known += list(authors)

    def name(role):
        col = roles.get(role)
        return col if isinstance(col, str) else col.name if col is not None else f"<the field with the {role}>"

    lines = [f"- file: {_flow(source['file'])}", "  rows:", f"    qid: {_flow(name('qid'))}",
             f"    question: {_flow(name('question'))}", f"    answer: {_flow(name('answer'))}"]
    author = roles.get("author")
    values = {author.raw[n]: _author_id(author.raw[n], known) for n in author.distinct} if author else {}
    rank = {a: i for i, a in enumerate(dict.fromkeys(authors))}
    values = dict(sorted(values.items(), key=lambda kv: rank.get(kv[1], len(rank))))  # stable: file order after
    lines.append(f"    author: {_flow({'field': name('author'), 'values': values})}")
    factual = roles.get("factual")
    values = {factual.raw[n]: n == "true" for n in factual.distinct} if factual else {"yes": True, "no": False}
    lines.append(f"    factual: {_flow({'field': name('factual'), 'values': values})}")
    variant = roles.get("variant")
    if variant is not None:
        values = {variant.raw[n]: _variant_of(n) for n in variant.distinct}
        lines.append(f"    variant: {_flow({'field': variant.name, 'values': values})}")
    lines += [f"    text: {_flow(name('text'))}", f"    false_answer: {_flow(name('false_answer'))}"]
    if roles.get("false_for") is not None:
        lines.append(f"    false_for: {_flow({'field': roles['false_for'].name})}")
    return "\n".join(lines)


def check_not_long(source: Mapping, records: Sequence[tuple[str, Mapping]], n_source: int,
                   authors: Sequence[str] = ()) -> None:
    """A source mapped record-wise (``question``/``answer``/``passages``)
    whose file looks long-form (:func:`long_form_roles`) is a
    :class:`ConfigError` that says so and prints the ``rows:`` mapping to
    write, with the file's field names (read record-wise, a CSV would be
    silently wrong: every row has every field)."""
    found = long_form_roles(source, records)
    if found is None:
        return
    roles, evidence = found
    lines = "".join(f"\n  - {e}" for e in evidence)
    raise ConfigError(
        f"selfpref source {n_source} ({source['file']}) is mapped record-wise (question, answer, passages: one record "
        f"per question, each author's passages in named fields), but the file looks long-form, one row per passage:"
        f"{lines}\nMap it with 'rows:' instead. Filled in from the file's fields (check each author id: the file's "
        f"values map to the ids of selfpref.authors, null skips a value's rows; docs/own-data.md, 'Long form'):\n"
        f"{rows_mapping(source, roles, authors)}")
