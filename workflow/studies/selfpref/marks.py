"""The self-preference scorecard's significance marks: the paper's daggers
(Tables 1 and 2) beside ours under the configured test, a section of
``scorecard.md`` and ``scorecard_marks.tsv``; :func:`write_selfpref_scorecard`
writes a dataset's scorecard with them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd
from authbench.claims.keys import place_key, rows_from_frame
from authbench.papers import load
from authbench.records import write_frame
from authbench.render.catalog import SCORECARD_MARKS
from authbench.stats import DAGGER
from authbench.studies.keyed import Keyed
from authbench.studies.scorecard import coverage_of, write_paper_scorecard
from authbench.studies.selfpref.keyed import dataset_label, selfpref_reason

MARK_COLUMNS = ("table", "model", "ours", "prompt", "setting", "metric", "published_mark", "our_mark", "agree")


def mark_agreement(label: str, marks: Mapping[tuple, bool], names: Mapping[str, str],
                   published: pd.DataFrame | None = None) -> pd.DataFrame:
    """The paper's significance marks beside ours: every published
    Table 1 perplexity and Table 2 self difference of dataset ``label`` whose
    evaluator is configured (``names``: our model -> paper name) and has a
    mark of ours (``marks``: ``(1, evaluator, "", "")`` or ``(2, evaluator,
    prompt, "TRUE"|"FALSE")`` -> whether our cell carries †), with
    :data:`MARK_COLUMNS`."""
    pub = {r.key: r for r in rows_from_frame(load("selfpref") if published is None else published)}
    rows = []
    for ev, paper in names.items():
        for key, ours in marks.items():
            if key[1] != ev:
                continue
            table, _, prompt, passage = key
            if table == 1:
                parts, metric = {"dataset": label}, "perplexity"
            else:
                parts, metric = {"dataset": label, "author": "self", "passage": passage}, "diff_h_minus_m"
            hit = pub.get(place_key(table, metric, model=paper, prompt=prompt, **parts))
            if hit is not None:
                setting = ";".join(f"{k}={v}" for k, v in parts.items())  # as the 11-column layout wrote it
                theirs = hit.mark == "dagger"
                rows.append({"table": table, "model": paper, "ours": ev, "prompt": prompt, "setting": setting,
                             "metric": metric, "published_mark": DAGGER if theirs else "",
                             "our_mark": DAGGER if ours else "", "agree": "yes" if theirs == ours else "no"})
    return pd.DataFrame(rows, columns=list(MARK_COLUMNS))


def marks_md(frame: pd.DataFrame, test: str) -> str:
    """The scorecard's section on the significance marks."""
    head = f"## Significance marks ({test})\n\n"
    if not len(frame):
        return head + ("No published mark has a counterpart here (no configured evaluator with a paper name, or "
                       "no Table 1 perplexity / Table 2 difference of ours).\n")
    agree = int((frame["agree"] == "yes").sum())
    both = int(((frame["published_mark"] != "") & (frame["our_mark"] != "")).sum())
    neither = agree - both
    ours_only = int(((frame["published_mark"] == "") & (frame["our_mark"] != "")).sum())
    paper_only = int(((frame["published_mark"] != "") & (frame["our_mark"] == "")).sum())
    lines = [head + f"{agree} of {len(frame)} published marks agree with ours under this test ({both} both †, "
             f"{neither} neither); † ours only: {ours_only}; † the paper's only: {paper_only}.", "",
             "| table | model | ours | prompt | setting | metric | paper | ours | agree |", "|" + "---|" * 9]
    for r in frame.to_dict("records"):
        lines.append("| " + " | ".join(str(r[c]) for c in MARK_COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def write_selfpref_scorecard(outdir: str | Path, dataset: str | None, numbers: Sequence[Keyed],
                             params: Mapping[str, Any] | None, marks: Mapping[tuple, bool] | None = None,
                             significance: str = "paired") -> list[Path]:
    """A self-preference dataset's scorecard (Tables 1-9 of that dataset:
    ``numbers``, :func:`authbench.studies.selfpref.keyed.selfpref_keyed`);
    ``marks`` (our Tables 1-2 † marks, :func:`mark_agreement`) beside the
    paper's under ``significance``: a section of ``scorecard.md`` and
    ``scorecard_marks.tsv`` (one row per mark, with the test)."""
    from authbench.stats import SIGNIFICANCE_WORDS

    label = dataset_label(dataset or "")
    names = coverage_of(params, "selfpref", datasets=(label,)).names
    agreement = mark_agreement(label, marks or {}, names)
    paths = write_paper_scorecard(
        outdir, f"self-preference, {label}", "selfpref", range(1, 10), numbers, selfpref_reason, params,
        extra=marks_md(agreement, f"selfpref.significance: {significance}, {SIGNIFICANCE_WORDS[significance]}"),
        datasets=(label,))
    marks_tsv = Path(outdir) / SCORECARD_MARKS
    write_frame(agreement.assign(test=significance), marks_tsv, sep="\t", index=False)
    return paths + [marks_tsv]
