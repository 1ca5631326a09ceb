"""A browser lists its own runs on the run page. A private run was found again only through its
owner link: with the tab closed, its submitter had no way back to it (no accounts; a token a
run). The owner cookies the browser holds reach the run form, each is checked against its run,
and the page lists those runs (link, submitted, status, private or public) — for that browser
only: nothing for another one, nothing for a forged cookie, never kept by a shared cache."""

from __future__ import annotations

import re

import pytest
import requests

from service.paths import DEMO_DIR
from tests.web.test_browser import visit, wait_until


def _listed(html: str) -> list[str]:
    table = html.split('id="own-runs"', 1)
    return (
        re.findall(r'<th scope="row"><a href="[^"]*/experiment/(\d{12})">', table[1])
        if len(table) > 1
        else []
    )


def test_the_run_page_lists_the_browsers_own_runs(server) -> None:
    browser = requests.Session()  # keeps each cookie under its path, as a browser does
    form = {"dataset": "demo", "answers_text": "", "profile": "fair"}
    files = {"answers": ("strong.json", (DEMO_DIR / "answers-strong.json").read_bytes())}
    sent = browser.post(server.url + "experiments/new", data=form, files=files)
    assert sent.status_code == 200, sent.text[:400]
    mine = sent.url.rsplit("/", 1)[-1]
    page = browser.get(server.url + "experiments/new")
    assert page.status_code == 200
    assert _listed(page.text) == [mine]
    assert '<a href="#own-runs" id="own-runs-link">Your 1 run in this browser</a>' in page.text
    assert page.headers["Cache-Control"] == "private, no-store"
    assert "Cookie" in page.headers["Vary"]
    # another browser sees no list; one that forges the cookie (an id and any token) neither
    other = requests.get(server.url + "experiments/new")
    assert 'id="own-runs"' not in other.text and "no-store" not in other.headers.get(
        "Cache-Control", ""
    )
    forged = requests.get(
        server.url + "experiments/new",
        cookies={f"gqa_owner_{mine}": "not-the-token", "gqa_owner_x": "y"},
    )
    assert forged.status_code == 200 and 'id="own-runs"' not in forged.text
    # a second run is listed first; a deleted one drops out
    sent = browser.post(server.url + "experiments/new", data=form, files=files)
    second = sent.url.rsplit("/", 1)[-1]
    assert _listed(browser.get(server.url + "experiments/new").text) == [second, mine]
    token = next(c.value for c in browser.cookies if c.name == f"gqa_owner_{second}")
    server.wait_finished(second, token)
    deleted = server.delete(
        f"api/experiments/{second}", headers={"Authorization": f"Bearer {token}"}
    )
    assert deleted.status_code in (200, 204), deleted.text
    assert _listed(browser.get(server.url + "experiments/new").text) == [mine]


@pytest.mark.browser
def test_chromium_finds_its_run_again_on_the_run_page(server, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.delete_all_cookies()
    visit(browser, server.url + "experiments/new", "own-runs-empty")
    assert not browser.find_elements(By.ID, "own-runs")
    Select(browser.find_element(By.ID, "run-dataset")).select_by_value("demo")
    browser.find_element(By.ID, "run-answers").send_keys(str(DEMO_DIR / "answers-partial.json"))
    browser.find_element(By.ID, "run-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "token-notice"))
    link = browser.find_element(By.ID, "owner-link").get_attribute("value")
    mine = link.split("?", 1)[0].rsplit("/", 1)[-1]
    visit(browser, server.url + "experiments/new", "own-runs-listed")
    row = browser.find_element(By.CSS_SELECTOR, "table.own-runs tbody th a")
    assert row.text == mine
    row.click()  # the owner's page of the private run, through the browser's cookie
    wait_until(browser, lambda d: mine in d.title or d.find_elements(By.ID, "publish-form"))
    assert "Forbidden" not in browser.page_source and mine in browser.page_source
