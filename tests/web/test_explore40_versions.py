"""explore40's findings on lines of versions, citations and listings, against a real server:
the author of an open v1 publishing a withheld v2 (explore40 1, 7), the questions file of a
test set whose runs were all withdrawn (explore40 8)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

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
