"""Table 7 (benchmark statistics) from built datasets: the real demo data
through the real build and sampling steps, RAGAuth's dataset report, the
self-preference import, and the command-line step."""

from pathlib import Path

import pytest
import yaml
from authbench.cli import main
from authbench.records import write_jsonl, write_tsv
from wfrun import read_tsv
from authbench.studies import statistics as SHARED
from authbench.studies.authority import statistics as S
from authbench.studies.authority.domains import build_domains, write_drops, write_labels
from authbench.studies.authority.entities import build_entities, entity_item, write_entities, write_entity_drops
from authbench.studies.authority.sampling import add_anchors, sample_all, sample_lists
from authbench.studies.selfpref import statistics as SP
from authbench.studies.selfpref.data import drop_rows, import_sources

ROOT = Path(__file__).resolve().parents[3]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The demo's DomainAuth and EntityAuth songs datasets, built and sampled
    as the workflow does (config.yaml's counts), plus a RAGAuth report."""
    out = tmp_path_factory.mktemp("built")
    da = CONFIG["domainauth"]
    domains, drops = build_domains(ROOT / da["source"], da["status_filter"], da["categories"])
    write_labels(domains, out / "da_labels.tsv")
    write_drops(drops, len(domains), out / "da_drops.tsv")
    sets = sample_all(domains, da["sampling"], CONFIG["seed"])
    for name, rows in sets.items():
        write_jsonl(rows, out / f"da_{name}.jsonl")
    songs = CONFIG["entityauth"]["datasets"]["songs"]
    entities, edrops = build_entities(ROOT / songs["source"], songs["corpus"], CONFIG["seed"], "songs")
    write_entities(entities, out / "songs_labels.tsv")
    write_entity_drops(edrops, len(entities), out / "songs_drops.tsv")
    lists = add_anchors(sample_lists([entity_item(e) for e in entities], "fine", 3, CONFIG["seed"], "songs"), 5,
                        CONFIG["seed"], "songs")
    write_jsonl(lists, out / "songs_fine.jsonl")
    write_tsv([{"what": "questions", "count": 120}, {"what": "documents", "count": 1200},
               {"what": "topic:medical", "count": 60}, {"what": "topic:current affairs", "count": 60}],
              out / "rag.tsv", ["what", "count"])
    return out


def _datasets(out):
    return [{"dataset": "domainauth", "labels": out / "da_labels.tsv", "drops": out / "da_drops.tsv",
             "instances": [out / f"da_{s}.jsonl" for s in ("fine", "coarse", "pairs")]},
            {"dataset": "entityauth/songs", "labels": out / "songs_labels.tsv", "drops": out / "songs_drops.tsv",
             "instances": [out / "songs_fine.jsonl"]}]


def test_counts_of_the_demo_datasets(built):
    da, songs, rag = S.collect(_datasets(built), built / "rag.tsv")
    # DomainAuth: docs/decisions/domainauth-data.md's demo numbers (5,715 legitimate rows -> 3,961 domains)
    assert (da.subtask, da.name, da.corpus) == ("DomainAuth", "Web Domains", 3961)
    assert [da.levels[lv] for lv in range(10)] == [101, 165, 632, 772, 989, 894, 273, 103, 28, 4]
    sampling = yaml.safe_load((ROOT / "config.yaml").read_text())["domainauth"]["sampling"]  # config.yaml's counts
    assert dict(da.lists) == {10: sampling["fine_lists"], 5: sampling["coarse_lists"]}
    assert dict(da.pairs) == {"easy": sampling["easy_pairs"], "hard": sampling["hard_pairs"]}
    drops = {d["reason"]: d["count"] for d in da.drops}
    assert drops["status_filter"] == 5715 and drops["unparsable_url"] == 1 and drops["pagerank_10"] == 8
    # EntityAuth songs: the released file's 2,157 entities, the paper's corpus of 2,000
    assert (songs.subtask, songs.name, songs.corpus) == ("EntityAuth", "Songs", 2000)
    assert sum(songs.levels.values()) == 2000 and {d["reason"]: d["count"] for d in songs.drops}["not_in_corpus"] == 157
    assert dict(songs.lists) == {10: 3} and not songs.pairs
    assert (rag.subtask, rag.name, rag.corpus, rag.documents) == ("RAGAuth", "Medical, Current Affairs", 120, 1200)

    spec = S.table_statistics([da, songs, rag], easy_min_delta=5, hard_max_delta=2)
    cells = spec.entries
    counts = [str(sampling[k]) for k in ("coarse_lists", "fine_lists", "hard_pairs", "easy_pairs")]
    assert list(cells.loc[("DomainAuth", "Web Domains")]) == ["PageRank", "0-9 / 0-4", "3961", *counts, "5716", "8"]
    assert list(cells.loc[("EntityAuth", "Songs")]) == ["Sitelinks", "0-9", "2000", "–", "3", "–", "–", "0", "157"]
    assert list(cells.loc[("RAGAuth", "Medical, Current Affairs")])[2:] == ["120"] + ["–"] * 6
    assert spec.note == "RAGAuth: 120 queries, 1200 documents (10.0 per query)."
    assert "hard (0 < gap ≤ 2) and easy (gap ≥ 5)" in spec.caption
    levels = S.table_levels([da, songs, rag])
    assert list(levels.values.index) == [("DomainAuth", "Web Domains"), ("EntityAuth", "Songs")]
    assert levels.entries.loc[("DomainAuth", "Web Domains"), ("total", "")] == "3961"
    drop_table = S.table_drops([da, songs])
    assert drop_table.entries.loc[("DomainAuth", "Web Domains", "pagerank_10"), ("count",)] == "8"


def test_selfpref_statistics_of_the_released_nq(tmp_path):
    nq = CONFIG["selfpref"]["datasets"]["nq"]
    questions, passages, drops = import_sources("nq", [{**s, "file": str(ROOT / s["file"])} for s in nq["sources"]])
    write_jsonl(questions, tmp_path / "q.jsonl")
    write_jsonl(passages, tmp_path / "p.jsonl")
    write_tsv(drop_rows(drops), tmp_path / "d.tsv", ["reason", "author", "count"])
    rows, note = SP.dataset_rows("nq", tmp_path / "q.jsonl", tmp_path / "p.jsonl", tmp_path / "d.tsv",
                                 ["human", "gpt35", "llama"])
    by = {(r["author"], r["variant"]): r for r in rows}
    # tests/unit/studies/selfpref/test_data.py's counts of the release: 1000 human, 952 GPT-3.5, 908 Llama normal passages
    assert (by["human", "normal"]["true"], by["gpt35", "normal"]["true"], by["llama", "normal"]["true"]) == (1000, 952, 908)
    assert by["gpt35", "long"]["questions"] == 100
    assert note.startswith("nq: 1000 questions imported, 886 with a true and a false passage of every author")
    assert "gpt35 96 (generation_failed 96)" in note and "llama 386 (duplicate_variant 198, false_answer_is_gold 4, generation_failed 184)" in note
    spec = SP.table_statistics(rows, [note])
    assert spec.entries.loc[("nq", "human", "normal"), ("Passages", "false")] == "1000"
    # the human false passages with Llama's false answer, kept for GPT-self evaluators (false_for)
    assert spec.entries.loc[("nq", "human", "normal, for gpt35"), ("Passages", "false")] == "1000"


def test_cli_writes_every_table_and_refuses_mismatched_lists(built, tmp_path, capsys):
    params = ('{"written": ["table7_statistics", "table7_levels", "table7_drops"], '
              '"datasets": ["domainauth", "entityauth/songs"], "labels": [null, null], '
              '"instance_sets": [["fine", "coarse", "pairs"], ["fine"]], "easy_min_delta": 5, "hard_max_delta": 2, '
              '"selfpref": [], "authors": [], "scorecard": null}')
    args = ["benchmark-statistics", "--labels", str(built / "da_labels.tsv"), str(built / "songs_labels.tsv"),
            "--drops", str(built / "da_drops.tsv"), str(built / "songs_drops.tsv"),
            "--instances", *(str(built / f"da_{s}.jsonl") for s in ("fine", "coarse", "pairs")),
            str(built / "songs_fine.jsonl"), "--rag", str(built / "rag.tsv"), "--outdir", str(tmp_path)]
    assert main(args + ["--params", params]) == 0
    for stem in ("table7_statistics", "table7_levels", "table7_drops"):
        for ext in ("csv", "md", "tex"):
            assert (tmp_path / "tables" / f"{stem}.{ext}").stat().st_size > 0
    csv_text = (tmp_path / "tables" / "table7_statistics.csv").read_text()
    assert "EntityAuth,Songs,Sitelinks,0-9,2000,,3,,,0,157" in csv_text
    assert not (tmp_path / "tables" / "selfpref_statistics.md").exists()
    card = {(r["setting"], r["metric"]): r for r in read_tsv(tmp_path / "scorecard.tsv")}  # Table 7 beside the paper's
    songs = card[("subtask=EntityAuth;domain=songs", "corpus_items")]
    assert (songs["kind"], songs["reproduced"], songs["published"]) == ("data", "2000", "2000")
    assert card[("subtask=EntityAuth;domain=movies", "corpus_items")]["reason"] == \
        "dataset not in the grid (EntityAuth movies)"
    assert (tmp_path / "scorecard.md").read_text().startswith("# Scorecard: benchmark statistics (Table 7)")
    bad = params.replace('["fine"]]', '["fine"], ["fine"]]').replace('"entityauth/songs"', '"entityauth/songs", "x"')
    assert '["fine"], ["fine"]]' in bad
    assert main(args + ["--params", bad]) == 2
    assert "differ in length" in capsys.readouterr().err


def test_bad_label_table_is_a_named_error(tmp_path):
    from authbench.errors import InputError

    (tmp_path / "l.tsv").write_text("domain\tlevel\na.com\thigh\n")
    (tmp_path / "d.tsv").write_text("reason\tunit\tcount\nkept\tdomain\t1\n")
    with pytest.raises(InputError, match=r"l.tsv: line 2, column 'level': 'high' is not an integer"):
        S.dataset_stats("DomainAuth", "Web Domains", tmp_path / "l.tsv", tmp_path / "d.tsv", [])
    (tmp_path / "l.tsv").write_text("domain\tpage_rank\na.com\t3\n")
    with pytest.raises(InputError, match="missing column"):
        S.dataset_stats("DomainAuth", "Web Domains", tmp_path / "l.tsv", tmp_path / "d.tsv", [])


def test_levels_caption_names_each_label_rule(built):
    files = _datasets(built)
    files[0]["label"] = {"column": "centrality", "binning": "quantile"}  # as an overlay would set it
    da, songs = S.collect(files, None)
    assert da.proxy == "centrality (quantile)" and songs.proxy is None
    caption = S.table_levels([da, songs]).caption
    assert ("Web Domains: 'centrality' in 10 equally filled quantile levels (ties share a level); Songs: "
            "'popularity' in 10 log-spaced (Eq. 1) levels over the corpus's [min, max]; maximum in level 9") in caption
    da, _ = S.collect(_datasets(built), None)
    assert da.rule == "Open PageRank integers ('page_rank') as levels 0-9; 10 dropped (the paper's 0-9 scale)"
    assert S.table_statistics([da], 5, 2).entries.iloc[0, 0] == "PageRank"


def test_statistics_items_follow_the_studies():
    """Table 7 and its details when an AuthorityBench dataset is built, the
    self-preference data table when that study has an evaluator."""
    from authbench.render.catalog import report_choice

    report = SHARED.statistics_report(CONFIG)  # every registered study's hook, in registry order
    assert [it.stem for it in report.items] == ["table7_statistics", "table7_levels", "table7_drops",
                                                "selfpref_statistics"]
    config = {**CONFIG, "studies": ["domainauth"]}
    assert report_choice(report, config)["written"] == ["table7_statistics", "table7_levels", "table7_drops"]
    config = {**CONFIG, "studies": ["selfpref"]}
    assert SP.selfpref_datasets(config) == ["nq"]
    assert report_choice(report, config)["written"] == ["selfpref_statistics"]


def test_the_step_is_every_hooks_files_and_params():
    """The benchmark_statistics rule's inputs, params and CLI options, gathered from the studies' hooks."""
    from authbench.paths import Layout

    config = {**CONFIG, "studies": ["domainauth", "selfpref"]}
    got = SHARED.statistics_inputs(config, Layout("results"))
    assert list(got) == ["labels", "drops", "instances", "rag", "sp_questions", "sp_passages", "sp_drops"]
    assert got["labels"] == ["results/domainauth/labels.tsv"] and got["rag"] == []
    assert got["sp_drops"] == ["results/selfpref/nq/drops.tsv"]
    params = SHARED.statistics_params(config)
    assert params["written"] == ["table7_statistics", "table7_levels", "table7_drops", "selfpref_statistics"]
    assert (params["datasets"], params["selfpref"], params["easy_min_delta"]) == (["domainauth"], ["nq"], 5)
    assert SHARED.statistics_args(config) == ["labels*", "drops*", "instances*", "rag?", "sp_questions*",
                                              "sp_passages*", "sp_drops*", "outdir"]
