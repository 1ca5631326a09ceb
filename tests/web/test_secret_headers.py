"""Secret request headers for the services a run asks (``X-API-Key``, ``Authorization``), on a
server of its own: a QA web service on 127.0.0.1 that answers 401 without its key is scored
right with it, through the API and the run page (in chromium); and the key is nowhere else
afterwards: not in what the API or a page returns, the access and operators' logs, the store's
folder (its graph, the job's workspace, the archived answers), ``export`` or ``export --files``.
"""

from __future__ import annotations

import base64
import gc
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

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
        # an unset variable in a script: sent empty, every question failed with 401
        "empty": ({"X-API-Key": ""}, "the value of X-API-Key is empty"),
        "blank": ({"X-API-Key": "   "}, "the value of X-API-Key is empty"),
        "scheme alone": ({"Authorization": "Bearer "}, "the scheme Bearer alone"),
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


@pytest.mark.browser
def test_the_form_filled_from_a_stopped_run_sends_each_key_to_its_own_service(
    site: Server, browser: Any
) -> None:
    """ "Submit it again" of a run whose key was given to one of its services filled a form
    whose one box sent that key to every service: another origin received it (explore-11 3).
    The box is filled with ``keyed: X-API-Key:``, a line for that service only."""
    from selenium.webdriver.common.by import By

    from tests.web.test_browser import wait_until

    with KeyedQA(SECRET) as keyed, KeyedQA("plain-own-key") as plain:
        keyed.delay = 0.5  # slow enough to be stopped
        systems = [
            {"name": "keyed", "url": keyed.url + "qa", "headers": {"X-API-Key": SECRET}},
            {"name": "plain", "url": plain.url + "qa"},
        ]
        made = site.post("api/experiments", json={"dataset": "demo", "systems": systems})
        assert made.status_code == 202, made.text
        ticket = made.json()
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        assert site.post(f"api/experiments/{ticket['id']}/cancel", headers=auth).ok
        assert _state(site, ticket)["status"] == "cancelled"
        keyed.delay = 0.0
        keyed.seen.clear()
        plain.seen.clear()

        browser.get(f"{site.url}experiment/{ticket['id']}?token={ticket['token']}")  # owner
        browser.get(f"{site.url}experiments/new?from={ticket['id']}")
        notice = browser.find_element(By.ID, "revision-notice").text
        assert "keyed (X-API-Key)" in notice and "plain" not in notice, notice
        box = browser.find_element(By.ID, "run-service_headers")
        assert box.get_attribute("value") == "keyed: X-API-Key: "
        box.send_keys(SECRET)
        browser.find_element(By.ID, "run-submit").click()
        wait_until(browser, lambda d: d.find_elements(By.ID, "open-experiment"))
        browser.find_element(By.ID, "open-experiment").click()
        wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#table-QA"), timeout=60)
        rows = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#table-QA tbody tr")]
        assert any("keyed" in row for row in rows), rows  # answered with its key
        assert keyed.got(SECRET) and plain.seen and not plain.got(SECRET)
        assert SECRET not in browser.page_source


def test_the_run_page_gives_two_services_two_keys(site: Server) -> None:
    """One box for every service could not give two services two values of one header ("X-API-Key
    is given twice"): a run asked so through the API could not be run from the page."""
    with KeyedQA(SECRET) as first, KeyedQA("sk-second-2") as second:
        services = f"first={first.url}qa\nsecond={second.url}qa"
        box = f"first: X-API-Key: {SECRET}\nsecond: X-API-Key: sk-second-2\nX-Trace: all"
        form = {"dataset": "demo", "webservice": services, "service_headers": box}
        sent = site.post("experiments/new", data=form, allow_redirects=False)
        assert sent.status_code == 303, sent.text[:2000]
        new_id = sent.headers["Location"].rsplit("/", 1)[-1]
        token = sent.cookies.get(f"gqa_owner_{new_id}", path="/experiment/")
        state = _state(site, {"id": new_id, "token": token})
        assert {r["systemLabel"] for r in state["results"]} == {"first", "second"}, state
        assert not first.got("sk-second-2") and not second.got(SECRET)
        assert all(seen.get("X-Trace") == "all" for seen in first.seen + second.seen)

        blank = {**form, "service_headers": "X-Trace: all\nfirst: X-API-Key:  "}
        refused = site.post("experiments/new", data=blank)
        assert refused.status_code == 400
        said = "service_headers, line 2: no value for X-API-Key for the service first: expected"
        assert said in refused.text
        # a service's name then a value alone: not a header "first" sent to every service
        refused = site.post("experiments/new", data={**form, "service_headers": "first: k3y"})
        assert (
            refused.status_code == 400 and "line 1: no header name for the service" in refused.text
        )


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


# how a service may echo the secret it refuses: its headers, the spelling of the value it got
# and the message that says it
ECHOES: dict[str, tuple[dict[str, str], Any, str]] = {
    # a key of short words, echoed word by word
    "words": (
        {"X-API-Key": "qz17 wk42 vy93 ux58"},
        lambda v: ", ".join(reversed(v.split())),
        "bad key parts: {}",
    ),
    # Basic auth, echoed as the service decoded it
    "basic": (
        {"Authorization": "Basic " + base64.b64encode(b"alice:Pa55word!").decode()},
        lambda v: base64.b64decode(v.split()[1]).decode(),
        "user/password {} rejected",
    ),
    "upper": ({"X-API-Key": "0123456789abcdef"}, str.upper, "quota exceeded for key {}"),
    "b64": (
        {"X-API-Key": "Zz9-secret-key-Q"},
        lambda v: base64.b64encode(v.encode()).decode(),
        "your key (b64) {} is invalid",
    ),
    # percent-escapes in mixed case in one string
    "mixed": (
        {"X-API-Key": "sk/Live+Ab12=Cd/34"},
        lambda v: quote(v, safe="").replace("%2F", "%2f", 1).replace("%3D", "%3d"),
        "sent: {}",
    ),
}
# a 1-3-character credential: matched as a whole token only, ordinary words kept
PLAIN = "Unauthorized: the API key is not valid for this service; ask the admin"
SHORT = {"a": PLAIN, "the": "Unauthorized: … API key is not valid for this service; ask … admin"}


class EchoingQA:
    """A QA web service that refuses the first two calls of each path ``/MODE`` with a 401
    echoing its secret as ``ECHOES[MODE]`` says (``/short`` says :data:`PLAIN`), then answers
    right (the demo's answers): a system scored, two errors kept. ``echoed``: what it said."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs

        strong = json.loads(STRONG)
        answers = {t["string"]: q["answers"] for q in strong["questions"] for t in q["question"]}
        calls: dict[str, int] = {}
        echoed: list[str] = []
        self.echoed = echoed

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
                mode = self.path.strip("/")
                calls[mode] = calls.get(mode, 0) + 1
                doc: dict[str, Any]
                if calls[mode] <= 2:
                    status, doc = 401, {"error": PLAIN}
                    if mode in ECHOES:
                        headers, spell, message = ECHOES[mode]
                        (header,) = headers
                        echoed.append(spell(self.headers[header]))
                        doc = {"error": message.format(echoed[-1])}
                else:
                    text = form.get("query", [""])[0]
                    status, doc = 200, {"questions": [{"id": "1", "answers": answers[text]}]}
                body = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_secret_echoed_in_another_spelling_is_kept_nowhere_and_plain_words_are_kept(
    tmp_path: Path,
) -> None:
    """A key echoed word by word, upper-cased, base64-encoded, with mixed-case percent-escapes,
    or Basic's decoded ``user:password`` was stored, shown, exported and published on /sparql;
    ``Bearer a`` made "HTTP 401 Un…uthorized … v…lid" of every message (explore-11 1, 2)."""
    from service.cli import main

    store = tmp_path / "store"
    site, echo = start_server(store, demo=False), EchoingQA()
    try:
        systems: list[dict[str, Any]] = [{"name": "file", "answers": STRONG}]
        systems += [
            {"name": mode, "url": echo.url + mode, "headers": headers}
            for mode, (headers, _, _) in ECHOES.items()
        ]
        systems += [
            {
                "name": f"short-{c}",
                "url": f"{echo.url}short-{c}",
                "headers": {"Authorization": f"Bearer {c}"},
            }
            for c in SHORT
        ]
        body = {"dataset": "demo", "systems": systems, "concurrency": 1, "retries": 0}
        made = site.post("api/experiments", json=body)
        assert made.status_code == 202, made.text
        ticket = made.json()
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        state = site.wait_finished(ticket["id"], ticket["token"], timeout=120)
        scored = {r["systemLabel"] for r in state["results"]}
        assert scored == {s["name"] for s in systems}, state  # every service answered 12 of 14
        assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).ok
        query = "SELECT ?m WHERE { ?q <http://w3id.org/gerbil/qa/vocab#errorMessage> ?m }"
        results = "application/sparql-results+json"
        said = site.get("sparql", params={"query": query}, headers={"Accept": results}).text
        messages = {b["m"]["value"] for b in json.loads(said)["results"]["bindings"]}
        # ordinary words and the client's own status line kept whole
        for c, kept in SHORT.items():
            assert f"HTTP 401 Unauthorized: '{kept}'" in messages, (c, messages)
        assert "HTTP 401 Unauthorized: 'bad key parts: …, …, …, …'" in messages, messages
        assert "HTTP 401 Unauthorized: 'user/password … rejected'" in messages, messages

        dump = tmp_path / "dump.nq"
        assert main(["export", "--store", str(store), "--output", str(dump)]) == 0
        seen = [said, dump.read_text(encoding="utf-8"), json.dumps(state)]
        seen += [site.get(f"experiment/{ticket['id']}", headers=auth).text]
        for task in range(1, len(systems) + 1):
            seen += [site.get(f"experiment/{ticket['id']}/task/{task}", headers=auth).text]
        seen += [p.read_text("latin-1") for p in store.rglob("*") if p.is_file()]
        secrets = {*echo.echoed, "Pa55word", "qz17", "ux58"}
        assert len(echo.echoed) == 2 * len(ECHOES), echo.echoed
        for text in seen:
            for secret in secrets:
                assert secret.lower() not in text.lower(), (secret, text[:500])
    finally:
        echo.close()
        stop_server(site)


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
