"""A browser that looked at a leaderboard just before publishing a run sees it on reload.

Public pages were sent ``Cache-Control: public, max-age=60`` with no revalidation: the browser
that had just looked at a dataset's board showed it without the run it had published for up to
a minute, while the publication page said "its results are on the leaderboards" (explore32 3).
They are sent ``no-cache`` with their ETag now: a reload asks, gets 304 while nothing changed
and the new board once a run is published."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from tests.web.conftest import Server, start_server, stop_server


def _answers(value: str) -> str:
    rows = [
        {
            "id": str(i),
            "question": [{"language": "en", "string": f"Which board is number {i}?"}],
            "answers": [
                {
                    "head": {"vars": ["s"]},
                    "results": {"bindings": [{"s": {"type": "literal", "value": f"{value}{i}"}}]},
                }
            ],
        }
        for i in range(1, 6)
    ]
    return json.dumps({"dataset": {"id": "fresh-board"}, "questions": rows})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("board-store"), demo=False)
    yield running
    stop_server(running)


def _published(site: Server, system: str) -> str:
    made = site.post(
        "api/experiments",
        json={
            "dataset": {"filename": "board.json", "content": _answers("B")},
            "profile": "exact",
            "systems": [{"name": system, "answers": _answers("B" if system == "first" else "X")}],
        },
    )
    assert made.status_code == 202, made.text
    ticket = made.json()
    site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).status_code == 200
    return str(site.get(f"api/experiments/{ticket['id']}").json()["dataset"]).rsplit("/", 1)[1]


def test_a_reload_of_a_board_shows_a_run_published_since(site: Server) -> None:
    name = _published(site, "first")
    browser = requests.Session()  # one client, as the browser that looked before publishing
    board = f"{site.url}leaderboards?dataset={name}"
    seen = browser.get(board, timeout=30)
    assert seen.status_code == 200 and "first" in seen.text and "second" not in seen.text
    cache = seen.headers["Cache-Control"]
    assert "no-cache" in cache and "max-age" not in cache, cache  # revalidated at each use
    etag = seen.headers["ETag"]
    again = browser.get(board, headers={"If-None-Match": etag}, timeout=30)
    assert again.status_code == 304  # nothing changed: nothing sent again
    _published(site, "second")
    reload = browser.get(board, headers={"If-None-Match": etag}, timeout=30)
    assert reload.status_code == 200 and "second" in reload.text
    assert reload.headers["ETag"] != etag
    # the dataset's page and the API's listings likewise (every public document)
    page = browser.get(f"{site.url}dataset/{name}", timeout=30)
    assert "no-cache" in page.headers["Cache-Control"] and page.headers.get("ETag")
