"""explore40's findings on lines of versions, citations and listings, against a real server:
the author of an open v1 publishing a withheld v2 (explore40 1, 7), the questions file of a
test set whose runs were all withdrawn (explore40 8)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_explore37_versions import _bearer, _publish, _submit, _version

PORT = 18870
ADMIN = "admin-token-explore40"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(
        tmp_path_factory.mktemp("explore40"), port=PORT, demo=False, admin_token=ADMIN
    )
    yield running
    stop_server(running)


def test_a_withdrawn_test_sets_questions_are_served_still(site: Server) -> None:
    """A withheld test set whose runs were all withdrawn answered its questions file with the
    reveal's 409 "its gold cannot be revealed" (explore40 8): its questions, public while
    withheld, without their gold."""
    run = _submit(site, _version("gone1", None))
    name = _publish(site, run)
    before = site.get(f"dataset/{name}/questions.json")
    assert before.status_code == 200, before.text
    withdrawn = site.post(
        f"api/experiments/{run['id']}/withdraw", headers=_bearer(run), json={"reason": "oops"}
    )
    assert withdrawn.status_code == 200, withdrawn.text
    after = site.get(f"dataset/{name}/questions.json")
    assert after.status_code == 200, after.text
    assert after.content == before.content
    assert "GOLD" not in after.text and len(json.loads(after.text)["questions"]) == 4


def test_an_open_v1s_author_is_the_organiser_of_its_withheld_v2(site: Server) -> None:
    """v1 uploaded open by run A, v2 withheld published with A's token: A's token was then
    refused v3 ("only its organiser"), v2's run list and v2's reveal, only v2's run token
    working (explore40 1). The author of an older version authors the versions after it,
    withheld or not: one rule for the submission, the list and the reveal."""
    author = _submit(site, _version("open40a", None, withheld=False))
    v1 = _publish(site, author)
    v2_run = _submit(site, _version("open40b", v1), author)
    v2 = _publish(site, v2_run)
    stranger = _submit(site, _version("other40", None, withheld=False))
    v3_body = _version("open40c", v2)
    refused = site.post("api/experiments", json=v3_body, headers=_bearer(stranger))
    assert refused.status_code == 403, refused.text
    v3 = site.post("api/experiments", json=v3_body, headers=_bearer(author))
    assert v3.status_code == 202, v3.text
    site.wait_finished(v3.json()["id"], v3.json()["token"])
    assert site.get(f"api/datasets/{v2}/runs", headers=_bearer(stranger)).status_code == 403
    listed = site.get(f"api/datasets/{v2}/runs", headers=_bearer(author))
    assert listed.status_code == 200, listed.text
    assert v2_run["id"] in {r["id"] for r in listed.json()["runs"]}
    assert site.post(f"api/datasets/{v2}/reveal", headers=_bearer(stranger)).status_code == 403
    revealed = site.post(f"api/datasets/{v2}/reveal", headers=_bearer(author))
    assert revealed.status_code == 200, revealed.text


def test_v2s_reveal_page_takes_v1s_organisers_browser(site: Server) -> None:
    """v2's reveal page in the browser holding v1's organiser's owner link showed no form and
    said only v2's run owner could reveal it, while the API took v1's token (explore40 7): the
    page takes the API's rule, and its sentence names v1's organiser too."""
    organiser = _submit(site, _version("page40a", None))
    v1 = _publish(site, organiser)
    v2_run = _submit(site, _version("page40b", v1), organiser)
    v2 = _publish(site, v2_run)
    assert site.post(f"api/datasets/{v1}/reveal", headers=_bearer(organiser)).status_code == 200
    url = f"{site.url}experiment/{v2_run['id']}/reveal"
    stranger = requests.Session()
    anyone = stranger.get(url, timeout=30)
    assert anyone.status_code == 200 and 'id="reveal-who"' in anyone.text
    assert f"experiment {organiser['id']}" in anyone.text  # v1's organiser named too
    browser = requests.Session()  # v1's organiser's owner link only
    browser.get(f"{site.url}experiment/{organiser['id']}?token={organiser['token']}", timeout=30)
    page = browser.get(url, timeout=30)
    assert page.status_code == 200 and 'id="reveal-form"' in page.text, page.text
    fields = dict(re.findall(r'name="(check|by)" value="([^"]*)"', page.text))
    assert fields["by"] == organiser["id"]
    forged = {**fields, "check": "0" * 64, "confirm": "on"}
    assert browser.post(url, data=forged, allow_redirects=False, timeout=30).status_code == 403
    stolen = stranger.post(url, data={**fields, "confirm": "on"}, allow_redirects=False)
    assert stolen.status_code == 403
    done = browser.post(url, data={**fields, "confirm": "on"}, allow_redirects=False, timeout=30)
    assert done.status_code == 303, done.text
    assert done.headers["Location"].endswith(f"dataset/{v2}")
    assert site.get(f"api/datasets/{v2}/runs", headers=_bearer(organiser)).status_code == 200
    again = site.post(f"api/datasets/{v2}/reveal", headers=_bearer(organiser))
    assert again.status_code == 409 and "already" in again.json()["error"]


@pytest.mark.parametrize("listing", ["leaderboards", "experiments"])
def test_a_listings_cached_page_links_its_parsed_filters_only(site: Server, listing: str) -> None:
    """The cached HTML of /leaderboards and /experiments kept the first requester's query in
    its alternate links (``?ref=POISON`` served to everyone after), the cache key being the
    parsed filters (explore40 6): the links are built from those."""
    run = _submit(site, _version(f"alt40{listing}", None, withheld=False))
    name = _publish(site, run)
    html_only = {"Accept": "text/html"}
    first = site.get(f"{listing}?dataset={name}&ref=POISON&language=&q=x", headers=html_only)
    assert first.status_code == 200, first.text
    second = site.get(f"{listing}?dataset={name}", headers=html_only)
    assert second.status_code == 200 and second.headers.get("ETag") == first.headers.get("ETag")
    for shown in (first, second):
        assert "POISON" not in shown.text and "POISON" not in shown.headers["Link"]
        hrefs = re.findall(r'<link rel="alternate"[^>]*href="([^"]*)"', shown.text)
        linked = re.findall(r"<([^>]*)>; rel=\"alternate\"", shown.headers["Link"])
        assert hrefs and {h.replace("&amp;", "&") for h in hrefs} <= set(linked), (hrefs, linked)
        assert all(f"dataset={name}" in h for h in hrefs)


def _note(site: Server, eid: str) -> str:
    """The experiment's BibTeX note and its plain-text citation (the page's), one string."""
    bib = " ".join(site.get(f"experiment/{eid}.bib").text.split())
    return bib


def _rescored(site: Server, run: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    made = site.post(f"api/experiments/{run['id']}/rescore", headers=_bearer(run), json=body)
    assert made.status_code == 202, made.text
    revision = made.json()
    site.wait_finished(revision["id"], revision["token"])
    _publish(site, revision)
    return dict(revision)


def test_a_rescoring_onto_a_newer_version_is_cited_as_one_not_as_replacing(site: Server) -> None:
    """A run re-scored onto v2 still ranks on v1's board, its page saying its numbers stand,
    yet its citation said "revised (re-scored) by R, whose numbers replace these" and R's
    "whose numbers it replaces" (explore40 4): each names where R went instead."""
    run = _submit(site, _version("cite40a", None, withheld=False))
    v1 = _publish(site, run)
    v2 = _publish(site, _submit(site, _version("cite40b", v1, withheld=False), run))
    revision = _rescored(site, run, {"datasetVersion": v2})
    old, new = _note(site, run["id"]), _note(site, revision["id"])
    assert "replace" not in old and "replaces" not in new, (old, new)
    v2_uri = f"{site.url}dataset/{v2}"
    assert f"re-scored onto dataset version {v2_uri} as experiment {revision['id']}" in old, old
    assert "these numbers stand as scored" in old
    assert (
        f"a re-scoring of experiment {run['id']}" in new and f"onto dataset version {v2_uri}" in new
    )
    page = " ".join(html.unescape(site.get(f"experiment/{run['id']}").text).split())
    assert "whose numbers replace" not in page  # its plain-text citation, as the page says
    assert f"Re-scored onto dataset version {v2_uri} as experiment {revision['id']}" in page


def test_a_withdrawn_revision_is_not_cited_as_replacing(site: Server) -> None:
    """A revision withdrawn, the old run back on the board: its citation still said the
    revision's numbers replace these (explore40 5)."""
    run = _submit(site, _version("cite40c", None, withheld=False))
    _publish(site, run)
    revision = _rescored(site, run, {})
    assert "whose numbers replace these" in _note(site, run["id"])  # in place: it does
    gone = site.post(
        f"api/experiments/{revision['id']}/withdraw",
        headers=_bearer(revision),
        json={"reason": "mistake"},
    )
    assert gone.status_code == 200, gone.text
    old = _note(site, run["id"])
    assert "replace" not in old, old
    assert f"by experiment {revision['id']}" in old and "withdrawn since" in old, old


def test_a_resubmission_of_one_system_of_two_replaces_that_one_only(site: Server) -> None:
    """A run of systems A and B resubmitted for A: the citation said the resubmission
    "re-scored" it and replaced its numbers, B's still ranked from it (explore40 5)."""
    from tests.web.test_explore37_versions import _answers

    body = _version("cite40d", None, withheld=False)
    body["systems"] = [
        {"name": "sysA", "answers": _answers("cite40d", {1})},
        {"name": "sysB", "answers": _answers("cite40d", {1, 2})},
    ]
    run = _submit(site, body)
    name = _publish(site, run)
    again = {
        "dataset": name,
        "profile": "exact",
        "revisionOf": run["id"],
        "systems": [{"name": "sysA", "answers": _answers("cite40d", {1, 2, 3})}],
    }
    revision = _submit(site, again, run)
    _publish(site, revision)
    old, new = _note(site, run["id"]), _note(site, revision["id"])
    assert "re-scored" not in old and "re-scoring" not in new, (old, new)
    assert (
        f"revised (run again) by experiment {revision['id']}" in old
        and "whose numbers replace these for system sysA" in old
    ), old
    assert f"a revision (resubmission) of experiment {run['id']}" in new, new
    assert "whose numbers it replaces for system sysA" in new, new


def test_a_rescoring_under_another_profile_is_cited_as_one(site: Server) -> None:
    """A run (exact) re-scored under fair still stands for exact, yet its citation said the
    revision's numbers replace these (explore40 5)."""
    run = _submit(site, _version("cite40e", None, withheld=False))
    _publish(site, run)
    revision = _rescored(site, run, {"profile": "fair"})
    old, new = _note(site, run["id"]), _note(site, revision["id"])
    assert "replace" not in old and "replaces" not in new, (old, new)
    assert f"re-scored under profile fair as experiment {revision['id']}" in old, old
    assert f"a re-scoring of experiment {run['id']}" in new and "under profile fair" in new
