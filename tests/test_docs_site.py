"""The documentation site: `mkdocs build --strict` passes (no warning, broken link, page
missing from the nav or API object not found), the built pages fetch nothing from the
internet, a real headless Chromium renders the tour and a family page from a local HTTP
server, and the pages keep to their limits (README at most 170 lines, a page outside
docs/history/ at most 500 lines and without dates: those live in docs/history/)."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DATE = re.compile(r"\b(19|20)\d\d-[01]\d-[0-3]\d\b")


def current_pages() -> list[Path]:
    """README.md and every page under docs/ but the history."""
    return [ROOT / "README.md", *sorted(path for path in DOCS.rglob("*.md")
                                        if "history" not in path.relative_to(DOCS).parts)]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}{done.stderr}"
    return out


def test_the_site_builds_strict_with_every_page(site):
    pages = {path.relative_to(DOCS).with_suffix(".html") for path in DOCS.rglob("*.md")}
    built = {path.relative_to(site) for path in site.rglob("*.html")}
    assert pages <= built, f"pages not built: {sorted(map(str, pages - built))}"
    api = (site / "api.html").read_text(encoding="utf-8")
    for name in ("beste_beschrijving", "neerklappen", "voldoet", "level_layout", "query"):
        assert name in api, f"the API page lacks {name}"


class Resources(HTMLParser):
    """The addresses a page loads: scripts, style sheets, icons, images, frames."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe", "source") and attrs.get("src"):
            self.found.append(attrs["src"])
        if tag == "link" and attrs.get("href") and attrs.get("rel") != "canonical":
            self.found.append(attrs["href"])


def test_no_page_loads_anything_from_another_host(site):
    outside = []
    for page in site.rglob("*.html"):
        parser = Resources()
        parser.feed(page.read_text(encoding="utf-8"))
        outside += [f"{page.relative_to(site)}: {url}" for url in parser.found
                    if urlparse(url).scheme in ("http", "https", "") and urlparse(url).netloc]
    assert not outside, "\n".join(outside)
    for sheet in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\(\s*['\"]?(https?:)?//", sheet.read_text()), sheet


def test_pages_keep_to_their_limits():
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("\n")
    assert len(readme) <= 170, f"README.md has {len(readme)} lines"
    for page in current_pages():
        lines = page.read_text(encoding="utf-8").split("\n")
        assert len(lines) <= 500, f"{page.relative_to(ROOT)} has {len(lines)} lines"
        dated = [f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
                 for number, line in enumerate(lines, 1) if DATE.search(line)]
        assert not dated, "dates belong in docs/history/:\n" + "\n".join(dated)


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    from bench.web_screenshots import browser as start

    profile = tempfile.mkdtemp(prefix="subgame-docs-chromium-")
    driver = start(profile)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def rendered(driver, url: str, screenshot: Path) -> dict:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    article = driver.find_element(By.CSS_SELECTOR, "article")
    driver.save_screenshot(str(screenshot))
    return {
        "title": driver.title,
        "h1": [e.text for e in article.find_elements(By.CSS_SELECTOR, "h1")],
        "h2": [e.text.strip() for e in article.find_elements(By.CSS_SELECTOR, "h2")],
        "table_rows": len(article.find_elements(By.CSS_SELECTOR, "table tbody tr")),
        "code_blocks": len(article.find_elements(By.CSS_SELECTOR, "pre code")),
        "nav": [e.get_attribute("textContent").strip()
                for e in driver.find_elements(By.CSS_SELECTOR, "nav.md-nav a.md-nav__link")],
        "loaded": driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"),
    }


def test_the_tour_and_a_family_page_render_in_chromium(served, browser, tmp_path):
    shots = Path(os.environ.get("SUBGAME_DOCS_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    browser.set_window_size(1280, 1000)

    tour = rendered(browser, served + "/tour.html", shots / "docs-tour.png")
    assert tour["title"].startswith("Tour")
    assert tour["h1"] == ["Tour"]
    assert [h for h in ("Install", "A first run", "A first query", "The web page")
            if h not in tour["h2"]] == []
    assert tour["code_blocks"] >= 6
    assert "Guess Who" in tour["nav"] and "Python API" in tour["nav"]

    gops = rendered(browser, served + "/gops.html", shots / "docs-gops.png")
    assert gops["title"].startswith("GOPS")
    assert {"Run and query", "Current figures"} <= set(gops["h2"])
    assert gops["table_rows"] >= 20  # the modules, the counts, the figures, the N = 14 opening

    for page in (tour, gops):
        assert all(url.startswith(served) for url in page["loaded"]), page["loaded"]
