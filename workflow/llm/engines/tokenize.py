"""Count and cut text in a model's own tokens, without loading its weights.

Used where a prompt must fit a model's context before anything is sent: RAGAuth
cuts every document text to ``ragauth.doc_tokens`` tokens. The tokenizer must
be cheap and deterministic, because the cut text is part of the prompt (and so
of the response-cache key) and it is computed even when every reply is cached.

* ``llamacpp``: the GGUF's own vocabulary (``llama_cpp.Llama(vocab_only=True)``,
  which reads the vocabulary and no weights).
* ``vllm``: the Hugging Face tokenizer of the model and revision
  (``transformers``, which vLLM installs).
* ``openai``: ``tokenizer:`` in the model's config names a Hugging Face
  tokenizer; without it, a token is a whitespace-separated word (stated
  approximation: hosted APIs do not expose their tokenizer).
"""

from __future__ import annotations

import re
from typing import Mapping, Protocol, Sequence

_WORDS = re.compile(r"\S+\s*")


class Tokenizer(Protocol):
    name: str

    def encode(self, text: str) -> Sequence: ...

    def decode(self, tokens: Sequence) -> str: ...


class WordTokenizer:
    """One token per whitespace-separated word (its trailing space kept)."""

    name = "words"

    def encode(self, text: str) -> list[str]:
        return _WORDS.findall(text.lstrip())

    def decode(self, tokens: Sequence) -> str:
        return "".join(tokens)


def gguf_chat_formatter(llm, where: str):
    """The GGUF's own chat template (``tokenizer.chat_template``) as
    llama-cpp-python's chat completion applies it; ``where`` names the model
    in the error when the GGUF has none."""
    from llama_cpp import llama_chat_format

    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        raise ValueError(f"{where}: prompt_format chat, but the GGUF has no chat template")
    eos, bos = llm.token_eos(), llm.token_bos()
    return llama_chat_format.Jinja2ChatFormatter(
        template=template, eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
        bos_token=llm._model.token_get_text(bos) if bos != -1 else "", stop_token_ids=[eos])


def gguf_prompt_tokens(llm, prompt: str, formatter=None, special: bool = False) -> list[int]:
    """A prompt as a GGUF model sees it: raw text with BOS (completion; with
    ``special``, special-token text is parsed, as llama-cpp-python's
    completion does), or, with a chat ``formatter`` (:func:`gguf_chat_formatter`),
    one user message through the chat template, tokenized as
    llama-cpp-python's chat completion does. ``llm`` may be a vocabulary-only
    ``llama_cpp.Llama``."""
    if formatter is None:
        return llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=special)
    result = formatter(messages=[{"role": "user", "content": prompt}])
    return llm.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)


class LlamaCppTokenizer:
    def __init__(self, model_path: str):
        import llama_cpp

        self.name = "llamacpp-vocab"
        self.path = str(model_path)
        self._llm = llama_cpp.Llama(model_path=str(model_path), vocab_only=True, verbose=False)
        self._chat = None

    def encode(self, text: str) -> list[int]:
        return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def prompt_tokens(self, prompt: str, chat: bool) -> list[int]:
        """``prompt`` as the engine sends it (:func:`gguf_prompt_tokens`): through
        the GGUF's chat template when ``chat``."""
        if chat and self._chat is None:
            self._chat = gguf_chat_formatter(self._llm, self.path)
        return gguf_prompt_tokens(self._llm, prompt, self._chat if chat else None, special=chat)

    def decode(self, tokens: Sequence) -> str:
        # a cut inside a multi-byte character leaves a partial byte sequence: drop it
        return self._llm.detokenize(list(tokens)).decode("utf-8", errors="ignore")


class HFTokenizer:
    def __init__(self, name: str, revision: str | None = None):
        from transformers import AutoTokenizer

        self.name = f"hf:{name}"
        self._tok = AutoTokenizer.from_pretrained(name, revision=revision)

    def encode(self, text: str) -> list[int]:
        return self._tok.encode(text, add_special_tokens=False)

    def decode(self, tokens: Sequence) -> str:
        return self._tok.decode(list(tokens), skip_special_tokens=True)


def load_tokenizer(model_config: Mapping, model_path: str | None) -> Tokenizer:
    engine = model_config["engine"]
    if engine == "llamacpp":
        if not model_path:
            raise ValueError("the llamacpp tokenizer needs the model file")
        return LlamaCppTokenizer(model_path)
    name = model_config.get("tokenizer") or (model_config["model"] if engine == "vllm" else None)
    if name:
        return HFTokenizer(name, model_config.get("revision"))
    return WordTokenizer()


def truncate(text: str, budget: int | None, tokenizer: Tokenizer, marker: str = " ...") -> tuple[str, bool]:
    """``text`` cut to its first ``budget`` tokens (then ``marker`` appended),
    and whether it was cut. ``budget`` None keeps every text whole."""
    if budget is None:
        return text, False
    tokens = tokenizer.encode(text)
    if len(tokens) <= budget:
        return text, False
    return tokenizer.decode(tokens[:budget]).rstrip() + marker, True
