"""Prefixes the lenient dialect accepts without a PREFIX declaration.

The real benchmark queries were written for endpoints that predeclare prefixes: QALD 1–9 and
LC-QuAD for DBpedia's Virtuoso endpoint (its namespace table, ``/sparql?help=nsdecl``), the
QALD-6 data-cube questions for LinkedSpending's Virtuoso endpoint, QALD-7+/QALD-10 Wikidata
questions for the Wikidata Query Service (prefixes listed in the WDQS user manual). A query
that uses one of these prefixes undeclared meant exactly this namespace, so the lenient
dialect reads it so and records a leniency. The strict dialect knows none of them.

Where two endpoints disagree, the DBpedia binding wins: ``geo`` is WGS84 on DBpedia but
GeoSPARQL on WDQS, and every undeclared ``geo:`` in the data is a DBpedia query (the Wikidata
queries of QALD-7/8/10 declare all their prefixes).
"""

from __future__ import annotations

_DBPEDIA = "DBpedia's Virtuoso endpoint"
_WDQS = "the Wikidata Query Service"
_LINKEDSPENDING = "LinkedSpending's Virtuoso endpoint, QALD-6 data cubes"
_QALD = "the QALD datasets' own convention for DBpedia resources"

# prefix -> (namespace IRI, who predeclares it)
PREDECLARED: dict[str, tuple[str, str]] = {
    # W3C vocabularies (predeclared on both DBpedia and WDQS)
    "rdf": ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", _DBPEDIA),
    "rdfs": ("http://www.w3.org/2000/01/rdf-schema#", _DBPEDIA),
    "xsd": ("http://www.w3.org/2001/XMLSchema#", _DBPEDIA),
    "owl": ("http://www.w3.org/2002/07/owl#", _DBPEDIA),
    "skos": ("http://www.w3.org/2004/02/skos/core#", _DBPEDIA),
    "prov": ("http://www.w3.org/ns/prov#", _DBPEDIA),
    "sd": ("http://www.w3.org/ns/sparql-service-description#", _DBPEDIA),
    "xml": ("http://www.w3.org/XML/1998/namespace", _DBPEDIA),
    "fn": ("http://www.w3.org/2005/xpath-functions/#", _DBPEDIA),
    "vcard": ("http://www.w3.org/2001/vcard-rdf/3.0#", _DBPEDIA),
    "vcard2006": ("http://www.w3.org/2006/vcard/ns#", _DBPEDIA),
    # DBpedia
    "dbo": ("http://dbpedia.org/ontology/", _DBPEDIA),
    "dbp": ("http://dbpedia.org/property/", _DBPEDIA),
    "dbr": ("http://dbpedia.org/resource/", _DBPEDIA),
    "dbc": ("http://dbpedia.org/resource/Category:", _DBPEDIA),
    "dbpedia": ("http://dbpedia.org/resource/", _DBPEDIA),
    "dbpedia-owl": ("http://dbpedia.org/ontology/", _DBPEDIA),
    "dbpprop": ("http://dbpedia.org/property/", _DBPEDIA),
    "yago": ("http://dbpedia.org/class/yago/", _DBPEDIA),
    "yago-res": ("http://yago-knowledge.org/resource/", _DBPEDIA),
    "res": ("http://dbpedia.org/resource/", _QALD),
    # Other vocabularies on DBpedia's endpoint
    "foaf": ("http://xmlns.com/foaf/0.1/", _DBPEDIA),
    "dc": ("http://purl.org/dc/elements/1.1/", _DBPEDIA),
    "dct": ("http://purl.org/dc/terms/", _DBPEDIA),
    "dcterms": ("http://purl.org/dc/terms/", _DBPEDIA),
    "geo": ("http://www.w3.org/2003/01/geo/wgs84_pos#", _DBPEDIA),
    "georss": ("http://www.georss.org/georss/", _DBPEDIA),
    "schema": ("http://schema.org/", _DBPEDIA),
    "sioc": ("http://rdfs.org/sioc/ns#", _DBPEDIA),
    "void": ("http://rdfs.org/ns/void#", _DBPEDIA),
    "gml": ("http://www.opengis.net/gml/", _DBPEDIA),
    "wikidata": ("http://www.wikidata.org/entity/", _DBPEDIA),
    # LinkedSpending (RDF Data Cube)
    "qb": ("http://purl.org/linked-data/cube#", _LINKEDSPENDING),
    "ls": ("http://linkedspending.aksw.org/instance/", _LINKEDSPENDING),
    "lso": ("http://linkedspending.aksw.org/ontology/", _LINKEDSPENDING),
    # Wikidata Query Service
    "wd": ("http://www.wikidata.org/entity/", _WDQS),
    "wds": ("http://www.wikidata.org/entity/statement/", _WDQS),
    "wdv": ("http://www.wikidata.org/value/", _WDQS),
    "wdt": ("http://www.wikidata.org/prop/direct/", _WDQS),
    "wdtn": ("http://www.wikidata.org/prop/direct-normalized/", _WDQS),
    "wikibase": ("http://wikiba.se/ontology#", _WDQS),
    "p": ("http://www.wikidata.org/prop/", _WDQS),
    "ps": ("http://www.wikidata.org/prop/statement/", _WDQS),
    "psv": ("http://www.wikidata.org/prop/statement/value/", _WDQS),
    "psn": ("http://www.wikidata.org/prop/statement/value-normalized/", _WDQS),
    "pq": ("http://www.wikidata.org/prop/qualifier/", _WDQS),
    "pqv": ("http://www.wikidata.org/prop/qualifier/value/", _WDQS),
    "pqn": ("http://www.wikidata.org/prop/qualifier/value-normalized/", _WDQS),
    "pr": ("http://www.wikidata.org/prop/reference/", _WDQS),
    "prv": ("http://www.wikidata.org/prop/reference/value/", _WDQS),
    "prn": ("http://www.wikidata.org/prop/reference/value-normalized/", _WDQS),
    "wdno": ("http://www.wikidata.org/prop/novalue/", _WDQS),
    "wdref": ("http://www.wikidata.org/reference/", _WDQS),
    "wdata": ("http://www.wikidata.org/wiki/Special:EntityData/", _WDQS),
    "bd": ("http://www.bigdata.com/rdf#", _WDQS),
    "hint": ("http://www.bigdata.com/queryHints#", _WDQS),
    "gas": ("http://www.bigdata.com/rdf/gas#", _WDQS),
    "geof": ("http://www.opengis.net/def/geosparql/function/", _WDQS),
    "mwapi": ("https://www.mediawiki.org/ontology#API/", _WDQS),
    "ontolex": ("http://www.w3.org/ns/lemon/ontolex#", _WDQS),
    "cc": ("http://creativecommons.org/ns#", _WDQS),
}
