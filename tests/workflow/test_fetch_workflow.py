"""The researcher's paths through the real workflow, against loopback servers
that answer like Open PageRank, Wikidata and a few homepages:

* my own URL log -> domains -> PageRank labels (API) + homepage text -> DomainAuth labels;
* my own entity names -> Wikidata sitelinks -> EntityAuth labels;

each as one config and one `snakemake` call. Also: an interrupted fetch resumes
without asking again for finished domains, and the API key is in no file."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dryrun import job_counts
from loopback import Loopback, Reply

ROOT = Path(__file__).resolve().parents[2]
KEY = "opr-key-7f3a9c-DO-NOT-LEAK"

# Open PageRank decimals of the test "web" (level = round half up)
PAGERANK = {"alpha.gov": 9.3, "beta.org": 8.2, "gamma.com": 7.1, "delta.net": 6.0, "epsilon.io": 5.4,
            "zeta.co.uk": 4.4, "eta.de": 3.2, "theta.fr": 2.1, "iota.it": 1.3, "kappa.es": 0.2}
# Wikidata: enwiki title -> (qid, number of sitelinks)
WIKIDATA = {"Bohemian Rhapsody": ("Q187745", 60), "Yesterday (Beatles song)": ("Q210", 40),
            "Smells Like Teen Spirit": ("Q211", 45), "Hallelujah (Leonard Cohen song)": ("Q212", 30),
            "Obscure B-side": ("Q213", 3)}


class World:
    """One loopback server for all three services; can fail a PageRank batch."""

    def __init__(self):
        self.broken_domains: set[str] = set()
        self.opr_asked: list[list[str]] = []

    def __call__(self, req):
        if req.path == "/api/v1.0/getPageRank":
            return self.opr(req)
        if req.path == "/w/api.php":
            return self.wikidata(req)
        if req.path.startswith("/site/"):
            domain = req.path.split("/")[2]
            if domain == "kappa.es":
                return Reply(404, "gone", {"Content-Type": "text/html"})
            body = f"<html><head><title>{domain} home</title><script>x()</script></head>" \
                   f"<body><p>Welcome to {domain}, an official site.</p></body></html>"
            return Reply(200, body, {"Content-Type": "text/html; charset=utf-8"})
        return Reply(404, "no such path")

    def opr(self, req):
        assert req.headers.get("API-OPR") == KEY
        asked = req.query.get("domains[]", [])
        self.opr_asked.append(asked)
        if self.broken_domains & set(asked):
            return Reply(500, "upstream down")
        out = []
        for d in asked:
            if d in PAGERANK:
                v = PAGERANK[d]
                out.append({"status_code": 200, "error": "", "page_rank_integer": int(v + 0.5),
                            "page_rank_decimal": v, "rank": str(int(1000 / (v + 1))), "domain": d})
            else:
                out.append({"status_code": 404, "error": "Domain not found", "page_rank_integer": 0,
                            "page_rank_decimal": 0, "rank": None, "domain": d})
        return Reply(200, {"status_code": 200, "response": out, "last_updated": "20th Nov 2026"})

    def wikidata(self, req):
        q = {k: v[0] for k, v in req.query.items()}
        if q.get("action") == "wbsearchentities":
            return Reply(200, {"search": [], "success": 1})
        entities, missing = {}, 0
        for title in q.get("titles", "").split("|"):
            if title in WIKIDATA:
                qid, n = WIKIDATA[title]
                links = {"enwiki": {"site": "enwiki", "title": title, "badges": []}}
                links.update({f"x{i}wiki": {"site": f"x{i}wiki", "title": title, "badges": []} for i in range(n - 1)})
                entities[qid] = {"type": "item", "id": qid, "sitelinks": links}
            else:
                missing += 1
                entities[f"-{missing}"] = {"site": "enwiki", "title": title, "missing": ""}
        return Reply(200, {"entities": entities, "success": 1})


def snakemake(work: Path, *args: str, key: str | None = KEY) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("AUTHBENCH_TEST_OPR_KEY", None)
    if key:
        env["AUTHBENCH_TEST_OPR_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(work),
         "--configfile", str(work / "config.yaml"), "--cores", "2", *args],
        capture_output=True, text=True, env=env, timeout=600)


def write_config(work: Path, url: str) -> None:
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["models"]["qwen2.5-coder-0.5b"] = None  # the embedded base model is enough here
    cfg["prompts"] = str(ROOT / "resources" / "prompts")
    cfg["fetch"] = {
        "user_agent": "authbench-tests/1.0 (loopback only; tests@example.org)",
        "http": {"retries": 1, "backoff": 0.01, "max_backoff": 0.05, "timeout": 5},
        "urllog": {"input": "mylog.tsv", "format": "tsv", "url_columns": ["clicked_url"]},
        "pagerank": {"domains": "results/fetch/urllog/domains.tsv", "method": "api", "batch_size": 3,
                     "api_url": f"{url}/api/v1.0/getPageRank", "api_key_env": "AUTHBENCH_TEST_OPR_KEY",
                     "allow_http": True},  # the loopback server speaks http
        "webtext": {"domains": "results/fetch/urllog/domains.tsv", "base_url": f"{url}/site", "max_words": 8,
                    "workers": 2, "allow_private_addresses": True},  # every site is the loopback server
        "wikidata": {"api_url": f"{url}/w/api.php",
                     "datasets": {"mysongs": {"entities": "mysongs.tsv",
                                              "question_pattern": "Who is the performer of the song {entity}"}}},
    }
    cfg["domainauth"].update(source="results/fetch/pagerank/labels.csv", status_filter="ok",
                             text="results/fetch/webtext/texts.tsv")
    cfg["entityauth"]["datasets"] = {"mysongs": {"source": "results/fetch/wikidata/mysongs.jsonl", "corpus": None,
                                                 "prompts": "songs"}}
    cfg["contexts"] = ["wo_text", "w_text"]
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    rows = ["session\tquery\tclicked_url"]
    for i, d in enumerate([*PAGERANK, "unknown-site.com"]):
        rows.append(f"s{i}\tq{i}\thttps://www.{d}/page?id={i} http://{d}/about")
    rows.append("s99\tq\thttp://192.168.0.1/admin")
    (work / "mylog.tsv").write_text("\n".join(rows) + "\n")
    names = ["name", *WIKIDATA, "Nonexistent Song 123"]
    (work / "mysongs.tsv").write_text("\n".join(names) + "\n")


def read_tsv(path, delimiter="\t"):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter=delimiter))


def files_containing(root: Path, secret: str) -> list[str]:
    hits = []
    for p in root.rglob("*"):
        if p.is_file() and secret.encode() in p.read_bytes():
            hits.append(str(p.relative_to(root)))
    return hits


def test_own_domains_and_entities_to_labels(tmp_path):
    world = World()
    with Loopback(world) as server:
        write_config(tmp_path, server.url)
        targets = ["results/domainauth/labels.tsv", "results/entityauth/mysongs/labels.tsv"]

        # 1. no key in the environment: a one-line error naming the variable
        proc = snakemake(tmp_path, *targets, key=None)
        assert proc.returncode != 0
        log = (tmp_path / "results" / "logs" / "fetch" / "pagerank.log").read_text()
        assert "AUTHBENCH_TEST_OPR_KEY" in log and "Traceback" not in log

        # 2. one PageRank batch fails for good: the job fails, the other batches are cached
        world.broken_domains = {"delta.net"}
        proc = snakemake(tmp_path, *targets)
        assert proc.returncode != 0
        log = (tmp_path / "results" / "logs" / "fetch" / "pagerank.log").read_text()
        assert "Rerun to resume" in log and "Traceback" not in log
        assert not (tmp_path / "results" / "fetch" / "pagerank" / "labels.csv").exists()
        asked_before = {d for batch in world.opr_asked for d in batch}
        failed_batch = {d for batch in world.opr_asked if "delta.net" in batch for d in batch}
        assert len(failed_batch) == 3 and len(asked_before) == 11

        # 3. the server heals: the rerun asks only for what was not finished
        world.broken_domains = set()
        world.opr_asked.clear()
        proc = snakemake(tmp_path, *targets)
        assert proc.returncode == 0, proc.stderr[-3000:]
        asked_again = {d for batch in world.opr_asked for d in batch}
        assert asked_again == failed_batch  # nothing finished is asked again
        assert all(len(batch) <= 3 for batch in world.opr_asked)

    res = tmp_path / "results"
    visits = {r["domain"]: int(r["visits"]) for r in read_tsv(res / "fetch" / "urllog" / "domains.tsv")}
    assert visits["alpha.gov"] == 2 and visits["unknown-site.com"] == 2 and len(visits) == 11
    drops = {r["reason"]: int(r["count"]) for r in read_tsv(res / "fetch" / "urllog" / "drops.tsv")}
    assert drops["ip_host"] == 1

    labels = {r["domain"]: r for r in read_tsv(res / "domainauth" / "labels.tsv")}
    # unknown-site.com had a per-domain 404 (status error) and kappa.es no homepage text
    assert set(labels) == set(PAGERANK) - {"kappa.es"}
    assert {d: int(r["level"]) for d, r in labels.items()} == {
        "alpha.gov": 9, "beta.org": 8, "gamma.com": 7, "delta.net": 6, "epsilon.io": 5, "zeta.co.uk": 4,
        "eta.de": 3, "theta.fr": 2, "iota.it": 1}
    assert labels["beta.org"]["text"] == "beta.org home Welcome to beta.org, an official site."  # 8 words
    da_drops = {r["reason"]: int(r["count"]) for r in read_tsv(res / "domainauth" / "drops.tsv")}
    assert da_drops["status_filter"] == 1 and da_drops["no_text"] == 1

    entities = {r["entity"]: r for r in read_tsv(res / "entityauth" / "mysongs" / "labels.tsv")}
    assert {e: int(r["score"]) for e, r in entities.items()} == {t: n for t, (_, n) in WIKIDATA.items()}
    assert entities["Bohemian Rhapsody"]["level"] == "9" and entities["Obscure B-side"]["level"] == "0"
    assert entities["Obscure B-side"]["question"] == "Who is the performer of the song Obscure B-side"
    unresolved = read_tsv(res / "fetch" / "wikidata" / "mysongs_unresolved.tsv")
    assert [(r["name"], r["reason"]) for r in unresolved] == [("Nonexistent Song 123", "unknown")]
    fetched = [json.loads(line) for line in (res / "fetch" / "wikidata" / "mysongs.jsonl").read_text().splitlines()]
    assert {r["qid"] for r in fetched} == {q for q, _ in WIKIDATA.values()}

    # the key is nowhere: not in results, logs, caches or Snakemake's metadata
    assert files_containing(tmp_path, KEY) == []


@pytest.mark.parametrize(
    "overlay, expected, absent",
    [
        ("own_domains.yaml",
         {"fetch_urllog": 1, "fetch_pagerank": 1, "fetch_webtext": 1, "domainauth_build": 1, "authority_judge": 2 * 28,  # the demo's two models
          "domainauth_report": 1},
         ("fetch_sitelinks", "entityauth_build", "entityauth_report")),
        ("own_entities.yaml",
         # 2 models x 5 judges x {fine (N=10), coarse (N=5)} lists
         {"fetch_sitelinks": 1, "entityauth_build": 1, "entityauth_sample": 1, "authority_judge": 2 * 5 * 2,
          "entityauth_report": 1},
         ("fetch_pagerank", "domainauth_build", "domainauth_report")),
    ],
)
def test_example_overlays_plan_the_researcher_paths(tmp_path, overlay, expected, absent):
    """docs/own-data.md's researcher paths: config.yaml + one overlay = the whole chain, one command."""
    for name in ("config.yaml", "resources", "examples", "profiles"):
        (tmp_path / name).symlink_to(ROOT / name)
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
         "--configfile", f"examples/{overlay}", "-n", "--cores", "8"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    jobs = job_counts(out)
    assert {k: jobs.get(k) for k in expected} == expected
    assert not set(absent) & set(jobs)
