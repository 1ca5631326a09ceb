"""explore37's and explore38's findings on a withheld test set's line of versions, against a
real server: v1's organiser publishes v3 after v2 and reveals v2 (explore37 1); two newer
versions of one dataset submitted before either is published (explore37 2); the organiser's
list of runs after the reveal (explore37 3); the reveal's private runs (explore37 6); the
questions file after the reveal (explore38 8)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.web.conftest import Server, start_server, stop_server

PORT = 18800
ADMIN = "admin-token-explore37"
N = 4


def _test_set(tag: str) -> str:
    """N questions of their own (``tag`` makes other bytes: another upload)."""
    questions = [
        {
            "id": str(i),
            "answertype": "string",
            "question": [{"language": "en", "string": f"Which {tag} secret is number {i}?"}],
            "answers": [
                {
                    "head": {"vars": ["s"]},
                    "results": {
                        "bindings": [{"s": {"type": "literal", "value": f"{tag}-GOLD-{i}"}}]
                    },
                }
            ],
        }
        for i in range(1, N + 1)
    ]
    return json.dumps({"dataset": {"id": tag}, "questions": questions})


def _answers(tag: str, right: set[int]) -> str:
    rows = [
        {
            "id": str(i),
            "answers": [
                {
                    "head": {"vars": ["s"]},
                    "results": {
                        "bindings": [
                            {
                                "s": {
                                    "type": "literal",
                                    "value": f"{tag}-GOLD-{i}" if i in right else f"guess-{i}",
                                }
                            }
                        ]
                    },
                }
            ],
        }
        for i in range(1, N + 1)
    ]
    return json.dumps({"questions": rows})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(
        tmp_path_factory.mktemp("explore37"), port=PORT, demo=False, admin_token=ADMIN
    )
    yield running
    stop_server(running)


def _bearer(ticket: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {ticket['token']}"}


def _submit(site: Server, body: dict[str, Any], ticket: dict[str, Any] | None = None) -> Any:
    made = site.post("api/experiments", json=body, headers=_bearer(ticket) if ticket else {})
    assert made.status_code == 202, made.text
    run = made.json()
    site.wait_finished(run["id"], run["token"])
    return run


def _publish(site: Server, ticket: dict[str, Any]) -> str:
    """Publish; the name of the dataset it was recorded under."""
    done = site.post(f"api/experiments/{ticket['id']}/publish", headers=_bearer(ticket))
    assert done.status_code == 200, done.text
    return str(site.get(f"api/experiments/{ticket['id']}").json()["dataset"].rsplit("/", 1)[1])


def _version(tag: str, previous: str | None, *, withheld: bool = True) -> dict[str, Any]:
    about: dict[str, Any] = {"gold": "withheld"} if withheld else {}
    if previous:
        about["previousVersion"] = previous
    return {
        "dataset": {"filename": f"{tag}.json", "content": _test_set(tag)},
        "title": "Line Task",
        "about": about,
        "profile": "exact",
        "systems": [{"name": "baseline", "answers": _answers(tag, {1})}],
    }


@pytest.fixture(scope="module")
def line(site: Server) -> dict[str, Any]:
    """A withheld v1 (its organiser's baseline, a team's published run, a late team's private
    one) and its v2 by v1's organiser; v1's questions file; then v1 revealed."""
    organiser = _submit(site, _version("line1", None))
    v1 = _publish(site, organiser)
    team = _submit(
        site,
        {
            "dataset": v1,
            "profile": "exact",
            "systems": [{"name": "team", "answers": _answers("line1", {1, 2})}],
        },
    )
    _publish(site, team)
    late = _submit(  # a team's private run on the hidden gold
        site,
        {
            "dataset": v1,
            "profile": "exact",
            "systems": [{"name": "late", "answers": _answers("line1", {2})}],
        },
    )
    v2 = _publish(site, _submit(site, _version("line2", v1), organiser))
    questions = site.get(f"dataset/{v1}/questions.json")
    assert questions.status_code == 200, questions.text
    revealed = site.post(f"api/datasets/{v1}/reveal", headers=_bearer(organiser))
    assert revealed.status_code == 200, revealed.text
    return {
        "organiser": organiser,
        "team": team,
        "late": late,
        "v1": v1,
        "v2": v2,
        "questions": questions.content,
        "revealed": revealed.json(),
    }


def test_v1s_organiser_publishes_v3_after_v2_and_reveals_v2(
    site: Server, line: dict[str, Any]
) -> None:
    """v1's organiser published v2 but was refused v3 after v2 (403 "only its organiser"), and
    v2's reveal, with the token that made the line: v2's run has a token of its own
    (explore37 1)."""
    organiser, team, v2 = line["organiser"], line["team"], line["v2"]
    v3_body = _version("line3", v2)
    stranger = site.post("api/experiments", json=v3_body, headers=_bearer(team))
    assert stranger.status_code == 403, stranger.text
    v3 = site.post("api/experiments", json=v3_body, headers=_bearer(organiser))
    assert v3.status_code == 202, v3.text
    site.wait_finished(v3.json()["id"], v3.json()["token"])
    # v2 revealed by v1's organiser (v1 revealed first); another's token still cannot
    assert site.post(f"api/datasets/{v2}/reveal", headers=_bearer(team)).status_code == 403
    second = site.post(f"api/datasets/{v2}/reveal", headers=_bearer(organiser))
    assert second.status_code == 200, second.text


def test_the_organiser_lists_the_runs_scored_while_withheld_after_the_reveal(
    site: Server, line: dict[str, Any]
) -> None:
    """After the reveal the organiser's list was a 404, the private runs scored on the hidden
    gold gone from view (explore37 3)."""
    organiser, team, late, v1 = line["organiser"], line["team"], line["late"], line["v1"]
    for auth in (_bearer(organiser), {"Authorization": f"Bearer {ADMIN}"}):
        listed = site.get(f"api/datasets/{v1}/runs", headers=auth)
        assert listed.status_code == 200, listed.text
        ids = {r["id"] for r in listed.json()["runs"]}
        assert {organiser["id"], team["id"], late["id"]} <= ids
    assert site.get(f"api/datasets/{v1}/runs", headers=_bearer(team)).status_code == 403


def test_the_reveal_names_the_private_runs_scored_while_withheld(
    site: Server, line: dict[str, Any]
) -> None:
    """The reveal's answer named the published runs only; the private ones need re-scoring
    too (explore37 6)."""
    said = line["revealed"]
    assert said["scoredWhileWithheld"] == [
        site.url + f"experiment/{line['organiser']['id']}",
        site.url + f"experiment/{line['team']['id']}",
    ]
    assert said["scoredWhileWithheldPrivate"] == [site.url + f"experiment/{line['late']['id']}"]


def test_the_questions_file_resolves_after_the_reveal(site: Server, line: dict[str, Any]) -> None:
    """The questions file linked while the gold was withheld was a 404 after the reveal
    (explore38 8): the same questions, where teams' scripts fetch them."""
    after = site.get(f"dataset/{line['v1']}/questions.json")
    assert after.status_code == 200, after.text
    assert after.content == line["questions"]
    # a dataset that never withheld its gold names where its questions are
    open_run = _submit(site, _version("open1", None, withheld=False))
    open_name = _publish(site, open_run)
    missing = site.get(f"dataset/{open_name}/questions.json")
    assert missing.status_code == 404
    assert f"experiment/{open_run['id']}/" in missing.text


def test_two_newer_versions_submitted_before_either_is_published(site: Server) -> None:
    """v2a and v2b, both naming v1 as their previous version and submitted before either was
    published, were both published: v1 had two "next" versions (explore37 2). The second
    publication is the documented 409, naming the other."""
    author = _submit(site, _version("fork1", None, withheld=False))
    v1 = _publish(site, author)
    first = _submit(site, _version("fork2a", v1, withheld=False), author)
    second = _submit(site, _version("fork2b", v1, withheld=False), author)
    v2a = _publish(site, first)
    refused = site.post(f"api/experiments/{second['id']}/publish", headers=_bearer(second))
    assert refused.status_code == 409, refused.text
    assert f"dataset/{v2a}" in refused.json()["error"]
    assert "previous version" in refused.json()["error"]
    assert not site.get(f"api/experiments/{second['id']}", headers=_bearer(second)).json()["public"]
    newer = [d for d in site.get("api/datasets").json()["datasets"] if d["previousVersion"]]
    assert [d["name"] for d in newer if d["previousVersion"].endswith(v1)] == [v2a]


def test_two_newer_versions_published_at_once_one_wins(site: Server) -> None:
    """Two newer versions of v1 published at the same moment: the check is made while the
    publication is held (the store's lock, a shared store's claim), so one is published and
    the other is the 409 naming it (explore37 2)."""
    from concurrent.futures import ThreadPoolExecutor

    author = _submit(site, _version("race1", None, withheld=False))
    v1 = _publish(site, author)
    runs = [_submit(site, _version(f"race2{c}", v1, withheld=False), author) for c in "ab"]

    def publish(run: dict[str, Any]) -> Any:
        return site.post(f"api/experiments/{run['id']}/publish", headers=_bearer(run))

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(publish, runs))
    assert sorted(a.status_code for a in answers) == [200, 409], [a.text for a in answers]
    won = runs[[a.status_code for a in answers].index(200)]
    name = site.get(f"api/experiments/{won['id']}").json()["dataset"].rsplit("/", 1)[1]
    lost = next(a for a in answers if a.status_code == 409)
    assert f"dataset/{name}" in lost.json()["error"]


def test_the_rescore_page_takes_an_owner_link(site: Server) -> None:
    """``experiment/ID/rescore?token=…`` answered the anonymous page, no cookie, no form,
    where the task and question URLs take the owner link (explore37 7)."""
    run = _submit(site, _version("link1", None, withheld=False))
    path = f"experiment/{run['id']}/rescore"
    browser = requests.Session()
    linked = browser.get(f"{site.url}{path}?token={run['token']}", allow_redirects=False)
    assert linked.status_code == 303, linked.text[:300]
    assert linked.headers["Location"].endswith(f"/{path}")  # the token left behind
    assert f"gqa_owner_{run['id']}=" in linked.headers["Set-Cookie"]
    page = browser.get(site.url + path)
    assert page.status_code == 200 and 'id="rescore-form"' in page.text
    wrong = site.get(f"{path}?token=not-the-token", headers={"Accept": "text/plain"})
    assert wrong.status_code == 403 and "not its owner token" in wrong.text


def test_a_run_revised_already_says_what_the_rescore_refusal_says(
    site: Server, line: dict[str, Any]
) -> None:
    """A run scored while the gold was withheld, re-scored after the reveal and the revision
    published, still offered a re-scoring (its public page, its owner's re-score page with the
    form) that the API then refused with 409 (explore38 9): both say what the 409 says."""
    team = line["team"]
    rescored = site.post(f"api/experiments/{team['id']}/rescore", headers=_bearer(team), json={})
    assert rescored.status_code == 202, rescored.text
    revision = rescored.json()
    site.wait_finished(revision["id"], revision["token"])
    _publish(site, revision)
    refused = site.post(f"api/experiments/{team['id']}/rescore", headers=_bearer(team), json={})
    assert refused.status_code == 409, refused.text
    assert revision["id"] in refused.json()["error"]
    public = html.unescape(site.get(f"experiment/{team['id']}").text)
    # one sentence: "…revealed on DATE, but this experiment cannot be re-scored: under
    # profile …", not "…revealed on DATE: it is not re-scored: experiment ID: under …"
    # (explore42 7)
    words = " ".join(re.sub(r"<[^>]+>", "", public).split())
    assert ", but this experiment cannot be re-scored: under profile exact another" in words
    assert "is not re-scored" not in words and f"re-scored: experiment {team['id']}" not in words
    assert "gives a revision that has one" not in public
    assert 'id="rescore-revealed-link"' not in public
    assert f"re-score that one instead ({revision['id']})" in public
    cookie = {f"gqa_owner_{team['id']}": team["token"]}
    owners = requests.get(f"{site.url}experiment/{team['id']}/rescore", cookies=cookie, timeout=30)
    assert owners.status_code == 200
    assert 'id="rescore-refused"' in owners.text and 'id="rescore-form"' not in owners.text
    assert f"re-score that one instead ({revision['id']})" in html.unescape(owners.text)
