"""Private until published: an unpublished experiment is invisible through every route.

Routes tried (issue 4): SPARQL ``GRAPH ?g``, ``FROM``/``FROM NAMED``, protocol
``default-graph-uri``/``named-graph-uri``, ``DESCRIBE`` of its URI, a search for its system's
name; every HTML/RDF/CSV representation of the experiment, its tasks and results; the
listings (HTML and API), the home page's leaderboard, the systems page, the public dump. Then
the owner publishes it and each route shows it.

``tests/reliability/test_private_leaks.py`` tries every route and SPARQL form at once and counts
(the status, cancel and file routes, comparisons, every listing, several tokens and media types).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from service.paths import DEMO_DIR


@dataclass(frozen=True)
class Private:
    id: str
    uri: str
    graph: str
    token: str
    system: str


def _submit(server, system: str) -> Private:
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("strong.json", (DEMO_DIR / "answers-strong.json").read_bytes())),
    ]
    response = server.post(
        "api/experiments", files=files, data={"answers_name": system, "kb": "demo"}
    )
    assert response.status_code == 202, response.text
    ticket = response.json()
    server.wait_finished(ticket["id"], ticket["token"])
    return Private(
        ticket["id"],
        ticket["uri"],
        server.storage.uris.experiment_graph(ticket["id"]),
        ticket["token"],
        system,
    )


@pytest.fixture(scope="module")
def private(server) -> Iterator[Private]:
    yield _submit(server, f"leaky-{secrets.token_hex(4)}")


def sparql(server, query: str, **params) -> dict:
    response = server.get(
        "sparql",
        params={"query": query, **params},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert response.status_code == 200, (query, params, response.text)
    return response.json()


def rows(result: dict) -> list[dict]:
    return result["results"]["bindings"]


def sparql_sees(server, p: Private) -> dict[str, bool]:
    """What each SPARQL route reveals about ``p`` (True: it is visible)."""
    graphs = {r["g"]["value"] for r in rows(sparql(server, "SELECT DISTINCT ?g { GRAPH ?g {} }"))}
    found = {
        "GRAPH ?g": p.graph in graphs,
        "GRAPH <g>": bool(
            rows(sparql(server, f"SELECT * {{ GRAPH <{p.graph}> {{ ?s ?p ?o }} }} LIMIT 3"))
        ),
        "FROM": bool(rows(sparql(server, f"SELECT * FROM <{p.graph}> {{ ?s ?p ?o }} LIMIT 3"))),
        "FROM NAMED": bool(
            rows(
                sparql(
                    server, f"SELECT * FROM NAMED <{p.graph}> {{ GRAPH ?g {{ ?s ?p ?o }} }} LIMIT 3"
                )
            )
        ),
        "named-graph-uri": bool(
            rows(
                sparql(
                    server,
                    "SELECT * { GRAPH ?g { ?s ?p ?o } } LIMIT 3",
                    **{"named-graph-uri": p.graph},
                )
            )
        ),
        "default-graph-uri": bool(
            rows(sparql(server, "SELECT * { ?s ?p ?o } LIMIT 3", **{"default-graph-uri": p.graph}))
        ),
        "default graph": sparql(server, f"ASK {{ <{p.uri}> ?p ?o }}")["boolean"],
        "system name": sparql(server, f'ASK {{ ?s ?p "{p.system}" }}')["boolean"],
    }
    describe = server.get(
        "sparql", params={"query": f"DESCRIBE <{p.uri}>"}, headers={"Accept": "text/turtle"}
    )
    assert describe.status_code == 200
    found["DESCRIBE"] = p.uri in describe.text
    return found


PAGES = [
    "",
    "experiments",
    "systems",
    "catalog",
    "api/experiments",
    "api/systems",
    "dump",
    "dump.trig",
]


def pages_mention(server, p: Private) -> dict[str, bool]:
    out = {}
    for path in PAGES:
        response = server.get(path, headers={"Accept": "text/html, */*;q=0.1"})
        assert response.status_code == 200, path
        out[path] = p.id in response.text or p.system in response.text
    return out


def test_private_experiment_is_invisible_then_published(server, private: Private) -> None:
    # -- before publication: nothing anywhere ---------------------------------------------
    assert sparql_sees(server, private) == dict.fromkeys(sparql_sees(server, private), False)
    assert not any(pages_mention(server, private).values())
    assert server.get(f"system/{private.system}").status_code == 404

    # -- publication by the owner ----------------------------------------------------------
    response = server.post(
        f"api/experiments/{private.id}/publish",
        headers={"Authorization": f"Bearer {private.token}"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["public"] is True
    assert all(sparql_sees(server, private).values()), sparql_sees(server, private)
    mentioned = pages_mention(server, private)
    for path in (
        "",
        "experiments",
        "systems",
        "api/experiments",
        "api/systems",
        "dump",
        "dump.trig",
    ):
        assert mentioned[path], path
    assert server.get(f"system/{private.system}").status_code == 200
    assert server.get(f"experiment/{private.id}.ttl").status_code == 200


@pytest.fixture()
def fresh(server) -> Private:
    return _submit(server, f"hidden-{secrets.token_hex(4)}")


REPRESENTATIONS = ["", ".ttl", ".jsonld", ".nt", ".rdf", ".nq", ".trig", ".csv", ".html"]


def test_every_representation_is_403_for_others(server, fresh: Private) -> None:
    paths = [f"experiment/{fresh.id}{ext}" for ext in REPRESENTATIONS]
    paths += [f"experiment/{fresh.id}/task/1{ext}" for ext in REPRESENTATIONS]
    paths += [f"experiment/{fresh.id}/task/1/question/3", f"api/experiments/{fresh.id}"]
    for path in paths:
        for accept in ("text/html", "text/turtle", "*/*"):
            response = server.get(path, headers={"Accept": accept})
            assert response.status_code == 403, (path, accept, response.status_code)
            assert fresh.system not in response.text
            assert "demo-strong" not in response.text and "Jupiter" not in response.text
    page = server.get(f"experiment/{fresh.id}", headers={"Accept": "text/html"})
    assert "not public yet" in page.text
    assert page.headers["Cache-Control"] == "no-store"
    # a wrong token is no better than none, and is said to be wrong (explore24 2: it read as
    # if none had been sent)
    wrong = server.get(f"experiment/{fresh.id}.ttl", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    assert "the token sent is not its owner token" in wrong.text
    assert fresh.system not in wrong.text
    api = server.get(f"api/experiments/{fresh.id}", headers={"Authorization": "Bearer nope"})
    assert api.status_code == 403 and "the token sent is not its owner token" in api.text
    link = server.get(f"experiment/{fresh.id}", params={"token": "nope"}, allow_redirects=False)
    assert link.status_code == 403 and "Set-Cookie" not in link.headers
    assert "the token sent is not its owner token" in link.text
    assert "the token sent is not" not in page.text  # none sent: nothing said of one


def test_owner_sees_it_with_the_token(server, fresh: Private) -> None:
    auth = {"Authorization": f"Bearer {fresh.token}"}
    response = server.get(f"experiment/{fresh.id}.ttl", headers=auth)
    assert response.status_code == 200
    assert fresh.system in response.text
    assert response.headers["Cache-Control"] == "private, no-store"
    status = server.get(f"api/experiments/{fresh.id}", headers=auth).json()
    assert status["public"] is False and status["status"] == "finished"
    assert status["results"][0]["measures"]["macroF1"] == 1.0
    # ... but SPARQL still does not: the endpoint only ever shows public graphs
    assert not any(sparql_sees(server, fresh).values())


def test_token_link_sets_a_cookie_and_strips_the_token(server, fresh: Private) -> None:
    import requests

    session = requests.Session()
    first = session.get(
        f"{server.url}experiment/{fresh.id}",
        params={"token": fresh.token},
        allow_redirects=False,
        headers={"Accept": "text/html"},
    )
    assert first.status_code == 303
    assert first.headers["Location"] == f"/experiment/{fresh.id}"
    cookie = first.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/experiment/" in cookie
    page = session.get(f"{server.url}experiment/{fresh.id}", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert fresh.system in page.text and "Private" in page.text
    # a wrong token gets no cookie, and is said to be wrong (it was dropped in a redirect to
    # a page that then asked for the token already given; explore24 2)
    other = requests.get(
        f"{server.url}experiment/{fresh.id}", params={"token": "wrong"}, allow_redirects=False
    )
    assert other.status_code == 403 and "Set-Cookie" not in other.headers
    # ... but its owner, whose browser holds the cookie, is taken to the page as before: a
    # link with a character lost refused the owner it had just let in (explore27 F7)
    mine = session.get(
        f"{server.url}experiment/{fresh.id}", params={"token": "wrong"}, allow_redirects=False
    )
    assert mine.status_code == 303 and "Set-Cookie" not in mine.headers


def test_others_cannot_publish_or_attach(server, fresh: Private) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        refused = server.post(f"api/experiments/{fresh.id}/publish", headers=headers)
        assert refused.status_code == 403
        # a wrong token is said to be wrong on actions too (explore27 F5), none is not
        wrong = "the token sent is not its owner token" in refused.text
        assert wrong == bool(headers), refused.text
        response = server.post(
            f"api/experiments/{fresh.id}/papers", json={"doi": "10.1/x"}, headers=headers
        )
        assert response.status_code == 403
    assert not server.storage.experiments.is_public(fresh.id)


def test_paper_link_is_in_the_rdf(server, fresh: Private) -> None:
    auth = {"Authorization": f"Bearer {fresh.token}"}
    response = server.post(
        f"api/experiments/{fresh.id}/papers", json={"doi": "10.3233/SW-180312"}, headers=auth
    )
    assert response.status_code == 201, response.text
    assert response.json()["paper"] == "https://doi.org/10.3233/SW-180312"
    bad = server.post(f"api/experiments/{fresh.id}/papers", json={"doi": "nope"}, headers=auth)
    assert bad.status_code == 400
    turtle = server.get(f"experiment/{fresh.id}.nt", headers=auth).text
    assert (
        f"<{fresh.uri}> <http://purl.org/dc/terms/isReferencedBy> "
        "<https://doi.org/10.3233/SW-180312> ." in turtle
    )
    # still private: the paper link does not leak either
    # (another test may cite the same DOI from a public experiment: look for this one's link)
    dump = server.get("dump").text
    assert fresh.uri not in dump and "10.3233/SW-180312" in turtle
    publish = server.post(f"api/experiments/{fresh.id}/publish", headers=auth)
    assert publish.status_code == 200
    assert "10.3233/SW-180312" in server.get("dump").text
    result = sparql(
        server, f"ASK {{ <{fresh.uri}> <http://purl.org/dc/terms/isReferencedBy> ?paper }}"
    )
    assert result["boolean"] is True
    json.dumps(result)
    # attached after publishing: at once in the public RDF and in the endpoint's default graph
    later = server.post(
        f"api/experiments/{fresh.id}/papers",
        json={"url": "https://example.org/later-paper"},
        headers=auth,
    )
    assert later.status_code == 201, later.text
    assert "https://example.org/later-paper" in server.get(f"experiment/{fresh.id}.nt").text
    result = sparql(
        server,
        f"ASK {{ <{fresh.uri}> <http://purl.org/dc/terms/isReferencedBy> "
        "<https://example.org/later-paper> }",
    )
    assert result["boolean"] is True


def test_a_reserved_experiment_has_its_uri_and_citation_before_results(server) -> None:
    ticket = server.storage.experiments.reserve(summary="{}")
    auth = {"Authorization": f"Bearer {ticket.token}"}
    turtle = server.get(f"experiment/{ticket.id}.ttl", headers=auth)
    assert turtle.status_code == 200
    assert '"reserved"' in turtle.text and f"<{ticket.uri}>" in turtle.text
    page = server.get(f"experiment/{ticket.id}", headers={"Accept": "text/html", **auth})
    assert "No results yet" in page.text and "reserved" in page.text
    assert f"@misc{{gerbilqa-{ticket.id}," in page.text and ticket.uri in page.text
    assert server.get(f"experiment/{ticket.id}.ttl").status_code == 403
    assert ticket.id not in server.get("api/experiments").text


def test_the_graph_of_a_private_experiment(server) -> None:
    ticket = _submit(server, f"graphed-{secrets.token_hex(4)}")
    path = f"graph/experiment/{ticket.id}.nq"
    assert server.get(path).status_code == 403
    owner = server.get(path, headers={"Authorization": f"Bearer {ticket.token}"})
    assert owner.status_code == 200 and ticket.system in owner.text
