"""The vLLM engine's translation layer: Request/GenerateConfig/model config in,
vLLM calls out, vLLM outputs back to Responses.

vLLM ITSELF IS NOT EXERCISED HERE: it needs a CUDA GPU and model weights,
which this machine and CI do not have. Instead a stand-in module is put in
``sys.modules["vllm"]`` (and ``vllm.sampling_params``) that records every
argument the engine passes. The stand-in keeps vLLM's real signatures as far
as the engine uses them (vLLM 0.10-0.33: ``LLM(model, *, tensor_parallel_size,
dtype, revision, tokenizer_revision, seed, gpu_memory_utilization, **engine_args)``,
``LLM.generate(prompts, sampling_params, *, use_tqdm)``, ``LLM.chat(messages,
sampling_params, use_tqdm, ..., chat_template_kwargs)``, keyword-only
``SamplingParams`` fields, ``StructuredOutputsParams``/``GuidedDecodingParams``
that demand exactly one constraint, ``RequestOutput.prompt_token_ids`` and
``CompletionOutput.text/token_ids/finish_reason``), and it rejects unknown
keyword arguments the way vLLM does. Whether a real GPU run agrees is for a
machine with a GPU (see envs/vllm.yaml).
"""

import sys
import time
import types
from dataclasses import dataclass

import pytest
from authbench.config import GenerateConfig
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.grammars import grammar_for, max_tokens_for

# EngineArgs fields the engine may pass through LLM(**kwargs); anything else is
# a TypeError in vLLM (EngineArgs is a dataclass).
ENGINE_ARG_FIELDS = {"max_model_len", "enable_prefix_caching", "download_dir"}


@dataclass
class CompletionOutput:
    index: int
    text: str
    token_ids: list
    cumulative_logprob: float | None
    logprobs: object
    finish_reason: str | None = None
    stop_reason: object = None


@dataclass
class RequestOutput:
    request_id: str
    prompt: str | None
    prompt_token_ids: list
    prompt_logprobs: object
    outputs: list
    finished: bool = True


def make_vllm(structured: str = "structured_outputs", version: str = "0.33.0", delay: float = 0.0):
    """A stand-in ``vllm`` package. ``structured``: which structured-output API
    it has: "structured_outputs" (>= 0.10.2), "guided_decoding" (older) or "none"."""
    vllm = types.ModuleType("vllm")
    sp = types.ModuleType("vllm.sampling_params")
    vllm.__version__ = version
    vllm.sampling_params = sp
    log = {"init": [], "generate": [], "chat": []}
    vllm.log = log

    def constraint_cls(name):
        @dataclass(kw_only=True)
        class Params:
            json: object = None
            regex: str | None = None
            choice: list | None = None
            grammar: str | None = None
            json_object: bool | None = None

            def __post_init__(self):
                n = sum(v is not None for v in (self.json, self.regex, self.choice, self.grammar, self.json_object))
                if n != 1:
                    raise ValueError(f"{name}: exactly one constraint, got {n}")

        Params.__name__ = name
        return Params

    fields = dict(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=1.0,
                  top_p=1.0, top_k=0, min_p=0.0, seed=None, stop=None, max_tokens=16, logprobs=None)
    if structured == "structured_outputs":
        sp.StructuredOutputsParams = constraint_cls("StructuredOutputsParams")
        fields["structured_outputs"] = None
    elif structured == "guided_decoding":
        sp.GuidedDecodingParams = constraint_cls("GuidedDecodingParams")
        fields["guided_decoding"] = None

    class SamplingParams:
        def __init__(self, **kwargs):  # every field is a keyword in vLLM's msgspec struct
            unknown = set(kwargs) - set(fields)
            if unknown:
                raise TypeError(f"SamplingParams got unexpected keyword argument(s) {sorted(unknown)}")
            for k, v in {**fields, **kwargs}.items():
                setattr(self, k, v)

    sp.SamplingParams = SamplingParams
    vllm.SamplingParams = SamplingParams

    def reply(prompt_text, params):
        n = min(params.max_tokens, 3)
        return CompletionOutput(0, f"reply to {prompt_text[-12:]!r}", list(range(n)), None, None,
                                "length" if params.max_tokens <= 3 else "stop")

    class LLM:
        def __init__(self, model, *, tokenizer=None, tensor_parallel_size=1, dtype="auto", quantization=None,
                     revision=None, tokenizer_revision=None, seed=None, gpu_memory_utilization=0.9,
                     trust_remote_code=False, **kwargs):
            unknown = set(kwargs) - ENGINE_ARG_FIELDS
            if unknown:
                raise TypeError(f"EngineArgs.__init__() got unexpected keyword argument(s) {sorted(unknown)}")
            log["init"].append(dict(model=model, tensor_parallel_size=tensor_parallel_size, dtype=dtype,
                                    revision=revision, tokenizer_revision=tokenizer_revision, seed=seed,
                                    gpu_memory_utilization=gpu_memory_utilization, **kwargs))

        def _outputs(self, texts, sampling_params):
            if isinstance(sampling_params, list) and len(sampling_params) != len(texts):
                raise ValueError("The lengths of prompts and sampling_params must be the same.")
            params = sampling_params if isinstance(sampling_params, list) else [sampling_params] * len(texts)
            time.sleep(delay)
            return [RequestOutput(str(i), t, list(range(len(t.split()))), None, [reply(t, p)])
                    for i, (t, p) in enumerate(zip(texts, params))]

        def generate(self, prompts, sampling_params=None, *, use_tqdm=True, lora_request=None):
            prompts = [prompts] if isinstance(prompts, str) else list(prompts)
            log["generate"].append(dict(prompts=prompts, sampling_params=sampling_params, use_tqdm=use_tqdm))
            return self._outputs(prompts, sampling_params)

        def chat(self, messages, sampling_params=None, use_tqdm=True, lora_request=None, chat_template=None,
                 chat_template_content_format="auto", add_generation_prompt=True, continue_final_message=False,
                 tools=None, chat_template_kwargs=None, mm_processor_kwargs=None):
            conversations = messages if messages and isinstance(messages[0], list) else [messages]
            log["chat"].append(dict(messages=conversations, sampling_params=sampling_params, use_tqdm=use_tqdm,
                                    chat_template_kwargs=chat_template_kwargs))
            # a toy chat template: the user message between role markers
            texts = [f"<|user|> {c[0]['content']} <|assistant|>" for c in conversations]
            return self._outputs(texts, sampling_params)

    vllm.LLM = LLM
    return vllm


@pytest.fixture
def fake_vllm(monkeypatch):
    def install(**kwargs):
        module = make_vllm(**kwargs)
        monkeypatch.setitem(sys.modules, "vllm", module)
        monkeypatch.setitem(sys.modules, "vllm.sampling_params", module.sampling_params)
        return module

    return install


QWEN = {"engine": "vllm", "model": "Qwen/Qwen3-8B", "revision": "9c925d64d72725edaf899c6cb9c377fd0709d9c5",
        "prompt_format": "chat", "generate": {"temperature": 0.0, "seed": 7, "max_tokens": 64}}


def cell_requests():
    """A cell's worth of requests with two budgets and two grammars (10- and 5-item rankings) plus a free one."""
    rank10, rank5 = grammar_for("ranking", 10), grammar_for("ranking", 5)
    return [
        Request("l0", "Rank these ten domains: nasa.gov ...", max_tokens_for("ranking", 10), rank10),
        Request("l1", "Rank these five domains: bbc.co.uk ...", max_tokens_for("ranking", 5), rank5),
        Request("l2", "Rank these ten other domains: msi.com ...", max_tokens_for("ranking", 10), rank10),
        Request("free", "Rank freely: flickr.com ...", 128, None),
    ]


def test_constructor_passes_the_model_config(fake_vllm):
    vllm = fake_vllm()
    cfg = {**QWEN, "vllm": {"tensor_parallel_size": 2, "max_model_len": 4096, "gpu_memory_utilization": 0.85,
                            "dtype": "bfloat16", "download_dir": "/scratch/hf"}}
    create_engine(cfg, None)
    assert vllm.log["init"] == [dict(model="Qwen/Qwen3-8B", revision=QWEN["revision"], tokenizer_revision=QWEN["revision"],
                                     tensor_parallel_size=2, max_model_len=4096, gpu_memory_utilization=0.85,
                                     dtype="bfloat16", enable_prefix_caching=True, seed=7, download_dir="/scratch/hf")]


def test_constructor_defaults(fake_vllm):
    vllm = fake_vllm()
    create_engine({"engine": "vllm", "model": "/models/llama3-8b"}, None)
    (init,) = vllm.log["init"]
    assert init == dict(model="/models/llama3-8b", revision=None, tokenizer_revision=None, tensor_parallel_size=1,
                        max_model_len=None, gpu_memory_utilization=0.9, dtype="auto", enable_prefix_caching=True,
                        seed=0, download_dir=None)


def test_prefix_caching_can_be_switched_off(fake_vllm):
    vllm = fake_vllm()
    create_engine({**QWEN, "vllm": {"enable_prefix_caching": False}}, None)
    assert vllm.log["init"][0]["enable_prefix_caching"] is False


def test_chat_cell_is_one_batched_call_with_per_prompt_sampling_params(fake_vllm):
    vllm = fake_vllm()
    engine = create_engine(QWEN, None)
    reqs = cell_requests()
    out = list(engine.generate(reqs, GenerateConfig(temperature=0.0, top_p=1.0, seed=7, max_tokens=64)))

    assert vllm.log["generate"] == [] and len(vllm.log["chat"]) == 1
    (call,) = vllm.log["chat"]
    assert call["messages"] == [[{"role": "user", "content": r.prompt}] for r in reqs]
    assert call["chat_template_kwargs"] == {"enable_thinking": False}
    params = call["sampling_params"]
    assert isinstance(params, list) and len(params) == len(reqs)
    assert [p.max_tokens for p in params] == [r.max_tokens for r in reqs] == [64, 34, 64, 128]
    assert [p.structured_outputs.grammar if p.structured_outputs else None for p in params] == [r.grammar for r in reqs]
    assert all(p.temperature == 0.0 and p.top_p == 1.0 and p.seed == 7 for p in params)
    # one SamplingParams per distinct (max_tokens, grammar), shared by its prompts
    assert params[0] is params[2] and len({id(p) for p in params}) == 3

    assert [r.id for r in out] == [r.id for r in reqs]
    for req, resp in zip(reqs, out):
        rendered = f"<|user|> {req.prompt} <|assistant|>"
        assert resp.text == f"reply to {rendered[-12:]!r}"
        assert resp.prompt_tokens == len(rendered.split())
        assert resp.completion_tokens == 3
        assert resp.finish_reason == "stop"


def test_thinking_can_be_enabled(fake_vllm):
    vllm = fake_vllm()
    engine = create_engine({**QWEN, "vllm": {"enable_thinking": True}}, None)
    list(engine.generate(cell_requests()[:1], GenerateConfig()))
    assert vllm.log["chat"][0]["chat_template_kwargs"] == {"enable_thinking": True}
    assert engine.identity()["enable_thinking"] is True


def test_completion_format_sends_raw_prompts_through_generate(fake_vllm):
    vllm = fake_vllm()
    engine = create_engine({**QWEN, "prompt_format": "completion"}, None)
    reqs = cell_requests()
    out = list(engine.generate(reqs, GenerateConfig(max_tokens=3)))
    assert vllm.log["chat"] == [] and len(vllm.log["generate"]) == 1
    (call,) = vllm.log["generate"]
    assert call["prompts"] == [r.prompt for r in reqs]
    assert [p.max_tokens for p in call["sampling_params"]] == [r.max_tokens for r in reqs]
    assert [r.prompt_tokens for r in out] == [len(r.prompt.split()) for r in reqs]


def test_older_vllm_gets_guided_decoding(fake_vllm):
    vllm = fake_vllm(structured="guided_decoding", version="0.9.2")
    engine = create_engine(QWEN, None)
    list(engine.generate(cell_requests(), GenerateConfig()))
    params = vllm.log["chat"][0]["sampling_params"]
    assert [p.guided_decoding.grammar if p.guided_decoding else None for p in params] == [r.grammar for r in cell_requests()]
    assert type(params[0].guided_decoding).__name__ == "GuidedDecodingParams"


def test_vllm_without_structured_output_fails_clearly_only_when_a_grammar_is_asked(fake_vllm):
    fake_vllm(structured="none", version="0.5.0")
    engine = create_engine(QWEN, None)
    free = [r for r in cell_requests() if r.grammar is None]
    assert [r.id for r in engine.generate(free, GenerateConfig())] == ["free"]
    with pytest.raises(RuntimeError, match=r"vLLM 0\.5\.0 .*cannot constrain.*constrained_decoding: false"):
        list(engine.generate(cell_requests(), GenerateConfig()))


def test_seconds_are_the_batch_wall_time_divided_evenly(fake_vllm):
    fake_vllm(delay=0.2)
    engine = create_engine(QWEN, None)
    start = time.perf_counter()
    out = list(engine.generate(cell_requests(), GenerateConfig()))
    wall = time.perf_counter() - start
    assert len({r.seconds for r in out}) == 1
    assert 0.2 <= sum(r.seconds for r in out) <= wall


def test_empty_cell_makes_no_call(fake_vllm):
    vllm = fake_vllm()
    engine = create_engine(QWEN, None)
    assert list(engine.generate([], GenerateConfig())) == []
    assert vllm.log["chat"] == vllm.log["generate"] == []


def test_identity(fake_vllm):
    fake_vllm(version="0.33.0")
    engine = create_engine({**QWEN, "vllm": {"tensor_parallel_size": 2, "dtype": "bfloat16"}}, None)
    assert engine.identity() == {"engine": "vllm", "engine_version": "0.33.0", "model": "Qwen/Qwen3-8B",
                                 "revision": QWEN["revision"], "dtype": "bfloat16", "tensor_parallel_size": 2,
                                 "prompt_format": "chat", "enable_thinking": False}


def test_without_vllm_the_engine_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` fail even where vLLM is installed
    with pytest.raises(ImportError) as err:
        create_engine({"engine": "vllm", "model": "Qwen/Qwen3-8B"}, None)
    message = str(err.value)
    assert "engine 'vllm' needs the vLLM package" in message
    assert "pip install -e '.[vllm]'" in message and "envs/vllm.yaml" in message


def test_the_engine_module_imports_without_vllm(monkeypatch):
    import importlib

    monkeypatch.setitem(sys.modules, "vllm", None)
    module = importlib.reload(importlib.import_module("authbench.llm.engines.vllm_engine"))
    assert module.VllmEngine.name == "vllm"
