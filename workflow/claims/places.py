"""A claim's places on a run: the cases it names among the run's own numbers.

A claim *quantifies* over some parts of the published keys (``quantified``:
"all LLMs", every context, every setting, every dataset) and *fixes* the
others (the judges it compares, the three Qwen3 sizes, GPT-4o-mini, the
contexts it contrasts). On a run:

* a quantified part ranges over the values the run has: its models (named
  by their ``paper_name`` or their own name), contexts, settings and
  datasets;
* a fixed part keeps the paper's values, and a fixed model needs a model of
  the run with that ``paper_name``.

:func:`run_rows` turns the paper's rows in the claim's scope into the rows
the run names: each published row with its quantified parts replaced by the
run's values that occur with the row's fixed parts (or, when the run has no
key with those fixed parts, by the row's own value where the run has that
value, else by every value the run has, so that the cases it lacks are
listed). The claim's test kind then cuts these rows into cases
exactly as it cuts the paper's. :func:`missing_reason` says why the run
lacks a key.
"""

from __future__ import annotations

from itertools import product
from typing import Iterable, Mapping, Sequence

from authbench.claims.keys import NOT_MODELS, Key, Row, from_parts, label, ordered
from authbench.claims.model import Claim


def compared_parts(claim: Claim) -> set[str]:
    """The parts a claim's test compares (which cannot be quantified): a
    difference's a-side selector and the b side's branched or mapped parts
    (a part the b side only sets to one value, like RAGAuth's ``k: all`` of
    the no-filter row, can still range on the a side), a best-in-column's
    ``over`` part, a monotone claim's ``model``."""
    test = claim.test
    parts: set[str] = set()
    if test.kind in ("difference", "closer_to_50"):
        parts |= set(test.a or {}) | {p for p, v in (test.b or {}).items() if isinstance(v, (list, tuple, Mapping))}
    if test.kind == "best_in_column" and test.over:
        parts.add(test.over)
    if test.kind == "monotone_size":
        parts.add("model")
    return parts


def ranging_parts(claim: Claim) -> tuple[str, ...]:
    """The parts whose values come from the run: the quantified ones, and
    ``model`` when the claim picks a best model of a column (the column is
    the run's models; the picked one must be among them)."""
    parts = list(claim.quantified)
    if claim.test.kind == "best_in_column" and claim.test.over == "model" and "model" not in parts:
        parts.append("model")
    return tuple(parts)


def fixed_models(claim: Claim, rows: Sequence[Row]) -> tuple[str, ...]:
    """The paper models a claim needs on a run: the models of its rows when
    ``model`` is fixed, the picked models of a best-in-column over models."""
    test = claim.test
    if test.kind == "best_in_column" and test.over == "model":
        return tuple(str(v) for v in test.best or ())
    if "model" in claim.quantified:
        return ()
    return tuple(dict.fromkeys(r.key.model for r in rows if r.key.model not in NOT_MODELS))


def run_values(keys: Iterable[Key], tables: Iterable[int]) -> dict[str, dict[int, set[str]]]:
    """part -> table -> the values the run's keys of ``tables`` have."""
    wanted = set(tables)
    out: dict[str, dict[int, set[str]]] = {}
    for key in keys:
        if key.table not in wanted:
            continue
        for part, value in key.parts().items():
            if part != "table" and value != "":
                out.setdefault(part, {}).setdefault(key.table, set()).add(str(value))
    return out


def _all_values(values: Mapping[str, Mapping[int, set[str]]], part: str, table: int) -> list[str]:
    by_table = values.get(part, {})
    found = by_table.get(table) or set().union(*by_table.values()) if by_table else set()
    return sorted(found)


def run_rows(claim: Claim, rows: Sequence[Row], keys: Iterable[Key]) -> list[Row]:
    """The rows the claim names on a run whose numbers have ``keys`` (module
    docstring), each with the run's value (NaN where the run lacks it): the
    scope's published ``rows`` with their quantified parts replaced by the
    run's values. A row of a table the run does not have is left out when
    ``table`` is quantified. In the published rows' order, each key once."""
    keys = list(keys)
    ranging = ranging_parts(claim)
    tables = {r.key.table for r in rows}
    values = run_values(keys, tables)
    by_parts: dict[tuple, list[Key]] = {}
    for key in keys:
        by_parts.setdefault(tuple(sorted(key.parts())), []).append(key)
    present_tables = {k.table for k in keys}
    out: dict[Key, None] = {}
    for row in rows:
        if "table" in ranging and row.key.table not in present_tables:
            continue
        mine = [p for p in ranging if p in row.parts and p != "table"]
        fixed = {p: str(v) for p, v in row.parts.items() if p not in mine}
        matches = [k for k in by_parts.get(tuple(sorted(row.parts)), [])
                   if all(str(k.parts()[p]) == v for p, v in fixed.items())]
        if matches:
            combos = list(dict.fromkeys(tuple(str(m.parts()[p]) for p in mine) for m in matches))
        else:  # the run lacks the row's fixed parts: the row's own value where the run has it, else every value
            options = []
            for p in mine:
                have = _all_values(values, p, row.key.table)
                options.append([str(row.parts[p])] if str(row.parts[p]) in have else have)
            if any(not o for o in options):
                continue  # the run has no value of a quantified part: nothing to range over
            combos = list(product(*options))
        for combo in combos:
            out[from_parts({**row.parts, **dict(zip(mine, combo))})] = None
    return list(out)


def missing_reason(key: Key, keys: Iterable[Key], named: Iterable[str] = ()) -> str:
    """Why the run lacks ``key``: the first part whose value no key of the
    run (of that table) has, a paper model no model of the run is named,
    or, when every value occurs, the combination."""
    values = run_values(keys, [key.table])
    named = set(named)
    if not any(values.values()):
        return f"table {key.table}: no number of this run"
    for part in ordered(key.parts(), metric_last=False)[1:]:  # table aside
        value = str(key.parts().get(part, ""))
        if value == "":
            continue
        have = values.get(part, {}).get(key.table, set())
        if part == "model" and value not in have and value not in named:
            return f"model {value}: no model of this run has this paper_name"
        if value not in have:
            shown = ", ".join(sorted(have)) or "none"
            return f"{part} {value}: not in this run (its {part} values: {shown})"
    return f"{label(key.parts())}: no number of this run"
