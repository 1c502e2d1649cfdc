"""The sample viewer in headless Chromium on bad input (no Snakemake run):
a reply holding HTML and a script is shown as text and never runs; a
non-UTF-8 remnant (a lone surrogate) is shown escaped, U+FFFD as itself;
a cell without samples is listed as unavailable with its reason while the
others open. The report's viewers on a real run: test_report_zip.py."""

import base64
import gzip
import json
import re

from authbench.cells.viewer import js_json, packed, write_viewer
from authbench.cells.samples import write_samples
from browser import chromium, open_cell, open_sample, open_viewer, require_browser, select, wait_for
from wfrun import ROOT, cell_samples, write_twins_example

EVIL = ('</script><script>window.PWNED = 1</script><img src=x onerror="window.PWNED = 2">'
        "<b>bold</b> caf\ufffd \\xff")
PROMPT = "Rate \U0001F600 <i>these</i> domains:\n[0] a.com\n[1] b.org"


def test_viewer_shows_bad_input_as_text(tmp_path):
    require_browser()
    root = tmp_path / "domainauth"
    cell = root / "cells" / "m" / "list_score" / "wo_text" / "fine"
    rows = [{"request_id": f"fine-{i}", "prompt": PROMPT, "reply": EVIL if i == 0 else "[3, 5]",
             "status": "unparsed" if i == 0 else "ok", "value": None if i == 0 else [3, 5], "gold": [8, 2]}
            for i in range(3)]
    write_samples(rows, cell / "samples.parquet", {"cell": "domainauth/m/list_score/wo_text/fine"})
    (cell / "responses.jsonl").write_text("")
    gone = root / "cells" / "m" / "point" / "wo_text" / "fine"
    gone.mkdir(parents=True)
    (gone / "responses.jsonl").write_text("")
    catalog = write_viewer(tmp_path / "viewer", cell_samples(root), root, "DomainAuth", ROOT / "report" / "viewer")
    # a non-UTF-8 byte kept by surrogateescape: a lone surrogate in sample 2's reply (the writer's escaping)
    good = next(c for c in catalog["cells"] if c["available"])
    path = tmp_path / "viewer" / "data" / good["id"] / "chunk_0.js"
    cid, c, text = json.loads("[" + re.fullmatch(r"ABV\.chunk\((.*)\);\n", path.read_text(), re.DOTALL)[1] + "]")
    chunk = json.loads(gzip.decompress(base64.b64decode(text)))
    chunk["rows"][2]["reply"] = b"caf\xe9".decode("utf-8", "surrogateescape")
    path.write_text(f"ABV.chunk({js_json(cid)},{c},\"{packed(chunk)}\");\n", encoding="utf-8")
    driver = chromium()
    try:
        cells = open_viewer(driver, tmp_path / "viewer" / "index.html")
        unavailable = [x for x in cells if x["status"].startswith("unavailable")]
        assert len(cells) == 2 and len(unavailable) == 1 and "no samples file" in unavailable[0]["status"]
        assert open_cell(driver, good["id"]) == "3 of 3 samples"
        assert select(driver, "f-status", "fail") == "1 of 3 samples"
        sample = open_sample(driver, 0)
        assert sample["d-reply"] == EVIL and sample["d-prompt"] == PROMPT
        assert driver.execute_script("return window.PWNED === undefined && "
                                     "document.querySelectorAll('#detail img, #detail b, #detail i').length === 0")
        select(driver, "f-status", "all")
        assert open_sample(driver, 2)["d-reply"] == "caf\\xe9"
        assert "Predicted vs true order" in open_sample(driver, 1)["d-order"]
        assert driver.get_log("browser") == []
    finally:
        driver.quit()


def test_viewer_filters_to_conflicts_and_shows_both_orders_replies(tmp_path):
    """A pair cell shown in both orders (position_consistency): the "both orders" filter keeps its conflicts,
    and a conflict's detail shows the other order's reply beside its own (loaded from the twin's chunk)."""
    require_browser()
    root, paths = write_twins_example(tmp_path)
    catalog = write_viewer(tmp_path / "viewer", paths, root, "DomainAuth", ROOT / "report" / "viewer")
    first = next(c for c in catalog["cells"] if "twin" in c)
    driver = chromium()
    try:
        open_viewer(driver, tmp_path / "viewer" / "index.html")
        assert open_cell(driver, first["id"]) == "3 of 3 samples"
        assert select(driver, "f-outcome", "conflict") == "1 of 3 samples"
        open_sample(driver, 0)
        wait_for(driver, "return document.getElementById('d-twin').textContent.indexOf('loading') < 0")
        twin = driver.execute_script("return [document.getElementById('d-twin-box').hidden, "
                                     "document.getElementById('d-twin-title').textContent, "
                                     "document.getElementById('d-twin').textContent]")
        assert twin == [False, "Reply in the other order (conflict)", "A\n\nparsed: A"]
        assert select(driver, "f-outcome", "consistent") == "1 of 3 samples"
        assert driver.get_log("browser") == []
    finally:
        driver.quit()
