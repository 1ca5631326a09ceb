"""Writing RDF for the web: pyoxigraph for Turtle, N-Triples, RDF/XML, N-Quads and TriG; our
one-pass writer (``jsonld_out.py``) for JSON-LD compacted with our published ``@context``
(served at ``{base}context.jsonld``).

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


# Properties whose declared range is a type derived from xsd:integer. Oxigraph stores every
# integer as xsd:integer (``"390731"^^xsd:nonNegativeInteger`` comes back as xsd:integer), so
# the writers give these their declared type back (DCAT-AP checks dcat:byteSize's datatype).
DECLARED_INTEGER_TYPES = {
    "http://www.w3.org/ns/dcat#byteSize": "http://www.w3.org/2001/XMLSchema#nonNegativeInteger",
}
XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


def with_declared_types(items: list[Any]) -> list[Any]:
    """``items`` (quads or triples) with the values of :data:`DECLARED_INTEGER_TYPES` typed as
    declared (values that do not fit the type are left alone)."""
    import pyoxigraph as ox

    declared = _declared()
    hits = [i for i, q in enumerate(items) if q.predicate in declared]
    if not hits:
        return items
    out = list(items)
    for i in hits:
        q = out[i]
        obj = q.object
        if type(obj) is ox.Literal and obj.datatype.value == XSD_INTEGER and obj.value[0] != "-":
            typed = ox.Literal(obj.value, datatype=declared[q.predicate])
            if type(q) is ox.Triple:
                out[i] = ox.Triple(q.subject, q.predicate, typed)
            else:
                out[i] = ox.Quad(q.subject, q.predicate, typed, q.graph_name)
    return out


@cache
def _declared() -> dict[Any, Any]:
    import pyoxigraph as ox

    return {ox.NamedNode(p): ox.NamedNode(t) for p, t in DECLARED_INTEGER_TYPES.items()}


@cache
def _declared_markers() -> tuple[bytes, ...]:
    """The declared-type properties as N-Triples writes them (``<iri>``)."""
    return tuple(f"<{p}>".encode() for p in DECLARED_INTEGER_TYPES)


PREFIXED = frozenset({mediatypes.TURTLE.name, mediatypes.TRIG.name, mediatypes.RDF_XML.name})


def serialize(quads: Iterable[Any], syntax: mediatypes.RdfSyntax, *, context_url: str) -> bytes:
    """Write pyoxigraph ``Quad``s in ``syntax``; graph names are dropped for triple syntaxes.

    Every term is handled by Oxigraph: the items' N-Triples (N-Quads) text, written once,
    tells which properties need their declared type and which prefixes are used (and is the
    answer when N-Triples or N-Quads was asked for); Python touches no term of an item."""
    import pyoxigraph as ox

    items = quads if isinstance(quads, list) else list(quads)
    if syntax.name == mediatypes.JSON_LD.name:
        return _jsonld(with_declared_types(items), context_url=context_url)
    # Triples from several graphs can repeat; a graph is a set. (``Quad.triple`` is one call
    # into Oxigraph; rebuilding a Triple from its three terms cost 6x more.)
    data: list[Any] = items if syntax.quads else list(dict.fromkeys(q.triple for q in items))
    lines_format = ox.RdfFormat.N_QUADS if syntax.quads else ox.RdfFormat.N_TRIPLES
    lines = _bytes(ox.serialize(data, format=lines_format))
    if any(marker in lines for marker in _declared_markers()):
        typed = with_declared_types(data)
        if typed is not data:
            data = typed
            lines = _bytes(ox.serialize(data, format=lines_format))
    if syntax.oxigraph_format() == lines_format:
        return lines
    kwargs: dict[str, Any] = {}
    if syntax.name in PREFIXED:
        kwargs["prefixes"] = _prefixes_in(lines)
    body = _bytes(ox.serialize(data, format=syntax.oxigraph_format(), **kwargs))
    if syntax.oxigraph_format() != ox.RdfFormat.RDF_XML:
        return body
    body = xml_safe(body)
    refuse_ill_formed(body)
    return body


# What XML 1.0 cannot carry (§2.2 Char), as UTF-8: a C0 control but tab, LF and CR (bytes no
# multi-byte sequence holds), U+FFFE and U+FFFF. Oxigraph's XML writers write them raw.
_NOT_XML_BYTES = rb"[\x00-\x08\x0b\x0c\x0e-\x1f]|\xef\xbf[\xbe\xbf]"


def refuse_ill_formed(body: bytes) -> None:
    """A CONSTRUCT or DESCRIBE whose triples RDF/XML cannot write (a predicate IRI ending in
    no XML name, ``<http://e.org/p/>``: Oxigraph wrote an element ``oxprefix:`` and a 200 no
    XML client could read; explore31 F16) is a 406 offering the other syntaxes."""
    import xml.parsers.expat

    from service.errors import ServiceError

    try:
        xml.parsers.expat.ParserCreate(namespace_separator=" ").Parse(body, True)  # XML Namespaces
    except xml.parsers.expat.ExpatError as err:
        raise ServiceError(
            "this result cannot be written as RDF/XML (a predicate IRI that ends in no XML "
            f"name, such as one ending in '/' or '#': {err}); ask for Turtle, N-Triples or "
            "JSON-LD",
            status=406,
        ) from None


def xml_safe(body: bytes) -> bytes:
    """An RDF/XML document or SPARQL XML result with U+FFFD for each character XML cannot
    carry: the store holds none (README "Only valid terms are stored"), but a store written
    before may, and a query can make one (``SELECT ("a\\u0000b" AS ?x) {}``); written raw, they
    made the whole document not well-formed for every XML client."""
    import re

    return re.sub(_NOT_XML_BYTES, "\ufffd".encode(), body)


def _bytes(out: bytes | None) -> bytes:
    """pyoxigraph's ``serialize`` without an ``output`` returns the bytes (never None)."""
    if out is None:
        raise RuntimeError("pyoxigraph.serialize wrote to an output instead of returning bytes")
    return out


def _prefixes_in(lines: bytes) -> dict[str, str]:
    """The prefixes used in N-Triples (N-Quads) text ``lines``, where every IRI is written
    ``<…>``: a substring search per prefix, instead of visiting each term in Python (which
    cost more than the rest of writing an experiment's Turtle). A literal containing
    ``<namespace`` text can add a prefix that is not needed, which is harmless."""
    return {name: ns for name, ns in prefixes().items() if f"<{ns}".encode() in lines}


def _jsonld(quads: list[Any], *, context_url: str) -> bytes:
    from service.web.jsonld_out import write_jsonld

    return write_jsonld(quads, context_url=context_url, prefixes=prefixes())
