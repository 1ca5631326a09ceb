"""Writing RDF for the web: pyoxigraph for Turtle, N-Triples, RDF/XML, N-Quads and TriG; pyld
for JSON-LD compacted with our published ``@context`` (served at ``{base}context.jsonld``).

All syntaxes are written from the same list of quads, so the Turtle, JSON-LD and RDF/XML of a
resource are the same graph (tests check it with rdflib's ``isomorphic``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from service import mediatypes

CONTEXT_PATH = "context.jsonld"


@cache
def context_document() -> dict[str, Any]:
    """The published JSON-LD context (package data ``service/web/context.json``)."""
    text = resources.files("service.web").joinpath("context.json").read_text("utf-8")
    return json.loads(text)


@cache
def prefixes() -> dict[str, str]:
    """Prefix -> namespace, from the context (one list for Turtle and JSON-LD)."""
    return {k: v for k, v in context_document()["@context"].items() if isinstance(v, str)}


def serialize(quads: Iterable[Any], syntax: mediatypes.RdfSyntax, *, context_url: str) -> bytes:
    """Write pyoxigraph ``Quad``s in ``syntax``; graph names are dropped for triple syntaxes."""
    import pyoxigraph as ox

    items = list(quads)
    if syntax.name == mediatypes.JSON_LD.name:
        return _jsonld(items, context_url=context_url)
    if syntax.quads:
        data: list[Any] = items
    else:
        # Triples from several graphs can repeat; a graph is a set.
        data = list(dict.fromkeys(ox.Triple(q.subject, q.predicate, q.object) for q in items))
    kwargs: dict[str, Any] = {}
    if syntax.name in (mediatypes.TURTLE.name, mediatypes.TRIG.name, mediatypes.RDF_XML.name):
        kwargs["prefixes"] = used_prefixes(data, quads=syntax.quads)
    return ox.serialize(data, format=syntax.oxigraph_format(), **kwargs)


def used_prefixes(items: list[Any], *, quads: bool = False) -> dict[str, str]:
    """The prefixes whose namespace some IRI of ``items`` (triples, or ``quads``) starts with,
    so that no unused prefix is declared. Found in the items' N-Triples (N-Quads) text, where
    every IRI is written ``<…>``: one serialisation in Oxigraph and a substring search per
    prefix, instead of visiting each term in Python (which cost more than the rest of writing
    an experiment's Turtle). A literal containing ``<namespace`` text can add a prefix that is
    not needed, which is harmless."""
    import pyoxigraph as ox

    text = ox.serialize(items, format=ox.RdfFormat.N_QUADS if quads else ox.RdfFormat.N_TRIPLES)
    return {name: ns for name, ns in prefixes().items() if f"<{ns}".encode() in text}


def _jsonld(quads: list[Any], *, context_url: str) -> bytes:
    import pyoxigraph as ox
    from pyld import jsonld

    triples = list(dict.fromkeys(ox.Triple(q.subject, q.predicate, q.object) for q in quads))
    nquads = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).decode("utf-8")
    expanded = jsonld.from_rdf(nquads, {"format": "application/n-quads"})
    # Compact against the context held in memory (no fetch), then point at its stable URL.
    compacted = jsonld.compact(expanded, context_document())
    compacted["@context"] = context_url
    return json.dumps(compacted, ensure_ascii=False, indent=2).encode("utf-8")
