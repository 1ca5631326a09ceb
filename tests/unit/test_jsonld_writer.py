"""Our one-pass JSON-LD writer (``service/web/jsonld_out.py``) against pyld, the reference:
the same compacted document as pyld's ``from_rdf`` + ``compact`` (on our vocabulary, the
catalogue and crafted edge cases), the same RDF when pyld expands it, and a document pyld
itself refuses to write (an IRI mistaken for a compact IRI) still reads back right."""

from __future__ import annotations

import json
from typing import Any

import pyoxigraph as ox
import pytest
from pyld import jsonld

from service.web.jsonld_out import write_jsonld
from service.web.rdf_out import context_document, prefixes

CONTEXT_URL = "http://gerbil-qa.test/context.jsonld"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
GQA = "http://w3id.org/gerbil/qa/vocab#"
EX = "http://example.org/"


def _loader(url: str, options: Any = None) -> dict[str, Any]:
    assert url == CONTEXT_URL, url
    return {"contextUrl": None, "documentUrl": url, "document": context_document()}


def ours(triples: list[Any]) -> dict[str, Any]:
    return json.loads(write_jsonld(triples, context_url=CONTEXT_URL, prefixes=prefixes()))


def pylds(triples: list[Any]) -> dict[str, Any]:
    """What the service wrote before: pyld's from_rdf, then compact with the context."""
    nquads = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).decode("utf-8")
    expanded = jsonld.from_rdf(nquads, {"format": "application/n-quads"})
    compacted = jsonld.compact(expanded, context_document())
    compacted["@context"] = CONTEXT_URL
    return compacted


def read_back(document: dict[str, Any]) -> set[str]:
    """The triples pyld reads from ``document`` (blank nodes canonically named)."""
    text = jsonld.to_rdf(document, {"format": "application/n-quads", "documentLoader": _loader})
    dataset = ox.Dataset(ox.parse(text.encode("utf-8"), format=ox.RdfFormat.N_QUADS))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


def canonical(triples: list[Any]) -> set[str]:
    dataset = ox.Dataset(ox.Quad(t.subject, t.predicate, t.object) for t in triples)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


def T(s: Any, p: str, o: Any) -> ox.Triple:
    return ox.Triple(s if not isinstance(s, str) else ox.NamedNode(s), ox.NamedNode(p), o)


def crafted() -> list[ox.Triple]:
    exp, b = ox.NamedNode(EX + "experiment/1"), ox.BlankNode("b1")
    lit, iri = ox.Literal, ox.NamedNode
    return [
        T(exp, RDF + "type", iri(GQA + "Experiment")),
        T(exp, RDF + "type", iri("http://www.w3.org/ns/prov#Activity")),
        T(exp, RDF + "type", b),
        T(exp, RDF + "type", lit("not a class")),
        T(exp, "http://www.w3.org/2000/01/rdf-schema#label", lit("Expérience", language="fr")),
        T(exp, "http://www.w3.org/2000/01/rdf-schema#label", lit("Experiment", language="en")),
        T(exp, GQA + "count", lit("5", datatype=iri(XSD + "integer"))),
        T(exp, GQA + "note", lit('a "quoted"\nline')),
        T(exp, GQA + "note", lit("")),
        T(exp, GQA + "points", b),
        T(b, GQA + "to", iri(EX + "other")),
        T(exp, "http://unknown.org/p", lit("t", datatype=iri("http://unknown.org/dt"))),
        T(exp, GQA + "namespace", iri(GQA)),  # the namespace IRI itself
        T(exp, GQA + "slashes", iri("http://purl.org/dc/terms//x")),  # no dct://x
        T(exp, GQA + "nested", iri("http://purl.org/dc/terms/a/b")),  # dct:a/b
        T(EX + "lone", GQA + "x", lit("1", datatype=iri(XSD + "boolean"))),
    ]


def vocabulary() -> list[Any]:
    from service.graph.vocabulary import vocabulary_triples

    return list(vocabulary_triples())


def catalogue() -> list[Any]:
    from service.catalog import catalog_quads
    from service.graph.uris import Uris

    uris = Uris("http://gerbil-qa.test/")
    return [ox.Triple(q.subject, q.predicate, q.object) for q in catalog_quads(uris, uris.base)]


SOURCES = {"crafted": crafted, "vocabulary": vocabulary, "catalogue": catalogue}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_same_document_as_pyld(name: str) -> None:
    triples = SOURCES[name]()
    assert ours(triples) == pylds(triples)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_pyld_reads_back_the_same_triples(name: str) -> None:
    triples = SOURCES[name]()
    assert read_back(ours(triples)) == canonical(triples)


def test_one_node_is_the_document_itself() -> None:
    triples = [T(EX + "a", GQA + "x", ox.Literal("1"))]
    assert ours(triples) == {"@context": CONTEXT_URL, "@id": EX + "a", "gqa:x": "1"}


def test_iris_that_read_as_compact_iris_switch_their_prefix_off() -> None:
    """A system's answer ``owl:sameAs`` is an IRI of scheme ``owl``: under the context it
    would read as a compact IRI. pyld refuses to write it; we switch ``owl`` off."""
    triples = [
        T(EX + "r", GQA + "answer", ox.NamedNode("owl:sameAs")),
        T(EX + "r", "http://www.w3.org/2002/07/owl#sameAs", ox.NamedNode(EX + "s")),
        T(EX + "r", "http://www.w3.org/2000/01/rdf-schema#seeAlso", ox.NamedNode("rdfs:x")),
        T(EX + "r", GQA + "typed", ox.Literal("1", datatype=ox.NamedNode("xsd:odd"))),
    ]
    with pytest.raises(jsonld.JsonLdError):
        pylds(triples)
    document = ours(triples)
    assert document["@context"] == [CONTEXT_URL, {"owl": None, "rdfs": None, "xsd": None}]
    assert document["gqa:answer"] == {"@id": "owl:sameAs"}
    assert "http://www.w3.org/2002/07/owl#sameAs" in document
    assert read_back(document) == canonical(triples)


def test_rdflib_reads_the_same_graph() -> None:
    import rdflib

    triples = crafted() + vocabulary()
    text = json.dumps(ours(triples)).replace(
        json.dumps(CONTEXT_URL), json.dumps(context_document()["@context"])
    )
    parsed = rdflib.Graph().parse(data=text, format="json-ld")
    reference = rdflib.Graph().parse(
        data=ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES), format="nt"
    )
    from rdflib.compare import isomorphic

    assert isomorphic(parsed, reference)
