"""An owner's forms answer on the host the browser uses. `gerbil-qa serve --port 8901` prints
that it serves on http://127.0.0.1:8901/ and mints URIs under http://localhost:8901/: a form
posted from a page opened at the first (publish, withdraw, reveal a withheld gold) redirected to
the second, which the page's own Content-Security-Policy (``form-action 'self'``) blocks for
the redirect after a form too — the work was done and the page stayed as it was, still offering
it (explore-20 4)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

import pytest
import requests

from service.systems.localnet import free_port
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_hidden_gold import _answers, _publish, _submit, _test_set


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    port = free_port()
    running = start_server(
        tmp_path_factory.mktemp("other-host"),
        demo=False,
        port=port,
        base=f"http://localhost:{port}/",
    )
    yield running
    stop_server(running)


def _form(browser: requests.Session, page_url: str, action_end: str) -> dict[str, str]:
    """The hidden fields of the page's form posting to ``…action_end``, and its action."""
    page = browser.get(page_url, timeout=30)
    assert page.status_code == 200, page.text[:300]
    assert "form-action 'self'" in page.headers["Content-Security-Policy"]
    for form in re.findall(r'<form method="post" action="([^"]+)"(.*?)</form>', page.text, re.S):
        if form[0].endswith(action_end):
            fields = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', form[1]))
            return {"action": urljoin(page_url, form[0]), **fields}
    raise AssertionError(f"no form to {action_end} on {page_url}")


def _same_origin(response: requests.Response, site: Server) -> str:
    assert response.status_code == 303, response.text[:300]
    location = urljoin(response.url, response.headers["Location"])
    asked = urlsplit(site.url)
    assert urlsplit(location)[:2] == asked[:2], location  # the host the browser used
    return location


def test_publish_withdraw_and_reveal_lead_back_to_the_host_the_browser_used(site: Server) -> None:
    assert site.url.startswith("http://127.0.0.1:")
    ticket = _submit(
        site,
        {
            "dataset": {"filename": "secret-task.json", "content": _test_set().decode()},
            "about": {"gold": "withheld"},
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
    )
    browser = requests.Session()
    browser.get(f"{site.url}experiment/{ticket['id']}?token={ticket['token']}", timeout=30)
    page = f"{site.url}experiment/{ticket['id']}"
    form = _form(browser, page, "/publish")
    action = form.pop("action")
    published = browser.post(action, data={**form, "confirm": "on"}, allow_redirects=False)
    shown = browser.get(_same_origin(published, site), timeout=30)
    assert "Published" in shown.text and "Publish it for good" not in shown.text
    # the organiser reveals the withheld gold from the dataset's page
    name = site.get(f"api/experiments/{ticket['id']}").json()["dataset"].rsplit("/", 1)[1]
    reveal = _form(browser, f"{site.url}experiment/{ticket['id']}/reveal", "/reveal")
    action = reveal.pop("action")
    done = browser.post(action, data={**reveal, "confirm": "on"}, allow_redirects=False)
    assert _same_origin(done, site).endswith(f"dataset/{name}")
    # and withdraws a run
    other = _submit(
        site, {"dataset": name, "systems": [{"name": "x", "answers": _answers({2}).decode()}]}
    )
    _publish(site, other)
    browser.get(f"{site.url}experiment/{other['id']}?token={other['token']}", timeout=30)
    withdraw = _form(browser, f"{site.url}experiment/{other['id']}/withdraw", "/withdraw")
    action = withdraw.pop("action")
    gone = browser.post(
        action, data={**withdraw, "reason": "a test", "confirm": "on"}, allow_redirects=False
    )
    assert "withdrawn" in browser.get(_same_origin(gone, site), timeout=30).text.lower()
