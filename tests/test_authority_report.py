"""The AuthorityBench report step: parse modes (strict/lenient) in the tables
and their captions, Table 8's category rule in its caption."""

import json

import pandas as pd
import pytest
from authbench.records import write_tsv
from authbench.studies.authority import tables as A
from authbench.studies.authority.evaluate import METRIC_COLUMNS, PARSE_MODES, PRED_COLUMNS, evaluate_cell
from authbench.studies.authority.report import other_mode, parse_note, parse_rows, write_domainauth_report

CATEGORIES = {"gov": {"tlds": ["gov"], "labels": ["gov", "gob"]}, "edu": {"tlds": ["edu"], "labels": ["ac"]},
              "social": {"domains": ["x.com", "y.com"]}}


def _list(iid, levels):
    return {"instance_id": iid, "items": [{"domain": f"{iid}-d{i}.com", "level": lv, "coarse": lv // 2,
                                          "category": None} for i, lv in enumerate(levels)]}


def _cell_rows(judge, instances, judgments):
    ident = {"benchmark": "domainauth", "model": "m1", "context": "wo_text", "parse_failure_rate": 0.5, "n_calls": 2}
    return [{**ident, **row, "parse": mode} for mode in PARSE_MODES
            for row in evaluate_cell(judge, "fine", instances, judgments, mode)]


@pytest.fixture
def metrics():
    """Two fine lists shown best first. ListRank: one clean perfect ranking,
    one reply with no ids (repaired to the presentation order, i.e. also
    perfect when lenient; a constant list when strict). PointJudge: clean."""
    insts = [_list("fine-0", [2, 1, 0]), _list("fine-1", [2, 1, 0])]
    ranks = [{"request_id": "fine-0", "value": [0, 1, 2], "status": "ok"},
             {"request_id": "fine-1", "value": [0, 1, 2], "status": "wrong_format"}]
    points = [{"request_id": f"item:{it['domain']}", "value": 9 - i, "status": "ok"}
              for inst in insts for i, it in enumerate(inst["items"])]
    baseline = {"benchmark": "domainauth", "model": "baseline:random", "context": "wo_text", "setting": "fine",
                "judge": "point", "derivation": "direct", "difficulty": "all", "metric": "rho", "value": 0.1, "n": 2,
                "n_constant": 0, "parse_failure_rate": 0.0, "parse": None, "n_calls": 0}
    return pd.DataFrame(_cell_rows("list_rank", insts, ranks) + _cell_rows("point", insts, points) + [baseline])


def test_parse_rows_keeps_baselines_in_both_modes(metrics):
    strict, lenient = parse_rows(metrics, "strict"), parse_rows(metrics, "lenient")
    assert set(strict["parse"].dropna()) == {"strict"} and set(lenient["parse"].dropna()) == {"lenient"}
    assert (strict["model"] == "baseline:random").sum() == (lenient["model"] == "baseline:random").sum() == 1
    rho = lambda df: df[(df["judge"] == "list_rank") & (df["metric"] == "rho")]["value"].item()
    assert rho(strict) == pytest.approx(0.5) and rho(lenient) == pytest.approx(1.0)  # (1 + 0) / 2 vs (1 + 1) / 2
    assert parse_rows(metrics.drop(columns="parse"), "strict") is not None
    with pytest.raises(ValueError, match="parse mode"):
        other_mode("loose")


def test_parse_note_says_which_mode_and_what_the_other_gives(metrics):
    shown = A.table_main(parse_rows(metrics, "strict"), "domainauth", "fine")
    other = A.table_main(parse_rows(metrics, "lenient"), "domainauth", "fine")
    note = parse_note(shown, other, "strict")
    assert note.startswith(" Parsing: strict (a failed reply contributes no prediction: its items rank last")
    # m1's row has 4 judge values (Point rho/tau, ListRank rho/tau), the baseline's 1: ListRank's two change by 50 points
    assert "Lenient parsing (a failed reply contributes what the parser recovered: the last verdict" in note
    assert "changes 2 of 5 values here, by at most 50.00 points" in note
    back = parse_note(other, shown, "lenient")
    assert back.startswith(" Parsing: lenient") and "Strict parsing" in back and "changes 2 of 5 values" in back
    same = parse_note(shown, shown, "strict")
    assert same.endswith("gives the same 5 values here.")
    assert parse_note(shown, None, "strict") == (" Parsing: strict (a failed reply contributes no prediction: "
                                                  "its items rank last, its pair counts as wrong).")


def test_domainauth_report_captions(metrics, tmp_path):
    mfile = tmp_path / "metrics.tsv"
    metrics.to_csv(mfile, sep="\t", index=False)
    labels = tmp_path / "labels.tsv"
    write_tsv([{"domain": f"d{lv}.com", "suffix": "com", "level": lv, "coarse": lv // 2, "n_urls": 1, "category": "",
                "text": ""} for lv in range(10)], labels,
              ["domain", "suffix", "level", "coarse", "n_urls", "category", "text"])
    pred = tmp_path / "pred.tsv"
    write_tsv([{"model": "m1", "context": "wo_text", "domain": "a.gov", "level": 5, "pred": 8, "category": "gov"},
               {"model": "m1", "context": "wo_text", "domain": "b.ac.id", "level": 4, "pred": "", "category": "edu"}],
              pred, list(PRED_COLUMNS))
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"cell": "domainauth/m1/list_rank/wo_text/fine", "n_calls": 2,
                                    "unique_requests": 2, "cache_hits": 0, "prompt_tokens": 10,
                                    "completion_tokens": 4, "engine_seconds": 1.0}))
    out = tmp_path / "report"
    write_domainauth_report(out, [str(mfile)], str(labels), [str(pred)], [str(manifest)], ["table1_fine",
                            "table8_categories"], list(CATEGORIES), CATEGORIES, "lenient")
    t1 = (out / "tables" / "table1_fine.md").read_text().splitlines()[0]
    assert "fail% = parse failures among the judge's calls. Parsing: lenient" in t1
    assert "Strict parsing (a failed reply contributes no prediction" in t1
    assert "changes 2 of 5 values here, by at most 50.00 points" in t1
    # lenient numbers shown: ListRank rho (1 + 1) / 2 = 100.00
    row = next(line for line in (out / "tables" / "table1_fine.md").read_text().splitlines() if line.startswith("| m1"))
    assert "100.00" in row
    t8 = (out / "tables" / "table8_categories.md").read_text().splitlines()[0]
    assert ("Categories by public suffix (the label nearest the TLD decides; listed domains and suffixes first): "
            "gov: TLD .gov or a suffix label below the TLD in {gov, gob}; edu: TLD .edu or a suffix label below the "
            "TLD in {ac}; social: 2 listed domains.") in t8
    assert "Parsing: lenient" in t8
    saved = pd.read_csv(out / "metrics.tsv", sep="\t")
    assert set(saved["parse"].dropna()) == {"strict", "lenient"}  # both modes kept for the researcher
    assert set(METRIC_COLUMNS) <= set(saved.columns)
