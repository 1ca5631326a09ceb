"""Namespaces and N-Triples spelling of RDF terms, for the writers.

The writers build N-Triples/SPARQL text rather than pyoxigraph objects: one SPARQL Update request
is one transaction in Oxigraph (and in any SPARQL 1.1 store, which keeps a remote store possible),
and formatting strings is cheaper than building millions of term objects. Every term is checked
by :mod:`service.valid_terms` before it is spelled.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from service.graph.uris import GERBIL, GQA
from service.model import Term
from service.valid_terms import is_valid_iri, language_tag, valid_term

__all__ = ["is_valid_iri", "language_tag"]  # re-exported: the writers' one validity check

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
OWL = "http://www.w3.org/2002/07/owl#"
QB = "http://purl.org/linked-data/cube#"
PROV = "http://www.w3.org/ns/prov#"
DCAT = "http://www.w3.org/ns/dcat#"
DCT = "http://purl.org/dc/terms/"
DATAID = "http://dataid.dbpedia.org/ns/core#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
SPDX = "http://spdx.org/rdf/terms#"
VOID = "http://rdfs.org/ns/void#"
FOAF = "http://xmlns.com/foaf/0.1/"
SCHEMA = "https://schema.org/"  # an evaluator's schema:codeRepository (service/graph/prov.py)
HYDRA = "http://www.w3.org/ns/hydra/core#"  # the catalogue's paging (service/web/catalog_pages.py)
LANGUAGE_ISO639_1 = "http://id.loc.gov/vocabulary/iso639-1/"
LANGUAGE_ISO639_2 = "http://id.loc.gov/vocabulary/iso639-2/"

PREFIXES: dict[str, str] = {
    "gqa": GQA,
    "gerbil": GERBIL,
    "qb": QB,
    "prov": PROV,
    "dcat": DCAT,
    "dct": DCT,
    "dataid": DATAID,
    "skos": SKOS,
    "spdx": SPDX,
    "rdf": RDF,
    "rdfs": RDFS,
    "owl": OWL,
    "xsd": XSD,
    "void": VOID,
    "foaf": FOAF,
}


def measure_iri(name: str) -> str:
    """The property of a measure by its canonical camelCase name (``microF1`` -> gerbil:microF1,
    as the measures registry says); ``KeyError`` for a name the registry does not know."""
    from service.evaluation.measures import MEASURES, QUESTION_MEASURES

    return (QUESTION_MEASURES.get(name) or MEASURES[name]).iri


def measure_name(iri: str) -> str | None:
    for ns in (GERBIL, GQA):
        if iri.startswith(ns):
            return iri[len(ns) :]
    return None


def iri(value: str) -> str:
    """``<value>`` for an IRI we minted or read from our own files (trusted)."""
    return f"<{value}>"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def literal(value: str, *, datatype: str | None = None, lang: str | None = None) -> str:
    """An N-Triples literal, valid for a strict parser: what is not valid is mapped by the rule
    of :mod:`service.valid_terms` (``pt_BR`` -> ``pt-BR``, an ill-typed value -> a plain one)."""
    stored = valid_term(Term.literal(value, datatype=datatype, lang=lang)).term
    text = f'"{_escape(stored.value)}"'
    if stored.lang:
        return f"{text}@{stored.lang}"
    if stored.datatype and stored.datatype != XSD + "string":
        return f"{text}^^<{stored.datatype}>"
    return text


def boolean(value: bool) -> str:
    return f'"{"true" if value else "false"}"^^<{XSD}boolean>'


def integer(value: int) -> str:
    return f'"{int(value)}"^^<{XSD}integer>'


def double(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"not a finite number: {value!r}")
    return f'"{float(value)!r}"^^<{XSD}double>'


def decimal(value: float | int | Decimal) -> str:
    text = format(Decimal(repr(value)) if isinstance(value, float) else Decimal(value), "f")
    return f'"{text}"^^<{XSD}decimal>'


def number(value: float | int, datatype: str) -> str:
    """A measure value in the measure's declared datatype (its ``rdfs:range``)."""
    if datatype == XSD + "integer":
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"{value!r} is not an integer")
        return integer(int(value))
    if datatype == XSD + "decimal":
        return decimal(value)
    if datatype == XSD + "boolean":
        return boolean(bool(value))
    return double(float(value))


def date_time(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return f'"{value.isoformat()}"^^<{XSD}dateTime>'


def language_iri(code: str) -> str | None:
    """ISO 639 IRI of the Library of Congress for a language code (``en``, ``pt_BR`` -> pt)."""
    primary = code.strip().replace("_", "-").split("-")[0].lower()
    if re.fullmatch(r"[a-z]{2}", primary):
        return LANGUAGE_ISO639_1 + primary
    if re.fullmatch(r"[a-z]{3}", primary):
        return LANGUAGE_ISO639_2 + primary
    return None


NT_TERM = re.compile(
    r'^(?:<(?P<iri>[^<>"\s]*)>|"(?P<lex>(?:[^"\\]|\\.)*)"(?:@(?P<lang>[A-Za-z0-9-]+)|\^\^<(?P<dt>[^<>\s]*)>)?)$'
)


def insert_quads(quads: Sequence[Any], *, where: str | None = None) -> str:
    """``INSERT DATA`` of pyoxigraph quads, grouped by graph (their str() is N-Triples syntax);
    a blank node label names one node across the whole request. With ``where`` (a group
    pattern), ``INSERT … WHERE``: the quads are added once if the pattern matches when the
    update runs, else nothing is (a write's precondition, checked in its transaction)."""
    from pyoxigraph import DefaultGraph

    by_graph: dict[Any, list[str]] = {}
    for q in quads:
        by_graph.setdefault(q.graph_name, []).append(f"{q.subject} {q.predicate} {q.object} .")
    parts = []
    for graph, lines in by_graph.items():
        body = "\n".join(lines)
        parts.append(body if isinstance(graph, DefaultGraph) else f"GRAPH {graph} {{\n{body}\n}}")
    template = "{\n" + "\n".join(parts) + "\n}"
    if where is None:
        return "INSERT DATA " + template
    return f"INSERT {template}\nWHERE {{ FILTER EXISTS {{ {where} }} }}"
