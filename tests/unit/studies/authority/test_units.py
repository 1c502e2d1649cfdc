"""AuthorityBench units, intervals and paired comparisons: the units
of a hand-made cell reproduce its metric rows exactly, intervals bracket the
value or are blank, the comparisons of hand cells and the tables' tags."""

import json
import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from authbench.render.formatting import NOT_BEST_TAG, NOT_RANDOM_TAG
from authbench.render.table_writers import write_table
from authbench.stats import IntervalSpec, mean_interval
from authbench.studies.authority import tables as A
from authbench.studies.authority.comparisons import BT_FAMILY, compare, read_units, tag_column
from authbench.studies.authority.evaluate import (evaluate_cell, evaluate_expected, evaluate_scores, with_intervals,
                                                  write_units)
from authbench.studies.authority.rows import METRIC_COLUMNS, ROW_KEY, UNIT_COLUMNS

SPEC = IntervalSpec(resamples=500, seed=3, min_units=5)
IDENT = {"benchmark": "domainauth", "model": "m", "context": "wo_text", "parse": "strict"}


def lst(iid, levels):
    return {"instance_id": iid, "items": [{"domain": f"{iid}-d{i}.com", "level": lv, "coarse": lv // 2,
                                           "category": None} for i, lv in enumerate(levels)]}


def pair(iid, difficulty, la, lb):
    return {"instance_id": iid, "difficulty": difficulty,
            "items": [{"domain": f"{iid}-a.com", "level": la}, {"domain": f"{iid}-b.com", "level": lb}]}


RNG = np.random.default_rng(7)
LISTS = [lst(f"fine-{k}", list(RNG.permutation(10))) for k in range(8)]
PAIRS = [pair(f"easy-{k}", "easy", 8, 1) for k in range(6)] + [pair(f"hard-{k}", "hard", 4, 5) for k in range(6)]


def _point(instances, noise=3.0, missing=()):
    out = []
    for inst in instances:
        for it in inst["items"]:
            v = None if it["domain"] in missing else int(np.clip(round(it["level"] + RNG.normal(0, noise)), 0, 9))
            out.append({"request_id": f"item:{it['domain']}", "value": v, "status": "ok" if v is not None else "x"})
    return out


def _pair_score(instances):
    out = []
    for inst in instances:
        n = len(inst["items"])
        for a in range(n):
            for b in range(a + 1, n):
                x, y = (a, b) if RNG.random() < 0.5 else (b, a)  # the item shown as A
                sa, sb = (int(RNG.integers(0, 10)) for _ in range(2))
                out.append({"request_id": f"{inst['instance_id']}:{x}-{y}", "value": {"A": sa, "B": sb},
                            "status": "ok", "expected": {"A": sa + 0.25, "B": sb - 0.25}})
    return out


def _check_units(rows, units):
    """Every metric row is the exact mean of its units, over n of them."""
    by = defaultdict(list)
    for u in units:
        by[tuple(str(u[k]) for k in ROW_KEY)].append(u["value"])
    assert rows and len(by) == len(rows)
    for r in rows:
        values = by[tuple(str(r[k]) for k in ROW_KEY)]
        assert len(values) == r["n"]
        assert float(np.mean(values)) == r["value"]  # exactly, not approximately


@pytest.mark.parametrize("judge, setting, instances, judgments", [
    ("point", "fine", LISTS, _point(LISTS, missing={"fine-0-d3.com"})),
    ("point", "pairs", PAIRS, _point(PAIRS, missing={"easy-0-a.com"})),
    ("pair_score", "fine", LISTS[:3], _pair_score(LISTS[:3])),
    ("pair_score", "pairs", PAIRS, _pair_score(PAIRS)),
    ("list_rank", "fine", LISTS, [{"request_id": i["instance_id"], "value": list(RNG.permutation(10)), "status": "ok"}
                                  for i in LISTS]),
    ("pair_rank", "pairs", PAIRS, [{"request_id": f"{p['instance_id']}:1-0", "value": c, "status": "ok"}
                                   for p, c in zip(PAIRS, ["A", "B", None] * 4)]),
])
def test_units_reproduce_the_metric_rows(judge, setting, instances, judgments):
    units = []
    rows = [{**IDENT, **r} for r in evaluate_cell(judge, setting, instances, judgments, "strict", units)]
    units = [{**IDENT, **u} for u in units]
    _check_units(rows, units)
    assert evaluate_cell(judge, setting, instances, judgments) == [{k: v for k, v in r.items() if k not in IDENT}
                                                                   for r in rows]  # the collector changes nothing
    for u in units:
        assert set(u) == set(UNIT_COLUMNS)
        items, truth, pred = json.loads(u["items"]), json.loads(u["truth"]), json.loads(u["pred"])
        assert len(items) == len(truth)
        if setting == "pairs":
            inst = next(i for i in instances if i["instance_id"] == u["unit"])
            assert u["a_item"] == items[0] and u["status"] in ("correct", "wrong", "tie", "unparsed")
            assert truth == [next(it["level"] for it in inst["items"] if it["domain"] == d) for d in items]
            assert (u["value"] == 1.0) == (u["status"] == "correct")
        else:
            assert len(pred) == len(items) and u["status"] in ("ok", "constant") and u["a_item"] == ""
    if judge == "pair_rank":  # request "…:1-0": the second item sat in A
        first = next(u for u in units if u["unit"] == "easy-0")
        assert first["a_item"] == "easy-0-b.com" and first["pred"] == '["A"]' and first["status"] == "wrong"
        assert next(u for u in units if u["unit"] == "easy-2")["status"] == "unparsed"
    if judge == "pair_score":  # E[s] rows: their own units, derivation renamed
        mine = []
        rows = [{**IDENT, **r} for r in evaluate_expected(judge, setting, instances, judgments, "strict", mine)]
        assert {r["derivation"] for r in rows} == ({"expected"} if setting == "pairs"
                                                   else {"bubble_expected", "average_expected", "bt_expected"})
        _check_units(rows, [{**IDENT, **u} for u in mine])


def test_baseline_units_and_parquet_roundtrip(tmp_path):
    units = []
    rows = evaluate_scores("pairs", "point", PAIRS, lambda inst, i: float(2 - i), units)  # A always wins
    assert [u["status"] for u in units] == ["correct"] * 6 + ["wrong"] * 6
    path = tmp_path / "units.parquet"
    write_units([{**IDENT, **u, "model": "baseline:position", "parse": ""} for u in units], path)
    back = pd.read_parquet(path)
    assert list(back.columns) == list(UNIT_COLUMNS) and len(back) == 12
    assert back.groupby("difficulty")["value"].mean().to_dict() == {r["difficulty"]: r["value"] for r in rows}
    cells = read_units([path], "lenient")  # the baselines' units belong to both parse modes
    assert sum(len(values) for by_cell in cells.values() for _, values in by_cell.values()) == 12


def test_intervals_bracket_the_value_or_are_blank():
    units = []
    rows = [{**IDENT, **r} for r in evaluate_cell("point", "fine", LISTS, _point(LISTS), "strict", units)]
    units = [{**IDENT, **u} for u in units]
    got = with_intervals(rows, units, SPEC)
    for r in got:
        assert r["lo"] <= r["value"] <= r["hi"] and r["lo"] < r["hi"]
        assert (r["lo"], r["hi"]) == mean_interval([u["value"] for u in units if u["metric"] == r["metric"]], SPEC,
                                                   tuple(str(r[k]) for k in ROW_KEY))
    assert with_intervals(rows, units, SPEC) == got  # seeded by the row's identity: same inputs, same bounds
    few = with_intervals(rows, units, IntervalSpec(resamples=500, seed=3, min_units=9))  # 8 lists < 9
    assert all(math.isnan(r["lo"]) and math.isnan(r["hi"]) for r in few)
    diag = with_intervals([{**rows[0], "derivation": "validity"}], units, SPEC)[0]  # no units: blank
    assert math.isnan(diag["lo"]) and math.isnan(diag["hi"])


def _units(model, values, judge="point", derivation="direct", context="wo_text", metric="acc"):
    return pd.DataFrame([{"benchmark": "domainauth", "model": model, "context": context, "setting": "pairs",
                          "judge": judge, "derivation": derivation, "difficulty": "easy", "metric": metric,
                          "parse": "" if model.startswith("baseline:") else "strict", "unit": f"easy-{k}",
                          "value": float(v)} for k, v in enumerate(values)])


def test_comparisons_of_hand_cells_and_their_tags():
    n = 40
    strong = [1] * n  # always right
    near = [1] * (n - 1) + [0]  # one pair fewer: not distinguishable from strong
    coin = [k % 2 for k in range(n)]  # as good as the random baseline
    units = pd.concat([_units("strong", strong), _units("near", near), _units("coin", coin),
                       _units("strong", coin, judge="pair_score"),
                       _units("strong", [1] * 20 + [0] * 20, context="w_text"),
                       _units("baseline:random", [(k + 1) % 2 for k in range(n)]),
                       _units("baseline:random", coin, context="w_text")], ignore_index=True)
    frame, tags = compare(units, SPEC)
    assert set(frame["family"]) == {"vs baseline", "w/ vs w/o text", "model vs model", "judge vs judge",
                                    "vs column best"}
    row = lambda fam, a, b: frame[(frame["family"] == fam) & (frame["a"] == a) & (frame["b"] == b)].iloc[0]
    vs = row("vs baseline", "strong point/direct w/o", "baseline:random w/o")
    assert vs["delta"] == pytest.approx(50.0) and vs["distinct"] == "yes" and vs["n"] == n
    assert vs["p"] == pytest.approx(2 * 0.5 ** 20) and vs["test"] == "McNemar exact"  # 20 discordant pairs, all for strong
    assert row("vs baseline", "coin point/direct w/o", "baseline:random w/o")["distinct"] == "no"
    assert row("w/ vs w/o text", "strong point/direct w/", "strong point/direct w/o")["delta"] == pytest.approx(-50)
    assert row("judge vs judge", "strong point/direct w/o", "strong pair_score/direct w/o")["distinct"] == "yes"
    assert row("model vs model", "strong point/direct w/o", "near point/direct w/o")["distinct"] == "no"
    assert row("vs column best", "near point/direct w/o", "strong point/direct w/o")["distinct"] == "no"
    assert row("vs column best", "coin point/direct w/o", "strong point/direct w/o")["distinct"] == "yes"
    key = lambda m, j="point", c="wo_text": ("domainauth", m, c, j, "direct", "pairs", "easy", "acc")
    assert key("strong") not in tags  # distinct from random, the column's best
    assert tags[key("near")] == NOT_BEST_TAG
    assert tags[key("coin")] == NOT_RANDOM_TAG
    assert tags[key("strong", c="w_text")] == NOT_RANDOM_TAG  # 50% vs a coin; its own column (Table 3: per context)
    # cells on other units are not paired
    other = _units("other", strong).assign(unit=[f"hard-{k}" for k in range(n)])
    again, _ = compare(pd.concat([units, other], ignore_index=True), SPEC)
    assert not again["a"].str.startswith("other").any() and not again["b"].str.startswith("other").any()


def test_bradley_terry_cells_compare_in_their_own_families():
    # the same cells with and without a Bradley–Terry twin of each: the paper's comparisons and their
    # Holm-adjusted p-values are unchanged, the twins' comparisons sit in the "(Bradley–Terry)" families
    n = 40
    base = pd.concat([_units("strong", [1] * n, judge="pair_score", derivation="average"),
                      _units("coin", [k % 2 for k in range(n)], judge="pair_score", derivation="average"),
                      _units("baseline:random", [(k + 1) % 2 for k in range(n)])], ignore_index=True)
    fitted = base[~base["model"].str.startswith("baseline:")].assign(derivation="bt")
    alone, _ = compare(base, SPEC)
    both, tags = compare(pd.concat([base, fitted], ignore_index=True), SPEC)
    paper = both[~both["family"].str.endswith(BT_FAMILY)].reset_index(drop=True)
    pd.testing.assert_frame_equal(paper, alone)
    twins = both[both["family"].str.endswith(BT_FAMILY)]
    assert set(twins["family"]) == {"vs baseline (Bradley–Terry)", "model vs model (Bradley–Terry)",
                                    "vs column best (Bradley–Terry)"}
    assert (twins["a"].str.contains("/bt ") | twins["b"].str.contains("/bt ")).all()
    assert tags[("domainauth", "coin", "wo_text", "pair_score", "bt", "pairs", "easy", "acc")] == NOT_RANDOM_TAG


def test_too_few_units_give_blank_comparisons_and_tags():
    units = pd.concat([_units("m", [1, 1, 1]), _units("baseline:random", [0, 1, 0])], ignore_index=True)
    frame, tags = compare(units, SPEC)
    assert frame["distinct"].tolist() == [""] and math.isnan(frame["lo"].iloc[0])
    assert tags == {("domainauth", "m", "wo_text", "point", "direct", "pairs", "easy", "acc"): NOT_RANDOM_TAG}


def _metrics(rows):
    return pd.DataFrame([{c: r.get(c, 0) for c in (*METRIC_COLUMNS, "lo", "hi")} for r in rows])


def test_tables_show_intervals_and_tags(tmp_path):
    base = {"benchmark": "domainauth", "setting": "fine", "judge": "point", "derivation": "direct",
            "difficulty": "all", "n": 8, "n_constant": 0, "parse_failure_rate": 0.0}
    metrics = _metrics([
        {**base, "model": "m1", "context": "wo_text", "metric": "rho", "value": 0.41, "lo": 0.30, "hi": 0.52},
        {**base, "model": "m2", "context": "wo_text", "metric": "rho", "value": 0.05, "lo": math.nan,
         "hi": math.nan},
        {**base, "model": "baseline:random", "context": "wo_text", "metric": "rho", "value": 0.02, "lo": -0.1,
         "hi": 0.12}])
    tags = {("domainauth", "m2", "wo_text", "point", "direct", "fine", "all", "rho"): NOT_RANDOM_TAG + NOT_BEST_TAG}
    metrics["tag"] = tag_column(metrics, tags)
    spec = A.table_main(metrics, "domainauth", "fine")
    write_table(spec, tmp_path / "t", "cap", "inline")
    md = (tmp_path / "t.md").read_text()
    assert "| m1 | w/o | **41.00** [30.00, 52.00] |" in md
    # marks are per row (m2's only value is its row's best); a blank interval: nothing after the value
    assert f"| m2 | w/o | **5.00{NOT_RANDOM_TAG}{NOT_BEST_TAG}** | –" in md
    assert "| baseline:random | w/o | 2.00 [-10.00, 12.00] |" in md
    csv = pd.read_csv(tmp_path / "t.csv")
    assert csv.loc[0, "PointJudge / ρ lo"] == 30.0 and math.isnan(csv.loc[1, "PointJudge / ρ lo"])
    assert csv["PointJudge / ρ"].tolist() == [41.0, 5.0, 2.0]  # the CSV keeps plain numbers
    write_table(spec, tmp_path / "c", "cap", "columns")
    assert "| PointJudge / ρ | PointJudge / ρ lo | PointJudge / ρ hi |" in (tmp_path / "c.md").read_text()


def test_categories_table_intervals_over_items():
    pred = pd.DataFrame({"model": "m", "context": "wo_text", "domain": [f"d{k}.gov" for k in range(12)],
                         "level": [5] * 12, "pred": [float(k % 4 + 4) for k in range(12)], "category": "gov"})
    spec = A.table_categories(pred, ["gov"], intervals=SPEC)
    lo, hi = spec.lo.iloc[0], spec.hi.iloc[0]
    pred_mean, bias_mean = spec.values.iloc[0][(".gov", "Pred")], spec.values.iloc[0][(".gov", "Bias")]
    assert lo[(".gov", "Pred")] <= pred_mean <= hi[(".gov", "Pred")]
    assert lo[(".gov", "Bias")] <= bias_mean <= hi[(".gov", "Bias")]
    assert lo[(".gov", "Bias")] < hi[(".gov", "Bias")] and hi[(".gov", "Bias")] < hi[(".gov", "Pred")] - 4
    few = A.table_categories(pred.iloc[:3], ["gov"], intervals=SPEC)
    assert few.lo.iloc[0].isna().all() and few.values.iloc[0][(".gov", "Pred")] == 5.0
