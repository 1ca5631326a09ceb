"""Answer values of the element-named kind (QALD-XML ``<answer>`` children, QALD-5 JSON).

QALD-XML (and the QALD-5 JSON that mirrors it) name an answer value by its kind: ``<uri>``,
``<string>``, ``<date>``, ``<number>``, ``<boolean>``, or bare text. One ``<answer>`` is one
row; each child is a binding named after its element, so a writer can give the file back.
"""

from __future__ import annotations

import re

from service.model import (
    XSD_BOOLEAN,
    XSD_DATE,
    XSD_DECIMAL,
    XSD_DOUBLE,
    XSD_INTEGER,
    Term,
    TermKind,
)

ELEMENTS = ("uri", "string", "date", "number", "boolean")
BARE = "answer"
"""The variable name of a bare-text answer (``<answer>text</answer>``)."""

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+)")
_DOUBLE = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)[eE][+-]?[0-9]+")
_DATE = re.compile(r"-?[0-9]{4,}-[0-9]{2}-[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})?")


def numeric_datatype(value: str) -> str | None:
    """xsd:integer, xsd:decimal or xsd:double by lexical form (SPARQL 1.1 §19.8), else None."""
    if _INTEGER.fullmatch(value):
        return XSD_INTEGER
    if _DECIMAL.fullmatch(value):
        return XSD_DECIMAL
    if _DOUBLE.fullmatch(value):
        return XSD_DOUBLE
    return None


def is_date(value: str) -> bool:
    return _DATE.fullmatch(value) is not None


def element_term(element: str | None, value: str) -> Term:
    """The term a ``<element>value</element>`` answer stands for (``None``: bare text).

    A ``<number>`` whose text is not a number stays a plain literal (the reader warns).
    """
    if element == "uri":
        return Term.iri(value)
    if element == "date":
        return Term.literal(value, datatype=XSD_DATE)
    if element == "number":
        return Term.literal(value, datatype=numeric_datatype(value))
    if element == "boolean":
        return Term.literal(value, datatype=XSD_BOOLEAN)
    return Term.literal(value)


def base_name(var: str) -> str:
    """``uri_2`` -> ``uri``: the element a repeated child's binding was named after."""
    head, sep, tail = var.rpartition("_")
    return head if sep and tail.isdigit() and head in ELEMENTS else var


def element_for(var: str, term: Term) -> tuple[str | None, bool]:
    """The element that gives ``term`` back when read, and whether nothing is lost.

    Prefer the element the binding was read from (its variable name), so a file reads back the
    same; otherwise pick by the term's kind. ``(None, …)`` means bare text.
    """
    base = base_name(var)
    if base == BARE and element_term(None, term.value) == term:
        return None, True
    if base in ELEMENTS and element_term(base, term.value) == term:
        return base, True
    if term.kind is TermKind.IRI:
        return "uri", True
    for element in ("boolean", "date", "string", "number"):
        if element_term(element, term.value) == term:
            return element, True
    return "string", False  # a language tag, another datatype or a blank node is lost


def unique_var(row: dict[str, Term], element: str) -> str:
    """``uri``, then ``uri_2``, ``uri_3``… for repeated children of one ``<answer>``."""
    if element not in row:
        return element
    n = 2
    while f"{element}_{n}" in row:
        n += 1
    return f"{element}_{n}"
