"""The sample viewer at the paper's largest cell: 150,000 samples.

Builds one synthetic cell through the real writers (``authbench.cells.samples``'
``write_samples`` then ``authbench.cells.viewer.write_viewer``): prompts
rendered with DomainAuth's real list_rank template, ten domains each from
the demo's Open PageRank file; a reply, a parsed value and the gold per
sample; 3% parse failures. Then opens the viewer in
headless Chromium (tests/browser.py: the system chromedriver) and prints a
table: build seconds, bytes on disk (samples.parquet and the viewer folder),
time to the first table render (page load to the first page of the cell's
samples), time to apply a filter (parse failures only, then back to all),
time to open a sample (its chunk loaded and shown).

    python benchmarks/viewer_load.py [--n 150000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from authbench.cells.viewer import write_viewer
from authbench.cells.samples import write_samples
from browser import chromium, open_viewer, wait_for, why_no_browser


def real_prompts(n: int) -> list[str]:
    """``n`` prompts as a DomainAuth list_rank cell sends them: the real
    template (resources/prompts/) rendered with ten domains drawn from the
    demo's Open PageRank file."""
    import csv
    from urllib.parse import urlsplit

    from authbench.studies.authority.prompts import load_template

    with open(ROOT / "resources" / "data" / "domainauth" / "urls_openpagerank.csv", newline="") as fh:
        domains = sorted({urlsplit(r["url"] if "//" in r["url"] else "//" + r["url"]).hostname or r["url"]
                          for r in csv.DictReader(fh)})
    template = load_template(ROOT / "resources" / "prompts" / "domainauth" / "list_rank_wo_text.yaml")
    rng = random.Random(0)
    return [template.render_list([{"domain": d} for d in rng.sample(domains, 10)]) for _ in range(n)]


def rows(n: int, prompts: list[str]):
    rng = random.Random(1)
    for i in range(n):
        gold = rng.sample(range(1, 11), 10)
        failed = rng.random() < 0.03
        value = None if failed else rng.sample(range(1, 11), 10)
        yield {"request_id": f"fine-{i // 10}-{i % 10}", "try": 0,
               "prompt": prompts[i], "prompt_sha256": f"{i:064x}",
               "reply": "I cannot rank these." if failed else " > ".join(map(str, value)),
               "finish_reason": "stop", "prompt_tokens": 400, "completion_tokens": 30, "cached": i % 4 == 0,
               "status": "unparsed" if failed else "ok", "value": value, "gold": gold,
               "correct": None if failed else value[0] == gold[0], "fields": {"list": i // 10}}


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=150_000)
    ap.add_argument("--keep", type=Path, help="write here instead of a temporary folder")
    args = ap.parse_args()
    reason = why_no_browser()
    if reason:
        sys.exit(f"viewer_load: {reason}")
    work = args.keep or Path(tempfile.mkdtemp(prefix="viewer_load_"))
    root = work / "domainauth"
    cell = root / "cells" / "rehearsal" / "list_rank" / "wo_text" / "fine"
    prompts = real_prompts(args.n)
    t0 = time.perf_counter()
    write_samples(rows(args.n, prompts), cell / "samples.parquet", {"cell": "domainauth/rehearsal/list_rank/wo_text/fine"})
    t1 = time.perf_counter()
    write_viewer(work / "viewer", [cell / "samples.parquet"], root, "DomainAuth", ROOT / "report" / "viewer")
    t2 = time.perf_counter()
    driver = chromium()
    try:
        start = time.perf_counter()
        open_viewer(driver, work / "viewer" / "index.html")
        driver.execute_script("document.querySelector('#catalog tbody tr').click()")
        wait_for(driver, "return document.querySelectorAll('#samples tbody tr').length > 0", 120)
        first = time.perf_counter() - start
        filt = driver.execute_script("""var t = performance.now(), s = document.getElementById('f-status');
            s.value = 'fail'; s.dispatchEvent(new Event('change'));
            var shown = document.getElementById('shown').textContent;
            s.value = 'all'; s.dispatchEvent(new Event('change'));
            return [(performance.now() - t) / 2, shown];""")
        start = time.perf_counter()
        driver.execute_script("document.getElementById('next').click();"
                              "document.querySelectorAll('#samples tbody tr')[5].click()")
        wait_for(driver, "return !document.getElementById('detail').hidden", 120)
        opened = time.perf_counter() - start
    finally:
        driver.quit()
    parquet = (cell / "samples.parquet").stat().st_size
    print(f"| samples | build: samples.parquet s | build: viewer s | samples.parquet bytes | viewer bytes "
          f"| first table render s | filter ms | open a sample s |\n|---|---|---|---|---|---|---|---|\n"
          f"| {args.n:,} | {t1 - t0:.1f} | {t2 - t1:.1f} | {parquet:,} | {folder_bytes(work / 'viewer'):,} "
          f"| {first:.2f} | {filt[0]:.0f} ({filt[1]}) | {opened:.2f} |")
    print(f"prompts: mean {sum(map(len, prompts)) / len(prompts):.0f} characters; "
          f"viewer at {work / 'viewer'}")


if __name__ == "__main__":
    main()
