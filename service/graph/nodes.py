"""pyoxigraph terms for the writers, built directly (no text to parse) with repeated ones cached.

Writing a 400-question experiment makes ~6,500 quads; building them as pyoxigraph objects and
handing them to ``Store.extend`` (one transaction) skips formatting and re-parsing SPARQL Update
text, and the vocabulary IRIs, statuses and common measure values are built once. The text
helpers of :mod:`service.graph.terms` stay for SPARQL strings.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad

from service.errors import BadRequest
from service.graph import terms as t
from service.graph.terms import XSD
from service.model import Term, TermKind
from service.valid_terms import is_valid_iri, valid_term

__all__ = ["BlankNode", "DefaultGraph", "Literal", "NamedNode", "Quad"]

XSD_STRING = XSD + "string"
# what no format a user's text is shown in holds as text (XML 1.0 has no C0 control; C1, DEL
# and the non-characters are discouraged): whitespace among them is folded before this is checked
_NOT_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def refuse_non_text(text: str, what: str) -> None:
    """BadRequest naming ``what`` when ``text`` (whitespace folded) holds a control character:
    stored, it made every RDF/XML holding it not well-formed XML."""
    if bad := _NOT_TEXT.search(text):
        raise BadRequest(f"{what} holds a control character (U+{ord(bad.group()):04X}); send text")


@lru_cache(maxsize=1 << 16)
def node(value: str) -> NamedNode:
    """A NamedNode for an IRI we minted or read from our own files (cached: vocabulary terms,
    systems, datasets and questions recur in every experiment)."""
    return NamedNode(value)


@lru_cache(maxsize=64)
def _datatype(value: str) -> NamedNode:
    return NamedNode(value)


def literal(value: str, *, datatype: str | None = None, lang: str | None = None) -> Literal:
    """A literal a strict parser accepts: what is not valid is mapped by the rule of
    :mod:`service.valid_terms` (``pt_BR`` -> ``pt-BR``, ``"1920-10-8"^^xsd:date`` ->
    ``"1920-10-08"^^xsd:date``, ``rdf:langString`` without a language -> ``xsd:string``)."""
    return _literal(valid_term(Term.literal(value, datatype=datatype, lang=lang)).term)


def _literal(term: Term) -> Literal:
    """The pyoxigraph literal of a term :func:`valid_term` returned."""
    if term.lang:
        return Literal(term.value, language=term.lang)
    if term.datatype and term.datatype != XSD_STRING:
        return Literal(term.value, datatype=_datatype(term.datatype))
    return Literal(term.value)


@lru_cache(maxsize=4096)
def number(value: float | int, datatype: str) -> Literal:
    """A measure value in the measure's declared datatype (its ``rdfs:range``); cached, as the
    same scores (0, 1, 0.5 …) recur on every question."""
    if datatype == XSD + "integer":
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"{value!r} is not an integer")
        text = str(int(value))
    elif datatype == XSD + "decimal":
        text = format(Decimal(repr(value)) if isinstance(value, float) else Decimal(value), "f")
    elif datatype == XSD + "boolean":
        text = "true" if value else "false"
    else:
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"not a finite number: {value!r}")
        text = repr(float(value))
    return Literal(text, datatype=_datatype(datatype))


TRUE = Literal("true", datatype=NamedNode(XSD + "boolean"))
FALSE = Literal("false", datatype=NamedNode(XSD + "boolean"))


def boolean(value: bool) -> Literal:
    return TRUE if value else FALSE


def integer(value: int) -> Literal:
    return number(int(value), XSD + "integer")


def date_time(value: datetime) -> Literal:
    """An ``xsd:dateTime`` in UTC, always to the millisecond (one precision for every time we
    record, so times written apart still compare as they happened)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    text = value.astimezone(UTC).isoformat(timespec="milliseconds")
    return Literal(text, datatype=_datatype(XSD + "dateTime"))


def checked_iri(value: str) -> NamedNode | None:
    """A NamedNode for an untrusted IRI (answers, endpoints), or None when a strict parser
    would not accept it as an IRI."""
    return node(value) if is_valid_iri(value) else None


def answer_term(term: Term) -> NamedNode | Literal:
    """An answer (system or gold) as the valid term :mod:`service.valid_terms` stores for it
    (an invalid IRI or a blank node becomes a plain literal, and so on)."""
    stored = valid_term(term).term
    return node(stored.value) if stored.kind is TermKind.IRI else _literal(stored)


_UNESCAPE = re.compile(r"\\(.)")


def displayed_term(text: str) -> NamedNode | Literal:
    """A compared item as the profile displays it (``<iri>``, ``"x"@en``…) back to a term.

    Anything that does not read as an N-Triples IRI or literal is kept as a plain literal.
    Short items are cached (the same answers recur across systems and tasks); long ones not,
    so the cache stays small.
    """
    return _displayed_cached(text) if len(text) <= 300 else _displayed(text)


@lru_cache(maxsize=1 << 14)
def _displayed_cached(text: str) -> NamedNode | Literal:
    return _displayed(text)


# an item as displayed whose IRI, tag or datatype is not valid (``<http://e.org/a\x01>``,
# ``"Jupiter"@en\x01``): read apart all the same, so the rule of service/valid_terms.py
# applies to its parts, as its warning says ("stored as a plain literal", "stored without its
# language tag"); the whole text was stored, brackets, quotes and tag (explore31 F14)
_LOOSE_TERM = re.compile(
    r'(?:<(?P<iri>[^<>"]*)>|"(?P<lex>(?:[^"\\]|\\.)*)"(?:@(?P<lang>.+)|\^\^<(?P<dt>[^<>]*)>)?)',
    re.DOTALL,
)


def _displayed(text: str) -> NamedNode | Literal:
    m = t.NT_TERM.match(text) or _LOOSE_TERM.fullmatch(text)
    if not m:
        return literal(text)
    if m.group("iri") is not None:
        return checked_iri(m.group("iri")) or answer_term(Term.iri(m.group("iri")))
    lex = _UNESCAPE.sub(lambda x: {"n": "\n", "r": "\r", "t": "\t"}.get(x[1], x[1]), m["lex"])
    return literal(lex, datatype=m.group("dt"), lang=m.group("lang"))
