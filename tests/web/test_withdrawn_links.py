"""What a withdrawn experiment links to keeps resolving (explore45 1): withdrawing takes its
graph's own triples out of the default graph, which every public document read, so its systems
(named by no other public experiment) answered 404 in every format while the withdrawn
experiment, still citable, linked them. A crawl from the withdrawn experiment meets no 404."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import rdflib
from rdflib.namespace import RDF, RDFS

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
    # no link to the listing of its published experiments, which is empty (explore48 7)
    history = page.split('id="system-experiments"')[1].split("</p>")[0]
    assert "href=" not in history and "No published experiment uses it now" in history, history
    assert "experiments?system=lonely" not in page
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


SD = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")


def _ask(site: Server, query: str) -> bool:
    answer = site.get("sparql", params={"query": query, "format": "json"})
    assert answer.status_code == 200, answer.text
    return bool(answer.json()["boolean"])


def test_the_service_description_says_what_the_default_graph_is(
    site: Server, withdrawn: dict
) -> None:
    """SPARQL 1.1 Service Description §3.4.5: ``sd:UnionDefaultGraph`` says the default graph
    is the union of the named graphs. It was claimed, while a withdrawn experiment's graph,
    listed as a named graph, holds triples the default graph does not (explore45 2). Each
    claim is checked against the endpoint: a feature claimed holds, and each named graph
    described as withdrawn is one."""
    turtle = site.get("sparql", headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200
    sd = rdflib.Graph().parse(data=turtle.text, format="turtle", publicID=site.url + "sparql")
    names = {str(o) for o in sd.objects(None, SD.name)}
    graph = site.storage.uris.experiment_graph(withdrawn["id"])
    assert graph in names  # still a named graph, read with GRAPH
    # triples of a listed graph that the default graph lacks (IRIs only: a blank node's copy)
    outside = {
        name
        for name in names
        if _ask(
            site,
            f"ASK {{ GRAPH <{name}> {{ ?s ?p ?o FILTER(!isBlank(?s) && !isBlank(?o)) }} "
            f"FILTER NOT EXISTS {{ ?s ?p ?o }} }}",
        )
    }
    assert graph in outside
    union = (None, SD.feature, SD.UnionDefaultGraph) in sd
    assert not (union and outside), sorted(outside)
    # the graphs it describes as withdrawn are those the default graph leaves triples of out
    described = {
        str(sd.value(node, SD.name))
        for node in sd.subjects(RDF.type, SD.NamedGraph)
        if (node, SD.graph, None) in sd
        and "withdrawn" in str(sd.value(sd.value(node, SD.graph), RDFS.comment))
    }
    assert described == outside == {graph}
    (dataset,) = sd.objects(None, SD.defaultDataset)
    default = sd.value(dataset, SD.defaultGraph)
    assert "withdrawn" in str(sd.value(default, RDFS.comment))


def test_void_says_what_its_dump_holds(site: Server, withdrawn: dict) -> None:
    """VoID described the store (whose ``void:dataDump`` is /dump.nq) as holding "the published
    experiments (not withdrawn)", while the dump holds each withdrawn experiment's graph, with
    its note (explore45 4): the text says what the dump holds."""
    import pyoxigraph as ox

    void = site.get(".well-known/void", headers={"Accept": "text/turtle"})
    assert void.status_code == 200
    graph = rdflib.Graph().parse(data=void.text, format="turtle", publicID=site.url)
    (store,) = graph.subjects(rdflib.URIRef("http://rdfs.org/ns/void#dataDump"), None)
    (dump_url,) = graph.objects(store, rdflib.URIRef("http://rdfs.org/ns/void#dataDump"))
    said = str(graph.value(store, rdflib.URIRef("http://purl.org/dc/terms/description")))
    dump = ox.Dataset(
        ox.parse(site.get(str(dump_url)[len(site.url) :]).content, format=ox.RdfFormat.N_QUADS)
    )
    held = {q.graph_name for q in dump}
    experiment_graph = ox.NamedNode(site.storage.uris.experiment_graph(withdrawn["id"]))
    note = ox.NamedNode(GQA + "withdrawnAt")
    assert experiment_graph in held
    assert list(dump.quads_for_subject(ox.NamedNode(withdrawn["uri"])))
    assert any(q.predicate == note for q in dump.quads_for_graph_name(experiment_graph))
    assert "not withdrawn" not in said
    assert "withdrawn experiment" in said and "withdrawal note" in said
