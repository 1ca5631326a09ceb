"""Two versions of an uploaded test set, as a reader of their pages tells them apart.

The withheld board's "no tier" reason was only in an ``<abbr title>`` (no keyboard, touch or
every screen reader reaches it); v1's and v2's dataset pages, and their questions' pages, had
one tab title and heading; the leaderboard's heading and the experiment page's "Dataset" row
named the dataset by its bare name where the menus say "Planets QA, version 1 (NAME)"
(explore32 4, 8)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_hidden_gold import _answers, _publish, _submit, _test_set


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("version-pages-store"), demo=False)
    yield running
    stop_server(running)


def _title(html: str) -> str:
    found = re.search(r"<title[^>]*>([^<]*)</title>", html)
    assert found, html[:500]
    return found.group(1)


def _h1(html: str) -> str:
    found = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S)
    assert found, html[:500]
    return re.sub(r"<[^>]+>", "", found.group(1))


@pytest.fixture(scope="module")
def versions(site: Server) -> dict[str, Any]:
    content = _test_set().replace(b"secret-task", b"planets")
    organiser = _submit(
        site,
        {
            "dataset": {"filename": "planets-v1.json", "content": content.decode()},
            "title": "Planets QA",
            "about": {"gold": "withheld", "version": "1"},
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
    )
    _publish(site, organiser)
    v1 = site.get(f"api/experiments/{organiser['id']}").json()["dataset"].rsplit("/", 1)[1]
    team = _submit(
        site,
        {
            "dataset": v1,
            "profile": "exact",
            "systems": [{"name": "team", "answers": _answers({1, 2, 3}).decode()}],
        },
    )
    _publish(site, team)
    made = site.post(
        "api/experiments",
        json={
            "dataset": {
                "filename": "planets-v2.json",
                "content": content.replace(b"GOLDSECRET-3", b"FIXED-3").decode(),
            },
            "title": "Planets QA",
            "about": {"version": "2", "previousVersion": v1},
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
        headers={"Authorization": f"Bearer {organiser['token']}"},
    )
    assert made.status_code == 202, made.text
    site.wait_finished(made.json()["id"], made.json()["token"])
    _publish(site, made.json())
    v2 = site.get(f"api/experiments/{made.json()['id']}").json()["dataset"].rsplit("/", 1)[1]
    return {"v1": v1, "v2": v2, "organiser": organiser, "team": team}


def test_two_versions_pages_have_their_own_titles_and_headings(
    site: Server, versions: dict[str, Any]
) -> None:
    v1, v2 = versions["v1"], versions["v2"]
    said = {}
    for name, version in ((v1, "1"), (v2, "2")):
        page = site.get(f"dataset/{name}").text
        label = f"Planets QA, version {version} ({name})"
        assert _title(page).startswith(label) and _h1(page) == label
        question = site.get(f"dataset/{name}/question/3").text
        assert label in _title(question) and label in _h1(question)
        assert _h1(question).startswith("Which secret is number 3?")
        said[name] = (_title(page), _title(question))
    assert said[v1][0] != said[v2][0] and said[v1][1] != said[v2][1]
    # the board and the experiment page name the dataset as its page does
    board = site.get(f"leaderboards?dataset={v1}&profile=exact").text
    assert f"on Planets QA, version 1 ({v1})" in _title(board)
    assert re.search(rf'<h2 id="leaderboard">QA on Planets QA, version 1 \({v1}\)', board)
    experiment = site.get(f"experiment/{versions['team']['id']}").text
    assert f">Planets QA, version 1 ({v1})</a>" in experiment


def test_a_withheld_boards_no_tier_is_said_in_text(site: Server, versions: dict[str, Any]) -> None:
    board = site.get(f"leaderboards?dataset={versions['v1']}&profile=exact").text
    assert "<abbr title=\"its dataset's gold is withheld" not in board  # a tooltip alone
    notes = re.search(r'<ul class="notes" id="tier-reasons">(.*?)</ul>', board, re.S)
    assert notes and "its dataset&#39;s gold is withheld" in notes.group(1), board
    assert 'id="tier-reason-1">No tier: ' in notes.group(1)
    links = re.findall(
        r'<a href="#tier-reason-1" class="tier-why" aria-describedby="tier-reason-1"', board
    )
    assert len(links) == 2  # each row's "–" links the reason (keyboard, screen readers)
    # the note under the table does not describe tiers that are not there
    tiers_note = re.search(r'<p class="muted" id="tiers-note">(.*?)</p>', board, re.S)
    assert tiers_note and "No row here has a tier" in tiers_note.group(1)
