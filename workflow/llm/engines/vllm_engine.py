"""The GPU engine: offline ``vllm.LLM`` inside the judge job.

All requests of a cell go to vLLM in ONE batched call (``LLM.generate`` for
``prompt_format: completion``, ``LLM.chat`` with one user message per request
for ``chat``: vLLM applies the model's own chat template). vLLM schedules the
batch itself (continuous batching) and, with prefix caching on (the default
here), computes the template text shared by a cell's prompts once.

Per request: ``max_tokens`` (requests of a cell may differ: a ranking of 10
items needs more tokens than one of 5) and, with constrained decoding, the
request's GBNF grammar as vLLM structured output. Requests with the same
(max_tokens, grammar) share one ``SamplingParams``; vLLM gets a list with one
``SamplingParams`` per prompt. Temperature, top_p and seed come from the
model's ``generate:`` config (the paper: temperature 0). For chat models the
chat template gets ``enable_thinking=False`` (Qwen3's switch; templates that
do not know the variable ignore it) unless ``vllm.enable_thinking: true``.

Structured output, by feature detection (vLLM's own API changed):

* ``vllm.sampling_params.StructuredOutputsParams(grammar=...)`` passed as
  ``SamplingParams(structured_outputs=...)``: vLLM 0.10.2 and later (the only
  spelling from 0.12 on, where the guided-decoding names were removed);
* ``vllm.sampling_params.GuidedDecodingParams(grammar=...)`` passed as
  ``SamplingParams(guided_decoding=...)``: older releases (from about 0.6.3
  to 0.11.x; checked against the 0.9-0.10 docs, not release by release).

vLLM compiles the grammar with its structured-output backend (xgrammar by
default), which reads GBNF. ``Request.slots`` (the llamacpp engine's
logit-level decoding of the same shapes) is not used here. The pinned version
is in ``envs/vllm.yaml``; none of this has run on a GPU in this repository's
tests (tests/test_engine_vllm.py checks the calls against a stand-in).

Perplexity (:meth:`VllmEngine.perplexity`): all texts in ONE ``LLM.generate``
call (raw text, never the chat template, whatever ``prompt_format`` says)
with ``SamplingParams(max_tokens=1, temperature=0, prompt_logprobs=0)``. vLLM
then returns, per prompt, ``prompt_logprobs``: None for the first prompt token
(the BOS token where the tokenizer adds one) and for every later position a
dict token id -> ``Logprob`` that holds at least the prompt token's own
log-probability (with ``prompt_logprobs=0`` nothing else; the value is looked
up by the prompt token's id all the same). The negative sum over positions
1..n-1 is ``nll``, ``tokens = n - 1``. The one generated token is discarded.
Texts are not truncated: vLLM rejects a prompt longer than ``max_model_len``
(and the whole call fails). The empty text is not sent (vLLM rejects empty
prompts): ``tokens 0``, ``perplexity NaN``. ``seconds`` is the batch's wall
time divided evenly, as for :meth:`VllmEngine.generate`.

vLLM is imported only in :class:`VllmEngine`'s constructor: laptops and CI
never install it (``pip install -e '.[vllm]'`` or ``envs/vllm.yaml`` on a GPU
node).
"""

from __future__ import annotations

import importlib
import time
from typing import Callable, Iterator, Mapping, Sequence

from authbench.config import GenerateConfig
from authbench.llm.engines.base import (
    Engine,
    PerplexityResult,
    Request,
    Response,
    register,
)

INSTALL_HINT = (
    "engine 'vllm' needs the vLLM package, which is not installed in this environment. "
    "On a GPU node install the project's `vllm` extra (pip install -e '.[vllm]') or create "
    "the conda environment envs/vllm.yaml (snakemake --use-conda, or conda env create -f envs/vllm.yaml)"
)

DEFAULTS = {
    "tensor_parallel_size": 1,
    "max_model_len": None,  # None: the model's own context length
    "gpu_memory_utilization": 0.9,
    "dtype": "auto",
    "enable_prefix_caching": True,
    "enable_thinking": False,
    "download_dir": None,
}


def _count(token_ids) -> int:
    return 0 if token_ids is None else len(token_ids)


def _import_vllm():
    try:
        return importlib.import_module("vllm")
    except ImportError as err:
        raise ImportError(f"{INSTALL_HINT} ({type(err).__name__}: {err})") from err


def structured_output_factory(vllm_module) -> tuple[str, Callable[[str], dict]]:
    """(which API, grammar text -> extra ``SamplingParams`` keyword arguments)
    for the installed vLLM; see the module docstring for the versions."""
    try:
        sp = importlib.import_module(f"{vllm_module.__name__}.sampling_params")
    except ImportError:
        sp = None
    if sp is not None and hasattr(sp, "StructuredOutputsParams"):
        cls = sp.StructuredOutputsParams
        return "structured_outputs", lambda grammar: {"structured_outputs": cls(grammar=grammar)}
    if sp is not None and hasattr(sp, "GuidedDecodingParams"):
        cls = sp.GuidedDecodingParams
        return "guided_decoding", lambda grammar: {"guided_decoding": cls(grammar=grammar)}
    version = getattr(vllm_module, "__version__", "?")
    raise RuntimeError(
        f"vLLM {version} has neither StructuredOutputsParams nor GuidedDecodingParams in "
        "vllm.sampling_params: it cannot constrain replies with a grammar. Use the version pinned in "
        "envs/vllm.yaml, or set constrained_decoding: false"
    )


@register("vllm")
class VllmEngine(Engine):
    """One ``vllm.LLM`` per judge job; :meth:`generate` sends a whole cell at once.

    ``Response.seconds`` is the wall time of the one batched call divided
    evenly among its requests (vLLM runs them concurrently, so a request has
    no time of its own); their sum is the batch's wall time.
    """

    def __init__(self, model_config: Mapping, model_path: str | None = None):
        vllm = _import_vllm()
        self._vllm = vllm
        options = {**DEFAULTS, **{k: v for k, v in (model_config.get("vllm") or {}).items() if v is not None}}
        self.options = options
        self.model = str(model_config["model"])
        self.revision = model_config.get("revision")
        self.prompt_format = model_config.get("prompt_format", "completion")
        self.enable_thinking = bool(options["enable_thinking"])
        seed = (model_config.get("generate") or {}).get("seed")
        self.llm = vllm.LLM(
            model=self.model,
            revision=self.revision,
            tokenizer_revision=self.revision,  # the chat template must match the weights
            tensor_parallel_size=int(options["tensor_parallel_size"]),
            max_model_len=options["max_model_len"],
            gpu_memory_utilization=float(options["gpu_memory_utilization"]),
            dtype=options["dtype"],
            enable_prefix_caching=bool(options["enable_prefix_caching"]),
            seed=int(seed) if seed is not None else 0,
            download_dir=options["download_dir"],
        )
        self._structured: tuple[str, Callable[[str], dict]] | None = None

    def identity(self) -> dict:
        return {
            "engine": "vllm",
            "engine_version": getattr(self._vllm, "__version__", "?"),
            "model": self.model,
            "revision": self.revision,
            "dtype": self.options["dtype"],
            "tensor_parallel_size": int(self.options["tensor_parallel_size"]),
            "prompt_format": self.prompt_format,
            "enable_thinking": self.enable_thinking,
        }

    def _grammar_kwargs(self, grammar: str) -> dict:
        if self._structured is None:
            self._structured = structured_output_factory(self._vllm)
        return self._structured[1](grammar)

    def sampling_params(self, requests: Sequence[Request], config: GenerateConfig) -> list:
        """One ``SamplingParams`` per request, shared among requests with the
        same (max_tokens, grammar)."""
        shared: dict[tuple[int, str | None], object] = {}
        out = []
        for req in requests:
            key = (int(req.max_tokens), req.grammar)
            if key not in shared:
                extra = self._grammar_kwargs(req.grammar) if req.grammar is not None else {}
                shared[key] = self._vllm.SamplingParams(
                    temperature=config.temperature,
                    top_p=config.top_p,
                    seed=config.seed,
                    max_tokens=key[0],
                    **extra,
                )
            out.append(shared[key])
        return out

    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        requests = list(requests)
        if not requests:
            return
        params = self.sampling_params(requests, config)
        start = time.perf_counter()
        if self.prompt_format == "chat":
            outputs = self.llm.chat(
                [[{"role": "user", "content": r.prompt}] for r in requests],
                sampling_params=params,
                use_tqdm=True,
                chat_template_kwargs={"enable_thinking": self.enable_thinking},
            )
        else:
            outputs = self.llm.generate([r.prompt for r in requests], sampling_params=params, use_tqdm=True)
        seconds = (time.perf_counter() - start) / len(requests)
        outputs = list(outputs)
        if len(outputs) != len(requests):
            raise RuntimeError(f"vLLM returned {len(outputs)} outputs for {len(requests)} prompts")
        for req, out in zip(requests, outputs):  # vLLM returns outputs in prompt order
            completion = out.outputs[0]
            yield Response(
                id=req.id,
                text=completion.text,
                prompt_tokens=_count(out.prompt_token_ids),
                completion_tokens=_count(completion.token_ids),
                seconds=seconds,
                finish_reason=str(completion.finish_reason),
            )

    def perplexity(self, texts: Sequence[str]) -> Iterator[PerplexityResult]:
        """See the module docstring."""
        texts = list(texts)
        sent = [i for i, t in enumerate(texts) if t != ""]
        outputs: list = []
        seconds = 0.0
        if sent:
            params = self._vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0)
            start = time.perf_counter()
            outputs = list(self.llm.generate([texts[i] for i in sent], sampling_params=params, use_tqdm=True))
            seconds = (time.perf_counter() - start) / len(sent)
            if len(outputs) != len(sent):
                raise RuntimeError(f"vLLM returned {len(outputs)} outputs for {len(sent)} prompts")
        by_index = dict(zip(sent, outputs))
        for index in range(len(texts)):
            if index not in by_index:
                yield PerplexityResult.from_nll(index, 0, 0.0, 0.0)
                continue
            out = by_index[index]
            ids = list(out.prompt_token_ids or [])
            logprobs = out.prompt_logprobs
            if logprobs is None or len(logprobs) != len(ids):
                raise RuntimeError(
                    f"vLLM returned no prompt logprobs for text {index} (prompt_logprobs="
                    f"{'None' if logprobs is None else f'{len(logprobs)} entries for {len(ids)} tokens'}); "
                    "this vLLM version may not support SamplingParams(prompt_logprobs=0)"
                )
            nll = 0.0
            for pos in range(1, len(ids)):
                entry = logprobs[pos]
                if entry is None or ids[pos] not in entry:
                    raise RuntimeError(f"vLLM's prompt logprobs for text {index} lack token {ids[pos]} "
                                       f"at position {pos}")
                nll -= float(entry[ids[pos]].logprob)
            yield PerplexityResult.from_nll(index, max(0, len(ids) - 1), nll, seconds)

    def close(self) -> None:
        self.llm = None
