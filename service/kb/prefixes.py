"""The prefixes public KB endpoints predeclare, so gold queries written for them run elsewhere.

QALD gold SPARQL often uses ``dbo:``, ``res:`` or ``wdt:`` without declaring them, because
DBpedia's Virtuoso and the Wikidata Query Service predeclare them. A local Oxigraph store does
not, so :func:`with_default_prefixes` adds a ``PREFIX`` line for each known prefix the query does
not declare itself (unused declarations are harmless in SPARQL 1.1).
"""

from __future__ import annotations

import re

DEFAULT_PREFIXES: dict[str, str] = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "dct": "http://purl.org/dc/terms/",
    "geo": "http://www.w3.org/2003/01/geo/wgs84_pos#",
    "georss": "http://www.georss.org/georss/",
    "prov": "http://www.w3.org/ns/prov#",
    "schema": "http://schema.org/",
    "dbo": "http://dbpedia.org/ontology/",
    "dbp": "http://dbpedia.org/property/",
    "dbr": "http://dbpedia.org/resource/",
    "res": "http://dbpedia.org/resource/",
    "dbc": "http://dbpedia.org/resource/Category:",
    "yago": "http://dbpedia.org/class/yago/",
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/",
    "pq": "http://www.wikidata.org/prop/qualifier/",
    "wikibase": "http://wikiba.se/ontology#",
    "bd": "http://www.bigdata.com/rdf#",
}

_DECLARED = re.compile(r"(?i)\bPREFIX\s+([A-Za-z][\w.-]*)?\s*:")


def declared_prefixes(sparql: str) -> set[str]:
    return {m.group(1) or "" for m in _DECLARED.finditer(sparql)}


def with_default_prefixes(sparql: str) -> str:
    """``sparql`` with a ``PREFIX`` line prepended for each default prefix it does not declare."""
    declared = declared_prefixes(sparql)
    lines = [f"PREFIX {p}: <{ns}>" for p, ns in DEFAULT_PREFIXES.items() if p not in declared]
    return "\n".join([*lines, sparql]) if lines else sparql
