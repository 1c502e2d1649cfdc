"""Stand-in inputs for running or planning the paper's grid on a machine
without internet or the RAGAuth release (benchmarks/paper_rehearsal.py,
benchmarks/paper_scale.py): homepage texts and a RAGAuth file, each marked
as a stand-in, and the merged paper config."""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from dryrun import job_counts  # noqa: E402,F401  (the one reader of a dry run's "Job stats:")

from authbench.studies.authority.plan import STAND_IN, stand_in_text  # noqa: E402,F401
from authbench.studies.ragauth.plan import RAG_DOCS, RAG_QUESTIONS  # noqa: E402,F401


def merged_config(path: Path) -> dict:
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    update_config(config, yaml.safe_load(path.read_text()))
    return config


def write_texts(config: dict, path: Path) -> int:
    """Stand-in homepage texts for every legitimate domain, in fetch_webtext's format."""
    from authbench.studies.authority.domains import build_domains

    dom = config["domainauth"]
    plain, _ = build_domains(dom["source"], dom.get("status_filter"), dom["categories"])
    words = dom.get("text_max_words", 100)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(["domain", "text"])
        for d in plain:  # the plan's own estimate of a homepage text (authbench.studies.authority.plan)
            writer.writerow([d.domain, stand_in_text(d.domain, words)])
    (path.parent / "failures.tsv").write_text("domain\terror\thttp_status\tfinal_url\n")
    return len(plain)


def write_ragauth(config: dict, path: Path, seed: int) -> None:
    """120 yes/no questions x 10 documents in the release's format (Figure 5), marked as a stand-in."""
    from authbench.studies.authority.domains import build_domains

    dom = config["domainauth"]
    domains, _ = build_domains(dom["source"], dom.get("status_filter"), dom["categories"])
    rng = random.Random(seed)
    words = stand_in_text("x", 402).split()[4:]
    topics = list((config["ragauth"].get("topics") or {"MED": "medical"}).keys())
    records = []
    for i in range(RAG_QUESTIONS):
        docs = []
        for j, d in enumerate(rng.sample(domains, RAG_DOCS)):
            docs.append({"docid": f"doc_{j + 1:03d}", "url": f"https://www.{d.domain}/page/{i}-{j}",
                         "domain": d.domain, "PageRank": d.level, "authority": "high" if d.level >= 5 else "low",
                         "doc_text": f"{STAND_IN} document {j + 1} for question {i + 1}. " + " ".join(words[: rng.randint(150, 400)])})
        records.append({"qid": f"{topics[i % len(topics)]}_EN_{i + 1:03d}",
                        "question": f"{STAND_IN} Is statement {i + 1} of this generated question set true?",
                        "question_type": "yes_no", "language": "en", "ground_truth": "Yes" if i % 2 == 0 else "No",
                        "documents": docs})
    path.write_text(json.dumps(records, indent=1) + "\n")


def snakemake(workdir: Path, configs: list[Path], *args: str, env=None, capture=True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(workdir),
           "--configfile", *map(str, configs), *args]
    return subprocess.run(cmd, capture_output=capture, text=True, env=env, cwd=workdir)


def prepare_inputs(work: Path, configs: list[Path], config: dict, cores: int, env=None) -> int:
    """The stand-in RAGAuth file (``work/ragauth_standin.json``) and homepage
    texts: the real offline ``fetch_urllog`` runs, the texts go where
    ``fetch_webtext`` writes them and that job is marked done (``--touch``: it
    needs the live web). Returns how many texts were written."""
    write_ragauth(config, work / "ragauth_standin.json", config["seed"])
    texts_path = Path(config["domainauth"]["text"])
    proc = snakemake(work, configs, "--cores", str(cores), str(Path(config["fetch"]["webtext"]["domains"])), env=env)
    if proc.returncode:
        sys.exit(f"fetch_urllog failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    n_texts = write_texts(config, texts_path)
    proc = snakemake(work, configs, "--touch", "--cores", "1", str(texts_path), env=env)
    if proc.returncode:
        sys.exit(f"--touch failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return n_texts
