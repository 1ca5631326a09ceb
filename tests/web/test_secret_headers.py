"""Secret request headers for the services a run asks (``X-API-Key``, ``Authorization``), on a
server of its own: a QA web service on 127.0.0.1 that answers 401 without its key is scored
right with it, through the API and the run page (in chromium); and the key is nowhere else
afterwards: not in what the API or a page returns, the access and operators' logs, the store's
folder (its graph, the job's workspace, the archived answers), ``export`` or ``export --files``.
"""

from __future__ import annotations

import gc
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.paths import DEMO_DIR
from tests.helpers import KeyedQA
from tests.web.conftest import Server, start_server, stop_server

SECRET = "sk-d3adb33f-never-shown"
STRONG = (DEMO_DIR / "answers-strong.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def keyed() -> Iterator[KeyedQA]:
    with KeyedQA(SECRET) as service:
        yield service


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("secret-store")


@pytest.fixture(scope="module")
def site(store: Path) -> Iterator[Server]:
    server = start_server(store, access_log=True)
    yield server
    stop_server(server)


def _submit(site: Server, system: dict[str, Any]) -> requests.Response:
    body = {
        "dataset": "demo",
        "profile": "fair",
        "systems": [system, {"name": "file", "answers": STRONG}],
    }
    return site.post("api/experiments", json=body)


def _state(site: Server, ticket: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    deadline = time.monotonic() + timeout
    while True:
        state = site.get(f"api/experiments/{ticket['id']}", headers=auth).json()
        if state["status"] in ("finished", "error", "cancelled") or time.monotonic() > deadline:
            return state
        time.sleep(0.1)


def test_a_keyed_service_is_scored_with_its_header_and_refused_without(
    site: Server, keyed: KeyedQA, store: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    system = {"name": "keyed", "url": keyed.url + "qa", "headers": {"X-API-Key": SECRET}}
    response = _submit(site, system)
    assert response.status_code == 202, response.text
    ticket = response.json()
    state = _state(site, ticket)
    assert state["status"] == "finished", state
    f1 = {r["systemLabel"]: r["measures"]["macroF1"] for r in state["results"]}
    assert f1["keyed"] == f1["file"] > 0  # the same answers as the file: every call answered
    assert keyed.got(SECRET)

    without = _submit(site, {"name": "keyed", "url": keyed.url + "qa"})
    assert without.status_code == 202, without.text
    refused = _state(site, without.json())
    assert "keyed" not in {r["systemLabel"] for r in refused["results"]}  # left out: 401s
    assert "system keyed was aborted by the error-rate rule" in json.dumps(refused)
    # a refusal that quotes the key ("quota exceeded for key …"), kept with the question
    quota = {"name": "quota", "url": keyed.url + "quota", "headers": {"X-API-Key": SECRET}}
    over = _submit(site, quota).json()
    assert _state(site, over)["status"] == "finished"
    seen = {"Authorization": f"Bearer {over['token']}", "Accept": "text/turtle"}
    errors = site.get(f"experiment/{over['id']}/task/1", headers=seen).text
    assert "quota exceeded for key …" in errors, errors[:2000]

    # the experiment names the header it was asked with, never its value
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    returned = [
        response.text,
        json.dumps(state),
        site.get(f"api/experiments/{ticket['id']}", headers=auth).text,
        site.get(f"experiment/{ticket['id']}?token={ticket['token']}", allow_redirects=True).text,
        site.get(f"experiment/{ticket['id']}", headers={**auth, "Accept": "text/turtle"}).text,
    ]
    for text in returned:
        assert SECRET not in text
    assert SECRET not in caplog.text  # the access log (service.web.requests) and the operators'
    assert "service.web.requests" in {r.name for r in caplog.records}  # it did log requests
    for path in store.rglob("*"):  # the graph, the workspace's jobs, the archived answers
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_headers_that_cannot_be_sent_are_refused_at_their_path(
    site: Server, keyed: KeyedQA
) -> None:
    url = keyed.url + "qa"
    cases = {
        "Host": ({"Host": "x"}, "set by the client itself"),
        "token": ({"Bad Name": "x"}, "not a header name"),
        "line break": ({"X-API-Key": "a\r\nX-Evil: 1"}, "line break"),
        "too long": ({"X-API-Key": "a" * 4097}, "at most 4096"),
    }
    for case, (headers, said) in cases.items():
        response = _submit(site, {"name": "k", "url": url, "headers": headers})
        assert response.status_code == 400, case
        problem = response.json()["problems"][0]
        assert problem["path"] == "$.systems[0].headers[0]" and said in problem["message"], case
        assert "X-Evil" not in response.text

    many = {f"X-H{n}": "v" for n in range(9)}
    response = _submit(site, {"name": "k", "url": url, "headers": many})
    assert response.status_code == 400
    assert response.json()["problems"][0]["path"] == "$.systems[0].headers"

    body = {
        "dataset": "demo",
        "systems": [{"name": "f", "answers": STRONG, "headers": {"X-API-Key": SECRET}}],
    }
    response = site.post("api/experiments", json=body)
    assert response.status_code == 400
    assert response.json()["problems"][0]["path"] == "$.systems[0].headers"
    assert SECRET not in response.text


def test_a_stopped_run_is_not_resumed_without_its_headers(site: Server, slow_qa: str) -> None:
    system = {"name": "slow", "url": slow_qa + "delay/0.5", "headers": {"X-API-Key": SECRET}}
    response = _submit(site, system)
    assert response.status_code == 202, response.text
    ticket = response.json()
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/cancel", headers=auth).status_code < 300
    assert _state(site, ticket)["status"] == "cancelled"
    resumed = site.post(f"api/experiments/{ticket['id']}/resume", headers=auth)
    assert resumed.status_code == 409, resumed.text
    said = resumed.text
    assert "secret request headers (X-API-Key)" in said and "submit the experiment again" in said
    assert SECRET not in resumed.text
    # its owner's page says so, and offers no Resume button that could only fail
    page = site.get(f"experiment/{ticket['id']}", headers=auth).text
    assert 'id="not-resumable"' in page and "secret request headers (X-API-Key)" in page
    assert 'id="resume"' not in page and "resume it to run it again" not in page
    # but a link to the run form filled in from it, naming the headers to enter again
    assert f'href="/experiments/new?from={ticket["id"]}" id="run-again"' in page
    form = site.get(f"experiments/new?from={ticket['id']}", headers=auth).text
    assert "a new experiment: that one ended without results" in form
    assert 'id="revision-headers"' in form and "(X-API-Key)" in form and SECRET not in form
    assert f"slow={slow_qa}delay/0.5" in form
    revision = form.split('name="revisionOf"')[1].split(">")[0]
    assert 'value=""' in revision  # a new experiment, not a resubmission


@pytest.mark.browser
def test_the_run_page_sends_its_secret_headers(site: Server, keyed: KeyedQA, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from tests.web.test_browser import wait_until

    browser.get(f"{site.url}experiments/new")
    Select(browser.find_element(By.ID, "run-dataset")).select_by_value("demo")
    browser.find_element(By.ID, "run-webservice").send_keys(f"keyed={keyed.url}qa")
    note = browser.find_element(By.ID, "service-headers-note").text
    assert "Never stored beyond the run nor published" in note
    browser.find_element(By.ID, "run-service_headers").send_keys(f"X-API-Key: {SECRET}")
    browser.find_element(By.ID, "run-submit").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "open-experiment"))
    assert SECRET not in browser.page_source
    browser.find_element(By.ID, "open-experiment").click()
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#table-QA"), timeout=60)
    rows = browser.find_elements(By.CSS_SELECTOR, "#table-QA tbody tr")
    assert any("keyed" in row.text for row in rows), [r.text for r in rows]
    assert "error-rate" not in browser.page_source
    assert SECRET not in browser.page_source


def test_exports_hold_no_secret(site: Server, keyed: KeyedQA, store: Path, tmp_path: Path) -> None:
    from service.cli import main

    system = {"name": "keyed", "url": keyed.url + "qa", "headers": {"X-API-Key": SECRET}}
    ticket = _submit(site, system).json()
    assert _state(site, ticket)["status"] == "finished"
    # exported while the server runs (it answers the command's snapshot request)
    dump, backup = tmp_path / "dump.nq", tmp_path / "backup.tar"
    assert main(["export", "--store", str(store), "--output", str(dump)]) == 0
    assert main(["export", "--store", str(store), "--files", "--output", str(backup)]) == 0
    assert dump.stat().st_size and backup.stat().st_size
    assert SECRET.encode() not in dump.read_bytes() + backup.read_bytes()


def test_a_run_with_secret_headers_stopped_by_a_shutdown_says_it_cannot_continue(
    tmp_path: Path, slow_qa: str
) -> None:
    """A shutdown marked it "interrupted … it continues when the service starts again", then
    the start ended it as an error: its headers' values go with the process that had them
    (explore-11 16). It ends at the shutdown, saying why and what to do; a run without
    secret headers is still left to be resumed."""
    from service.graph.store import open_storage

    store = tmp_path / "store"
    site = start_server(store, demo=False)
    try:
        tickets = []
        for headers in ({"X-API-Key": SECRET}, {}):
            system = {"name": "slow", "url": slow_qa + "delay/0.5", "headers": headers}
            made = _submit(site, system)
            assert made.status_code == 202, made.text
            tickets.append(made.json())
        auth = {"Authorization": f"Bearer {tickets[0]['token']}"}
        deadline = time.monotonic() + 30
        while (
            site.get(f"api/experiments/{tickets[0]['id']}", headers=auth).json()["status"]
            != "running"
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
    finally:
        base = site.url
        stop_server(site)
    del site  # what held the store goes with it (as test_old_uploads restarts)
    gc.collect()
    storage = open_storage(store, base=base)
    try:
        keyed, plain = (storage.experiments.status(t["id"]) for t in tickets)
    finally:
        storage.close()
    assert keyed.status == "error", keyed
    assert "stopped by a shutdown of the service: slow was to be asked with secret request " in (
        keyed.message or ""
    )
    assert "(X-API-Key)" in (keyed.message or "") and "cannot continue" in (keyed.message or "")
    assert SECRET not in (keyed.message or "")
    assert plain.status in ("interrupted", "queued"), plain  # resumed at the next start
