"""Expected-score judging (E[s] = Σ p(s)·s beside the argmax): the arithmetic
against hand-computed values, the rule that finds a score token among
generated tokens, the OpenAI engine against loopback servers answering in the
chat-completions and completions logprobs formats, the instant engine, the
runner and cache (keys unchanged; a reply cached without distributions is
computed once more), the E[s] metric rows and their table. The llama.cpp slot
path with the real embedded model: tests/workflow/test_expected_real_model.py."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from authbench.config import GenerateConfig
from authbench.llm import expected as E
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.grammars import grammar_for, slots_for
from authbench.studies.authority.evaluate import METRIC_COLUMNS, evaluate_cell, evaluate_expected
from loopback import Loopback, Reply
from scipy import stats

ln = math.log


# --- arithmetic -------------------------------------------------------------------

def test_expected_of_hand_computed():
    assert E.expected_of({"2": 0.5, "3": 0.25, "7": 0.25}) == pytest.approx(3.5)  # 1 + 0.75 + 1.75
    assert E.expected_of({"0": 0.2, "9": 0.6}) == pytest.approx(5.4 / 0.8)  # renormalised: 6.75
    with pytest.raises(ValueError):
        E.expected_of({"4": 0.0})


def test_from_logits_is_the_softmax_over_the_allowed_scores():
    # logits 0, ln 2, ln 3 for scores 0, 1, 2: p = 1/6, 2/6, 3/6; one more vocabulary token at ln 4
    got = E.from_logits([0.0, ln(2), ln(3)], ["0", "1", "2"], log_normaliser=ln(1 + 2 + 3 + 4))
    assert got["p"] == {"0": pytest.approx(1 / 6, abs=1e-6), "1": pytest.approx(2 / 6, abs=1e-6),
                        "2": pytest.approx(3 / 6, abs=1e-6)}
    assert got["mass"] == pytest.approx(0.6)
    assert E.expected_of(got["p"]) == pytest.approx(8 / 6, abs=1e-5)
    assert E.from_logits([1.0, 1.0], ["3", "5"])["mass"] == 1.0


def test_expected_judgment_shapes_and_fallbacks():
    probs = {"A": {"p": {"2": 0.5, "4": 0.5}, "mass": 0.9}, "B": {"p": None, "why": "not_located"}}
    got, fallback = E.expected_judgment("pair_scores", {"A": 2, "B": 6}, probs)
    assert got == {"A": 3.0, "B": 6.0} and fallback == {"B": "not_located"}
    got, fallback = E.expected_judgment("score", 7, {"score": {"p": {"7": 0.8, "9": 0.2}, "mass": 1.0}})
    assert got == pytest.approx(7.4) and fallback == {}
    # a list slot without a parsed score stays None and is no fallback; no value at all -> None
    got, fallback = E.expected_judgment("list_scores", {"0": 1, "1": None}, E.unavailable("list_scores", 2, "no_logprobs"))
    assert got == {"0": 1.0, "1": None} and fallback == {"0": "no_logprobs"}
    assert E.expected_judgment("score", None, {}) == (None, {})
    with pytest.raises(ValueError):
        E.unavailable("score", None, "because")


def test_summary_and_fallback_rate():
    judgments = [{"expected": {"A": 3.0, "B": 6.0}, "expected_fallback": {"B": "not_located"}},
                 {"expected": {"A": 1.5, "B": None}, "expected_fallback": {}}]
    probs = [{"A": {"p": {"2": 1.0}, "mass": 0.9}, "B": {"p": None, "why": "not_located"}},
             {"A": {"p": {"1": 1.0}, "mass": 0.5}}]
    assert E.summary(judgments, probs) == {"score_slots": 3, "from_distribution": 2, "fallback": {"not_located": 1},
                                           "mass_mean": 0.7, "mass_min": 0.5}
    assert E.fallback_rate(judgments) == pytest.approx(1 / 3)
    assert E.summary([{"value": 3}], []) is None and E.fallback_rate([{"value": 3}]) is None


# --- locating the score token -------------------------------------------------------

def toks(*parts):
    """Tokens from (text, logprob, {alt: logprob}) or plain text (logprob 0, no alternatives)."""
    return [E.Token(p, 0.0, {}) if isinstance(p, str) else E.Token(p[0], p[1], p[2]) for p in parts]


def test_constrained_json_score_with_whitespace_variants_pooled():
    seven = ("7", ln(0.5), {"7": ln(0.5), "8": ln(0.25), " 8": ln(0.05), "3": ln(0.1), "x": ln(0.05), "10": ln(0.05)})
    tokens = toks(' {"', "score", '":', " ", seven, "}")
    text = ' {"score": 7}'
    assert E.locate("score", None, tokens, text) == {"score": 4}
    got = E.token_distributions("score", None, tokens, text)["score"]
    # 7: .5, 8: .25 + .05 (" 8" is the same score), 3: .1; "x" and "10" are no score tokens
    assert got["mass"] == pytest.approx(0.9)
    assert got["p"] == {"3": pytest.approx(0.1 / 0.9, abs=1e-6), "7": pytest.approx(0.5 / 0.9, abs=1e-6),
                        "8": pytest.approx(0.3 / 0.9, abs=1e-6)}
    assert E.expected_of(got["p"]) == pytest.approx(6.2 / 0.9, abs=1e-5)


def test_free_text_binds_to_the_last_verdict():
    tokens = toks("Example", ':', ' {"', "score", '":', " ", ("5", ln(0.9), {"5": ln(0.9), "6": ln(0.1)}), "}.",
                  " Answer", ':', ' {"', "score", '":', ("7", ln(0.6), {"7": ln(0.6), "2": ln(0.4)}), "}")
    text = "".join(t.text for t in tokens)
    assert E.locate("score", None, tokens, text) == {"score": 13}
    got = E.token_distributions("score", None, tokens, text)["score"]
    assert E.expected_of(got["p"]) == pytest.approx(0.6 * 7 + 0.4 * 2)
    # a loose "Score: 4" (wrong_format, value 4) is located as well
    loose = toks("Score", ":", " ", ("4", ln(0.5), {"4": ln(0.5), "9": ln(0.5)}))
    assert E.expected_of(E.token_distributions("score", None, loose, "Score: 4")["score"]["p"]) == pytest.approx(6.5)


def test_list_scores_values_not_keys():
    # {"0": 2, "1": 2, "2": 1}: the digit 2 is a key, a value of slot 0 and of slot 1
    tokens = toks('{"', "0", '":', " ", ("2", 0.0, {"3": ln(0.5)}), ',', ' "', "1", '":', " ",
                  ("2", ln(0.5), {"2": ln(0.5), "0": ln(0.5)}), ',', ' "', "2", '":', " ", ("1", 0.0, {}), "}")
    text = "".join(t.text for t in tokens)
    assert E.locate("list_scores", 3, tokens, text) == {"0": 4, "1": 10, "2": 16}
    got = E.token_distributions("list_scores", 3, tokens, text)
    assert got["0"]["p"] == {"2": pytest.approx(1 / 1.5, abs=1e-6), "3": pytest.approx(0.5 / 1.5, abs=1e-6)}
    assert E.expected_of(got["1"]["p"]) == pytest.approx(1.0) and got["2"]["p"] == {"1": 1.0}


def test_fallback_reasons():
    # the score's digit shares its token with another digit: not located
    tokens = toks('{"score": 7, "max": 9}')
    assert E.token_distributions("score", None, tokens, tokens[0].text) == {
        "score": {"p": None, "why": "not_located"}}
    # the tokens do not add up to the reply
    assert E.token_distributions("score", None, toks('{"score": ', "3", "}"), '{"score": 8}') == {
        "score": {"p": None, "why": "tokens_differ_from_text"}}
    assert E.token_distributions("pair_scores", None, None, '{"A": 1, "B": 2}') == {
        "A": {"p": None, "why": "no_logprobs"}, "B": {"p": None, "why": "no_logprobs"}}


# --- the OpenAI-compatible engine against loopback servers ----------------------------

def _top(alts):
    return [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in alts.items()]


def chat_answer(parts, usage=True):
    """A chat.completion answer with logprobs in the API's format: parts = (token, logprob, {alt: logprob})."""
    content = "".join(p[0] for p in parts)
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": None},
                         "logprobs": {"content": [{"token": t, "logprob": lp, "bytes": list(t.encode()),
                                                   "top_logprobs": _top(alts)} for t, lp, alts in parts],
                                      "refusal": None},
                         "finish_reason": "stop"}]}
    if usage:
        body["usage"] = {"prompt_tokens": 30, "completion_tokens": len(parts), "total_tokens": 30 + len(parts)}
    return body


def completion_answer(parts):
    """A text_completion answer with the legacy logprobs object (tokens, token_logprobs, top_logprobs, text_offset)."""
    text, offsets, pos = "", [], 0
    for t, _, _ in parts:
        offsets.append(pos)
        pos += len(t)
        text += t
    return {"id": "cmpl-1", "object": "text_completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "text": text, "finish_reason": "stop",
                         "logprobs": {"tokens": [p[0] for p in parts], "token_logprobs": [p[1] for p in parts],
                                      "top_logprobs": [dict(p[2]) for p in parts], "text_offset": offsets}}],
            "usage": {"prompt_tokens": 30, "completion_tokens": len(parts), "total_tokens": 30 + len(parts)}}


def plain(t):
    return (t, -0.001, {t: -0.001})


def openai_engine(url, prompt_format, **openai):
    return create_engine({"engine": "openai", "model": "m", "prompt_format": prompt_format,
                          "openai": {"base_url": url + "/v1", **openai}}, None)


def test_openai_chat_logprobs():
    seven = ("7", ln(0.5), {"7": ln(0.5), "8": ln(0.25), "3": ln(0.1), "x": ln(0.05)})
    answer = chat_answer([plain('{"'), plain("score"), plain('":'), plain(" "), seven, plain("}")])
    with Loopback(lambda s: Reply(200, answer)) as srv:
        eng = openai_engine(srv.url, "chat", top_logprobs=5)
        reqs = [Request("s", "rate", 12, output="score", score_probs=True),
                Request("plain", "rate", 12, output="score"),
                Request("rank", "rank", 12, output="ranking", n=3, score_probs=True)]
        out = list(eng.generate(reqs, GenerateConfig()))
    sent = [json.loads(s.body) for s in srv.seen]
    asked = [b for b in sent if "logprobs" in b]
    # asked once: not for the request without score_probs, nor for a ranking (no score format)
    assert len(asked) == 1 and asked[0]["top_logprobs"] == 5 and asked[0]["logprobs"] is True
    assert out[0].text == '{"score": 7}'
    p = out[0].score_probs["score"]["p"]
    assert E.expected_of(p) == pytest.approx((0.5 * 7 + 0.25 * 8 + 0.1 * 3) / 0.85, abs=1e-5)
    assert out[0].score_probs["score"]["mass"] == pytest.approx(0.85)
    assert out[1].score_probs is None and out[2].score_probs is None


def test_openai_completions_logprobs_pair_scores():
    parts = [plain(' {"'), plain("A"), plain('":'), plain(" "), ("2", ln(0.6), {"2": ln(0.6), "1": ln(0.2), "9": ln(0.2)}),
             plain(","), plain(' "'), plain("B"), plain('":'), plain(" "), ("6", ln(0.7), {"6": ln(0.7), " 7": ln(0.1)}),
             plain("}")]
    with Loopback(lambda s: Reply(200, completion_answer(parts))) as srv:
        eng = openai_engine(srv.url, "completion")
        (resp,) = eng.generate([Request("p", "compare", 16, grammar=grammar_for("pair_scores"),
                                        output="pair_scores", score_probs=True)], GenerateConfig())
    body = json.loads(srv.seen[0].body)
    assert body["logprobs"] == 20 and "top_logprobs" not in body  # the completions API: logprobs = k
    got, fallback = E.expected_judgment("pair_scores", {"A": 2, "B": 6}, resp.score_probs)
    assert got == {"A": pytest.approx(3.2), "B": pytest.approx((0.7 * 6 + 0.1 * 7) / 0.8)} and fallback == {}


def test_openai_answer_without_logprobs_falls_back():
    answer = {"id": "c", "object": "chat.completion", "model": "m",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"A": 3, "B": 5}'},
                           "finish_reason": "stop"}]}
    with Loopback(lambda s: Reply(200, answer)) as srv:
        (resp,) = openai_engine(srv.url, "chat").generate(
            [Request("p", "compare", 16, output="pair_scores", score_probs=True)], GenerateConfig())
    assert resp.score_probs == E.unavailable("pair_scores", None, "no_logprobs")
    assert E.expected_judgment("pair_scores", {"A": 3, "B": 5}, resp.score_probs) == (
        {"A": 3.0, "B": 5.0}, {"A": "no_logprobs", "B": "no_logprobs"})
    with pytest.raises(ValueError, match="top_logprobs"):
        openai_engine("http://127.0.0.1:9", "chat", top_logprobs=50)


# --- the instant engine, the runner and the cache ---------------------------------------

def _requests(n=4):
    reqs = [{"request_id": f"point:{i}", "prompt": f"rate domain {i}", "output": "score", "n": None} for i in range(n)]
    reqs.append({"request_id": "pair:0", "prompt": "compare a b", "output": "pair_scores", "n": None})
    reqs.append({"request_id": "list:0", "prompt": "score the list", "output": "list_scores", "n": 5})
    reqs.append({"request_id": "rank:0", "prompt": "rank the list", "output": "ranking", "n": 5})
    return reqs


def test_instant_distributions_are_deterministic_and_peak_at_the_reply():
    engine = create_engine({"engine": "instant", "model": "rehearsal"}, None)
    for fmt, n in (("score", None), ("pair_scores", None), ("list_scores", 10)):
        reqs = [Request(f"r{i}", f"prompt {i}", 64, slots=slots_for(fmt, n), output=fmt, n=n, score_probs=True)
                for i in range(5)]
        first = list(engine.generate(reqs, GenerateConfig()))
        assert [r.score_probs for r in first] == [r.score_probs for r in engine.generate(reqs, GenerateConfig())]
        from authbench.llm.parse import parse_reply

        for resp in first:
            value = parse_reply(fmt, resp.text, n).value
            for slot, got in resp.score_probs.items():
                assert max(got["p"], key=got["p"].get) == str(E.slot_value(fmt, value, slot))
                assert sum(got["p"].values()) == pytest.approx(1.0, abs=1e-5) and got["p"][str(E.slot_value(fmt, value, slot))] == 0.5


def test_runner_keys_unchanged_and_cached_replies_upgraded(tmp_path):
    from authbench.llm.cache import ResponseCache, model_identity
    from authbench.llm.runner import parse_responses, generate_replies

    model_config = {"engine": "instant", "model": "rehearsal"}
    model = model_identity(model_config)
    eng = create_engine(model_config, None)
    reqs = _requests()
    gen = GenerateConfig()

    def run(flag):
        return generate_replies(reqs, eng, gen, True, cache=ResponseCache(tmp_path, writer="t"), model=model,
                        expected_scores=flag)

    argmax, s1 = run(False)
    assert s1.engine_calls == 7 and s1.recomputed is None
    assert all(r.score_probs is None for r in argmax)
    plain_rows = parse_responses(reqs, argmax)
    assert all("expected" not in j for j in plain_rows)
    with_e, s2 = run(True)
    # the 6 score replies are computed again (their cached copies lack distributions); the ranking is a hit
    assert (s2.cache_hits, s2.engine_calls, s2.recomputed) == (1, 6, 6)
    assert [r.text for r in with_e] == [r.text for r in argmax]
    assert [r.score_probs is not None for r in with_e] == [True] * 6 + [False]
    again, s3 = run(True)
    assert (s3.cache_hits, s3.engine_calls, s3.recomputed) == (7, 0, 0)
    assert [r.score_probs for r in again] == [r.score_probs for r in with_e]
    back, s4 = run(False)  # a record with distributions serves a request that does not ask
    assert (s4.cache_hits, s4.engine_calls) == (7, 0) and all(r.score_probs is None for r in back)
    rows = parse_responses(reqs, with_e)
    assert [{k: v for k, v in j.items() if k not in ("expected", "expected_fallback")} for j in rows] == plain_rows
    point = rows[0]
    assert point["expected"] == pytest.approx(E.expected_of(with_e[0].score_probs["score"]["p"]), abs=1e-6)
    assert point["expected_fallback"] == {} and "expected" not in rows[-1]
    assert set(rows[5]["expected"]) == {"0", "1", "2", "3", "4"}


def test_engine_without_distributions_is_recorded_as_such(tmp_path):
    """An engine that returns none (llama.cpp with gbnf / free decoding) is filled with
    engine_gives_none: E[s] = the argmax, every slot counted."""
    from authbench.llm.engines.base import Engine, Response
    from authbench.llm.runner import parse_responses, generate_replies

    class Bare(Engine):
        def identity(self):
            return {"engine": "bare"}

        def generate(self, requests, config):
            for r in requests:
                yield Response(r.id, ' {"A": 4, "B": 1}', 1, 1, 0.0, "stop")

    reqs = [{"request_id": "p", "prompt": "x", "output": "pair_scores", "n": None}]
    responses, _ = generate_replies(reqs, Bare(), GenerateConfig(), True, expected_scores=True)
    assert responses[0].score_probs == E.unavailable("pair_scores", None, "engine_gives_none")
    (row,) = parse_responses(reqs, responses)
    assert row["expected"] == {"A": 4.0, "B": 1.0} and row["expected_fallback"] == {
        "A": "engine_gives_none", "B": "engine_gives_none"}


# --- evaluation rows and the table -------------------------------------------------------

def lst(iid, levels):
    return {"instance_id": iid, "items": [{"domain": f"{iid}-d{i}.com", "level": lv, "coarse": lv // 2,
                                           "category": None} for i, lv in enumerate(levels)]}


def by_key(rows):
    return {(r["derivation"], r["difficulty"], r["metric"]): r for r in rows}


def test_expected_rows_break_ties_and_constant_lists():
    a, b = lst("fine-0", [0, 5, 9]), lst("fine-1", [2, 7, 4])
    judg = [{"request_id": "fine-0", "status": "ok", "value": {"0": 4, "1": 4, "2": 4},  # constant
             "expected": {"0": 3.2, "1": 4.1, "2": 4.0}},
            {"request_id": "fine-1", "status": "ok", "value": {"0": 1, "1": 8, "2": 5},
             "expected": {"0": 1.5, "1": 7.9, "2": 5.2}}]
    argmax = by_key(evaluate_cell("list_score", "fine", [a, b], judg))
    exp = by_key(evaluate_expected("list_score", "fine", [a, b], judg))
    assert argmax[("direct", "all", "rho")]["n_constant"] == 1 and exp[("expected", "all", "rho")]["n_constant"] == 0
    rho_a = stats.spearmanr([0, 5, 9], [3.2, 4.1, 4.0]).statistic  # 0.5
    rho_b = stats.spearmanr([2, 7, 4], [1.5, 7.9, 5.2]).statistic  # 1.0
    assert exp[("expected", "all", "rho")]["value"] == pytest.approx((rho_a + rho_b) / 2) == pytest.approx(0.75)
    assert argmax[("direct", "all", "rho")]["value"] == pytest.approx(0.5)  # the constant list counts 0
    # other judges and judgments without E[s] give no rows; a mixed file is a named error
    assert evaluate_expected("list_rank", "fine", [a], judg) == []
    assert evaluate_expected("list_score", "fine", [a], [{k: v for k, v in judg[0].items() if k != "expected"}]) == []
    with pytest.raises(ValueError, match="1 of 2 judgments"):
        evaluate_expected("list_score", "fine", [a, b], [judg[0], {k: v for k, v in judg[1].items() if k != "expected"}])


def test_expected_rows_on_pairs_and_pair_score_lists():
    pairs = [{"instance_id": "easy-0", "difficulty": "easy", "items": [{"domain": "a", "level": 8}, {"domain": "b", "level": 1}]},
             {"instance_id": "hard-0", "difficulty": "hard", "items": [{"domain": "c", "level": 3}, {"domain": "d", "level": 4}]}]
    point = [{"request_id": "point:a", "status": "ok", "value": 5, "expected": 5.3},
             {"request_id": "point:b", "status": "ok", "value": 5, "expected": 4.9},  # tie -> wrong; E breaks it
             {"request_id": "point:c", "status": "ok", "value": 6, "expected": 5.1},
             {"request_id": "point:d", "status": "wrong_format", "value": 2, "expected": 2.0}]
    argmax = by_key(evaluate_cell("point", "pairs", pairs, point))
    exp = by_key(evaluate_expected("point", "pairs", pairs, point))
    assert argmax[("direct", "easy", "acc")]["value"] == 0.0 and exp[("expected", "easy", "acc")]["value"] == 1.0
    # strict: the failed reply of d contributes nothing in either (c scored, d not -> wrong)
    assert exp[("expected", "hard", "acc")]["value"] == 0.0
    assert by_key(evaluate_expected("point", "pairs", pairs, point, "lenient"))[("expected", "hard", "acc")]["value"] == 0.0
    inst = lst("coarse-0", [0, 2, 4])
    judg = [{"request_id": "coarse-0:0-1", "status": "ok", "value": {"A": 3, "B": 3}, "expected": {"A": 2.6, "B": 3.4}},
            {"request_id": "coarse-0:2-1", "status": "ok", "value": {"A": 6, "B": 6}, "expected": {"A": 6.2, "B": 5.8}},
            {"request_id": "coarse-0:0-2", "status": "ok", "value": {"A": 1, "B": 7}, "expected": {"A": 1.1, "B": 6.9}}]
    rows = by_key(evaluate_expected("pair_score", "coarse", [inst], judg))
    assert set(rows) == {("average_expected", "all", "rho"), ("average_expected", "all", "tau"),
                         ("bubble_expected", "all", "rho"), ("bubble_expected", "all", "tau"),
                         ("bt_expected", "all", "rho"), ("bt_expected", "all", "tau")}
    # AverageScore: item0 (2.6+1.1)/2 = 1.85, item1 (3.4+5.8)/2 = 4.6, item2 (6.2+6.9)/2 = 6.55 -> the true order
    assert rows[("average_expected", "all", "rho")]["value"] == pytest.approx(1.0)
    assert rows[("bubble_expected", "all", "rho")]["value"] == pytest.approx(1.0)


def test_table_expected():
    from authbench.studies.authority.expected_table import table_expected

    a, b = lst("fine-0", [0, 5, 9]), lst("fine-1", [2, 7, 4])
    judg = [{"request_id": "fine-0", "status": "ok", "value": {"0": 4, "1": 4, "2": 4},
             "expected": {"0": 3.2, "1": 4.1, "2": 4.0}},
            {"request_id": "fine-1", "status": "ok", "value": {"0": 1, "1": 8, "2": 5},
             "expected": {"0": 1.5, "1": 7.9, "2": 5.2}}]
    ident = {"benchmark": "domainauth", "model": "m", "context": "wo_text", "parse_failure_rate": 0.0}
    rows = [{**ident, **r} for r in evaluate_cell("list_score", "fine", [a, b], judg)]
    rows += [{**ident, **r, "expected_fallback_rate": 0.25} for r in evaluate_expected("list_score", "fine", [a, b], judg)]
    rows += [{**ident, **r} for r in evaluate_cell("list_rank", "fine", [a], [{"request_id": "fine-0", "status": "ok",
                                                                              "value": [2, 1, 0]}])]
    metrics = pd.DataFrame(rows)
    for col in (*METRIC_COLUMNS, "expected_fallback_rate"):
        if col not in metrics:
            metrics[col] = None
    spec = table_expected(metrics, "domainauth")
    assert list(spec.entries.index.get_level_values("Judge")) == ["ListJudge PointScore", "ListJudge PointScore E[s]"]
    values = spec.values
    assert list(values[("fine", "ρ")]) == [50.0, 75.0]
    assert list(values[("fine", "constant lists")]) == [1.0, 0.0]
    assert math.isnan(values[("", "fallback%")].iloc[0]) and values[("", "fallback%")].iloc[1] == 25.0
    assert ("coarse", "ρ") not in values.columns and not any(c[0] == "pairs" for c in values.columns)
    # EntityAuth stacks one such table per domain; a benchmark without E[s] rows gives the placeholder row
    from authbench.render.tables import stack_tables

    songs = metrics.assign(benchmark="entityauth/songs")
    stacked = stack_tables([("Songs", table_expected(songs, "entityauth/songs")),
                            ("Movies", table_expected(songs, "entityauth/movies"))], "Domain")
    assert list(stacked.values[("fine", "ρ")])[:2] == [50.0, 75.0] and len(stacked.values) == 3


def test_report_stems_follow_the_switch():
    from authbench.render.catalog import report_choice
    from authbench.studies.authority.outputs import DOMAINAUTH, ENTITYAUTH

    def written(report, settings, judges, expected=False):
        return report_choice(report, {"settings": settings, "judges": judges, "expected_scores": expected,
                             "domainauth": {"secondary": None}})["written"]

    assert "expected_scores" in written(DOMAINAUTH, ["fine"], ["point"], True)
    assert "expected_scores" not in written(DOMAINAUTH, ["fine"], ["point"], False)
    assert "expected_scores" not in written(DOMAINAUTH, ["fine", "coarse"], ["list_rank", "pair_rank"], True)
    assert "expected_scores" not in written(DOMAINAUTH, ["bias"], ["point"], True)
    assert [s for s in written(ENTITYAUTH, [], ["list_score"], True) if s.startswith(("table", "exp"))][-1] == \
        "expected_scores"
    assert "expected_scores" not in written(ENTITYAUTH, [], ["list_score"])


# --- the DomainAuth steps through the CLI, no model (engine instant) ------------------------

def _cli(*args, **params):
    from authbench.cli import main

    assert main([*map(str, args), "--params", json.dumps(params)]) == 0


def test_domainauth_cells_with_and_without_expected_scores(root, tmp_path):
    """judge -> evaluate -> report for the score judges, once with expected_scores
    and once without: the replies and every argmax metric row are the same, the
    E[s] rows and the expected_scores table come only with the switch on."""
    import yaml
    from authbench.records import read_jsonl
    from authbench.render.catalog import report_choice
    from authbench.studies.authority.outputs import DOMAINAUTH
    from wfrun import read_tsv

    config = yaml.safe_load((root / "config.yaml").read_text())
    intervals = {"show": "inline", "resamples": 100, "level": 0.95, "min_units": 5}  # config intervals
    da = config["domainauth"]
    labels, inst = tmp_path / "labels.tsv", tmp_path / "instances"
    _cli("domainauth-build", "--source", root / da["source"], "--labels", labels, "--drops", tmp_path / "drops.tsv",
         **{k: da.get(k) for k in ("status_filter", "text", "text_max_words", "categories")})
    _cli("domainauth-sample", "--labels", labels, "--outdir", inst, sampling=da["sampling"], seed=config["seed"])
    model = {"engine": "instant", "model": "rehearsal"}
    cells = [("point", "fine"), ("point", "pairs"), ("list_score", "fine"), ("pair_score", "fine")]
    out = {}
    for flag in (False, True):
        metrics, manifests = [], []
        for judge, setting in cells:
            d = tmp_path / str(flag) / judge / setting
            _cli("authority-judge", "--instances", inst / f"{setting}.jsonl", "--template",
                 root / f"resources/prompts/domainauth/{judge}_wo_text.yaml", "--responses", d / "responses.jsonl",
                 "--samples", d / "samples.parquet",
                 "--judgments", d / "judgments.jsonl", "--manifest", d / "manifest.json",
                 cell=f"domainauth/m/{judge}/wo_text/{setting}", judge=judge, context="wo_text", setting=setting,
                 seed=13, constrained=True, cache=None, model=model, expected_scores=flag)
            _cli("authority-evaluate", "--instances", inst / f"{setting}.jsonl", "--judgments", d / "judgments.jsonl",
                 "--manifest", d / "manifest.json", "--metrics", d / "metrics.tsv", "--units", d / "units.parquet",
                 dataset="domainauth", model="m", judge=judge, context="wo_text", setting=setting, scales=[setting],
                 near_constant=0.9, intervals=intervals, seed=0)
            metrics.append(d / "metrics.tsv")
            manifests.append(d / "manifest.json")
        report = tmp_path / str(flag) / "report"
        _cli("domainauth-report", "--metrics", *metrics, "--units", *(m.with_name("units.parquet") for m in metrics),
             "--labels", labels, "--manifests", *manifests, "--outdir", report, intervals=intervals, seed=0,
             settings=["fine", "pairs"], judges=["point", "list_score", "pair_score"],
             plan=report_choice(DOMAINAUTH, {"settings": ["fine", "pairs"], "judges": ["point", "list_score", "pair_score"],
                                    "expected_scores": flag, "domainauth": {"secondary": None}}),
             category_order=list(da["categories"]), categories=da["categories"], parse="strict", judge_validity=None)
        out[flag] = (metrics, manifests, report)

    for (judge, setting), off, on in zip(cells, out[False][0], out[True][0]):
        d_off, d_on = off.parent, on.parent
        assert [r["text"] for r in read_jsonl(d_off / "responses.jsonl")] == [
            r["text"] for r in read_jsonl(d_on / "responses.jsonl")]
        plain, with_e = read_jsonl(d_off / "judgments.jsonl"), read_jsonl(d_on / "judgments.jsonl")
        assert all("expected" not in j for j in plain) and all(j["expected_fallback"] == {} for j in with_e)
        assert [{k: j[k] for k in ("request_id", "value", "status")} for j in with_e] == [
            {k: j[k] for k in ("request_id", "value", "status")} for j in plain]
        rows_off, rows_on = read_tsv(off), read_tsv(on)
        strip = lambda rows: [{k: v for k, v in r.items() if k != "expected_fallback_rate"} for r in rows]
        argmax_on = [r for r in rows_on if not r["derivation"].endswith("expected")]
        assert strip(argmax_on) == strip(rows_off)  # the argmax numbers do not change
        e_rows = [r for r in rows_on if r["derivation"].endswith("expected")]
        results_off = [r for r in rows_off if r["derivation"] != "validity"]  # judge-validity rows have no E[s] twin
        assert len(e_rows) == len(results_off) and {r["expected_fallback_rate"] for r in e_rows} == {"0.0"}
        manifest = json.loads((d_on / "manifest.json").read_text())["expected_scores"]
        assert manifest["fallback"] == {} and manifest["score_slots"] == manifest["from_distribution"] > 0
        assert "expected_scores" not in json.loads((d_off / "manifest.json").read_text())
    assert not (out[False][2] / "tables" / "expected_scores.csv").exists()
    table = pd.read_csv(out[True][2] / "tables" / "expected_scores.csv")
    assert list(table["Judge"]) == ["PointJudge", "PointJudge E[s]", "ListJudge PointScore",
                                    "ListJudge PointScore E[s]", "PairJudge PointScore", "PairJudge PointScore E[s]"]
    point_e = [r for r in read_tsv(out[True][0][0]) if r["derivation"] == "expected" and r["metric"] == "rho"
               and r["parse"] == "strict"]
    assert table.loc[1, "fine / ρ"] == pytest.approx(round(100 * float(point_e[0]["value"]), 2))
    assert "Expected-score judging" in (out[True][2] / "tables" / "expected_scores.md").read_text()
