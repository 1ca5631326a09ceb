"""A strict linked-data client crawls the running service (issue: read everything we publish).

Starting from the catalogue, the demo experiment, a system, a dataset, a registered dataset
version and the vocabulary, every IRI under the service's base that a document names (as subject
or object) is fetched, up to :data:`LIMIT` documents, as Turtle, N-Triples, RDF/XML and JSON-LD.
Each is read by strict parsers: pyoxigraph's (the JSON-LD with its published context put in
place), rdflib's, and for JSON-LD pyld's ``expand`` + ``to_rdf``; every reading must be the
Turtle's graph. A hash IRI must be described in its document, no IRI under the base may fail
to dereference, and the documents pass our SHACL shapes (``shapes/``). Every term of our
namespaces that a document (or the store) uses must be defined in ``ontology/`` with a label
and a comment.
"""

from __future__ import annotations

import json
import re
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pyshacl
import pytest
import rdflib
import requests
from pyld import jsonld

from service.graph.uris import enc
from service.paths import ONTOLOGY_DIR, SHAPES_DIR
from service.release import source
from tests.web.conftest import Server, start_server, stop_server

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # inside rdflib

LIMIT = 200  # documents crawled at most (the frontier reads every kind before a kind's next)
SYNTAXES = {  # media type -> (pyoxigraph format, rdflib format)
    "text/turtle": (ox.RdfFormat.TURTLE, "turtle"),
    "application/n-triples": (ox.RdfFormat.N_TRIPLES, "nt"),
    "application/rdf+xml": (ox.RdfFormat.RDF_XML, "xml"),
    "application/ld+json": (ox.RdfFormat.JSON_LD, "json-ld"),
}
OUR_NAMESPACES = ("http://w3id.org/gerbil/qa/vocab#", "http://w3id.org/gerbil/vocab#")
XSD_DOUBLE = "http://www.w3.org/2001/XMLSchema#double"


@dataclass
class Crawl:
    """What the crawl read: each document's Turtle graph, the IRIs it named, what failed."""

    base: str
    graphs: dict[str, rdflib.Graph] = field(default_factory=dict)
    named: dict[str, set[str]] = field(default_factory=dict)  # IRI under the base -> documents
    failed: dict[str, int] = field(default_factory=dict)  # document -> HTTP status
    differences: list[str] = field(default_factory=list)
    terms: set[str] = field(default_factory=set)  # IRIs of our namespaces, any position


# --- reading one representation -----------------------------------------------------------


@cache
def _context(url: str) -> Any:
    response = requests.get(url, headers={"Accept": "application/ld+json"}, timeout=30)
    response.raise_for_status()
    return response.json()["@context"]


def _loader(url: str, options: Any = None) -> dict[str, Any]:
    return {"contextUrl": None, "documentUrl": url, "document": {"@context": _context(url)}}


def _inline_context(document: dict[str, Any]) -> bytes:
    """The document with its remote context(s) in place (what a JSON-LD processor's loader
    does), for pyoxigraph's parser, which fetches nothing."""
    contexts = document["@context"]
    listed = contexts if isinstance(contexts, list) else [contexts]
    inlined = [_context(c) if isinstance(c, str) else c for c in listed]
    return json.dumps({**document, "@context": inlined}).encode()


def _canonical(triples: Iterable[Any], *, doubles: bool = False) -> set[str]:
    """Triples as canonical N-Triples lines (blank nodes canonicalised). ``doubles``: every
    xsd:double at 16 significant digits, the precision pyld's ``to_rdf`` writes them in (it
    rewrites string-valued doubles too, which JSON-LD 1.1's RDF conversion does not ask)."""
    out = []
    for t in triples:
        obj = t.object
        if doubles and isinstance(obj, ox.Literal) and obj.datatype.value == XSD_DOUBLE:
            obj = ox.Literal(f"{float(obj.value):.15E}", datatype=obj.datatype)
        out.append(ox.Quad(t.subject, t.predicate, obj))
    dataset = ox.Dataset(out)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


def _pyld_triples(document: Any) -> list[Any]:
    options = {"documentLoader": _loader}
    nquads = jsonld.to_rdf(document, {**options, "format": "application/n-quads"})  # expands
    return list(ox.parse(nquads.encode(), format=ox.RdfFormat.N_QUADS))


def _strict_readings(media_type: str, body: bytes, uri: str) -> dict[str, set[str]]:
    """The graph of ``body`` as each strict reader reads it (canonical N-Triples lines; pyld's
    with :func:`_canonical`'s ``doubles``)."""
    oxigraph_format, _ = SYNTAXES[media_type]
    if media_type != "application/ld+json":
        return {"pyoxigraph": _canonical(ox.parse(body, format=oxigraph_format, base_iri=uri))}
    document = json.loads(body)
    strict = ox.parse(_inline_context(document), format=oxigraph_format, base_iri=uri)
    pyld = _canonical(_pyld_triples(document), doubles=True)
    return {"pyoxigraph": _canonical(strict), "pyld": pyld}


def _sample(lines: set[str]) -> str:
    return "; ".join(sorted(lines)[:3])


def _fetch(server, crawl: Crawl, uri: str, media_type: str) -> bytes | None:
    response = server.get(
        uri[len(crawl.base) :], headers={"Accept": media_type}, allow_redirects=True
    )
    if response.status_code != 200:
        crawl.failed[uri] = response.status_code
        return None
    served = response.headers["Content-Type"].split(";")[0].strip()
    if served != media_type:
        crawl.differences.append(f"{uri}: asked for {media_type}, got {served}")
        return None
    return response.content


def _same_graph(one: rdflib.Graph, other: rdflib.Graph) -> bool:
    """rdflib's readings compared: equal sets of triples (documents without blank nodes, most
    of them), else isomorphic: rdflib's triples (as rdflib writes them in N-Triples) in
    canonical form, blank nodes canonicalised by pyoxigraph, the same for both exactly when
    the graphs are isomorphic. rdflib's own isomorphism test on the few documents with blank
    nodes was half of the crawl (1.2 s a pair); on every document, a fifth of it."""
    return set(one) == set(other) or _rdflib_canonical(one) == _rdflib_canonical(other)


def _rdflib_canonical(graph: rdflib.Graph) -> set[str]:
    written = graph.serialize(format="nt", encoding="utf-8")
    return _canonical(ox.parse(written, format=ox.RdfFormat.N_TRIPLES))


def _read(server, crawl: Crawl, uri: str) -> rdflib.Graph | None:
    """Fetch ``uri`` in every syntax (Turtle first) and compare every reading with the
    Turtle's; the Turtle's graph (rdflib), None when it could not be read."""
    reference: rdflib.Graph | None = None
    turtle: list[Any] = []
    for media_type, (_, rdflib_format) in SYNTAXES.items():
        body = _fetch(server, crawl, uri, media_type)
        if body is None:
            return None
        try:
            readings = _strict_readings(media_type, body, uri)
            graph = rdflib.Graph().parse(data=body, format=rdflib_format, publicID=uri)
        except Exception as err:  # a strict reader refused it: that is the finding
            crawl.differences.append(f"{uri}: {media_type} refused: {err!r}"[:500])
            if reference is None:
                return None
            continue
        if reference is None:
            reference = graph
            turtle = list(ox.parse(body, format=ox.RdfFormat.TURTLE, base_iri=uri))
            continue
        if not _same_graph(graph, reference):
            crawl.differences.append(f"{uri}: {media_type} read by rdflib is not the Turtle")
        for reader, lines in readings.items():
            expected = _canonical(turtle, doubles=reader == "pyld")
            if lines != expected:
                crawl.differences.append(
                    f"{uri}: {media_type} read by {reader} differs from the Turtle: "
                    f"only there: {_sample(lines - expected)}; "
                    f"only in Turtle: {_sample(expected - lines)}"
                )
    return reference


# --- the crawl --------------------------------------------------------------------------------


def _iris(graph: rdflib.Graph) -> Iterable[str]:
    for s, p, o in graph:
        yield str(p)
        for term in (s, o):
            if isinstance(term, rdflib.URIRef):
                yield str(term)
            elif isinstance(term, rdflib.Literal) and term.datatype is not None:
                yield str(term.datatype)


def kind_of(base: str, document: str) -> str:
    """A document's kind: its path with the numbers blanked (``experiment/N/task/N``)."""
    return re.sub(r"[0-9]+", "N", document[len(base) :])


class Frontier:
    """The documents still to read, the next one always of the kind read least so far: the
    bound reaches every kind however many experiments the server holds."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.waiting: dict[str, deque[str]] = {}
        self.read: Counter[str] = Counter()
        self.seen: set[str] = set()

    def add(self, document: str) -> None:
        if document not in self.seen:
            self.seen.add(document)
            self.waiting.setdefault(kind_of(self.base, document), deque()).append(document)

    def next(self) -> str | None:
        kinds = [k for k, queue in self.waiting.items() if queue]
        if not kinds:
            return None
        kind = min(kinds, key=lambda k: self.read[k])
        self.read[kind] += 1
        return self.waiting[kind].popleft()


DCAT_DOWNLOAD = "http://www.w3.org/ns/dcat#downloadURL"
VOID_DUMP = "http://rdfs.org/ns/void#dataDump"


def crawl_from(server, starts: list[str]) -> Crawl:
    crawl = Crawl(base=server.url)
    frontier = Frontier(server.url)
    for start in starts:
        frontier.add(start)
    for _ in range(LIMIT):
        document = frontier.next()
        if document is None:
            break
        graph = _read(server, crawl, document)
        if graph is None:
            continue
        crawl.graphs[document] = graph
        # a file's download URL is the file (answers, a dataset), no RDF: not crawled; nor is
        # the store's dump (VoID's void:dataDump: N-Quads or TriG, the whole store)
        files = {
            str(o)
            for term in (DCAT_DOWNLOAD, VOID_DUMP)
            for o in graph.objects(None, rdflib.URIRef(term))
        }
        for iri in _iris(graph):
            if iri.startswith(OUR_NAMESPACES):
                crawl.terms.add(iri)
            if iri.startswith(crawl.base) and iri not in files:
                crawl.named.setdefault(iri, set()).add(document)
                frontier.add(iri.split("#", 1)[0])
    return crawl


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of the crawl's own (the demo experiment published): on the shared one the
    catalogue, the demo system's and dataset's documents grew with whatever the web tests
    before had published, and the crawl took 20 to 48 s by the order the modules ran in."""
    running = start_server(tmp_path_factory.mktemp("crawl-store"))
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def version(site: Server) -> str:
    """A registered dataset version (what ``gerbil-qa dataset refresh --store`` makes)."""
    return site.register_version(
        "crawled-demo", kb="https://dbpedia.org/sparql", version="2025-01"
    )[0]


@pytest.fixture(scope="module")
def crawl(site: Server, version: str) -> Crawl:
    demo = site.url + f"experiment/{site.demo_id}"
    dataset = site.get(f"experiment/{site.demo_id}.csv").text.splitlines()[1].split(",")[2]
    starts = ["catalog", demo, "system/demo-strong", dataset, version, "vocab"]
    return crawl_from(site, [s if s.startswith("http") else site.url + s for s in starts])


def test_the_crawl_reaches_every_kind_of_resource(site: Server, crawl: Crawl) -> None:
    kinds = {kind_of(site.url, d) for d in crawl.graphs}
    assert len(crawl.graphs) > 180, len(crawl.graphs)
    for expected in (
        "catalog",
        "vocab",
        "experiment/N",
        "experiment/N/task/N",
        "experiment/N/task/N/question/N",
        "system/demo-strong",
        "dataset/crawled-demo/version/N-N",
        "dataset/crawled-demo/version/N-N/question/N",
        # the evaluator: its release and commit (0.1.0+g1b1e8455689a), percent-encoded
        kind_of("", "software/" + enc(source().version)),
    ):
        assert expected in kinds, (expected, sorted(kinds))


def test_every_syntax_is_the_same_graph_for_every_reader(crawl: Crawl) -> None:
    assert crawl.differences == []


def test_no_iri_under_the_base_fails_to_dereference(crawl: Crawl) -> None:
    assert crawl.failed == {}


def test_the_home_page_sends_rdf_clients_to_the_catalogue(server) -> None:
    """The catalogue's foaf:homepage is the home page: asked for RDF it answers 303 to the
    catalogue's document, which describes it; browsers get the page."""
    for media_type, extension in (("text/turtle", "ttl"), ("application/ld+json", "jsonld")):
        response = server.get("", headers={"Accept": media_type})
        assert response.status_code == 303, media_type
        assert response.headers["Location"] == f"{server.url}catalog.{extension}"
        assert "Accept" in response.headers["Vary"]
    graph = rdflib.Graph().parse(data=server.get("catalog.ttl").content, format="turtle")
    assert (rdflib.URIRef(server.url), rdflib.RDFS.label, None) in graph
    page = server.get("", headers={"Accept": "text/html,*/*;q=0.8"})
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "Accept" in page.headers["Vary"]
    assert server.get("", headers={"Accept": "image/png"}).status_code == 406


def test_hash_iris_are_described_in_their_document(crawl: Crawl) -> None:
    undescribed = {
        iri: sorted(where)[:2]
        for iri, where in crawl.named.items()
        if "#" in iri
        and (graph := crawl.graphs.get(iri.split("#", 1)[0])) is not None
        and (rdflib.URIRef(iri), None, None) not in graph
    }
    hashes = [iri for iri in crawl.named if "#" in iri]
    assert len(hashes) > 50  # intervals, matches, structures, checksums…
    assert undescribed == {}


# --- our shapes ------------------------------------------------------------------------------

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")


def _turtle_files(directory: Path) -> rdflib.Graph:
    graph = rdflib.Graph()
    for path in sorted(directory.glob("*.ttl")):
        graph.parse(path, format="turtle")
    return graph


@cache
def shapes() -> rdflib.Graph:
    return _turtle_files(SHAPES_DIR)


def shape_results(graph: rdflib.Graph) -> list[tuple[str, str, str, str | None]]:
    """pyshacl with shapes/ over ``graph`` and the vocabulary (code-list members have their
    types there), as ``gerbil-qa check`` runs it: (focus, path, component, class asked)."""
    from service.graph.vocabulary import vocabulary_triples

    data = rdflib.Graph() + graph
    vocabulary = ox.serialize(
        [ox.Triple(q.subject, q.predicate, q.object) for q in vocabulary_triples()],
        format=ox.RdfFormat.N_TRIPLES,
    )
    data.parse(data=vocabulary, format="nt")
    _conforms, report, _ = pyshacl.validate(data, shacl_graph=shapes(), inference="none")
    found = []
    for result in report.objects(None, SH.result):
        shape = report.value(result, SH.sourceShape)
        asked = shapes().value(shape, SH["class"]) if shape is not None else None
        found.append(
            (
                str(report.value(result, SH.focusNode)),
                str(report.value(result, SH.resultPath)),
                str(report.value(result, SH.sourceConstraintComponent)).rsplit("#", 1)[-1],
                str(report.value(result, SH.value)) + " " + str(asked) if asked else None,
            )
        )
    return found


def test_the_served_documents_pass_our_shapes(site: Server, crawl: Crawl) -> None:
    """All the documents read together conform to shapes/, and so does each document read
    alone, one of each kind: it says the types our shapes ask (sh:class) of the resources it
    links to (a task's experiment and system, a question result's task and result set, a
    registered version's evaluator), as a client validating one document needs (explore29 1)."""
    together = rdflib.Graph()
    for graph in crawl.graphs.values():
        together += graph
    assert shape_results(together) == []
    by_kind: dict[str, str] = {}
    for document in crawl.graphs:
        by_kind.setdefault(kind_of(site.url, document), document)
    failing = {
        document: results[:3]
        for document in by_kind.values()
        if (results := shape_results(crawl.graphs[document]))
    }
    assert len(by_kind) > 30
    assert failing == {}


# --- the vocabulary -------------------------------------------------------------------------


@cache
def ontology() -> rdflib.Graph:
    return _turtle_files(ONTOLOGY_DIR)


def undefined(terms: Iterable[str]) -> dict[str, list[str]]:
    """Terms of our namespaces without a definition, a label or a comment in ``ontology/``."""
    graph = ontology()
    missing = {}
    for term in sorted(terms):
        iri = rdflib.URIRef(term)
        lacks = [
            what
            for what, prop in (("label", rdflib.RDFS.label), ("comment", rdflib.RDFS.comment))
            if graph.value(iri, prop) is None
        ]
        if lacks:
            missing[term] = lacks
    return missing


def test_every_term_a_document_uses_is_defined(crawl: Crawl) -> None:
    assert len(crawl.terms) > 80
    assert {"http://w3id.org/gerbil/vocab#statusCode", OUR_NAMESPACES[0] + "Task"} <= crawl.terms
    assert undefined(crawl.terms) == {}


def test_every_term_the_store_holds_is_defined(server) -> None:
    """Private data too (the admin graph, unpublished experiments): the vocabulary documents
    every term it writes, whether the public sees it or not."""
    server.submit_demo(systems=("baseline",))  # a private experiment beside the published one
    used: set[str] = set()
    positions = (
        "{ ?i ?p ?o } UNION { ?s ?i ?o } UNION { ?s ?p ?i } UNION "
        "{ ?s ?p ?l BIND(DATATYPE(?l) AS ?i) }"
    )
    query = (  # named graphs and the default graph (the store's marker, change tokens)
        f"SELECT DISTINCT ?i WHERE {{ {{ GRAPH ?g {{ {positions} }} }} UNION {{ {positions} }} "
        f"FILTER(isIRI(?i) && (STRSTARTS(STR(?i), '{OUR_NAMESPACES[0]}') || "
        f"STRSTARTS(STR(?i), '{OUR_NAMESPACES[1]}'))) }}"
    )
    for store in (server.storage.public, server.storage.private):
        used |= {row[0].value for row in store.query(query)}
    assert OUR_NAMESPACES[0] + "ownerTokenHash" in used  # the admin graph was read
    assert OUR_NAMESPACES[0] + "base" in used  # the store's marker, in the default graph
    assert undefined(used) == {}
