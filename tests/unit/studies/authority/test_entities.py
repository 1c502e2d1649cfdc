"""EntityAuth: reading Ni et al.'s files, the corpus draw, Eq. 1 labels, fine and
coarse lists, coarse scoring (own cells, or fine lists rescored), stacked tables,
Table 6 and the figure."""

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from authbench.errors import InputError, SamplingError
from authbench.render.table_writers import write_table
from authbench.render.tables import stack_tables
from authbench.studies.authority.entities import (
    build_entities,
    entity_item,
    read_entities,
    read_entity_file,
    write_entities,
)
from authbench.studies.authority.evaluate import evaluate_cell
from authbench.studies.authority.sampling import add_anchors, reuse_report, sample_entity_sets, sample_lists
from authbench.studies.authority.tables import table_main
from wfrun import read_tsv


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def _ent(name, pop, q=None):
    return {"question": q or f"Who is the performer of the song {name}", "reference": ["x"],
            "popularity": pop, "question_entity": name}


def test_read_counts_duplicates_and_nonpositive(tmp_path):
    p = _write(tmp_path / "s.jsonl", [_ent("A", 5), _ent("B", 0), _ent("A", 9), _ent("C", "12"), "", _ent("D", 7.0)])
    rows, drops = read_entity_file(p)
    assert rows == [("A", "Who is the performer of the song A", 5), ("C", "Who is the performer of the song C", 12),
                    ("D", "Who is the performer of the song D", 7)]
    assert drops == Counter(duplicate_entity=1, nonpositive_popularity=1)


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"question": "q", "popularity": 3}', "line 2: missing key 'question_entity'"),
        ('{"question": "q", "question_entity": "X", "popularity": 2.5}', "line 2, key 'popularity': 2.5 is not an integer"),
        ('{"question": "q", "question_entity": "X", "popularity": "many"}', "line 2, key 'popularity'"),
        ('{"question": "q", "question_entity": "X", "popularity": 3', "line 2, column"),
        ('["not", "an", "object"]', "line 2: expected a JSON object"),
        ('{"question": "q", "question_entity": "  ", "popularity": 3}', "line 2, key 'question_entity': empty"),
    ],
)
def test_bad_lines_are_named(tmp_path, line, message):
    p = _write(tmp_path / "bad.jsonl", [_ent("A", 5), line])
    with pytest.raises(InputError) as err:
        read_entity_file(p)
    assert str(p) in str(err.value) and message in str(err.value)


def test_empty_and_non_utf8(tmp_path):
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n")
    with pytest.raises(InputError, match="the file is empty"):
        read_entity_file(empty)
    raw = tmp_path / "r.jsonl"
    raw.write_bytes(json.dumps(_ent("A", 5)).encode() + b"\n" + b'{"question": "\xff"}\n')
    with pytest.raises(InputError, match="line 2, byte 15: bytes that are not UTF-8"):
        read_entity_file(raw)


def test_labels_follow_eq1_over_the_corpus(tmp_path):
    counts = [5, 6, 8, 11, 15, 20, 30, 45, 60, 90, 129, 7, 13]
    p = _write(tmp_path / "b.jsonl", [_ent(f"E{i:02d}", c) for i, c in enumerate(counts)])
    ents, drops = build_entities(p, None, seed=1, dataset="b")
    edges = np.logspace(np.log10(5), np.log10(129), 11)
    expected = {f"E{i:02d}": int(np.clip(np.digitize(c, edges) - 1, 0, 9)) for i, c in enumerate(counts)}
    assert {e.entity: e.level for e in ents} == expected
    assert {e.entity: e.coarse for e in ents} == {k: v // 2 for k, v in expected.items()}
    # hand-checked ends: smax -> 9 (Eq. 1 alone gives 10); smin -> 0 (float
    # rounding puts the first edge a hair above 5, where Eq. 1 alone gives -1)
    assert int(np.digitize(129, edges)) - 1 == 10 and int(np.digitize(5, edges)) - 1 == -1
    assert expected["E00"] == 0 and expected["E10"] == 9
    assert [expected[f"E{i:02d}"] for i in (1, 3, 5, 8)] == [0, 2, 4, 7]
    assert drops == Counter()


def test_corpus_draw_is_seeded(tmp_path):
    p = _write(tmp_path / "b.jsonl", [_ent(f"E{i:03d}", 5 + i) for i in range(200)])
    a, da = build_entities(p, 50, seed=13, dataset="basketball")
    b, _ = build_entities(p, 50, seed=13, dataset="basketball")
    c, _ = build_entities(p, 50, seed=13, dataset="movies")
    assert a == b and len(a) == 50 and da["not_in_corpus"] == 150
    assert [e.entity for e in a] != [e.entity for e in c]
    # levels are binned over the corpus's own range
    assert min(e.level for e in a) == 0 and max(e.level for e in a) == 9


def test_all_equal_counts_cannot_be_binned(tmp_path):
    p = _write(tmp_path / "flat.jsonl", [_ent(f"E{i}", 7) for i in range(12)])
    with pytest.raises(InputError, match="cannot log-bin .* all counts equal"):
        build_entities(p, None, seed=0, dataset="flat")


def test_labels_roundtrip_with_awkward_names(tmp_path):
    counts = [5, 9, 14, 20, 33, 50, 70, 90, 110, 129]
    names = ['Tab\there', 'Quote "x"', "Comma, name", "Ünïcode", "E4", "E5", "E6", "E7", "E8", "E9"]
    p = _write(tmp_path / "w.jsonl", [_ent(n, c) for n, c in zip(names, counts)])
    ents, _ = build_entities(p, None, seed=0, dataset="w")
    write_entities(ents, tmp_path / "labels.tsv")
    assert read_entities(tmp_path / "labels.tsv") == ents


def test_sparse_level_lists_reuse_and_report(tmp_path):
    # level 9 has a single entity: every list reuses it, and the report says so
    # geometric bin midpoints of [5, 100]: 6, 8, 10, 14, 19, 26, 35, 47, 64, and 100 = smax
    counts = [5] * 4 + [8] * 3 + [10] * 3 + [14] * 3 + [19] * 3 + [26] * 3 + [35] * 3 + [47] * 3 + [64] * 3 + [100]
    p = _write(tmp_path / "s.jsonl", [_ent(f"E{i:02d}", c) for i, c in enumerate(counts)])
    ents, _ = build_entities(p, None, seed=0, dataset="s")
    assert Counter(e.level for e in ents)[9] == 1
    lists = add_anchors(sample_lists([entity_item(e) for e in ents], "fine", 6, seed=2), 5, seed=2)
    for inst in lists:
        assert sorted(it["level"] for it in inst["items"]) == list(range(10))
        assert len({it["entity"] for it in inst["items"]}) == 10 and len(inst["anchors"]) == 5
    report = {r["level"]: r for r in reuse_report({"fine": lists})}
    assert report[9] == {"setting": "fine", "level": 9, "slots": 6, "distinct": 1, "max_uses": 6}
    assert report[0]["distinct"] == 4 and report[0]["max_uses"] == 2  # 6 draws from a pool of 4


def _entity_list(levels):
    return {"instance_id": "fine-00000", "anchors": [0, 1],
            "items": [{"entity": f"E{lv}", "question": "q", "level": lv, "coarse": lv // 2} for lv in levels]}


def test_fine_lists_scored_on_both_scales():
    inst = _entity_list([9, 0, 4, 5])
    # ListScore reply: scores 8, 1, 5, 5 -> perfect on fine except the 4/5 tie
    judgments = [{"request_id": "fine-00000", "value": {"0": 8, "1": 1, "2": 5, "3": 5}, "status": "ok"}]
    fine = {r["metric"]: r for r in evaluate_cell("list_score", "fine", [inst], judgments)}
    coarse = {r["metric"]: r for r in evaluate_cell("list_score", "coarse", [inst], judgments)}
    from scipy.stats import kendalltau, spearmanr

    pred = [8, 1, 5, 5]
    assert fine["rho"]["value"] == pytest.approx(spearmanr([9, 0, 4, 5], pred)[0])
    assert coarse["rho"]["value"] == pytest.approx(spearmanr([4, 0, 2, 2], pred)[0]) == pytest.approx(1.0)
    assert coarse["tau"]["value"] == pytest.approx(kendalltau([4, 0, 2, 2], pred)[0])
    assert fine["rho"]["setting"] == "fine" and coarse["rho"]["setting"] == "coarse"


def test_point_judge_keys_entities():
    inst = _entity_list([3, 7])
    judgments = [{"request_id": "item:E3", "value": 2, "status": "ok"}, {"request_id": "item:E7", "value": 6, "status": "ok"}]
    rows = {r["metric"]: r["value"] for r in evaluate_cell("point", "fine", [inst], judgments)}
    assert rows == {"rho": pytest.approx(1.0), "tau": pytest.approx(1.0)}


def _metrics(bench, rho):
    rows = []
    for judge, deriv in (("point", "direct"), ("list_rank", "direct"), ("list_score", "direct"),
                         ("pair_rank", "bubble"), ("pair_score", "average")):
        for metric in ("rho", "tau"):
            rows.append({"benchmark": bench, "model": "m1", "context": "wo_text", "setting": "fine", "judge": judge,
                         "derivation": deriv, "difficulty": "all", "metric": metric, "value": rho[judge], "n": 3,
                         "n_constant": 0, "parse_failure_rate": 0.0})
    return rows


def test_stack_tables_blocks_per_domain(tmp_path):
    a = {"point": 0.5, "list_rank": 0.1, "list_score": 0.7, "pair_rank": 0.2, "pair_score": 0.3}
    b = {"point": 0.1, "list_rank": 0.9, "list_score": 0.2, "pair_rank": 0.3, "pair_score": 0.4}
    m = pd.DataFrame(_metrics("entityauth/basketball", a) + _metrics("entityauth/songs", b))
    spec = stack_tables([("Basketball", table_main(m, "entityauth/basketball", "fine")),
                         ("Songs", table_main(m, "entityauth/songs", "fine"))], "Domain")
    assert list(spec.values.index.names) == ["Domain", "Model", "Ctx"]
    assert spec.values.loc[("Songs", "m1", "w/o"), ("ListJudge", "ListRank", "ρ")] == 90.0
    # marks are per row: best rho of basketball is ListScore, of songs ListRank
    assert spec.marks.loc[("Basketball", "m1", "w/o"), ("ListJudge", "PointScore", "ρ")] == "best"
    assert spec.marks.loc[("Songs", "m1", "w/o"), ("ListJudge", "ListRank", "ρ")] == "best"
    paths = write_table(spec, tmp_path / "t4")
    md = paths[1].read_text()
    assert "| Basketball | m1 | w/o |" in md and "| Songs | m1 | w/o |" in md
    assert paths[0].read_text().splitlines()[0].startswith("Domain,Model,Ctx,")


def test_entity_figure(tmp_path):
    from authbench.studies.authority.figures import plot_entity_label_distribution

    df = pd.DataFrame({"entity": list("abcd"), "level": [0, 0, 3, 9], "coarse": [0, 0, 1, 4], "sitelinks": [5, 6, 20, 129]})
    out = plot_entity_label_distribution({"Basketball": df, "Songs": df}, tmp_path / "f.png")
    assert [p.suffix for p in out] == [".png", ".pdf"]
    first = out[0].read_bytes()
    plot_entity_label_distribution({"Basketball": df, "Songs": df}, tmp_path / "f.png")
    assert out[0].read_bytes() == first  # deterministic
    with pytest.raises(ValueError, match="missing column"):
        plot_entity_label_distribution({"X": df.drop(columns="entity")}, tmp_path / "g.png")


def test_datasets_get_independent_lists(tmp_path):
    counts = [5, 8, 10, 14, 19, 26, 35, 47, 64, 100] * 3
    p = _write(tmp_path / "s.jsonl", [_ent(f"E{i:02d}", c) for i, c in enumerate(counts)])
    items = [entity_item(e) for e in build_entities(p, None, seed=0, dataset="s")[0]]
    a = add_anchors(sample_lists(items, "fine", 4, 13, "songs"), 5, 13, "songs")
    b = add_anchors(sample_lists(items, "fine", 4, 13, "movies"), 5, 13, "movies")
    assert a[0]["instance_id"] == "songs-fine-00000" and b[0]["instance_id"] == "movies-fine-00000"
    orders = lambda ls: [[it["level"] for it in inst["items"]] for inst in ls]  # noqa: E731
    assert orders(a) != orders(b)
    assert [inst["anchors"] for inst in a] != [inst["anchors"] for inst in b]
    # no namespace: DomainAuth's draws and ids are unchanged
    assert sample_lists(items, "fine", 2, 13)[0]["instance_id"] == "fine-00000"


# --- coarse lists (N=5, one entity per coarse level: Table 6) ----------------------

SONGS = "resources/data/entityauth/songs.jsonl"


def _songs_items(root):
    """The demo's songs corpus (2,000 of Ni et al.'s songs, seed 13) as instance items."""
    return [entity_item(e) for e in build_entities(root / SONGS, 2000, seed=13, dataset="songs")[0]]


def test_coarse_lists_one_entity_per_coarse_level(root):
    items = _songs_items(root)
    # coarse level sizes of the released songs file's demo corpus: fine 557/199/305/320/211/180/99/96/18/15
    assert sorted(Counter(it["coarse"] for it in items).items()) == [(0, 756), (1, 625), (2, 391), (3, 195), (4, 33)]
    sets = sample_entity_sets(items, lists=3, coarse_lists=4, anchors=5, seed=13, dataset="songs")
    coarse = sets["coarse"]
    assert [inst["instance_id"] for inst in coarse] == [f"songs-coarse-{i:05d}" for i in range(4)]
    for inst in coarse:
        assert sorted(it["coarse"] for it in inst["items"]) == [0, 1, 2, 3, 4]
        assert len({it["entity"] for it in inst["items"]}) == 5 and "anchors" not in inst
    # deterministic by seed; another seed draws other lists
    assert sample_entity_sets(items, 3, 4, 5, 13, "songs") == sets
    assert sample_entity_sets(items, 3, 4, 5, 14, "songs")["coarse"] != coarse
    # the fine lists are exactly those drawn before coarse lists existed (and none with rescore)
    fine = add_anchors(sample_lists(items, "fine", 3, 13, "songs"), 5, 13, "songs")
    assert sets["fine"] == fine
    assert sample_entity_sets(items, 3, None, 5, 13, "songs") == {"fine": fine}


def test_coarse_lists_at_paper_scale_reuse_the_sparse_top_level(root):
    # basketball's demo corpus (10,000 entities) has 17 entities at coarse level 4 (fine 14 + 3):
    # 4,500 lists (config/paper.yaml) use each of them 264 or 265 times
    items = [entity_item(e) for e in build_entities(root / "resources/data/entityauth/basketball.jsonl", 10000,
                                                    seed=13, dataset="basketball")[0]]
    sets = sample_entity_sets(items, 1, 4500, 5, 13, "basketball")
    report = {r["level"]: r for r in reuse_report({"coarse": sets["coarse"]})}
    assert report[4] == {"setting": "coarse", "level": 4, "slots": 4500, "distinct": 17, "max_uses": 265}
    assert report[0] == {"setting": "coarse", "level": 0, "slots": 4500, "distinct": 4500, "max_uses": 1}


def test_an_empty_coarse_level_is_a_named_error():
    # fine levels 8 and 9 empty -> coarse level 4 empty: no list can have one entity per coarse level
    items = [{"entity": f"E{lv}{i}", "question": "q", "sitelinks": 1, "level": lv, "coarse": lv // 2}
             for lv in range(8) for i in range(2)]
    with pytest.raises(SamplingError, match=r"songs: coarse lists need one item per level, but level\(s\) \[4\] have "
                                            r"none \(items per coarse level: 0: 4, 1: 4, 2: 4, 3: 4, 4: 0\)"):
        sample_lists(items, "coarse", 1, 13, "songs")


def test_coarse_pair_judge_is_exhaustive(root):
    """Section 4.1: coarse PairJudge compares every pair (10 per N=5 list), fine uses 5 anchors (35 per list)."""
    from authbench.studies.authority.prompts import load_template
    from authbench.studies.authority.requests import build_requests

    sets = sample_entity_sets(_songs_items(root), 1, 2, 5, 13, "songs")
    template = load_template(root / "resources/prompts/entityauth/songs/pair_rank_wo_text.yaml")
    coarse = build_requests("pair_rank", "coarse", sets["coarse"], template, 13)
    assert len(coarse) == 20 and len(build_requests("pair_rank", "fine", sets["fine"], template, 13)) == 35
    for inst in sets["coarse"]:
        pairs = {tuple(sorted(map(int, r["request_id"].rsplit(":", 1)[1].split("-"))))
                 for r in coarse if r["request_id"].startswith(inst["instance_id"] + ":")}
        assert pairs == {(a, b) for a in range(5) for b in range(a + 1, 5)}


def _demo_config(root, **entityauth):
    import yaml

    from authbench.config import validate_schema

    config = yaml.safe_load((root / "config.yaml").read_text())
    config["entityauth"].update(entityauth)
    validate_schema(config)  # the schema's defaults, as the workflow has them
    return config


def test_scales_and_baselines_follow_the_coarse_source(root):
    from authbench.studies.authority.outputs import baseline_inputs, scales

    lists, rescore = _demo_config(root, coarse_source="lists"), _demo_config(root, coarse_source="rescore")
    assert lists["entityauth"]["coarse_source"] == "lists"
    assert scales(lists, "entityauth/songs", "fine") == ["fine"]
    assert scales(lists, "entityauth/songs", "coarse") == ["coarse"]
    assert scales(rescore, "entityauth/songs", "fine") == ["fine", "coarse"]
    assert scales(rescore, "domainauth", "fine") == ["fine"]  # DomainAuth always judges its coarse lists
    inputs = baseline_inputs(lists, "entityauth/songs")
    assert inputs["instance_sets"] == ["fine", "coarse"]
    assert inputs["evaluations"] == [["fine", "fine"], ["coarse", "coarse"]]
    inputs = baseline_inputs(rescore, "entityauth/songs")
    assert inputs["instance_sets"] == ["fine"] and inputs["evaluations"] == [["fine", "fine"], ["fine", "coarse"]]


def _cli(*args, **params):
    from authbench.cli import main

    assert main([*map(str, args), "--params", json.dumps(params)]) == 0


@pytest.mark.parametrize("coarse_source", ["lists", "rescore"])
def test_table6_reads_the_coarse_cells(root, tmp_path, coarse_source):
    """The chain of rules through the CLI (no model: engine instant): sample, judge the cells of the
    config's EntityAuth settings, evaluate, report; Table 6 shows the coarse cell's numbers (lists) or
    the fine cell's rescored ones (rescore)."""
    from authbench.studies.authority.grid import grid
    from authbench.records import read_jsonl
    from authbench.render.catalog import report_choice
    from authbench.studies.authority.outputs import ENTITYAUTH, scales

    config = _demo_config(root, coarse_source=coarse_source)
    config["studies"], config["judges"] = ["entityauth"], ["pair_score"]
    config["entityauth"]["datasets"] = {"songs": config["entityauth"]["datasets"]["songs"]}
    grid = grid(config)
    intervals = {"show": "inline", "resamples": 100, "level": 0.95, "min_units": 5}  # config intervals
    assert [(c.dataset, c.setting) for c in grid if c.model == "gemma3-270m"] == (
        [("entityauth/songs", "fine"), ("entityauth/songs", "coarse")] if coarse_source == "lists"
        else [("entityauth/songs", "fine")])
    labels, inst = tmp_path / "labels.tsv", tmp_path / "instances"
    write_entities(build_entities(root / SONGS, 2000, seed=13, dataset="songs")[0], labels)
    _cli("entityauth-sample", "--labels", labels, "--outdir", inst, dataset="songs", lists=2, anchors=5, seed=13,
         coarse_lists=3 if coarse_source == "lists" else None)
    assert (inst / "coarse.jsonl").exists() == (coarse_source == "lists")
    model = {"engine": "instant", "model": "rehearsal"}
    metrics, manifests = [], []
    for cell in (c for c in grid if c.model == "gemma3-270m"):
        d = tmp_path / cell.setting
        _cli("authority-judge", "--instances", inst / f"{cell.setting}.jsonl", "--template",
             root / "resources/prompts/entityauth/songs/pair_score_wo_text.yaml", "--responses", d / "responses.jsonl",
             "--samples", d / "samples.parquet",
             "--judgments", d / "judgments.jsonl", "--manifest", d / "manifest.json", cell=cell.id,
             judge="pair_score", context="wo_text", setting=cell.setting, seed=13, constrained=True, cache=None,
             model=model, expected_scores=False)
        _cli("authority-evaluate", "--instances", inst / f"{cell.setting}.jsonl", "--judgments", d / "judgments.jsonl",
             "--manifest", d / "manifest.json", "--metrics", d / "metrics.tsv", "--units", d / "units.parquet",
             dataset=cell.dataset, model=cell.model, judge="pair_score", context="wo_text", setting=cell.setting,
             scales=scales(config, cell.dataset, cell.setting), near_constant=0.9, intervals=intervals, seed=0)
        metrics.append(d / "metrics.tsv")
        manifests.append(d / "manifest.json")
    n_calls = [json.loads(m.read_text())["n_calls"] for m in manifests]
    assert n_calls == ([70, 30] if coarse_source == "lists" else [70])  # 2 x 35 anchored; 3 x 10 exhaustive
    rows = [r for f in metrics for r in read_tsv(f)]
    main = {(r["setting"], int(r["n"])): float(r["value"]) for r in rows
            if r["derivation"] == "average" and r["metric"] == "rho" and r["parse"] == "strict"}
    # the rescored value: the fine lists' judgments against the coarse labels
    fine_judgments = read_jsonl(tmp_path / "fine" / "judgments.jsonl")
    rescored = [r["value"] for r in evaluate_cell("pair_score", "coarse", read_jsonl(inst / "fine.jsonl"),
                                                  fine_judgments)
                if r["derivation"] == "average" and r["metric"] == "rho"]
    if coarse_source == "lists":
        assert set(main) == {("fine", 2), ("coarse", 3)}  # Table 6's row comes from the 3 coarse lists
        expected = main[("coarse", 3)]
        assert expected != pytest.approx(rescored[0])
    else:
        assert set(main) == {("fine", 2), ("coarse", 2)}
        expected = main[("coarse", 2)]
        assert expected == pytest.approx(rescored[0])
    out = tmp_path / "report"
    _cli("entityauth-report", "--metrics", *metrics, "--units", *(m.with_name("units.parquet") for m in metrics),
         "--labels", labels, "--reuse", inst / "reuse.tsv",
         "--manifests", *manifests, "--outdir", out, datasets=["songs"], judges=["pair_score"],
         plan=report_choice(ENTITYAUTH, {"judges": ["pair_score"], "expected_scores": False}), coarse_source=coarse_source,
         parse="strict", judge_validity=None, intervals=intervals, seed=0)
    table = pd.read_csv(out / "tables" / "table6_coarse.csv")
    assert table.iloc[0]["Domain"] == "Songs" and table.iloc[0]["Model"] == "gemma3-270m"
    rho = [c for c in table.columns if c.startswith("PairJudge") and "PointScore" in c and c.endswith("ρ")]
    assert float(table.iloc[0][rho[0]]) == pytest.approx(round(100 * expected, 2))
    caption = (out / "tables" / "table6_coarse.md").read_text()
    assert ("one entity per coarse level" in caption) == (coarse_source == "lists")
    assert ("rescore" in caption) == (coarse_source == "rescore")
    reuse = read_tsv(out / "reuse.tsv")
    assert {r["setting"] for r in reuse} == ({"fine", "coarse"} if coarse_source == "lists" else {"fine"})


# --- labels from another score key ------------------------------------------------------------

def test_demo_songs_histogram_is_unchanged(root):
    # docs/decisions/entityauth-data.md's demo numbers (Eq. 1 over the 2,000-song corpus, s = smax clipped to 9)
    ents, drops = build_entities(root / "resources/data/entityauth/songs.jsonl", 2000, 13, "songs")
    levels = Counter(e.level for e in ents)
    assert [levels[lv] for lv in range(10)] == [557, 199, 305, 320, 211, 180, 99, 96, 18, 15]
    assert min(e.score for e in ents) == 5 and max(e.score for e in ents) == 47


def test_another_score_key_binned_by_the_label_block(tmp_path, caplog):
    import logging

    from authbench.cli import main
    from authbench.studies.authority.labels import label_spec

    rows = [{"question": f"q{i}", "question_entity": f"E{i:02d}", "popularity": 1, "rating": r, "note": "x"}
            for i, r in enumerate([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])]
    p = _write(tmp_path / "r.jsonl", rows)
    spec = label_spec({"column": "rating", "binning": "equal_width", "top": "drop"}, "popularity", "log")
    ents, drops = build_entities(p, None, 0, "r", spec)
    assert [(e.entity, e.level, e.score) for e in ents] == [
        ("E00", 0, 0), ("E01", 1, 0.1), ("E02", 2, 0.25), ("E03", 5, 0.5), ("E04", 7, 0.75), ("E05", 9, 0.9)]
    assert drops == Counter(above_top_level=1)  # 1.0, the maximum, under top: drop
    caplog.set_level(logging.INFO, logger="authbench")
    out = tmp_path / "out"
    assert main(["entityauth-build", "--source", str(p), "--labels", str(out / "labels.tsv"), "--drops",
                 str(out / "drops.tsv"), "--bins", str(out / "bins.tsv"), "--params",
                 json.dumps({"dataset": "r", "corpus": None, "seed": 0,
                             "label": {"column": "rating", "binning": "equal_width", "top": "drop"}})]) == 0
    assert "dropped 1 entity(s) at the top value (drop reason above_top_level" in caplog.text
    assert "not read for the labels: note, popularity, reference" not in caplog.text  # no reference key here
    assert "not read for the labels: note, popularity" in caplog.text
    drops_tsv = read_tsv(out / "drops.tsv")
    assert {r["reason"]: r["count"] for r in drops_tsv}["above_top_level"] == "1"
    assert read_entities(out / "labels.tsv") == ents
    with pytest.raises(InputError, match="key 'rating': 'high' is not a number"):
        build_entities(_write(tmp_path / "bad.jsonl", [{**rows[0], "rating": "high"}]), None, 0, "b", spec)
