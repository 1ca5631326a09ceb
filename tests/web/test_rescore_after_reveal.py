"""After a test set's reveal, the runs scored while it was withheld are re-scored from their
pages.

A team that ran in the browser was told, after the reveal, "once the gold is revealed, its
owner can re-score it" with the API and the command line as the only ways (its token shown
once); the organiser re-scoring its own upload run was told its description "was not
recorded … publish a new version" (explore32 9, 12)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_hidden_gold import _answers, _publish, _submit, _test_set


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("rescore-reveal-store"), demo=False)
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def revealed(site: Server) -> dict[str, Any]:
    content = _test_set().replace(b"secret-task", b"rescored-task")
    organiser = _submit(
        site,
        {
            "dataset": {"filename": "rescored.json", "content": content.decode()},
            "title": "Rescored Task",
            "about": {
                "gold": "withheld",
                "license": "https://creativecommons.org/licenses/by/4.0/",
            },
            "profile": "exact",
            "systems": [{"name": "baseline", "answers": _answers({1}).decode()}],
        },
    )
    _publish(site, organiser)
    name = site.get(f"api/experiments/{organiser['id']}").json()["dataset"].rsplit("/", 1)[1]
    team = _submit(
        site,
        {
            "dataset": name,
            "profile": "exact",
            "systems": [{"name": "browser-team", "answers": _answers({1, 2}).decode()}],
        },
    )
    _publish(site, team)
    auth = {"Authorization": f"Bearer {organiser['token']}"}
    assert site.post(f"api/datasets/{name}/reveal", headers=auth).status_code == 200
    return {"name": name, "organiser": organiser, "team": team}


def test_a_team_re_scores_from_its_page_once_the_gold_is_revealed(
    site: Server, revealed: dict[str, Any]
) -> None:
    team = revealed["team"]
    page = site.get(f"experiment/{team['id']}").text
    note = re.search(
        r'<p class="notice experiment-note"[^>]*id="withheld-revealed">(.*?)</p>', page
    )
    assert note and "The gold was revealed on" in note.group(1), page
    assert "once the gold is revealed" not in page
    link = re.search(r'href="([^"]*)" id="rescore-revealed-link"', page)
    assert link and link.group(1).endswith(f"/experiment/{team['id']}/rescore")
    # anyone else reads who can; a post without the owner's cookie and check is refused
    stranger = site.get(f"experiment/{team['id']}/rescore")
    assert stranger.status_code == 200 and 'id="rescore-who"' in stranger.text
    assert 'id="rescore-form"' not in stranger.text
    refused = site.post(f"experiment/{team['id']}/rescore", data={"check": "x"})
    assert refused.status_code == 403
    # the browser that holds the owner link: the form, then the new run's owner link
    browser = requests.Session()
    browser.cookies.set(f"gqa_owner_{team['id']}", team["token"])
    shown = browser.get(f"{site.url}experiment/{team['id']}/rescore", timeout=30)
    assert 'id="rescore-form"' in shown.text and 'id="rescore-revealed"' in shown.text
    # its copy holds the form's check: kept by no cache; the footer names the software's
    # version, not the dataset's (explore36 1, 2)
    assert shown.headers["Cache-Control"] == "private, no-store"
    assert "Cookie" in shown.headers["Vary"]
    assert "GERBIL QA for Python None" not in shown.text
    # a name that is no newer version of its dataset is said on the page, not after the button
    nonesuch = browser.get(
        f"{site.url}experiment/{team['id']}/rescore?datasetVersion=nonesuch", timeout=30
    )
    assert nonesuch.status_code == 400 and "nor a published newer version" in nonesuch.text
    assert 'id="rescore-form"' not in nonesuch.text
    check = re.search(r'name="check" value="([^"]+)"', shown.text)
    assert check
    posted = browser.post(
        f"{site.url}experiment/{team['id']}/rescore",
        data={"check": check.group(1)},
        allow_redirects=False,
        timeout=30,
    )
    assert posted.status_code == 303, posted.text
    # as a run form's submission: the new run's owner cookie, then the page with its token
    new_id = posted.headers["Location"].rstrip("/").rsplit("/", 1)[1]
    token = next(c.value for c in posted.cookies if c.name == f"gqa_owner_{new_id}")
    assert token and "/experiments/new/submitted/" in posted.headers["Location"]
    state = site.wait_finished(new_id, token)
    (evaluation,) = state["evaluations"]
    assert evaluation["questions"] and not evaluation.get("questionsWithheld")
    assert state["revisionOf"] == [team["id"]]
    shown = browser.get(site.url + posted.headers["Location"].lstrip("/"), timeout=30)
    assert shown.status_code == 200 and token in shown.text


def test_the_organiser_re_scoring_its_upload_is_not_told_its_description_was_lost(
    site: Server, revealed: dict[str, Any]
) -> None:
    organiser = revealed["organiser"]
    auth = {"Authorization": f"Bearer {organiser['token']}"}
    made = site.post(f"api/experiments/{organiser['id']}/rescore", headers=auth)
    assert made.status_code == 202, made.text
    state = site.wait_finished(made.json()["id"], made.json()["token"])
    notes = " ".join(state.get("notes") or [])
    assert "was not recorded" not in notes and "publish a new version" not in notes, notes
    assert state["evaluations"][0]["questions"]  # revealed: each question's result


def test_a_revision_and_the_run_it_replaces_cite_each_other(
    site: Server, revealed: dict[str, Any]
) -> None:
    """explore38 2: the BibTeX and the plain-text citation of a published re-scoring and of the
    run it re-scores said nothing of each other (only the RDF had ``prov:wasRevisionOf``): a
    paper citing the old run gave no hint its numbers were superseded."""
    from tests.web.test_hidden_gold import _publish

    team = revealed["team"]
    old_uri = f"{site.url}experiment/{team['id']}"
    before = " ".join(site.get(f"experiment/{team['id']}.bib").text.split())
    assert "revised" not in before
    auth = {"Authorization": f"Bearer {team['token']}"}
    made = site.post(f"api/experiments/{team['id']}/rescore", headers=auth)
    assert made.status_code == 202, made.text
    new = made.json()
    site.wait_finished(new["id"], new["token"])
    _publish(site, new)
    new_uri = f"{site.url}experiment/{new['id']}"
    old_bib = " ".join(site.get(f"experiment/{team['id']}.bib").text.split())
    new_bib = " ".join(site.get(f"experiment/{new['id']}.bib").text.split())
    assert f"revised (re-scored) by experiment {new['id']} ({new_uri})" in old_bib, old_bib
    assert f"a revision (re-scoring) of experiment {team['id']} ({old_uri})" in new_bib, new_bib
    page = site.get(f"experiment/{team['id']}").text
    assert f"Revised (re-scored) by experiment {new['id']} ({new_uri})" in page
