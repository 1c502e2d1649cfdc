"""Headless Chromium for the sample viewer's tests and benchmark: the system
browser and chromedriver (Debian's ``chromium chromium-driver``; never a
driver download). Without them a test skips, except on CI (``CI`` set),
where it fails: CI installs them (.ci/run)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMEDRIVER = "/usr/bin/chromedriver"


def why_no_browser() -> str:
    """Why headless Chromium cannot run here ("" when it can)."""
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        return "Chromium is not installed (apt-get install chromium chromium-driver)"
    if not os.access(CHROMEDRIVER, os.X_OK):
        return f"no {CHROMEDRIVER} (apt-get install chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return ""


def require_browser() -> None:
    reason = why_no_browser()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the viewer's browser test: {reason}")
        pytest.skip(reason)


def chromium(width: int = 1400, height: int = 1000):
    """A headless Chromium WebDriver (the caller quits it)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--allow-file-access-from-files"):
        options.add_argument(arg)
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    options.binary_location = binary
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def wait_for(driver, script: str, timeout: float = 30.0):
    """Wait until ``script`` (JS returning a value) is truthy; return it."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(lambda d: d.execute_script(script))


def open_viewer(driver, index_html: Path) -> list[dict]:
    """Open a viewer's index.html from file:// and return its catalog rows
    as shown: ``{cell, samples, parse_failures, correct, wrong, cached, flags, status}``."""
    driver.get(Path(index_html).resolve().as_uri())
    wait_for(driver, "return document.querySelectorAll('#catalog tbody tr').length > 0")
    return shown_cells(driver)


def shown_cells(driver) -> list[dict]:
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('#catalog tbody tr')).map(function (tr) {
          var t = function (c) { var e = tr.querySelector('td.' + c); return e ? e.textContent : null; };
          return {id: tr.dataset.cell, cell: tr.cells[0].textContent, samples: t('samples'),
                  parse_failures: t('parse_failures'), correct: t('correct'), wrong: t('wrong'),
                  cached: t('cached'), flags: t('flag'), status: t('status')};
        });""")


def open_cell(driver, cell_id: str) -> str:
    """Click a cell of the catalog; return the "N of M samples" line once its index is loaded."""
    driver.execute_script("document.querySelector('#catalog tr[data-cell=\"' + arguments[0] + '\"]').click()", cell_id)
    return wait_for(driver, "var t = document.getElementById('shown').textContent; return / of /.test(t) && t;")


def select(driver, element_id: str, value: str) -> str:
    """Choose ``value`` in a select (firing its change); return the "N of M samples" line."""
    driver.execute_script("""var s = document.getElementById(arguments[0]); s.value = arguments[1];
                             s.dispatchEvent(new Event('change'));""", element_id, value)
    return driver.execute_script("return document.getElementById('shown').textContent")


def open_sample(driver, row: int = 0) -> dict:
    """Click the ``row``-th shown sample; return the detail pane's texts once loaded."""
    driver.execute_script("document.getElementById('detail').hidden = true;"
                          "document.querySelectorAll('#samples tbody tr')[arguments[0]].click()", row)
    wait_for(driver, "return !document.getElementById('detail').hidden")
    return driver.execute_script("""var o = {};
        ['d-title', 'd-prompt', 'd-reply', 'd-gold', 'd-value', 'd-order', 'd-expected'].forEach(function (id) {
          o[id] = document.getElementById(id).textContent; });
        o.scripts = document.querySelectorAll('#detail script').length; return o;""")


def screenshot(index_html: Path, out: Path, cell: str, row: int = 0, width: int = 1400, height: int = 1100) -> None:
    """docs/outputs.md's picture (docs/viewer.png): open a viewer, the first cell whose
    path contains ``cell``, its ``row``-th sample, and save the window.
    docs/viewer.png: ``screenshot(<test_workflow.py's run>/results/domainauth/report/viewer/index.html,
    Path("docs/viewer.png"), "qwen2.5-coder-0.5b/list_rank/wo_text/coarse", height=1500)``."""
    driver = chromium(width, height)
    try:
        cells = open_viewer(driver, index_html)
        open_cell(driver, next(c["id"] for c in cells if cell in c["cell"]))
        open_sample(driver, row)
        driver.execute_script("window.scrollTo(0, 0)")
        png = driver.get_screenshot_as_png()
    finally:
        driver.quit()
    import io

    from PIL import Image  # 64 colours: the picture stays under 100 KB

    Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=64).save(out, optimize=True)
