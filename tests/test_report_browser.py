"""Open the report's index.html from disk in headless Chromium: switch task, sort a column, search a variety,
and save a screenshot (to the test's tmp dir, and to $DIALECTBENCH_SCREENSHOT_DIR when set)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dialectbench.report import build_report

pytestmark = pytest.mark.browser

FIXTURE = Path(__file__).parent / "fixtures" / "report" / "scores.csv"
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000")


@pytest.fixture
def browser(tmp_path):
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def visible_rows(driver, key: str) -> list[list[str]]:
    from selenium.webdriver.common.by import By

    table = driver.find_element(By.CSS_SELECTOR, f'table[data-key="{key}"]')
    return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr") if tr.is_displayed()]


def test_report_in_headless_chromium(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    index = build_report(FIXTURE, tmp_path / "report", formats=("html",), n_resamples=10)
    browser.get(index.resolve().as_uri())
    panel = browser.find_element(By.ID, "task-dep")
    assert panel.is_displayed() and not browser.find_element(By.ID, "task-pos").is_displayed()

    # sort the dep max-score table by its score column, ascending then descending
    header = browser.find_element(By.CSS_SELECTOR, 'table[data-key="max_scores_dep"] th:nth-child(3) button')
    header.click()
    assert [r[1] for r in visible_rows(browser, "max_scores_dep")][:2] == ["komi-permyak", "komi-zyrian (m:spoken)"]
    header.click()
    scores = [float(r[2]) for r in visible_rows(browser, "max_scores_dep")]
    assert scores == sorted(scores, reverse=True) and scores[0] == 92.0
    th = browser.find_element(By.CSS_SELECTOR, 'table[data-key="max_scores_dep"] th:nth-child(3)')
    assert th.get_attribute("aria-sort") == "descending"

    # switch task: the pos panel shows, with xlmr's missing singlish result as "–"
    Select(browser.find_element(By.ID, "task-select")).select_by_value("pos")
    assert browser.find_element(By.ID, "task-pos").is_displayed() and not panel.is_displayed()
    matrix = {r[1]: r for r in visible_rows(browser, "variety_models_pos")}
    assert matrix["singlish"][-1] == "–" and matrix["english"][-1] == "96.00"

    # search: only matching varieties stay visible, and the count says so
    Select(browser.find_element(By.ID, "task-select")).select_by_value("dep")
    box = browser.find_element(By.ID, "variety-search")
    box.send_keys("komi")
    assert {r[1] for r in visible_rows(browser, "max_scores_dep")} == {"komi-permyak", "komi-zyrian (m:spoken)"}
    assert browser.find_element(By.ID, "search-count").text == "2 of 5 varieties match"
    assert browser.find_element(By.CSS_SELECTOR, "#task-dep img").get_attribute("naturalWidth") != "0"

    shot = tmp_path / "report-dep-search.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 0
    target = os.environ.get("DIALECTBENCH_SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(target) / shot.name)
