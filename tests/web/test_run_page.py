"""The run page (``experiments/new``) and the live status over HTTP, against the real server:
the form lists the catalogue by challenge and the demo; a good submission shows its token
once and sets the owner's cookie; a bad one comes back with the file position and reserves
nothing; reference systems and web services from the text areas; the status an experiment page
polls (elapsed, left, per-system counts and reasons); the owner's cancel and resume buttons."""

from __future__ import annotations

import csv
import html
import io
import re
import time
from pathlib import Path
from typing import Any

import requests

from service import catalog
from service.paths import DEMO_DIR
from service.web.demo import demo_sha256
from tests.web.conftest import free_port, start_server, stop_server, submitted


def _token(page: str) -> str:
    found = re.search(r'id="owner-token" class="snippet" readonly value="([^"]+)"', page)
    assert found, page[:2000]
    return found.group(1)


def _submit(server, files: list[tuple[str, Any]], **data: Any) -> requests.Response:
    """The run form posted: the page it leads to when accepted (the 303 followed), else the
    refusal (the form again)."""
    response = server.post("experiments/new", files=files or None, data=data)
    return submitted(response) if response.status_code == 303 else response


def _answers(name: str) -> tuple[str, tuple[str, bytes]]:
    path = DEMO_DIR / f"answers-{name}.json"
    return ("answers", (path.name, path.read_bytes()))


def _owner(server, response: requests.Response) -> tuple[str, dict[str, str]]:
    experiment_id = response.url.rsplit("/", 1)[-1]
    cookie = response.history[0].cookies.get(f"gqa_owner_{experiment_id}", path="/experiment/")
    assert cookie == _token(response.text)  # the browser that submitted is the owner's
    return experiment_id, {f"gqa_owner_{experiment_id}": cookie}


def _wait(server, experiment_id: str, cookies: dict[str, str], *, until=None, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        state = server.get(f"experiment/{experiment_id}/status", cookies=cookies).json()
        if until(state) if until else state["status"] not in ("reserved", "queued", "running"):
            return state
        assert time.monotonic() < deadline, state
        time.sleep(0.05)


def test_the_form_offers_the_catalogue_by_challenge_and_the_demo(server) -> None:
    page = server.get("experiments/new").text
    assert '<optgroup label="QALD-9">' in page and '<optgroup label="TEXT2SPARQL 2025">' in page
    for entry in catalog.entries():
        label = f"{entry.name} ({entry.question_count} questions"
        # a dataset with a profile made for it names it (data-profile: run.js chooses it)
        option = rf'<option value="{re.escape(entry.name)}"( data-profile="[a-z0-9-]+")?>'
        assert re.search(option + re.escape(label), page), entry.name
    assert '<option value="poleval-2021-qa-dev-0" data-profile="poleval">' in page
    assert '<option value="demo" selected>' in page
    # the demo is published as an uploaded dataset too: offered once, as "demo", on both pages
    uploads = [d["name"] for d in server.get("api/datasets").json()["datasets"] if d["uploaded"]]
    demo = next(n for n in uploads if demo_sha256().startswith(n.rpartition("-")[2]))
    for path in ("experiments/new", "compare"):
        assert f'value="{demo}"' not in server.get(path).text, path
    for profile in ("fair", "exact", "qald6", "text2sparql"):
        assert f'id="profile-{profile}"' in page  # each profile explained
    assert 'name="reference" value="baseline"' in page
    home = server.get("").text
    assert 'href="/experiments/new">New experiment</a>' in home  # in the navigation


def test_a_dataset_named_in_the_link_opens_with_its_own_profile(server) -> None:
    # a dataset page links ?dataset=NAME: before, PolEval's opened under the default profile
    # (run.js chooses it on a change only), and the compare page chose no dataset at all
    for path, select in (("experiments/new", "run-profile"), ("compare", "cmp-profile")):
        page = server.get(path, params={"dataset": "poleval-2021-qa-dev-0"}).text
        assert '<option value="poleval-2021-qa-dev-0" data-profile="poleval" selected>' in page
        profiles = page.split(f'id="{select}"', 1)[1].split("</select>", 1)[0]
        assert '<option value="poleval" selected>' in profiles, path


def test_a_submission_shows_its_token_once_and_the_browser_owns_it(server) -> None:
    before = len(server.storage.experiments.listing(include_private=True))
    response = _submit(server, [_answers("partial")], dataset="demo")
    assert response.status_code == 200, response.text
    assert response.history[0].headers["Cache-Control"] == "no-store"
    assert response.headers["Cache-Control"] == "private, no-store"
    assert len(server.storage.experiments.listing(include_private=True)) == before + 1
    experiment_id, cookies = _owner(server, response)
    token = _token(response.text)
    assert f"experiment/{experiment_id}?token={token}" in response.text  # the owner link
    assert 'id="copy-owner-link"' in response.text
    # the token's page is a GET (Post/Redirect/Get): reloading it submits nothing again
    # (the POST's answer was the page, and 30 reloads made 30 runs)
    assert (
        response.history[0]
        .headers["Location"]
        .endswith(f"/experiments/new/submitted/{experiment_id}")
    )
    again = server.get(response.url.replace(server.url, ""), cookies=cookies)
    assert again.status_code == 200 and _token(again.text) == token
    assert len(server.storage.experiments.listing(include_private=True)) == before + 1
    stranger = server.get(response.url.replace(server.url, ""))  # no token shown to another
    assert stranger.status_code == 303 and "owner-token" not in stranger.text
    assert stranger.headers["Location"] == f"{server.url}experiment/{experiment_id}"
    state = _wait(server, experiment_id, cookies)
    assert state["status"] == "finished", state
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    assert 'id="table-QA"' in page and "answers-partial" in page
    assert server.get(f"experiment/{experiment_id}").status_code == 403  # private to strangers
    assert server.get(f"experiment/{experiment_id}/status").status_code == 403


def test_a_bad_file_comes_back_with_its_position_and_reserves_nothing(server) -> None:
    before = len(server.storage.experiments.listing(include_private=True))
    broken = ("answers", ("mine.json", b'{"questions": [{"id": "1", "answers": ['))
    response = _submit(server, [broken], dataset="demo", webservice="")
    assert response.status_code == 400
    problems = re.search(r'<ul id="run-problems">(.*?)</ul>', response.text, re.S)
    assert problems and "mine.json:1:" in problems.group(1), response.text[-3000:]
    assert 'id="run-form"' in response.text  # the form again, to fix and resend
    assert len(server.storage.experiments.listing(include_private=True)) == before
    empty = _submit(server, [], dataset="demo")
    assert empty.status_code == 400 and 'id="run-error"' in empty.text


def test_each_problem_of_a_refused_file_is_said_once(server) -> None:
    # Before: the first problem was the alert's text and again the list's first item
    binding = '{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "wat"}}]}}'
    body = '{"questions": [{"id": "1", "question": [{"language": "en", "string": "?"}], '
    body += f'"answers": [{binding}]}}]}}'
    response = _submit(server, [("answers", ("typed.json", body.encode()))], dataset="demo")
    assert response.status_code == 400
    alert = re.search(r'id="run-error" role="alert">(.*?)</div>', response.text, re.S)
    assert alert, response.text[-3000:]
    assert alert.group(1).count("typed.json:1:") == 1
    assert "unknown term type 'wat'" in html.unescape(alert.group(1))
    assert "1 error." in alert.group(1)


def test_a_refusal_counts_its_errors_apart_from_its_warnings(server) -> None:
    """Before: "the uploaded files have 3 problems" for one error and two warnings (a boolean
    beside an empty result set, real QALD-9 output): the warnings read as reasons for the
    refusal. Now the errors are counted as such, the warnings beside them."""
    empty_and_true = '{"head": {"vars": ["x"]}, "results": {"bindings": []}, "boolean": true}'
    broken = '{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri"}}]}}'
    questions = [
        f'{{"id": "{n}", "question": [{{"language": "en", "string": "?"}}], "answers": [{a}]}}'
        for n, a in ((1, broken), (2, empty_and_true), (3, empty_and_true))
    ]
    body = '{"questions": [' + ", ".join(questions) + "]}"
    response = _submit(server, [("answers", ("mixed.json", body.encode()))], dataset="demo")
    assert response.status_code == 400
    alert = re.search(r'id="run-error" role="alert">(.*?)</div>', response.text, re.S)
    assert alert, response.text[-3000:]
    said = html.unescape(alert.group(1))
    assert "have 1 error (and 2 warnings, which alone would not refuse them)." in said, said
    assert said.count("mixed.json:1:") == 3


def test_answers_to_another_dataset_say_which_box_forces_them(server) -> None:
    foreign = b'{"questions": [{"id": "q-elsewhere", "answers": []}]}'
    refused = _submit(server, [("answers", ("other.json", foreign))], dataset="demo")
    assert refused.status_code == 400
    assert "score answer files even when they answer under half" in html.unescape(refused.text)
    assert '<label for="run-force">score answer files even when' in refused.text


def test_an_unnamed_service_url_is_refused_for_its_address_not_its_name(server) -> None:
    # Before: a URL with a port out of range was a 500 (the name derived from the URL read its
    # port), and every unnamed IPv6 URL was refused for its derived name ("-1-8080").
    before = len(server.storage.experiments.listing(include_private=True))
    for url, words in (
        ("http://127.0.0.1:99999/qa", "not a valid URL"),
        ("http://[::1]:8080/qa", "refusing to connect to [::1]"),
        ("http://[fe80::1]/qa", "refusing to connect to [fe80::1]"),
    ):
        response = _submit(server, [], dataset="demo", webservice=url)
        assert response.status_code in (400, 403), (url, response.status_code)
        error = re.search(r'id="run-error" role="alert"><p>(.*?)</p>', response.text, re.S)
        assert error and words in error.group(1), (url, error and error.group(1))
    assert len(server.storage.experiments.listing(include_private=True)) == before


def test_a_refused_service_among_several_is_named(server) -> None:
    # Before: "refusing to connect to 10.0.0.1: … a private address", with three services in
    # the box and nothing saying which line it was
    lines = "ours=http://127.0.0.1:9/qa\ntheirs=http://10.0.0.1:8080/qa\nmore=http://127.0.0.1:9/x"
    response = _submit(server, [], dataset="demo", webservice=lines)
    assert response.status_code == 403
    error = re.search(r'id="run-error" role="alert"><p>(.*?)</p>', response.text, re.S)
    assert error, response.text[:500]
    said = html.unescape(error.group(1))
    assert said.startswith("system 'theirs': refusing to connect to 10.0.0.1"), said


def test_a_service_line_without_its_equals_sign_names_the_box_and_the_form(server) -> None:
    """``toy http://…`` (a space for the ``=``) was refused as a URL "only http/https URLs can
    be called, got 'toy http://…'" (403): neither the box nor the form a line takes."""
    before = len(server.storage.experiments.listing(include_private=True))
    for box, label in (("webservice", "QA web services"), ("text2sparql", "Text2SPARQL services")):
        lines = "good=http://127.0.0.1:9/\n\ntoy http://127.0.0.1:9/"
        response = _submit(server, [], dataset="demo", **{box: lines})
        assert response.status_code == 400, (box, response.status_code)
        error = re.search(r'id="run-error" role="alert"><p>(.*?)</p>', response.text, re.S)
        assert error, response.text[-3000:]
        words = html.unescape(error.group(1))
        assert f"{label} ({box}), line 3: expected name=URL or a URL" in words, words
        assert "'toy http://127.0.0.1:9/'" in words
    assert len(server.storage.experiments.listing(include_private=True)) == before


def test_reference_systems_and_services_from_the_text_areas(server, slow_qa) -> None:
    response = _submit(
        server,
        [],
        dataset="demo",
        reference="baseline",
        webservice=f"quick={slow_qa}delay/0\n\n{slow_qa}delay/0.01\n",
    )
    assert response.status_code == 200, response.text
    experiment_id, cookies = _owner(server, response)
    state = _wait(server, experiment_id, cookies)
    assert state["status"] == "finished", state
    body = server.get(f"experiment/{experiment_id}.ttl", cookies=cookies).text
    for system in ("baseline", "quick", "127.0.0.1-"):
        assert system in body


def _file_beside_a_slow_service(
    server: Any, slow_qa: str, *, delay: float
) -> tuple[str, Any, dict[str, Any]]:
    """A run of an answer file beside a service answering in ``delay`` s, watched until the
    service is midway: its id, the owner's cookies and that status."""
    files = [_answers("partial")]
    response = _submit(server, files, dataset="demo", webservice=f"slow={slow_qa}delay/{delay}")
    assert response.status_code == 200, response.text
    experiment_id, cookies = _owner(server, response)

    def midway(state: dict[str, Any]) -> bool:
        systems = {s["system"]: s for s in state["systems"]}
        return "slow" in systems and 0 < systems["slow"]["done"] < systems["slow"]["total"]

    return experiment_id, cookies, _wait(server, experiment_id, cookies, until=midway)


def test_the_status_tells_progress_time_and_reasons(server, slow_qa) -> None:
    # an answer file beside the service: its questions are done at once, and they used to
    # count in the pace ("about 0 s left" while the service had most of its questions to go)
    experiment_id, cookies, state = _file_beside_a_slow_service(server, slow_qa, delay=0.4)
    assert state["status"] == "running" and state["elapsedSeconds"] is not None
    slow = next(s for s in state["systems"] if s["system"] == "slow")
    # 0.4 s a question, four in flight: at least 0.1 s for each question left (half of it
    # here, for the rounding of a loaded machine)
    assert state["remainingSeconds"] >= 0.05 * (slow["total"] - slow["done"]), (state, slow)
    # what was asked, before anything is recorded (the API's dataset is null until the end)
    # (the demo by its name: it said "questions.json (uploaded)", a file the user never chose)
    assert state["asked"]["dataset"] == "demo" and state["asked"]["demo"] is True, state
    api = server.get(f"api/experiments/{experiment_id}", cookies=cookies).json()
    assert api["dataset"] is None and api["asked"] == state["asked"], api
    asked_systems = [s["name"] for s in state["asked"]["systems"]]
    assert asked_systems == ["answers-partial", "slow"], state["asked"]
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    # without JS: a link to reload, and one to have the page reload itself (never unasked)
    assert 'id="progress-table"' in page and 'http-equiv="refresh"' not in page
    assert '<dd id="asked">dataset demo (the demo questions) · 2 systems' in page, page
    assert f'href="/experiment/{experiment_id}?refresh=on" id="reload-auto"' in page
    asked = server.get(f"experiment/{experiment_id}?refresh=on", cookies=cookies).text
    assert '<meta http-equiv="refresh" content="5">' in asked and 'id="reload-stop"' in asked
    assert "progress.js" in page and 'id="cancel"' in page
    final = _wait(server, experiment_id, cookies)
    assert final["status"] == "finished", final


def test_a_queued_run_says_how_many_runs_are_ahead_of_it(tmp_path, slow_qa) -> None:
    """A run waiting for a runner said only "queued" (its message null): with several slow
    runs in several tabs, nothing said which would start when."""
    site = start_server(tmp_path / "store", runner_workers=1)
    try:
        tickets = [
            site.post(
                "api/experiments",
                json={
                    "dataset": "demo",
                    "systems": [{"name": f"s{n}", "url": f"{slow_qa}delay/0.5"}],
                },
                timeout=30,
            ).json()
            for n in range(3)
        ]
        owner = [{"Authorization": f"Bearer {t['token']}"} for t in tickets]
        cookies = {f"gqa_owner_{t['id']}": t["token"] for t in tickets}
        _wait(site, tickets[0]["id"], cookies, until=lambda s: s["status"] == "running")
        said = [
            site.get(f"experiment/{t['id']}/status", headers=h, timeout=30).json()
            for t, h in zip(tickets, owner, strict=True)
        ]
        assert said[0]["status"] == "running", said[0]
        assert [(s["status"], s["message"]) for s in said[1:]] == [
            ("queued", "next in the queue"),  # it read "0 runs ahead" (explore-20 11)
            ("queued", "1 run ahead of it in the queue"),
        ], said
        page = site.get(f"experiment/{tickets[2]['id']}", headers=owner[2], timeout=30).text
        assert "· 1 run ahead of it in the queue</span>" in page
        # the running one's Status row leaves its phase to the live Progress below: kept at
        # the page's load, it said "scoring" while Progress said "recording" (explore-20 10)
        page = site.get(f"experiment/{tickets[0]['id']}", headers=owner[0], timeout=30).text
        row = page.split("<dt>Status</dt>", 1)[1].split("</dd>", 1)[0]
        assert row == '<dd><span class="status status-running">running</span>', row
        assert 'id="progress"' in page
    finally:
        for t, h in zip(reversed(tickets), reversed(owner), strict=True):
            site.post(f"api/experiments/{t['id']}/cancel", headers=h, timeout=30)
        stop_server(site)


def test_an_aborted_service_is_said_to_be_with_its_reasons(server, slow_qa) -> None:
    response = _submit(server, [], dataset="demo", webservice=f"no={slow_qa}refuse")
    experiment_id, cookies = _owner(server, response)
    state = _wait(server, experiment_id, cookies)
    assert state["status"] == "error", state
    assert "aborted by the error-rate rule" in state["message"], state
    reasons = [r["reason"] for s in state["systems"] for r in s["errorReasons"]]
    assert reasons and all("planets" in r for r in reasons), state
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    assert "aborted by the error-rate rule" in page and "does not answer questions" in page


def test_an_ended_run_has_no_clock_running(server, slow_qa) -> None:
    # an aborted run used to keep its elapsed time growing, with "about N s left", for ever
    response = _submit(server, [], dataset="demo", webservice=f"no={slow_qa}refuse")
    experiment_id, cookies = _owner(server, response)
    state = _wait(server, experiment_id, cookies)
    assert state["status"] == "error" and state["systems"], state  # its progress is kept
    time.sleep(1.1)
    later = server.get(f"experiment/{experiment_id}/status", cookies=cookies).json()
    assert (later["elapsedSeconds"], later["remainingSeconds"]) == (None, None), later
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    assert " s left" not in page and " s elapsed" not in page


def test_an_ended_run_says_no_phase(server, slow_qa) -> None:
    # a run the error-rate rule ended kept the phase it was in: "error · scoring · system no
    # was aborted …", as if it still scored; the phase is what a run is doing while it runs
    response = _submit(server, [], dataset="demo", webservice=f"no={slow_qa}refuse")
    experiment_id, cookies = _owner(server, response)
    state = _wait(server, experiment_id, cookies)
    assert state["status"] == "error" and state["systems"], state
    assert state["phase"] is None, state
    assert not state["progress"].startswith(("asking", "scoring")), state  # nor in its line
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    shown = re.search(r'<span id="progress-phase">([^<]*)</span>', page)
    assert shown and shown.group(1) == "", page


def test_the_owner_cancels_from_the_page(server, slow_qa) -> None:
    response = _submit(server, [], dataset="demo", webservice=f"{slow_qa}delay/3")
    experiment_id, cookies = _owner(server, response)
    _wait(server, experiment_id, cookies, until=lambda s: s["status"] == "running")
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    check = re.search(r'id="cancel-form">\s*<input type="hidden" name="check" value="(\w+)"', page)
    assert check, page
    forged = server.post(f"experiment/{experiment_id}/cancel", cookies=cookies, data={})
    assert forged.status_code == 403  # the cookie alone cannot cancel (CSRF)
    stranger = server.post(f"experiment/{experiment_id}/cancel", data={"check": check.group(1)})
    assert stranger.status_code == 403
    cancelled = server.post(
        f"experiment/{experiment_id}/cancel", cookies=cookies, data={"check": check.group(1)}
    )
    assert cancelled.status_code == 303
    state = _wait(server, experiment_id, cookies, timeout=30)
    assert state["status"] == "cancelled", state


def _form_check(page: str, form: str) -> str:
    check = re.search(rf'id="{form}">\s*<input type="hidden" name="check" value="(\w+)"', page)
    assert check, page
    return check.group(1)


def test_the_owner_resumes_a_cancelled_run_from_the_page(server, slow_qa) -> None:
    # Before: the page told its owner to "resume it" with a token a browser user never kept
    response = _submit(server, [], dataset="demo", webservice=f"slow={slow_qa}delay/0.3")
    experiment_id, cookies = _owner(server, response)
    _wait(server, experiment_id, cookies, until=lambda s: s["status"] == "running")
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    assert 'id="resume-form"' not in page  # running: nothing to resume
    cancel = _form_check(page, "cancel-form")
    server.post(f"experiment/{experiment_id}/cancel", cookies=cookies, data={"check": cancel})
    assert _wait(server, experiment_id, cookies, timeout=30)["status"] == "cancelled"
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    assert '"Resume this experiment" button below' in page
    check = _form_check(page, "resume-form")
    assert 'id="resume-form"' not in server.get(f"experiment/{experiment_id}").text  # a stranger's
    url = f"experiment/{experiment_id}/resume"
    for refused in (
        server.post(url, cookies=cookies, data={}),  # the cookie alone (CSRF)
        server.post(url, cookies=cookies, data={"check": cancel}),  # another action's check
        server.post(url, data={"check": check}),  # the check without the owner's cookie
        server.post(url, cookies={f"gqa_owner_{experiment_id}": "x" * 43}, data={"check": check}),
    ):
        assert refused.status_code == 403, refused.text
    assert server.get(f"experiment/{experiment_id}/status", cookies=cookies).json()["status"] == (
        "cancelled"
    )
    resumed = server.post(url, cookies=cookies, data={"check": check})
    assert resumed.status_code == 303
    assert resumed.headers["Location"] == f"{server.url}experiment/{experiment_id}"
    state = _wait(server, experiment_id, cookies, timeout=60)
    assert state["status"] == "finished", state
    again = server.post(url, cookies=cookies, data={"check": check})
    assert again.status_code == 409  # a finished run is not resumed


def test_an_answer_file_is_said_to_be_read_while_a_service_is_asked(server, slow_qa) -> None:
    # Before: the file's row said "asking" with 13/13 (the page, its script, the status JSON)
    experiment_id, cookies, state = _file_beside_a_slow_service(server, slow_qa, delay=0.3)
    rows = {s["system"]: s for s in state["systems"]}
    read, slow = rows["answers-partial"], rows["slow"]
    assert (read["kind"], read["state"], read["done"]) == ("answers", "asking", 13)  # kept
    assert read["activity"] == "read, waiting to be scored", read
    assert (slow["kind"], slow["activity"]) == ("webservice", "asking")
    assert "answers-partial 13/13 answers read" in state["progress"], state["progress"]
    page = server.get(f"experiment/{experiment_id}", cookies=cookies).text
    row = re.search(r'<th scope="row">answers-partial</th><td>([^<]*)</td>', page)
    assert row and row.group(1) == "read, waiting to be scored", row and row.group(0)
    assert _wait(server, experiment_id, cookies)["status"] == "finished"


def test_a_tsv_answer_file_with_a_header_is_refused_at_line_1(server) -> None:
    # Before: the header was read as question 1's answers and shifted every other answer
    lines = "".join(f"answer {n}\n" for n in range(1, 15))
    header = ("answers", ("mine.tsv", ("question\tanswers\n" + lines).encode()))
    before = len(server.storage.experiments.listing(include_private=True))
    response = _submit(server, [header], dataset="demo")
    assert response.status_code == 400
    problems = re.search(r'<ul id="run-problems">(.*?)</ul>', response.text, re.S)
    assert problems, response.text[-3000:]
    said = html.unescape(problems.group(1))
    assert "mine.tsv:1:1: error: line 1 looks like a header (`question  answers`)" in said, said
    assert "TSV answer files have no header; remove it" in said
    api = server.post("api/experiments", files=[header], data={"dataset": "demo"})
    assert api.status_code == 400
    (problem,) = api.json()["problems"]
    assert (problem["file"], problem["line"], problem["column"]) == ("mine.tsv", 1, 1)
    assert problem["expected"], problem
    assert len(server.storage.experiments.listing(include_private=True)) == before
    plain = ("answers", ("mine.tsv", lines.encode()))  # the same answers without it: taken
    assert _submit(server, [plain], dataset="demo").status_code == 200


def test_a_form_without_a_dataset_says_which_field_to_fill(server) -> None:
    # Before: the API's words, "no dataset: give a catalogue name ('dataset') or upload a file"
    response = _submit(server, [_answers("partial")], dataset="")
    assert response.status_code == 400
    error = re.search(r'id="run-error" role="alert"><p>(.*?)</p>', response.text, re.S)
    said = html.unescape(error.group(1)) if error else response.text[-3000:]
    assert "'dataset'" not in said and '"Dataset" list' in said and '"or a dataset file"' in said
    assert '<label for="run-dataset">Dataset</label>' in response.text
    assert '<label for="run-dataset-file">or a dataset file</label>' in response.text
    api = server.post("api/experiments", files=[_answers("partial")])
    assert api.json()["error"] == "no dataset: give a catalogue name ('dataset') or upload a file"


def test_a_file_and_a_listed_dataset_say_which_to_change(server) -> None:
    # The list starts at the demo: a file chosen without touching it got the API's words
    # ("give either a catalogue dataset name or a dataset file, not both")
    mine = ("dataset_file", ("mine.json", (DEMO_DIR / "questions.json").read_bytes()))
    response = _submit(server, [mine, _answers("partial")], dataset="demo")
    assert response.status_code == 400
    error = re.search(r'id="run-error" role="alert"><p>(.*?)</p>', response.text, re.S)
    said = html.unescape(error.group(1)) if error else response.text[-3000:]
    assert '"Dataset" list says demo' in said and "mine.json" in said
    assert '"(upload a dataset file instead)"' in said
    assert "(upload a dataset file instead)</option>" in response.text  # the option it names


def test_the_form_names_the_system_of_each_answer_file(server) -> None:
    """A team uploads its ``answers.json`` on the run page: the system was named after the file
    ("answers", on every leaderboard) and the page had no box to name it, which the API's
    ``answers_name`` does; now one name a line, in the files' order."""
    page = server.get("experiments/new").text
    assert '<textarea id="run-answers-name" name="answers_name"' in page
    path = DEMO_DIR / "answers-strong.json"
    files = [
        ("answers", ("answers.json", path.read_bytes())),
        ("answers", ("answers (1).json", (DEMO_DIR / "answers-partial.json").read_bytes())),
    ]
    response = _submit(server, files, dataset="demo", answers_name="Team Aurora\r\nteam-b\r\n")
    assert response.status_code == 200, response.text
    experiment_id, cookies = _owner(server, response)
    assert _wait(server, experiment_id, cookies)["status"] == "finished"
    token = cookies[f"gqa_owner_{experiment_id}"]
    auth = {"Authorization": f"Bearer {token}"}
    state = server.get(f"api/experiments/{experiment_id}", headers=auth).json()
    names = {e["system"]: e["results"]["QA"]["macroF1"] for e in state["evaluations"]}
    assert set(names) == {"Team Aurora", "team-b"}
    assert names["Team Aurora"] > names["team-b"]  # the strong file is the first name's


def test_a_resumed_run_tells_its_time_left_at_its_own_pace(server, slow_qa) -> None:
    """A resumed run counts its logged answers at once: they used to count in the pace, so
    a service with half its questions to go was "about 0 s left" (12 done over 0.3 s)."""
    body = {
        "dataset": "demo",
        "kb": "demo",
        "systems": [{"name": "slow", "url": slow_qa + "delay/0.3"}],
        "concurrency": 1,
    }
    ticket = server.post("api/experiments", json=body).json()
    eid, owner = ticket["id"], {"Authorization": f"Bearer {ticket['token']}"}

    def status() -> dict[str, Any]:
        return server.get(f"api/experiments/{eid}", headers=owner).json()

    def until(ok, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while not ok(state := status()):
            assert time.monotonic() < deadline, state
            time.sleep(0.03)
        return state

    until(lambda s: s["systems"] and s["systems"][0]["done"] >= 6)
    server.post(f"api/experiments/{eid}/cancel", headers=owner)
    cancelled = until(lambda s: s["status"] == "cancelled")
    reused = cancelled["systems"][0]["done"]
    assert server.post(f"api/experiments/{eid}/resume", headers=owner).status_code == 202
    state = until(lambda s: s["status"] == "running" and reused < s["systems"][0]["done"] <= 11)
    left = state["systems"][0]["total"] - state["systems"][0]["done"]
    # 0.3 s a question, one at a time: half of that for each question left (a loaded machine)
    assert state["remainingSeconds"] >= 0.15 * left, (state, reused)
    assert until(lambda s: s["status"] not in ("queued", "running"))["status"] == "finished"


def test_watch_it_run_opens_the_owners_page_when_the_uris_name_another_host(
    tmp_path: Path,
) -> None:
    """`make run` listens on 127.0.0.1 and mints http://localhost:PORT/ URIs (the README's
    quick start opens the former). Before, "Watch it run" linked the bare URI: the owner
    cookie, set for 127.0.0.1, was not sent to localhost, and the submitter read that the
    experiment was not public yet. Now, asked for on another host than its URIs', the link
    carries the owner token, which sets the cookie where the URIs are; on the URIs' own host
    it stays the bare URI (the cookie is already there)."""
    port = free_port()
    base = f"http://localhost:{port}/"
    site = start_server(tmp_path / "store", port=port, base=base, demo=True)
    try:
        for entry, bare in ((site.url, False), (base, True)):
            browser = requests.Session()  # a real cookie jar: a cookie stays with its host
            response = browser.post(
                entry + "experiments/new",
                files=[_answers("strong")],
                data={"dataset": "demo"},
                timeout=30,
            )
            assert response.status_code == 200, response.text[:2000]  # the 303 followed
            experiment_id = response.url.rsplit("/", 1)[-1]
            found = re.search(r'href="([^"]+)" id="open-experiment"', response.text)
            assert found, response.text[:2000]
            watch = html.unescape(found.group(1))
            assert watch.startswith(f"{base}experiment/{experiment_id}")
            page = browser.get(watch, timeout=30)  # the token link: a 303 to the bare URI
            assert page.url == f"{base}experiment/{experiment_id}"
            assert page.status_code == 200, page.text[:2000]
            assert 'id="not-public"' not in page.text
            assert 'id="private-notice"' in page.text  # the owner's view
            assert (watch == f"{base}experiment/{experiment_id}") is bare, watch
    finally:
        stop_server(site)


def test_the_task_csv_has_each_questions_runtime_and_error(server, slow_qa) -> None:
    """Before, the per-question CSV of a web-service run had no runtime, no error and no
    attempts: a question the service failed was 'error' with no reason, and the times were
    on the page, in the JSON and the RDF only. Now the columns are added after the others,
    named as the JSON's keys, with the JSON's values."""
    response = _submit(server, [], dataset="demo", webservice=f"flaky={slow_qa}fail/Pluto")
    assert response.status_code == 200, response.text
    experiment_id, cookies = _owner(server, response)
    assert _wait(server, experiment_id, cookies)["status"] == "finished"
    (evaluation,) = server.get(f"api/experiments/{experiment_id}", cookies=cookies).json()[
        "evaluations"
    ]
    asked = {q["id"]: q for q in evaluation["questions"]}
    table = server.get(f"experiment/{experiment_id}/task/1.csv", cookies=cookies)
    assert table.status_code == 200, table.text[:500]
    header = table.text.splitlines()[0].split(",")
    assert header[-9:-4] == ["runtimeMs", "error", "attempts", "retryReason", "confidence"]
    assert header[-4] == "matches"  # then each match with its rule
    assert header[-3] == "rankedAnswers"  # and the system's items in its order
    assert header[-2] == "note"  # and what the profile noted of the question
    assert header[-1] == "lookAlike"  # and a wrong answer only invisibly other than the gold
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(table.text))}
    assert rows.keys() == asked.keys()
    failed = [qid for qid, row in rows.items() if row["status"] == "error"]
    assert failed == ["4"]  # "Is Pluto a planet?"
    for qid, row in rows.items():
        json_row = asked[qid]
        assert row["error"] == json_row.get("error", ""), qid
        assert row["attempts"] == str(json_row.get("attempts", "")), qid
        assert row["retryReason"] == json_row.get("retryReason", ""), qid
        runtime = json_row.get("runtimeMs")
        assert row["runtimeMs"] == ("" if runtime is None else repr(runtime)), qid
    assert "HTTP 500" in rows["4"]["error"] and rows["4"]["attempts"] == "3"
    assert all(rows[q]["runtimeMs"] for q in rows if q != "4")


def test_a_refused_language_or_description_marks_its_field(server) -> None:
    """A PolEval expected.tsv under fair without a language, and an About field refused (a
    licence that is no IRI): the page's notice was focused but no field marked, and the About
    fields came back folded in their closed details (explore-20 5, 9)."""
    from service.paths import DEMO_DIR

    tsv = b"4\tcztery\nWarszawa\n"
    files = [("dataset_file", ("expected.tsv", tsv)), ("answers", ("out.tsv", b"4\nWarszawa\n"))]
    page = server.post("experiments/new", files=files, data={"profile": "fair"})
    assert page.status_code == 400, page.text[:300]
    assert re.search(r'id="run-language"[^>]*aria-invalid="true"', page.text), "language"
    api = server.post("api/experiments", files=files, data={"profile": "fair"})
    assert api.status_code == 400 and api.json()["problems"][0]["path"] == "$.language"
    data = (DEMO_DIR / "questions.json").read_bytes().replace(b'"1"', b'"one"', 1)
    files = [("dataset_file", ("q.json", data)), ("answers", ("a.json", data))]
    page = server.post("experiments/new", files=files, data={"dataset_license": "not a licence"})
    assert page.status_code == 400, page.text[:300]
    assert '<details id="run-about" open>' in page.text
    marked = re.findall(r'id="(run-[^"]+)"[^>]*aria-invalid="true"', page.text)
    assert marked == ["run-dataset_license"], marked
    assert 'href="#run-dataset_license"' in page.text  # the notice links to it
    plain = server.get("experiments/new").text
    assert '<details id="run-about">' in plain  # folded, as before, when nothing is at fault


def test_a_run_without_systems_marks_the_fields_that_give_them(server) -> None:
    # "no systems" marked no field, unlike the run form's other refusals (explore59 F5)
    page = server.post("experiments/new", data={"dataset": "demo"})
    assert page.status_code == 400 and "no systems" in page.text, page.text[:300]
    marked = re.findall(r'id="(run-[^"]+)"[^>]*aria-invalid="true"', page.text)
    assert marked == ["run-answers", "run-webservice", "run-text2sparql"], marked
    assert 'href="#run-webservice"' in page.text.split('id="run-error"', 1)[1]


def test_a_run_without_a_dataset_marks_both_fields_that_give_one(server) -> None:
    """The run form's "Choose a dataset" marked no field (explore62 F3, as the compare form's
    marked only its list): both fields it names are marked and linked."""
    page = server.post("experiments/new", data={"dataset": "", "webservice": "http://x.test/"})
    assert page.status_code == 400 and "Choose a dataset" in page.text, page.text[:300]
    marked = re.findall(r'id="(run-[^"]+)"[^>]*aria-invalid="true"', page.text)
    assert marked == ["run-dataset", "run-dataset-file"], marked
    notice = page.text.split('id="run-error"', 1)[1]
    assert 'href="#run-dataset"' in notice and 'href="#run-dataset-file"' in notice


def test_the_call_fields_show_their_defaults_and_say_what_they_do(server) -> None:
    """maxErrorRate's placeholder read 0 (its default 0.25 cut to an integer), so an empty field
    read as "stop at the first failure", and nothing said what the share does (explore27 F6)."""
    page = server.get("experiments/new").text
    field = page.split('id="run-maxErrorRate"', 1)[1].split(">", 1)[0]
    assert 'placeholder="0.25"' in field and 'aria-describedby="run-calls-note"' in field
    assert 'placeholder="60"' in page.split('id="run-timeout"', 1)[1].split(">", 1)[0]
    note = page.split('id="run-calls-note">', 1)[1].split("</small>", 1)[0]
    assert "(0.25 when empty)" in note and "1: never stopped, every question asked" in note


def test_the_ranked_box_asks_for_mrr_and_hits_as_evaluate_ranked_does(server) -> None:
    """explore28 F7: the run page had no way to say the answers are ranked, so MRR and Hits@k
    (`evaluate --ranked`) could not be had from it."""
    page = server.get("experiments/new").text
    field = page.split('id="run-ranked"', 1)[1].split(">", 1)[0]
    assert 'name="ranked"' in field and 'value="1"' in field and " checked" not in field
    assert 'aria-describedby="run-ranked-note"' in field
    label = page.split('<label for="run-ranked">', 1)[1].split("</label>", 1)[0]
    assert label == "each system&#39;s answers are in rank order, best first"
    note = page.split('id="run-ranked-note">', 1)[1].split("</small>", 1)[0]
    assert note.startswith("Also score MRR and Hits@1, 5 and 10")
    ticked = _submit(server, [_answers("partial")], dataset="demo", ranked="1")
    unticked = _submit(server, [_answers("partial")], dataset="demo")
    results, again = [], []
    for response in (ticked, unticked):
        experiment_id, cookies = _owner(server, response)
        _wait(server, experiment_id, cookies)
        state = server.get(f"api/experiments/{experiment_id}", cookies=cookies).json()
        results.append(state["evaluations"][0]["results"]["QA"])
        form = server.get(f"experiments/new?from={experiment_id}", cookies=cookies).text
        again.append(form.split('id="run-ranked"', 1)[1].split(">", 1)[0])
    assert " checked" in again[0] and " checked" not in again[1]  # "run again" keeps the box
    # the demo's partial answers: 8 of 14 questions right, each at rank 1 (as the CLI says)
    assert results[0]["mrr"] == results[0]["hitsAt1"] == 8 / 14 and "mrr" not in results[1]


def test_a_refusal_names_the_about_field_in_words() -> None:
    """ "Fix it in: About your dataset file: previousVersion" named a key the form never shows
    (explore36 6): the field in words."""
    from service.web.running import RUN_FIELDS

    assert RUN_FIELDS["dataset_previous"] == (
        "run-dataset_previous",
        "About your dataset file: previous version",
    )
    assert RUN_FIELDS["dataset_kb_version"][1].endswith(": knowledge base version")


def test_a_refused_form_names_the_files_to_choose_again(server) -> None:
    """The page sent back had both file fields empty (no browser fills one in), the valid
    answers file's too, and said nothing of it; its alert read "Fix it in: or a dataset file."
    (explore44 F10). Now it names each field's files to choose again, and the field whole."""
    cut = ("dataset_file", ("cut.json", (DEMO_DIR / "questions.json").read_bytes()[:300]))
    before = len(server.storage.experiments.listing(include_private=True))
    response = _submit(server, [cut, _answers("partial")], dataset="", title="Kept title")
    assert response.status_code == 400
    alert = re.search(r'id="run-error" role="alert">(.*?)</div>', response.text, re.S)
    assert alert, response.text[-3000:]
    said = html.unescape(re.sub(r"<[^>]+>", "", alert.group(1)))
    assert 'Fix it in the field "or a dataset file".' in said, said
    assert (
        "Choose your files again (a browser fills in no file on a page sent back, and nothing "
        'you sent was kept): in "or a dataset file": cut.json; in "Answer files": '
        "answers-partial.json." in said
    ), said
    assert 'value="Kept title"' in response.text  # the rest is filled in again
    assert len(server.storage.experiments.listing(include_private=True)) == before
    # a refusal of no file names none; the page first shown has no such note
    assert 'id="run-error-repick"' not in server.get("experiments/new").text
    nothing = _submit(server, [], dataset="")
    assert nothing.status_code == 400 and 'id="run-error-repick"' not in nothing.text
