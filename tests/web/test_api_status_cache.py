"""A published experiment's API status, as anyone reads it, comes from the page cache until the
next public write (it was rebuilt for every request: ~75 ms for the demo's three systems, a
fourteenth of the mixed load's requests and most of its CPU), while its owner's view, which
may name private revisions, is never cached."""

from __future__ import annotations

from service.web.state import EXTENSION
from tests.web.conftest import Server


def _hits(server: Server) -> int:
    return server.app.extensions[EXTENSION].cache.hits


def test_a_published_status_is_kept_until_a_public_write(server: Server) -> None:
    published = server.submit_demo()
    owner = {"Authorization": f"Bearer {published['token']}"}
    assert server.wait_finished(published["id"], published["token"])["status"] == "finished"
    assert server.post(f"api/experiments/{published['id']}/publish", headers=owner).ok
    path = f"api/experiments/{published['id']}"

    first = server.get(path)
    hits = _hits(server)
    again = server.get(path)
    assert first.status_code == again.status_code == 200
    assert again.content == first.content and _hits(server) == hits + 1
    assert again.headers["Cache-Control"] == "no-store" and again.json()["public"] is True
    etag = again.headers["ETag"]
    assert server.get(path, headers={"If-None-Match": etag}).status_code == 304

    # a public write (a paper) shows at once
    paper = server.post(f"{path}/papers", headers=owner, json={"doi": "10.1000/cached"})
    assert paper.ok, paper.text
    fresh = server.get(path)
    assert fresh.headers["ETag"] != etag
    assert any("10.1000/cached" in p for p in fresh.json()["papers"]), fresh.json()["papers"]

    # the owner's view is built for the owner: a private re-scoring is named there only
    revision = server.post(f"{path}/rescore", headers=owner, json={"profile": "exact"})
    assert revision.status_code == 202, revision.text
    rescored = revision.json()
    server.wait_finished(rescored["id"], rescored["token"])
    assert server.get(path, headers=owner).json()["revisedBy"] == [rescored["id"]]
    assert server.get(path).json()["revisedBy"] == []
