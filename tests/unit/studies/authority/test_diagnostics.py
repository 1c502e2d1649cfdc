"""Judge-validity diagnostics: a judge that answers by
presentation position, copies the prompt's example or barely varies its scores
is flagged, a judge that reads the items is not; the flag reaches every results
table, the cost table and the captions. The "by position" replies below are the embedded demo model's own
(gemma3-270m, llama.cpp, slots decoding, on the demo's DomainAuth lists and
pairs: the same reply to every list and every pair)."""

import dataclasses
import json
import math

import pandas as pd
import pytest
import yaml
from authbench.errors import ConfigError, TemplateError
from authbench.studies.authority import tables as A
from authbench.studies.authority.diagnostics import (
    ValidityRule,
    cell_diagnostics,
    example_value,
    flagged_cells,
    validity_frame,
)
from authbench.studies.authority.evaluate import (
    PARSE_MODES,
    baseline_scorer,
    evaluate_cell,
    evaluate_scores,
)
from authbench.studies.authority.prompts import load_template
from scipy import stats
from wfrun import write_ten_level_labels

# The demo model's replies (recorded from a run of the demo config's gemma3-270m)
DEMO_LIST_SCORE_5 = '{"0": 7, "1": 4, "2": 3, "3": 2, "4": 1}'
DEMO_LIST_RANK_5 = "[4] > [0] > [1] > [2] > [3]"
DEMO_PAIR_SCORE = '{"A": 7, "B": 4}'
DEMO_PAIR_RANK = "A"

COARSE_LEVELS = ([3, 0, 4, 1, 2], [1, 4, 0, 2, 3], [4, 2, 1, 3, 0])  # shuffled, as the sampler shows them


@pytest.fixture
def templates(root):
    folder = root / "resources/prompts/domainauth"
    return {j: load_template(folder / f"{j}_wo_text.yaml")
            for j in ("point", "list_rank", "list_score", "pair_rank", "pair_score")}


def lst(iid, levels):
    return {"instance_id": iid, "items": [{"domain": f"{iid}-d{i}.com", "level": lv, "coarse": lv, "category": None}
                                          for i, lv in enumerate(levels)]}


def pair(iid, level_a, level_b, difficulty="easy"):
    return {"instance_id": iid, "difficulty": difficulty,
            "items": [{"domain": f"{iid}-a.com", "level": level_a}, {"domain": f"{iid}-b.com", "level": level_b}]}


def judged(replies):
    """(request_id, output format, n, raw reply) -> judgment rows, through the real parser."""
    from authbench.llm.engines.base import Response
    from authbench.llm.runner import parse_responses

    requests = [{"request_id": rid, "output": fmt, "n": n} for rid, fmt, n, _ in replies]
    return parse_responses(requests, [Response(rid, text, 0, 0, 0.0, "stop") for rid, _, _, text in replies])


def diag(rows):
    return {r["metric"]: (r["value"], r["n"]) for r in rows}


def coarse_lists():
    return [lst(f"coarse-{k}", levels) for k, levels in enumerate(COARSE_LEVELS)]


# --- the template's own example ------------------------------------------------------------------

def test_examples_come_from_the_templates(templates):
    assert example_value(templates["pair_score"]) == {"A": 7, "B": 4}
    # "{"0": 7, "1": 4, ..., "{last_id}": 8}" follows the list size; the "..." ids are not stated
    assert example_value(templates["list_score"], 5) == {0: 7, 1: 4, 2: None, 3: None, 4: 8}
    assert example_value(templates["list_score"], 10)[9] == 8
    # "[4] > [0]" completed by the parser's repair rule (missing ids in presentation order)
    assert example_value(templates["list_rank"], 10) == [4, 0, 1, 2, 3, 5, 6, 7, 8, 9]
    assert example_value(templates["point"]) is None and example_value(templates["pair_rank"]) is None


def test_every_judge_template_with_an_example_reply_declares_it(root):
    """The example field is the template's text (the loader checks it is there), so every
    shipped ListRank, ListScore and PairScore prompt gets the example-copy diagnostic."""
    for path in sorted((root / "resources/prompts").glob("*auth/**/*.yaml")):
        if "ragauth" in path.parts:
            continue
        t = load_template(path)
        assert (t.example is not None) == (t.judge in ("list_rank", "list_score", "pair_score")), path
        if t.example is not None:
            assert t.example_reply(5) in t.render_list([{"domain": "a", "entity": "a", "text": ""}] * 5) \
                if t.judge.startswith("list") else t.example_reply() in t.render_pair({}, {})


def test_template_example_must_be_in_the_template_and_parse(tmp_path, root):
    src = yaml.safe_load((root / "resources/prompts/domainauth/pair_score_wo_text.yaml").read_text())
    bad = dict(src, example='{{"A": 9, "B": 1}}')
    path = tmp_path / "pair_score_wo_text.yaml"
    path.write_text(yaml.safe_dump(bad))
    with pytest.raises(TemplateError, match="does not occur in the template"):
        load_template(path)
    unparsable = dict(src, example='{{"A": X, "B": X}}')  # the format line, not an example
    path.write_text(yaml.safe_dump(unparsable))
    with pytest.raises(TemplateError, match="states no pair_scores reply"):
        example_value(load_template(path))


# --- list judges ---------------------------------------------------------------------------------

def test_list_score_by_position_is_flagged(templates):
    insts = coarse_lists()
    judg = judged([(i["instance_id"], "list_scores", 5, DEMO_LIST_SCORE_5) for i in insts])
    d = diag(cell_diagnostics("list_score", "coarse", insts, judg, "strict", templates["list_score"]))
    assert d["position_constant"] == (1.0, 3)
    # positions 0..4 get 7, 4, 3, 2, 1 in every list: a strictly falling function of position
    assert d["position_rho"] == (pytest.approx(-1.0), 3)
    assert d["example_copy"] == (0.0, 3)  # "4": 1, not the example's "4": 8
    rule = ValidityRule()
    assert rule.reasons("list_score", d) == ["the same score vector by position in 3 of 3 lists",
                                             "ρ(presentation position, prediction) = -1.00"]
    # what the tables would show as its rho: the same vector against three different level orders
    rho = evaluate_cell("list_score", "coarse", insts, judg)[0]["value"]
    expected = sum(stats.spearmanr(lv, [7, 4, 3, 2, 1]).statistic for lv in COARSE_LEVELS) / 3
    assert rho == pytest.approx(expected)


def test_a_judge_that_reads_the_items_is_not_flagged(templates):
    insts = coarse_lists()
    replies = [(i["instance_id"], "list_scores", 5, json.dumps({str(k): lv for k, lv in enumerate(levels)}))
               for i, levels in zip(insts, COARSE_LEVELS)]
    rows = cell_diagnostics("list_score", "coarse", insts, judged(replies), "strict", templates["list_score"])
    d = diag(rows)
    assert d["position_constant"] == (0.0, 3)
    positions = [p for _ in COARSE_LEVELS for p in range(5)]
    assert d["position_rho"][0] == pytest.approx(stats.spearmanr(positions, sum(COARSE_LEVELS, [])).statistic)
    assert abs(d["position_rho"][0]) < 0.8 and d["example_copy"] == (0.0, 3)
    assert ValidityRule().reasons("list_score", d) == []


def test_list_rank_copying_the_example_in_presentation_order(templates):
    insts = coarse_lists()
    judg = judged([(i["instance_id"], "ranking", 5, DEMO_LIST_RANK_5) for i in insts])
    d = diag(cell_diagnostics("list_rank", "coarse", insts, judg, "strict", templates["list_rank"]))
    assert d["position_constant"] == (1.0, 3) and d["example_copy"] == (1.0, 3)
    # values by position [3, 2, 1, 0, 4]: hand, d^2 = 9 + 1 + 1 + 9 + 0 = 20, rho = 1 - 6*20/(5*24) = 0
    assert d["position_rho"] == (pytest.approx(0.0), 3)
    assert ValidityRule().reasons("list_rank", d) == ["the same ranking by position in 3 of 3 lists",
                                                      "the prompt's example reply in 3 of 3 replies"]


def test_constant_replies_are_constant_lists_not_position_constant():
    insts = coarse_lists()
    judg = judged([(i["instance_id"], "list_scores", 5, '{"0": 5, "1": 5, "2": 5, "3": 5, "4": 5}') for i in insts])
    d = diag(cell_diagnostics("list_score", "coarse", insts, judg))
    assert d["position_constant"] == (0.0, 3)  # counted in n_constant instead
    assert math.isnan(d["position_rho"][0])
    assert evaluate_cell("list_score", "coarse", insts, judg)[0]["n_constant"] == 3


def test_parse_modes_judge_the_values_the_metrics_use():
    """A reply without ids is repaired to the presentation order: lenient uses
    that ranking (a judge answering by position), strict ignores it."""
    insts = coarse_lists()
    judg = judged([(i["instance_id"], "ranking", 5, "I cannot rank these sources.") for i in insts])
    lenient = diag(cell_diagnostics("list_rank", "coarse", insts, judg, "lenient"))
    strict = diag(cell_diagnostics("list_rank", "coarse", insts, judg, "strict"))
    assert lenient["position_constant"] == (1.0, 3) and lenient["position_rho"] == (pytest.approx(-1.0), 3)
    assert strict["position_constant"] == (0.0, 3) and math.isnan(strict["position_rho"][0])
    assert strict["position_rho"][1] == 0
    assert ValidityRule().reasons("list_rank", lenient) and not ValidityRule().reasons("list_rank", strict)
    with pytest.raises(ValueError, match="parse mode"):
        cell_diagnostics("list_rank", "coarse", insts, judg, "loose")


# --- pair judges ---------------------------------------------------------------------------------

# ten pairs, A truly higher in four of them
PAIR_LEVELS = [(9, 1), (8, 2), (7, 0), (6, 3), (1, 9), (0, 5), (2, 8), (3, 7), (1, 6), (0, 9)]


def pairs(k=10):
    return [pair(f"easy-{i:05d}", a, b) for i, (a, b) in enumerate(PAIR_LEVELS[:k])]


def test_pair_rank_answering_a_is_flagged_and_a_reader_is_not(templates):
    insts = pairs()
    always_a = judged([(f"{i['instance_id']}:0-1", "pair_choice", None, DEMO_PAIR_RANK) for i in insts])
    d = diag(cell_diagnostics("pair_rank", "pairs", insts, always_a, "strict", templates["pair_rank"]))
    assert d["a_share"] == (1.0, 10) and d["a_expected"] == (0.4, 10)
    assert d["position_rho"] == (pytest.approx(-1.0), 10)
    assert "example_copy" not in d  # prompt C shows no example reply
    assert ValidityRule().reasons("pair_rank", d)[-1] == ("prefers A in 10 of 10 decisive comparisons "
                                                          "(A is truly higher in 40%)")
    reader = judged([(f"{i['instance_id']}:0-1", "pair_choice", None, "A" if a > b else "B")
                     for i, (a, b) in zip(insts, PAIR_LEVELS)])
    d = diag(cell_diagnostics("pair_rank", "pairs", insts, reader))
    assert d["a_share"] == (0.4, 10)
    # phi coefficient of position (A=0, B=1) x win over the pooled items: B wins 6, A wins 4 ->
    # (6*6 - 4*4) / sqrt(10*10*10*10) = 0.2 (for pair_rank it is 1 - 2 * a_share: all "A" gives -1)
    assert d["position_rho"][0] == pytest.approx(0.2)
    assert ValidityRule().reasons("pair_rank", d) == []
    # too few comparisons to tell: nine "A" answers are not flagged (min_calls = 10)
    nine = diag(cell_diagnostics("pair_rank", "pairs", insts[:9], always_a[:9]))
    assert nine["a_share"] == (1.0, 9) and ValidityRule().reasons("pair_rank", nine) == []


def test_pair_score_copying_the_example_is_flagged(templates):
    insts = pairs()
    judg = judged([(f"{i['instance_id']}:0-1", "pair_scores", None, DEMO_PAIR_SCORE) for i in insts])
    d = diag(cell_diagnostics("pair_score", "pairs", insts, judg, "strict", templates["pair_score"]))
    assert d["example_copy"] == (1.0, 10) and d["a_share"] == (1.0, 10)
    assert ValidityRule().reasons("pair_score", d) == [
        "ρ(presentation position, prediction) = -1.00", "the prompt's example reply in 10 of 10 replies",
        "prefers A in 10 of 10 decisive comparisons (A is truly higher in 40%)"]
    # a judge scoring the true levels: ties are not decisive, (7, 4) never occurs
    honest = judged([(f"{i['instance_id']}:0-1", "pair_scores", None, json.dumps({"A": a, "B": b}))
                     for i, (a, b) in zip(insts, PAIR_LEVELS)])
    d = diag(cell_diagnostics("pair_score", "pairs", insts, honest, "strict", templates["pair_score"]))
    assert d["example_copy"] == (0.0, 10) and d["a_share"] == (0.4, 10)
    assert ValidityRule().reasons("pair_score", d) == []


def test_a_share_on_anchored_list_comparisons():
    """List comparisons: request id <instance>:<a>-<b>, a shown as A (a seeded coin flip)."""
    inst = lst("fine-00000", [5, 2, 8])
    judg = judged([("fine-00000:0-1", "pair_choice", None, "A"), ("fine-00000:2-0", "pair_choice", None, "A"),
                   ("fine-00000:1-2", "pair_choice", None, "B")])
    d = diag(cell_diagnostics("pair_rank", "fine", [inst], judg))
    assert d["a_share"] == (pytest.approx(2 / 3), 3)
    assert d["a_expected"] == (pytest.approx(2 / 3), 3)  # 5 > 2, 8 > 5, 2 < 8


# --- a judge that barely varies ------------------------------------------------------------------

# the demo's two DomainAuth fine lists (N = 10, one domain per level, shuffled)
FINE_LEVELS = ([3, 7, 0, 9, 5, 1, 8, 2, 6, 4], [6, 1, 9, 4, 0, 7, 2, 8, 5, 3])


def fine_lists():
    return [lst(f"fine-{k:05d}", levels) for k, levels in enumerate(FINE_LEVELS)]


def point_judged(instances, score):
    """PointJudge replies ``{"score": score(item)}`` for every distinct item, through the real parser."""
    items = {it["domain"]: it for inst in instances for it in inst["items"]}
    return judged([(f"item:{d}", "score", 1, json.dumps({"score": score(it)})) for d, it in items.items()])


def test_demo_point_judges_that_barely_vary_are_flagged(root):
    """The demo's PointJudge cells: gemma scored 19 of the 20 domains 0 and
    one 1, qwen 19 of them 8 and one 5, both got Table 1's ρ 26.11 / τ 22.36 — one list
    constant (ρ = 0), the other ranking one domain apart from nine tied ones."""
    insts = fine_lists()
    gemma = point_judged(insts, lambda it: 1 if it["domain"] == "fine-00001-d2.com" else 0)  # level 9
    qwen = point_judged(insts, lambda it: 5 if it["domain"] == "fine-00001-d4.com" else 8)  # level 0
    cfg = yaml.safe_load((root / "config.yaml").read_text())
    rule = ValidityRule.from_config(cfg["judge_validity"])
    assert cfg["domainauth"]["sampling"]["fine_lists"] == len(insts) >= rule.min_lists
    for judg in (gemma, qwen):
        d = diag(cell_diagnostics("point", "fine", insts, judg, "strict", None, rule.near_constant))
        assert d == {"near_constant": (1.0, 2)}  # 10 of 10 and 9 of 10 items on one score
        assert rule.reasons("point", d, "fine") == ["one score for ≥ 90% of the items in 2 of 2 lists"]
    rows = _cell_rows("gemma", "point", "fine", insts, gemma) + _cell_rows("qwen", "point", "fine", insts, qwen)
    strict = pd.DataFrame(rows).query("parse == 'strict'")
    assert flagged_cells(strict, rule) == {
        ("domainauth", m, "wo_text", "fine", "point"): ["one score for ≥ 90% of the items in 2 of 2 lists"]
        for m in ("gemma", "qwen")}
    spec = A.table_main(strict, "domainauth", "fine", rule)
    for model in ("gemma", "qwen"):  # hand: ρ = (0 + √(22.5/82.5)) / 2, τ_b = (0 + 9/√(45·9)) / 2
        assert spec.entries.loc[(model, "w/o"), ("PointJudge", "", "ρ")] == "26.11†"
        assert spec.entries.loc[(model, "w/o"), ("PointJudge", "", "τ")] == "22.36†"
    assert validity_frame(strict, rule).set_index("model")["near_constant"].to_dict() == {"gemma": 1.0, "qwen": 1.0}


def test_a_point_judge_that_varies_is_not_flagged():
    insts = fine_lists()
    d = diag(cell_diagnostics("point", "fine", insts, point_judged(insts, lambda it: it["level"] // 2)))
    assert d == {"near_constant": (0.0, 2)}  # two items per score
    assert ValidityRule().reasons("point", d, "fine") == []


def test_near_constant_thresholds():
    """≥ near_constant of a list's items (9 of 10 is 90%: near-constant, 8 of 10 not), in more
    than near_constant_lists of the lists (1 of 2 is not most), with ≥ min_lists lists."""
    insts = fine_lists()
    nine = point_judged(insts, lambda it: it["level"] if it["level"] == 9 else 4)
    eight = point_judged(insts, lambda it: it["level"] if it["level"] >= 8 else 4)
    mixed = point_judged(insts, lambda it: it["level"] if it["domain"].startswith("fine-00001") else 4)
    rule = ValidityRule()
    assert diag(cell_diagnostics("point", "fine", insts, nine))["near_constant"] == (1.0, 2)
    assert diag(cell_diagnostics("point", "fine", insts, eight))["near_constant"] == (0.0, 2)
    assert diag(cell_diagnostics("point", "fine", insts, eight, near_constant=0.8))["near_constant"] == (1.0, 2)
    assert diag(cell_diagnostics("point", "fine", insts, mixed))["near_constant"] == (0.5, 2)
    assert rule.reasons("point", {"near_constant": (1.0, 2)}, "fine")
    assert not rule.reasons("point", {"near_constant": (0.5, 2)}, "fine")  # half is not most
    assert ValidityRule(near_constant_lists=0.4).reasons("point", {"near_constant": (0.5, 2)}, "fine")
    assert not rule.reasons("point", {"near_constant": (1.0, 1)}, "coarse")  # the demo's one coarse list
    # unscored items share no score: a cell whose replies failed is the parse-failure rate's business
    failed = judged([(j["request_id"], "score", 1, "no idea") for j in nine])
    assert diag(cell_diagnostics("point", "fine", insts, failed, "strict"))["near_constant"] == (0.0, 2)


def test_near_constant_per_judge_and_on_pairs():
    """Score judges only (a ranking orders every item); PairScore lists: AverageScore;
    pairs: a tie of the two items' scores, counted over pairs (min_calls)."""
    insts = coarse_lists()
    flat = judged([(i["instance_id"], "list_scores", 5, '{"0": 5, "1": 5, "2": 5, "3": 5, "4": 5}') for i in insts])
    assert diag(cell_diagnostics("list_score", "coarse", insts, flat))["near_constant"] == (1.0, 3)
    assert ValidityRule().reasons("list_score", diag(cell_diagnostics("list_score", "coarse", insts, flat)),
                                  "coarse") == ["one score for ≥ 90% of the items in 3 of 3 lists"]
    ranked = judged([(i["instance_id"], "ranking", 5, DEMO_LIST_RANK_5) for i in insts])
    assert "near_constant" not in diag(cell_diagnostics("list_rank", "coarse", insts, ranked))
    # PairScore on a list: every comparison 6 vs 6 but one 9 vs 6 -> AverageScore 6.75, 6, 6, 6, 6:
    # 4 of 5 items (80%) on one score
    inst = lst("coarse-x", [3, 0, 4, 1, 2])
    comps = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    replies = [(f"coarse-x:{a}-{b}", "pair_scores", None, json.dumps({"A": 6, "B": 6})) for a, b in comps[1:]]
    one = judged([("coarse-x:0-1", "pair_scores", None, '{"A": 9, "B": 6}'), *replies])
    assert diag(cell_diagnostics("pair_score", "coarse", [inst], one, near_constant=0.8))["near_constant"] == (1.0, 1)
    assert diag(cell_diagnostics("pair_score", "coarse", [inst], one))["near_constant"] == (0.0, 1)
    apart = judged([("coarse-x:0-1", "pair_scores", None, '{"A": 9, "B": 0}'), *replies])  # 6.75, 4.5, 6, 6, 6
    assert diag(cell_diagnostics("pair_score", "coarse", [inst], apart, near_constant=0.8))["near_constant"] == (0.0, 1)
    # pairs: a tie in 8 of 10 (counted wrong by the accuracy) -> flagged; in 9 pairs too few to tell
    ps = pairs()
    ties = judged([(f"{i['instance_id']}:0-1", "pair_scores", None, json.dumps({"A": 5, "B": 5 + (k < 2)}))
                   for k, i in enumerate(ps)])
    d = diag(cell_diagnostics("pair_score", "pairs", ps, ties))
    assert d["near_constant"] == (0.8, 10)
    assert ValidityRule().reasons("pair_score", d, "pairs")[-1] == "the same score for both items in 8 of 10 pairs"
    assert not ValidityRule().reasons("pair_score", {"near_constant": (1.0, 9)}, "pairs")  # min_calls = 10
    same = point_judged(ps, lambda it: 3)
    assert diag(cell_diagnostics("point", "pairs", ps, same)) == {"near_constant": (1.0, 10)}
    always_a = judged([(f"{i['instance_id']}:0-1", "pair_choice", None, "A") for i in ps])
    assert "near_constant" not in diag(cell_diagnostics("pair_rank", "pairs", ps, always_a))  # that is a_share's


# --- the rule ------------------------------------------------------------------------------------

def test_rule_thresholds_minimums_and_config(root):
    rule = ValidityRule()
    assert rule.reasons("list_score", {"position_constant": (0.8, 5)})
    assert not rule.reasons("list_score", {"position_constant": (0.79, 5)})
    assert not rule.reasons("list_score", {"position_constant": (1.0, 1)})  # min_lists = 2
    assert rule.reasons("pair_rank", {"a_share": (0.9, 10), "a_expected": (0.5, 10)})
    assert rule.reasons("pair_rank", {"a_share": (0.1, 10), "a_expected": (0.5, 10)})
    assert not rule.reasons("pair_rank", {"a_share": (0.89, 10), "a_expected": (0.5, 10)})
    assert not rule.reasons("pair_rank", {"a_share": (0.9, 10), "a_expected": (math.nan, 0)})
    assert rule.reasons("pair_score", {"position_rho": (-0.8, 10)})
    assert not rule.reasons("pair_score", {"position_rho": (-0.8, 9)})
    assert rule.reasons("pair_score", {"example_copy": (0.5, 10)})
    assert not rule.reasons("pair_score", {"example_copy": (0.49, 10)})
    # config.yaml and config/paper.yaml state the defaults the code falls back to (order_kappa, read only with
    # position_consistency, in a comment of config.yaml: the report params of a run without it stay as they were)
    assert "  # order_kappa: 0.0 " in (root / "config.yaml").read_text()
    for path in ("config.yaml", "config/paper.yaml"):
        section = yaml.safe_load((root / path).read_text())["judge_validity"]
        assert section == {k: v for k, v in dataclasses.asdict(rule).items() if k != "order_kappa"}
        assert ValidityRule.from_config(section) == rule
    assert rule.reasons("pair_rank", {"order_kappa": (0.0, 10)}) and rule.reasons("list_rank", {"order_kappa": (-1.0, 45)})
    assert not rule.reasons("pair_rank", {"order_kappa": (0.01, 10)})
    assert not rule.reasons("pair_rank", {"order_kappa": (-1.0, 9)})  # min_calls comparisons
    assert ValidityRule.from_config(None) == rule
    assert ValidityRule.from_config({"example_copy": 0.9}).example_copy == 0.9
    with pytest.raises(ConfigError, match="unknown key"):
        ValidityRule.from_config({"examples": 0.5})


# --- tables, captions, cost table ----------------------------------------------------------------

def _cell_rows(model, judge, setting, instances, judgments, template=None):
    ident = {"benchmark": "domainauth", "model": model, "context": "wo_text", "parse_failure_rate": 0.0,
             "n_calls": len(judgments)}
    return [{**ident, **row, "parse": mode} for mode in PARSE_MODES
            for row in (evaluate_cell(judge, setting, instances, judgments, mode)
                        + cell_diagnostics(judge, setting, instances, judgments, mode, template))]


@pytest.fixture
def metrics(templates):
    insts = coarse_lists()
    bypos = judged([(i["instance_id"], "list_scores", 5, DEMO_LIST_SCORE_5) for i in insts])
    reader = judged([(i["instance_id"], "list_scores", 5, json.dumps({str(k): lv for k, lv in enumerate(levels)}))
                     for i, levels in zip(insts, COARSE_LEVELS)])
    rows = (_cell_rows("bypos", "list_score", "coarse", insts, bypos, templates["list_score"])
            + _cell_rows("reader", "list_score", "coarse", insts, reader, templates["list_score"]))
    rows += [{"benchmark": "domainauth", "model": "baseline:position", "context": "wo_text", "parse": None,
              "parse_failure_rate": 0.0, "n_calls": 0, **row}
             for row in evaluate_scores("coarse", "point", insts, baseline_scorer("position", 13, None))]
    return pd.DataFrame(rows)


def test_flagged_cells_and_validity_frame(metrics):
    strict = metrics[metrics["parse"].isna() | (metrics["parse"] == "strict")]
    assert list(flagged_cells(strict)) == [("domainauth", "bypos", "wo_text", "coarse", "list_score")]
    frame = validity_frame(strict).set_index("model")
    assert frame.loc["bypos", "flag"] == "†" and frame.loc["reader", "flag"] == ""
    assert frame.loc["bypos", "position_constant"] == 1.0 and math.isnan(frame.loc["bypos", "a_share"])
    with pytest.raises(ValueError, match="several parse modes"):
        flagged_cells(metrics)


def test_tables_mark_the_flagged_cell_only(metrics, tmp_path):
    from authbench.render.table_writers import write_table

    strict = metrics[metrics["parse"].isna() | (metrics["parse"] == "strict")]
    spec = A.table_main(strict, "domainauth", "coarse")
    col = ("ListJudge", "PointScore", "ρ")
    assert spec.entries.loc[("bypos", "w/o"), col].endswith("†")
    assert spec.entries.loc[("bypos", "w/o"), ("ListJudge", "PointScore", "τ")].endswith("†")
    assert not spec.entries.loc[("reader", "w/o"), col].endswith("†")
    assert spec.entries.loc[("reader", "w/o"), col] == "100.00"
    assert not spec.entries.loc[("baseline:position", "w/o"), ("PointJudge", "", "ρ")].endswith("†")
    # the number behind the mark is unchanged (and still takes part in bold/underline)
    assert spec.values.loc[("bypos", "w/o"), col] == pytest.approx(
        round(100 * sum(stats.spearmanr(lv, [7, 4, 3, 2, 1]).statistic for lv in COARSE_LEVELS) / 3, 2))
    write_table(spec, tmp_path / "t2")
    assert r"$^{\dagger}$" in (tmp_path / "t2.tex").read_text()
    # a stricter rule flags nothing
    lax = ValidityRule(position_constant=1.01, position_rho=1.01)
    assert not A.table_main(strict, "domainauth", "coarse", lax).entries.loc[("bypos", "w/o"), col].endswith("†")


def test_position_baseline_predicts_the_presentation_order():
    insts = coarse_lists()
    rows = {r["metric"]: r for r in evaluate_scores("coarse", "point", insts, baseline_scorer("position", 13, None))}
    expected = sum(stats.spearmanr(lv, [5, 4, 3, 2, 1]).statistic for lv in COARSE_LEVELS) / 3
    assert rows["rho"]["value"] == pytest.approx(expected)
    # pairs: item 0 is shown as A, so the baseline answers A: right exactly where A is truly higher
    acc = evaluate_scores("pairs", "point", pairs(), baseline_scorer("position", 13, None))
    assert acc[0]["value"] == pytest.approx(0.4)


T2_CHOICE = {"written": ["table2_coarse"], "skipped": {}}  # the report step's choice (authbench.render.catalog.report_choice)


def test_report_captions_and_cost_table(metrics, tmp_path, root):
    from authbench.studies.authority.report import write_domainauth_report

    mfile = tmp_path / "metrics.tsv"
    metrics.to_csv(mfile, sep="\t", index=False)
    labels = tmp_path / "labels.tsv"
    write_ten_level_labels(labels)
    manifests = []
    for model in ("bypos", "reader"):
        m = tmp_path / f"{model}.json"
        m.write_text(json.dumps({"cell": f"domainauth/{model}/list_score/wo_text/coarse", "n_calls": 3,
                                 "unique_requests": 3, "cache_hits": 0, "prompt_tokens": 10,
                                 "completion_tokens": 4, "engine_seconds": 1.0}))
        manifests.append(str(m))
    out = tmp_path / "report"
    write_domainauth_report(out, [str(mfile)], str(labels), [], manifests, T2_CHOICE, [], None, "strict",
                            yaml.safe_load((root / "config.yaml").read_text())["judge_validity"])
    caption = (out / "tables" / "table2_coarse.md").read_text().splitlines()[0]
    assert ("bypos w/o ListScore: the same score vector by position in 3 of 3 lists; "
            "ρ(presentation position, prediction) = -1.00.") in caption
    assert "reader" not in caption
    cost = pd.read_csv(out / "tables" / "costs.csv", keep_default_na=False).set_index("model")
    assert cost.loc["bypos", "flag"] == "†" and cost.loc["reader", "flag"] == ""
    assert float(cost.loc["bypos", "position_constant"]) == 1.0 and float(cost.loc["bypos", "position_rho"]) == -1.0
    assert cost.loc["bypos", "why"].startswith("the same score vector by position in 3 of 3 lists")
    md = (out / "tables" / "costs.md").read_text()
    assert "domainauth bypos w/o coarse list_score: the same score vector" in md.splitlines()[0]
    # nothing flagged: the caption says so
    clean = metrics[metrics["model"] != "bypos"]
    clean.to_csv(mfile, sep="\t", index=False)
    write_domainauth_report(out, [str(mfile)], str(labels), [], manifests[1:], T2_CHOICE, [], None, "strict")
    caption = (out / "tables" / "table2_coarse.md").read_text().splitlines()[0]
    assert caption.endswith("Judge validity: no cell answers by presentation position, copies the prompt's "
                            "example or barely varies its scores (judge-validity rule, docs/decisions.md; "
                            "thresholds: config judge_validity).")
    # metrics without diagnostic rows (written before them): no claim either way
    clean[clean["derivation"] != "validity"].to_csv(mfile, sep="\t", index=False)
    write_domainauth_report(out, [str(mfile)], str(labels), [], manifests[1:], T2_CHOICE, [], None, "strict")
    caption = (out / "tables" / "table2_coarse.md").read_text().splitlines()[0]
    assert "Judge validity" not in caption and "†" not in caption


# --- the real demo data path (engine: instant, no model) -----------------------------------------

def test_demo_data_path_with_the_instant_engine(root, tmp_path):
    """Real DomainAuth demo data through the CLI steps: the instant engine's
    replies (a hash of each prompt, i.e. they depend on the items) are not
    flagged; the demo model's replies on the same lists and pairs are."""
    from authbench.cli import main
    from authbench.records import read_jsonl, write_jsonl

    cfg = yaml.safe_load((root / "config.yaml").read_text())
    da = cfg["domainauth"]
    # config/demo_full.yaml's counts (3 coarse lists, 6 + 6 pairs): enough replies for the min_lists/min_calls rules
    da["sampling"].update(yaml.safe_load((root / "config" / "demo_full.yaml").read_text())["domainauth"]["sampling"])

    def cli(*args, **params):
        assert main([*map(str, args), "--params", json.dumps(params)]) == 0

    cli("domainauth-build", "--source", root / da["source"], "--labels", tmp_path / "labels.tsv", "--drops",
        tmp_path / "drops.tsv", status_filter=da["status_filter"], categories=da["categories"], text_max_words=100)
    cli("domainauth-sample", "--labels", tmp_path / "labels.tsv", "--outdir", tmp_path / "inst",
        sampling=da["sampling"], seed=cfg["seed"])
    demo = {"list_score": DEMO_LIST_SCORE_5, "pair_score": DEMO_PAIR_SCORE, "pair_rank": DEMO_PAIR_RANK}
    flags = {}
    for judge, setting in (("list_score", "coarse"), ("pair_score", "pairs"), ("pair_rank", "pairs")):
        template = root / f"resources/prompts/domainauth/{judge}_wo_text.yaml"
        for model in ("instant", "demo"):
            d = tmp_path / model / judge
            cli("authority-judge", "--instances", tmp_path / f"inst/{setting}.jsonl", "--template", template,
                "--responses", d / "responses.jsonl",
                "--samples", d / "samples.parquet", "--judgments", d / "judgments.jsonl", "--manifest",
                d / "manifest.json", cell=f"domainauth/{model}/{judge}/wo_text/{setting}", judge=judge,
                context="wo_text", setting=setting, seed=cfg["seed"], constrained=True, cache=None,
                model={"engine": "instant", "model": "rehearsal"}, expected_scores=False)
            if model == "demo":
                rows = read_jsonl(d / "judgments.jsonl")
                fmt = load_template(template).output
                write_jsonl(judged([(r["request_id"], fmt, 5, demo[judge]) for r in rows]), d / "judgments.jsonl")
            cli("authority-evaluate", "--instances", tmp_path / f"inst/{setting}.jsonl", "--judgments",
                d / "judgments.jsonl", "--manifest", d / "manifest.json", "--template", template, "--metrics",
                d / "metrics.tsv", "--units", d / "units.parquet", dataset="domainauth", model=model, judge=judge,
                context="wo_text", setting=setting, scales=[setting], near_constant=cfg["judge_validity"]["near_constant"],
                intervals={"show": "inline", "resamples": 100, "level": 0.95, "min_units": 5}, seed=0)
            got = pd.read_csv(d / "metrics.tsv", sep="\t")
            strict = got[got["parse"] == "strict"]
            flags.update(flagged_cells(strict, ValidityRule.from_config(cfg["judge_validity"])))
    assert sorted(k[1] + "/" + k[4] for k in flags) == ["demo/list_score", "demo/pair_rank", "demo/pair_score"]
    assert flags[("domainauth", "demo", "wo_text", "pairs", "pair_score")][1] == \
        "the prompt's example reply in 12 of 12 replies"
