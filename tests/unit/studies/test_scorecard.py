"""The scorecard: published numbers matched to this run's numbers keyed by
published key (each study's one mapping) on small hand frames, in the
paper's units, with the reasons of the unmatched."""

import math
from collections import Counter

import pandas as pd
import pytest
from authbench.papers import load
from wfrun import read_tsv
from authbench.studies import scorecard as S
from authbench.studies.authority import keyed as AK
from authbench.studies.keyed import scorecard_rows
from authbench.studies.ragauth.keyed import rag_keyed, rag_reason
from authbench.studies.selfpref import marks as M
from authbench.studies.selfpref.keyed import NOT_RELEASED, selfpref_keyed, selfpref_reason
from authbench.studies.authority.statistics import DatasetStats, statistics_keyed, statistics_reason

PUB = load("authoritybench")
GRID = S.Coverage({"qwen": "Qwen3-8B"}, judges=("point", "pair_rank"), contexts=("wo_text",), settings=("fine", "pairs"),
              covered={"entity_datasets": ("songs",)})


def _metric(model, judge, derivation, metric, value, setting="fine", difficulty="all", context="wo_text",
            benchmark="domainauth", **more):
    return {"benchmark": benchmark, "model": model, "context": context, "setting": setting, "judge": judge,
            "derivation": derivation, "difficulty": difficulty, "metric": metric, "value": value, "n": 3,
            "n_constant": 0, "parse_failure_rate": 0.0, **more}


def authority_rows(metrics, names):
    return AK.authority_keyed(metrics, {}, names, list(names))


def _published(table, model, judge, context, setting, metric):
    hit = PUB[(PUB["table"] == table) & (PUB["model"] == model) & (PUB["judge"] == judge)
              & (PUB["context"] == context) & (PUB["setting"] == setting) & (PUB["metric"] == metric)]
    assert len(hit) == 1
    return float(hit["value"].iloc[0])


def test_a_fraction_is_compared_as_the_papers_percent_with_its_interval():
    """Table 1's Qwen3-8B w/o PointJudge rho is 41.97 (%); our metric row holds
    the fraction 0.40 with an interval [0.35, 0.45]: shown 40.00, [35, 45],
    delta -1.97, inside yes; tau's interval excludes the paper's."""
    metrics = pd.DataFrame([_metric("qwen", "point", "direct", "rho", 0.40, lo=0.35, hi=0.45),
                            _metric("qwen", "point", "direct", "tau", 0.30, lo=0.28, hi=0.31),
                            _metric("baseline:random", "point", "direct", "rho", 0.05)])
    hit, miss = S.compare("authoritybench", (1,), authority_rows(metrics, GRID.names), lambda r: AK.authority_reason(r, GRID))
    assert len(hit) == 2
    rho = hit[hit["metric"] == "rho"].iloc[0]
    assert _published(1, "Qwen3-8B", "point", "wo_text", "", "rho") == rho["published"] == 41.97
    assert (rho["ours"], rho["model"], rho["kind"]) == ("qwen", "Qwen3-8B", "model")
    assert rho["reproduced"] == pytest.approx(40.0) and (rho["lo"], rho["hi"]) == pytest.approx((35.0, 45.0))
    assert rho["delta"] == pytest.approx(40.0 - 41.97) and rho["inside"] == "yes"
    tau = hit[hit["metric"] == "tau"].iloc[0]
    assert tau["inside"] == ("yes" if 28 <= tau["published"] <= 31 else "no") == "no"
    # 100 numbers in Table 1: 2 compared, the rest counted by reason
    assert len(hit) + len(miss) == 100
    reasons = Counter(miss["reason"])
    assert reasons[S.NOT_CONFIGURED] == 80  # four other models x 5 judges x 2 contexts x 2 metrics
    assert reasons["context not in the grid (w_text)"] == 4  # Qwen3-8B's point and pair_rank w/ rho, tau
    assert reasons["judge not in the grid (list_rank)"] == reasons["judge not in the grid (pair_score)"] == 4
    assert reasons[S.NO_VALUE] == 2  # pair_rank w/o: in the grid, no metric row here
    assert sum(reasons.values()) == 98


def test_without_lo_hi_the_interval_is_blank_and_inside_na():
    metrics = pd.DataFrame([_metric("qwen", "point", "direct", "rho", 0.5),
                            _metric("qwen", "point", "direct", "tau", 0.4, lo=math.nan, hi=math.nan)])
    hit, _ = S.compare("authoritybench", (1,), authority_rows(metrics, GRID.names), lambda r: AK.authority_reason(r, GRID))
    assert list(hit["inside"]) == ["n/a", "n/a"] and hit["lo"].isna().all()
    md = S.scorecard_md("DomainAuth", hit, pd.DataFrame(columns=S.MISSING_COLUMNS))
    row = next(line for line in md.splitlines() if "| rho |" in line)
    assert "| 50.00 |  | 41.97 | 8.03 | n/a |" in row


def test_pairs_and_derivations_find_their_tables():
    """Table 3 (acc -> pair_accuracy, difficulty), Table 9 (PairRank = pair_rank
    bubble), EntityAuth's Table 4 (domain=songs), and no double counting: the
    PairRank rho row is Table 1's pair_rank cell and Table 9's PairRank."""
    metrics = pd.DataFrame([
        _metric("qwen", "point", "direct", "acc", 0.9, setting="pairs", difficulty="easy"),
        _metric("qwen", "pair_rank", "bubble", "rho", 0.1),
        _metric("qwen", "point", "direct", "rho", 0.6, benchmark="entityauth/songs"),
    ])
    rows = authority_rows(metrics, GRID.names)
    assert {(r["table"], r["judge"], r["setting"], r["metric"]) for r in scorecard_rows(rows)} == {
        (3, "point", "difficulty=easy", "pair_accuracy"), (1, "pair_rank", "", "rho"), (9, "PairRank", "", "rho"),
        (4, "point", "domain=songs", "rho")}
    hit, miss = S.compare("authoritybench", (1, 3, 4, 9), rows, lambda r: AK.authority_reason(r, GRID))
    got = {(r["table"], r["judge"]): (r["reproduced"], r["published"]) for r in hit.to_dict("records")}
    assert got[(3, "point")] == pytest.approx((90.0, _published(3, "Qwen3-8B", "point", "wo_text", "difficulty=easy",
                                                                  "pair_accuracy")))
    assert got[(9, "PairRank")][1] == _published(9, "Qwen3-8B", "PairRank", "wo_text", "", "rho") == 44.19
    assert got[(1, "pair_rank")][1] == 15.18  # the paper's inconsistency (README): both transcribed, both compared
    assert got[(4, "point")][1] == _published(4, "Qwen3-8B", "point", "wo_text", "domain=songs", "rho")
    reasons = set(miss["reason"])
    assert "dataset not in the grid (EntityAuth basketball)" in reasons
    assert "setting not in the grid (coarse)" not in reasons  # Tables 2/10 were not asked for


def test_reasons_of_the_other_grids():
    row = {"table": 2, "model": "Qwen3-8B", "judge": "point", "context": "wo_text", "metric": "rho"}  # its parts
    assert AK.authority_reason(row, GRID) == "setting not in the grid (coarse)"
    assert AK.authority_reason({**row, "model": "Average"}, GRID) == S.AVERAGE
    assert AK.authority_reason({**row, "table": 10, "judge": "PointScore_Pt"}, GRID) == \
        "judge not in the grid (pair_score)"


def test_two_models_with_one_paper_name_are_both_compared():
    names = {"a": "Qwen3-8B", "b": "Qwen3-8B"}
    metrics = pd.DataFrame([_metric("a", "point", "direct", "rho", 0.4), _metric("b", "point", "direct", "rho", 0.5)])
    hit, _ = S.compare("authoritybench", (1,), authority_rows(metrics, names), lambda r: S.NO_VALUE)
    assert sorted(hit["ours"]) == ["a", "b"] and set(hit["published"]) == {41.97}


def test_table8_model_and_data_rows():
    pred = pd.DataFrame({"model": ["qwen"] * 3, "context": ["wo_text"] * 3, "domain": ["a.gov", "b.gov", "c.edu"],
                         "level": [6, 4, 7], "pred": [8, None, 5], "category": ["gov", "gov", "edu"]})
    rows = AK.categories_keyed(pred, {"qwen": "Qwen3-14B"}, ["qwen"], subset="demo")
    by = {(r["model"], r["setting"], r["metric"]): r for r in scorecard_rows(rows)}
    assert by[("Qwen3-14B", "category=gov", "mean_pred_score")]["reproduced"] == 8.0  # b.gov unscored
    assert by[("Qwen3-14B", "category=gov", "bias")]["reproduced"] == 2.0  # not x 100: Table 8's own unit
    assert by[("", "category=gov", "true_mean_pagerank")]["reproduced"] == 5.0  # both gov domains
    assert by[("", "category=gov", "n_domains")]["reproduced"] == 2
    assert by[("", "category=gov", "n_domains")]["kind"] == "data" and by[("", "category=gov", "n_domains")]["scope"] == "demo"
    hit, _ = S.compare("authoritybench", (8,), rows, lambda r: AK.authority_reason(r, GRID))
    assert set(hit[hit["kind"] == "data"]["metric"]) == {"true_mean_pagerank", "n_domains"}
    assert len(hit[hit["kind"] == "data"]) == 4  # gov and edu; social has no domain here
    assert (hit[hit["metric"] == "n_domains"]["published"].tolist()) == [378, 160]


def test_ragauth_rows_are_already_percent():
    coverage = S.Coverage({"m": "Qwen3-32B"}, covered={"strategies": ("no_filter", "authority"), "k": ("1", "3")})
    acc = [{"model": "m", "strategy": "authority", "k": "3", "topic": "all", "accuracy": 60.0, "lo": 50.0,
            "hi": 70.0},
           {"model": "m", "strategy": "authority", "k": "3", "topic": "MED", "accuracy": 10.0, "lo": 0,
            "hi": 20}]
    units = pd.DataFrame(columns=["model", "strategy", "k", "qid", "correct"])
    hit, miss = S.compare("authoritybench", (5,), rag_keyed(acc, units, coverage.names, list(coverage.names)),
                          lambda r: rag_reason(r, coverage))
    assert len(hit) == 1 and hit.iloc[0]["reproduced"] == 60.0 and hit.iloc[0]["setting"] == "k=3"
    assert hit.iloc[0]["inside"] == ("yes" if 50 <= hit.iloc[0]["published"] <= 70 else "no")
    reasons = Counter(miss["reason"])
    assert reasons["k not in the grid (k=5)"] == 1  # authority k=5 (relevance's and utility's: their strategy)
    assert reasons["strategy not in the grid (relevance)"] == 3 and reasons["strategy not in the grid (utility)"] == 3
    assert reasons[S.NO_VALUE] == 2  # authority k=1 and no_filter: in the grid, no rows given


def test_selfpref_released_knowledge_is_a_data_row():
    """GPT-3.5's NQ knowledge levels come from its released probes: compared
    with no model configured; the rerank and rate rows need the evaluator."""
    knowledge = {"gpt35": [{"qid": str(i), "level": lv} for i, lv in enumerate([0, 0, 3, 5])],
                 "gemma": [{"qid": "1", "level": 5}]}
    passages = [{"pid": "p1", "author": "gpt35", "variant": "normal", "factual": True, "text": "a b c"},
                {"pid": "p2", "author": "gpt35", "variant": "normal", "factual": True, "text": "a"},
                {"pid": "p3", "author": "human", "variant": "normal", "factual": True, "text": "a b"}]
    summary = [{"evaluator": "gpt", "prompt": "rag", "variant": "normal", "factual": False, "author": "human",
                "mean": 3.0, "std": 0.5},
               {"evaluator": "gpt", "prompt": "normal", "variant": "normal", "factual": True, "author": "gpt35",
                "mean": 4.0, "std": 0.1}]
    # the paper's Aggregated is the mean of the per-author cells (60, 80 -> 70), not the pooled rate (55)
    rates = [{"evaluator": "gpt", "other_author": "human", "self_pref": 50.0, "order_pref": 60.0, "factual_pref": 60.0},
             {"evaluator": "gpt", "other_author": "llama2", "self_pref": 70.0, "order_pref": 60.0,
              "factual_pref": 80.0},
             {"evaluator": "gpt", "other_author": "all", "self_pref": 55.0, "order_pref": 61.0, "factual_pref": 55.0}]
    coverage = S.Coverage({"gpt": "GPT-3.5"}, datasets=("NQ",))
    def numbers(names):
        return selfpref_keyed("nq", knowledge=knowledge, passages=passages, summary=summary, rates=rates, units={},
                              self_map={"gpt": "gpt35"}, names=names, run_models=["gpt"],
                              released=[a for a in knowledge if a != "gpt"])

    hit, miss = S.compare("selfpref", range(1, 10), numbers(coverage.names), lambda r: selfpref_reason(r, coverage))
    k = hit[hit["metric"].str.startswith("knowledge")].set_index("metric")
    assert k.loc["knowledge_no", "reproduced"] == 50.0 and k.loc["knowledge_full", "reproduced"] == 25.0
    assert (k["kind"] == "data").all() and k.loc["knowledge_no", "published"] == 27.1
    length = hit[hit["metric"] == "avg_length"].iloc[0]
    assert (length["reproduced"], length["published"], length["kind"]) == (2.0, 114.37, "data")
    got = {(r["table"], r["setting"], r["metric"]): r["reproduced"] for r in hit.to_dict("records")}
    assert got[(9, "dataset=NQ;author=Human;passage=FALSE", "mean_score")] == 3.0
    assert got[(6, "dataset=NQ;author=GPT-3.5;passage=TRUE", "sd_score")] == 0.1
    assert got[(2, "dataset=NQ;author=self;passage=TRUE", "mean_score")] == 4.0
    assert got[(3, "dataset=NQ;other=Aggregated", "factual_preference")] == 70.0
    assert got[(3, "dataset=NQ;other=Aggregated", "self_preference")] == 60.0
    assert got[(3, "dataset=NQ;other=Human", "order_preference")] == 60.0
    reasons = Counter(miss["reason"])
    assert reasons["dataset not in the grid (MARCO)"] > 0 and reasons[S.AVERAGE] > 0
    # every published TriviaQA number (the paper's third dataset, never released) is counted as such
    published = load("selfpref")
    trivia = published[published["dataset"] == "TriviaQA"]
    assert len(trivia) > 100
    assert reasons[f"{NOT_RELEASED} (TriviaQA: the authors released NQ and MS MARCO only)"] == len(trivia)
    assert reasons["perplexity: the paper's is under GPT-2, ours under config selfpref.perplexity_model"] == 5
    # with no evaluator configured only the released data is compared
    hit, miss = S.compare("selfpref", range(1, 10), numbers({}),
                          lambda r: selfpref_reason(r, S.Coverage({}, datasets=("NQ",))))
    assert set(hit["kind"]) == {"data"} and len(hit) == 4
    # GPT-3.5 as an evaluator (Table 6) is not configured, though its released passages are
    t6 = miss[(miss["table"] == 6) & (miss["model"] == "GPT-3.5") & miss["setting"].str.startswith("dataset=NQ")]
    assert len(t6) == 12 and set(t6["reason"]) == {S.NOT_CONFIGURED}


def test_table7_counts_and_the_config_sample():
    dom = DatasetStats("DomainAuth", "Web Domains", corpus=3969, lists=Counter({10: 2, 5: 1}),
                       pairs=Counter({"hard": 3, "easy": 3}))
    songs = DatasetStats("EntityAuth", "Songs", corpus=2000, lists=Counter({10: 4500}))
    asked = {"DomainAuth": {"fine_lists": 2, "coarse_lists": 1, "easy_pairs": 3, "hard_pairs": 3},
             "EntityAuth/songs": {"corpus": 2000, "fine_lists": 4500, "coarse_lists": 2}}
    coverage = S.Coverage({}, covered={"entity_datasets": ("songs",)})
    hit, miss = S.compare("authoritybench", (7,), statistics_keyed([dom, songs], asked),
                          lambda r: statistics_reason(r, coverage))
    got = {r["setting"] + " " + r["metric"]: (r["reproduced"], r["published"], r["scope"]) for r in hit.to_dict("records")}
    assert got["subtask=DomainAuth corpus_items"] == (3969, 10000, "")  # not a config choice: a plain difference
    assert got["subtask=DomainAuth;list_size=10 listwise_instances"] == (2, 4500, "sample: the config asks for 2")
    assert got["subtask=EntityAuth;domain=songs corpus_items"] == (2000, 2000, "")  # as the paper
    assert got["subtask=EntityAuth;domain=songs;list_size=10 listwise_instances"][2] == ""
    assert (hit["kind"] == "data").all() and len(hit) == 7
    reasons = Counter(miss["reason"])
    assert reasons["dataset not in the grid (EntityAuth basketball)"] == 2
    assert reasons["RAGAuth not in this run"] == 2
    line = S.summary(hit, miss)
    assert line.startswith("7 published numbers compared: 0 judge numbers") and "7 from data alone (4 on a smaller" in line  # N=5, N=10, hard, easy


def test_write_scorecard(tmp_path):
    metrics = pd.DataFrame([_metric("qwen", "point", "direct", "rho", 0.40, lo=0.35, hi=0.45)])
    hit, miss = S.compare("authoritybench", (1,), authority_rows(metrics, GRID.names), lambda r: AK.authority_reason(r, GRID))
    md, tsv = S.write_scorecard(tmp_path, "DomainAuth", hit, miss)
    text = md.read_text()
    assert text.splitlines()[2] == S.summary(hit, miss)
    assert "1 published numbers compared: 1 judge numbers, 1 of the 1 with an interval inside it, median |Δ| 1.97" in text
    assert f"| {S.NOT_CONFIGURED} | 1 | 80 |" in text
    back = pd.read_csv(tsv, sep="\t", keep_default_na=False)
    assert list(back.columns) == [*S.COLUMNS, "reason"] and len(back) == 100
    assert (back["reason"] == "").sum() == 1


def test_significance_marks_beside_the_papers():
    """The paper's † on Table 1's perplexity and Table 2's self differences beside ours. Published
    for NQ GPT-3.5: Table 1 perplexity †; Table 2 normal TRUE †, normal FALSE none, RAG TRUE none, RAG FALSE
    none. Ours: everything marked, so 2 agree (both †) and 3 disagree (ours only)."""
    pub = load("selfpref")
    nq = pub[(pub["dataset"] == "NQ") & (pub["model"] == "GPT-3.5")]
    t2 = nq[(nq["table"] == 2) & (nq["metric"] == "diff_h_minus_m") & (nq["author"] == "self")]
    assert sorted((r["prompt"], r["passage"], r["mark"] == "dagger")
                  for r in t2.to_dict("records")) == [("normal", "FALSE", False), ("normal", "TRUE", True),
                                                      ("rag", "FALSE", False), ("rag", "TRUE", False)]
    marks = {(1, "gpt-3.5-turbo", "", ""): True, **{(2, "gpt-3.5-turbo", p, f): True
                                                  for p in ("normal", "rag") for f in ("TRUE", "FALSE")},
             (2, "unnamed", "normal", "TRUE"): True}  # a model without a paper name: not compared
    frame = M.mark_agreement("NQ", marks, {"gpt-3.5-turbo": "GPT-3.5"})
    assert len(frame) == 5 and (frame["agree"] == "yes").sum() == 2
    text = M.marks_md(frame, "selfpref.significance: paired")
    assert "2 of 5 published marks agree with ours under this test (2 both †, 0 neither); † ours only: 3; " \
           "† the paper's only: 0." in text
    assert "No published mark has a counterpart" in M.marks_md(M.mark_agreement("NQ", marks, {}), "x")


def test_selfpref_scorecard_writes_the_marks_as_tsv(tmp_path):
    """The marks' section of scorecard.md is also scorecard_marks.tsv: one row per published mark, with the test."""
    marks = {(1, "gpt-3.5-turbo", "", ""): True, (2, "gpt-3.5-turbo", "rag", "TRUE"): False}
    params = {"models": {"gpt-3.5-turbo": "GPT-3.5"}, "judges": [], "contexts": [], "settings": [],
              "entity_datasets": [], "strategies": [], "k": []}
    paths = M.write_selfpref_scorecard(tmp_path, "nq", [], params, marks=marks, significance="welch")
    assert tmp_path / "scorecard_marks.tsv" in paths
    rows = read_tsv(tmp_path / "scorecard_marks.tsv")
    assert list(rows[0]) == [*M.MARK_COLUMNS, "test"]
    # published NQ GPT-3.5: Table 1 perplexity †, Table 2 RAG TRUE none
    assert [(r["table"], r["published_mark"], r["our_mark"], r["agree"], r["test"]) for r in rows] == [
        ("1", "†", "†", "yes", "welch"), ("2", "", "", "yes", "welch")]
    assert "2 of 2 published marks agree" in (tmp_path / "scorecard.md").read_text()
