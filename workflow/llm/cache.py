"""Content-addressed response cache under every engine.

A response is stored under the SHA-256 of (model identity, sampling
parameters, the exact request): the model's name/path and revision, the
prompt format, temperature/top_p/seed, the token budget and the decoding
constraint (grammar or slots, and how slots are decoded) and the prompt text.
The engine is *not* part of the key: the same model served by llama.cpp in
process or behind an OpenAI-compatible server answers from one cache. So no
prompt is computed twice — not across cells (PointJudge cells of different
settings share their domains), not across reruns, not after a killed job.

Storage: one JSON file per response, ``<root>/<key[:2]>/<key>.json``,
written to a unique temporary name in the same folder, flushed, fsynced and
``os.replace``d into place. A rename within one directory is atomic on local
filesystems and on NFS, so with any number of concurrent writers a reader
sees either no entry or a whole one; two jobs computing the same prompt both
write the same content and the last rename wins. No database, no lock file:
safe on a shared network filesystem. A file that cannot be parsed (written by
something else) counts as a miss and is overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterable, Mapping

from authbench.config import GenerateConfig
from authbench.llm.models import model_revision

KEY_VERSION = 1  # bump when the key's recipe changes


def model_identity(model_config: Mapping[str, Any]) -> dict:
    """What identifies a model's outputs, from its config alone (no loading):
    name or path, revision (for ``package:<module>`` the installed package's
    version, for ``parts:<name>`` the pinned SHA-256), prompt format, how
    constrained replies are decoded and, for vLLM, the dtype it runs at."""
    spec = model_config["model"]
    revision = model_config.get("revision")
    if revision is None:
        revision = model_revision(spec)
    ident = {
        "model": spec,
        "revision": revision,
        "prompt_format": model_config.get("prompt_format", "completion"),
        "constrain_with": model_config.get("constrain_with", "slots"),
    }
    if model_config.get("engine") == "vllm":
        # vLLM runs the weights at this precision (a parts:/package: GGUF is
        # dequantised): its replies must not be served to llama.cpp's Q4 run
        ident["dtype"] = (model_config.get("vllm") or {}).get("dtype") or "auto"
    return ident


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_key(**fields: Any) -> str:
    """The one key recipe: SHA-256 of the canonical JSON of ``fields`` plus
    ``"v": KEY_VERSION``. Every cached result (a reply, a perplexity) is
    stored under the key of exactly what determines it."""
    return hashlib.sha256(_canonical({"v": KEY_VERSION, **fields}).encode("utf-8")).hexdigest()


def request_key(model: Mapping, generate: GenerateConfig, prompt: str, max_tokens: int,
                grammar: str | None, slots: Any) -> str:
    """A generation request's key: model identity (without ``constrain_with``,
    which is part of the constraint), sampling settings, token budget,
    constraint and the exact prompt."""
    constraint = None
    if slots is not None or grammar is not None:
        constraint = {"slots": slots, "grammar": grammar, "constrain_with": model.get("constrain_with")}
    identity = {k: v for k, v in model.items() if k != "constrain_with"}
    return content_key(model=identity, generate=asdict(generate), max_tokens=max_tokens, constraint=constraint,
                       prompt=prompt)


def perplexity_key(model: Mapping[str, Any], text: str) -> str:
    """A perplexity's key: ``task: perplexity`` (never equal to a generation
    key), the identity of :func:`authbench.llm.runner.perplexity_identity` and the text."""
    return content_key(task="perplexity", model=dict(model), text=text)


class ResponseCache:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            with open(self.path(key), encoding="utf-8") as fh:
                record = json.load(fh)
        except (FileNotFoundError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("key") == key else None

    def get_many(self, keys: Iterable[str]) -> dict[str, dict]:
        """The stored records of ``keys`` (each looked up once), by key."""
        found = {}
        for key in dict.fromkeys(keys):
            hit = self.get(key)
            if hit is not None:
                found[key] = hit
        return found

    def put(self, key: str, record: Mapping) -> None:
        final = self.path(key)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = final.parent / f".{key}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(_canonical({**record, "key": key}) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
