"""Config defaults live in the schema only: the config is filled
once when it loads, code reads ``config[key]``; and the judges are declared
once (authbench.studies.authority.judges)."""

import copy
import re
from pathlib import Path

import pytest
import yaml
from authbench.config import load_config, model_spec, schema, validate_schema
from snakemake.utils import update_config
from snakemake.utils import validate as snakemake_validate

ROOT = Path(__file__).resolve().parents[2]

# Keys with a schema default that code also reads from dicts that are not
# the config: told apart by the file and the exact expression (a record's
# field, not a config value); each entry says which dict it reads.
NOT_CONFIG = {
    # a passage record of passages.jsonl (its variant field), not a config passage entry
    ("workflow/studies/selfpref/rows.py", 'r.get("variant", NORMAL)'),
}


def _defaults(node, path=()):
    """(dotted path, key, default) of every schema property with a default, at any depth
    (properties, additionalProperties maps, if/then, $defs)."""
    if isinstance(node, dict):
        for key, sub in (node.get("properties") or {}).items():
            if isinstance(sub, dict) and "default" in sub:
                yield ".".join(path + (key,)), key, sub["default"]
        for name, sub in node.items():
            step = "*" if name == "additionalProperties" else None
            if name == "properties":
                for key, child in sub.items():
                    yield from _defaults(child, path + (key,))
            elif isinstance(sub, dict) and name in ("additionalProperties", "then", "items"):
                yield from _defaults(sub, path + ((step,) if step else ()))
            elif name == "$defs":
                for key, child in sub.items():
                    yield from _defaults(child, ("$defs", key))


SCHEMA = schema()
DEFAULTS = sorted(_defaults(SCHEMA), key=lambda d: d[0])


def test_the_schema_walk_finds_the_defaults():
    paths = {p for p, _, _ in DEFAULTS}
    assert {"expected_scores", "parse", "judge_validity.min_calls", "models.*.n_ctx", "models.*.threads",
            "selfpref.rerank.retries", "ragauth.build.max_docs", "$defs.label.levels",
            "selfpref.datasets.*.sources.passages.variant"} <= paths


def _sources():
    for folder in ("workflow", "rules"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".smk"):
                yield path.relative_to(ROOT).as_posix(), path.read_text()


def test_no_get_default_for_a_key_the_schema_defaults():
    """`.get("<key>", <default>)` or `.get("<key>") or <fallback>` for a key the schema gives a
    default: the value is always in the loaded config (or in the params the rules build from it)."""
    keys = sorted({key for _, key, _ in DEFAULTS})
    pattern = re.compile(r"[\w\]\)]*\.get\(\s*[\"'](" + "|".join(map(re.escape, keys))
                         + r")[\"']\s*(?:,[^)]*\)|\)\s*or\b[^,)\n]*)")
    found, excluded = [], set()
    for rel, text in _sources():
        for m in pattern.finditer(text):
            if (rel, m.group(0)) in NOT_CONFIG:
                excluded.add((rel, m.group(0)))
                continue
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{rel}:{line}: {m.group(0)}")
    assert not found, "defaults for schema keys outside the schema (read config[key]):\n" + "\n".join(found)
    assert excluded == NOT_CONFIG, f"stale NOT_CONFIG entries: {NOT_CONFIG - excluded}"


def test_the_grep_catches_what_it_looks_for(tmp_path):
    """The pattern of the test above, on lines it must flag and lines it must not."""
    keys = ["expected_scores", "retries"]
    pattern = re.compile(r"[\w\]\)]*\.get\(\s*[\"'](" + "|".join(keys) + r")[\"']\s*(?:,[^)]*\)|\)\s*or\b[^,)\n]*)")
    assert pattern.search('config.get("expected_scores", True)')
    assert pattern.search("int(params.get('retries') or 0)")
    assert not pattern.search('config["expected_scores"]')
    assert not pattern.search('config.get("expected")')


def _minimal():
    """The smallest config the schema accepts, with every optional section that carries defaults present."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["domainauth"].pop("text_max_words", None)
    cfg["domainauth"]["secondary"] = {"labels": {"reliability": {}}}
    cfg["ragauth"]["build"] = {"questions": "q.tsv", "documents": "d.tsv"}
    cfg["models"] = {"m": {"engine": "instant", "model": "rehearsal"}, "gone": None}
    for key in ("judge_validity", "expected_scores", "parse"):
        cfg.pop(key, None)
    cfg["selfpref"].pop("rerank", None)
    cfg["selfpref"]["compare"].pop("retries", None)
    cfg["domainauth"]["label"] = {"column": "page_rank"}
    cfg.setdefault("fetch", {})["urllog"] = {"input": "u.csv"}
    return cfg


def _value(cfg, dotted):
    node = cfg
    for part in dotted.split("."):
        node = node[part]
    return node


@pytest.mark.parametrize("dotted, value", [
    ("expected_scores", True), ("parse", "strict"), ("judge_validity.min_calls", 10),
    ("judge_validity.position_rho", 0.8), ("domainauth.text_max_words", 100),
    ("domainauth.label.levels", 10), ("ragauth.build.max_docs", 10), ("selfpref.rerank.retries", 0),
    ("selfpref.rerank.false_answer", "author"), ("selfpref.compare.retries", 0), ("models.m.n_ctx", 2048),
    ("models.m.threads", 2), ("models.m.gpus", 0), ("models.m.prompt_format", "completion"),
    ("models.m.constrain_with", "slots"), ("fetch.urllog.format", "auto"),
])
def test_a_minimal_config_gets_every_default(dotted, value):
    cfg = _minimal()
    validate_schema(cfg)
    assert _value(cfg, dotted) == value
    assert cfg["models"]["gone"] is None


def test_every_schema_default_is_filled_where_its_object_exists():
    cfg = _minimal()
    validate_schema(cfg)
    missing = []
    for dotted, key, default in DEFAULTS:
        if dotted.startswith("$defs."):
            continue
        nodes = [cfg]
        for part in dotted.split(".")[:-1]:
            nodes = [child for node in nodes for child in (node.values() if part == "*" else [node.get(part)])]
            nodes = [n for node in nodes for n in (node if isinstance(node, list) else [node]) if isinstance(n, dict)]
        missing += [dotted for node in nodes if key not in node]
    assert not missing, missing


@pytest.mark.parametrize("overlay", [None, *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").rglob("*.yaml")
                                            if "models" in p.read_text() or "studies" in p.read_text()),
                                     *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "config").glob("*.yaml"))])
def test_the_package_fills_as_snakemake_does(overlay, tmp_path):
    """The workflow's config is filled by the package's validate_schema (rules/common.smk), over the base schema
    and every study's block: the same defaults in the same places as Snakemake's validate on that schema."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    if overlay:
        extra = yaml.safe_load((ROOT / overlay).read_text())
        assert isinstance(extra, dict), f"{overlay}: not a config overlay"
        update_config(cfg, extra)
    ours, theirs = copy.deepcopy(cfg), copy.deepcopy(cfg)
    merged = tmp_path / "schema.yaml"
    merged.write_text(yaml.safe_dump(schema()))
    snakemake_validate(theirs, str(merged))  # every shipped overlay is valid on config.yaml
    validate_schema(ours)
    assert ours == theirs


def test_load_config_fills_defaults():
    cfg = load_config(ROOT / "config.yaml")
    assert cfg["judge_validity"]["min_lists"] == 2 and cfg["selfpref"]["rerank"]["retries"] == 0


def test_model_spec_fills_a_bare_model_entry():
    spec = {"engine": "llamacpp", "model": "x.gguf", "n_ctx": 4096}
    filled = model_spec(spec)
    assert filled == {**spec, "prompt_format": "completion", "constrain_with": "slots", "threads": 2, "gpus": 0,
                      "mem_mb": 4000, "runtime": 120}
    assert spec == {"engine": "llamacpp", "model": "x.gguf", "n_ctx": 4096}  # a copy


def test_n_ctx_default_is_written_once():
    """The context length is part of the perplexity cache key: its default lives in the schema only."""
    hits = [f"{rel}" for rel, text in _sources() if re.search(r"\b2048\b", text)]
    assert hits == [], hits


# --- the judge registry -------------------------------------------------------------------------

def test_schema_judges_enum_is_the_registry():
    from authbench.studies.authority.judges import JUDGE_NAMES

    assert SCHEMA["properties"]["judges"]["items"]["enum"] == list(JUDGE_NAMES)


def test_the_rules_wildcards_and_the_schema_enums_are_the_word_lists():
    """Every word list once (each study's declaration, the judge registry): the
    rules' wildcard constraints derive from the registry, the schema's enums
    equal them, and no rule file spells one of them out."""
    from authbench.config import load_config
    from authbench.studies.authority.judges import JUDGE_NAMES
    from authbench.studies.authority.study import CONTEXTS, SETTINGS
    from authbench.studies.ragauth.words import STRATEGIES
    from authbench.studies.registry import wildcard_constraints
    from authbench.studies.selfpref.study import PROMPTS, RUNS

    got = wildcard_constraints(load_config(ROOT / "config.yaml"), ["b@set", "a"])
    assert got["judge"].split("|") == list(JUDGE_NAMES) and got["context"].split("|") == list(CONTEXTS)
    assert got["setting"].split("|") == list(SETTINGS) and got["strategy"].split("|") == list(STRATEGIES)
    assert got["prompt"].split("|") == list(PROMPTS) and got["run"].split("|") == list(RUNS)
    # the configured models, and the cell models of the demo's grid (its two models)
    assert got["model"] == r"a|b@set|gemma3\-270m|qwen2\.5\-coder\-0\.5b"
    props = SCHEMA["properties"]
    assert props["contexts"]["items"]["enum"] == list(CONTEXTS)
    assert props["settings"]["items"]["enum"] == list(SETTINGS)
    assert props["ragauth"]["properties"]["strategies"]["items"]["enum"] == list(STRATEGIES)
    assert "**wildcard_constraints(" in (ROOT / "rules/common.smk").read_text()
    spelled = [(f.name, words) for f in sorted((ROOT / "rules").rglob("*.smk")) for words in (
        "wo_text|w_text", '"fine", "coarse"', "no_filter|relevance", '"normal", "rag"', '"main", "style"',
        "point|list_rank") if words in f.read_text()]
    assert spelled == []


def test_no_module_lists_the_judges_by_hand():
    """Every judge list derives from the judges' declaration (the judge classes of
    authbench.studies.authority.judges): no tuple or set of two or more judge names elsewhere."""
    names = "point|list_rank|list_score|pair_rank|pair_score"
    literal = re.compile(rf"[\(\[{{]\s*\"(?:{names})\"\s*,\s*\"(?:{names})\"")
    found = [f"{rel}: {m.group(0)}" for rel, text in _sources()
             if not rel.startswith("workflow/studies/authority/judges/")
             for m in literal.finditer(text)]
    assert not found, found
