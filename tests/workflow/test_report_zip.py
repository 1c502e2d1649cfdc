"""`snakemake --report report.zip` over a config that runs every study
(DomainAuth, EntityAuth, RAGAuth on the test fixture, self-preference), with
``engine: instant`` (no model) and tiny counts: the report builds, and every
table a study's contents.md lists as written is in it with its caption (the
definition's: authbench.render.catalog; a caption cannot be missing); each
study's sample viewer is in it, and opened from the unzipped report in
headless Chromium it shows what each cell's manifest and metrics count
(tests/browser.py; judge-validity thresholds lowered so that cells are flagged)."""

import csv
import html
import json
import re
import zipfile
from pathlib import Path

import pytest
import yaml
from authbench.render.catalog import VIEWER_TITLE, find_item
from authbench.studies.authority.outputs import DOMAINAUTH, ENTITYAUTH
from authbench.studies.ragauth.outputs import RAGAUTH
from authbench.studies.selfpref.outputs import SELFPREF
from authbench.studies.statistics import statistics_report
from browser import chromium, open_cell, open_sample, open_viewer, require_browser, select, shown_cells
from wfrun import ROOT, read_tsv, snakemake, tiny_selfpref

FIXTURE = ROOT / "tests" / "fixtures" / "ragauth" / "ragauth_fixture.json"
STATISTICS = statistics_report()  # the shipped studies' benchmark statistics


def every_study_config() -> dict:
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["models"] = {"gemma3-270m": {**cfg["models"]["gemma3-270m"], "engine": "instant"}}
    cfg.update(cache=None, prompts=str(ROOT / "resources" / "prompts"), judges=["point", "list_rank", "pair_score"],
               studies=["domainauth", "entityauth", "ragauth", "selfpref"])
    da = cfg["domainauth"]
    da["source"] = str(ROOT / da["source"])
    da["sampling"].update(fine_lists=1, coarse_lists=1, easy_pairs=2, hard_pairs=2, bias_per_level=1,
                          bias_per_category=1)
    ea = cfg["entityauth"]
    ea["datasets"] = {"songs": {**ea["datasets"]["songs"], "source": str(ROOT / ea["datasets"]["songs"]["source"])}}
    ea.update(lists=1, anchors=2, coarse_lists=1)
    cfg["ragauth"].update(source=str(FIXTURE), k=[1])
    cfg["selfpref"]["self"] = {"gemma3-270m": "gpt35"}
    # flag every point and pair cell (any example copy, any A share), so that the viewer has flagged cells to show
    cfg["judge_validity"].update(example_copy=0.0, a_share_gap=0.0, min_calls=1)
    return tiny_selfpref(cfg)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    # its own run, not the typed copy's: RAGAuth on the test fixture (the copy has no RAGAuth release) and
    # judge-validity thresholds lowered so that the viewer has flagged cells; no documented config has either
    work = tmp_path_factory.mktemp("report_zip")
    (work / "config.yaml").write_text(yaml.safe_dump(every_study_config()))
    proc = snakemake(work, "--cores", "2", timeout=1500)
    assert proc.returncode == 0, proc.stderr[-4000:]
    proc = snakemake(work, "--report", str(work / "report.zip"), timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return work


def written_tables(contents: str) -> list[str]:
    """The stems of the tables a contents.md lists as written."""
    return re.findall(r"\| tables/(\w+)\.csv[^|]*\| written", contents)


def words(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def report_entry(page: str, path: str) -> dict | None:
    """A result's entry in the report page's data (path relative to the work folder): its labels and caption."""
    key = json.dumps(path) + ": "
    at = page.find(key)
    return json.JSONDecoder().raw_decode(page, at + len(key))[0] if at >= 0 else None


def test_every_listed_table_is_in_the_report_with_its_caption(run):
    with zipfile.ZipFile(run / "report.zip") as z:
        page = z.read("report/report.html").decode("utf-8")
    folders = {DOMAINAUTH: "results/domainauth/report", ENTITYAUTH: "results/entityauth/report",
               RAGAUTH: "results/ragauth/report", SELFPREF: "results/selfpref/nq/report",
               STATISTICS: "results/statistics"}
    checked = 0
    for report, folder in folders.items():
        if report is STATISTICS:  # no contents.md: every table its studies need
            stems = [p.stem for p in (run / folder / "tables").glob("*.csv")]
            assert sorted(stems) == sorted(it.stem for it in STATISTICS.items)
        else:
            stems = written_tables((run / folder / "contents.md").read_text(encoding="utf-8"))
        assert stems, f"{report.name}: contents.md lists no written table"
        for stem in stems:
            path = f"{folder}/tables/{stem}.csv"
            entry = report_entry(page, path)
            assert entry is not None, f"{report.name}: {stem} is not in the report"
            assert words(entry["caption"]) == words(find_item(report, path).caption), stem
            assert entry["labels"]["study"] == report.name and entry["labels"]["table"] == report.item(stem).title
            checked += 1
    assert checked >= 30


VIEWERS = {"DomainAuth": "results/domainauth/report/viewer", "EntityAuth": "results/entityauth/report/viewer",
           "RAGAuth": "results/ragauth/report/viewer", "Self-preference": "results/selfpref/nq/report/viewer"}


def viewer_entries(page: str) -> dict:
    """Each study's viewer entry in the report page's data (keyed by study)."""
    return {study: report_entry(page, f"{folder}/index.html") for study, folder in VIEWERS.items()}


def test_the_report_zip_lists_each_study_viewer(run):
    with zipfile.ZipFile(run / "report.zip") as z:
        names = set(z.namelist())
        page = z.read("report/report.html").decode("utf-8")
    for study, entry in viewer_entries(page).items():
        assert entry is not None, f"{study}: the viewer is not in the report"
        assert entry["labels"] == {"study": study, "file": VIEWER_TITLE} and entry["mime_type"] == "text/html"
        folder = "report/" + entry["data_uri"].rsplit("/", 1)[0]
        assert {f"{folder}/index.html", f"{folder}/viewer.js", f"{folder}/data/catalog.js"} <= names, study
        contents = (run / Path(VIEWERS[study]).parent / "contents.md").read_text(encoding="utf-8")
        assert "[viewer/index.html](viewer/index.html)" in contents


def test_viewer_in_chromium_shows_what_the_manifests_count(run, tmp_path):
    """Unzip the report, open DomainAuth's viewer from file://, filter to
    flagged cells and to parse failures, open a sample; every count shown is
    the cell's manifest's (and metrics.tsv's where it has the cell)."""
    require_browser()
    with zipfile.ZipFile(run / "report.zip") as z:
        z.extractall(tmp_path / "unzipped")
        entry = viewer_entries(z.read("report/report.html").decode("utf-8"))["DomainAuth"]
    index = tmp_path / "unzipped" / "report" / entry["data_uri"]
    driver = chromium()
    try:
        cells = open_viewer(driver, index)
        folders = sorted(p.parent for p in (run / "results" / "domainauth" / "cells").rglob("manifest.json"))
        assert len(cells) == len(folders)
        with open(run / "results/domainauth/report/tables/costs.csv", newline="", encoding="utf-8") as fh:
            costs = {(r["model"], r["judge"], r["context"], r["setting"]): r["why"]
                     for r in csv.DictReader(fh) if r["flag"]}
        assert costs, "no flagged cell in the costs table: lower the test's judge_validity thresholds"
        metrics = {}
        for folder in folders:
            for r in read_tsv(folder / "metrics.tsv") if (folder / "metrics.tsv").is_file() else []:
                metrics[(r["model"], r["judge"], r["context"], r["setting"])] = r
        for cell in cells:
            assert cell["status"] == "available", cell
            manifest = json.loads((run / "results/domainauth" / cell["cell"] / "manifest.json").read_text())
            failures = sum(n for s, n in manifest["parse_status"].items() if s != "ok")
            assert int(cell["samples"]) == manifest["n_calls"], cell
            assert int(cell["parse_failures"]) == failures and int(cell["cached"]) == manifest["cache_hits"], cell
            key = tuple(cell["cell"].split("/")[1:])
            assert cell["flags"] == costs.get(key, ""), cell
            if key in metrics:
                m = metrics[key]
                assert int(m["n_calls"]) == int(cell["samples"])
                assert round(float(m["parse_failure_rate"]) * int(m["n_calls"])) == failures
        # flagged cells only: exactly the costs table's flagged cells
        driver.execute_script("var c = document.getElementById('only-flagged'); c.checked = true;"
                              "c.dispatchEvent(new Event('change'));")
        flagged = shown_cells(driver)
        assert sorted(tuple(c["cell"].split("/")[1:]) for c in flagged) == sorted(costs)
        cell = flagged[0]
        assert open_cell(driver, cell["id"]) == f"{cell['samples']} of {cell['samples']} samples"
        assert select(driver, "f-status", "fail") == f"{cell['parse_failures']} of {cell['samples']} samples"
        select(driver, "f-status", "all")
        shown = select(driver, "f-correct", "all")
        assert shown == f"{cell['samples']} of {cell['samples']} samples"
        sample = open_sample(driver, 0)
        assert sample["d-prompt"] and sample["d-reply"] and sample["scripts"] == 0
        assert sample["d-title"].startswith("Sample 0: request ")
        driver.save_screenshot(str(tmp_path / "viewer.png"))
        assert (tmp_path / "viewer.png").stat().st_size > 10_000
        assert driver.get_log("browser") == []
    finally:
        driver.quit()


def test_every_model_cell_has_its_samples(run):
    """Every model cell of every study (all but the perplexity cells, which
    have no responses.jsonl) wrote samples.parquet: one row per request sent,
    row for row the prompt of responses.jsonl (equal by SHA-256 of the stored
    text) and its reply; each row a judgment was joined to (all but earlier
    tries of a retried request) has that judgment's status and value."""
    import hashlib

    from authbench.cells import base_id
    from authbench.records import read_jsonl
    from authbench.cells.samples import read_samples

    cells = sorted(p.parent for p in (run / "results").rglob("responses.jsonl"))
    studies = set()
    for cell in cells:
        table, meta = read_samples(cell / "samples.parquet")
        rows, responses = table.to_pylist(), read_jsonl(cell / "responses.jsonl")
        assert meta["cell"] == json.loads((cell / "manifest.json").read_text())["cell"], cell
        assert len(rows) == len(responses) > 0, cell
        for row, resp in zip(rows, responses):
            assert hashlib.sha256(row["prompt"].encode("utf-8")).hexdigest() == row["prompt_sha256"] \
                == resp["prompt_sha256"], (cell, row["request_id"])
            assert (row["request_id"], row["reply"]) == (resp["request_id"], resp["text"])
            assert row["cached"] is False  # cache: null
        judged = {j["request_id"]: j for j in read_jsonl(cell / "judgments.jsonl")}
        joined = [r for r in rows if r["status"] != "retried"]
        assert len(joined) == len(judged), cell
        for row in joined:
            j = judged[base_id(row["request_id"])[0]]
            assert row["status"] == j["status"], (cell, row["request_id"])
            assert (None if row["value"] is None else json.loads(row["value"])) == j.get("value")
        studies.add(meta["study"])
    assert studies == {"domainauth", "entityauth", "ragauth", "selfpref"}
    assert len(cells) >= 20


def test_viewer_in_chromium_filters_to_parse_failures(run, tmp_path):
    """The self-preference viewer (its comparison cells reply with parse
    failures under the instant engine): cells with parse failures only, each
    count its manifest's; one cell filtered to its failures, one opened."""
    require_browser()
    with zipfile.ZipFile(run / "report.zip") as z:
        z.extractall(tmp_path / "unzipped")
        entry = viewer_entries(z.read("report/report.html").decode("utf-8"))["Self-preference"]
    driver = chromium()
    try:
        cells = open_viewer(driver, tmp_path / "unzipped" / "report" / entry["data_uri"])
        for cell in cells:
            manifest = json.loads((run / "results/selfpref/nq" / cell["cell"] / "manifest.json").read_text())
            assert cell["status"] == "available" and int(cell["samples"]) == manifest["n_calls"], cell
            failed = sum(n for s, n in manifest["parse_status"].items() if s != "ok")
            assert int(cell["parse_failures"]) == failed, cell
        driver.execute_script("var c = document.getElementById('only-failures'); c.checked = true;"
                              "c.dispatchEvent(new Event('change'));")
        failing = shown_cells(driver)
        assert failing and all(int(c["parse_failures"]) > 0 for c in failing)
        assert len(failing) == sum(int(c["parse_failures"]) > 0 for c in cells)
        cell = failing[0]
        open_cell(driver, cell["id"])
        assert select(driver, "f-status", "fail") == f"{cell['parse_failures']} of {cell['samples']} samples"
        sample = open_sample(driver, 0)
        assert ", ok," not in sample["d-title"] and sample["d-reply"]
        assert driver.get_log("browser") == []
    finally:
        driver.quit()


def test_every_study_lists_its_prompt_edit_diffs(run):
    """Each study's report folder has diffs.md (one run: no cell
    has an earlier template yet), listed in its contents.md and in the
    report; every model cell's current version is in the history."""
    with zipfile.ZipFile(run / "report.zip") as z:
        page = z.read("report/report.html").decode("utf-8")
    for folder in ("domainauth/report", "entityauth/report", "ragauth/report", "selfpref/nq/report"):
        index = run / "results" / folder / "diffs.md"
        assert "No cell has an earlier version with another template." in index.read_text(), folder
        assert "| diffs.md |" in (run / "results" / folder / "contents.md").read_text(), folder
        assert report_entry(page, f"results/{folder}/diffs.md") is not None, folder
    kept = {p.parent.parent.relative_to(run / "results" / "history").as_posix()
            for p in (run / "results" / "history").rglob("version.json")}
    cells = {json.loads(m.read_text())["cell"] for m in (run / "results").rglob("manifest.json")
             if (m.parent / "samples.parquet").is_file()}
    assert kept == cells and len(cells) >= 20
