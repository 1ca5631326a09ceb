"""What the public endpoint must know about a query text before running it.

Two facts: the query form (to negotiate the response format before running it) and whether it
calls ``SERVICE`` (refused: pyoxigraph would fetch the remote endpoint, and a public service must
not make requests on a stranger's behalf). A small lexer finds the keywords outside strings,
IRIs and comments; pyoxigraph parses the query itself. It errs on the safe side: any bare word
``SERVICE`` (the keyword cannot be anything else) refuses the query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# SPARQL 1.1 §19.2: \u and \U escapes are replaced before the query is parsed, so a keyword
# may be spelled with escapes (\u0053ERVICE). Decode them first so the lexer sees what the
# parser sees.
_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n\r]*)
  | (?P<long_string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\")
  | (?P<string>'(?:[^'\\\n\r]|\\.)*'|"(?:[^"\\\n\r]|\\.)*")
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<var>[?$][\w\u00b7\u0300-\u036f\u203f-\u2040]+)
  | (?P<langtag>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
  | (?P<name>[^\s{}()\[\];,.<>"'?$@#=!&|+*/^-]+(?:\.[^\s{}()\[\];,.<>"'?$@#=!&|+*/^-]+)*)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

QUERY_FORMS = ("SELECT", "CONSTRUCT", "DESCRIBE", "ASK")
# Functions whose value changes from one evaluation to the next (SPARQL 1.1 §17.4): a query
# using one must not be answered from the result cache.
VOLATILE = frozenset({"RAND", "NOW", "UUID", "STRUUID", "BNODE"})


@dataclass(frozen=True, slots=True)
class QueryFacts:
    """What the lexer saw: the query form (``None`` if unknown), SERVICE, volatile functions."""

    form: str | None
    uses_service: bool
    volatile: bool = False


def _decode_codepoints(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        try:
            return chr(int(match.group(1) or match.group(2), 16))
        except ValueError:  # beyond U+10FFFF: leave it for the parser to reject
            return match.group(0)

    return _CODEPOINT.sub(replace, text)


def inspect_query(text: str) -> QueryFacts:
    """Scan ``text`` for the query form and ``SERVICE`` (keywords are case-insensitive).

    >>> inspect_query('SELECT * FROM <g> { ?s ?p "SERVICE" }')
    QueryFacts(form='SELECT', uses_service=False, volatile=False)
    """
    form: str | None = None
    service = volatile = False
    for match in _TOKEN.finditer(_decode_codepoints(text)):
        if match.lastgroup != "name":
            continue
        word = match.group("name")
        if ":" in word:  # a prefixed name (ex:service) or blank node label, never a keyword
            continue
        upper = word.upper()
        if form is None and upper in QUERY_FORMS:
            form = upper
        elif upper == "SERVICE":
            service = True
        elif upper in VOLATILE:
            volatile = True
    return QueryFacts(form=form, uses_service=service, volatile=volatile)


@lru_cache(maxsize=512)
def inspect_query_cached(text: str) -> QueryFacts:
    """:func:`inspect_query`, remembered for the texts seen last (clients repeat queries)."""
    return inspect_query(text)
