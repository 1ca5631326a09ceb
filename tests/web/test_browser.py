"""The HTML pages in a real browser: Debian chromium, headless, driven by selenium.

Checks what a reader and a QA researcher do: read the leaderboard, open an experiment and its
per-question diagnostics, copy the citation, run an example query, and (as an owner) open a
private experiment with the token link and publish it; filter a task's questions by outcome and
feature with the keyboard, read the charts, take a badge's snippet, filter and sort the
leaderboards. Also: no console errors (the pages send a strict Content-Security-Policy, so an
inline script would show up here), basic accessibility (language, one h1, header cells with
scope, every form control labelled, images and charts with text alternatives, controls reached
with the Tab key, no sideways scrolling at 1280 px).

Every page a test visits is saved as a full-page screenshot under ``var/screenshots/`` (or
``$GERBIL_QA_SCREENSHOTS``), named after the test and the step.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

POLL = 0.05  # seconds between two checks of what a wait waits for (selenium's default: 0.5)

SCREENSHOTS = Path(
    os.environ.get(
        "GERBIL_QA_SCREENSHOTS", Path(__file__).resolve().parents[2] / "var" / "screenshots"
    )
)


def severe_logs(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def shot(driver, name: str) -> Path:
    """Save the whole page as ``SCREENSHOTS/<name>.png`` (the window grown to the page's
    height for the picture, then put back)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / (re.sub(r"[^A-Za-z0-9_.-]+", "-", name) + ".png")
    size = driver.get_window_size()
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(size["width"], min(max(height, 400), 8000))
    driver.save_screenshot(str(path))
    driver.set_window_size(size["width"], size["height"])
    return path


def visit(driver, url: str, name: str) -> None:
    driver.get(url)
    shot(driver, name)


def check_accessibility(driver) -> None:
    from selenium.webdriver.common.by import By

    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    assert len(driver.find_elements(By.TAG_NAME, "h1")) == 1
    for th in driver.find_elements(By.CSS_SELECTOR, "thead th"):
        assert th.get_attribute("scope") == "col"
    controls = "textarea, select, input:not([type=hidden]):not([type=submit])"
    for field in driver.find_elements(By.CSS_SELECTOR, controls):
        label = driver.find_elements(By.CSS_SELECTOR, f"label[for='{field.get_attribute('id')}']")
        assert label, f"field {field.get_attribute('name')} has no label"
    for image in driver.find_elements(By.TAG_NAME, "img"):
        assert (image.get_attribute("alt") or "").strip(), image.get_attribute("src")
    for svg in driver.find_elements(By.CSS_SELECTOR, "main svg"):
        if svg.get_attribute("aria-hidden") == "true":
            continue
        assert svg.get_attribute("role") == "img"
        names = (svg.get_attribute("aria-labelledby") or "").split()
        assert names, "a chart without a text alternative"
        for ident in names:  # the title and description it points to exist and say something
            text = driver.execute_script(
                "return document.getElementById(arguments[0]).textContent", ident
            )
            assert text and text.strip(), ident
    for element in driver.find_elements(By.CSS_SELECTOR, "main a[href], main button, main select"):
        assert int(element.get_attribute("tabIndex") or 0) >= 0  # reachable with Tab
    assert driver.find_element(By.CSS_SELECTOR, "a.skip").get_attribute("href").endswith("#content")
    assert sideways(driver) == [], "the page scrolls sideways"


def sideways(driver) -> list[str]:
    """Elements outside a wide table's own scroller that stick out of the window's width, which
    then scrolls sideways (a long signature in a <code> did on the compare page)."""
    return driver.execute_script(
        """var width = document.documentElement.clientWidth, out = [];
        if (document.documentElement.scrollWidth <= width) return out;
        document.querySelectorAll("body *").forEach(function (e) {
          if (e.getBoundingClientRect().right > width && !e.closest(".table-wrap, figure"))
            out.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : ""));
        });
        return out.slice(0, 5);"""
    )


def tab_to(driver, element_id: str, *, limit: int = 400) -> None:
    """Press Tab from the top of the page until ``element_id`` has the focus (as a keyboard
    user would); fails when it is never reached."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver.execute_script(
        "document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)"
    )
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.execute_script("return document.activeElement.id") == element_id:
            return
    raise AssertionError(f"#{element_id} is not reached with the Tab key")


def dataset_picks_profile(driver, form: str, dataset: str, profile: str) -> tuple[Any, Any]:
    """On the run (``form="run"``) or compare (``"cmp"``) page: picking ``dataset`` picks its
    own ``profile``, said beside it, and the demo gives "the dataset's own" back (``""``:
    the service chooses, fair for the demo). The two selects."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    datasets, profiles = (
        Select(driver.find_element(By.ID, f"{form}-{kind}")) for kind in ("dataset", "profile")
    )
    datasets.select_by_value(dataset)
    assert f"scored with profile {profile}" in datasets.first_selected_option.text
    assert profiles.first_selected_option.get_attribute("value") == profile
    datasets.select_by_value("demo")
    assert profiles.first_selected_option.get_attribute("value") == ""
    return datasets, profiles


def wait_until(driver, condition, timeout: float = 20):
    """What ``condition`` returns once it is truthy: a click starts a navigation or a request
    and returns before the next page is there. Asked every 50 ms (selenium's default, 500 ms,
    waited a quarter of a second on average past the moment it held, at every wait). An
    element the page redrew between finding and reading it is asked for again (a live progress
    row is replaced when it changes: at 50 ms the condition met it mid-swap in CI)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    redrawn = (StaleElementReferenceException,)
    wait = WebDriverWait(driver, timeout, poll_frequency=POLL, ignored_exceptions=redrawn)
    return wait.until(condition)


def _stale(element) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as err:  # asked while the page is replaced: chromium's words
        if "does not belong to the document" in str(err):
            return True
        raise
    return False


def test_home_and_leaderboard(server, browser) -> None:
    from selenium.webdriver.common.by import By

    visit(browser, server.url, "home")
    assert "GERBIL QA" in browser.title
    check_accessibility(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
    labels = [r.find_element(By.CSS_SELECTOR, "th").text for r in rows]
    f1 = [float(r.find_elements(By.CSS_SELECTOR, "td.num")[0].text) for r in rows]
    assert f1 == sorted(f1, reverse=True) and f1[0] == 1.0  # best macro F1 first
    assert labels[0].endswith("-strong")  # the demo's strong answers (or a resubmission)
    # the signature next to the numbers, behind the profile (it was cut at 16 em, the rest
    # in a title only a mouse shows)
    rows[0].find_element(By.CSS_SELECTOR, "details.scoring summary").click()
    assert "gerbil-qa:fair|" in rows[0].text
    assert severe_logs(browser) == []


def test_experiment_page_citation_and_diagnostics(server, browser) -> None:
    from selenium.webdriver.common.by import By

    demo = server.demo_id
    visit(browser, f"{server.url}experiment/{demo}", "experiment-demo")
    check_accessibility(browser)
    assert browser.find_element(By.TAG_NAME, "h1").text == f"Experiment {demo}"
    table = browser.find_element(By.ID, "table-QA")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert [r.find_element(By.CSS_SELECTOR, "th").text for r in rows] == [
        "demo-strong",
        "demo-partial",
        "demo-baseline",
    ]
    assert "1.0000" in rows[0].text
    # the profile and signature the rows share, said once above the table (explore48 8)
    assert "Profile fair" in browser.find_element(By.CSS_SELECTOR, "p.profile").text
    uri = f"{server.url}experiment/{demo}"
    assert browser.find_element(By.ID, "citation-uri").text == uri
    bibtex = browser.find_element(By.ID, "citation-bibtex").text
    assert bibtex.startswith(f"@misc{{gerbilqa-{demo},") and f"url = {{{uri}}}" in bibtex
    assert uri in browser.find_element(By.ID, "citation-text").text
    formats = browser.find_elements(By.CSS_SELECTOR, "p.formats a")
    assert {a.text for a in formats} >= {"Turtle", "JSON-LD", "RDF/XML", "N-Triples", "CSV"}

    rows[1].find_element(By.CSS_SELECTOR, "th a").click()  # demo-partial's task
    wait_until(browser, lambda d: "/task/" in d.current_url and d.find_elements(By.ID, "questions"))
    shot(browser, "task-demo-partial")
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

    visit(browser, f"{server.url}sparql", "sparql")
    check_accessibility(browser)
    browser.find_element(By.ID, "example-1").click()  # a link: no script needed
    # the click only starts the request: wait for the results (a loaded CI machine is slow)
    cells = wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#results tbody tr"))
    shot(browser, "sparql-results")
    assert len(cells) >= 3
    assert "demo-strong" in cells[0].text
    box = browser.find_element(By.ID, "query")
    assert "Leaderboard" in box.get_attribute("value")  # the example is there to edit
    check_accessibility(browser)
    assert severe_logs(browser) == []


def test_owner_opens_private_experiment_and_publishes(server, browser) -> None:
    from selenium.webdriver.common.by import By

    ticket = server.submit_demo(systems=("baseline",))
    url = f"{server.url}experiment/{ticket['id']}"
    browser.delete_all_cookies()
    visit(browser, url, "private-stranger")
    assert "not public yet" in browser.find_element(By.ID, "not-public").text
    assert "demo-baseline" not in browser.page_source and "baseline" not in browser.page_source
    assert [m for m in severe_logs(browser) if "403" not in m] == []  # the 403 is expected

    browser.get(ticket["ownerLink"])
    shot(browser, "private-owner")
    assert browser.current_url == url  # the token is gone from the address bar
    assert browser.find_element(By.ID, "private-notice").is_displayed()
    assert "baseline" in browser.find_element(By.ID, "table-QA").text
    button = browser.find_element(By.ID, "publish")
    button.click()  # not ticked "for good": nothing sent (one Enter published it for good)
    assert not server.storage.experiments.is_public(ticket["id"])
    browser.find_element(By.ID, "publish-confirm").click()
    button.click()
    wait_until(browser, lambda d: not d.find_elements(By.ID, "publish") or _stale(button))
    shot(browser, "published-owner")
    assert browser.current_url == url + "?published=1#published"  # said there, focused
    assert not browser.find_elements(By.ID, "private-notice")
    assert server.storage.experiments.is_public(ticket["id"])

    # no page could withdraw it (only the API and the command line): its owner can here
    browser.find_element(By.CSS_SELECTOR, "#withdraw-link a").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "withdraw-form"))
    check_accessibility(browser)
    browser.find_element(By.ID, "withdraw-reason").send_keys("a wrong answers file")
    browser.find_element(By.ID, "withdraw").click()  # not ticked: nothing sent
    assert server.storage.experiments.status(ticket["id"]).withdrawn_at is None
    browser.find_element(By.ID, "withdraw-confirm").click()
    browser.find_element(By.ID, "withdraw").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "withdrawn-notice"))
    assert browser.current_url == url
    assert "a wrong answers file" in browser.find_element(By.ID, "withdrawn-notice").text
    assert server.storage.experiments.status(ticket["id"]).withdrawal_reason == (
        "a wrong answers file"
    )

    browser.delete_all_cookies()  # a stranger now sees it
    visit(browser, url, "published-stranger")
    assert "baseline" in browser.find_element(By.ID, "table-QA").text
    assert severe_logs(browser) == []
    # and is told who may withdraw one (the link is on every reader's page)
    stranger = server.get(f"experiment/{server.demo_id}/withdraw")
    assert stranger.status_code == 200 and 'id="withdraw-who"' in stranger.text
    assert "Only the owner" in stranger.text and 'id="withdraw-form"' not in stranger.text


def _task_path(server, system: str) -> str:
    """The QA task of ``system`` in the demo experiment."""
    rows = server.storage.public.query(
        f"""PREFIX gqa: <http://w3id.org/gerbil/qa/vocab#>
PREFIX gerbil: <http://w3id.org/gerbil/vocab#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?task WHERE {{ <{server.url}experiment/{server.demo_id}> gqa:task ?task .
  ?task gerbil:experimentType gerbil:QA ; gerbil:annotator ?s . ?s rdfs:label "{system}" }}"""
    )
    return next(iter(rows))["task"].value  # type: ignore[index]


def test_task_page_explains_and_filters_with_the_keyboard(server, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    task = _task_path(server, "demo-strong")
    visit(browser, task, "task-demo-strong")
    check_accessibility(browser)
    rules = {r.text for r in browser.find_elements(By.CSS_SELECTOR, "#questions .rule")}
    assert {"owl:sameAs", "label", "exact"} <= rules  # why each answer was judged correct
    first = browser.find_element(By.CSS_SELECTOR, "#questions tbody tr")
    assert "http://dbpedia.org/resource/Jupiter" in first.text and "owl:sameAs" in first.text
    summary = first.find_element(By.CSS_SELECTOR, "details.query summary")
    summary.click()  # the system's SPARQL opens without a script
    assert "ORDER BY DESC(?r)" in first.find_element(By.CSS_SELECTOR, "details.query pre").text

    partial = _task_path(server, "demo-partial")
    visit(browser, partial, "task-demo-partial-all")
    everything = browser.find_elements(By.CSS_SELECTOR, "#questions tbody tr")
    # a keyboard user ticks "wrong" and submits the filter
    tab_to(browser, "outcome-wrong")
    browser.switch_to.active_element.send_keys(Keys.SPACE)
    assert browser.find_element(By.ID, "outcome-wrong").is_selected()
    tab_to(browser, "apply-filters")
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait_until(browser, lambda d: "outcome=wrong" in d.current_url)
    shot(browser, "task-demo-partial-wrong")
    check_accessibility(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "#questions tbody tr")
    assert 0 < len(rows) < len(everything)
    assert {r.get_attribute("class") for r in rows} == {"outcome-wrong"}
    assert browser.find_element(By.ID, "outcome-wrong").is_selected()  # the form remembers
    # and by a question feature: number questions only
    browser.find_element(By.ID, "outcome-wrong").click()
    Select(browser.find_element(By.ID, "answertype")).select_by_visible_text("number")
    browser.find_element(By.ID, "apply-filters").click()
    wait_until(browser, lambda d: "answertype=number" in d.current_url)
    shot(browser, "task-demo-partial-number")
    texts = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#questions tbody tr")]
    assert texts and all("\nnumber" in t or " number" in t for t in texts)
    browser.find_element(By.ID, "clear-filters").click()
    wait_until(browser, lambda d: "answertype" not in d.current_url)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#questions tbody tr")) == len(everything)
    assert severe_logs(browser) == []


def test_experiment_charts_are_visible_with_their_titles(server, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    visit(browser, f"{server.url}experiment/{server.demo_id}", "experiment-charts")
    check_accessibility(browser)
    charts = {
        svg.get_attribute("id"): svg for svg in browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    }
    assert list(charts) == ["chart-measures", "chart-answer-types", "chart-scatter"]
    for svg in charts.values():
        assert svg.is_displayed() and svg.size["width"] > 200 and svg.size["height"] > 150
    title = (
        charts["chart-measures"].find_element(By.CSS_SELECTOR, "title").get_attribute("textContent")
    )
    assert title.startswith("QA measures of each system with 95 % bootstrap intervals")
    bars = charts["chart-measures"].find_elements(By.CSS_SELECTOR, "rect.bar")
    assert len(bars) >= 3 * 6 and all(b.size["height"] >= 1 for b in bars)
    assert charts["chart-measures"].find_elements(By.CSS_SELECTOR, "g.whisker")
    # forced colours (high contrast, dark): the charts' text and whiskers kept their dark
    # greys on black, a button its lack of border (explore59 F3)
    dark = [{"name": "forced-colors", "value": "active"}]
    dark.append({"name": "prefers-color-scheme", "value": "dark"})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": dark})
    try:
        shot(browser, "experiment-charts-forced-colours")
        seen = browser.execute_script(
            "var svg = document.getElementById('chart-measures'), css = getComputedStyle;"
            "return [css(document.body).color, css(svg.querySelector('text.category')).fill,"
            " css(svg.querySelector('.whisker line')).stroke,"
            " css(document.querySelector('#scatter-systems button')).borderTopWidth];"
        )
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert seen[0] != "rgb(27, 31, 35)" and seen[1:] == [seen[0], seen[0], "1px"], seen
    # the numbers behind the answer-type chart open without a script
    browser.find_element(By.XPATH, "//summary[contains(., 'answer-type chart')]").click()
    assert browser.find_element(By.ID, "table-answer-types").is_displayed()
    # another pair of systems for the scatter
    Select(browser.find_element(By.ID, "scatter-a")).select_by_visible_text("demo-baseline")
    Select(browser.find_element(By.ID, "scatter-b")).select_by_visible_text("demo-strong")
    browser.find_element(By.CSS_SELECTOR, "#scatter-systems button").click()
    wait_until(browser, lambda d: "a=demo-baseline" in d.current_url)
    shot(browser, "experiment-scatter-baseline-strong")
    scatter = browser.find_element(By.ID, "chart-scatter")
    assert (
        scatter.find_element(By.CSS_SELECTOR, "title").get_attribute("textContent")
        == "Per-question F1: demo-baseline against demo-strong"
    )
    assert scatter.find_elements(By.CSS_SELECTOR, "circle.point")
    assert severe_logs(browser) == []


def test_badge_snippet_and_bibtex_of_a_published_experiment(server, browser) -> None:
    from selenium.webdriver.common.by import By

    ticket = server.submit_demo(systems=("strong",))
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    server.post(f"api/experiments/{ticket['id']}/papers", headers=auth, json={"doi": "10.1000/b1"})
    url = f"{server.url}experiment/{ticket['id']}"
    browser.delete_all_cookies()
    visit(browser, url, "experiment-badge")
    check_accessibility(browser)
    preview = browser.find_element(By.ID, "badge-preview")
    wait_until(browser, lambda d: d.execute_script("return arguments[0].naturalWidth", preview) > 0)
    assert "answers-strong" in (preview.get_attribute("alt") or "")
    markdown = browser.find_element(By.ID, "badge-markdown").get_attribute("value")
    assert markdown.startswith("[![GERBIL QA: answers-strong scores macro F1")
    assert f"({url}/badge.svg?measure=macroF1)]({url})" in markdown
    html = browser.find_element(By.ID, "badge-html").get_attribute("value")
    assert html.startswith(f'<a href="{url}"><img src="{url}/badge.svg?measure=macroF1"')
    tab_to(browser, "badge-markdown")  # the snippets are reached with the keyboard
    assert "doi:10.1000/b1" in browser.find_element(By.ID, "citation-text").text
    assert "doi = {10.1000/b1}" in browser.find_element(By.ID, "citation-bibtex").text
    visit(browser, f"{url}/badge.svg?measure=macroF1", "badge-svg")
    assert "answers-strong" in browser.page_source
    assert severe_logs(browser) == []


def test_badge_preview_loads_where_the_page_is_served(server, browser) -> None:
    """Behind a proxy the page's origin need not be the base of its URIs (here: the same
    server reached as ``localhost``, its base naming 127.0.0.1). The preview is then still
    this server's own image: the snippets name the badge's URI, the preview is loaded from
    where the page came from (it used the URI, which the page's ``img-src 'self'`` refused:
    a console error and a broken image)."""
    from selenium.webdriver.common.by import By

    elsewhere = server.url.replace("127.0.0.1", "localhost")
    browser.delete_all_cookies()
    visit(browser, f"{elsewhere}experiment/{server.demo_id}", "experiment-badge-other-origin")
    preview = browser.find_element(By.ID, "badge-preview")
    wait_until(browser, lambda d: d.execute_script("return arguments[0].complete", preview))
    assert browser.execute_script("return arguments[0].naturalWidth", preview) > 0
    markdown = browser.find_element(By.ID, "badge-markdown").get_attribute("value")
    assert f"({server.url}experiment/{server.demo_id}/badge.svg?measure=macroF1)" in markdown
    assert severe_logs(browser) == []


def test_leaderboards_filter_and_sort(server, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    visit(browser, server.url, "home-for-leaderboards")
    browser.find_element(By.LINK_TEXT, "Leaderboards").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "leaderboard-filters"))
    shot(browser, "leaderboards")
    check_accessibility(browser)
    Select(browser.find_element(By.ID, "lb-profile")).select_by_value("fair")
    Select(browser.find_element(By.ID, "lb-language")).select_by_value("en")
    browser.find_element(By.ID, "apply-leaderboard").click()
    wait_until(browser, lambda d: "profile=fair" in d.current_url)
    shot(browser, "leaderboards-fair-en")
    table = browser.find_element(By.ID, "leaderboard-table")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    profile = _column(table, "Profile")
    assert rows and {_cells(r)[profile].text for r in rows} == {"fair"}
    assert browser.find_elements(By.CSS_SELECTOR, "td.tier")  # comparable rows get tiers
    # a row's signature (the page's test of "comparable") was a title only a mouse shows: it
    # opens from the keyboard (and by touch) now
    from selenium.webdriver.common.keys import Keys

    summary = _cells(rows[0])[profile].find_element(By.CSS_SELECTOR, "details.scoring summary")
    signature = _cells(rows[0])[profile].find_element(By.CSS_SELECTOR, "details.scoring code")
    assert not signature.is_displayed()
    summary.send_keys(Keys.ENTER)
    assert signature.is_displayed() and signature.text.startswith("gerbil-qa:fair|v:")
    assert 'title="gerbil-qa:' not in browser.page_source
    # sort by micro F1 with the column header's link
    table.find_element(By.LINK_TEXT, "micro F1").click()
    wait_until(browser, lambda d: "sort=microF1" in d.current_url)
    shot(browser, "leaderboards-fair-en-micro-f1")
    check_accessibility(browser)
    sorted_by = browser.find_element(By.CSS_SELECTOR, "th[aria-sort=descending]")
    assert sorted_by.text.startswith("micro F1")
    # aria-sort says it: the triangle is not read out too; the navigation says where one is
    assert sorted_by.find_element(By.CSS_SELECTOR, "[aria-hidden=true]").text == "▼"
    assert browser.find_element(By.CSS_SELECTOR, "nav [aria-current=page]").text == "Leaderboards"
    title = browser.title  # what the tab shows (every board was "Leaderboards")
    assert title.startswith("QA on ") and "en, profile fair: by micro F1 · Leaderboards" in title
    table = browser.find_element(By.ID, "leaderboard-table")
    micro = _column(table, "micro F1")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    values = [float(_cells(r)[micro].text.split()[0]) for r in rows]
    assert values == sorted(values, reverse=True) and len(values) >= 3
    assert "profile=fair" in browser.current_url and "language=en" in browser.current_url
    tab_to(browser, "lb-sort")
    assert severe_logs(browser) == []


def test_a_phone_reads_each_leaderboard_rows_ranked_measure(server, browser) -> None:
    """At 375 px the ranked measure's column started 573 px into the table (after Compare, #,
    Tier, System, Dataset, Lang., Profile): the first screen showed ranks and names, no score.
    Now it is said under the system's name on narrow screens (the live and the home board)."""
    from selenium.webdriver.common.by import By

    size = browser.get_window_size()
    seen = []
    try:
        for width in (375, 1280):
            browser.set_window_size(width, 812)
            for page, column in (
                ("leaderboards?profile=fair&language=en", "macro F1"),
                ("", "Macro F1"),
            ):
                browser.get(server.url + page)
                table = browser.find_element(By.CSS_SELECTOR, "table.leaderboard")
                row = table.find_element(By.CSS_SELECTOR, "tbody tr")
                value = _cells(row)[_column(table, column)].text.split()[0]
                score = row.find_element(By.CSS_SELECTOR, "th .narrow-score")
                right = browser.execute_script(
                    "var text = document.createRange(); text.selectNodeContents(arguments[0]);"
                    "return [text.getBoundingClientRect().right, window.innerWidth]",
                    score,
                )
                seen.append((width, page, score.is_displayed(), score.text, value, right))
    finally:
        browser.set_window_size(size["width"], size["height"])
    for width, page, shown, text, value, (right, window) in seen:
        if width == 375:
            assert shown and text.endswith(value) and right <= window, (page, text, value, right)
        else:
            assert not shown, page


def test_a_phone_opens_a_rows_signature_in_readable_lines(server, browser) -> None:
    """Opened at 375 px a row's signature took its Profile cell's width: 56 px, 7 characters a
    line over 30 lines, most of a screen (explore-20 8). Now it has room, the table scrolling
    in its box, the page not sideways."""
    from selenium.webdriver.common.by import By

    size = browser.get_window_size()
    try:
        browser.set_window_size(375, 812)
        browser.get(server.url + "leaderboards?profile=fair&language=en")
        summary = browser.find_element(By.CSS_SELECTOR, "table.leaderboard details.scoring summary")
        summary.click()
        code = browser.find_element(By.CSS_SELECTOR, "table.leaderboard details.scoring[open] code")
        width, height = code.size["width"], code.size["height"]
        page_width = browser.execute_script("return document.documentElement.scrollWidth")
        inner = browser.execute_script("return window.innerWidth")
    finally:
        browser.set_window_size(size["width"], size["height"])
    # fair 1.2.0's signature (~290 characters) takes some ten lines at 224 px; at 56 px it
    # took some forty (over 800 px)
    assert width >= 200 and height < 350, (width, height)
    assert page_width <= inner, (page_width, inner)


def test_links_say_where_they_go_out_of_context(server, browser) -> None:
    """A screen reader's list of links had "1.000" (a comparison's scores), "1", "2"… (a task's
    questions), the bare experiment id (a leaderboard's tasks) and six links "gold" (one per
    experiment type): each is named with what it leads to now."""
    from selenium.webdriver.common.by import By

    def names(selector: str) -> list[str]:
        return [a.accessible_name for a in browser.find_elements(By.CSS_SELECTOR, selector)]

    visit(browser, f"{server.url}experiment/{server.demo_id}", "experiment-link-names")
    said = names("#table-QA tbody th a")
    assert said and all(n.endswith("(QA, en)") for n in said), said
    task = browser.find_element(By.CSS_SELECTOR, "#table-QA tbody th a").get_attribute("href")
    browser.find_element(By.ID, "compare-systems").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "compare-differences"))
    said = names("#compare-differences tbody a")
    assert said and all(" on question " in n and ": " in n for n in said), said
    browser.get(task)
    said = names("#questions tbody th a")
    assert said and said[0].startswith("question "), said
    browser.get(server.url + "leaderboards?profile=fair&language=en")
    said = names("#leaderboard-table tbody td a[href*='/task/']")
    assert said and all(n.endswith("'s task") for n in said), said


def test_freezing_the_leaderboard_a_paper_cites(server, browser) -> None:
    """A challenge organiser freezes the standings the page shows (tiers and intervals
    included) and lands on their frozen page, whose URI a paper cites."""
    from selenium.webdriver.common.by import By

    visit(browser, server.url + "leaderboards?profile=fair&language=en", "leaderboard-to-freeze")
    live = browser.find_element(By.ID, "leaderboard-table")
    systems = [
        _cells(r)[_column(live, "System")].text
        for r in live.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    # a tier, or "–" (the live board's links its reason, said under the table)
    tiers = [td.text.split()[0] for td in live.find_elements(By.CSS_SELECTOR, "td.tier")]
    browser.find_element(By.ID, "freeze-title").send_keys("Demo challenge, final standings")
    browser.find_element(By.ID, "freeze").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "frozen-table"))
    shot(browser, "frozen-leaderboard")
    check_accessibility(browser)
    assert "/leaderboard/" in browser.current_url
    assert browser.find_element(By.TAG_NAME, "h1").text == "Demo challenge, final standings"
    frozen = browser.find_element(By.ID, "frozen-table")
    rows = frozen.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert [_cells(r)[_column(frozen, "System")].text for r in rows] == systems
    # as frozen: a tier, or "–" linking the reason kept with the row, as the live board's
    assert [td.text.split()[0] for td in frozen.find_elements(By.CSS_SELECTOR, "td.tier")] == tiers
    browser.find_element(By.ID, "live-leaderboard").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "leaderboard-table"))
    assert "profile=fair" in browser.current_url and "language=en" in browser.current_url
    assert severe_logs(browser) == []


def _column(table, heading: str) -> int:
    """The index of the column whose header starts with ``heading``."""
    from selenium.webdriver.common.by import By

    headers = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
    return next(n for n, text in enumerate(headers) if text.startswith(heading))


def _cells(row) -> list:
    from selenium.webdriver.common.by import By

    return row.find_elements(By.CSS_SELECTOR, "th, td")


def test_dataset_page_is_light(server, browser) -> None:
    from selenium.webdriver.common.by import By

    visit(browser, f"{server.url}experiment/{server.demo_id}", "experiment-for-dataset")
    browser.find_element(By.CSS_SELECTOR, "dl.facts dd a").click()  # the dataset
    wait_until(browser, lambda d: "/dataset/" in d.current_url)
    shot(browser, "dataset-demo")
    check_accessibility(browser)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#dataset-questions tbody tr")) == 14
    assert browser.find_element(By.ID, "findings").is_displayed()
    assert len(browser.page_source) < 60_000
    assert severe_logs(browser) == []


def test_compare_uploaded_answer_files(server, browser) -> None:
    """From the home page: open Compare, upload the demo dataset and two answer files, see the
    tiers, the charts with their titles and the per-question differences."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from service.paths import DEMO_DIR

    visit(browser, server.url, "compare-from-home")
    browser.find_element(By.LINK_TEXT, "Compare").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "compare-form"))
    shot(browser, "compare-form")
    check_accessibility(browser)
    browser.find_element(By.ID, "cmp-dataset-file").send_keys(str(DEMO_DIR / "questions.json"))
    answers = [str(DEMO_DIR / "answers-strong.json"), str(DEMO_DIR / "answers-partial.json")]
    browser.find_element(By.ID, "cmp-answers").send_keys("\n".join(answers))
    Select(browser.find_element(By.ID, "cmp-profile")).select_by_value("exact")
    browser.find_element(By.ID, "compare-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "compare-systems"))
    shot(browser, "compare-result")
    check_accessibility(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "#compare-systems tbody tr")
    assert rows[0].find_element(By.TAG_NAME, "th").text == "answers-strong"
    charts = {s.get_attribute("id"): s for s in browser.find_elements(By.CSS_SELECTOR, "svg.chart")}
    assert set(charts) == {
        "chart-compare-measures",
        "chart-compare-answer-types",
        "chart-compare-scatter",
    }
    for svg in charts.values():
        assert svg.is_displayed() and svg.size["width"] > 200
    assert browser.find_elements(By.CSS_SELECTOR, "#compare-differences tbody tr")
    assert severe_logs(browser) == []


def test_ticked_rows_of_a_c2kb_leaderboard_are_compared(server, browser) -> None:
    """On the C2KB leaderboard of the demo: tick two rows, press "Compare the ticked systems",
    see their C2KB results in tiers with intervals and charts; before, the page refused them
    ("a C2KB task; compare QA tasks")."""
    from selenium.webdriver.common.by import By

    dataset = server.get(f"api/experiments/{server.demo_id}").json()["dataset"]
    name = dataset.rstrip("/").rsplit("/", 1)[-1]  # the served demo's (modules publish variants)
    board = f"{server.url}leaderboards?type=C2KB&profile=fair&language=en&dataset={name}"
    visit(browser, board, "leaderboard-c2kb")
    rows = [
        row
        for row in browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr")
        if f"/experiment/{server.demo_id}/" in row.get_attribute("innerHTML")
    ]
    assert len(rows) == 2, "the demo's strong and partial systems have C2KB tasks"
    for row in rows:
        row.find_element(By.NAME, "task").click()
    browser.find_element(By.ID, "compare-ticked").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "compare-systems"))
    shot(browser, "compare-c2kb")
    check_accessibility(browser)
    assert "C2KB macro F1" in browser.find_element(By.ID, "result").text
    # the result is where the page opens (it came after 11 controls of the empty form), and
    # its tab's title says what it compared (every comparison was "Compare systems")
    assert browser.current_url.endswith("#result"), browser.current_url
    assert browser.title.startswith(f"{name}: C2KB macro F1, profile fair · Compare systems")
    table = browser.find_element(By.ID, "compare-systems")
    assert "C2KB" in table.find_element(By.TAG_NAME, "caption").text
    cells = [
        [c.text for c in r.find_elements(By.CSS_SELECTOR, "td, th")]
        for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")
    ]
    assert len(cells) == 2 and cells[0][0] == "1", cells
    assert all(c[3].startswith("[") for c in cells), cells  # each with its interval
    charts = browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    assert charts and all(c.is_displayed() for c in charts)
    assert severe_logs(browser) == []
