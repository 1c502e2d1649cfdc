"""The shipped claims files (resources/claims/): they load against the
published numbers, every quote stands in the paper's text from its stated
line on, every claim that says "significant" reads the paper's marks by a
``significance`` key, the readings state their thresholds and bounds,
docs/claims.md names every key of the schema, and ``python -m
authbench.claims`` prints and writes the verdicts."""

import re
from pathlib import Path

import pandas as pd
import pytest
from authbench.claims import load_claims, load_paper_claims
from authbench.claims.__main__ import main
from authbench.claims.published import COLUMNS
from authbench.claims.schema import schema

ROOT = Path(__file__).resolve().parents[3]
PAPERS = ROOT.parent / "shared" / "papers"  # the papers' text versions, beside the checkout (README)


@pytest.fixture(scope="module")
def shipped():
    return {p: load_paper_claims(p) for p in ("authoritybench", "selfpref")}


def test_both_files_load_with_their_claims(shipped):
    assert [c.id for c in shipped["authoritybench"]] == [f"AB-{i:02d}" for i in range(1, 21)]
    assert [c.id for c in shipped["selfpref"]] == [f"SP-{i:02d}" for i in range(1, 24)]
    kinds = {c.test.kind for claims in shipped.values() for c in claims}
    assert kinds == {"difference", "rate_vs_50", "monotone_size", "bias_sign", "best_in_column", "closer_to_50"}


def paper_text(path: Path) -> tuple[str, list[int]]:
    """The text with the PDF margin line numbers (``434 ``) dropped, lines
    joined by a space and line-end hyphens re-joined before a lower-case
    word; and the offset where each line starts."""
    out, offsets = "", []
    for line in path.read_text(encoding="utf-8").split("\n"):
        line = re.sub(r"\s+", " ", re.sub(r"^\d{3,4}\s+(?=\S)", "", line.strip()))
        offsets.append(len(out))
        if not line:
            continue
        if out.endswith("-") and line[:1].islower() and not out.endswith(" -"):
            out = out[:-1] + line
        else:
            out = f"{out} {line}" if out else line
    return out, offsets


@pytest.mark.parametrize("paper", ["authoritybench", "selfpref"])
def test_every_quote_stands_in_the_paper_from_its_line(shipped, paper):
    claims = shipped[paper]
    path = PAPERS / claims.source
    if not path.exists():
        pytest.skip(f"{path} is not beside this checkout")
    text, offsets = paper_text(path)
    for claim in claims:
        fragments = [f.strip() for f in re.split(r"\s*\.\.\.\s*", re.sub(r"\s+", " ", claim.quote)) if f.strip()]
        start = offsets[claim.where.line - 1]
        end = offsets[claim.where.line] if claim.where.line < len(offsets) else len(text)
        at = text.find(fragments[0], max(0, start - 2))
        assert start - 2 <= at <= max(end, start), f"{claim.id}: the quote does not start on line {claim.where.line}"
        at += len(fragments[0])
        for fragment in fragments[1:]:
            found = text.find(fragment, at)
            assert found >= 0, f"{claim.id}: {fragment[:50]!r} does not follow"
            at = found + len(fragment)


def every_claim(shipped):
    return [c for claims in shipped.values() for c in claims]


def test_every_claim_that_says_significant_reads_the_marks_by_a_key(shipped):
    saying = [c for c in every_claim(shipped) if "significant" in c.quote.lower()]
    assert {c.id for c in saying} == {"SP-02", "SP-05", "SP-06", "SP-07", "SP-08", "SP-16", "SP-17"}
    assert [c.id for c in saying if c.test.significance is None] == []
    rules = {c.id: c.test.significance for c in saying}
    assert rules["SP-05"] == rules["SP-08"] == "required" and rules["SP-06"] == "absence"
    # where the paper prints no mark for the contrast, the reading says so
    unprinted = [c for c in every_claim(shipped) if c.test.significance == "not_printed"]
    assert {c.id for c in unprinted} == {"SP-02", "SP-07", "SP-16", "SP-17"}
    assert [c.id for c in unprinted if "significance cannot be read from the table" not in c.reading] == []


def test_the_readings_state_their_thresholds_and_bounds(shipped):
    claims = every_claim(shipped)
    assert [c.id for c in claims if c.quantifier == "almost_all" and "90%" not in c.reading] == []
    assert {c.id for c in claims if c.quantifier == "almost_all"} == {"SP-15"}
    # a one-sided "no preference" names its bound: "at most 55" for not_above with tolerance 5 ...
    for c in claims:
        if c.test.direction == "not_above":
            assert f"at most {50 + c.test.tolerance:g}" in c.reading, c.id
        if c.test.direction in ("not_negative", "not_positive"):
            sign = ">=" if c.test.direction == "not_negative" else "<="
            bound = -(c.test.tolerance or 0) if c.test.direction == "not_negative" else (c.test.tolerance or 0)
            assert f"{sign} {bound:g}" in c.reading, c.id
    assert {c.id for c in claims if c.test.direction in ("not_above", "not_negative")} == {
        "SP-01", "SP-03", "SP-06", "SP-17"}


def schema_keys(node, found=None) -> set[str]:
    found = set() if found is None else found
    if isinstance(node, dict):
        found.update(node.get("properties", {}))
        for value in node.values():
            schema_keys(value, found)
    elif isinstance(node, list):
        for value in node:
            schema_keys(value, found)
    return found


def test_the_docs_name_every_key_and_kind():
    docs = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    keys = schema_keys(schema())
    assert {"id", "scope", "units", "tolerance", "pairing", "ties", "strict"} <= keys
    # each key in backticks, or as a key of the example file
    assert [k for k in sorted(keys) if not re.search(rf"`{k}`|\b{k}:", docs)] == []
    kinds = schema()["$defs"]["test"]["properties"]["kind"]["enum"]
    assert [k for k in kinds if f"`{k}`" not in docs] == []


def test_the_command_prints_every_claim_and_writes_the_tsv(tmp_path, capsys):
    assert main(["--tsv", str(tmp_path / "verdicts.tsv")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "AB-01\t25 of 100\tcontradicted as worded (holds in 25 of 100)"
    assert out[42].startswith("SP-23\t")
    assert "AB-03\t30 of 40\tcontradicted as worded (holds in 30 of 40)" in out
    assert "SP-05\t6 of 9\tcontradicted as worded (holds in 6 of 9)  (daggers: 6 cells, 6 holding)" in out
    # a verdict the recomputed numbers change says so on its line
    assert ("SP-09\t15 of 15\tholds as worded  (daggers: 10 cells, 10 holding)  [recomputed: 14 of 15, contradicted as "
            "worded (holds in 14 of 15)]") in out
    assert out[-2] == ("AuthorityBench: 20 claims — published tables: 9 hold as worded, 10 contradicted as worded, "
                       "1 not in the published tables")
    assert out[-1] == "RAG self-preference: 23 claims — published tables: 14 hold as worded, 9 contradicted as worded"
    rows = pd.read_csv(tmp_path / "verdicts.tsv", sep="\t", keep_default_na=False)
    assert tuple(rows.columns) == COLUMNS and len(rows) == 43
    assert (rows["k"] <= rows["n"]).all() and set(rows.loc[rows["paper"] == "selfpref", "marked"]) > {""}


def _docs_example(tmp_path) -> Path:
    """The claims file docs/claims.md shows under "A claims file", written alone to a file."""
    text = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    block = text.split("## A claims file", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "my_claims.yaml"
    path.write_text(block, encoding="utf-8")
    return path


def test_the_documented_example_is_a_claims_file_the_command_tests(tmp_path, capsys):
    path = _docs_example(tmp_path)
    claims = load_claims(path)
    assert [c.id for c in claims] == ["AB-03"] and claims.paper == "authoritybench"
    assert main(["--claims", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    # the shipped AB-03's verdict (above), and only this file's claims
    assert out == ["AB-03\t30 of 40\tcontradicted as worded (holds in 30 of 40)", "",
                   "AuthorityBench: 1 claim — published tables: 0 hold as worded, 1 contradicted as worded"]


def test_a_bad_claims_file_of_ones_own_is_one_line_and_exit_2(tmp_path, capsys):
    path = _docs_example(tmp_path)
    path.write_text(path.read_text().replace("kind: difference", "kind: diference"), encoding="utf-8")
    assert main(["--claims", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: the claims file does not follow the schema")
    assert "'diference' is not one of the known kinds" in err
