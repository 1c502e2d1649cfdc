"""The config of the one real-model run of the whole workflow (the
``real_run`` fixture of tests/workflow/conftest.py): every study, every kind
of model step, both embedded models, tiny counts."""

from pathlib import Path

import yaml
from wfrun import tiny_selfpref

ROOT = Path(__file__).resolve().parents[1]
RAG_FIXTURE = ROOT / "tests" / "fixtures" / "ragauth" / "ragauth_fixture.json"
COMPLETION_MODEL = "gemma3-270m"  # the base model, completion prompts: DomainAuth, RAGAuth, self-preference
CHAT_MODEL = "qwen2.5-coder-0.5b"  # the instruct model through its chat template: EntityAuth


def real_config() -> dict:
    """Every study with the real embedded models: Gemma on DomainAuth (every
    judge, fine lists), RAGAuth (the test fixture, every strategy, k 1 and 3)
    and self-preference (every step: writing, knowledge, perplexity,
    reranking, comparisons); Qwen, a chat model, on EntityAuth (every judge,
    Table 6 rescored from the fine lists)."""
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg["studies"] = ["domainauth", "entityauth", "ragauth", "selfpref"]
    cfg["domainauth"]["source"] = str(ROOT / cfg["domainauth"]["source"])
    cfg["domainauth"]["sampling"].update(fine_lists=1, coarse_lists=1, easy_pairs=1, hard_pairs=1,
                                         bias_per_level=1, bias_per_category=1)
    cfg["settings"] = ["fine"]
    cfg["contexts"] = ["wo_text"]
    songs = cfg["entityauth"]["datasets"]["songs"]
    cfg["entityauth"].update(lists=1, coarse_source="rescore",
                             datasets={"songs": {**songs, "source": str(ROOT / songs["source"])}})
    cfg["ragauth"].update(source=str(RAG_FIXTURE), k=[1, 3], doc_tokens=40)
    tiny_selfpref(cfg)
    cfg["selfpref"]["self"] = {COMPLETION_MODEL: "gpt35", CHAT_MODEL: None}
    cfg["models"][COMPLETION_MODEL]["studies"] = ["domainauth", "ragauth", "selfpref"]
    cfg["models"][CHAT_MODEL]["studies"] = ["entityauth"]
    return cfg
