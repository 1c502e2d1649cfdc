"""config/paper.yaml, the paper's grid: an overlay on config.yaml that
validates and leaves nothing of the demo behind. Its `snakemake -n` (the whole
grid on a machine with no GPU and no model weights):
tests/workflow/test_paper_config_dry_run.py."""

import copy
from pathlib import Path

import pytest
import yaml
from authbench.config import (
    SCHEMA_PATH,
    GenerateConfig,
    active_models,
    cells,
    check_config,
    entity_datasets,
    models_for,
    selfpref_plan,
    validate_schema,
)
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
# (fine) and, since issue 15 (entityauth.coarse_source: lists, Table 6 from
# its own runs), the N=5 (coarse) lists: x 2 (was 75 cells, 215 in all).
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


def test_merged_config_passes_snakemakes_own_validation(merged):
    try:
        snakemake_validate(copy.deepcopy(merged), str(SCHEMA_PATH))
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

    grid = cells(validated)
    assert len(grid) == JUDGE_CELLS
    assert sum(c.dataset == "domainauth" for c in grid) == DOMAIN_CELLS
    assert sum(c.dataset != "domainauth" and c.setting == "coarse" for c in grid) == 5 * 3 * 5
    assert entity_datasets(merged) == ["entityauth/basketball", "entityauth/movies", "entityauth/songs"]


def test_selfpref_evaluators_are_the_papers(merged):
    """gpt-3.5-turbo, gpt-4o-mini, gemini-2.0-flash through OpenAI-compatible
    APIs, Llama-3.1-8B-Instruct and Mistral-7B-Instruct-v0.3 on vLLM; only
    the study's own models leave AuthorityBench; the authors' protocol."""
    plan = selfpref_plan(merged)
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
    """Each paper model maps to the row its paper's tables print (issue 21's
    scorecard); Llama-3.1-8B-Instruct is in both papers, "LLaMA" in the
    self-preference one."""
    from authbench.config import paper_names
    from authbench.published import paper_models

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


def test_a_paper_name_of_the_wrong_type_fails_the_schema(merged):
    from authbench.errors import ConfigError

    config = copy.deepcopy(merged)
    config["models"]["Qwen3-8B"]["paper_name"] = {"authoritybench": "Qwen3-8B", "arxiv": "x"}
    with pytest.raises(ConfigError, match="models.Qwen3-8B.paper_name"):
        validate_schema(config)
