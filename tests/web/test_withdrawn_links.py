"""What a withdrawn experiment links to keeps resolving (explore45 1): withdrawing takes its
graph's own triples out of the default graph, which every public document read, so its systems
(named by no other public experiment) answered 404 in every format while the withdrawn
experiment, still citable, linked them. A crawl from the withdrawn experiment meets no 404."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import rdflib

from service.paths import DEMO_DIR
from tests.web.conftest import Server, start_server, stop_server
from tests.web.test_linked_data_crawl import Frontier, kind_of

LIMIT = 120  # documents read as Turtle (every kind before a kind's next)
FORMATS = ("ttl", "nt", "nq", "trig", "jsonld", "rdf", "html")
MEDIA_TYPES = (
    "application/n-triples",
    "application/n-quads",
    "application/trig",
    "application/ld+json",
    "application/rdf+xml",
    "text/html",
)
GQA = "http://w3id.org/gerbil/qa/vocab#"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("withdrawn-links"))
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def withdrawn(site: Server) -> dict:
    """An experiment of a system no other experiment names (``lonely``), published, then
    withdrawn: its status."""
    files = [
        ("dataset_file", ("questions.json", (DEMO_DIR / "questions.json").read_bytes())),
        ("answers", ("lonely.json", (DEMO_DIR / "answers-strong.json").read_bytes())),
    ]
    response = site.post("api/experiments", files=files, data={"profile": "fair", "kb": "demo"})
    assert response.status_code == 202, response.text
    ticket = response.json()
    site.wait_finished(ticket["id"], ticket["token"])
    owner = {"Authorization": f"Bearer {ticket['token']}"}
    assert site.post(f"api/experiments/{ticket['id']}/publish", headers=owner).ok
    assert site.get("system/lonely", headers={"Accept": "text/turtle"}).status_code == 200
    gone = site.post(
        f"api/experiments/{ticket['id']}/withdraw", json={"reason": "a test"}, headers=owner
    )
    assert gone.status_code == 200, gone.text
    return gone.json()


def test_its_system_keeps_resolving_in_every_format(site: Server, withdrawn: dict) -> None:
    system = site.url + "system/lonely"
    turtle = site.get("system/lonely", headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200, turtle.text
    graph = rdflib.Graph().parse(data=turtle.text, format="turtle", publicID=system)
    assert (rdflib.URIRef(system), None, None) in graph
    assert (rdflib.URIRef(system), rdflib.RDF.type, rdflib.URIRef(GQA + "System")) in graph
    for ext in (*FORMATS, "csv"):
        answer = site.get(f"system/lonely.{ext}")
        assert answer.status_code == 200, (ext, answer.status_code, answer.text[:300])
    page = site.get("system/lonely").text
    assert "no current public experiments" in page
    assert f"experiment/{withdrawn['id']}" in page  # the withdrawn run that names it, linked
    assert "withdrawn" in page
    # still out of every listing: the default graph does not name it
    listed = site.get(
        "sparql",
        params={"query": f"ASK {{ <{system}> ?p ?o }}", "format": "json"},
    ).json()
    assert listed["boolean"] is False


def test_a_crawl_from_the_withdrawn_experiment_meets_no_404(site: Server, withdrawn: dict) -> None:
    frontier = Frontier(site.url)
    frontier.add(withdrawn["uri"])
    failed: dict[str, int] = {}
    read: dict[str, rdflib.Graph] = {}
    for _ in range(LIMIT):
        document = frontier.next()
        if document is None:
            break
        answer = site.get(
            document[len(site.url) :], headers={"Accept": "text/turtle"}, allow_redirects=True
        )
        if answer.status_code != 200:
            failed[document] = answer.status_code
            continue
        graph = rdflib.Graph().parse(data=answer.text, format="turtle", publicID=document)
        read[document] = graph
        files = {
            str(o)
            for term in (
                "http://www.w3.org/ns/dcat#downloadURL",
                "http://rdfs.org/ns/void#dataDump",
            )
            for o in graph.objects(None, rdflib.URIRef(term))
        }
        for s, _p, o in graph:
            for term in (s, o):
                iri = str(term)
                if (
                    isinstance(term, rdflib.URIRef)
                    and iri.startswith(site.url)
                    and iri not in files
                ):
                    frontier.add(iri.split("#", 1)[0])
    assert failed == {}
    kinds = {kind_of(site.url, d) for d in read}
    assert "system/lonely" in kinds and "experiment/N/task/N/question/N" in kinds, kinds
    # one document of each kind in every other syntax too (406 where it is not offered)
    for document in {kind_of(site.url, d): d for d in read}.values():
        for media_type in MEDIA_TYPES:
            answer = site.get(
                document[len(site.url) :], headers={"Accept": media_type}, allow_redirects=True
            )
            assert answer.status_code in (200, 406), (document, media_type, answer.status_code)
