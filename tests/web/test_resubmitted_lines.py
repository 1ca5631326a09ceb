"""A resubmission of one of an experiment's systems replaces that system's row only: the other
systems' rows stay ranked in the live leaderboards (HTML, JSON), their filter counts, the systems
list and a frozen leaderboard. Before, a published revision took every row of the experiment it
revised out under its profile. The line's rule follows: one row per system stands in a line of
revisions, so what would rank a second one is refused, naming the experiment to revise instead,
and what replaces nothing yet is accepted (before, an experiment was revised once per profile)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import requests

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

QUESTIONS = (DEMO_DIR / "questions.json").read_bytes()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("lines-store"), demo=False, sparql_workers=1)
    yield server
    stop_server(server)


def _send(site: Server, systems: dict[str, str], old: dict | None = None) -> requests.Response:
    """Submit ``systems`` (name -> demo answers file) on the demo's questions, under fair; with
    ``old``, as its resubmission (its owner token)."""
    files = [("dataset_file", ("questions.json", QUESTIONS))]
    files += [
        ("answers", (f"{name}.json", (DEMO_DIR / f"answers-{file}.json").read_bytes()))
        for name, file in systems.items()
    ]
    data = {"profile": "fair", "kb": "demo", "experiment_type": "QA"}
    headers = {}
    if old is not None:
        data["revisionOf"] = old["id"]
        headers["Authorization"] = f"Bearer {old['token']}"
    return site.post("api/experiments", files=files, data=data, headers=headers)


def _published(site: Server, systems: dict[str, str], old: dict | None = None) -> dict:
    response = _send(site, systems, old)
    assert response.status_code == 202, response.text
    ticket = response.json()
    site.wait_finished(ticket["id"], ticket["token"])
    auth = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=auth).ok
    return ticket


def _refused(site: Server, systems: dict[str, str], old: dict) -> str:
    response = _send(site, systems, old)
    assert response.status_code == 409, response.text
    return response.json()["error"]


def _ranked(site: Server) -> set[tuple[str, str]]:
    """(experiment id, system) of the live leaderboard's rows, as JSON; the HTML page lists
    the same tasks and its filter counts say as many."""
    params = {"dataset": "all", "size": "500"}
    board = site.get("leaderboards", params={**params, "format": "json"})
    assert board.status_code == 200, board.text
    rows = board.json()["rows"]
    page = site.get("leaderboards", params=params).text
    tasks = re.findall(r'<input type="checkbox" name="task" value="([^"]+)"', page)
    assert sorted(tasks) == sorted(r["task"] for r in rows)
    profiles = re.search(r'<select id="lb-profile" name="profile">(.*?)</select>', page, re.S)
    assert profiles is not None
    assert f'<option value="">all profiles ({len(rows)})</option>' in profiles[1]
    return {(r["experiment"].rsplit("/", 1)[1], r["system"]) for r in rows}


def _systems(site: Server) -> dict[str, int]:
    """The systems list's count of experiments per system."""
    listed = site.get("api/systems").json()["systems"]
    return {s["uri"].rsplit("/", 1)[1]: s["experiments"] for s in listed}


def test_a_resubmission_of_one_system_leaves_the_others_ranked(site: Server) -> None:
    old = _published(site, {"alpha": "strong", "beta": "partial"})
    new = _published(site, {"alpha": "partial"}, old)
    mine = ("alpha", "beta")
    assert {(e, s) for e, s in _ranked(site) if s in mine} == {
        (new["id"], "alpha"),
        (old["id"], "beta"),
    }
    assert {k: n for k, n in _systems(site).items() if k in mine} == {"alpha": 1, "beta": 1}
    frozen = site.post("api/leaderboards", json={"dataset": "all", "title": "lines"})
    assert frozen.status_code == 201, frozen.text
    kept = {(r["experiment"].rsplit("/", 1)[1], r["system"]) for r in frozen.json()["rows"]}
    assert {(e, s) for e, s in kept if s in mine} == {(new["id"], "alpha"), (old["id"], "beta")}


def test_a_line_of_revisions_ranks_one_row_per_system(site: Server) -> None:
    """What would rank a second row for a system is refused, naming the experiment whose row
    stands; what replaces a row nothing replaced yet is accepted."""
    old = _published(site, {"kappa": "strong", "lambda": "partial"})
    new = _published(site, {"kappa": "partial"}, old)
    # kappa stands from the revision, so the old run is not revised for it
    said = _refused(site, {"kappa": "strong"}, old)
    assert f"system kappa from {new['id']}" in said and f"(revisionOf {new['id']})" in said
    # lambda's row is still the old run's: it is revised for lambda (refused before: the old run
    # had a published revision under fair)
    third = _published(site, {"lambda": "strong"}, old)
    mine = {old["id"], new["id"], third["id"]}
    assert {(e, s) for e, s in _ranked(site) if e in mine} == {
        (new["id"], "kappa"),
        (third["id"], "lambda"),
    }
    said = _refused(site, {"kappa": "strong", "lambda": "partial"}, old)
    assert f"kappa from {new['id']}" in said and f"lambda from {third['id']}" in said
    # the revision of kappa does not take lambda over from its sibling (accepted before: two
    # lambda rows would have stood, the sibling's and its own)
    said = _refused(site, {"lambda": "partial"}, new)
    assert f"system lambda from {third['id']}" in said and f"(revisionOf {third['id']})" in said
    again = _send(site, {"kappa": "strong"}, new)  # its own system: the newest of its line
    assert again.status_code == 202, again.text
    ticket = again.json()
    site.wait_finished(ticket["id"], ticket["token"])
    # re-scoring the old run would rank both systems again beside their revisions
    rescore = site.post(
        f"api/experiments/{old['id']}/rescore",
        json={},
        headers={"Authorization": f"Bearer {old['token']}"},
    )
    assert (
        rescore.status_code == 409
        and f"re-score that one instead ({new['id']})" in (rescore.json()["error"])
    )


def test_withdrawn_revisions_give_the_old_rows_back(site: Server) -> None:
    old = _published(site, {"gamma": "strong", "delta": "partial"})
    new = _published(site, {"gamma": "partial"}, old)
    mine = {(e, s) for e, s in _ranked(site) if s in ("gamma", "delta")}
    assert mine == {(new["id"], "gamma"), (old["id"], "delta")}
    auth = {"Authorization": f"Bearer {new['token']}"}
    withdrawn = site.post(
        f"api/experiments/{new['id']}/withdraw", json={"reason": "the wrong file"}, headers=auth
    )
    assert withdrawn.ok, withdrawn.text
    mine = {(e, s) for e, s in _ranked(site) if s in ("gamma", "delta")}
    assert mine == {(old["id"], "gamma"), (old["id"], "delta")}
    assert {k: v for k, v in _systems(site).items() if k in ("gamma", "delta")} == {
        "gamma": 1,
        "delta": 1,
    }
    # nothing public replaces gamma now: the old run is revised for it again
    again = _send(site, {"gamma": "strong"}, old)
    assert again.status_code == 202, again.text
    ticket = again.json()
    site.wait_finished(ticket["id"], ticket["token"])


def test_two_private_revisions_of_one_system_are_not_both_published(site: Server) -> None:
    """Both were accepted while neither was public; published one after the other, both were
    ranked (the old run's row replaced twice). The second publication is refused, naming the
    first, and the first stays the only row."""
    old = _published(site, {"mu": "strong"})
    tickets = []
    for _ in range(2):
        response = _send(site, {"mu": "partial"}, old)
        assert response.status_code == 202, response.text
        tickets.append(response.json())
        site.wait_finished(tickets[-1]["id"], tickets[-1]["token"])
    first, second = tickets

    def publish(ticket: dict) -> requests.Response:
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        return site.post(f"api/experiments/{ticket['id']}/publish", headers=auth)

    assert publish(first).status_code == 200
    refused = publish(second)
    assert refused.status_code == 409, refused.text
    said = refused.json()["error"]
    assert f"system mu from {first['id']}" in said and f"(revisionOf {first['id']})" in said
    assert {(e, s) for e, s in _ranked(site) if s == "mu"} == {(first["id"], "mu")}
    status = site.get(
        f"api/experiments/{second['id']}", headers={"Authorization": f"Bearer {second['token']}"}
    )
    assert status.json()["public"] is False


@pytest.mark.parametrize("system", ["nu", "xi", "omicron"])
def test_two_private_revisions_published_at_the_same_moment_rank_once(
    site: Server, system: str
) -> None:
    """The same, both publications sent at once: each was checked before either was public
    (the check ran before the publication's lock and claim), so both were published and the
    system ranked twice. Now the check runs under them: one is published, one refused."""
    import threading

    old = _published(site, {system: "strong"})
    tickets = []
    for _ in range(2):
        response = _send(site, {system: "partial"}, old)
        assert response.status_code == 202, response.text
        tickets.append(response.json())
        site.wait_finished(tickets[-1]["id"], tickets[-1]["token"])
    start = threading.Barrier(len(tickets))
    answers: dict[str, int] = {}

    def publish(ticket: dict) -> None:
        auth = {"Authorization": f"Bearer {ticket['token']}"}
        start.wait(10)
        answers[ticket["id"]] = site.post(
            f"api/experiments/{ticket['id']}/publish", headers=auth
        ).status_code

    threads = [threading.Thread(target=publish, args=(t,)) for t in tickets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(answers.values()) == [200, 409], answers
    (winner,) = (eid for eid, code in answers.items() if code == 200)
    assert {(e, s) for e, s in _ranked(site) if s == system} == {(winner, system)}
