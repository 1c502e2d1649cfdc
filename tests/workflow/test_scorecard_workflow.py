"""The scorecard end to end: a DomainAuth grid of every judge,
both contexts and the fine, coarse and pairs settings, run with ``engine:
instant`` (no model) under the paper's name ``Qwen3-8B``: every published
Qwen3-8B number of AuthorityBench Tables 1-3 finds its reproduced cell in
the report's ``scorecard.md``/``.tsv``, and the statistics' scorecard
compares Table 7's counts from the data alone."""

import pytest
import yaml
from wfrun import ROOT, read_tsv, snakemake

FIXTURE = ROOT / "tests" / "fixtures" / "domainauth_text"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("scorecard")
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    overlay = {
        "results": "results/scorecard",
        "studies": ["domainauth"],
        "models": {"gemma3-270m": None, "qwen2.5-coder-0.5b": None,
                   "rehearsal": {"engine": "instant", "model": "rehearsal", "paper_name": "Qwen3-8B"}},
        "cache": None,
        "judges": ["point", "list_rank", "list_score", "pair_rank", "pair_score"],
        "contexts": ["wo_text", "w_text"], "settings": ["fine", "coarse", "pairs"],
        "domainauth": {"source": str(FIXTURE / "urls.csv"), "text": str(FIXTURE / "texts.tsv"),
                       "sampling": {"fine_lists": 2, "coarse_lists": 2, "easy_pairs": 2, "hard_pairs": 2,
                                    "anchors": 2}},
    }
    (work / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    proc = snakemake(work, "--cores", "2", overlays=[work / "overlay.yaml"], timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work / "results" / "scorecard"


def test_every_published_qwen3_8b_number_of_tables_1_to_3_finds_its_cell(run):
    from authbench.papers import load

    report = run / "domainauth" / "report"
    card = read_tsv(report / "scorecard.tsv")
    pub = load("authoritybench")
    expected = pub[pub["table"].isin([1, 2, 3]) & (pub["model"] == "Qwen3-8B")]
    assert len(expected) == 20 + 20 + 12
    mine = [r for r in card if r["model"] == "Qwen3-8B" and r["table"] in ("1", "2", "3")]
    assert [r["reason"] for r in mine if r["reason"]] == []  # none unmatched, for any reason
    assert {(int(r["table"]), r["judge"], r["context"], r["setting"], r["metric"]) for r in mine} == {
        (t, j, c, s, m) for t, j, c, s, m in expected[["table", "judge", "context", "setting", "metric"]].itertuples(
            index=False)}
    for r in mine:
        assert r["ours"] == "rehearsal" and r["kind"] == "model"
        assert float(r["delta"]) == pytest.approx(float(r["reproduced"]) - float(r["published"]), abs=1e-3)
        # the instant engine's values are ours x 100, in the paper's percent: never outside [-100, 100]
        assert -100 <= float(r["reproduced"]) <= 100
    # Tables 8-10: every other unmatched Qwen3-8B number is outside this grid
    other = {r["reason"] for r in card if r["model"] == "Qwen3-8B" and r["reason"]}
    assert all("not in the grid" in reason for reason in other), other
    md = (report / "scorecard.md").read_text()
    first = md.splitlines()[2]
    assert "published numbers compared: " in first and "median |Δ|" in first
    compared = sum(1 for r in card if not r["reason"])
    assert first.startswith(f"{compared} published numbers compared: ")
    assert "| model not configured (no model with this paper_name) |" in md
    assert "| Scorecard: the papers' published numbers beside this run's | scorecard.md/.tsv | written |" in (
        report / "contents.md").read_text()


def test_table7_is_compared_from_the_data_alone(run):
    card = {(r["setting"], r["metric"]): r for r in read_tsv(run / "statistics" / "scorecard.tsv")}
    lists = card[("subtask=DomainAuth;list_size=10", "listwise_instances")]
    assert (lists["kind"], lists["reproduced"], lists["published"]) == ("data", "2", "4500")
    assert lists["scope"] == "sample: the config asks for 2"
    corpus = card[("subtask=DomainAuth", "corpus_items")]
    assert corpus["kind"] == "data" and corpus["scope"] == "" and int(corpus["reproduced"]) > 0
    assert card[("subtask=RAGAuth", "queries")]["reason"] == "RAGAuth not in this run"
