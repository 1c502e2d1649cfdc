"""Self-preference requests and judgments: templates, generated passages,
knowledge rows, reranking rows and the generation-phase design."""

from pathlib import Path

import pytest
from authbench.errors import TemplateError
from authbench.studies.selfpref.requests import (
    comparison_requests,
    comparison_rows,
    comparison_settled,
    comparisons,
    evaluator_false_passages,
    first_line,
    generated_passages,
    generation_requests,
    knowledge_answer,
    knowledge_requests,
    knowledge_rows,
    load_template,
    rerank_requests,
    rerank_rows,
    rerank_settled,
)

ROOT = Path(__file__).resolve().parents[4]
PROMPTS = ROOT / "resources" / "prompts" / "selfpref"
DATA = ROOT / "resources" / "data" / "selfpref"
KINDS = ("rewrite", "long", "false_answer", "gen_by_qa", "rerank_normal", "rerank_rag", "generation", "knowledge")


@pytest.mark.parametrize("task", KINDS)
def test_shipped_templates_load(task):
    t = load_template(PROMPTS / f"{task}.yaml", task)
    assert t.task == task


def test_template_for_the_wrong_step_or_fields(tmp_path):
    with pytest.raises(TemplateError, match="is the 'rewrite' prompt, this step needs 'long'"):
        load_template(PROMPTS / "rewrite.yaml", "long")
    bad = tmp_path / "k.yaml"
    bad.write_text("task: knowledge\ntemplate: 'Q: {question} {answer}'\n")
    with pytest.raises(TemplateError, match=r"knowledge template uses \[.answer., .question.\], expected exactly"):
        load_template(bad, "knowledge")


def test_rag_prompt_renders_question_and_passage():
    t = load_template(PROMPTS / "rerank_rag.yaml", "rerank_rag")
    req = rerank_requests({"q1": {"question": "Who?"}}, [{"pid": "q1:h:normal:T", "qid": "q1", "text": "{Braces} ok"}],
                          t, "rag")[0]
    assert req["request_id"] == "q1:h:normal:T:rag" and req["output"] == "hash_rating"
    assert req["prompt"].endswith("Question: Who?\n\nPassage: {Braces} ok")


Q = {"qid": "q1", "question": "Who sang it?", "answer": "Linda Davis"}


def test_generated_passages_keep_substitute_and_drop():
    templates = {k: load_template(PROMPTS / f"{k}.yaml", k) for k in ("rewrite", "long", "false_answer", "gen_by_qa")}
    human = {"q1": {"text": "Linda Davis sang it."}}
    requests = generation_requests([Q], human, templates, ["rewrite", "false_answer", "gen_by_qa", "long"])
    assert [r["request_id"] for r in requests] == ["q1:rewrite", "q1:false_answer", "q1:gen_by_qa", "q1:long"]
    assert "Linda Davis sang it." in requests[0]["prompt"] and "Answer: Linda Davis" in requests[1]["prompt"]
    replies = ["  The song was sung by Linda Davis.\n", "Reba McEntire.\nmore text", "Nobody sang it.",
               "Linda Davis " * 10]
    passages, answers, drops = generated_passages("m", [Q], requests, replies)
    assert answers == [{"qid": "q1", "author": "m", "false_answer": "Reba McEntire", "raw": replies[1]}]
    by_pid = {p["pid"]: p for p in passages}
    assert by_pid["q1:m:normal:T"]["text"] == "The song was sung by Linda Davis."
    assert by_pid["q1:m:normal:F"]["text"] == "The song was sung by Reba McEntire."
    assert by_pid["q1:m:normal:F"]["answer_in"] == "Reba McEntire"
    assert set(by_pid) == {"q1:m:normal:T", "q1:m:normal:F", "q1:m:long:T", "q1:m:long:F"}
    assert by_pid["q1:m:normal:T"]["raw"] == replies[0]
    assert drops == {"qa_answer_missing": 1, "long_under_300_words": 1, "cleaned_extra_lines_false_answer": 1,
                     "cleaned_full_stop_false_answer": 1}


def test_generated_false_answer_equal_to_gold_gives_no_false_passages():
    templates = {k: load_template(PROMPTS / f"{k}.yaml", k) for k in ("rewrite", "false_answer")}
    requests = generation_requests([Q], {"q1": {"text": "x"}}, templates, ["rewrite", "false_answer"])
    passages, answers, drops = generated_passages("m", [Q], requests, ["By Linda Davis.", "Davis"])
    assert [p["factual"] for p in passages] == [True] and answers == []
    assert drops == {"false_answer_is_gold": 1}  # "Davis" is made of the gold's words
    passages, _, drops = generated_passages("m", [Q], requests, ["By Linda Davis.", "\n"])
    assert drops == {"empty_false_answer": 1}


def test_knowledge_rows_levels_and_classes():
    questions = [Q, {"qid": "q2", "question": "?", "answer": "1982"}]
    replies = [["Linda Davis", "January 1982"], ["linda davis", "1982\nbecause"], ["Davis\n", "1983"]]
    tries, levels = knowledge_rows(questions, replies)
    assert [r["request_id"] for r in tries] == ["q1#0", "q2#0", "q1#1", "q2#1", "q1#2", "q2#2"]
    assert [r["correct"] for r in tries] == [True, True, False, True, True, False]  # case-sensitive
    assert levels == [{"qid": "q1", "level": 2, "class": "partial"}, {"qid": "q2", "level": 2, "class": "partial"}]
    _, levels = knowledge_rows([Q], [["Linda Davis"]] * 5)
    assert levels[0]["class"] == "full"
    _, levels = knowledge_rows([Q], [["Reba"]] * 5)
    assert levels[0]["class"] == "no"


def test_knowledge_prompt_is_the_authors():
    """knowledge_openai.py: ``qa_pair['question'] + " Short answer with less than 5 words:"``, nothing else."""
    t = load_template(PROMPTS / "knowledge.yaml", "knowledge")
    question = "who sang does he love me with reba"
    req = knowledge_requests([{"qid": "q1", "question": question}], t)[0]
    assert req["prompt"] == question + " Short answer with less than 5 words:"


def test_knowledge_answer_rederives_the_released_levels():
    """The whole reply is the answer, as the authors judge it: on the released
    GPT-3.5 answers (5,007) it gives back all 1,000 stored levels, case-
    sensitively; the first line alone would change 13, lower-casing 40
    (tests/unit/studies/selfpref/test_answers.py)."""
    import json

    from authbench.studies.selfpref.answers import answer_matches
    from authbench.studies.selfpref.knowledge import group_runs, knowledge_level

    data = json.loads((DATA / "nq_knowledge_gpt35.json").read_text())
    runs = group_runs(data["ai_answers"])

    def levels(pick):
        return [knowledge_level(answer_matches(pick(r["AI_answer"]), r["ground_truth"]) for r in run[-5:])
                for run in runs]

    ours = levels(knowledge_answer)
    assert ours == data["knowledge_level"] and len(ours) == 1000
    assert sum(a != b for a, b in zip(levels(first_line), data["knowledge_level"])) == 13
    assert knowledge_answer("  Linda Davis\n") == "Linda Davis" and knowledge_answer(None) == ""


def _released(name, author):
    from authbench.studies.selfpref.data import import_sources

    src = {"file": str(DATA / name), "question": "question", "answer": "true_answer", "passages": [
        {"author": "human", "text": "human_true", "false_text": "human_false", "false_answer": "false_answer"},
        {"author": author, "text": "ai_true", "false_text": "ai_false", "false_answer": "false_answer"}]}
    return import_sources("nq", [src])[1]


@pytest.mark.parametrize("name, author, made, exact", [("nq_passages_gpt35.json", "gpt35", 1904, 1904),
                                                      ("nq_passages_llama.json", "llama", 1816, 1812)])
def test_evaluator_false_passages_rebuild_the_released_ones(name, author, made, exact):
    """score.py's FALSE passages (the evaluator's false answer replaced into
    every true passage, case-sensitively) rebuild the release's own false
    passages, which were made with the same file's (= that author's) false
    answer: all of them up to whitespace (4 Llama ones differ by the spaces
    around two stored false answers, which the importer strips); the 48 / 92
    questions whose model passage failed have no evaluator false answer."""
    passages = _released(name, author)
    released = {(p["qid"], p["author"]): p["text"] for p in passages if not p["factual"]}
    out, drops = evaluator_false_passages(passages, author)
    new = [p for p in out if not p["factual"]]
    assert len(new) == made and {p["author"] for p in new} == {"human", author}
    assert sum(released[(p["qid"], p["author"])] == p["text"] for p in new) == exact
    assert all(" ".join(released[(p["qid"], p["author"])].split()) == " ".join(p["text"].split()) for p in new)
    assert drops == {"no_evaluator_false_answer": {"gpt35": 48, "llama": 92}[author]}
    assert all(p["pid"].endswith(f":normal:F:{author}") for p in new)
    assert [p for p in out if p["factual"]] == [p for p in passages if p["factual"] and p["variant"] == "normal"]


def test_evaluator_false_passages_rules():
    def p(author, factual, answer, text):
        return {"pid": f"q1:{author}:normal:{'T' if factual else 'F'}", "qid": "q1", "author": author,
                "variant": "normal", "factual": factual, "answer_in": answer, "text": text}

    passages = [p("me", True, "Linda Davis", "Linda Davis sang it."), p("me", False, "Reba", "Reba sang it."),
                p("human", True, "Linda Davis", "It was linda davis, and Linda Davis again."),
                p("other", True, "Linda Davis", "Sung by LINDA DAVIS."),
                p("other", False, "Cy", "Sung by Cy.")]
    out, drops = evaluator_false_passages(passages, "me")
    texts = {x["pid"]: x["text"] for x in out if not x["factual"]}
    # case-sensitive, every exact occurrence (score.py's str.replace); no exact occurrence -> dropped, counted
    assert texts == {"q1:me:normal:F:me": "Reba sang it.", "q1:human:normal:F:me": "It was linda davis, and Reba again."}
    assert drops == {"answer_not_substituted": 1}
    _, drops = evaluator_false_passages(passages, "nobody")
    assert drops == {"no_evaluator_false_answer": 3}


def test_retry_predicates():
    passages = {"a": {"answer_in": "Ann"}, "b": {"answer_in": "Bob"}, "c": {"answer_in": "Ann"}}
    tf = {"self_pid": "a", "other_pid": "b", "order": "self_first"}
    tt = {"self_pid": "a", "other_pid": "c", "order": "other_first"}
    assert comparison_settled(tf, passages, "Answer: Bob; Answer retrieved from which passage: 2")
    assert not comparison_settled(tf, passages, "Answer: Ann or Bob")  # both answers
    assert not comparison_settled(tf, passages, "Answer: Cy")  # neither
    assert not comparison_settled(tf, passages, "")
    assert comparison_settled(tt, passages, "Answer: Ann; Answer retrieved from which passage: 1")
    assert not comparison_settled(tt, passages, "Answer: Ann; Answer retrieved from which passage: 1 and 2")
    assert not comparison_settled(tt, passages, "Answer: Ann")  # no index
    bad = {"x": {"answer_in": ""}, "c": {"answer_in": "Ann"}}
    assert comparison_settled({"self_pid": "x", "other_pid": "c", "order": "self_first"}, bad, "Answer: Ann")
    assert rerank_settled("###3***") and not rerank_settled("###6***") and not rerank_settled("Rating: 3")


def test_rerank_rows_keep_only_well_formed_scores():
    passages = {"p1": {"pid": "p1", "qid": "q1", "author": "human", "variant": "normal", "factual": True}}
    requests = [{"request_id": f"r{i}", "pid": "p1"} for i in range(4)]
    rows = rerank_rows(requests, passages, ["###4***", "Score: ###6***", "###3", ""], "normal", "ev")
    assert [r["score"] for r in rows] == [4, None, None, None]
    assert [r["status"] != "ok" for r in rows] == [False, True, True, True]
    assert rows[0]["evaluator"] == "ev" and rows[0]["author"] == "human"


def _passages(qid="q1"):
    out = []
    for author, answer, false in (("human", "Ann", "Bob"), ("me", "Ann", "Cy"), ("other", "Ann", "Dee")):
        for factual in (True, False):
            a = answer if factual else false
            out.append({"pid": f"{qid}:{author}:normal:{'T' if factual else 'F'}", "qid": qid, "author": author,
                        "variant": "normal", "factual": factual, "answer_in": a, "text": f"{author} says {a}."})
    out.append({"pid": f"{qid}:me:qa:T", "qid": qid, "author": "me", "variant": "qa", "factual": True,
                "answer_in": "Ann", "text": "Ann, by QA."})
    out.append({"pid": f"{qid}:me:long:T", "qid": qid, "author": "me", "variant": "long", "factual": True,
                "answer_in": "Ann", "text": "Ann, at length."})
    return out


def test_main_design_pairs_factuality_and_orders():
    comps = comparisons(["q1"], _passages(), "me", ["human", "other"])
    assert len(comps) == 2 * 4 * 2
    keys = {(c["other_author"], c["self_factual"], c["other_factual"], c["order"]) for c in comps}
    assert len(keys) == 16
    assert comparisons(["q9"], _passages(), "me", ["human"]) == []  # no passages, no pairs


def test_style_design():
    comps = comparisons(["q1"], _passages(), "me", ["human", "other"], style=True)
    assert {(c["variant"], c["other_author"], c["order"]) for c in comps} == {
        ("qa", "human", "self_first"), ("qa", "human", "other_first"),
        ("long", "me:normal", "self_first"), ("long", "me:normal", "other_first")}
    assert all(c["self_factual"] and c["other_factual"] for c in comps)


def test_comparison_rows_map_passage_index_to_self_or_other():
    passages = _passages()
    by_pid = {p["pid"]: p for p in passages}
    template = load_template(PROMPTS / "generation.yaml", "generation")
    comps = [c for c in comparisons(["q1"], passages, "me", ["human"])
             if (c["self_factual"], c["other_factual"]) in ((True, False), (True, True))]
    requests = comparison_requests(comps, {"q1": {"question": "Who?"}}, by_pid, template)
    first = {c["order"]: r for c, r in zip(comps, requests) if not c["other_factual"]}
    assert "Passage 1: me says Ann." in first["self_first"]["prompt"]
    assert "Passage 1: human says Bob." in first["other_first"]["prompt"]
    replies = []
    for c in comps:
        if c["other_factual"]:  # TT: same answers -> the stated index decides
            replies.append("Answer: Ann; Answer retrieved from which passage: 2")
        else:  # TF: different answers -> the answer substring decides
            replies.append("Answer: Bob; Answer retrieved from which passage: 1")
    rows = comparison_rows(comps, requests, by_pid, replies, "ev", {"q1": "full"})
    got = {(r["self_factual"], r["other_factual"], r["order"]): (r["chosen"], r["method"]) for r in rows}
    assert got == {
        (True, True, "self_first"): ("other", "index"), (True, True, "other_first"): ("self", "index"),
        (True, False, "self_first"): ("other", "substring"), (True, False, "other_first"): ("other", "substring"),
    }
    assert {r["knowledge"] for r in rows} == {"full"}
    ambiguous = comparison_rows(comps[:1], requests[:1], by_pid, ["Answer: Ann or Bob"], "ev", None)[0]
    assert ambiguous["chosen"] is None and ambiguous["knowledge"] is None
