"""Every kind of page for people, checked by axe-core (the engine the ``selenium-axe-python``
package ships) in a real browser (Debian chromium, headless), with JavaScript and without it.

The rules of WCAG 2.0 and 2.1, levels A and AA, and axe's best practices run on each page; a
violation of impact serious or critical of a WCAG rule fails the test, naming the page, the rule
and the elements; every other finding (a best practice, a moderate or minor impact) is reported
as a warning. Each page is also shown 320 px wide (a 1280 px window zoomed to 400 %): nothing
but a table or code may scroll sideways there (WCAG 1.4.10, which axe does not check).

One browser session: "without JavaScript" is the same chromium with scripts turned off while a
page loads (DevTools ``Emulation.setScriptExecutionDisabled``: the page's scripts do not run and
its ``<noscript>`` parts are shown), then on again for axe, which is itself a script.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from service.paths import DEMO_DIR

pytestmark = pytest.mark.browser

WCAG = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
INFORMATIONAL = ("best-practice",)
FAILING_IMPACTS = ("serious", "critical")
NARROW = 320  # CSS px

RUN_AXE = """var done = arguments[arguments.length - 1];
axe.run(document, arguments[0]).then(done, function (e) { done({error: String(e)}); });"""

# what sticks out of a narrow window outside a table's or a code block's own scroller
SIDEWAYS = """var width = document.documentElement.clientWidth;
if (document.documentElement.scrollWidth <= width) return [];
return Array.from(document.querySelectorAll("body *")).filter(function (e) {
  return e.getBoundingClientRect().right > width + 1 && !e.closest(".table-wrap, figure, pre");
}).slice(0, 3).map(function (e) { return e.tagName.toLowerCase() + (e.id ? "#" + e.id : ""); })
  .concat(["page " + document.documentElement.scrollWidth + " px wide"]);"""


@dataclass
class Findings:
    failures: list[str]
    notes: list[str]


def scripts(driver, *, on: bool) -> None:
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not on})


def audit(driver, page: str, findings: Findings) -> None:
    """Run axe on the page shown (scripts turned on for it) and 320 px wide; record what fails."""
    from selenium_axe_python import Axe

    scripts(driver, on=True)
    Axe(driver).inject()
    # only the violations' nodes: axe's details of every passing node (unused here) were half
    # of its time on the larger pages
    options = {
        "runOnly": {"type": "tag", "values": [*WCAG, *INFORMATIONAL]},
        "resultTypes": ["violations"],
    }
    result = driver.execute_async_script(RUN_AXE, options)
    assert "error" not in result, (page, result)
    assert result["passes"], f"{page}: axe checked nothing"  # it ran its rules on a real page
    for rule in result["violations"]:
        targets = [" ".join(node["target"]) for node in rule["nodes"]]
        line = f"{page}: {rule['id']} ({rule['impact']}) {rule['help']}: {', '.join(targets[:5])}"
        fails = rule["impact"] in FAILING_IMPACTS and set(rule["tags"]) & set(WCAG)
        (findings.failures if fails else findings.notes).append(line)
    narrow(driver, page, findings)


# a wide table's caption laid out at the table's width: one clipped line on a phone
CLIPPED_CAPTIONS = """var width = document.documentElement.clientWidth;
return Array.from(document.querySelectorAll(".table-wrap caption")).filter(function (c) {
  return c.getBoundingClientRect().width > width + 1;
}).slice(0, 3).map(function (c) { return c.textContent.slice(0, 40); });"""


def narrow(driver, page: str, findings: Findings) -> None:
    metrics = {"width": NARROW, "height": 800, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        wide = driver.execute_script(SIDEWAYS)
        clipped = driver.execute_script(CLIPPED_CAPTIONS)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    if wide:
        findings.failures.append(f"{page}: scrolls sideways at {NARROW} px ({', '.join(wide)})")
    if clipped:
        findings.failures.append(f"{page}: captions wider than {NARROW} px: {clipped}")


def visit(driver, url: str, *, javascript: bool) -> None:
    scripts(driver, on=javascript)
    driver.get(url)


def submit(driver, button_id: str, ready: Callable, *, javascript: bool) -> None:
    """Click a form's submit button as a reader with or without scripts; wait for the page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    scripts(driver, on=javascript)
    driver.find_element(By.ID, button_id).click()
    WebDriverWait(driver, 30, poll_frequency=0.05).until(ready)  # not 0.5 s: no wait past it


@pytest.fixture(scope="module")
def dataset_version(server) -> str:
    """A registered version of a dataset (as ``gerbil-qa dataset refresh --store`` makes)."""
    return server.register_version("a11y-versioned", kb="demo", version="2024-05")[0]


def link(driver, css: str) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, css).get_attribute("href")


def plain_pages(server, driver, version: str) -> dict[str, str]:
    """Each kind of page reached by a link (the name says which), from the demo experiment."""
    experiment = f"{server.url}experiment/{server.demo_id}"
    driver.get(experiment)
    task = link(driver, "#table-QA tbody tr:nth-child(2) th a")  # demo-partial: every outcome
    breakdown = link(driver, "#breakdown-links a")  # the QA measures by a feature's values
    pages = {
        "home": server.url,
        "experiments": f"{server.url}experiments",
        "experiment (charts, breakdown)": breakdown,
        "task": task,
        "task, filtered": f"{task}?outcome=wrong",
        "question of a task": f"{task}/question/1",
        "leaderboards": f"{server.url}leaderboards",
        "leaderboards, filtered and sorted": (
            f"{server.url}leaderboards?profile=fair&language=en&sort=microF1"
        ),
        "dataset": link(driver, "dl.facts dd a"),
        "dataset version": version,
        "question of a dataset version": f"{version}/question/1",
        "system": f"{server.url}system/demo-strong",
        "systems": f"{server.url}systems",
        "catalogue": f"{server.url}catalog",
        "vocabulary": f"{server.url}vocab",
        "API": f"{server.url}api",
        "run (form)": f"{server.url}experiments/new",
        "compare (form)": f"{server.url}compare",
        "SPARQL": f"{server.url}sparql",
        "404": f"{server.url}no-such-page",
        "400 (a bad filter)": f"{server.url}leaderboards?profile=no-such-profile",
    }
    driver.get(pages["SPARQL"])
    pages["SPARQL, an example's results"] = link(driver, "#example-1")
    return pages


def compare_result(server, driver, findings: Findings, *, javascript: bool, mode: str) -> None:
    from selenium.webdriver.common.by import By

    visit(driver, f"{server.url}compare", javascript=javascript)
    driver.find_element(By.ID, "cmp-dataset-file").send_keys(str(DEMO_DIR / "questions.json"))
    answers = [str(DEMO_DIR / f"answers-{name}.json") for name in ("strong", "partial")]
    driver.find_element(By.ID, "cmp-answers").send_keys("\n".join(answers))
    ready = lambda d: d.find_elements(By.ID, "compare-systems")  # noqa: E731
    submit(driver, "compare-submit", ready, javascript=javascript)
    audit(driver, f"compare (result), {mode}", findings)


def owner_pages(server, driver, findings: Findings, slow_qa: str) -> None:
    """A run submitted on the run page and watched while it runs (its owner's view, with and
    without scripts); a private experiment as its owner and as a stranger sees it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    visit(driver, f"{server.url}experiments/new", javascript=True)
    Select(driver.find_element(By.ID, "run-dataset")).select_by_value("demo")
    driver.find_element(By.ID, "run-webservice").send_keys(f"slow={slow_qa}delay/2")
    ready = lambda d: d.find_elements(By.ID, "token-notice")  # noqa: E731
    submit(driver, "run-submit", ready, javascript=True)
    audit(driver, "submitted (owner token)", findings)
    running = link(driver, "#open-experiment")
    # the run page lists this browser's own runs (their table widened the page on a phone)
    visit(driver, f"{server.url}experiments/new", javascript=True)
    assert driver.find_elements(By.CSS_SELECTOR, "table.own-runs")
    audit(driver, "run page with this browser's runs", findings)
    for javascript, mode in ((True, "with JavaScript"), (False, "without JavaScript")):
        visit(driver, running, javascript=javascript)
        assert driver.find_elements(By.ID, "progress-table"), "the run ended before it was seen"
        # the mode is what it says: the reload links are a <noscript> part
        assert bool(driver.find_elements(By.ID, "reload-auto")) is not javascript
        audit(driver, f"experiment while it runs, {mode}", findings)

    ticket = server.submit_demo(systems=("baseline",))
    visit(driver, ticket["ownerLink"], javascript=True)
    assert driver.find_elements(By.ID, "private-notice")
    audit(driver, "private experiment, its owner", findings)
    driver.delete_all_cookies()
    visit(driver, f"{server.url}experiment/{ticket['id']}", javascript=True)
    assert driver.find_elements(By.ID, "not-public")
    audit(driver, "private experiment, a stranger (403)", findings)


def test_every_kind_of_page_passes_axe(server, browser, slow_qa, dataset_version) -> None:
    assert server.get("leaderboards?profile=no-such-profile").status_code == 400
    assert server.get("no-such-page").status_code == 404
    findings = Findings(failures=[], notes=[])
    pages = plain_pages(server, browser, dataset_version)
    for javascript, mode in ((True, "with JavaScript"), (False, "without JavaScript")):
        browser.delete_all_cookies()
        for name, url in pages.items():
            visit(browser, url, javascript=javascript)
            audit(browser, f"{name}, {mode}", findings)
        compare_result(server, browser, findings, javascript=javascript, mode=mode)
    owner_pages(server, browser, findings, slow_qa)
    scripts(browser, on=True)
    for note in findings.notes:
        warnings.warn(f"axe (not failing): {note}", stacklevel=1)
    assert not findings.failures, "\n".join(findings.failures)
