"""A QA-system developer's walk: a web service on loopback answers QALD-8 test (some answers
right, some in other literal forms, a Wikipedia URL, a label without a KB, errors), is run,
improved, run again as a resubmission, and the two runs are looked at side by side.

What it found: the resubmission's ``changes`` left out the questions whose call failed before
and was answered now (their F1 stayed 0), so a developer who fixed the errors saw the error
count fall and no question named; the experiment page of a resubmission did not show what
changed at all (the API only); the per-question CSV had no column saying which rule matched an
answer (numeric, date at the gold's granularity, IRI identity…), though the page shows it."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs

import pytest
import requests

from tests.web.conftest import Server, start_server, stop_server

QALD8 = Path("qald") / "ag-sc_QALD" / "8" / "data" / "qald-8-test-multilingual.json"
XSD = "http://www.w3.org/2001/XMLSchema#"


def _rows(*bindings: dict[str, str]) -> list[dict[str, Any]]:
    return [{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": b} for b in bindings]}}]


def _answers(question: dict[str, Any], version: int) -> list[dict[str, Any]] | None:
    """What the developer's service answers (``None``: it fails with a 500)."""
    qid = question["id"]
    if qid in ("1", "3"):
        return question["answers"]  # right, straight from the gold
    if qid == "2":  # gold "2.42495e+11", plain
        return _rows({"type": "literal", "value": "242495000000", "datatype": XSD + "double"})
    if qid == "31":  # gold "1616-04-23", plain
        return _rows(
            {"type": "literal", "value": "1616-04-23T00:00:00Z", "datatype": XSD + "dateTime"}
        )
    if qid == "16":  # a label for dbr:Frankfurt: matched with a KB only
        return _rows({"type": "literal", "value": "Frankfurt"})
    if qid == "41":
        return _rows({"type": "uri", "value": "https://en.wikipedia.org/wiki/Challenger_Deep"})
    if qid == "42":  # wrong at first, right once improved
        if version == 1:
            return _rows({"type": "uri", "value": "http://dbpedia.org/resource/New_Jersey"})
        return question["answers"]
    if qid == "43" and version == 1:
        return None  # the first version crashes on it; the second answers (wrongly: nothing)
    return _rows()


class _DeveloperQA(BaseHTTPRequestHandler):
    """``POST /v1`` and ``POST /v2``: the two versions of the service."""

    questions: ClassVar[dict[str, dict[str, Any]]] = {}

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())
        question = self.questions[(form.get("query") or [""])[0].strip()]
        answers = _answers(question, 2 if self.path.startswith("/v2") else 1)
        if answers is None:
            body, code, media = b"NullPointerException in the parser", 500, "text/plain"
        else:
            document = {"questions": [{"id": question["id"], "answers": answers}]}
            body, code, media = json.dumps(document).encode(), 200, "application/json"
        self.send_response(code)
        self.send_header("Content-Type", media)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Iterator[tuple[Server, str]]:
    """A server of its own (no demo) that reads the catalogue from the mirror, and the
    developer's service: (server, the service's base URL)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GERBIL_QA_DATA", str(data_dir))  # the local mirror: never download
    gold = json.loads((data_dir / QALD8).read_text())
    _DeveloperQA.questions = {
        text["string"].strip(): q for q in gold["questions"] for text in q["question"]
    }
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _DeveloperQA)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    running = start_server(tmp_path_factory.mktemp("developer-store"), demo=False)
    try:
        yield running, f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        stop_server(running)
        httpd.shutdown()
        httpd.server_close()
        mp.undo()


def _run(site: Server, url: str, **extra: Any) -> dict[str, Any]:
    body = {
        "dataset": "qald-8-test-multilingual",
        "systems": [{"name": "myqa", "url": url}],
        "retries": 0,
        **extra,
    }
    headers = extra.pop("headers", None)
    body.pop("headers", None)
    response = site.post("api/experiments", json=body, headers=headers)
    assert response.status_code == 202, response.text
    ticket = response.json()
    ticket["state"] = site.wait_finished(ticket["id"], ticket["token"])
    return ticket


def _resubmitted(site: Server, service: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The first version's run, and the second's, resubmitted to replace it."""
    first = _run(site, service + "v1")
    second = _run(
        site,
        service + "v2",
        revisionOf=first["id"],
        headers={"Authorization": f"Bearer {first['token']}"},
    )
    return first, second


@pytest.fixture(scope="module")
def runs(walk: tuple[Server, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    return _resubmitted(*walk)


def test_the_first_run_is_scored_as_the_design_says(runs) -> None:
    first, _ = runs
    [evaluation] = first["state"]["evaluations"]
    qa = evaluation["results"]["QA"]
    assert qa["questions"] == 41 and qa["errorCount"] == 1
    by_id = {q["id"]: q for q in evaluation["questions"]}
    for right in ("1", "2", "3", "31", "41"):  # other literal forms, a Wikipedia URL
        assert by_id[right]["QA"]["f1"] == 1.0, by_id[right]
    assert by_id["42"]["QA"]["fp"] == 1
    assert by_id["43"]["status"] == "error" and "NullPointerException" in by_id["43"]["error"]
    assert qa["accuracy"] == pytest.approx(5 / 41)


def test_a_resubmission_names_the_questions_whose_error_it_fixed(runs) -> None:
    _, second = runs
    [system] = second["state"]["changes"]["systems"]
    assert system["results"]["QA"]["errorCount"] == [1, 0]
    changed = {c["question"]: c for c in system["questions"] if c["type"] == "QA"}
    assert changed["42"]["before"]["f1"] == 0.0 and changed["42"]["after"]["f1"] == 1.0
    # 43 failed before and is answered now (wrongly, so its F1 is 0 both times): before, it
    # was not named, and nothing said which question the lower error count came from
    assert "43" in changed, sorted(changed)
    assert changed["43"]["before"]["status"] == "error"
    assert changed["43"]["after"]["status"] == "scored"
    assert changed["42"]["before"]["status"] == changed["42"]["after"]["status"] == "scored"
    assert set(changed) == {"42", "43"}  # nothing else moved


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_resubmissions_page_shows_what_changed(walk, runs) -> None:
    site, _ = walk
    first, second = runs
    headers = {"Authorization": f"Bearer {second['token']}", "Accept": "text/html"}
    page = site.get(f"experiment/{second['id']}", headers=headers)
    assert page.status_code == 200
    found = re.search(r'<section id="changes".*?</section>', page.text, re.S)
    assert found, "no section on what the resubmission changed"
    said = _text(found.group(0))
    assert f"experiment {first['id']}" in said
    assert "errorCount" in said or "error count" in said
    task = second["state"]["results"][0]["task"]
    for question in ("42", "43"):  # each changed question, linked to its new result
        assert f'href="{task}/question/{question}"' in found.group(0)
    assert "error" in said and "0.000 → 1.000" in said
    # the counts too: one may move alone, with a micro measure (explore35 3)
    assert '<th scope="col" class="num">FN</th>' in found.group(0)
    # a stranger sees no private page at all, so nothing of the changes either
    assert (
        site.get(f"experiment/{second['id']}", headers={"Accept": "text/html"}).status_code == 403
    )


def test_the_question_csv_says_which_rule_matched_each_answer(walk, runs) -> None:
    site, _ = walk
    first, _ = runs
    task = first["state"]["results"][0]["task"]
    response = site.get(
        task.replace(site.url, "") + ".csv",
        headers={"Authorization": f"Bearer {first['token']}"},
    )
    assert response.status_code == 200
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(response.text))}
    assert "matches" in rows["1"], list(rows["1"])
    assert rows["2"]["matches"] == "242495000000 (xsd:double) = 2.42495e+11 [numeric]"
    assert "[date-granularity]" in rows["31"]["matches"]
    assert rows["41"]["matches"] == (
        "https://en.wikipedia.org/wiki/Challenger_Deep = "
        "http://dbpedia.org/resource/Challenger_Deep [iri-identity]"
    )
    assert rows["1"]["matches"].endswith("[exact]")
    assert rows["42"]["matches"] == ""  # nothing matched: the false answer is in `given`
    # the columns before it are where they were: a script reading them by position still works
    header = next(csv.reader(io.StringIO(response.text)))
    assert header[-5:] == [
        "confidence",
        "matches",
        "rankedAnswers",
        "note",
        "lookAlike",
    ]  # each added last


def test_the_developer_compares_the_two_private_runs(walk, runs) -> None:
    """Both runs private: the resubmission's token (which only the first run's owner could
    get) compares them, as it reads the first run's `changes`; before, each task needed its
    own experiment's token in the one Authorization header, so two private runs were never
    compared. A stranger's token still is refused."""
    site, _ = walk
    first, second = runs
    tasks = [first["state"]["results"][0]["task"], second["state"]["results"][0]["task"]]
    compared = site.post(
        "api/compare",
        json={"tasks": tasks},
        headers={"Authorization": f"Bearer {second['token']}"},
    )
    assert compared.status_code == 200, compared.text
    names = [s["system"] for s in compared.json()["systems"]]
    assert sorted(names) == [f"myqa ({first['id']})", f"myqa ({second['id']})"]
    [pair] = compared.json()["pairs"]
    assert pair["difference"] == pytest.approx(1 / 41) or pair["difference"] == pytest.approx(
        -1 / 41
    )
    # the first run's token does not read the resubmission (it could not have made it)
    refused = site.post(
        "api/compare", json={"tasks": tasks}, headers={"Authorization": f"Bearer {first['token']}"}
    )
    assert refused.status_code == 400 and f"experiment {second['id']} is not public" in refused.text
    stranger = _run(site, walk[1] + "v2")
    refused = site.post(
        "api/compare",
        json={"tasks": tasks},
        headers={"Authorization": f"Bearer {stranger['token']}"},
    )
    assert refused.status_code == 400 and "is not public" in refused.text


def test_the_task_page_says_no_kb_looked_labels_up(walk, runs) -> None:
    """The run named no KB: "Frankfurt" for dbr:Frankfurt is a false answer. The profile
    matches labels with a KB only; the page said nothing of it but ``kb:none`` at the end of
    the signature, so a developer read that the fair matching of labels had failed."""
    site, _ = walk
    first, _ = runs
    task = first["state"]["results"][0]["task"]
    page = site.get(
        task.replace(site.url, ""),
        headers={"Authorization": f"Bearer {first['token']}", "Accept": "text/html"},
    )
    assert page.status_code == 200
    found = re.search(r'<dd id="no-kb">(.*?)</dd>', page.text, re.S)
    assert found, "the page does not say that no KB was used"
    said = _text(found.group(1))
    assert "labels" in said and "owl:sameAs" in said and "kb" in said
    assert re.search(r"false:.{0,80}Frankfurt", _text(page.text))


def test_an_answer_file_without_question_texts_gets_no_warning_for_it(walk, data_dir) -> None:
    """An answer file needs ids and answers only (a service's response need not echo the
    text either, and was never warned about): 41 warnings "question has no text in any
    language" buried the one that said something (a variable bound but not in head.vars)."""
    site, _ = walk
    gold = json.loads((data_dir / QALD8).read_text())
    answers = [{"id": q["id"], "answers": q["answers"]} for q in gold["questions"]]
    body = {
        "dataset": "qald-8-test-multilingual",
        "systems": [{"name": "minimal", "answers": json.dumps({"questions": answers})}],
    }
    response = site.post("api/experiments", json=body)
    assert response.status_code == 202, response.text
    ticket = response.json()
    [evaluation] = site.wait_finished(ticket["id"], ticket["token"])["evaluations"]
    assert evaluation["results"]["QA"]["macroF1"] == 1.0
    warnings = evaluation["warnings"]
    assert not [w for w in warnings if "no text" in w], warnings[:3]
    assert any("not in head.vars" in w for w in warnings), warnings


def test_the_comparison_of_two_runs_links_each_question_that_changed(walk) -> None:
    """Two published runs of the service compared: each question they score differently is
    linked to each run's result for it (what was answered, which rule matched), and a
    question that failed in one run and was answered, wrongly, in the other is listed with
    its status; before, the table held F1 values only, so 43 (0 both times) was not there."""
    site, service = walk
    old, new = _run(site, service + "v1"), _run(site, service + "v2")
    tasks = []
    for ticket in (old, new):
        published = site.post(
            f"api/experiments/{ticket['id']}/publish",
            headers={"Authorization": f"Bearer {ticket['token']}"},
        )
        assert published.status_code == 200, published.text
        tasks.append(ticket["state"]["results"][0]["task"])
    page = site.get("compare", params={"task": tasks})
    assert page.status_code == 200, page.text
    table = page.text.split('id="compare-differences"')[1].split("</table>")[0]
    rows = dict(re.findall(r'<th scope="row">([^<]+)</th>(.*?)</tr>', table, re.S))
    assert set(rows) == {"42", "43"}, sorted(rows)
    for task in tasks:
        assert f'href="{task}/question/42"' in rows["42"]
        assert f'href="{task}/question/43"' in rows["43"]
    assert "error" in _text(rows["43"])


def _checks(form_page: str) -> dict[str, str]:
    """The run form's anti-forgery checks (``check-ID``, one per run of this browser), which
    a resubmission from the form sends back (explore34 11)."""
    return dict(re.findall(r'type="hidden" name="(check-\d+)" value="([^"]+)"', form_page))


def test_run_it_again_works_in_the_browser_that_submitted_the_run(walk) -> None:
    """The owner page's "Run it again to replace it" opens the run page with the run's id; the
    browser that submitted the run holds its owner cookie, scoped to ``/experiment/``, which
    a browser does not send to ``/experiments/new``: every resubmission from the page was
    refused, "needs its owner token … or the browser that submitted it" (found in chromium;
    the test that covered it handed the cookie to every path). A session that keeps cookies
    by their paths, as a browser does, goes through it here."""
    site, service = walk
    browser = requests.Session()
    form = {"dataset": "qald-8-test-multilingual", "webservice": f"myqa={service}v1"}
    submitted = browser.post(site.url + "experiments/new", data={**form, "retries": "0"})
    assert submitted.status_code == 200, submitted.text[:500]
    old = submitted.url.rsplit("/", 1)[-1]
    token = next(c.value for c in browser.cookies if c.name == f"gqa_owner_{old}")
    site.wait_finished(old, token)
    page = browser.get(f"{site.url}experiment/{old}", headers={"Accept": "text/html"})
    again = re.search(r'href="([^"]+)" id="resubmit"', page.text)
    assert again, "no 'Run it again' link for the owner"
    opened = browser.get(site.url + html.unescape(again.group(1)).lstrip("/"))
    assert opened.status_code == 200
    form["webservice"] = f"myqa={service}v2"
    # the form's anti-forgery check goes with it, as the browser posts the form it opened
    form.update(_checks(opened.text))
    resubmitted = browser.post(site.url + "experiments/new", data={**form, "revisionOf": old})
    assert resubmitted.status_code == 200, _text(resubmitted.text)[:800]
    new = resubmitted.url.rsplit("/", 1)[-1]
    token = next(c.value for c in browser.cookies if c.name == f"gqa_owner_{new}")
    assert site.wait_finished(new, token)["revisionOf"] == [old]
    # a session without the old run's cookie is still refused
    stranger = requests.post(site.url + "experiments/new", data={**form, "revisionOf": old})
    assert stranger.status_code == 403 and "owner token" in stranger.text


def test_deleting_the_bad_first_run_leaves_its_resubmission_whole(walk) -> None:
    """The developer deletes the bad first run once its resubmission is in. The resubmission
    named it still: its page linked "Revision of" a URI that answers 404 with an empty "What
    changed", and resubmitting it was refused, "resubmit that one instead", the deleted
    one. A deleted experiment is no longer the one a revision revises."""
    site, service = walk
    first, second = _resubmitted(site, service)
    owner = {"Authorization": f"Bearer {second['token']}"}
    gone = site.delete(
        f"api/experiments/{first['id']}", headers={"Authorization": f"Bearer {first['token']}"}
    )
    assert gone.status_code == 204, gone.text
    state = site.get(f"api/experiments/{second['id']}", headers=owner).json()
    assert state["revisionOf"] == [] and "changes" not in state
    page = site.get(f"experiment/{second['id']}", headers={**owner, "Accept": "text/html"})
    assert page.status_code == 200
    assert f"/experiment/{first['id']}" not in page.text and 'id="changes"' not in page.text
    third = site.post(
        "api/experiments",
        json={
            "dataset": "qald-8-test-multilingual",
            "systems": [{"name": "myqa", "url": service + "v2"}],
            "revisionOf": second["id"],
        },
        headers=owner,
    )
    assert third.status_code == 202, third.text
    third_state = site.wait_finished(third.json()["id"], third.json()["token"])
    assert third_state["revisionOf"] == [second["id"]]


def test_the_owners_browser_compares_its_two_private_runs(walk) -> None:
    """The resubmission's page links the paired comparison of the two runs, and the browser
    that submitted both opens it while both are private: the owner cookies were scoped to the
    experiment pages, and the compare page answered "is not public" for the owner's own runs.
    The page is then marked private (no shared cache keeps it); a stranger is still refused."""
    site, service = walk
    browser = requests.Session()
    form = {"dataset": "qald-8-test-multilingual", "retries": "0"}
    first = browser.post(
        site.url + "experiments/new", data={**form, "webservice": f"myqa={service}v1"}
    )
    old = first.url.rsplit("/", 1)[-1]
    site.wait_finished(old, next(c.value for c in browser.cookies if c.name == f"gqa_owner_{old}"))
    again = {**form, "webservice": f"myqa={service}v2", "revisionOf": old}
    again.update(_checks(browser.get(f"{site.url}experiments/new?revisionOf={old}").text))
    second = browser.post(site.url + "experiments/new", data=again)
    assert second.status_code == 200, _text(second.text)[:500]
    new = second.url.rsplit("/", 1)[-1]
    site.wait_finished(new, next(c.value for c in browser.cookies if c.name == f"gqa_owner_{new}"))
    page = browser.get(f"{site.url}experiment/{new}", headers={"Accept": "text/html"}).text
    section = re.search(r'<section id="changes".*?</section>', page, re.S)
    assert section
    link = re.search(r'href="([^"]*compare\?[^"]+)"', section.group(0))
    assert link, "no link to the comparison of the two runs"
    url = link.group(1).replace("&amp;", "&")
    assert f"experiment/{old}/task/1" in url and f"experiment/{new}/task/1" in url
    compared = browser.get(site.url + url.lstrip("/"))
    assert compared.status_code == 200, _text(compared.text)[:800]
    assert 'id="compare-pairs"' in compared.text and "private" in compared.headers["Cache-Control"]
    table = compared.text.split('id="compare-differences"')[1].split("</table>")[0]
    assert '<th scope="row">42</th>' in table
    stranger = requests.get(site.url + url.lstrip("/"))
    assert stranger.status_code == 400 and "is not public" in stranger.text


def test_the_owner_cookie_follows_the_path_the_service_is_mounted_at(walk, runs) -> None:
    """Behind a proxy with ``--url-prefix /gerbil`` (waitress sets ``SCRIPT_NAME``), the
    browser asks for ``/gerbil/experiment/ID``: a cookie scoped to ``/experiment/`` never
    came back, and the owner read "not public yet" on their own run."""
    site, _ = walk
    first, _ = runs
    client = site.app.test_client()
    answer = client.get(
        f"/experiment/{first['id']}",
        query_string={"token": first["token"]},
        base_url=site.url + "gerbil/",  # SCRIPT_NAME /gerbil, as waitress's url_prefix sets
    )
    assert answer.status_code == 303
    # and it goes back to the page under the prefix (it went to /experiment/ID, the proxy's
    # root, where no such page is)
    assert answer.headers["Location"] == f"/gerbil/experiment/{first['id']}"
    paths = sorted(
        part.split("=", 1)[1]
        for cookie in answer.headers.getlist("Set-Cookie")
        for part in cookie.split("; ")
        if part.startswith("Path=")
    )
    assert paths == ["/gerbil/compare", "/gerbil/experiment/", "/gerbil/experiments/new"]
