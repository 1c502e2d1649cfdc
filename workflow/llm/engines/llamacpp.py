"""The embedded engine: a GGUF model in-process on the CPU via llama-cpp-python.

Perplexity (:meth:`LlamaCppEngine.perplexity`): the text is tokenized as a
completion prompt is (with the BOS token where the model adds one, no special
tokens parsed), evaluated once in the engine's own context with logits for
every position, and token ``i`` (1..n-1) is scored by the log-softmax (numpy,
float64) of the logits after tokens ``0..i-1``; the first token (BOS) is not
scored, so ``tokens = n - 1``. No second model or context is created: the
sequence is decoded in blocks of ``min(PERPLEXITY_BATCH, n_batch)`` tokens
(32, the :data:`REUSE_BLOCK` below), each block asking llama.cpp for the
logits of all its positions (the context was built with ``logits_all=False``,
which only concerns what ``Llama.eval`` asks for).
Texts longer than the context (``n_ctx``): the first ``n_ctx`` tokens are
scored as above and the rest is reported as ``truncated_tokens`` (no sliding
window). The empty text has nothing to score: ``tokens 0``, ``perplexity NaN``.

Score distributions (``Request.score_probs``, :mod:`authbench.llm.expected`):
with slot decoding, the logits read at each score slot to pick the greedy
score give its distribution (softmax over the allowed score tokens) at no
extra cost. With ``constrain_with: gbnf`` or free decoding the engine reports
none (llama-cpp-python returns logprobs only with ``logits_all=True``); the
runner records ``engine_gives_none`` and E[s] falls back to the argmax.

Prefix reuse without history (:data:`REUSE_BLOCK`): a prompt that shares its
start with what the context holds (the template of the prompt before) reuses
that part of the KV cache. llama.cpp's numbers for a position depend on the
batch it was evaluated in (cold vs. after a prompt sharing the template: up to
0.52 apart on Gemma 3 270M), so a free reuse would make a reply depend on what
the process evaluated before: a cell resumed after a kill could write another
reply than an uninterrupted run. Every evaluation therefore starts at a
multiple of ``B = REUSE_BLOCK`` and runs in batches of ``B`` (``n_batch =
n_ubatch = B``): positions ``[kB, (k+1)B)`` are always one batch, and a
request reuses only whole blocks that were evaluated so; within a request
(slot decoding's later slots) the appended tokens are evaluated as they come,
the request's own history. A reply and its score distributions are then a
function of the request alone (tests/workflow/test_engine.py compares them
cold, forward and backward, bit for bit). The price: up to ``B - 1`` prompt
tokens evaluated again per request and smaller batches, about 1.2x the
engine time of slot decoding (benchmarks/README.md, "Prefix reuse without
history"). Which batch splits change llama.cpp's numbers depends on its CPU
kernels (here: splits off a multiple of 4 rows, or short batches), so the
rule does not rely on them.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from authbench.config import GenerateConfig
from authbench.llm import expected
from authbench.llm.engines.base import Engine, PerplexityResult, Request, Response, register

# tokens decoded per llama_decode call when scoring perplexity. Every position's
# logits are kept by llama.cpp until the block is read (64 x a 262k vocabulary
# = 64 MiB of float32 for Gemma 3); larger blocks were no faster on the CPU.
PERPLEXITY_BATCH = 64
# rows converted to float64 at once for the log-softmax (bounds the memory)
_LOGSOFTMAX_ROWS = 16
# the evaluation block: positions [kB, (k+1)B) are always evaluated as one
# batch, and only whole blocks are reused (module docstring)
REUSE_BLOCK = 32


@register("llamacpp")
class LlamaCppEngine(Engine):
    def __init__(self, model_config: Mapping, model_path: str):
        import llama_cpp

        self._llama_cpp = llama_cpp
        self.model_path = str(model_path)
        self.prompt_format = model_config["prompt_format"]
        self.llm = llama_cpp.Llama(
            model_path=self.model_path,
            n_ctx=int(model_config["n_ctx"]),
            n_threads=int(model_config["threads"]),
            n_batch=REUSE_BLOCK,
            n_ubatch=REUSE_BLOCK,
            seed=int(model_config.get("generate", {}).get("seed", 0)),
            verbose=False,
        )
        self._grammars: dict[str, object] = {}
        # tokens [0, _whole) of the context were evaluated in whole aligned blocks
        self._whole = 0
        self._option_ids: dict[str, int] = {}
        self._chat_formatter = None
        if self.prompt_format == "chat" and "tokenizer.chat_template" in self.llm.metadata:
            # the GGUF's own chat template, for free decoding and slot decoding alike
            self.llm.chat_format = "chat_template.default"
        # "slots" (default): literal text appended, choices scored from logits;
        # "gbnf": llama.cpp's grammar sampler (same replies, far slower with a
        # large vocabulary). See grammars.slots_for and benchmarks/.
        self.constrain_with = model_config["constrain_with"]

    def identity(self) -> dict:
        return {
            "engine": "llamacpp",
            "engine_version": self._llama_cpp.__version__,
            "model_file": Path(self.model_path).name,
            "prompt_format": self.prompt_format,
            "constrain_with": self.constrain_with,
        }

    def _grammar(self, text: str | None):
        if text is None:
            return None
        if text not in self._grammars:
            self._grammars[text] = self._llama_cpp.LlamaGrammar.from_string(text, verbose=False)
        return self._grammars[text]

    # --- slot decoding ---------------------------------------------------
    def _tokens(self, text: str, bos: bool = False) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=bos, special=False)

    def _option_id(self, option: str) -> int:
        if option not in self._option_ids:
            ids = self._tokens(option)
            if len(ids) != 1:
                raise ValueError(f"choice option {option!r} is {len(ids)} tokens for this model, expected 1")
            self._option_ids[option] = ids[0]
        return self._option_ids[option]

    def _reuse(self, tokens: list[int]) -> int:
        """Keep the longest prefix of ``tokens`` the context holds in whole
        evaluated blocks (at most ``len(tokens) - 1``: the last token is always
        evaluated, for fresh logits); drop the rest. Returns where evaluation starts."""
        import numpy as np

        llm = self.llm
        held = llm.input_ids[: min(llm.n_tokens, self._whole)]
        m = min(len(held), len(tokens) - 1)
        diff = np.nonzero(held[:m] != np.asarray(tokens[:m], dtype=held.dtype))[0]
        common = int(diff[0]) if len(diff) else m
        start = common - common % REUSE_BLOCK
        if start == 0 or not llm._ctx.kv_cache_seq_rm(-1, start, -1):
            llm.reset()
            start = 0
        llm.n_tokens = start
        return start

    def _evaluated(self, tokens: list[int]) -> None:
        """``tokens`` were evaluated from a block start in batches of ``B``."""
        self._whole = len(tokens) - len(tokens) % REUSE_BLOCK

    def _logits_after(self, tokens: list[int], first: bool = True):
        """Logits of the next token after ``tokens``. The first call of a
        request reuses whole blocks only; a later one (``tokens`` = the
        previous call's plus what was appended) evaluates the appended tokens:
        the request's own history, the same whatever came before it."""
        import numpy as np

        llm = self.llm
        if first:
            start = self._reuse(tokens)
            llm.eval(tokens[start:])
            self._evaluated(tokens)
        else:
            llm.eval(tokens[llm.n_tokens:])
        return np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm._n_vocab,))

    def _prompt_tokens(self, prompt: str, special: bool = False) -> list[int]:
        """The prompt as the model sees it (:func:`authbench.llm.engines.tokenize.gguf_prompt_tokens`):
        raw text with BOS (completion), or one user message through the GGUF's chat template (chat)."""
        from authbench.llm.engines.tokenize import gguf_chat_formatter, gguf_prompt_tokens

        if self.prompt_format != "chat":
            return gguf_prompt_tokens(self.llm, prompt, special=special)
        if self._chat_formatter is None:
            self._chat_formatter = gguf_chat_formatter(self.llm, self.model_path)
        return gguf_prompt_tokens(self.llm, prompt, self._chat_formatter)

    def _slot_decode(self, req: Request) -> tuple[str, int, int, dict | None]:
        tokens = self._prompt_tokens(req.prompt)
        n_prompt = len(tokens)
        text = ""
        taken: set[str] = set()
        # score distributions: the score slots are the "choice" slots of a score format, in order
        names = list(expected.slot_names(req.output, req.n)) if req.score_probs and expected.wants(req.output) else []
        probs: dict | None = {} if req.score_probs and expected.wants(req.output) else None
        first = True
        for kind, value in req.slots:
            if kind == "lit":
                tokens += self._tokens(value)
                text += value
                continue
            options = [o for o in value if o not in taken] if kind == "choice_unique" else list(value)
            ids = [self._option_id(o) for o in options]
            if len(ids) == 1:
                best = 0
            else:
                logits = self._logits_after(tokens, first)
                first = False
                best = max(range(len(ids)), key=lambda k: (logits[ids[k]], -k))
                if kind == "choice" and names:
                    probs[names.pop(0)] = self._distribution(logits, ids, options)
            tokens.append(ids[best])
            text += options[best]
            if kind == "choice_unique":
                taken.add(options[best])
        return text, n_prompt, len(tokens) - n_prompt, probs

    @staticmethod
    def _distribution(logits, ids: list[int], options: list[str]) -> dict:
        """softmax over the allowed options' logits; ``mass`` their share of
        the softmax over the whole vocabulary (float64)."""
        import numpy as np

        full = np.asarray(logits, dtype=np.float64)
        top = float(full.max())
        log_norm = top + math.log(float(np.exp(full - top).sum()))
        return expected.from_logits([float(full[i]) for i in ids], options, log_norm)

    def generate(self, requests: Sequence[Request], config: GenerateConfig) -> Iterator[Response]:
        for req in requests:
            if req.slots is not None and self.constrain_with == "slots":
                if config.temperature != 0:
                    raise ValueError("slot decoding is greedy: it needs temperature 0")
                start = time.perf_counter()
                text, n_prompt, n_completion, probs = self._slot_decode(req)
                yield Response(req.id, text, n_prompt, n_completion, time.perf_counter() - start, "stop", probs)
                continue
            kwargs = dict(
                max_tokens=req.max_tokens,
                temperature=config.temperature,
                top_p=config.top_p,
                seed=config.seed,
                grammar=self._grammar(req.grammar) if self.constrain_with == "gbnf" else None,
            )
            start = time.perf_counter()
            # the prompt's tokens as llama-cpp-python will compute them: it reuses
            # what the context holds, so the context holds whole blocks only
            tokens = self._prompt_tokens(req.prompt, special=True)
            self._reuse(tokens)
            if self.prompt_format == "chat":
                out = self.llm.create_chat_completion(messages=[{"role": "user", "content": req.prompt}], **kwargs)
                text = out["choices"][0]["message"]["content"] or ""
            else:
                out = self.llm.create_completion(req.prompt, **kwargs)
                text = out["choices"][0]["text"]
            if list(self.llm.input_ids[: len(tokens)]) == tokens:
                self._evaluated(tokens)  # the prompt; its reply's tokens were evaluated one by one
            else:  # not the tokens computed here: reuse nothing of it
                self._whole = 0
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

    # --- perplexity ------------------------------------------------------
    def _sequence_nll(self, tokens: list[int]) -> float:
        """Sum over i = 1..n-1 of -log p(tokens[i] | tokens[:i]), evaluating the
        whole sequence from position 0 (the context's previous content is dropped)."""
        import numpy as np

        llm = self.llm
        n_vocab = llm._n_vocab
        step = max(1, min(PERPLEXITY_BATCH, int(llm.n_batch)))
        llm.reset()
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        nll = 0.0
        for start in range(0, len(tokens), step):
            block = tokens[start:start + step]
            llm._batch.set_batch(batch=block, n_past=start, logits_all=True)
            llm._ctx.decode(llm._batch)
            # keep Llama's bookkeeping true to the KV cache (generate()/_logits_after
            # reuse a common prefix), as Llama.eval does
            llm.input_ids[start:start + len(block)] = block
            llm.n_tokens = start + len(block)
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(len(block), n_vocab))
            targets = np.asarray(tokens[start + 1:start + len(block) + 1], dtype=np.int64)
            for r in range(0, len(targets), _LOGSOFTMAX_ROWS):
                rows = logits[r:r + _LOGSOFTMAX_ROWS][: len(targets) - r].astype(np.float64)
                picked = rows[np.arange(len(rows)), targets[r:r + len(rows)]]
                top = rows.max(axis=1)
                rows -= top[:, None]
                np.exp(rows, out=rows)
                nll += float(np.sum(top + np.log(rows.sum(axis=1)) - picked))
        # the logits held now are not those of the last token alone: make the
        # next generate() decode at least one token before sampling; nothing of
        # it is reused (its blocks asked for every position's logits)
        llm._requires_eval = True
        self._whole = 0
        return nll

    def perplexity(self, texts: Sequence[str]) -> Iterator[PerplexityResult]:
        """See the module docstring for what is scored and the ``n_ctx`` rule."""
        # the configured n_ctx (llama.cpp may round its own context up; Llama's
        # token bookkeeping has the configured size)
        n_ctx = min(int(self.llm.n_ctx()), len(self.llm.input_ids))
        for index, text in enumerate(texts):
            start = time.perf_counter()
            tokens = self._tokens(text, bos=True)
            truncated = max(0, len(tokens) - n_ctx)
            tokens = tokens[:n_ctx]
            nll = self._sequence_nll(tokens) if len(tokens) >= 2 else 0.0
            yield PerplexityResult.from_nll(index, max(0, len(tokens) - 1), nll, time.perf_counter() - start,
                                            truncated)

    def close(self) -> None:
        if hasattr(self.llm, "close"):
            self.llm.close()
