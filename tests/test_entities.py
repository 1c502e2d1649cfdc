"""EntityAuth: reading Ni et al.'s files, the corpus draw, Eq. 1 labels, lists,
coarse scoring of fine lists, stacked tables and the figure."""

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from authbench.errors import InputError
from authbench.render.tables import stack_tables, write_table
from authbench.studies.authority.entities import (
    build_entities,
    entity_item,
    read_entities,
    read_entity_file,
    write_entities,
)
from authbench.studies.authority.evaluate import evaluate_cell
from authbench.studies.authority.sampling import add_anchors, reuse_report, sample_lists
from authbench.studies.authority.tables import table_main


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
