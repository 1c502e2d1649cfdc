"""The release's per-passage GPT-2 perplexities (``results/<dataset>_perplexity.json``
of Chen et al.'s release: ``{"human": [...], "gpt": [...], "llama": [...]}``)
read as data.

A dataset names its file and which of its keys is which author
(``selfpref.datasets.<name>.released_perplexity``: ``file``, ``authors``: key
of the file -> author id, ``order``). :func:`read_released_perplexity` reads
it (a named error for a missing key or a value that is not a positive finite
number); Table 1 shows each author's released mean beside ours and the
scorecard compares it with the paper's Perplexity column (data rows).

``order`` says which passage each value belongs to: ``unknown`` (nothing is
compared per passage) or ``questions`` (value i = the normal TRUE passage of
the dataset's i-th question, ``questions.jsonl`` order). The release does not
state the order; docs/decisions/released-knowledge-runs.md ("Released perplexities") says how it was
checked: MARCO's lists follow ``marco_both_true.json`` (the one repeated human
passage has the same value at the same two positions; perplexity falls with
length as expected), NQ's do not follow ``nq_passages_*.json`` (none of the 21
repeated human passages has equal values at its positions).
:func:`per_passage` compares them with our own perplexities only when our
perplexity model is GPT-2 and the order is ``questions``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Mapping, Sequence

from authbench.errors import InputError, excerpt
from authbench.records import read_utf8

__all__ = ["ORDERS", "PER_PASSAGE_COLUMNS", "is_gpt2", "read_released_perplexity", "released_means", "per_passage"]

ORDERS = ("unknown", "questions")
PER_PASSAGE_COLUMNS = ("author", "status", "n", "released_mean", "ours_mean", "pearson", "spearman",
                       "mean_abs_diff")
GPT2_NAMES = {"gpt2", "openai-community/gpt2"}


def is_gpt2(model: str | None) -> bool:
    """Whether a model name (a ``models:`` key or its hub id) is GPT-2 (124M)."""
    return model is not None and (str(model) in GPT2_NAMES or str(model).lower() == "gpt2")


def read_released_perplexity(path: str | Path, authors: Mapping[str, str]) -> dict[str, list[float]]:
    """The released perplexities as ``{author id: [value, ...]}`` (the file's
    order). ``authors``: key of the file -> author id. Raises
    :class:`InputError` naming the file, key and index for a file that is
    not an object of lists, a missing key or a value that is not a positive
    finite number."""
    path = Path(path)
    text = read_utf8(path, "a JSON object of perplexity lists")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: line {err.lineno}, column {err.colno}: invalid JSON ({err.msg}); expected an "
                         "object of perplexity lists") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object of perplexity lists, got {type(data).__name__}")
    out: dict[str, list[float]] = {}
    for key, author in authors.items():
        if key not in data:
            raise InputError(f"{path}: key '{key}' (author {author}) is missing; expected one of the file's keys "
                             f"{sorted(data)}")
        values = data[key]
        if not isinstance(values, list) or not values:
            raise InputError(f"{path}: key '{key}': expected a non-empty list of perplexities, got {excerpt(values)}")
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                raise InputError(f"{path}: key '{key}', value {i}: expected a positive finite number, got "
                                 f"{excerpt(v)}")
        out[author] = [float(v) for v in values]
    return out


def released_means(released: Mapping[str, Sequence[float]]) -> dict[str, float]:
    return {a: sum(v) / len(v) for a, v in released.items() if v}


def per_passage(released: Mapping[str, Sequence[float]], perplexity_rows: Sequence[Mapping],
                qids: Sequence[str], order: str, model: str | None) -> list[dict]:
    """Per released author, our perplexity of each passage beside the
    released one (Pearson, Spearman, mean |difference|), or the reason it is
    not compared (``status``): our model is not GPT-2, or the order is not
    established. ``qids``: the dataset's questions in order (``order:
    questions``: value i is the normal TRUE passage ``<qids[i]>:<author>:normal:T``)."""
    from scipy.stats import pearsonr, spearmanr

    out = []
    ours = {str(r["pid"]): float(r["perplexity"]) for r in perplexity_rows
            if r.get("perplexity") is not None and math.isfinite(float(r["perplexity"]))}
    for author, values in released.items():
        row = {"author": author, "status": "", "n": 0, "released_mean": sum(values) / len(values),
               "ours_mean": math.nan, "pearson": math.nan, "spearman": math.nan, "mean_abs_diff": math.nan}
        if order != "questions":
            row["status"] = f"not compared: the released list's passage order is {order} (released_perplexity.order)"
        elif not is_gpt2(model):
            row["status"] = f"not compared: our perplexity model ({model or 'none'}) is not GPT-2"
        else:
            pairs = [(v, ours[pid]) for v, qid in zip(values, qids)
                     if (pid := f"{qid}:{author}:normal:T") in ours]
            row["n"] = len(pairs)
            if len(pairs) >= 3:
                a, b = [p[0] for p in pairs], [p[1] for p in pairs]
                row.update(status="compared", ours_mean=sum(b) / len(b), pearson=float(pearsonr(a, b)[0]),
                           spearman=float(spearmanr(a, b)[0]),
                           mean_abs_diff=sum(abs(x - y) for x, y in pairs) / len(pairs))
            else:
                row["status"] = f"not compared: {len(pairs)} passages with both perplexities (need 3)"
        out.append(row)
    return out
