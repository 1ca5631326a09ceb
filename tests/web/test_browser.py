"""The HTML pages in a real browser: Debian chromium, headless, driven by selenium.

Checks what a reader and a QA researcher do: read the leaderboard, open an experiment and its
per-question diagnostics, copy the citation, run an example query, and (as an owner) open a
private experiment with the token link and publish it. Also: no console errors (the pages send a
strict Content-Security-Policy, so an inline script would show up here), basic accessibility
(language, one h1, header cells with scope, labelled form fields).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def severe_logs(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def check_accessibility(driver) -> None:
    from selenium.webdriver.common.by import By

    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    assert len(driver.find_elements(By.TAG_NAME, "h1")) == 1
    for th in driver.find_elements(By.CSS_SELECTOR, "thead th"):
        assert th.get_attribute("scope") == "col"
    for field in driver.find_elements(By.CSS_SELECTOR, "textarea, select, input[type=text]"):
        label = driver.find_elements(By.CSS_SELECTOR, f"label[for='{field.get_attribute('id')}']")
        assert label, f"field {field.get_attribute('name')} has no label"
    assert driver.find_element(By.CSS_SELECTOR, "a.skip").get_attribute("href").endswith("#content")


def wait_until(driver, condition, timeout: float = 20):
    """What ``condition`` returns once it is truthy: a click starts a navigation or a request
    and returns before the next page is there."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def _stale(element) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    return False


def test_home_and_leaderboard(server, browser) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server.url)
    assert "GERBIL QA" in browser.title
    check_accessibility(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
    labels = [r.find_element(By.CSS_SELECTOR, "th").text for r in rows]
    f1 = [float(r.find_elements(By.CSS_SELECTOR, "td.num")[0].text) for r in rows]
    assert f1 == sorted(f1, reverse=True) and f1[0] == 1.0  # best macro F1 first
    assert labels[0].endswith("-strong")  # the demo's strong answers (or a resubmission)
    assert "gerbil-qa:fair|" in rows[0].text  # the signature next to the numbers
    assert severe_logs(browser) == []


def test_experiment_page_citation_and_diagnostics(server, browser) -> None:
    from selenium.webdriver.common.by import By

    demo = server.demo_id
    browser.get(f"{server.url}experiment/{demo}")
    check_accessibility(browser)
    assert browser.find_element(By.TAG_NAME, "h1").text == f"Experiment {demo}"
    table = browser.find_element(By.ID, "table-QA")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert [r.find_element(By.CSS_SELECTOR, "th").text for r in rows] == [
        "demo-strong",
        "demo-partial",
        "demo-baseline",
    ]
    assert "1.0000" in rows[0].text and "fair" in rows[0].text
    uri = f"{server.url}experiment/{demo}"
    assert browser.find_element(By.ID, "citation-uri").text == uri
    bibtex = browser.find_element(By.ID, "citation-bibtex").text
    assert bibtex.startswith(f"@misc{{gerbilqa-{demo},") and f"url = {{{uri}}}" in bibtex
    assert uri in browser.find_element(By.ID, "citation-text").text
    formats = browser.find_elements(By.CSS_SELECTOR, "p.formats a")
    assert {a.text for a in formats} >= {"Turtle", "JSON-LD", "RDF/XML", "N-Triples", "CSV"}

    rows[1].find_element(By.CSS_SELECTOR, "th a").click()  # demo-partial's task
    wait_until(browser, lambda d: "/task/" in d.current_url and d.find_elements(By.ID, "questions"))
    check_accessibility(browser)
    questions = browser.find_elements(By.CSS_SELECTOR, "#questions tbody tr")
    assert len(questions) == 14
    first = questions[0].text
    assert "Which planet is the largest in the Solar System?" in first
    assert "http://example.org/solar/Saturn" in first  # given
    assert "http://example.org/solar/Jupiter" in first  # gold
    assert severe_logs(browser) == []


def test_sparql_page_runs_an_example(server, browser) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{server.url}sparql")
    check_accessibility(browser)
    box = browser.find_element(By.ID, "query")
    browser.execute_script("arguments[0].value = ''", box)
    browser.find_element(By.CSS_SELECTOR, "button[data-example='example-1']").click()
    assert "Leaderboard" in box.get_attribute("value")  # the example script ran under the CSP
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    # the click only starts the request: wait for the results (a loaded CI machine is slow)
    cells = wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#results tbody tr"))
    assert len(cells) >= 3
    assert "demo-strong" in cells[0].text
    assert severe_logs(browser) == []


def test_owner_opens_private_experiment_and_publishes(server, browser) -> None:
    from selenium.webdriver.common.by import By

    ticket = server.submit_demo(systems=("baseline",))
    url = f"{server.url}experiment/{ticket['id']}"
    browser.delete_all_cookies()
    browser.get(url)
    assert "not public yet" in browser.find_element(By.ID, "not-public").text
    assert "demo-baseline" not in browser.page_source and "baseline" not in browser.page_source
    assert [m for m in severe_logs(browser) if "403" not in m] == []  # the 403 is expected

    browser.get(ticket["ownerLink"])
    assert browser.current_url == url  # the token is gone from the address bar
    assert browser.find_element(By.ID, "private-notice").is_displayed()
    assert "baseline" in browser.find_element(By.ID, "table-QA").text
    button = browser.find_element(By.ID, "publish")
    button.click()
    wait_until(browser, lambda d: not d.find_elements(By.ID, "publish") or _stale(button))
    assert browser.current_url == url
    assert not browser.find_elements(By.ID, "private-notice")
    assert server.storage.experiments.is_public(ticket["id"])

    browser.delete_all_cookies()  # a stranger now sees it
    browser.get(url)
    assert "baseline" in browser.find_element(By.ID, "table-QA").text
    assert severe_logs(browser) == []
