"""Deleting an unpublished experiment on the running server: ``DELETE /api/experiments/{id}``
for its owner only, the page's form (owner cookie and check), 409 for a published or running
one, and afterwards nothing of it answers (status, page, RDF, kept files)."""

from __future__ import annotations

import hashlib
import re

import requests

from service.experiments.kept import file_key
from service.paths import DEMO_DIR

STRONG = (DEMO_DIR / "answers-strong.json").read_bytes()


def _submit_own(server, marker: str) -> tuple[dict, str]:
    """A finished private experiment whose answer file no other experiment uses: its ticket and
    that file's SHA-256."""
    answers = STRONG + b" " * len(marker)  # JSON with trailing blanks: a file of its own
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("mine.json", answers)),
    ]
    response = server.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"])
    return ticket, hashlib.sha256(answers).hexdigest()


def _gone(server, ticket: dict) -> None:
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.get(f"api/experiments/{ticket['id']}", headers=owner).status_code == 404
    assert server.get(f"experiment/{ticket['id']}", headers=owner).status_code == 404
    turtle = server.get(f"experiment/{ticket['id']}", headers={**owner, "Accept": "text/turtle"})
    assert turtle.status_code == 404


def test_the_owner_deletes_a_private_experiment(server) -> None:
    ticket, sha = _submit_own(server, "api")
    workspace = server.storage.workspace
    assert workspace.read(file_key(sha)) is not None
    path = f"api/experiments/{ticket['id']}"
    assert server.request("DELETE", path).status_code == 403
    wrong = {"Authorization": "Bearer not-the-token"}
    assert server.request("DELETE", path, headers=wrong).status_code == 403

    owner = {"Authorization": f"Bearer {ticket['token']}"}
    deleted = server.request("DELETE", path, headers=owner)
    assert deleted.status_code == 204, deleted.text
    assert deleted.content == b""
    _gone(server, ticket)
    assert workspace.read(file_key(sha)) is None
    dataset = hashlib.sha256((DEMO_DIR / "questions.json").read_bytes()).hexdigest()
    assert workspace.read(file_key(dataset)) is not None  # the demo experiment uses it
    assert server.request("DELETE", path, headers=owner).status_code == 404

    again, _ = _submit_own(server, "after")
    assert again["id"] > ticket["id"]  # never the deleted id again


def test_a_published_or_running_experiment_is_not_deleted(server) -> None:
    demo = server.demo_id
    experiments = server.storage.experiments
    # the operator's view: a published experiment's token is not needed to be refused
    ticket, _ = _submit_own(server, "published")
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    assert server.post(f"api/experiments/{ticket['id']}/publish", headers=owner).ok
    refused = server.request("DELETE", f"api/experiments/{ticket['id']}", headers=owner)
    assert refused.status_code == 409
    assert "published" in refused.json()["error"] and "rescore" in refused.json()["error"]
    assert server.get(f"experiment/{ticket['id']}").status_code == 200
    assert experiments.status(demo).public

    queued = experiments.reserve(summary="{}")
    experiments.set_status(queued.id, "queued")
    refused = server.request(
        "DELETE",
        f"api/experiments/{queued.id}",
        headers={"Authorization": f"Bearer {queued.token}"},
    )
    assert refused.status_code == 409
    assert "queued: cancel it first" in refused.json()["error"]
    assert experiments.status(queued.id).status.value == "queued"


def test_the_page_form_deletes_for_the_owner_only(server) -> None:
    ticket, sha = _submit_own(server, "form")
    browser = requests.Session()  # the owner link sets the owner cookie
    page = browser.get(f"{server.url}experiment/{ticket['id']}?token={ticket['token']}", timeout=30)
    assert page.status_code == 200
    assert 'id="delete-form"' in page.text and "required" in page.text
    check = re.search(
        r'action="[^"]*/delete" id="delete-form">\s*<input type="hidden" name="check" '
        r'value="([^"]+)"',
        page.text,
    )
    assert check, page.text
    url = f"{server.url}experiment/{ticket['id']}/delete"
    # a post without the owner cookie, or with another action's check, is refused
    assert requests.post(url, data={"check": check.group(1)}, timeout=30).status_code == 403
    assert browser.post(url, data={"check": "x"}, timeout=30).status_code == 403
    done = browser.post(url, data={"check": check.group(1), "confirm": "on"}, timeout=30)
    assert done.status_code == 200, done.text
    assert f"Experiment {ticket['id']} deleted" in done.text
    _gone(server, ticket)
    assert server.storage.workspace.read(file_key(sha)) is None


def test_the_page_offers_no_delete_for_a_published_experiment(server) -> None:
    page = server.get(f"experiment/{server.demo_id}")
    assert page.status_code == 200
    assert 'id="delete-form"' not in page.text
