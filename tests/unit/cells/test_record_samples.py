"""A cell's samples: the rows :meth:`authbench.cells.CellRecord.sample_rows`
builds (one per request sent, judgments joined, tries, cached flags), the
studies' gold / correct against hand-made cases, and
:meth:`authbench.cells.CellStep.write` writing samples.parquet without
changing a byte of responses.jsonl, judgments.jsonl or manifest.json. The
workflow check (every cell of a run, prompts equal by hash):
tests/workflow/test_report_zip.py."""

import hashlib
import json

from authbench.cells import CellRecord, CellStep
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Response
from authbench.llm.runs import Run, RunStats
from authbench.cells.samples import read_samples
from authbench.studies.authority.evaluate import sample_grades
from authbench.studies.selfpref.requests import comparison_grades, knowledge_grades


def _run(ids, judgments, cached=(), texts=None, grades=None):
    texts = texts or [f"reply {i}" for i in ids]
    run = Run({"model": "m"}, RunStats(requests=len(ids), cached=tuple(cached)), engine="instant",
              generate=GenerateConfig(), constrained=False,
              requests=[{"request_id": i, "prompt": f"prompt of {i.split('#')[0]}"} for i in ids],
              responses=[Response(i, t, 5, 2, 0.1, "stop") for i, t in zip(ids, texts)])
    return CellRecord.of("selfpref/nq/rerank/m/rag", run, judgments, grades=grades)


def sample_rows(record):
    return record.sample_rows()


def test_one_row_per_try_the_judgment_on_the_last_try():
    judgments = [{"request_id": "a", "status": "ok", "score": 3, "tries": 1, "prompt": "rag"},
                 {"request_id": "b", "status": "no_score", "score": None, "tries": 3}]
    rows = sample_rows(_run(["a", "b", "b#retry1", "b#retry2"], judgments, cached=(True, False, False, True)))
    assert [(r["request_id"], r["try"], r["status"]) for r in rows] == [
        ("a", 0, "ok"), ("b", 0, "retried"), ("b#retry1", 1, "retried"), ("b#retry2", 2, "no_score")]
    assert [r["cached"] for r in rows] == [True, False, False, True]
    # what is not a sample column goes to fields; the earlier tries carry nothing of the judgment
    # a judgment field named like a request column (the rerank rows' prompt name) does not replace it
    assert rows[0]["fields"] == {"score": 3, "tries": 1, "prompt": "rag"} and rows[0]["prompt"] == "prompt of a"
    assert rows[3]["fields"] == {"score": None, "tries": 3}
    assert "fields" not in rows[1] and rows[1]["reply"] == "reply b"
    assert rows[2]["prompt"] == "prompt of b"
    assert rows[2]["prompt_sha256"] == hashlib.sha256(b"prompt of b").hexdigest()


def test_judgment_columns_fill_sample_columns_and_grades_win():
    judgments = [{"request_id": "q1#0", "status": "ok", "try": 0, "answer": "Paris", "correct": True},
                 {"request_id": "q1#1", "status": "ok", "try": 1, "answer": "Lyon", "correct": False}]
    grades = {"q1#1": {"gold": "Paris", "correct": True}}  # (a grade contradicting the judgment, to see it win)
    rows = sample_rows(_run(["q1#0", "q1#1"], judgments, grades=grades))
    assert [(r["try"], r["correct"], r.get("gold")) for r in rows] == [(0, True, None), (1, True, "Paris")]
    assert rows[0]["fields"] == {"answer": "Paris"}
    assert [r["cached"] for r in rows] == [None, None]  # a run without per-request flags says nothing


def _inst(iid, levels, coarse=None, difficulty="easy"):
    return {"instance_id": iid, "difficulty": difficulty,
            "items": [{"domain": f"{iid}-d{i}", "level": lv, "coarse": (coarse or levels)[i]}
                      for i, lv in enumerate(levels)]}


def test_authority_point_and_list_gold_are_the_true_levels():
    insts = [_inst("L1", [3, 7, 1], coarse=[1, 3, 0])]
    point = [{"request_id": f"item:L1-d{i}", "status": "ok", "value": 5} for i in range(3)]
    assert sample_grades("point", "fine", insts, point) == {
        "item:L1-d0": {"gold": 3, "correct": None}, "item:L1-d1": {"gold": 7, "correct": None},
        "item:L1-d2": {"gold": 1, "correct": None}}
    assert sample_grades("point", "coarse", insts, point)["item:L1-d1"]["gold"] == 3  # the coarse scale
    lists = [{"request_id": "L1", "status": "ok", "value": [2, 1, 3]}]
    assert sample_grades("list_rank", "fine", insts, lists) == {"L1": {"gold": [3, 7, 1], "correct": None}}


def test_authority_pair_gold_and_the_evaluations_verdict():
    insts = [_inst("P1", [2, 6]), _inst("P2", [5, 1]), _inst("P3", [4, 4]), _inst("P4", [1, 8])]
    judgments = [{"request_id": "P1:0-1", "status": "ok", "value": "B"},  # B is higher: right
                 {"request_id": "P2:1-0", "status": "ok", "value": "A"},  # A shown = item 1 (level 1): wrong
                 {"request_id": "P3:0-1", "status": "ok", "value": "A"},  # a tie: no verdict
                 {"request_id": "P4:0-1", "status": "unparsed", "value": "B"}]  # strict: a failed reply is wrong
    assert sample_grades("pair_rank", "fine", insts, judgments) == {
        "P1:0-1": {"gold": "B", "correct": True}, "P2:1-0": {"gold": "B", "correct": False},
        "P3:0-1": {"gold": "tie", "correct": None}, "P4:0-1": {"gold": "B", "correct": False}}
    assert sample_grades("pair_rank", "fine", insts, judgments, parse="lenient")["P4:0-1"]["correct"] is True
    scores = [{"request_id": "P1:0-1", "status": "ok", "value": {"A": 3, "B": 9}},
              {"request_id": "P2:1-0", "status": "ok", "value": {"A": 4, "B": 4}}]  # equal scores: wrong
    assert sample_grades("pair_score", "pairs", insts[:2], scores) == {
        "P1:0-1": {"gold": "B", "correct": True}, "P2:1-0": {"gold": "B", "correct": False}}


def _comparison(rid, sf, of, chosen, status="ok", order="self_first"):
    return {"request_id": rid, "qid": "q", "evaluator": "m", "self_author": "m", "other_author": "human",
            "self_factual": sf, "other_factual": of, "order": order, "variant": "normal", "answer": "x",
            "chosen": chosen, "status": status, "tries": 1}


def test_selfpref_comparison_gold_is_the_factual_passage():
    rows = [_comparison("tf", True, False, "self"), _comparison("ft", False, True, "self"),
            _comparison("tt", True, True, "self"), _comparison("bad", True, False, None, status="ambiguous")]
    assert comparison_grades(rows) == {"tf": {"gold": "self", "correct": True},
                                       "ft": {"gold": "other", "correct": False},
                                       "tt": {"gold": None, "correct": None},
                                       "bad": {"gold": "self", "correct": None}}


def test_selfpref_knowledge_gold_is_the_answer():
    tries = [{"request_id": "q1#0", "qid": "q1", "correct": True}, {"request_id": "q1#1", "qid": "q1", "correct": False}]
    assert knowledge_grades([{"qid": "q1", "answer": "Paris"}], tries) == {
        "q1#0": {"gold": "Paris", "correct": True}, "q1#1": {"gold": "Paris", "correct": False}}


def test_write_cell_adds_samples_and_changes_no_other_byte(tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text("template")
    run = Run({"model": "m"}, RunStats(requests=2, cached=(False, True)), engine="instant",
              generate=GenerateConfig(), constrained=True,
              requests=[{"request_id": "item:x", "prompt": "P <x>"}, {"request_id": "item:y", "prompt": "P <y>"}],
              responses=[Response("item:x", "Score: 7 <script>alert(1)</script>", 9, 3, 0.5, "stop"),
                         Response("item:y", "\ufffd", 9, 1, 0.5, "length")])
    judgments = [{"request_id": "item:x", "value": 7, "status": "ok", "detail": ""},
                 {"request_id": "item:y", "value": None, "status": "no_number", "detail": "?"}]
    names = ("responses", "judgments", "manifest")
    plain = {n: str(tmp_path / "plain" / f"{n}.json") for n in names}
    full = {**{n: str(tmp_path / "full" / f"{n}.json") for n in names}, "samples": str(tmp_path / "full" / "s.parquet")}
    CellStep("domainauth/m/point/wo_text/fine", {}, plain, str(template)).write(run, judgments)
    CellStep("domainauth/m/point/wo_text/fine", {}, full, str(template)).write(
        run, judgments, grades={"item:x": {"gold": 6, "correct": None}})
    for n in ("responses", "judgments"):
        assert (tmp_path / "plain" / f"{n}.json").read_bytes() == (tmp_path / "full" / f"{n}.json").read_bytes()
    drop = lambda m: {k: v for k, v in json.loads(m.read_text()).items() if k != "provenance"}  # noqa: E731
    assert drop(tmp_path / "plain" / "manifest.json") == drop(tmp_path / "full" / "manifest.json")
    assert not (tmp_path / "plain" / "s.parquet").exists()
    table, meta = read_samples(full["samples"])
    assert meta == {"cell": "domainauth/m/point/wo_text/fine", "study": "domainauth", "format_version": 1,
                    "template_sha256": hashlib.sha256(b"template").hexdigest()}
    rows = table.to_pylist()
    assert [r["reply"] for r in rows] == ["Score: 7 <script>alert(1)</script>", "\ufffd"]  # stored as the engine gave
    assert [r["cached"] for r in rows] == [False, True] and [r["status"] for r in rows] == ["ok", "no_number"]
    assert [r["value"] for r in rows] == ["7", None] and rows[0]["gold"] == "6"  # JSON text; null is null
    assert rows[1]["gold"] is None and json.loads(rows[1]["fields"]) == {"detail": "?"}


def test_an_unmarked_id_is_its_own_first_try():
    (row,) = sample_rows(_run(["x"], [{"request_id": "x", "status": "no_score"}]))
    assert (row["try"], row["status"], row["fields"]) == (0, "no_score", None)
