"""What the models write back is cleaned by one rule
(``requests.clean_reply``), every cleaning and drop counted, the raw reply
kept. Real replies of the demo's two models are in
``tests/fixtures/selfpref_replies.jsonl`` (how they were recorded:
``tests/fixtures/selfpref_replies.md``)."""

import json
from pathlib import Path

import pytest
from authbench.studies.selfpref.requests import clean_reply, generated_passages

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "selfpref_replies.jsonl"


@pytest.mark.parametrize("kind, reply, text, done", [
    ("false_answer", "Answer: Paris", "Paris", ["label"]),
    ("false_answer", "**False answer:** Lyon", "Lyon", ["label"]),
    ("false_answer", "**Answer**: Lyon.", "Lyon", ["label", "full_stop"]),
    ("false_answer", "Lyon.\nExplanation: Lyon is a city.", "Lyon", ["extra_lines", "full_stop"]),
    ("false_answer", "Sure! Here's a false answer:\n\n\"Lyon\"", "Lyon", ["preamble", "quotes"]),
    ("false_answer", "Lyon", "Lyon", []),
    ("rewrite", "Here is the rewritten passage:\n\nParis is the capital.", "Paris is the capital.", ["preamble"]),
    ("rewrite", "Rewritten passage: Paris is the capital.", "Paris is the capital.", ["label"]),
    ("long", "Passage:\nParis is the capital.\nIt is big.", "Paris is the capital.\nIt is big.", ["preamble"]),
    ("gen_by_qa", "\u201cParis is the capital.\u201d", "Paris is the capital.", ["quotes"]),
    # not a preamble: a first line with more than 15 words, or the only line; colons inside the text stay
    ("rewrite", "Paris: the capital of France, is big.", "Paris: the capital of France, is big.", []),
    ("rewrite", "One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen:\n"
     "Paris.", "One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen:\n"
     "Paris.", []),
    ("rewrite", "Here is the rewritten passage:", "Here is the rewritten passage:", []),
    # quotes only when they enclose the whole text
    ("rewrite", "\"Paris\" is the capital, \"Lyon\" is not.", "\"Paris\" is the capital, \"Lyon\" is not.", []),
    ("false_answer", "", "", []),
])
def test_the_rule_by_hand(kind, reply, text, done):
    assert clean_reply(kind, reply) == (text, done)


def test_generated_passages_count_cleanings_and_drops_and_keep_the_raw_reply():
    questions = [{"qid": "q1", "question": "Capital of France?", "answer": "Paris"},
                 {"qid": "q2", "question": "Capital of Italy?", "answer": "Rome"}]
    requests = [{"request_id": f"{q}:{k}"} for q in ("q1", "q2") for k in ("rewrite", "false_answer")]
    texts = ["Here is the rewritten passage:\nParis is the capital of France.", "Answer: Lyon",
             "Sure, here it is:\nThe capital is Milan.", "Answer: Rome"]
    passages, answers, counts = generated_passages("m", questions, requests, texts)
    assert [(p["pid"], p["text"]) for p in passages] == [("q1:m:normal:T", "Paris is the capital of France."),
                                                         ("q1:m:normal:F", "Lyon is the capital of France.")]
    assert passages[0]["raw"] == texts[0]
    assert answers == [{"qid": "q1", "author": "m", "false_answer": "Lyon", "raw": "Answer: Lyon"}]
    # every cleaning counted by kind, every drop by reason (q2: the rewrite lost the gold; its false answer is it)
    assert counts == {"cleaned_label_false_answer": 2, "cleaned_preamble_rewrite": 2, "false_answer_is_gold": 1,
                      "normal_answer_missing": 1}


def test_real_replies_of_the_demo_models():
    """Each recorded reply cleans to the text written down when it was read."""
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 10 and {r["model"] for r in rows} == {"gemma3-270m", "qwen2.5-coder-0.5b"}
    for r in rows:
        assert clean_reply(r["kind"], r["raw"]) == (r["text"], r["cleanings"]), (r["model"], r["request_id"])
    assert any(r["cleanings"] for r in rows)  # the rule does something on real replies
