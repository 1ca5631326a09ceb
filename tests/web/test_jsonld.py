"""Served JSON-LD read by pyld, the JSON-LD reference processor (issue 9 item 2): every kind of
document, with the context fetched from the service over HTTP, expands to the same triples as
the Turtle of the same URI; compacting the expansion again with pyld reads back the same.
(rdflib reads every syntax of these documents as the same graph: ``test_conneg.py``.)"""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox
import pytest
import requests
from pyld import jsonld

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def paths(server) -> list[str]:
    demo = server.demo_id
    dataset = server.get(f"experiment/{demo}.csv").text.splitlines()[1].split(",")[2]
    dataset = dataset.replace(server.url, "")
    return [
        f"experiment/{demo}",
        f"experiment/{demo}/task/2",
        f"experiment/{demo}/task/1/question/5",
        dataset,
        f"{dataset}/question/3",
        "system/demo-strong",
        "catalog",
        "vocab",
        f"graph/experiment/{demo}",
    ]


def _loader(url: str, options: Any = None) -> dict[str, Any]:
    response = requests.get(url, headers={"Accept": "application/ld+json"}, timeout=30)
    response.raise_for_status()
    return {"contextUrl": None, "documentUrl": url, "document": response.json()}


def _canonical(quads: Any) -> set[str]:
    dataset = ox.Dataset(ox.Quad(q.subject, q.predicate, q.object) for q in quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    return {str(q) for q in dataset}


def _node(value: str) -> Any:
    return ox.BlankNode(value[2:]) if value.startswith("_:") else ox.NamedNode(value)


def _pyld_triples(document: Any) -> set[str]:
    """The triples of pyld's expansion of ``document``, read off the expanded node objects.
    (pyld's ``to_rdf`` rewrites every xsd:double to 15 significant digits, a bug of its own,
    so the expansion is read here.)"""
    triples = []
    for node in jsonld.expand(document, {"documentLoader": _loader}):
        subject = _node(node["@id"])
        for kind in node.get("@type", []):
            triples.append(ox.Triple(subject, ox.NamedNode(RDF_TYPE), _node(kind)))
        for key, values in node.items():
            if key.startswith("@"):
                continue
            for value in values:
                if "@id" in value:
                    obj = _node(value["@id"])
                elif "@language" in value:
                    obj = ox.Literal(value["@value"], language=value["@language"])
                elif "@type" in value:
                    obj = ox.Literal(value["@value"], datatype=ox.NamedNode(value["@type"]))
                else:
                    obj = ox.Literal(value["@value"])
                triples.append(ox.Triple(subject, ox.NamedNode(key), obj))
    return _canonical(triples)


@pytest.mark.parametrize("index", range(9))
def test_pyld_reads_what_turtle_says(server, index: int) -> None:
    path = paths(server)[index]
    served = server.get(path, headers={"Accept": "application/ld+json"})
    assert served.status_code == 200, (path, served.text[:300])
    document = served.json()
    assert document["@context"] == server.url + "context.jsonld"
    turtle = server.get(path, headers={"Accept": "text/turtle"})
    expected = _canonical(ox.parse(turtle.content, format=ox.RdfFormat.TURTLE))
    assert len(expected) > 3
    assert _pyld_triples(document) == expected, path
    options = {"documentLoader": _loader}
    again = jsonld.compact(jsonld.expand(document, options), server.url + "context.jsonld", options)
    assert _pyld_triples(again) == expected, path
