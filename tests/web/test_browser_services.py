"""A QA system developer's run in a real browser (Debian chromium, headless): from the run
page, three QA web services started here on 127.0.0.1 (one answering, one failing every call,
one failing each question's first call, so it is retried) and an eQALD answer file with
confidences. The progress is watched live until the error-rate rule stops the failing service,
then the experiment page (the note saying which system was left out) and the task pages
(warnings, confidences, retried questions), with axe-core and 320 px wide as
``test_browser_a11y.py`` checks every kind of page, and with the keyboard.
"""

from __future__ import annotations

import collections
import json
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from service.paths import DEMO_DIR
from tests.web.test_browser import wait_until
from tests.web.test_browser_a11y import Findings, audit, scripts, visit

pytestmark = pytest.mark.browser

ABORTED = "aborted: too many errors, not scored"


class _Services(BaseHTTPRequestHandler):
    """``/good``: the demo's right answers; ``/broken``: a 400 each call; ``/flaky``: a 503 on
    each question's first call, the right answers on the next. ``/good`` takes its time, so
    the run is still going when the broken service is stopped."""

    answers: ClassVar[dict[str, list]] = {
        t["string"]: q["answers"]
        for q in json.loads((DEMO_DIR / "answers-strong.json").read_text())["questions"]
        for t in q["question"]
    }
    calls: ClassVar[collections.Counter[str]] = collections.Counter()
    lock = threading.Lock()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        form = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        text = urllib.parse.parse_qs(form).get("query", [""])[0]
        if self.path == "/broken":
            return self._reply(400, b"this service is broken", "text/plain")
        if self.path == "/flaky":
            with self.lock:
                self.calls[text] += 1
                first = self.calls[text] == 1
            if first:
                return self._reply(503, b"overloaded, try again", "text/plain")
        else:
            time.sleep(0.25)
        question = {"id": "1", "answers": self.answers.get(text, [])}
        self._reply(200, json.dumps({"questions": [question]}).encode(), "application/json")

    def _reply(self, status: int, body: bytes, media_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", media_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def tab_until(driver, css: str, *, limit: int = 300) -> None:
    """Press Tab from the top of the page until an element matching ``css`` has the focus."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.execute_script("return document.activeElement.matches(arguments[0])", css):
            return
    raise AssertionError(f"{css} is not reached with the Tab key")


@dataclass
class Walk:
    experiment: str  # the finished experiment page's URL
    tasks: dict[str, str]  # each system's QA task page
    live: list[str]  # the progress section's texts as they were shown
    findings: Findings  # axe and 320 px on the running and finished pages


@pytest.fixture(scope="module")
def services() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Services)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def _eqald(folder: Path) -> Path:
    """The demo's partial answers as eQALD-JSON, each answer with a confidence."""
    answers = json.loads((DEMO_DIR / "answers-partial.json").read_text())
    for i, question in enumerate(answers["questions"]):
        for answer in question["answers"]:
            answer["confidence"] = str(round(0.9 - 0.05 * i, 2))
    path = folder / "eqald-partial.json"
    path.write_text(json.dumps(answers))
    return path


@pytest.fixture(scope="module")
def walk(server, browser, services, tmp_path_factory) -> Walk:
    """Submitted from the run page and watched with JavaScript until its results swap in."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    findings = Findings(failures=[], notes=[])
    visit(browser, f"{server.url}experiments/new", javascript=True)
    Select(browser.find_element(By.ID, "run-dataset")).select_by_value("demo")
    browser.find_element(By.ID, "run-answers").send_keys(str(_eqald(tmp_path_factory.mktemp("a"))))
    systems = (f"broken={services}broken", f"good={services}good", f"flaky={services}flaky")
    browser.find_element(By.ID, "run-webservice").send_keys("\n".join(systems))
    browser.find_element(By.ID, "run-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "open-experiment"))
    browser.find_element(By.ID, "open-experiment").click()
    live: list[str] = []

    def seen(driver) -> bool:
        shown = driver.find_elements(By.ID, "progress")
        live.extend(s.text for s in shown[:1])
        return bool(shown) and ABORTED in shown[0].text

    wait_until(browser, seen, timeout=30)
    audit(browser, "running, a service stopped", findings)
    wait_until(browser, lambda d: not d.find_elements(By.ID, "progress"), timeout=60)
    experiment = browser.current_url
    audit(browser, "finished (swapped in)", findings)
    rows = browser.find_elements(By.CSS_SELECTOR, "#table-QA tbody th a")
    tasks = {a.text: a.get_attribute("href") for a in rows}
    return Walk(experiment=experiment, tasks=tasks, live=live, findings=findings)


def test_a_stopped_service_is_shown_live_then_noted_and_every_page_fits(
    walk: Walk, browser
) -> None:
    from selenium.webdriver.common.by import By

    assert walk.live and "s elapsed" in walk.live[0]  # the clock runs while it runs
    assert any(ABORTED in text and "running" in text for text in walk.live), walk.live
    visit(browser, walk.experiment, javascript=False)
    note = browser.find_element(By.CSS_SELECTOR, "p.experiment-note").text
    assert "system broken was aborted by the error-rate rule" in note, note
    assert set(walk.tasks) == {"good", "flaky", "eqald-partial"}, walk.tasks
    files = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "dl.facts dd a[download]")]
    assert files[:2] == ["questions.json", "eqald-partial.json"], files  # the dataset first
    for system, task in walk.tasks.items():
        for javascript in (True, False):
            visit(browser, task, javascript=javascript)
            audit(browser, f"task of {system}, JavaScript {javascript}", walk.findings)
    visit(browser, walk.tasks["eqald-partial"], javascript=True)
    confidences = browser.find_elements(By.CSS_SELECTOR, "#questions .confidence")
    assert confidences and confidences[0].text == "confidence 0.90"
    tab_until(browser, "#warnings > summary")  # the warnings open and close from the keyboard
    scripts(browser, on=True)
    assert not walk.findings.failures, "\n".join(walk.findings.failures)


def test_why_a_question_was_retried_is_reached_without_a_mouse(walk: Walk, browser) -> None:
    # the reason was only the title of "after 2 attempts": a tooltip, shown on hover alone
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    visit(browser, walk.tasks["flaky"], javascript=False)
    tab_until(browser, "#questions .attempts summary")
    summary = browser.switch_to.active_element
    assert summary.text == "after 2 attempts"
    reason = browser.find_element(By.CSS_SELECTOR, "#questions .attempts .retry-reason")
    assert not reason.is_displayed()
    summary.send_keys(Keys.ENTER)
    assert reason.is_displayed() and "HTTP 503" in reason.text, reason.text
