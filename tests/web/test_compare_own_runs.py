"""A browser compares its own runs, published or not, without typing a task URI. Two separate
private runs (a system's v1 and v2, each with its own token) were comparable only by
someone who knew both task URIs: the compare page offered a leaderboard's public rows and
answer files. Now the compare page and the run page list the browser's own finished runs
(its owner cookies, each checked against its run) with their QA tasks to tick; a plain GET
form compares them, and tasks of different datasets are refused saying why. Nothing of it
reaches another browser or a shared cache."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from service.paths import DEMO_DIR
from tests.web.conftest import demo_dataset
from tests.web.test_browser import check_accessibility, severe_logs, visit, wait_until
from tests.web.test_site_crawl import read_page

STRONG = (DEMO_DIR / "answers-strong.json").read_bytes()
PARTIAL = (DEMO_DIR / "answers-partial.json").read_bytes()


def _run(browser: requests.Session, server, name: str, answers: bytes, **extra) -> str:
    """A run submitted on the run page by this browser (which keeps its owner cookie),
    waited for: its id."""
    form = {"dataset": "demo", "profile": "fair", "answers_name": name, **extra.pop("form", {})}
    files = {"answers": (f"{name}.json", answers), **extra}
    sent = browser.post(server.url + "experiments/new", data=form, files=files, timeout=30)
    assert sent.status_code == 200, sent.text[:600]
    run = sent.url.rsplit("/", 1)[-1]
    token = next(c.value for c in browser.cookies if c.name == f"gqa_owner_{run}")
    server.wait_finished(run, token)
    return run


def _own_tasks(page: str) -> dict[str, str]:
    """The tasks the page's own-runs list offers to tick: label text -> task URI."""
    listed = page.split('id="own-runs-form"', 1)
    if len(listed) < 2:
        return {}
    found = re.findall(
        r'<input type="checkbox" name="task" value="([^"]+)" id="(own-task-[^"]+)"[^>]*> '
        r'<label for="\2">(.*?)</label>',
        listed[1].split("</form>", 1)[0],
        re.S,
    )
    return {html.unescape(re.sub(r"<[^>]+>", "", label)): uri for uri, _, label in found}


def _error(page: str) -> str:
    found = re.search(r'id="compare-error" role="alert"><p>(.*?)</p>', page, re.S)
    assert found, page[-3000:]
    return html.unescape(found.group(1))


def _systems(page: str) -> list[str]:
    table = page.split('id="compare-systems"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<th scope="row">([^<]+)</th>', table)


@pytest.fixture(scope="module")
def mine(server):
    """A browser with two separate private runs on the demo (v1, v2: each its own token)."""
    browser = requests.Session()  # keeps each cookie under its path, as a browser does
    v1 = _run(browser, server, "mine-v1", PARTIAL)
    v2 = _run(browser, server, "mine-v2", STRONG)
    return browser, v1, v2


def test_the_compare_page_lists_the_browsers_runs_and_compares_two_private_ones(
    server, mine
) -> None:
    browser, v1, _ = mine
    owner = browser.get(f"{server.url}experiment/{v1}", timeout=30).text  # its private page
    assert '<a href="/compare#own-runs" id="compare-own-runs">' in owner
    assert 'href="/compare#own-runs"' not in requests.get(f"{server.url}experiment/{v1}").text
    page = browser.get(server.url + "compare", timeout=30)
    assert page.status_code == 200
    tasks = _own_tasks(page.text)
    # each run's QA task: system, dataset, language, profile; newest first
    demo = demo_dataset(server).rsplit("/", 1)[-1]
    assert list(tasks) == [
        f"mine-v2 on {demo}, en, profile fair",
        f"mine-v1 on {demo}, en, profile fair",
    ], tasks
    assert tasks[f"mine-v1 on {demo}, en, profile fair"].startswith(
        f"{server.url}experiment/{v1}/task/"
    )
    assert page.headers["Cache-Control"] == "private, no-store"
    assert "Cookie" in page.headers["Vary"]
    assert read_page(page.text).problems == []  # well formed, unique ids, every box labelled
    # the form is a plain GET to the compare page, ticked in the browser's runs
    form = page.text.split('id="own-runs-form"', 1)[0].rsplit("<form", 1)[1]
    assert 'method="get"' in form and 'action="/compare#result"' in form
    assert '<input type="hidden" name="from" value="runs">' in page.text

    ticked = list(tasks.values())
    result = browser.get(
        server.url + "compare", params={"from": "runs", "task": ticked}, timeout=30
    )
    assert result.status_code == 200, _error(result.text)
    assert sorted(_systems(result.text)) == ["mine-v1", "mine-v2"]
    assert 'id="compare-pairs"' in result.text and 'id="chart-compare-measures"' in result.text
    assert result.headers["Cache-Control"] == "private, no-store"
    # the ticks are kept on the list, to change the choice
    assert all(f'value="{uri}" id="' in result.text for uri in ticked)
    assert result.text.count(" checked>") == 2
    # the JSON link of the result answers the browser too (its cookies), privately
    as_json = browser.get(
        server.url + "compare", params={"from": "runs", "task": ticked, "format": "json"}
    )
    assert as_json.status_code == 200 and len(as_json.json()["systems"]) == 2
    assert as_json.headers["Cache-Control"] == "private, no-store"


def test_the_list_compares_on_the_measure_chosen_beside_it(server, mine) -> None:
    """The own runs' form offers the compare form's measures (one list for both) and compares
    on the one chosen; before, it always compared macro F1."""
    browser = mine[0]
    page = browser.get(server.url + "compare", timeout=30).text
    listed = page.split('id="own-runs-form"', 1)[1].split("</form>", 1)[0]
    offered = re.findall(r'<option value="([^"]+)"', listed.split('id="own-measure"', 1)[1])
    form = page.split('id="cmp-measure"', 1)[1].split("</select>", 1)[0]
    assert offered == re.findall(r'<option value="([^"]+)"', form)
    assert "microF1" in offered and 'value="macroF1" selected' in listed
    ticked = list(_own_tasks(page).values())
    result = browser.get(
        server.url + "compare",
        params={"from": "runs", "task": ticked, "measure": "microF1"},
        timeout=30,
    )
    assert result.status_code == 200, _error(result.text)
    heading = result.text.split('<h2 id="result">', 1)[1].split("</h2>", 1)[0]
    assert "micro F1" in heading, heading
    kept = result.text.split('id="own-measure"', 1)[1].split("</select>", 1)[0]
    assert 'value="microF1" selected' in kept


def test_nothing_of_it_reaches_another_browser(server, mine) -> None:
    browser, v1, v2 = mine
    ticked = list(_own_tasks(browser.get(server.url + "compare").text).values())
    assert len(ticked) == 2
    for cookies in (
        {},
        {f"gqa_owner_{v1}": "not-the-token", f"gqa_owner_{v2}": "x", "gqa_owner_1": "y"},
    ):
        page = requests.get(server.url + "compare", cookies=cookies, timeout=30)
        assert page.status_code == 200
        assert 'id="own-runs"' not in page.text and v1 not in page.text and v2 not in page.text
        assert "no-store" not in page.headers.get("Cache-Control", "")
        compared = requests.get(
            server.url + "compare",
            params={"from": "runs", "task": ticked},
            cookies=cookies,
            timeout=30,
        )
        assert compared.status_code == 400 and "is not public" in _error(compared.text)
        assert "mine-v1" not in compared.text and "mine-v2" not in compared.text


def test_the_run_page_ticks_its_runs_tasks_for_the_compare_page(server, mine, slow_qa) -> None:
    browser, v1, v2 = mine
    # a run still running is listed with nothing to tick, and not offered on the compare page
    sent = browser.post(
        server.url + "experiments/new",
        data={"dataset": "demo", "profile": "fair", "webservice": f"slow={slow_qa}delay/3"},
        timeout=30,
    )
    assert sent.status_code == 200, sent.text[:600]
    running = sent.url.rsplit("/", 1)[-1]
    try:
        page = browser.get(server.url + "experiments/new", timeout=30).text
        offered = _own_tasks(page)
        assert [u.split("/task/")[0].rsplit("/", 1)[-1] for u in offered.values()] == [v2, v1]
        row = page.split(f">{running}</a></th>", 1)[1].split("</tr>", 1)[0]
        assert 'type="checkbox"' not in row and "–" in row
        form = page.split('id="own-runs-form"', 1)[0].rsplit("<form", 1)[1]
        assert 'method="get"' in form and 'action="/compare#result"' in form
        assert read_page(page).problems == []
        # the form refused lists them again, for this browser alone
        refused = browser.post(server.url + "experiments/new", data={"dataset": ""}, timeout=30)
        assert refused.status_code == 400 and 'id="own-runs-form"' in refused.text
        assert refused.headers["Cache-Control"] == "private, no-store"
        listed = browser.get(server.url + "compare", timeout=30).text
        assert running not in listed.split('id="own-runs"', 1)[1].split("</form>", 1)[0]
        assert list(_own_tasks(listed).values()) == list(offered.values())
    finally:
        token = next(c.value for c in browser.cookies if c.name == f"gqa_owner_{running}")
        requests.post(
            f"{server.url}api/experiments/{running}/cancel",
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )


def test_runs_of_different_datasets_are_refused_saying_why(server, mine) -> None:
    browser = mine[0]
    questions = json.loads((DEMO_DIR / "questions.json").read_text())
    questions["dataset"]["id"] = "solar-seven"
    questions["questions"] = questions["questions"][:7]
    other = _run(
        browser,
        server,
        "mine-seven",
        STRONG,
        form={"dataset": "", "kb": "demo", "force": "1"},
        dataset_file=("seven.json", json.dumps(questions).encode()),
    )
    tasks = _own_tasks(browser.get(server.url + "compare").text)
    label, seven = next((k, u) for k, u in tasks.items() if k.startswith("mine-seven on solar-"))
    assert other in seven
    named = label.split(" on ", 1)[1].split(",", 1)[0]  # solar-seven-{hash}
    demo = demo_dataset(server).rsplit("/", 1)[-1]
    first = tasks[f"mine-v1 on {demo}, en, profile fair"]
    page = browser.get(
        server.url + "compare", params={"from": "runs", "task": [first, seven]}, timeout=30
    )
    said = _error(page.text)
    assert page.status_code == 400
    assert said.startswith(
        f"The ticked tasks are results on different datasets ({demo}, {named}); a "
        "paired test needs the same questions scored alike: tick tasks of one dataset"
    ), said
    assert "leaderboard" not in said, said  # ticked in the browser's runs, not on a leaderboard
    assert page.headers["Cache-Control"] == "private, no-store"
    assert page.text.count(" checked>") == 2  # the ticks kept, to change them
    # one tick: how many to tick, and where
    one = browser.get(server.url + "compare", params={"from": "runs", "task": first})
    assert one.status_code == 400
    assert _error(one.text).startswith(
        'Tick two to 20 tasks in "Your runs in this browser" to compare them (1 is ticked)'
    )
    # the same rule for a leaderboard's rows (one place), in its words
    board = browser.get(server.url + "compare", params={"task": [first, seven]})
    assert 'the leaderboard\'s "Dataset" filter' in _error(board.text)


# -- in chromium, with and without JavaScript --------------------------------------------------


def _submit_in(driver, server, answers: str, name: str) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    visit(driver, server.url + "experiments/new", f"own-compare-run-{name}")
    Select(driver.find_element(By.ID, "run-dataset")).select_by_value("demo")
    Select(driver.find_element(By.ID, "run-profile")).select_by_value("fair")
    driver.find_element(By.ID, "run-answers").send_keys(answers)
    names = driver.find_element(By.ID, "run-answers-name")
    names.clear()
    names.send_keys(name)
    driver.find_element(By.ID, "run-submit").click()
    wait_until(driver, lambda d: d.find_elements(By.ID, "token-notice"))
    token = driver.find_element(By.ID, "owner-token").get_attribute("value")
    link = driver.find_element(By.ID, "owner-link").get_attribute("value")
    run = link.split("?", 1)[0].rsplit("/", 1)[-1]
    server.wait_finished(run, token)
    return run


def _tick_and_compare(driver, runs: list[str]) -> None:
    from selenium.webdriver.common.by import By

    boxes = driver.find_elements(By.CSS_SELECTOR, "#own-runs-form input[name=task]")
    ours = [
        b for b in boxes if any(f"/experiment/{r}/task/" in b.get_attribute("value") for r in runs)
    ]
    assert len(ours) == len(runs), [b.get_attribute("value") for b in boxes]
    for box in ours:
        box.click()
    driver.find_element(By.ID, "compare-own").click()
    wait_until(driver, lambda d: d.find_elements(By.ID, "compare-systems"))


@pytest.mark.browser
def test_chromium_compares_its_own_private_runs(server, browser) -> None:
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    runs = [
        _submit_in(browser, server, str(DEMO_DIR / "answers-partial.json"), "chromium-v1"),
        _submit_in(browser, server, str(DEMO_DIR / "answers-strong.json"), "chromium-v2"),
    ]
    visit(browser, server.url + "compare", "own-compare-list")
    check_accessibility(browser)
    assert browser.find_element(By.ID, "own-runs").text == "Your runs in this browser"
    _tick_and_compare(browser, runs)
    visit(browser, browser.current_url, "own-compare-result")
    names = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#compare-systems tbody th")]
    assert sorted(names) == ["chromium-v1", "chromium-v2"]
    query = parse_qs(urlsplit(browser.current_url).query)
    assert query["from"] == ["runs"] and len(query["task"]) == 2
    assert not severe_logs(browser)
    # the same from the run page's list
    visit(browser, server.url + "experiments/new", "own-compare-run-page")
    _tick_and_compare(browser, runs)
    names = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#compare-systems tbody th")]
    assert sorted(names) == ["chromium-v1", "chromium-v2"]


@pytest.mark.browser
def test_chromium_without_javascript_compares_its_own_runs(server, browser_without_js) -> None:
    from selenium.webdriver.common.by import By

    driver = browser_without_js
    driver.delete_all_cookies()
    runs = [
        _submit_in(driver, server, str(DEMO_DIR / "answers-baseline.json"), "plain-v1"),
        _submit_in(driver, server, str(DEMO_DIR / "answers-strong.json"), "plain-v2"),
    ]
    visit(driver, server.url + "experiments/new", "own-compare-run-page-nojs")
    _tick_and_compare(driver, runs)
    visit(driver, driver.current_url, "own-compare-result-nojs")
    names = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#compare-systems tbody th")]
    assert sorted(names) == ["plain-v1", "plain-v2"]
