"""Expected-score judging: the probability-weighted score ``E[s] = Σ p(s)·s``
beside the argmax score of every score slot of a reply.

A *score slot* is one score value of a reply in a score format
(:data:`SCORE_FORMATS`): ``score`` has one (``"score"``), ``pair_scores``
two (``"A"``, ``"B"``), ``list_scores`` one per listed item (``"0"`` ..
``"n-1"``). Its *distribution* ``p(s)`` is the probability the model put on
each allowed score token ``s`` (the digits 0..9) at the position where the
reply's score token was generated, renormalised over the allowed scores.

What an engine stores per reply (the response record's ``score_probs``, in
the response cache and the cell's responses.jsonl): ``{slot: entry}`` for
every slot of the format, where an entry is either ``{"p": {score: prob},
"mass": m}`` (``p`` renormalised over the allowed scores and rounded to
:data:`PROB_DIGITS` decimals; a score absent from ``p`` had no probability
reported: below the server's ``top_logprobs``; ``mass`` = the probability
the model put on the allowed scores together, before renormalising), or
``{"p": None, "why": reason}`` when the engine has no distribution for the
slot. Reasons (:data:`FALLBACK_REASONS`):

* ``engine_gives_none``: the engine cannot report one on this path (llama.cpp
  with ``constrain_with: gbnf`` or free decoding: llama-cpp-python gives
  logprobs only with ``logits_all``, a context-sized logit buffer);
* ``no_logprobs``: the server's answer carried no logprobs;
* ``not_located``: no generated token carries the slot's score (see below);
* ``tokens_differ_from_text``: the generated tokens, joined, do not parse to
  the reply's value for the slot.

Where the distributions come from:

* llama.cpp slot decoding: the logits at each score slot are read anyway to
  pick the greedy score; ``p`` is their softmax over the allowed score
  tokens (:func:`from_logits`), ``mass`` the same tokens' share of the
  softmax over the whole vocabulary. No extra model call.
* vLLM (``SamplingParams(logprobs=k)``) and OpenAI-compatible servers
  (``logprobs``/``top_logprobs``): per generated token, its text, its
  logprob and the ``k`` most likely alternatives (:class:`Token`). The
  score token of a slot is located by :func:`locate` (one rule for
  constrained and free decoding), and ``p`` is read from its alternatives
  (:func:`token_entry`).

The location rule (:func:`locate`): the candidates are the generated
tokens holding exactly one digit, the slot's parsed score. A candidate is
the slot's score token when replacing its digit by another digit changes
the slot's parsed value to that digit (the parser is re-run on the joined
tokens with the digit swapped), so the token is the one the parsed value
came from, whatever the reply's format (JSON, ``Score: 7``, the last of
several verdicts). The last such token in the reply wins. A score split
over several tokens, or a token holding other digits too (``"10"``,
``"7}1"``), is ``not_located``.

Alternatives at the score token: an alternative counts for score ``o``
when its text, stripped of surrounding whitespace, is the score token's
stripped text with the digit replaced by ``o`` (``" 7"`` and ``"7"`` are
both score 7); several alternatives of one score are summed.

``E[s]`` (:func:`expected_judgment`): per slot with a parsed value,
``Σ_s p(s)·s / Σ_s p(s)`` over the stored ``p``; a slot without a
distribution falls back to its parsed (argmax) value, and the reason is
counted (the judgment's ``expected_fallback``, the manifest's
``expected_scores`` summary, the metrics' ``expected_fallback_rate``).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from authbench.llm.formats import FORMATS, SCORES  # SCORES: the allowed score tokens of every score format (0..9)
from authbench.llm.parse import parse_reply

SCORE_FORMATS = tuple(name for name, f in FORMATS.items() if f.score_slots is not None)
PROB_DIGITS = 6
FALLBACK_REASONS = ("engine_gives_none", "no_logprobs", "not_located", "tokens_differ_from_text")


def wants(output_format: str | None) -> bool:
    """True for the formats whose replies carry scores (:data:`SCORE_FORMATS`)."""
    return output_format in SCORE_FORMATS


def slot_names(output_format: str, n: int | None = None) -> tuple[str, ...]:
    """The score slots of a format (its ``score_slots``), in the order they
    appear in a constrained reply."""
    if not wants(output_format):
        raise ValueError(f"{output_format!r} is not a score format; expected one of {SCORE_FORMATS}")
    return FORMATS[output_format].score_slots(n)


def slot_value(output_format: str, value: Any, slot: str) -> int | None:
    """The parsed (argmax) score of ``slot`` in a parsed ``value`` (keys may be
    ints or strings, as the parser and the judgments file write them)."""
    if value is None or not wants(output_format):
        return None
    got = FORMATS[output_format].read_score(value, slot)
    return got if isinstance(got, int) and not isinstance(got, bool) else None


def unavailable(output_format: str, n: int | None, reason: str) -> dict:
    """Every slot of a format without a distribution, for ``reason``."""
    if reason not in FALLBACK_REASONS:
        raise ValueError(f"unknown reason {reason!r}; expected one of {FALLBACK_REASONS}")
    return {slot: {"p": None, "why": reason} for slot in slot_names(output_format, n)}


def entry(probs: Mapping[str, float]) -> dict:
    """A stored slot entry from unnormalised probabilities per score (zero
    or negative ones dropped): ``p`` renormalised and rounded, ``mass`` the sum."""
    kept = {s: float(p) for s, p in probs.items() if p > 0}
    mass = sum(kept.values())
    if mass <= 0:
        raise ValueError("a distribution needs at least one score with positive probability")
    return {"p": {s: round(p / mass, PROB_DIGITS) for s, p in sorted(kept.items(), key=lambda kv: int(kv[0]))},
            "mass": round(mass, PROB_DIGITS)}


def from_logits(option_logits: Sequence[float], options: Sequence[str], log_normaliser: float | None = None) -> dict:
    """The entry of one slot from the logits of its allowed score tokens;
    ``log_normaliser`` = logsumexp of the logits over the whole vocabulary
    (for ``mass``; without it ``mass`` is 1)."""
    top = max(option_logits)
    weights = [math.exp(x - top) for x in option_logits]
    total = sum(weights)
    out = entry({o: w / total for o, w in zip(options, weights)})
    if log_normaliser is not None:
        out["mass"] = round(math.exp(top + math.log(total) - log_normaliser), PROB_DIGITS)
    else:
        out["mass"] = 1.0
    return out


def expected_of(dist: Mapping[str, float]) -> float:
    """``Σ p(s)·s / Σ p(s)`` over a stored ``p``."""
    total = sum(dist.values())
    if total <= 0:
        raise ValueError(f"distribution {dict(dist)!r} has no mass")
    return sum(p * int(s) for s, p in dist.items()) / total


def expected_judgment(output_format: str, value: Any, score_probs: Mapping | None) -> tuple[Any, dict]:
    """``(expected, fallback)``: ``expected`` has the shape of ``value``
    (a float for ``score``; ``{"A": .., "B": ..}``; ``{"0": .., ...}``, None
    where a slot has no parsed score; None when ``value`` is None) and
    ``fallback`` maps each slot whose ``E[s]`` is its argmax value for want
    of a distribution to the reason."""
    if value is None:
        return None, {}
    probs = score_probs or {}
    scalar = wants(output_format) and not isinstance(value, Mapping)  # ``score``: the value is its slot's score
    names: Iterable[str] = (slot_names(output_format, 1) if scalar
                            else [str(k) for k in value] if isinstance(value, Mapping) else [])
    out: dict[str, float | None] = {}
    fallback: dict[str, str] = {}
    for slot in names:
        v = slot_value(output_format, value, slot)
        if v is None:
            out[slot] = None
            continue
        got = probs.get(slot) or {"p": None, "why": "engine_gives_none"}
        if got.get("p"):
            out[slot] = round(expected_of(got["p"]), PROB_DIGITS)
        else:
            out[slot] = float(v)
            fallback[slot] = got.get("why") or "engine_gives_none"
    return (next(iter(out.values())) if scalar else out), fallback


# --- token-level engines (vLLM, OpenAI-compatible) ---------------------------------

@dataclass(frozen=True)
class Token:
    """One generated token: its text, its logprob and the alternatives the
    engine reported at its position (text -> logprob; the token itself may
    be among them)."""

    text: str
    logprob: float
    top: Mapping[str, float] = field(default_factory=dict)


def _one_digit(text: str) -> int | None:
    """The index of the only digit in ``text``, or None (no digit, or several)."""
    where = [i for i, ch in enumerate(text) if ch in SCORES]
    return where[0] if len(where) == 1 else None


def locate(output_format: str, n: int | None, tokens: Sequence[Token], text: str) -> dict[str, Any]:
    """slot -> index of its score token in ``tokens``, or a reason string
    (``not_located``, ``tokens_differ_from_text``); slots without a parsed
    value are left out. See the module docstring for the rule."""
    texts = [t.text for t in tokens]
    joined = "".join(texts)
    wanted = parse_reply(output_format, text, n).value
    base = parse_reply(output_format, joined, n).value
    starts, pos = [], 0
    for t in texts:
        starts.append(pos)
        pos += len(t)
    out: dict[str, Any] = {}
    for slot in slot_names(output_format, n):
        v = slot_value(output_format, wanted, slot)
        if v is None:
            continue
        if slot_value(output_format, base, slot) != v:
            out[slot] = "tokens_differ_from_text"
            continue
        out[slot] = "not_located"
        other = "0" if v != 0 else "1"
        for i in range(len(texts) - 1, -1, -1):
            j = _one_digit(texts[i])
            if j is None or texts[i][j] != str(v):
                continue
            at = starts[i] + j
            swapped = joined[:at] + other + joined[at + 1:]
            if slot_value(output_format, parse_reply(output_format, swapped, n).value, slot) == int(other):
                out[slot] = i
                break
    return out


def token_entry(token: Token) -> dict:
    """The slot entry read from a located score token's alternatives."""
    stem = token.text.strip()
    j = _one_digit(stem)
    if j is None:
        raise ValueError(f"token {token.text!r} holds no single digit")
    seen = dict(token.top)
    seen.setdefault(token.text, token.logprob)
    probs: Counter = Counter()
    for alt, lp in seen.items():
        a = alt.strip()
        if lp is None or len(a) != len(stem) or a[j] not in SCORES or a[:j] != stem[:j] or a[j + 1:] != stem[j + 1:]:
            continue
        probs[a[j]] += math.exp(float(lp))
    return entry(probs)


def token_distributions(output_format: str, n: int | None, tokens: Sequence[Token] | None, text: str) -> dict:
    """``score_probs`` of one reply of a token-level engine (``tokens`` None:
    the answer had no logprobs)."""
    if not tokens:
        return unavailable(output_format, n, "no_logprobs")
    where = locate(output_format, n, tokens, text)
    out = {}
    for slot in slot_names(output_format, n):
        got = where.get(slot, "not_located")
        out[slot] = token_entry(tokens[got]) if isinstance(got, int) else {"p": None, "why": got}
    return out


# --- summaries -----------------------------------------------------------------------

def summary(judgments: Sequence[Mapping], score_probs: Sequence[Mapping | None]) -> dict | None:
    """The manifest's ``expected_scores`` record of a cell (None when no reply
    asked for distributions): score slots with a parsed value, how many had a
    distribution, the fallbacks by reason, and the mean/min ``mass``."""
    rows = [j for j in judgments if "expected" in j]
    if not rows:
        return None
    slots = fallback = 0
    reasons: Counter = Counter()
    for j in rows:
        exp = j["expected"]
        values = [exp] if not isinstance(exp, Mapping) else list(exp.values())
        slots += sum(v is not None for v in values)
        reasons.update(j.get("expected_fallback", {}).values())
        fallback += len(j.get("expected_fallback", {}))
    masses = [e["mass"] for probs in score_probs if probs for e in probs.values() if e.get("p")]
    return {"score_slots": slots, "from_distribution": slots - fallback, "fallback": dict(sorted(reasons.items())),
            "mass_mean": round(sum(masses) / len(masses), PROB_DIGITS) if masses else None,
            "mass_min": round(min(masses), PROB_DIGITS) if masses else None}


def fallback_rate(judgments: Sequence[Mapping]) -> float | None:
    """Share of the score slots with a parsed value whose ``E[s]`` fell back
    to the argmax (None without expected judgments or slots)."""
    got = summary(judgments, [])
    if not got or not got["score_slots"]:
        return None
    return (got["score_slots"] - got["from_distribution"]) / got["score_slots"]
