"""The with-text (w_text) path on a test fixture: text joins, prompts (the real-model cell:
tests/workflow/test_with_text_real_model.py)."""

from pathlib import Path

import pytest
from authbench.studies.authority.domains import build_domains, read_texts
from authbench.studies.authority.prompts import load_template
from authbench.studies.authority.requests import build_requests
from authbench.studies.authority.sampling import sample_all

FIXTURE = Path(__file__).parents[3] / "fixtures" / "domainauth_text"
PROMPTS = Path(__file__).resolve().parents[4] / "resources" / "prompts" / "domainauth"
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
