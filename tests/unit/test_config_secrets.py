"""Issue 46, rows L4 and L6: no secret in a config value (they travel into job
argv, Snakemake's stored params, config.json and provenance.md), and
config-derived values quoted in the rules' shell lines."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from authbench.config import check_config, validate_schema
from authbench.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SECRET = "pa55-w0rd-46"


def demo() -> dict:
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    validate_schema(config)
    return config


def with_model(spec: dict) -> dict:
    config = demo()
    config["models"] = {**config["models"], "extra": spec}
    return config


def openai(base_url: str) -> dict:
    return {"engine": "openai", "model": "gpt", "hosted": True, "openai": {"base_url": base_url}}


@pytest.mark.parametrize("url", [f"https://user:{SECRET}@api.example.com/v1", f"https://{SECRET}@api.example.com/v1"])
def test_L4_userinfo_in_base_url_is_rejected_without_showing_it(url):
    with pytest.raises(ConfigError, match=r"models\.extra\.openai\.base_url.*user name or password") as err:
        check_config(with_model(openai(url)))
    assert SECRET not in str(err.value)


@pytest.mark.parametrize("url", [f"https://api.example.com/v1?api-key={SECRET}",
                                 "https://x.openai.azure.com/openai/deployments/d?api-version=2024-06-01",
                                 f"https://api.example.com/v1#{SECRET}"])
def test_L4_a_query_string_in_base_url_is_rejected_without_showing_it(url):
    with pytest.raises(ConfigError, match="query string") as err:
        check_config(with_model(openai(url)))
    assert SECRET not in str(err.value) and "2024-06-01" not in str(err.value)


@pytest.mark.parametrize("name", ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "WANDB_API_KEY", "my_secret", "DB_PASSWORD"])
def test_L4_a_secret_looking_vllm_env_entry_is_a_named_error(name):
    spec = {"engine": "vllm", "model": "Qwen/Qwen3-8B", "vllm": {"env": {"VLLM_CPU_KVCACHE_SPACE": 4, name: SECRET}}}
    with pytest.raises(ConfigError, match=rf"models\.extra\.vllm\.env' sets {name}.*environment") as err:
        check_config(with_model(spec))
    assert SECRET not in str(err.value)


def test_L4_the_shipped_configs_pass_and_a_plain_env_entry_is_fine():
    check_config(with_model({"engine": "vllm", "model": "Qwen/Qwen3-8B", "vllm": {"env": {"VLLM_CPU_KVCACHE_SPACE": 4}}}))
    check_config(with_model(openai("https://generativelanguage.googleapis.com/v1beta/openai")))
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    merged = copy.deepcopy(demo())
    merged["models"] = paper["models"]
    validate_schema(merged)
    check_config(merged)


# ------------------------------------------------------------------ L6

# params that hold a whole option ("--model-file <path>" or ""): quoted inside, by shlex
COMPOSITE = {"model_arg", "server_arg", "item_predictions", "secondary", "scores_arg", "rag", "costs"}
PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def shell_commands() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "rules").glob("*.smk")):
        text = path.read_text()
        for block in re.finditer(r"shell:\n((?:\s+\".*\"\n)+)", text):
            out.append((path.name, "".join(re.findall(r"\"(.*)\"", block.group(1)))))
    return out


def test_L6_config_derived_shell_values_are_quoted():
    commands = shell_commands()
    assert len(commands) >= 35
    unquoted = []
    for name, command in commands:
        for field in PLACEHOLDER.findall(command):
            key, _, spec = field.partition(":")
            if key == "threads" or (key.startswith("params.") and key[7:] in COMPOSITE):
                continue
            if key == "params.python":  # quoted where it is built (model_python), or $AUTHBENCH_PYTHON to expand
                assert spec == "", f"{name}: {{{field}}} would quote $AUTHBENCH_PYTHON, which then never expands"
                continue
            if spec != "q":
                unquoted.append(f"{name}: {{{field}}}")
    assert unquoted == [], "quote these with :q (a path with a space would break the job)"


def test_L6_the_options_built_in_python_quote_their_paths():
    """Each COMPOSITE param is built by common.smk's option(), which quotes with shlex."""
    text = "".join(p.read_text() for p in sorted((ROOT / "rules" / "inputs").glob("*.smk")))
    rules = "".join(p.read_text() for p in sorted((ROOT / "rules").glob("*.smk")))
    names = dict(re.findall(r"^\s+(\w+)=(\w+),$", rules, re.MULTILINE))
    for param in COMPOSITE:
        body = re.search(rf"def {names[param]}\(wildcards, input\):\n(.*?)\n\n", text, re.DOTALL)
        assert body and re.fullmatch(r'\s+return option\("--[a-z-]+", input\.\w+\)', body.group(1)), param
    common = (ROOT / "rules" / "common.smk").read_text()
    assert "return shlex.join([flag, *values])" in common
