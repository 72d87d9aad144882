"""Screenshots of the oracle's page (docs/web.md): one per tab, from a running server.

    python bench/web_screenshots.py --url http://127.0.0.1:8000 --out docs/img

Headless Chromium (Debian's chromium and chromedriver) through Selenium.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

BROWSER_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run")


def browser(profile: str, width: int = 1400, height: int = 1000) -> webdriver.Chrome:
    """Headless Chromium with a fresh profile, driven through the system chromedriver."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*BROWSER_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options,
                            service=webdriver.ChromeService("/usr/bin/chromedriver"))


def shoot(driver, url: str, tab: str, wait_for: str, path: Path, steps=()) -> None:
    driver.set_window_size(1400, 1000)
    driver.get(f"{url}/#{tab}")
    WebDriverWait(driver, 60).until(ready.presence_of_element_located((By.CSS_SELECTOR, wait_for)))
    for selector in steps:  # a step whose button is gone (a game over) is skipped
        for button in driver.find_elements(By.CSS_SELECTOR, selector)[:1]:
            button.click()
        time.sleep(0.8)
    time.sleep(0.5)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, max(600, min(height + 250, 2600)))  # the window, not the page
    time.sleep(0.3)
    driver.save_screenshot(str(path))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--out", default="docs/img")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pages = [("store", "#computations", ()),
             ("gops", "#gops-payoffs", ("#gops-hand-1", "#gops-opponent-5", "#gops-prizes-2")),
             ("gops", "#gops-payoffs", ("#gops-new-game", ".cards button[id^=gops-play-bid]",
                                        ".cards button[id^=gops-play-bid]")),
             ("guess-who-board", "#board-questions", ()),
             ("guess-who", "#table-heatmap", ()),
             ("higher-lower", "#hl-odds", ("#hl-odds tr.optimal button",) * 3),
             ("clue", "#clue-posterior", ())]
    names = ["store", "gops", "gops-play", "board", "tables", "higher-lower", "clue"]
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            for name, (tab, wait_for, steps) in zip(names, pages):
                shoot(driver, args.url, tab, wait_for, out / f"web-{name}.png", steps)
                print(out / f"web-{name}.png")
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
