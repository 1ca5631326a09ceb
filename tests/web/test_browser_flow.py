"""The whole flow of a researcher in a real browser (Debian chromium, headless): from the home
page open the run page, pick the demo dataset, upload the demo's answer file, submit, keep the
token, watch the experiment finish without reloading, open the per-question view, publish, find
it on the leaderboard, compare two systems and see the charts. Also: a web-service run watched
live (counters move, results swap in, no reload) and cancelled by its owner; and, with
JavaScript turned off, a run watched to its results (the page reloads itself when asked),
published, and the SPARQL page's examples run.

Screenshots of every page visited go where ``test_browser.py`` puts them (``var/screenshots/``).
"""

from __future__ import annotations

import re
import time

import pytest

from service.paths import DEMO_DIR
from tests.web.test_browser import (
    check_accessibility,
    severe_logs,
    shot,
    visit,
    wait_until,
)

pytestmark = pytest.mark.browser


def _run_page(browser, server) -> None:
    from selenium.webdriver.common.by import By

    visit(browser, server.url, "flow-home")
    browser.find_element(By.ID, "home-new-experiment").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "run-form"))


def _submit_run(browser, *, answers: list[str] = (), webservice: str = "") -> str:
    """Fill the run page (dataset demo) and submit; the experiment id from the token page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(By.ID, "run-dataset")).select_by_value("demo")
    if answers:
        browser.find_element(By.ID, "run-answers").send_keys("\n".join(answers))
    if webservice:
        browser.find_element(By.ID, "run-webservice").send_keys(webservice)
    Select(browser.find_element(By.ID, "run-profile")).select_by_value("fair")
    browser.find_element(By.ID, "run-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "token-notice"))
    link = browser.find_element(By.ID, "owner-link").get_attribute("value")
    eid = link.split("?", 1)[0].rsplit("/", 1)[-1]
    # how to attach a paper, which it promised and no page offers (explore-15 10)
    notice = browser.find_element(By.ID, "token-notice").text
    assert "POST http" in notice and f"/api/experiments/{eid}/papers" in notice, notice
    return eid


def test_run_watch_drill_down_publish_rank_and_compare(server, browser) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.delete_all_cookies()
    _run_page(browser, server)
    shot(browser, "flow-run-page")
    check_accessibility(browser)
    # the search narrows the list to the matching datasets
    browser.find_element(By.ID, "dataset-search").send_keys("qald-9 test")
    shown = [
        o.get_attribute("value")
        for o in browser.find_elements(By.CSS_SELECTOR, "#run-dataset option")
        if o.get_attribute("value") and not o.get_attribute("hidden")
    ]
    assert shown and all("qald-9" in v and "test" in v for v in shown), shown
    shot(browser, "flow-run-page-search")
    # a name typed and Enter: that dataset, not the dated history version listed first, and
    # no run sent (Enter submitted the whole form, on the first match); said to a screen reader
    search = browser.find_element(By.ID, "dataset-search")
    search.clear()
    search.send_keys("qald-9-test-multilingual\n")
    chosen = Select(browser.find_element(By.ID, "run-dataset")).first_selected_option
    assert chosen.get_attribute("value") == "qald-9-test-multilingual"
    assert browser.current_url.endswith("experiments/new")
    status = browser.find_element(By.ID, "dataset-search-status").text
    assert "chosen: qald-9-test-multilingual" in status and "matching" in status, status
    search.clear()
    search.send_keys("qald-9-test")
    chosen = Select(browser.find_element(By.ID, "run-dataset")).first_selected_option
    assert chosen.get_attribute("value") == "qald-9-test-multilingual"
    search.clear()

    experiment_id = _submit_run(browser, answers=[str(DEMO_DIR / "answers-strong.json")])
    shot(browser, "flow-submitted")
    check_accessibility(browser)
    token = browser.find_element(By.ID, "owner-token").get_attribute("value")
    assert len(token) >= 20
    browser.find_element(By.ID, "copy-owner-token").click()
    wait_until(browser, lambda d: d.find_element(By.ID, "copy-status").text == "Copied.")

    browser.find_element(By.ID, "open-experiment").click()
    browser.execute_script("window.gqaMarker = 42")  # gone if the page reloads
    wait_until(browser, lambda d: d.find_elements(By.ID, "table-QA"), timeout=60)
    shot(browser, "flow-experiment-finished")
    check_accessibility(browser)
    assert browser.find_element(By.ID, "private-notice").is_displayed()  # the owner sees it
    assert "answers-strong" in browser.find_element(By.ID, "table-QA").text

    # the per-question view of the system's QA task
    browser.find_element(By.CSS_SELECTOR, "#table-QA tbody th a").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "questions"))
    shot(browser, "flow-per-question")
    check_accessibility(browser)
    assert browser.find_elements(By.CSS_SELECTOR, "#questions tbody tr")
    assert browser.find_elements(By.CSS_SELECTOR, ".rule")  # the rule that decided an answer
    browser.back()

    wait_until(browser, lambda d: d.find_elements(By.ID, "publish"))
    browser.find_element(By.ID, "publish-confirm").click()  # for good: said and ticked
    browser.find_element(By.ID, "publish").click()
    wait_until(browser, lambda d: not d.find_elements(By.ID, "private-notice"))
    shot(browser, "flow-published")
    # said, and the reader taken there (the page only gained a "Published" row)
    assert "Published:" in browser.find_element(By.ID, "published").text
    assert browser.execute_script("return document.activeElement.id") == "published"
    assert server.storage.experiments.is_public(experiment_id)

    # the leaderboard of the demo dataset lists it
    browser.find_element(By.LINK_TEXT, "Leaderboards").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "leaderboard-filters"))
    Select(browser.find_element(By.ID, "lb-profile")).select_by_value("fair")
    browser.find_element(By.ID, "apply-leaderboard").click()
    wait_until(browser, lambda d: "profile=fair" in d.current_url)
    shot(browser, "flow-leaderboard")
    links = browser.find_elements(
        By.CSS_SELECTOR, f"#leaderboard-table a[href*='/experiment/{experiment_id}']"
    )
    assert links, "the published experiment is not on the leaderboard"

    # tick it and another system on the leaderboard: compare them, with charts
    links[0].find_element(By.XPATH, "ancestor::tr").find_element(By.NAME, "task").click()
    others = [
        row
        for row in browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr")
        if f"/experiment/{experiment_id}/" not in row.get_attribute("innerHTML")
    ]
    others[-1].find_element(By.NAME, "task").click()
    browser.find_element(By.ID, "compare-ticked").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "compare-systems"))
    shot(browser, "flow-compare")
    check_accessibility(browser)
    systems = browser.find_elements(By.CSS_SELECTOR, "#compare-systems tbody th")
    assert "answers-strong" in {s.text for s in systems} and len(systems) == 2
    charts = browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    assert len(charts) >= 2 and all(c.is_displayed() for c in charts)
    assert severe_logs(browser) == []


def test_a_web_service_run_is_watched_live_and_results_swap_in(server, browser, slow_qa) -> None:
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    _run_page(browser, server)
    _submit_run(browser, webservice=f"slow={slow_qa}delay/0.5")
    browser.find_element(By.ID, "open-experiment").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "progress-table"))
    browser.execute_script("window.gqaMarker = 42")
    # what a screen reader is told (it was the clock, every second, and nothing at the end)
    browser.execute_script(
        "window.gqaSaid = []; var live = document.getElementById('progress-announce');"
        "new MutationObserver(function () { window.gqaSaid.push(live.textContent); })"
        ".observe(live, {childList: true, characterData: true, subtree: true});"
    )

    def counted(driver) -> int:
        cells = driver.find_elements(By.CSS_SELECTOR, "#progress-table tbody td.num")
        if not cells:
            return 0
        done, _, total = cells[0].text.strip().partition("/")
        return int(done) if done.isdigit() and total and int(done) < int(total) else 0

    wait_until(browser, counted, timeout=60)
    shot(browser, "flow-live-progress")
    # on a phone the counts and errors are on screen (the table was 651 px wide at 375 px)
    size = browser.get_window_size()
    browser.set_window_size(375, 812)
    try:
        fit = browser.execute_script(
            "var table = document.getElementById('progress-table');"
            "return [table.scrollWidth, table.closest('.table-wrap').clientWidth,"
            " [...table.querySelectorAll('th, td')].map(c => c.textContent + c.offsetWidth)];"
        )
    finally:
        browser.set_window_size(size["width"], size["height"])
    assert fit[0] <= fit[1], fit
    check_accessibility(browser)
    assert "elapsed" in browser.find_element(By.ID, "progress-time").text
    wait_until(browser, lambda d: d.find_elements(By.ID, "table-QA"), timeout=90)
    shot(browser, "flow-live-finished")
    assert browser.execute_script("return window.gqaMarker") == 42  # no reload
    assert "slow" in browser.find_element(By.ID, "table-QA").text
    said = browser.execute_script("return window.gqaSaid")
    assert said and said[-1] == "Finished: the results are below.", said
    assert any("questions done" in m for m in said) and not any("elapsed" in m for m in said)
    assert len(said) <= 14, said  # a tenth of the questions at a time, not each second
    assert browser.execute_script("return document.activeElement.id") == "content"  # main
    assert severe_logs(browser) == []


def test_the_script_says_an_answer_file_is_read_not_asked(server, browser, slow_qa) -> None:
    # Before: the rows the script draws showed the file's state, "asking", with 13/13
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    _run_page(browser, server)
    _submit_run(
        browser,
        answers=[str(DEMO_DIR / "answers-partial.json")],
        webservice=f"slow={slow_qa}delay/1",
    )
    browser.find_element(By.ID, "open-experiment").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "progress-table"))
    browser.execute_script("window.gqaMarker = 42")
    rows = "#progress-table tbody tr"
    browser.execute_script(f"document.querySelector('{rows}').dataset.served = 'yes'")

    def drawn(driver) -> dict[str, str]:  # once the script has drawn the rows anew
        found = driver.find_elements(By.CSS_SELECTOR, rows)
        if not found or found[0].get_attribute("data-served"):
            return {}
        cells = [row.find_elements(By.CSS_SELECTOR, "th, td") for row in found]
        return {c[0].text: c[1].text for c in cells if len(c) > 1}

    states = wait_until(browser, drawn)
    shot(browser, "flow-live-answer-file")
    assert states["answers-partial"] == "read, waiting to be scored", states
    assert states["slow"] == "asking", states
    assert browser.execute_script("return window.gqaMarker") == 42  # drawn by the script
    # the progress as it is now, frozen: the table's rows were replaced each second all the
    # same (explore59 F4); then one more error each second: its count was said each time (F1)
    _freeze_polls(browser)
    time.sleep(2.5)
    assert browser.execute_script("return window.gqaRedrawn") <= 1  # once, to the frozen state
    browser.execute_script("window.gqaSaid = []; window.gqaErrors = 'grow'")
    time.sleep(3.5)
    said = browser.execute_script("window.fetch = window.gqaFetch; return window.gqaSaid")
    assert len([m for m in said if "error" in m]) == 1, said  # the first one, then sparingly
    wait_until(browser, lambda d: d.find_elements(By.ID, "table-QA"), timeout=90)
    assert severe_logs(browser) == []


def _freeze_polls(browser) -> None:
    """From now on the live progress's status polls get the status as it is now, frozen, the
    first system's errors one more each poll once ``window.gqaErrors`` is "grow"; what it says
    is kept in ``window.gqaSaid``, the replacements of the table's rows counted in
    ``window.gqaRedrawn``; ``window.gqaFetch`` is the real fetch."""
    browser.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "var url = document.getElementById('progress').dataset.statusUrl;"
        "fetch(url, {headers: {Accept: 'application/json'}}).then(r => r.json()).then(data => {"
        "  window.gqaStatus = data; window.gqaFetch = window.fetch; window.gqaSaid = [];"
        "  window.gqaRedrawn = 0; window.gqaErrors = 'same';"
        "  var live = document.getElementById('progress-announce');"
        "  new MutationObserver(() => window.gqaSaid.push(live.textContent))"
        "    .observe(live, {childList: true, characterData: true, subtree: true});"
        "  new MutationObserver(() => window.gqaRedrawn += 1)"
        "    .observe(document.querySelector('#progress-table tbody'), {childList: true});"
        "  window.fetch = function (u, o) {"
        "    if (String(u).indexOf(url) < 0) return window.gqaFetch(u, o);"
        "    if (window.gqaErrors === 'grow') window.gqaStatus.systems[0].errors += 1;"
        "    var body = JSON.stringify(window.gqaStatus);"
        "    var head = {headers: {'Content-Type': 'application/json'}};"
        "    return Promise.resolve(new Response(body, head));"
        "  };"
        "  done();"
        "});"
    )


def test_a_dataset_file_chosen_is_the_dataset_run(server, browser) -> None:
    # Before: the list stayed at the demo, and the run was refused for naming two datasets
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    _run_page(browser, server)
    upload = browser.find_element(By.ID, "run-dataset-file")
    upload.send_keys(str(DEMO_DIR / "questions.json"))
    assert browser.find_element(By.ID, "run-dataset").get_attribute("value") == ""
    browser.find_element(By.ID, "run-answers").send_keys(str(DEMO_DIR / "answers-strong.json"))
    browser.find_element(By.ID, "run-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "token-notice"))
    shot(browser, "flow-own-dataset-submitted")
    assert severe_logs(browser) == []


def test_a_refused_run_form_marks_and_links_the_field_at_fault(server, browser, tmp_path) -> None:
    """Before: the error was a box at the top, the field it was about (~750 px below) carried no
    mark. Now the field is aria-invalid, described by the notice, and the notice links to it."""
    from selenium.webdriver.common.by import By

    def refused(field: str, value: str) -> None:
        _run_page(browser, server)
        browser.find_element(By.ID, field).send_keys(value)
        browser.find_element(By.ID, "run-submit").click()
        wait_until(browser, lambda d: d.find_elements(By.ID, "run-error"))
        assert browser.execute_script("return document.activeElement.id") == "run-error"
        marked = browser.find_elements(By.CSS_SELECTOR, "[aria-invalid=true]")
        assert [m.get_attribute("id") for m in marked] == [field]
        assert "run-error" in marked[0].get_attribute("aria-describedby").split()
        browser.find_element(By.CSS_SELECTOR, f'#run-error-fields a[href="#{field}"]').click()
        wait_until(browser, lambda d: d.execute_script("return document.activeElement.id") == field)

    browser.delete_all_cookies()
    refused("run-webservice", "ours=http://127.0.0.1:9/qa\ntheirs=http://10.0.0.1:8080/qa")
    broken = tmp_path / "bad.json"
    broken.write_text('{"questions": [{"id": "1", "answers": [}]}')
    refused("run-answers", str(broken))
    # the field comes back empty, as browsers do, and the notice says what to choose again
    assert browser.find_element(By.ID, "run-answers").get_attribute("value") == ""
    repick = browser.find_element(By.ID, "run-error-repick").text
    assert repick.startswith("Choose your files again") and "bad.json" in repick, repick
    # the console holds the two refusals only (read here, not left to the next test's check)
    logged = severe_logs(browser)
    assert len(logged) == 2 and all("BAD REQUEST" in m or "FORBIDDEN" in m for m in logged), logged


def test_a_refused_query_is_said_first_on_the_sparql_page(server, browser) -> None:
    """A query stopped (a syntax error, the time limit) came back with its reason in the page,
    but the title was the empty page's and the focus at the top: a screen reader heard
    nothing of it (explore-20 6). Now as the run page: "Error:" in the title, the reason focused."""
    from urllib.parse import quote

    browser.get(server.url + "sparql?query=" + quote("SELEC ?x"))
    wait_until(
        browser, lambda d: d.execute_script("return document.activeElement.id") == "query-error"
    )
    assert browser.title.startswith("Error: SPARQL")
    browser.get(server.url + "sparql")
    assert not browser.title.startswith("Error")
    logged = severe_logs(browser)  # the 400 of the refused query, read here
    assert all("BAD REQUEST" in m for m in logged), logged


def test_a_dataset_found_by_search_or_chosen_as_a_file_puts_the_default_profile_back(
    server, browser
) -> None:
    # Before: the list's selection moved without a change event, so the profile of the dataset
    # picked before stayed (a QALD run scored under text2sparql; the demo file under poleval)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.delete_all_cookies()
    _run_page(browser, server)
    datasets, profiles = (
        Select(browser.find_element(By.ID, f"run-{kind}")) for kind in ("dataset", "profile")
    )
    search = browser.find_element(By.ID, "dataset-search")

    def chosen() -> tuple[str, str]:
        return (
            datasets.first_selected_option.get_attribute("value"),
            profiles.first_selected_option.get_attribute("value"),
        )

    datasets.select_by_value("text2sparql-2025-ck25")
    assert chosen() == ("text2sparql-2025-ck25", "text2sparql")
    search.send_keys("qald-9 test")
    dataset, profile = chosen()
    # "": the dataset's own, which the service chooses (fair for QALD)
    assert dataset.startswith("qald-9-test") and profile == "", (dataset, profile)
    search.clear()
    search.send_keys("poleval")
    assert chosen() == ("poleval-2021-qa-dev-0", "poleval")  # its own, found by search too
    search.clear()
    browser.find_element(By.ID, "run-dataset-file").send_keys(str(DEMO_DIR / "questions.json"))
    assert chosen() == ("", "")  # the file's own: the service tells it by its format
    shot(browser, "flow-run-page-file-profile")
    # a profile chosen by hand stays, whatever the search or a file chooses
    profiles.select_by_value("exact")
    datasets.select_by_value("demo")
    search.send_keys("text2sparql")
    assert chosen() == ("text2sparql-2025-ck25", "exact")
    # a search that ends matching nothing gives back the choice made before it, and says so:
    # "zzz" chose qald-1-musicbrainz on its first z, and the run went there (explore-20 14)
    search.clear()
    datasets.select_by_value("demo")
    search.send_keys("zzz")
    status = browser.find_element(By.ID, "dataset-search-status").text
    assert chosen()[0] == "demo" and status == "no dataset matches; chosen: demo", status
    assert severe_logs(browser) == []
    # the compare page alike: its list kept CK25 and text2sparql once a file was chosen, and
    # the comparison was refused for naming two datasets (explore-11 18)
    browser.get(server.url + "compare")
    listed, profile = (
        Select(browser.find_element(By.ID, f"cmp-{kind}")) for kind in ("dataset", "profile")
    )
    listed.select_by_value("text2sparql-2025-ck25")
    assert profile.first_selected_option.get_attribute("value") == "text2sparql"
    browser.find_element(By.ID, "cmp-dataset-file").send_keys(str(DEMO_DIR / "questions.json"))
    assert listed.first_selected_option.get_attribute("value") == ""
    assert profile.first_selected_option.get_attribute("value") == ""
    assert severe_logs(browser) == []


def test_the_owner_cancels_a_run_in_the_browser(server, browser, slow_qa) -> None:
    from selenium.webdriver.common.by import By

    from tests.helpers import held

    browser.delete_all_cookies()
    _run_page(browser, server)
    # its service holds every call until the cancel is seen (it ran 3 s a question: the
    # resumed run then took its 14 questions' time, ~10 s, to show its results)
    _submit_run(browser, webservice=f"{slow_qa}held/owner-cancels")
    browser.find_element(By.ID, "open-experiment").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "cancel"))
    shot(browser, "flow-cancel-before")
    browser.find_element(By.ID, "cancel").click()

    def cancelled(driver) -> bool:
        from selenium.common.exceptions import WebDriverException

        # the click posts a form and the page comes back: an element found on the old page
        # may go stale, or (CI, once) its node leave the document while its text is read
        try:
            return "cancelled" in driver.find_element(By.ID, "progress-status").text
        except WebDriverException:
            return False

    wait_until(browser, cancelled, timeout=60)
    shot(browser, "flow-cancelled")
    held("owner-cancels").set()  # the resumed run is answered at once
    # and resumes it there (before: the page said "resume it" and offered the API only)
    wait_until(browser, lambda d: d.find_elements(By.ID, "resume")).pop().click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "table-QA"), timeout=90)
    shot(browser, "flow-resumed-finished")
    assert severe_logs(browser) == []


def test_without_javascript_a_run_is_watched_published_and_queried(
    server, browser_without_js, slow_qa
) -> None:
    from selenium.webdriver.common.by import By

    browser = browser_without_js
    _run_page(browser, server)
    experiment_id = _submit_run(browser, webservice=f"slow={slow_qa}delay/0.2")
    browser.find_element(By.ID, "open-experiment").click()
    assert browser.find_elements(By.ID, "progress-table")  # still running: the progress
    shot(browser, "nojs-progress")
    # asked to, the page reloads itself every 5 s until the results are there
    browser.find_element(By.ID, "reload-auto").click()
    titles = []

    def finished(driver) -> bool:
        titles.append(driver.title)
        return bool(driver.find_elements(By.ID, "table-QA"))

    wait_until(browser, finished, timeout=60)
    shot(browser, "nojs-finished")
    # the title says how far it got, then that it finished: it was the same at each reload
    assert browser.title == f"Finished – Experiment {experiment_id} · GERBIL QA", titles
    before = [t for t in titles if not t.startswith("Finished")]
    progress = r"(Running: \d+ of 14 questions done|Queued|Reserved) – Experiment "
    assert all(re.match(progress, t) for t in before), titles  # when a reload saw it run
    browser.find_element(By.ID, "publish-confirm").click()  # for good: said and ticked
    browser.find_element(By.ID, "publish").click()
    wait_until(browser, lambda d: not d.find_elements(By.ID, "private-notice"))
    assert server.storage.experiments.is_public(experiment_id)

    # the SPARQL page's examples are links: each runs its query and shows it to edit
    browser.find_element(By.LINK_TEXT, "SPARQL").click()
    browser.find_element(By.ID, "example-2").click()
    rows = wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#results tbody tr"))
    shot(browser, "nojs-sparql-example")
    assert any("/system/slow" in row.text for row in rows)
    assert "answerType" in browser.find_element(By.ID, "query").get_attribute("value")
    assert severe_logs(browser) == []


def test_the_live_progress_says_when_the_server_is_away(tmp_path, browser, slow_qa) -> None:
    """A server restarted mid-run: the page froze at "6 s elapsed" without a word while it was
    away; it says so now, and the results still swap in once it is back (it resumes the run)."""
    import requests
    from selenium.webdriver.common.by import By

    from tests.reliability.figures import Served

    store, allow = tmp_path / "store", "127.0.0.1/32"  # the test's QA service
    site = Served(store, GERBIL_QA_ALLOW_NETWORKS=allow)
    try:
        submitted = requests.post(
            site.url + "api/experiments",
            json={"dataset": "demo", "systems": [{"url": f"{slow_qa}delay/0.3"}]},
            timeout=30,
        )
        assert submitted.status_code == 202, submitted.text
        ticket = submitted.json()
        browser.delete_all_cookies()
        browser.get(ticket["ownerLink"])
        wait_until(browser, lambda d: d.find_elements(By.ID, "progress-table"))
    finally:
        site.kill()
    away = "cannot be reached"
    wait_until(browser, lambda d: away in d.find_element(By.ID, "progress-message").text)
    assert away in browser.find_element(By.ID, "progress-announce").text
    site = Served(store, port=site.port, base=site.base, GERBIL_QA_ALLOW_NETWORKS=allow)
    try:
        wait_until(browser, lambda d: d.find_elements(By.ID, "table-QA"), timeout=90)
        assert browser.find_element(By.ID, "progress-announce").text == (
            "Finished: the results are below."
        )
    finally:
        site.kill()


def test_the_run_pages_tick_boxes_keep_their_labels_and_their_question(server, browser) -> None:
    """On a phone a box and its label landed on different lines (each box right after the
    previous type's name), and a screen reader named the boxes "QA", "AT"… without the
    question they answer: each group is a fieldset whose legend asks it now."""
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    _run_page(browser, server)
    metrics = {"width": 375, "height": 812, "deviceScaleFactor": 1, "mobile": True}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        for group, question in (("run-types", "Experiment types"), ("run-references", "Reference")):
            legend = browser.find_element(By.CSS_SELECTOR, f"#{group} > legend").text
            assert legend.startswith(question), legend
            for pick in browser.find_elements(By.CSS_SELECTOR, f"#{group} .pick"):
                box = pick.find_element(By.TAG_NAME, "input").rect
                label = pick.find_element(By.TAG_NAME, "label").rect
                assert abs(box["y"] + box["height"] / 2 - label["y"] - label["height"] / 2) < 8
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_refused_comparison_is_said_in_view_and_focused(server, browser, tmp_path) -> None:
    """explore48 1: the compare form posts to ``#result``, which sat after the refusal: the
    page jumped past it (the notice above the viewport) and the focus stayed on the body; the
    screen showed the emptied form as if nothing happened. Now as the run form's refusal."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    broken = tmp_path / "bad.json"
    broken.write_text('{"questions": [{"id": "1", "answers": [}]}')
    visit(browser, server.url + "compare", "compare-form")
    severe_logs(browser)  # drained: an earlier test's page polled a server since stopped
    Select(browser.find_element(By.ID, "cmp-dataset")).select_by_value("demo")
    strong = str(DEMO_DIR / "answers-strong.json")
    browser.find_element(By.ID, "cmp-answers").send_keys(f"{strong}\n{broken}")
    browser.find_element(By.ID, "compare-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "compare-error"))
    wait_until(
        browser, lambda d: d.execute_script("return document.activeElement.id") == "compare-error"
    )
    top, bottom, height = browser.execute_script(
        "var r = document.getElementById('compare-error').getBoundingClientRect();"
        "return [r.top, r.bottom, window.innerHeight];"
    )
    # in view: its top at the window's top give or take a sub-pixel (the anchor's jump)
    assert -1 < top < height and bottom > 0, (top, bottom, height)
    shot(browser, "compare-refused")
    logged = severe_logs(browser)  # the refusal's 400, read here
    assert all("BAD REQUEST" in m for m in logged), logged


def test_the_results_table_fits_a_1280_px_window(server, browser) -> None:
    """explore48 8: the experiment page's QA table was 2,100–2,430 px wide at 1280 px (15
    columns, headings and intervals on one line, the last the full signature). Now the
    signature they share is said above it, and headings and intervals wrap."""
    browser.set_window_size(1280, 900)
    visit(browser, f"{server.url}experiment/{server.demo_id}", "experiment-table-width")
    table, wrap = browser.execute_script(
        "var t = document.getElementById('table-QA');"
        "return [t.scrollWidth, t.parentElement.clientWidth];"
    )
    assert table <= wrap, (table, wrap)
    # 320 px wide it scrolls sideways: its wrapper a region named by its caption, in the tab
    # order (the browser's own focus of a scroller, unnamed, or none: explore59 F10)
    region = "var w = document.getElementById('table-QA').parentElement;"
    region += "return [w.tabIndex, w.getAttribute('role'), w.getAttribute('aria-label')];"
    assert browser.execute_script(region) == [-1, None, None]  # it fits: no tab stop
    # deferred, its first check after the first layout: a blocking script reading a width laid
    # a 408-question page out before DOMContentLoaded (explore62 F1)
    deferred = "return document.querySelector('script[src*=\"scroll_regions.js\"]').defer"
    assert browser.execute_script(deferred) is True
    metrics = {"width": 320, "height": 800, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        marked = wait_until(
            browser, lambda d: d.execute_script(region)[1] and d.execute_script(region)
        )
        browser.refresh()  # loaded 320 px wide: the first check (no resize) marks it
        wait_until(browser, lambda d: d.execute_script(region) == marked)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    caption = browser.execute_script(
        "return document.querySelector('#table-QA caption').textContent"
    )
    # named by its caption's first sentence, not the whole caption read twice (explore62 F2)
    first = " ".join(caption.split()).split(". ")[0]
    assert marked[:2] == [0, "region"] and marked[2] == first, (marked, caption)
    wait_until(browser, lambda d: d.execute_script(region) == [-1, None, None])  # fits again
    # the question page's tables of properties are captioned by URIs: their regions are named
    # shortly, never by the URI a screen reader spelt out (explore62 F2)
    names = (
        "var w = Array.from(document.querySelectorAll('.table-wrap'));"
        "var scrolling = w.filter(function (e) { return e.scrollWidth > e.clientWidth + 1; });"
        "var named = w.filter(function (e) { return e.getAttribute('role') === 'region'; });"
        "return scrolling.length === named.length && named.map(function (e) {"
        "  return [e.getAttribute('aria-label'), e.querySelector('caption').textContent]; });"
    )
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        visit(browser, f"{server.url}experiment/{server.demo_id}/task/1/question/1", "regions")
        regions = wait_until(browser, lambda d: d.execute_script(names))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert any(caption.strip().startswith("http") for _, caption in regions), regions
    for name, _ in regions:
        assert name and not name.startswith("http") and len(name) <= 61, regions
