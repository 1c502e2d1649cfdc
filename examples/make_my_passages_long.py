"""Writes examples/selfpref/my_passages_long.csv: released NQ passages
(resources/data/selfpref/, PROVENANCE.md) in long form, one row per passage,
as many teams keep passage data (docs/own-data.md, "Long form";
examples/PROVENANCE.md). Texts, answers and questions are the release's,
unchanged; only the layout and the field names are this file's.

Seven questions: the first five of the writing-style file in the passage
files' order, the one whose Llama writing-style false answer is the gold
("Invertebrates" for "vertebrates": false_answer_is_gold) and the first one
with a failed GPT-3.5 or Llama passage (the release's failure sentence:
generation_failed). Per question, the passages config.yaml's record-wise
NQ mapping reads: the human (Wikipedia) passage true and with each model's
false answer, each model's true and false passage, and, for the
writing-style questions, each model's long and Gen-by-QA passage (true only,
with the false answer the release gives for substitution). Rerun it to get
the same bytes:

    python examples/make_my_passages_long.py
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "resources" / "data" / "selfpref"
OUT = Path(__file__).with_name("selfpref") / "my_passages_long.csv"
FIELDS = ["question_id", "question", "gold", "writer", "is_factual", "style", "passage", "false_answer",
          "false_answer_of"]
FAIL = "Fail to generate a passage that includes the answer string."
WRITERS = {"gpt": "gpt-3.5-turbo", "llama": "llama-2-70b-chat"}  # the release's models (Llama-2-70B-chat)


def _clean(text: str) -> str:
    return " ".join(text.split())


def chosen(gpt: list[dict], llama: list[dict], style: dict[str, dict]) -> list[int]:
    """Indices (in the passage files) of the questions written out, in file order."""
    styled = [i for i, r in enumerate(gpt) if _clean(r["question"]) in style]
    gold = next(i for i in styled if style[_clean(gpt[i]["question"])]["llama_false_ans"] == "Invertebrates")
    failed = next(i for i, (g, m) in enumerate(zip(gpt, llama)) if FAIL in (g["ai_true"].strip(), m["ai_true"].strip()))
    return sorted(set(styled[:5]) | {gold, failed})


def rows(indices: list[int] | None = None) -> list[dict]:
    """The long-form rows of the questions at ``indices`` of the passage files (default: :func:`chosen`)."""
    gpt = json.loads((DATA / "nq_passages_gpt35.json").read_text(encoding="utf-8"))
    llama = json.loads((DATA / "nq_passages_llama.json").read_text(encoding="utf-8"))
    style = {_clean(r["question"]): r for r in json.loads((DATA / "nq_writing_style.json").read_text(encoding="utf-8"))}
    out = []
    for i in chosen(gpt, llama, style) if indices is None else indices:
        g, m = gpt[i], llama[i]
        base = {"question_id": f"NQ-{i:04d}", "question": g["question"], "gold": g["true_answer"]}

        def row(writer, factual, passage, false_answer="", of="", kind="plain"):
            out.append({**base, "writer": writer, "is_factual": "yes" if factual else "no", "style": kind,
                        "passage": passage, "false_answer": false_answer, "false_answer_of": of})

        row("wikipedia", True, g["human_true"])
        row("wikipedia", False, g["human_false"], g["false_answer"], WRITERS["gpt"])
        row("wikipedia", False, m["human_false"], m["false_answer"], WRITERS["llama"])
        for key, rec in (("gpt", g), ("llama", m)):
            row(WRITERS[key], True, rec["ai_true"])
            row(WRITERS[key], False, rec["ai_false"], rec["false_answer"])
        s = style.get(_clean(g["question"]))
        for key in ("gpt", "llama") if s else ():
            for kind in ("long", "qa"):
                row(WRITERS[key], True, s[f"{key}_{kind}"], s[f"{key}_false_ans"], kind=kind)
    return out


def write(path: Path, indices: list[int] | None = None) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows(indices))


if __name__ == "__main__":
    write(OUT)
