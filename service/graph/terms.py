"""Namespaces and N-Triples spelling of RDF terms, for the writers.

The writers build N-Triples/SPARQL text rather than pyoxigraph objects: one SPARQL Update request
is one transaction in Oxigraph (and in any SPARQL 1.1 store, which keeps a remote store possible),
and formatting strings is cheaper than building millions of term objects. Untrusted IRIs (answers
from files) are checked with pyoxigraph before they are spelled as IRIs.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from decimal import Decimal

from service.graph.uris import GERBIL, GQA
from service.model import Term, TermKind

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

_LANG_TAG = re.compile(r"^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$")
_SAFE_IRI = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>\"{}|\\^`\x00-\x20]*$")


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


def is_valid_iri(value: str) -> bool:
    """True when ``value`` is an absolute IRI an RDF store accepts (checked by pyoxigraph)."""
    if not _SAFE_IRI.match(value):
        return False
    import pyoxigraph

    try:
        pyoxigraph.NamedNode(value)
    except ValueError:
        return False
    return True


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def literal(value: str, *, datatype: str | None = None, lang: str | None = None) -> str:
    """An N-Triples literal; an invalid language tag is normalised (``pt_BR`` -> ``pt-BR``)."""
    text = f'"{_escape(value)}"'
    if lang:
        tag = language_tag(lang)
        if tag:
            return f"{text}@{tag}"
    if datatype and datatype != XSD + "string":
        return f"{text}^^<{datatype}>"
    return text


def language_tag(raw: str) -> str | None:
    tag = raw.strip().replace("_", "-")
    return tag if _LANG_TAG.match(tag) else None


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


def answer_term(term: Term) -> str:
    """An answer (system or gold) as an N-Triples term; an invalid IRI becomes a plain literal."""
    if term.kind is TermKind.IRI:
        value = term.value.strip()
        if value.startswith("<") and value.endswith(">"):
            value = value[1:-1]  # seen in QALD-7 hybrid: "<http://…>" as a uri value
        return iri(value) if is_valid_iri(value) else literal(term.value)
    if term.kind is TermKind.BNODE:
        return literal(term.value)
    if term.datatype and not is_valid_iri(term.datatype):
        return literal(term.value)
    return literal(term.value, datatype=term.datatype, lang=term.lang)


def displayed_term(text: str) -> str:
    """A compared item as the profile displays it (``<iri>``, ``"x"@en``…) back to a term.

    Anything that does not read as an N-Triples IRI or literal is kept as a plain literal.
    """
    m = NT_TERM.match(text)
    if not m:
        return literal(text)
    if m.group("iri") is not None:
        return iri(m.group("iri")) if is_valid_iri(m.group("iri")) else literal(text)
    lex = re.sub(r"\\(.)", lambda x: {"n": "\n", "r": "\r", "t": "\t"}.get(x[1], x[1]), m["lex"])
    dt = m.group("dt")
    if dt and not is_valid_iri(dt):
        return literal(text)
    return literal(lex, datatype=dt, lang=m.group("lang"))
