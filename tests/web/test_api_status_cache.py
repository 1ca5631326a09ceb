"""A published experiment's API status, as anyone reads it, comes from the page cache until the
next public write (it was rebuilt for every request: ~75 ms for the demo's three systems, a
fourteenth of the mixed load's requests and most of its CPU); its owner's view, which may name
private revisions, is kept by its ETag (made from what the owner may see)."""

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


def test_a_poller_of_a_finished_run_reads_no_per_question_record(
    server: Server, monkeypatch
) -> None:
    """A finished run's status with its per-question records is its largest answer (12 MB and
    30-40 s for 20,000 questions, each poll): ``?questions=false`` answers the rest from the
    experiment's document, and the whole answer's ETag sent back is a 304 without reading
    them. The ETag changes with what can change (a publication), and a wrong value is a 400."""
    ticket = server.submit_demo()
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    path = f"api/experiments/{ticket['id']}"
    full = server.get(path, headers=owner)
    assert full.status_code == 200 and full.headers["ETag"]
    whole = full.json()
    assert all(e["questions"] for e in whole["evaluations"])

    reads: list[str] = []
    experiments = server.storage.experiments
    every_quad = experiments.quads
    monkeypatch.setattr(
        experiments, "quads", lambda i, **kw: reads.append(i) or every_quad(i, **kw)
    )
    light = server.get(f"{path}?questions=false", headers=owner)
    assert light.status_code == 200 and reads == []
    assert all("questions" not in e for e in light.json()["evaluations"])
    for evaluation in whole["evaluations"]:
        del evaluation["questions"]
    assert light.json() == whole  # the rest, word for word

    again = server.get(path, headers={**owner, "If-None-Match": full.headers["ETag"]})
    assert again.status_code == 304 and again.content == b"" and reads == []
    assert again.headers["ETag"] == full.headers["ETag"]

    assert server.post(f"{path}/publish", headers=owner).ok
    published = server.get(path, headers={**owner, "If-None-Match": full.headers["ETag"]})
    assert published.status_code == 200 and published.json()["public"] is True
    assert published.headers["ETag"] != full.headers["ETag"] and reads == [ticket["id"]]

    wrong = server.get(f"{path}?questions=some", headers=owner)
    assert wrong.status_code == 400 and "expected true or false" in wrong.json()["error"]


def test_a_light_poll_of_a_rescoring_names_what_changed_without_questions(server: Server) -> None:
    """A re-scoring's ``changes`` compare per-question records: without them
    (``?questions=false``) they keep the measures that changed and leave the questions out."""
    ticket = server.submit_demo()
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    path = f"api/experiments/{ticket['id']}"
    revision = server.post(f"{path}/rescore", headers=owner, json={"profile": "exact"})
    assert revision.status_code == 202, revision.text
    new = revision.json()
    server.wait_finished(new["id"], new["token"])
    mine = {"Authorization": f"Bearer {new['token']}"}
    whole = server.get(f"api/experiments/{new['id']}", headers=mine).json()["changes"]
    light = server.get(f"api/experiments/{new['id']}?questions=false", headers=mine).json()
    assert any(s["questions"] for s in whole["systems"])  # exact scores some differently
    assert [s["results"] for s in light["changes"]["systems"]] == [
        s["results"] for s in whole["systems"]
    ]
    assert all("questions" not in s for s in light["changes"]["systems"])


def test_a_submission_names_its_light_poll_and_its_owner_polls_are_kept(
    server: Server, monkeypatch
) -> None:
    """The URL a submission hands out for polling is the light one (explore-17b 5: a client
    following ``statusUrl`` read 1.2 MB in 3.5 s per poll at 2,000 questions), and the owner's
    whole answer, never cached before, is read once per ETag: a second GET reads no
    per-question record and answers the same bytes."""
    ticket = server.submit_demo()
    base = ticket["statusUrl"]
    assert base.endswith(f"/api/experiments/{ticket['id']}"), base
    assert ticket["pollUrl"] == f"{base}?questions=false"
    assert "Poll pollUrl" in ticket["note"], ticket["note"]
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    path = f"api/experiments/{ticket['id']}"
    server.wait_finished(ticket["id"], ticket["token"])
    polled = server.get(f"{path}?questions=false", headers=owner).json()
    assert polled["status"] == "finished" and all(
        "questions" not in e for e in polled["evaluations"]
    )

    first = server.get(path, headers=owner)
    reads: list[str] = []
    experiments = server.storage.experiments
    every_quad = experiments.quads
    monkeypatch.setattr(
        experiments, "quads", lambda i, **kw: reads.append(i) or every_quad(i, **kw)
    )
    again = server.get(path, headers=owner)
    assert again.status_code == 200 and reads == [] and again.content == first.content
    assert again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["Cache-Control"] == "no-store"
    assert all(e["questions"] for e in again.json()["evaluations"])
    # a stranger is not served the owner's kept answer
    assert server.get(path).status_code == 403 and reads == []
