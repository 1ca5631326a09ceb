"""Every page an owner's cookie opens is kept by no cache and varies with the cookie, and the
run form's "Run it again to replace it" needs the form's check as the other owner forms do
(explore34 4 and 11).

The withdraw and reveal forms (each with the owner's anti-forgery ``check``) were sent without
``Cache-Control: private, no-store`` or ``Vary: Cookie``: the same URL answers a stranger
another page, so a shared cache could hand one reader's to another. And ``POST
/experiments/new`` with ``revisionOf`` took the owner cookie alone: a page of another origin of
the same site (SameSite=Lax sends the cookie along) replaced the owner's experiment with answers
of its choosing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_hidden_gold import _answers, _submit, _test_set


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("owner-pages"), demo=False)
    yield running
    stop_server(running)


def _owner_browser(site: Server, ticket: dict[str, Any]) -> requests.Session:
    """A browser that opened the owner link: its cookie kept by path, as a browser keeps it."""
    browser = requests.Session()
    opened = browser.get(f"{site.url}experiment/{ticket['id']}?token={ticket['token']}")
    assert opened.status_code == 200, opened.text[:300]
    return browser


def _owner_headers_on(response: requests.Response, url: str) -> None:
    assert response.status_code == 200, (url, response.status_code, response.text[:300])
    cache = response.headers.get("Cache-Control", "")
    assert "private" in cache and "no-store" in cache, (url, cache)
    vary = {v.strip().lower() for v in response.headers.get("Vary", "").split(",")}
    assert "cookie" in vary, (url, response.headers.get("Vary"))


def test_every_owner_page_is_private_and_varies_with_the_cookie(site: Server) -> None:
    made = site.post("api/experiments", files=_demo_files("partial"), data={"profile": "exact"})
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    eid, browser = ticket["id"], _owner_browser(site, ticket)
    here = '(?:https?://[^/"]+)?'
    task = browser.get(f"{site.url}experiment/{eid}/task/1", headers={"Accept": "text/html"})
    question = re.search(rf'href="{here}(/experiment/{eid}/task/1/question/[^"#]+)"', task.text)
    page = browser.get(f"{site.url}experiment/{eid}", headers={"Accept": "text/html"})
    download = re.search(rf'href="{here}(/experiment/{eid}/file/[0-9a-f]{{64}})"', page.text)
    assert question and download, "no question or file link on the owner's pages"
    private = [
        f"experiment/{eid}",
        f"experiment/{eid}.ttl",
        f"experiment/{eid}/task/1",
        question.group(1).lstrip("/"),
        download.group(1).lstrip("/"),
        f"experiment/{eid}/status",
        f"experiments/new?revisionOf={eid}",
        f"experiments/new/submitted/{eid}",
    ]
    for url in private:
        _owner_headers_on(browser.get(site.url + url, allow_redirects=False), url)
    # the organiser of a withheld test set, its run published: the withdraw and reveal forms
    ticket = _submit(
        site,
        {
            "dataset": {"filename": "secret-task.json", "content": _test_set().decode()},
            "about": {"gold": "withheld"},
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
    )
    eid, browser = ticket["id"], _owner_browser(site, ticket)
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{eid}/publish", headers=auth).status_code == 200
    for url in (f"experiment/{eid}/withdraw", f"experiment/{eid}/reveal"):
        shown = browser.get(site.url + url, allow_redirects=False)
        _owner_headers_on(shown, url)
        assert 'name="check"' in shown.text, url  # the owner's form, its check in it
        stranger = site.get(url)  # the same URL's page for anyone else: a shared cache
        _owner_headers_on(stranger, url)  # keeps neither under the one key
        assert 'name="check"' not in stranger.text, url


def _demo_files(which: str) -> list[tuple[str, tuple[str, bytes]]]:
    return [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", (f"{which}.json", (DEMO_DIR / f"answers-{which}.json").read_bytes())),
    ]


def test_run_it_again_needs_the_forms_check_besides_the_cookie(site: Server) -> None:
    made = site.post("api/experiments", files=_demo_files("partial"), data={"profile": "exact"})
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    old, browser = ticket["id"], _owner_browser(site, ticket)
    before = len(site.storage.experiments.listing(include_private=True))
    # a page of another origin of the same site posts the form: the cookie goes with it
    forged = browser.post(
        site.url + "experiments/new",
        files=_demo_files("strong"),
        data={"profile": "exact", "revisionOf": old},
        headers={"Origin": "http://127.0.0.1:8888"},
        allow_redirects=False,
    )
    assert forged.status_code == 403, forged.text[:500]
    assert "needs the form's check" in html.unescape(forged.text)
    wrong = browser.post(
        site.url + "experiments/new",
        files=_demo_files("strong"),
        data={"profile": "exact", "revisionOf": old, f"check-{old}": "0" * 64},
        allow_redirects=False,
    )
    assert wrong.status_code == 403, wrong.text[:500]
    assert len(site.storage.experiments.listing(include_private=True)) == before
    # the owner's own run form holds the check: "Run it again to replace it" goes through
    form = browser.get(f"{site.url}experiments/new?revisionOf={old}").text
    checks = dict(re.findall(r'type="hidden" name="(check-\d+)" value="([^"]+)"', form))
    assert set(checks) == {f"check-{old}"}
    sent = browser.post(
        site.url + "experiments/new",
        files=_demo_files("strong"),
        data={"profile": "exact", "revisionOf": old, **checks},
        allow_redirects=False,
    )
    assert sent.status_code == 303, sent.text[:500]
    new = sent.headers["Location"].rsplit("/", 1)[-1]
    token = next(c.value for c in browser.cookies if c.name == f"gqa_owner_{new}")
    assert site.wait_finished(new, token)["revisionOf"] == [old]
    # a program's bearer token needs no check (no other page's form can send the header)
    bearer = site.post(
        "experiments/new",
        files=_demo_files("strong"),
        data={"profile": "exact", "revisionOf": old},
        headers={"Authorization": f"Bearer {ticket['token']}"},
    )
    assert bearer.status_code == 303, re.findall(r"role=\"alert\">(.*?)</", bearer.text, re.S)


def test_an_owner_link_made_of_a_task_question_or_status_url(site: Server) -> None:
    """explore34 8: ``?token=`` on a task, question or status URL answered a bare "not public
    yet", even with the right token. Its pages (task, question) take it as the experiment's
    page does (the cookie, then a 303 to the URL without it); the status and API URLs, which
    a program reads, say where the token goes."""
    made = site.post("api/experiments", files=_demo_files("partial"), data={"profile": "exact"})
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    eid, token = ticket["id"], ticket["token"]
    for path in (f"experiment/{eid}/task/1", f"experiment/{eid}/task/1/question/1"):
        browser = requests.Session()
        linked = browser.get(f"{site.url}{path}?token={token}", allow_redirects=False)
        assert linked.status_code == 303, (path, linked.status_code, linked.text[:300])
        assert linked.headers["Location"].endswith(f"/{path}")  # the token left behind
        assert f"gqa_owner_{eid}=" in linked.headers["Set-Cookie"]
        opened = browser.get(site.url + path, headers={"Accept": "text/html"})
        assert opened.status_code == 200, (path, opened.text[:300])
        wrong = site.get(f"{path}?token=not-the-token", headers={"Accept": "text/plain"})
        assert wrong.status_code == 403 and "not its owner token" in wrong.text, path
    for path in (f"experiment/{eid}/status", f"api/experiments/{eid}"):
        said = site.get(path, params={"token": token})
        assert said.status_code == 403, (path, said.text[:300])
        text = html.unescape(said.text)
        assert "taken from ?token= on its pages only" in text, (path, text)
        assert "Authorization: Bearer" in text, (path, text)
