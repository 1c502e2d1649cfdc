"""config/paper.yaml, the paper's grid: an overlay on config.yaml that
validates and leaves nothing of the demo behind. Its `snakemake -n` (the whole
grid on a machine with no GPU and no model weights):
tests/workflow/test_paper_config_dry_run.py."""

import copy
from pathlib import Path

import pytest
import yaml
from authbench.config import schema, GenerateConfig, active_models, models_for, validate_schema
from authbench.studies.authority.grid import entity_datasets, grid
from authbench.studies.selfpref.cell_list import selfpref_cells
from authbench.studies.registry import check as check_config
from snakemake.utils import update_config
from snakemake.utils import validate as snakemake_validate

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "config" / "paper.yaml"

PAPER_MODELS = {
    "Qwen3-8B": "Qwen/Qwen3-8B",
    "Qwen3-14B": "Qwen/Qwen3-14B",
    "Qwen3-32B": "Qwen/Qwen3-32B",
    "Llama-3-8B-Instruct": "meta-llama/Meta-Llama-3-8B-Instruct",
    "Llama-3.1-8B-Instruct": "meta-llama/Llama-3.1-8B-Instruct",
}
# The self-preference study's evaluators (Chen et al., Section 3.2): name -> (engine, model, its "self" author).
SELFPREF_EVALUATORS = {
    "gpt-3.5-turbo": ("openai", "gpt-3.5-turbo", "gpt35"),
    "gpt-4o-mini": ("openai", "gpt-4o-mini", "gpt-4o-mini"),
    "gemini-2.0-flash": ("openai", "gemini-2.0-flash", "gemini-2.0-flash"),
    "Llama-3.1-8B-Instruct": ("vllm", "meta-llama/Llama-3.1-8B-Instruct", "Llama-3.1-8B-Instruct"),
    "Mistral-7B-Instruct-v0.3": ("vllm", "mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7B-Instruct-v0.3"),
}
# Judge cells by hand. DomainAuth, per model and context: point on fine,
# coarse, pairs, bias (4) + list_rank, list_score on fine, coarse (2 + 2) +
# pair_rank, pair_score on fine, coarse, pairs (3 + 3) = 14; 2 contexts, 5
# models. EntityAuth: 5 judges x 3 datasets x 5 models (wo_text) on the N=10
# (fine) and, with entityauth.coarse_source: lists (Table 6 from its own
# runs), the N=5 (coarse) lists: x 2.
DOMAIN_CELLS = 14 * 2 * 5
ENTITY_CELLS = 5 * 3 * 5 * 2
JUDGE_CELLS = DOMAIN_CELLS + ENTITY_CELLS  # 290

NULL_MODEL_HELP = (
    "config/paper.yaml leaves the demo's model out with `models: {gemma3-270m: null}`, and Snakemake's "
    "validate() (which fills schema defaults into every model entry) cannot take a null entry yet. Needed in "
    "workflow/schemas/config.schema.yaml, under models.additionalProperties: keep `type: [object, \"null\"]` and "
    "move every other keyword (additionalProperties, required, properties) under `then:` with `if: {type: object}` "
    "-- or, in rules/common.smk before validate(), drop null models from config['models']."
)


def load(path):
    return yaml.safe_load(Path(path).read_text())


@pytest.fixture(scope="module")
def paper():
    return load(PAPER)


@pytest.fixture(scope="module")
def merged():
    """What the workflow sees: config.yaml deep-merged with the overlay, as Snakemake does."""
    config = load(ROOT / "config.yaml")
    update_config(config, load(PAPER))
    return config


def _leaves(obj, prefix=()):
    if isinstance(obj, dict) and obj:
        for key, value in obj.items():
            yield from _leaves(value, prefix + (key,))
    else:
        yield prefix, obj


@pytest.fixture(scope="module")
def validated(merged):
    """The merged config with the schema's defaults filled in (the fixture above stays as merged)."""
    config = copy.deepcopy(merged)
    validate_schema(config)
    return config


def test_merged_config_validates(validated):
    check_config(validated)


def test_merged_config_passes_snakemakes_own_validation(merged, tmp_path):
    path = tmp_path / "schema.yaml"
    path.write_text(yaml.safe_dump(schema()))
    try:
        snakemake_validate(copy.deepcopy(merged), str(path))
    except AttributeError as err:
        if "'NoneType' object has no attribute 'setdefault'" in str(err):
            pytest.fail(NULL_MODEL_HELP)
        raise


def test_nothing_of_the_demo_survives_the_merge(paper, merged):
    leaked = [".".join(map(str, path)) for path, _ in _leaves(merged) if path and _get(paper, path) is _MISSING]
    assert not leaked, f"config.yaml keys not set in config/paper.yaml (the demo's value would be used): {leaked}"
    assert merged == paper


_MISSING = object()


def _get(obj, path):
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return _MISSING
        obj = obj[key]
    return obj


def test_the_grid_is_the_papers(merged, validated):
    models = models_for(merged, "domainauth")
    assert {name: spec["model"] for name, spec in models.items()} == PAPER_MODELS
    assert models_for(merged, "entityauth") == models_for(merged, "ragauth") == models
    assert merged["models"]["gemma3-270m"] is None
    for name, spec in models.items():
        assert spec["engine"] == "vllm" and spec["prompt_format"] == "chat", name
        assert "revision" in spec and spec["revision"] is None, name
        assert spec["generate"]["temperature"] == 0, name
        assert spec["vllm"]["enable_thinking"] is False and spec["vllm"]["enable_prefix_caching"] is True, name
        assert spec["gpus"] == spec["vllm"]["tensor_parallel_size"] >= 1, name
    assert models["Qwen3-32B"]["gpus"] == 2
    assert merged["judges"] == ["point", "list_rank", "list_score", "pair_rank", "pair_score"]
    assert merged["contexts"] == ["wo_text", "w_text"]
    assert merged["settings"] == ["fine", "coarse", "pairs", "bias"]
    assert merged["constrained_decoding"] is False
    s = merged["domainauth"]["sampling"]
    assert (s["fine_lists"], s["coarse_lists"], s["easy_pairs"], s["hard_pairs"], s["anchors"]) == (4500, 4500, 5000, 5000, 5)
    assert s["bias_per_level"] is None and s["bias_per_category"] is None
    ea = merged["entityauth"]
    assert {k: v["corpus"] for k, v in ea["datasets"].items()} == {"basketball": 10000, "movies": 10000, "songs": 2000}
    assert ea["lists"] == 4500 and ea["coarse_lists"] == 4500 and ea["coarse_source"] == "lists"
    # w_text reads the text the fetch rules write from the DomainAuth URL table
    results = merged["results"]
    assert merged["domainauth"]["text"] == f"{results}/fetch/webtext/texts.tsv"
    assert merged["fetch"]["webtext"]["domains"] == f"{results}/fetch/urllog/domains.tsv"
    assert merged["fetch"]["urllog"]["input"] == merged["domainauth"]["source"]

    entries = grid(validated)
    assert len(entries) == JUDGE_CELLS
    assert sum(c.dataset == "domainauth" for c in entries) == DOMAIN_CELLS
    assert sum(c.dataset != "domainauth" and c.setting == "coarse" for c in entries) == 5 * 3 * 5
    assert entity_datasets(merged) == ["entityauth/basketball", "entityauth/movies", "entityauth/songs"]


def test_selfpref_evaluators_are_the_papers(merged):
    """gpt-3.5-turbo, gpt-4o-mini, gemini-2.0-flash through OpenAI-compatible
    APIs, Llama-3.1-8B-Instruct and Mistral-7B-Instruct-v0.3 on vLLM; only
    the study's own models leave AuthorityBench; the authors' protocol."""
    plan = selfpref_cells(merged)
    assert sorted(plan.evaluators) == sorted(SELFPREF_EVALUATORS)
    models = active_models(merged)
    sp = merged["selfpref"]
    for name, (engine, model, author) in SELFPREF_EVALUATORS.items():
        spec = models[name]
        assert (spec["engine"], spec["model"], sp["self"][name]) == (engine, model, author), name
        if engine == "openai":
            assert spec["openai"]["api_key_env"] and "api_key" not in spec["openai"], name
            assert spec["studies"] == ["selfpref"] and spec["gpus"] == 0, name
    assert models["Mistral-7B-Instruct-v0.3"]["studies"] == ["selfpref"]
    assert "studies" not in models["Llama-3.1-8B-Instruct"]  # an AuthorityBench judge too
    # every evaluator but GPT-3.5 (the released gpt35 passages) writes its own passages
    assert sorted(plan.generators) == sorted(set(SELFPREF_EVALUATORS) - {"gpt-3.5-turbo"})
    assert sp["authors"] == ["human", "gpt35", "gpt-4o-mini", "gemini-2.0-flash", "Llama-3.1-8B-Instruct",
                             "Mistral-7B-Instruct-v0.3"]
    # the released Llama passages (Llama-2-70B-chat) are not passed off as Llama-3.1's
    mapped = {p["author"] for src in sp["datasets"]["nq"]["sources"] for p in src["passages"]}
    assert "llama" not in mapped and "llama2-70b-chat" in mapped and "llama2-70b-chat" not in sp["authors"]
    assert "Llama-2-70B-chat" in PAPER.read_text()
    # the authors' protocol: 5 tries per comparison, 20 per reranked passage, the evaluator's false answer
    # in every FALSE passage, sampling at the APIs' default temperature 1.0
    assert (sp["compare"]["retries"], sp["rerank"]["retries"], sp["rerank"]["false_answer"]) == (4, 19, "evaluator")
    assert sp["knowledge"]["tries"] == 5
    for step in ("knowledge", "compare", "rerank"):
        for name in SELFPREF_EVALUATORS:
            gen = GenerateConfig().merge(models[name].get("generate")).merge(sp[step]["generate"])
            assert (gen.temperature, gen.top_p) == (1.0, 1.0), (step, name)


def test_every_paper_model_has_its_paper_name(merged):
    """Each paper model maps to the row its paper's tables print (the
    scorecard's match); Llama-3.1-8B-Instruct is in both papers, "LLaMA" in the
    self-preference one."""
    from authbench.config import paper_names
    from authbench.papers import paper_models

    ab = paper_names(merged, "authoritybench", paper_models("authoritybench"))
    sp = paper_names(merged, "selfpref", paper_models("selfpref"))
    assert ab == {name: name for name in PAPER_MODELS}
    assert sp == {"gpt-3.5-turbo": "GPT-3.5", "gpt-4o-mini": "GPT-4o-mini", "gemini-2.0-flash": "Gemini",
                  "Llama-3.1-8B-Instruct": "LLaMA", "Mistral-7B-Instruct-v0.3": "Mistral"}
    assert set(ab.values()) == set(paper_models("authoritybench"))


@pytest.mark.parametrize("given, key", [
    ("Qwen3-9B", "models.Qwen3-8B.paper_name"),
    ({"selfpref": "Qwen3-8B"}, "models.Qwen3-8B.paper_name.selfpref"),
])
def test_a_paper_name_no_table_uses_is_a_config_error(merged, given, key):
    from authbench.errors import ConfigError

    config = copy.deepcopy(merged)
    config["models"]["Qwen3-8B"]["paper_name"] = given
    validate_schema(config)
    with pytest.raises(ConfigError) as err:
        check_config(config)
    text = str(err.value)
    assert f"'{key}'" in text and repr(given if isinstance(given, str) else "Qwen3-8B") in text
    assert "known names: " in text and "GPT-3.5" in text and "Mistral" in text
    assert ("Qwen3-14B" in text) == isinstance(given, str)  # a per-paper name lists that paper's names only


def test_a_paper_name_of_the_wrong_type_or_paper_is_named(merged):
    from authbench.errors import ConfigError

    config = copy.deepcopy(merged)
    config["models"]["Qwen3-8B"]["paper_name"] = ["Qwen3-8B"]
    with pytest.raises(ConfigError, match="models.Qwen3-8B.paper_name"):
        validate_schema(config)
    # any paper id passes the schema (a paper of one's own registers more); the registry check names it
    config["models"]["Qwen3-8B"]["paper_name"] = {"authoritybench": "Qwen3-8B", "arxiv": "x"}
    validate_schema(config)
    with pytest.raises(ConfigError, match=r"models.Qwen3-8B.paper_name.arxiv': no paper 'arxiv' is registered"):
        check_config(config)


# Every setting of config/paper.yaml that a number of the papers' tables depends on, as the file states it,
# with where the paper (AB: AuthorityBench, submission version; SP: the RAG self-preference study) or a row
# of docs/deviations.md states it. test_the_papers_settings_are_pinned fails when any of them is edited.
_MARCO = {  # SP §3.1: NQ and MS MARCO (TriviaQA never released, deviations S1); the release's two MARCO files
    "sources": [
        {"file": "resources/data/selfpref/marco_both_true.json", "question": "question", "answer": "answer",
         "passages": [
             {"author": "human", "text": "human_true", "false_text": "human_false_gpt",
              "false_answer": "gpt_false_ans"},
             # the human passage with Llama's false answer, for GPT-self evaluators (deviations S8)
             {"author": "human", "false_text": "human_false_llama", "false_answer": "llama_false_ans",
              "false_for": ["gpt35"]},
             {"author": "gpt35", "text": "gpt_true", "false_text": "gpt_false", "false_answer": "gpt_false_ans"},
             # the release's "llama" passages are Llama-2-70B-chat's (deviations S6)
             {"author": "llama2-70b-chat", "text": "llama_true", "false_text": "llama_false",
              "false_answer": "llama_false_ans"},
         ]},
        {"file": "resources/data/selfpref/marco_writing_style.json", "question": "question", "answer": "answer",
         "passages": [  # SP Appendix A, Tables 4-5: the writing-style passages
             {"author": "gpt35", "variant": "long", "text": "gpt_long", "false_answer": "gpt_false_ans"},
             {"author": "gpt35", "variant": "qa", "text": "gpt_qa", "false_answer": "gpt_false_ans"},
             {"author": "llama2-70b-chat", "variant": "long", "text": "llama_long", "false_answer": "llama_false_ans"},
             {"author": "llama2-70b-chat", "variant": "qa", "text": "llama_qa", "false_answer": "llama_false_ans"},
         ]},
    ],
    "knowledge": {"gpt35": "resources/data/selfpref/marco_knowledge_gpt35.json",
                  "llama2-70b-chat": "resources/data/selfpref/marco_knowledge_llama2.json", "llama": None},
    # the release's GPT-2 perplexities, in question order (deviations S13)
    "released_perplexity": {"file": "resources/data/selfpref/marco_perplexity_gpt2.json",
                            "authors": {"human": "human", "gpt": "gpt35", "llama": "llama2-70b-chat"},
                            "order": "questions"},
}
PAPER_SETTINGS = [
    # --- both papers ---
    (("studies",), ["domainauth", "entityauth", "ragauth", "selfpref"]),  # AB §3 (three datasets) + SP
    (("prompts",), "resources/prompts"),  # AB Appendix A, SP Appendix B.1 (deviations D4, S18-S23)
    # --- AuthorityBench: the grid of Tables 1-4, 6 ---
    (("judges",), ["point", "list_rank", "list_score", "pair_rank", "pair_score"]),  # AB §4.1, "Analyzed Method"
    (("contexts",), ["wo_text", "w_text"]),  # AB Tables 1-3: Ctx w/o, w/
    (("settings",), ["fine", "coarse", "pairs", "bias"]),  # AB Tables 1, 2, 3; Table 8 and Figure 6
    (("constrained_decoding",), False),  # AB §4.1: free decoding at temperature 0 (deviations A3)
    (("parse",), "strict"),  # deviations A6: a failed reply gives no prediction
    # --- DomainAuth ---
    (("domainauth", "source"), "resources/data/domainauth/urls_openpagerank.csv"),  # deviations D1
    (("domainauth", "status_filter"), "legitimate"),  # deviations D1
    (("domainauth", "text_max_words"), 100),  # deviations D6 (the paper states no length)
    (("domainauth", "sampling", "fine_lists"), 4500),  # AB Table 7: 4.5k N=10 lists
    (("domainauth", "sampling", "coarse_lists"), 4500),  # AB Table 7: 4.5k N=5 lists
    (("domainauth", "sampling", "easy_pairs"), 5000),  # AB Table 7: 5k easy pairs
    (("domainauth", "sampling", "hard_pairs"), 5000),  # AB Table 7: 5k hard pairs
    (("domainauth", "sampling", "easy_min_delta"), 5),  # AB Table 7: easy delta >= 5 (deviations D3)
    (("domainauth", "sampling", "hard_max_delta"), 2),  # AB Table 7: hard 0 < delta <= 2 (deviations D3)
    (("domainauth", "sampling", "anchors"), 5),  # AB §4.1: "we randomly select 5 anchors"
    (("domainauth", "sampling", "bias_per_level"), None),  # AB Figure 6, Table 8: the whole corpus
    (("domainauth", "sampling", "bias_per_category"), None),  # AB Table 8: every gov / edu / social domain
    # --- EntityAuth ---
    (("entityauth", "datasets", "basketball", "corpus"), 10000),  # AB §3.2.1: 10,000 basketball players
    (("entityauth", "datasets", "movies", "corpus"), 10000),  # AB §3.2.1: 10,000 movies
    (("entityauth", "datasets", "songs", "corpus"), 2000),  # AB §3.2.1: 2,000 songs
    (("entityauth", "datasets", "basketball", "source"), "resources/data/entityauth/basketball.jsonl"),  # Ni et al.
    (("entityauth", "datasets", "movies", "source"), "resources/data/entityauth/movies.jsonl"),
    (("entityauth", "datasets", "songs", "source"), "resources/data/entityauth/songs.jsonl"),
    (("entityauth", "lists"), 4500),  # AB Table 7: 4.5k N=10 lists per domain
    (("entityauth", "anchors"), 5),  # AB §4.1: 5 anchors
    (("entityauth", "coarse_lists"), 4500),  # AB Table 6 (deviations E1): as many N=5 lists as N=10
    (("entityauth", "coarse_source"), "lists"),  # deviations E1: Table 6 from its own N=5 lists
    # --- RAGAuth (AB Table 5) ---
    (("ragauth", "source"), "resources/data/ragauth/ragauth.json"),  # deviations R1
    # AB §4.4, Table 5: w/o Filter, Relevance, Utility, Authority; then our two reference columns
    (("ragauth", "strategies"), ["no_filter", "relevance", "utility", "authority", "pagerank_oracle", "tld_prior"]),
    (("ragauth", "k"), [1, 3, 5]),  # AB Table 5: k in {1, 3, 5}
    (("ragauth", "doc_tokens"), 300),  # deviations R2 (the paper states no length)
    # --- the RAG self-preference study ---
    # SP §3.2: the five evaluators, each with its own writing as "self" (deviations S6, S11)
    (("selfpref", "self"), {"gemma3-270m": None, "qwen2.5-coder-0.5b": None, "gpt-3.5-turbo": "gpt35",
                            "gpt-4o-mini": "gpt-4o-mini", "gemini-2.0-flash": "gemini-2.0-flash",
                            "Llama-3.1-8B-Instruct": "Llama-3.1-8B-Instruct",
                            "Mistral-7B-Instruct-v0.3": "Mistral-7B-Instruct-v0.3"}),
    (("selfpref", "authors"), ["human", "gpt35", "gpt-4o-mini", "gemini-2.0-flash", "Llama-3.1-8B-Instruct",
                               "Mistral-7B-Instruct-v0.3"]),  # SP Tables 2-3: human + the five models
    (("selfpref", "datasets", "marco"), _MARCO),  # SP §3.1: MS MARCO
    # SP §3.1: NQ, the release's three files (deviations S1, S6)
    (("selfpref", "datasets", "nq", "sources", 0, "file"), "resources/data/selfpref/nq_passages_gpt35.json"),
    (("selfpref", "datasets", "nq", "sources", 1, "file"), "resources/data/selfpref/nq_passages_llama.json"),
    (("selfpref", "datasets", "nq", "sources", 2, "file"), "resources/data/selfpref/nq_writing_style.json"),
    (("selfpref", "datasets", "nq", "released_perplexity", "order"), "unknown"),  # deviations S13
    (("selfpref", "items"), 700),  # SP §3.1: "we randomly selected 700 paired passages from each dataset"
    (("selfpref", "style_items"), 100),  # SP Appendix A, footnotes 3-4: "we randomly selected 100 passages"
    (("selfpref", "significance"), "paired"),  # SP §3.2, §4.1.1: "t-tests" (deviations S29, S34)
    (("selfpref", "knowledge", "tries"), 5),  # SP §3.1: knowledge from 5 answers per question
    (("selfpref", "knowledge", "match"), "exact"),  # deviations S26
    # deviations S14 (the APIs' default temperature), S15 (the caps), for every step below too
    (("selfpref", "knowledge", "generate"), {"temperature": 1.0, "top_p": 1.0, "seed": 0, "max_tokens": 512}),
    (("selfpref", "compare", "generate"), {"temperature": 1.0, "top_p": 1.0, "max_tokens": 64}),  # S14, S15
    (("selfpref", "compare", "retries"), 4),  # deviations S16: 5 tries (ChatGPT_inference.py)
    (("selfpref", "rerank", "retries"), 19),  # deviations S16: 20 tries (score.py)
    (("selfpref", "rerank", "false_answer"), "evaluator"),  # deviations S10 (score.py)
    (("selfpref", "rerank", "scope"), "sample"),  # SP §3.1 (deviations S3, S4): the 700 sampled questions
    (("selfpref", "rerank", "generate"), {"temperature": 1.0, "top_p": 1.0, "max_tokens": 128}),  # S14, S15
    # SP §3.2: the four evaluators without released passages write theirs (deviations S7)
    (("selfpref", "generate", "models"), ["gpt-4o-mini", "gemini-2.0-flash", "Llama-3.1-8B-Instruct",
                                          "Mistral-7B-Instruct-v0.3"]),
    (("selfpref", "generate", "items"), 1000),  # SP Limitations: "approximately 1,000 entries from each" dataset
    (("selfpref", "generate", "kinds"), ["rewrite", "false_answer", "gen_by_qa", "long"]),  # SP Appendix B.1
    (("selfpref", "generate", "generate"), {"temperature": 1.0, "top_p": 1.0, "max_tokens": 600}),  # S14, S15
    (("selfpref", "perplexity_model"), "gpt2"),  # SP §3.2: "the pre-trained GPT-2" (deviations S12)
    # SP §3.2 and the release's perplexity.py: GPT-2 (124M), a base LM, its 1,024-token context (deviations S12)
    (("models", "gpt2", "model"), "openai-community/gpt2"),
    (("models", "gpt2", "engine"), "vllm"),
    (("models", "gpt2", "prompt_format"), "completion"),
    (("models", "gpt2", "vllm", "dtype"), "float32"),
    (("models", "gpt2", "vllm", "max_model_len"), 1024),
]


def _at(obj, path):
    """The value at ``path`` (keys of mappings, indices of lists), or ``_MISSING``."""
    for key in path:
        if not isinstance(obj, (dict, list)):
            return _MISSING
        try:
            obj = obj[key]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return obj


def _same(got, want) -> bool:
    """Equal, and of the same kind where Python's == would blur it (True == 1, 1 == 1.0, None)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    if want is None or isinstance(want, bool):
        return got is want
    return type(got) is type(want) and got == want


def test_the_papers_settings_are_pinned(paper):
    """config/paper.yaml's paper settings, each as a paper (or a row of docs/deviations.md) states it: the
    significance test, the rerank scope, the perplexity model, the MARCO dataset, every sample size and count.
    An edit of any of them fails here, naming the setting."""
    wrong = {".".join(map(str, path)): (_at(paper, path), want) for path, want in PAPER_SETTINGS
             if not _same(_at(paper, path), want)}
    assert not wrong, f"config/paper.yaml no longer holds the paper's setting (found, expected): {wrong}"
    assert len({path for path, _ in PAPER_SETTINGS}) == len(PAPER_SETTINGS)  # each setting pinned once
    # AB Table 8's three categories (gov, edu, social media), by the demo's rule (deviations D7)
    categories = paper["domainauth"]["categories"]
    assert sorted(categories) == ["edu", "gov", "social"]
    assert categories == load(ROOT / "config.yaml")["domainauth"]["categories"]


def test_the_pin_catches_an_edit(paper):
    """The pin is not vacuous: changing any one pinned value (or removing it) is caught."""
    for path, want in PAPER_SETTINGS:
        edited = copy.deepcopy(paper)
        parent = _at(edited, path[:-1])
        parent[path[-1]] = "edited" if not isinstance(want, str) else want + "-edited"
        assert not _same(_at(edited, path), want), path
        del parent[path[-1]]
        assert _at(edited, path) is _MISSING, path
