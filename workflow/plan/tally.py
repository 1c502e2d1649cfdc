"""Tallying a model's jobs (:func:`tally_job`): which requests the response
cache computes, the sample of them whose tokens are counted, and what they
add up to.

**Deduplication** is exact: every request is keyed as the response cache
keys it, besides the model (prompt, token budget, sampling, constraint:
:meth:`authbench.cells.planned.Batch.keys`, a 64-bit hash; two different
requests share one with probability about ``n^2 / 2^65``, below one in a
million for the paper grid's ten million), and a request an earlier cell of
the same model asked, or an earlier request of the same cell, is served by
the cache (:class:`Dedup`). Models whose jobs were the same so far (the
paper grid's AuthorityBench models) share one set of seen keys.

**Tokens** are counted on a seeded sample of each batch's unique requests
(:mod:`authbench.plan.sample`): each sampled prompt's tokens, and the
tokens a prefix cache reuses after the request sent before it (the
previous unique request in sending order, :func:`authbench.plan.count.reusable`).
Models counted with one vocabulary share the counts (:class:`TokenMemo`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from authbench.llm.formats import FORMATS
from authbench.llm.grammars import slots_for, token_budget
from authbench.cells.planned import Batch
from authbench.plan.count import Tally, reusable
from authbench.plan.sample import extrapolate, sample_positions


@dataclass
class NewRequests:
    """The requests of a batch the cache computes for a model: ``mask`` over
    the batch, ``count`` of them; :meth:`sent` in sending order."""

    mask: np.ndarray
    count: int
    _sent: np.ndarray | None = None

    def sent(self, batch: Batch) -> np.ndarray:
        if self._sent is None:
            order = batch.order()
            self._sent = order[self.mask[order]]
        return self._sent


class Dedup:
    """Per model, the keys of every request it has sent (module docstring).
    Models at the same state that take the same step share the result; a
    state is copied only when its models go different ways."""

    def __init__(self):
        self._at: dict[str, int] = {}
        self._sets: dict[int, set] = {0: set()}
        self._holders: Counter = Counter()
        self._memo: dict[tuple, tuple[int, NewRequests]] = {}
        self._next = 1

    def step(self, steps: Sequence[tuple[str, Any, Callable[[], np.ndarray]]]) -> list[NewRequests]:
        """For each ``(model, signature, keys)`` (signature: what makes two
        models' batches key alike; keys: computed only when needed), the
        batch's new requests, in order."""
        for model, _, _ in steps:
            if model not in self._at:
                self._at[model] = 0
                self._holders[0] += 1
        going = Counter((self._at[m], sig) for m, sig, _ in steps)
        out = []
        for model, sig, keys in steps:
            state = self._at[model]
            hit = self._memo.get((state, sig))
            if hit is None:
                together = state != 0 and going[(state, sig)] == self._holders[state]
                seen = self._sets[state] if together else set(self._sets[state])
                new = _first_unseen(keys(), seen)
                target = self._next
                self._next += 1
                self._sets[target] = seen
                if together:
                    del self._sets[state]
                hit = self._memo[(state, sig)] = (target, new)
            self._holders[state] -= 1
            self._holders[hit[0]] += 1
            self._at[model] = hit[0]
            out.append(hit[1])
        for state in [s for s, n in self._holders.items() if n == 0 and s != 0]:
            del self._holders[state]
            self._sets.pop(state, None)
            for key in [k for k in self._memo if k[0] == state]:
                del self._memo[key]
        return out


def _first_unseen(keys: np.ndarray, seen: set) -> NewRequests:
    """Requests whose key is neither in ``seen`` nor earlier in ``keys``; adds them to ``seen``."""
    mask = np.zeros(len(keys), dtype=bool)
    if len(keys):
        unique, first = np.unique(keys, return_index=True)
        fresh = np.fromiter((k not in seen for k in unique.tolist()), dtype=bool, count=len(unique))
        mask[first[fresh]] = True
        seen.update(unique[fresh].tolist())
    return NewRequests(mask, int(mask.sum()))


class TokenMemo:
    """Per counter, prompt format and reuse rule: each sampled prompt's
    tokens and its reuse after its predecessor, counted once. Jobs ask for
    what they need (:meth:`want`, :meth:`want_all`); :meth:`count` counts it
    all, in ``workers`` processes (:func:`authbench.cells.planned.fork_map`);
    then :meth:`get`. ``immediate``: count at once instead (the exact count,
    whose prompts would not all fit in memory until the end)."""

    def __init__(self, immediate: bool = False):
        self.immediate = immediate
        self._wanted: dict[tuple, tuple] = {}
        self._done: dict[tuple, tuple[int, int]] = {}

    @staticmethod
    def _key(counter, rule, raw, hashes, i, previous) -> tuple:
        return (id(counter.tokenizer), counter.chat, raw, rule, int(hashes[i]),
                None if previous is None or raw else int(hashes[previous]))

    def want(self, counter, rule: tuple[int, int], raw: bool, batch: Batch, i: int, previous: int | None) -> tuple:
        key = self._key(counter, rule, raw, batch.hashes(), i, previous)
        if key not in self._done and key not in self._wanted:
            args = (counter, rule, raw, batch.prompt(i), None if previous is None or raw else batch.prompt(previous))
            if self.immediate:
                self._done[key] = _measure(*args)
            else:
                self._wanted[key] = args
        return key

    def want_all(self, counter, rule: tuple[int, int], raw: bool, batch: Batch, sent: Sequence[int]) -> list[tuple]:
        """Every request of ``sent``, each after the one before it: each prompt tokenized once."""
        hashes = batch.hashes()
        keys = [self._key(counter, rule, raw, hashes, i, p) for p, i in zip([None, *sent[:-1]], sent)]
        if not self.immediate or all(k in self._done for k in keys):
            for p, i in zip([None, *sent[:-1]], sent):
                self.want(counter, rule, raw, batch, i, p)
            return keys
        previous = None
        for key, i in zip(keys, sent):
            tokens = counter.tokens(batch.prompt(i), raw=raw)
            if key not in self._done:
                self._done[key] = (len(tokens), 0 if previous is None or raw else reusable(previous, tokens, *rule))
            previous = tokens
        return keys

    def count(self, workers: int = 1) -> None:
        from authbench.cells.planned import fork_map

        items = list(self._wanted.items())
        self._wanted = {}
        results = fork_map(_measure_item, [args for _, args in items], workers)
        self._done.update(zip((key for key, _ in items), results))

    def get(self, key: tuple) -> tuple[int, int]:
        return self._done[key]


def _measure_item(args: tuple) -> tuple[int, int]:
    return _measure(*args)


def _measure(counter, rule, raw, prompt, previous) -> tuple[int, int]:
    tokens = counter.tokens(prompt, raw=raw)
    reuse = 0
    if previous is not None:
        reuse = reusable(counter.tokens(previous, raw=raw), tokens, *rule)
    return len(tokens), reuse


@dataclass
class ModelContext:
    """What tallying one model's jobs needs: its name, counter, reuse rule
    ``(block, minimum)``, whether slot decoding evaluates its constrained
    replies (the embedded engine), a reply-length function
    ``length(kind, fmt, n, constrained, cap) -> Length`` and the expected
    tries of each job kind."""

    name: str
    counter: Any
    rule: tuple[int, int]
    slots: bool
    length: Callable
    tries: Mapping[str, float] = field(default_factory=dict)


def choice_steps(fmt: str, n: int | None) -> int:
    """Forward passes slot decoding spends on one reply: one per choice with
    more than one option left (literals are appended, a last option is taken)."""
    steps, size = 0, None
    for kind, value in slots_for(fmt, n):
        if kind == "choice" and len(value) > 1:
            steps += 1
        elif kind == "choice_unique":
            size = len(value) if size is None else size - 1
            steps += size > 1
    return steps


@dataclass
class Pending:
    """A job's tally before its tokens are counted: the exact parts in
    ``tally``, and per batch the sample's memo keys, its population and
    what scales it (``tries``; ``perplexity``)."""

    tally: Tally
    samples: list[tuple[list[tuple], int, float, bool]]

    def finish(self, memo: TokenMemo) -> Tally:
        t = self.tally
        for keys, population, tries, perplexity in self.samples:
            tokens, reused = zip(*(memo.get(k) for k in keys)) if keys else ((), ())
            if perplexity:
                t.perplexity += extrapolate(tokens, population)
                continue
            t.prompt += extrapolate(tokens, population).scaled(tries)
            t.reused += extrapolate(reused, population).scaled(tries)
            t.evaluated += extrapolate([a - b for a, b in zip(tokens, reused)], population).scaled(tries)
        self.samples = []
        return t


def tally_job(job, news: Sequence[NewRequests], ctx: ModelContext, memo: TokenMemo, sample: int | None,
              seed: int) -> Pending:
    """One job's :class:`~authbench.plan.count.Tally` (module docstring),
    to :meth:`Pending.finish` once ``memo`` has counted:
    ``news[b]`` are batch ``b``'s requests the cache computes."""
    t = Tally(cells=1)
    pending = Pending(t, [])
    tries = ctx.tries.get(job.kind, 1.0)
    for index, (batch, new) in enumerate(zip(job.batches, news)):
        t.requests += len(batch)
        t.unique += new.count
        if not new.count:
            continue
        sent = new.sent(batch)
        # each batch of a job its own draw (a knowledge cell's tries send the same prompts: one shared draw
        # would make their estimates move together, and their variances would not add)
        positions = sample_positions(new.count, sample, seed, batch.name, index)
        t.counted += len(positions)
        if len(positions) == new.count and memo.immediate:
            keys = memo.want_all(ctx.counter, ctx.rule, job.perplexity, batch, sent.tolist())
        else:
            keys = [memo.want(ctx.counter, ctx.rule, job.perplexity, batch, int(sent[p]),
                              int(sent[p - 1]) if p else None) for p in positions]
        pending.samples.append((keys, new.count, 1.0 if job.perplexity else tries, job.perplexity))
        if job.perplexity:
            t.sent += new.count
            continue
        t.sent += new.count * tries
        cap = batch.generate.max_tokens
        for (fmt, n), count in batch.output_counts(sent).items():
            budget = token_budget(fmt, n, batch.constrained, cap)
            length = ctx.length(job.kind, fmt, n, batch.constrained, cap).capped(budget)
            t.completion_budget += count * budget * tries
            t.completion += count * length.mean * tries
            t.completion_p95 += count * length.p95 * tries
            if ctx.slots and batch.constrained and FORMATS[fmt].slots is not None:
                t.choice_steps += count * choice_steps(fmt, n) * tries
            else:
                t.decoded += count * length.mean * tries
    return pending


def batch_signature(batch: Batch) -> tuple:
    """What makes two batches key alike: the same requests, sampling and constraint."""
    return (batch._cache["serial"], tuple(sorted(batch.generate.__dict__.items())), batch.constrained)
