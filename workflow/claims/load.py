"""Reading a claims file: :func:`load_claims` parses the YAML, checks it
against the schema (:mod:`authbench.claims.schema`) and then against the
published numbers of its paper, so that a claim only names what the paper's
tables hold:

* a part (table, metric, model or another part of the paper's keys) or a
  value the scope tables lack is a :class:`~authbench.errors.ConfigError` naming the file,
  the claim id, the key, the bad value and the known values;
* a scope that selects no published row, a test whose rows do not make its
  cases (a missing partner row, a column without a picked value) and a unit
  missing for a scope table are named errors too;
* ``test.significance`` must fit the marks the paper prints: ``required``
  and ``absence`` read the mark on a case's one number (``rate_vs_50``,
  ``bias_sign``) and need scope tables that print significance marks;
  ``not_printed`` is an error when the rows in scope carry such marks on the
  numbers the cases test.

An unreadable file or one that is not YAML is an
:class:`~authbench.errors.InputError`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

import pandas as pd
import yaml
from authbench import papers as published_numbers
from authbench.claims.cases import claim_cases, scope_rows
from authbench.claims.keys import SIGNIFICANCE_MARKS, Row, lead_parts, normalize_selector, rows_from_frame, significant
from authbench.claims.kinds import KindError
from authbench.claims.model import DEFAULT_TIES, MARKED_KINDS, Claim, Claims, Scope, Test, Where
from authbench.claims.schema import validate
from authbench.errors import ConfigError, InputError, excerpt

def claims_path(paper: str) -> Path:
    """The claims file of the registered paper ``paper`` (:attr:`authbench.papers.Paper.claims`;
    the shipped ones: ``resources/claims/<paper>.yaml``)."""
    return published_numbers.paper_of(paper).claims


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such claims file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the claims file ({exc})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise InputError(f"{path}: {where}not YAML ({getattr(exc, 'problem', None) or exc})") from None


def _tuple(values: Any) -> tuple | None:
    if values is None:
        return None
    return tuple(str(v) for v in (values if isinstance(values, list) else [values]))


def _test(raw: Mapping[str, Any]) -> Test:
    kind = raw["kind"]
    return Test(kind=kind, direction=raw["direction"], a=raw.get("a"), b=raw.get("b"),
                tolerance=None if raw.get("tolerance") is None else float(raw["tolerance"]),
                order=_tuple(raw.get("order")), strict=raw.get("strict"), over=raw.get("over"),
                best=_tuple(raw.get("best")), ties=raw.get("ties", DEFAULT_TIES.get(kind)),
                pairing=raw.get("pairing", "paired"), significance=raw.get("significance"),
                threshold=None if raw.get("threshold") is None else float(raw["threshold"]),
                skip_self=bool(raw.get("skip_self", False)), all_best=bool(raw.get("all_best", False)))


def _claim(raw: Mapping[str, Any], paper: str) -> Claim:
    return Claim(id=raw["id"], paper=paper, title=raw["title"], quote=raw["quote"],
                 where=Where(raw["where"]["section"], int(raw["where"]["line"])),
                 scope=Scope(normalize_selector(raw["scope"])), test=_test(raw["test"]),
                 units={int(t): u for t, u in raw["units"].items()}, quantifier=raw["quantifier"],
                 wording=raw["wording"], reading=raw["reading"], quantified=tuple(raw["quantified"]),
                 column=dict(raw.get("column") or {}), unpublished=raw.get("published"))


class _Vocabulary:
    """The parts and values the published rows of some tables hold."""

    def __init__(self, rows: Iterable[Row], tables: Iterable[int]):
        self.tables = sorted(set(tables))
        self.values: dict[str, set] = {}
        for row in rows:
            if row.key.table in self.tables:
                for name, value in row.parts.items():
                    self.values.setdefault(name, set()).add(value)

    def where(self) -> str:
        return f"published table{'s' if len(self.tables) > 1 else ''} {', '.join(map(str, self.tables))}"

    def check(self, key: str, name: str, values: Iterable[Any]) -> None:
        """``key``: where the claim names the part (``scope.judge``)."""
        if name not in self.values:
            known = sorted(self.values, key=lambda p: (p not in {"table", "metric", *lead_parts()}, p))
            raise ConfigError(f"{key}: {name!r} is not a part of the {self.where()}; "
                              f"known parts: {', '.join(known)}")
        known_values = self.values[name]
        for value in values:
            cast = int(value) if name == "table" and str(value).lstrip("-").isdigit() else str(value)
            if cast not in known_values:
                shown = ", ".join(repr(v) for v in sorted(known_values, key=str))
                raise ConfigError(f"{key}: {excerpt(value)} is not a value of {name!r} in the {self.where()}; "
                                  f"known values: {shown}")


def _check_vocabulary(claim: Claim, raw_test: Mapping[str, Any], rows: list[Row]) -> None:
    _Vocabulary(rows, {r.key.table for r in rows}).check("scope.table", "table", claim.scope.tables)
    vocabulary = _Vocabulary(rows, claim.scope.tables)
    for name, values in claim.scope.selector.items():
        vocabulary.check(f"scope.{name}", name, values)
    for name, values in (raw_test.get("a") or {}).items():
        if isinstance(values, Mapping):  # {same_as: <part>}: the row's own value of another part
            vocabulary.check(f"test.a.{name}", name, [])
            vocabulary.check(f"test.a.{name}.same_as", str(values.get("same_as")), [])
            continue
        vocabulary.check(f"test.a.{name}", name, _tuple(values))
    for name, spec in (raw_test.get("b") or {}).items():
        if spec is None:
            vocabulary.check(f"test.b.{name}", name, [])
        elif isinstance(spec, Mapping):
            vocabulary.check(f"test.b.{name}", name, [*spec.keys(), *spec.values()])
        else:
            vocabulary.check(f"test.b.{name}", name, _tuple(spec))
    if claim.test.over is not None:
        vocabulary.check("test.over", claim.test.over, claim.test.best)
    if claim.test.order is not None:
        vocabulary.check("test.order", "model", claim.test.order)


def _check_cases(claim: Claim, rows: list[Row]) -> None:
    if not scope_rows(claim.scope, rows):
        shown = ", ".join(f"{n}={'/'.join(map(str, v))}" for n, v in claim.scope.selector.items())
        raise ConfigError(f"scope ({shown}) matches no published row")
    missing = sorted(set(claim.scope.tables) - set(claim.units))
    extra = sorted(set(claim.units) - set(claim.scope.tables))
    if missing or extra:
        raise ConfigError(f"units: expected one unit for each scope table ({', '.join(map(str, claim.scope.tables))})"
                          + (f"; table(s) {', '.join(map(str, missing))} have none" if missing else "")
                          + (f"; table(s) {', '.join(map(str, extra))} are not in scope" if extra else ""))
    try:
        cases = claim_cases(claim, rows)
    except KindError as exc:
        raise ConfigError(f"test ({claim.test.kind}): {exc}") from None
    if not cases:
        raise ConfigError(f"test ({claim.test.kind}): the rows in scope make no cell")
    for case in cases:
        for contrast in case.contrasts:
            if contrast.b is not None and claim.unit(contrast.a.table) != claim.unit(contrast.b.table):
                raise ConfigError(f"units: cell {case.label} compares table {contrast.a.table} "
                                  f"({claim.unit(contrast.a.table)}) with table {contrast.b.table} "
                                  f"({claim.unit(contrast.b.table)}); expected the same unit on both sides")


def _check_significance(claim: Claim, rows: list[Row]) -> None:
    """``test.significance`` against the marks the published rows print
    (module docstring)."""
    rule = claim.test.significance
    if rule is None:
        return
    marks = "/".join(SIGNIFICANCE_MARKS)
    tables = ", ".join(map(str, claim.scope.tables))
    if rule in ("required", "absence"):
        if claim.test.kind not in MARKED_KINDS:
            raise ConfigError(f"test.significance: {rule!r} reads the paper's mark on a cell's one number; a "
                              f"{claim.test.kind} cell compares several numbers, whose marks do not test that "
                              f"contrast; expected a kind of {', '.join(MARKED_KINDS)}, or significance "
                              f"'not_printed'")
        if not any(significant(r.mark) for r in rows if r.key.table in claim.scope.tables):
            raise ConfigError(f"test.significance: {rule!r} needs significance marks ({marks}), but the published "
                              f"table(s) {tables} print none; expected 'not_printed'")
    elif claim.test.kind in MARKED_KINDS:
        flagged = [r for r in scope_rows(claim.scope, rows) if significant(r.mark)]
        if flagged:
            raise ConfigError(f"test.significance: 'not_printed', but {len(flagged)} row(s) in scope carry a "
                              f"significance mark ({marks}), e.g. {flagged[0].key}; expected 'required' or "
                              f"'absence'")


def _check_quantified(claim: Claim, rows: list[Row]) -> None:
    """Every quantified part is one the run can range over: a part of the
    scope's published keys, not one the test compares; a unit column is
    named for a metric of the scope."""
    from authbench.claims.places import compared_parts

    in_scope = scope_rows(claim.scope, rows)
    parts = {p for r in in_scope for p in r.parts}
    compared = compared_parts(claim)
    for i, part in enumerate(claim.quantified):
        if part not in parts:
            raise ConfigError(f"quantified[{i}]: a run cannot range over {part!r}: the keys of the claim's tables "
                              f"have no such part; their parts: {', '.join(sorted(parts))}")
        if part in compared:
            raise ConfigError(f"quantified[{i}]: {part!r} is a part the test compares ({claim.test.kind}); a run "
                              "cannot range over it: expected it fixed")
    metrics = {r.key.metric for r in in_scope}
    for metric in claim.column:
        if metric not in metrics:
            raise ConfigError(f"column: {metric!r} is not a metric of the rows in scope ({', '.join(sorted(metrics))})")


def load_claims(path: str | Path, published: pd.DataFrame | None = None) -> Claims:
    """The claims of one file, checked against the schema and against the
    published numbers of its paper (``published``: those numbers, default
    :func:`authbench.papers.load` of the file's paper)."""
    path = Path(path)
    doc = _read(path)
    validate(doc, path)
    paper = doc["paper"]
    if published is None and paper not in published_numbers.papers():
        raise ConfigError(f"{path}: paper: {paper!r} is not a registered paper; the registered papers: "
                          f"{', '.join(published_numbers.papers())} (authbench.papers; docs/architecture.md, "
                          "'Add a paper')")
    frame = published_numbers.load(paper) if published is None else published
    rows = rows_from_frame(frame[frame["paper"] == paper] if "paper" in frame.columns else frame)
    claims, seen = [], {}
    for number, raw in enumerate(doc["claims"], start=1):
        if raw["id"] in seen:
            raise ConfigError(f"{path}: claim {raw['id']}: id: claims {seen[raw['id']]} and {number} both have the id "
                              f"{raw['id']!r}; expected unique ids")
        seen[raw["id"]] = number
        claim = _claim(raw, paper)
        try:
            _check_vocabulary(claim, raw["test"], rows)
            _check_cases(claim, rows)
            _check_significance(claim, rows)
            _check_quantified(claim, rows)
        except ConfigError as exc:
            raise ConfigError(f"{path}: claim {claim.id}: {exc}") from None
        claims.append(claim)
    return Claims(paper=paper, title=doc["title"], source=doc["source"], path=path, claims=tuple(claims))


def load_paper_claims(paper: str, published: pd.DataFrame | None = None) -> Claims:
    """The shipped claims of ``paper`` (:func:`claims_path`)."""
    return load_claims(claims_path(paper), published)
