"""Writing terms into SPARQL text safely, and reading SPARQL JSON bindings back as terms.

Every key of a batched lookup ends up inside a ``VALUES`` block, so it must be spelled so that
no label or IRI can break (or inject into) the query: labels with quotes, backslashes, newlines
and non-ASCII text must come back exactly. The grammar rules cited are SPARQL 1.1 §19.8.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from service.model import XSD_STRING, AnswerSet, Term, TermKind
from service.valid_terms import is_valid_iri

T = TypeVar("T")

# IRIREF ::= '<' ([^<>"{}|^`\]-[#x00-#x20])* '>'; and we only send absolute IRIs (a relative
# one would be resolved against the endpoint's base and come back as something else).
_IRI_FORBIDDEN = re.compile(r'[<>"{}|^`\\\x00-\x20]')
_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# LANGTAG ::= '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*
_LANGTAG = re.compile(r"^[A-Za-z]+(?:-[A-Za-z0-9]+)*$")
# STRING_LITERAL_QUOTE may not hold '"', '\', LF or CR raw (ECHAR escapes them); we also escape
# the other ECHARs so the query text stays on one line per term and is easy to read in logs.
_ECHAR = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_ESCAPE = re.compile(r'[\\"\n\r\t\b\f]')


def iri_ref(iri: str) -> str | None:
    """``<iri>`` for SPARQL text, or ``None`` when no RDF store can hold this IRI.

    Such an IRI (relative, with a space or a quote in it, or otherwise not RFC 3987, such as
    ``http://ex]ample.org/``, which Oxigraph's query parser refuses) cannot be in any KB, so a
    lookup answers it without asking. Callers must handle ``None``; nothing is silently
    rewritten.
    """
    if not _ABSOLUTE.match(iri) or _IRI_FORBIDDEN.search(iri) or not is_valid_iri(iri):
        return None
    return f"<{iri}>"


def valid_language(lang: str) -> bool:
    return bool(_LANGTAG.match(lang))


def literal(value: str, *, lang: str | None = None, datatype: str | None = None) -> str:
    """A SPARQL literal for ``value`` (language tag or datatype), escaped per ECHAR."""
    body = _NEEDS_ESCAPE.sub(lambda m: _ECHAR[m.group(0)], value)
    if lang is not None:
        if not valid_language(lang):
            raise ValueError(f"not a language tag: {lang!r}")
        return f'"{body}"@{lang}'
    if datatype is not None and datatype != XSD_STRING:
        ref = iri_ref(datatype)
        if ref is None:
            raise ValueError(f"not an absolute IRI for a datatype: {datatype!r}")
        return f'"{body}"^^{ref}'
    return f'"{body}"'


def batches(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """``items`` in consecutive slices of at most ``size``."""
    if size < 1:
        raise ValueError(f"batch size must be at least 1, got {size}")
    for start in range(0, len(items), size):
        yield items[start : start + size]


def values_block(var: str, spelled: Iterable[str]) -> str:
    """``VALUES ?var { t1 t2 … }`` from terms already spelled for SPARQL."""
    return f"VALUES ?{var} {{ {' '.join(spelled)} }}"


def term_from_json(binding: Mapping[str, Any]) -> Term:
    """One SPARQL 1.1 JSON results binding (``{"type", "value", "xml:lang"?, "datatype"?}``)."""
    kind = binding.get("type")
    value = str(binding.get("value", ""))
    if kind == "uri":
        return Term(value, TermKind.IRI)
    if kind == "bnode":
        return Term(value, TermKind.BNODE)
    # "typed-literal" is the SPARQL XML-era spelling some endpoints (Virtuoso) still send.
    return Term.literal(value, datatype=binding.get("datatype"), lang=binding.get("xml:lang"))


def answer_set_from_json(data: Mapping[str, Any]) -> AnswerSet:
    """SPARQL 1.1 JSON results (SELECT or ASK) as an :class:`AnswerSet`."""
    if "boolean" in data:
        return AnswerSet(boolean=bool(data["boolean"]))
    head_vars = tuple(str(v) for v in (data.get("head") or {}).get("vars") or ())
    rows = tuple(
        {str(var): term_from_json(b) for var, b in row.items()}
        for row in (data.get("results") or {}).get("bindings") or ()
    )
    return AnswerSet(vars=head_vars, rows=rows)
