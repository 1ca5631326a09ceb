"""The operator's token (``GERBIL_QA_ADMIN_TOKEN``) on the running server: the API's listing
gives every experiment with the rows of ``gerbil-qa experiments``, and the token acts as every
experiment's owner (publish, withdraw); without it, the listing is the public one."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server

ADMIN = "operator-token-for-the-test"


@pytest.fixture(scope="module")
def operated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(
        tmp_path_factory.mktemp("admin") / "store", demo=False, admin_token=ADMIN
    )
    yield running
    stop_server(running)


def test_the_operator_lists_every_experiment_and_acts_as_its_owner(operated: Server) -> None:
    files = [
        ("dataset_file", ("challenge.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("team.json", (DEMO_DIR / "answers-partial.json").read_bytes())),
    ]
    data = {"profile": "fair", "kb": "demo", "answers_name": "team-A"}
    submitted = operated.post("api/experiments", files=files, data=data)
    assert submitted.status_code == 202, submitted.text
    ticket = submitted.json()
    operated.wait_finished(ticket["id"], ticket["token"])

    assert operated.get("api/experiments").json()["experiments"] == []  # the public listing
    admin = {"Authorization": f"Bearer {ADMIN}"}
    (row,) = operated.get("api/experiments", headers=admin).json()["experiments"]
    assert row["id"] == ticket["id"] and row["status"] == "finished" and row["public"] is False
    assert row["created"] and row["publishedAt"] is None
    assert row["dataset"] == "challenge.json" and row["systems"] == ["team-A"]
    assert row["datasetUri"].startswith(operated.url + "dataset/")

    eid = ticket["id"]
    assert operated.post(f"api/experiments/{eid}/publish", headers=admin).status_code == 200
    wrong = {"Authorization": "Bearer not-the-operator"}  # the public listing, its keys only
    (public,) = operated.get("api/experiments", headers=wrong).json()["experiments"]
    assert public["id"] == eid and "status" not in public and "created" not in public
    withdrawn = operated.post(
        f"api/experiments/{eid}/withdraw", json={"reason": "a duplicate entry"}, headers=admin
    )
    assert withdrawn.status_code == 200, withdrawn.text
    (row,) = operated.get("api/experiments", headers=admin).json()["experiments"]
    assert row["public"] is True and row["withdrawalReason"] == "a duplicate entry"
    assert operated.get("api/experiments").json()["experiments"] == []  # withdrawn: not listed


def test_the_admin_token_is_not_taken_in_a_url(operated: Server) -> None:
    """explore-13: ``?token=ADMIN`` on an experiment URL was kept in the owner cookie for 30
    days (and is in a proxy's access log): the operator's token is a Bearer header only; an
    owner's token in the link they were given is still remembered."""
    files = [
        ("dataset_file", ("challenge.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("team.json", (DEMO_DIR / "answers-partial.json").read_bytes())),
    ]
    submitted = operated.post("api/experiments", files=files, data={"kb": "demo"})
    ticket = submitted.json()
    operated.wait_finished(ticket["id"], ticket["token"])
    path = f"experiment/{ticket['id']}"
    admin = operated.get(path, params={"token": ADMIN}, allow_redirects=False)
    # said to the one who sent it, not a silent redirect (explore-16 3)
    assert admin.status_code == 400 and "Set-Cookie" not in admin.headers
    assert "send it as Authorization: Bearer" in admin.text
    owner = operated.get(path, params={"token": ticket["token"]}, allow_redirects=False)
    assert owner.status_code == 303 and f"gqa_owner_{ticket['id']}=" in owner.headers["Set-Cookie"]
    # the Bearer header still acts as every owner
    page = operated.get(path, headers={"Authorization": f"Bearer {ADMIN}"})
    assert page.status_code == 200
    # every route says so, the API's included: it answered 403 "not public yet" and logged
    # nothing, so no one knew to rotate it (explore26 F2)
    for url in (f"api/experiments/{ticket['id']}", "api/datasets", "sparql", path):
        # every value: a second token= passed unseen (explore27 F11)
        said = operated.get(url, params=[("token", "junk"), ("token", ADMIN)])
        assert said.status_code == 400, (url, said.text)
        said = operated.get(url, params={"token": ADMIN})
        assert said.status_code == 400, (url, said.text)
        assert "the admin token is not taken in a URL" in said.text, url


def test_a_non_ascii_token_or_check_is_refused_not_an_error(operated: Server) -> None:
    """explore34 5: with an admin token set, every token was compared with it as ``str``
    (``hmac.compare_digest`` raises for non-ASCII ones): a non-ASCII bearer token, ``?token=``
    (on every route), a ``tokens`` value of ``POST /api/compare`` or a form's ``check`` was a
    500. Each is now simply not the token: the usual refusal, or the public page."""
    files = [
        ("dataset_file", ("challenge.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("team.json", (DEMO_DIR / "answers-partial.json").read_bytes())),
        ("answers", ("other.json", (DEMO_DIR / "answers-strong.json").read_bytes())),
    ]
    ticket = operated.post("api/experiments", files=files, data={"kb": "demo"}).json()
    operated.wait_finished(ticket["id"], ticket["token"])
    eid = ticket["id"]
    for token in ("é", "tést", "\u2603"):
        bearer = {"Authorization": f"Bearer {token}".encode()}  # the UTF-8 bytes
        assert operated.get("", params={"token": token}).status_code == 200, token
        said = operated.get(f"experiment/{eid}", params={"token": token})
        assert said.status_code == 403, (token, said.status_code, said.text[:300])
        assert operated.get("api/experiments", headers=bearer).status_code == 200
        assert operated.get(f"api/experiments/{eid}", headers=bearer).status_code == 403
        refused = operated.post(f"api/experiments/{eid}/publish", headers=bearer)
        assert refused.status_code == 403, refused.text
        dropped = operated.delete("api/leaderboards/b3555910fc0e4ec8", headers=bearer)
        assert dropped.status_code in (403, 404), dropped.text
        tasks = [f"{operated.url}experiment/{eid}/task/{n}" for n in (1, 2)]
        compared = operated.post("api/compare", json={"tasks": tasks, "tokens": {eid: token}})
        assert compared.status_code == 400 and "is not public" in compared.text, compared.text
        posted = operated.post(
            f"experiment/{eid}/publish",
            data={"check": token},
            cookies={f"gqa_owner_{eid}": ticket["token"]},
        )
        assert posted.status_code == 403, posted.text[:300]
    # a lone surrogate, as JSON may carry: refused as such, not an error
    body = json.dumps({"tasks": tasks, "tokens": {eid: "\ud800"}})  # "\\ud800" in the JSON
    compared = operated.post("api/compare", data=body, headers={"Content-Type": "application/json"})
    assert compared.status_code == 400 and "surrogate" in compared.text, compared.text
    assert operated.get(f"api/experiments/{eid}").status_code == 403  # still private
